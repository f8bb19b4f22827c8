// `podrace fuzz` and `podrace replay` (SPEC section 2), registered once the fuzz layer exists.
import type { Argv } from 'yargs';

export function registerFuzzCommands(parser: Argv, setExit: (code: number) => void): void {
  void parser;
  void setExit;
}
