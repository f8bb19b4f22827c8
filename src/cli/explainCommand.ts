// `podrace explain`: its flags and help. The work is in src/cli/explainRun.ts, imported only when it runs.
import type { Argv } from 'yargs';

export function explainBuilder(y: Argv) {
  return y
    .positional('name', {
      type: 'string',
      demandOption: true,
      describe: 'a bundled scenario, invariant, fix or hazard name',
    })
    .example('$0 explain container-started-after-terminated', 'what it means, which scenarios show it');
}

export function registerExplainCommand(parser: Argv, setExit: (code: number) => void): void {
  parser.command(
    'explain <name>',
    'What a scenario, invariant, fix switch or known-open hazard is: upstream references, scenarios, fixes',
    explainBuilder,
    async (argv) => setExit((await import('./explainRun.js')).explainCommand(argv)),
  );
}
