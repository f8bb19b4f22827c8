// The podrace commands. Each command sets the exit code through `setExit`; bad input throws InputError.
import type { Argv } from 'yargs';

export function registerCommands(parser: Argv, setExit: (code: number) => void): void {
  void setExit;
  void parser;
}
