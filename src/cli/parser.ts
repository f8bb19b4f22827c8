// The podrace command line as a yargs parser: the global options, every command, `-h` and `help COMMAND`.
// src/cli.ts runs it; the tests parse documented command lines with it without running them.
import yargs, { type Argv } from 'yargs';
import { didYouMean } from '../scenario/didYouMean.js';
import { registerCommands } from './commands.js';
import { InputError } from './errors.js';
import { commandNames, commandSpecs, globalOptionSpecs } from './introspect.js';
import { refuseRepeatedFlags } from './repeatedFlags.js';
import { type UsageContext, usageErrorMessage } from './usageErrors.js';
import { podraceVersion } from './version.js';

export function buildParser(argv: readonly string[], setExit: (code: number) => void): Argv {
  const parser = configureGlobal(yargs([...argv]), argv);
  refuseRepeatedFlags(parser, argv);
  registerAllCommands(parser, setExit);
  skipHelpCache(parser);
  return parser;
}

/** The part of yargs' usage instance that `skipHelpCache` replaces (yargs 18, build/lib/usage.js). */
interface YargsUsage {
  cacheHelpMessage?: unknown;
}

/**
 * yargs renders the running command's whole help as soon as its handler starts (command.js calls
 * usage.cacheHelpMessage, so that a later showHelp prints that command's help), which costs 17 ms of a
 * `list` and 36 ms of a `run`. podrace never shows help after a handler has started: its failures are
 * InputErrors (one line, exit 2), and `help COMMAND` parses afresh. The usage instance is the same object
 * for the parser's life (reset returns it), so the replacement holds across commands.
 */
function skipHelpCache(parser: Argv): void {
  const internal = (
    parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => YargsUsage } }
  ).getInternalMethods;
  const usage = internal?.call(parser).getUsageInstance?.();
  if (usage !== undefined && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

/**
 * Name, usage, global options and the failure handler (every bad command line is an InputError, exit 2).
 * The version and the locale are podrace's, not what yargs would find: its own --version looks for a
 * package.json above the node_modules it was loaded from, and bundled (scripts/bundle.mjs) there is none
 * (it found the working directory's, or printed "unknown"); and it would translate its headings and
 * errors by LANG from locale files beside its modules, which the bundle does not carry, while podrace's
 * own messages are English. yargs' own failure messages are rewritten in podrace's style (usageErrors.ts)
 * from `args`, the raw command line.
 */
export function configureGlobal(parser: Argv, args: readonly string[] = []): Argv {
  return parser
    .scriptName('podrace')
    .usage(
      '$0 <command> [options]\n\nDeterministic simulator of kubelet pod-lifecycle and volume races. In a clone, run it as `npx podrace`.',
    )
    .option('color', {
      type: 'boolean',
      describe: 'colour the output (default: when stdout is a TTY; NO_COLOR and FORCE_COLOR are honoured)',
    })
    .version(podraceVersion())
    .locale('en')
    .help('help')
    .alias('help', 'h')
    .demandCommand(1, 'Name a command; `npx podrace --help` lists them.')
    .strict()
    .recommendCommands()
    .exitProcess(false)
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((msg: string | null, err: Error | undefined) => {
      if (err !== undefined && err !== null && msg === null) throw err; // an InputError keeps its location
      throw new InputError(
        msg === null ? (err?.message ?? 'invalid command line') : usageErrorMessage(msg, usageContext(args)),
      );
    });
}

/** The commands and global flags a rewritten failure message draws its candidates from. */
function usageContext(args: readonly string[]): UsageContext {
  return {
    args,
    commands: commandSpecs((p) => registerAllCommands(p, () => {})),
    globals: globalOptionSpecs((p) => {
      configureGlobal(p);
    }),
  };
}

/** Every command, `help` included (what the docs generator and `help` itself enumerate). */
export function registerAllCommands(parser: Argv, setExit: (code: number) => void): void {
  registerCommands(parser, setExit);
  parser.command(
    'help [command]',
    "Show podrace's help, or a command's (as `podrace COMMAND --help`)",
    (y) =>
      y
        .positional('command', { type: 'string', describe: 'a command name' })
        .example('$0 help run', "the run command's flags"),
    async (argv) => {
      const name = argv.command === undefined ? undefined : String(argv.command);
      if (name !== undefined) {
        const known = commandNames((p) => registerAllCommands(p, () => {}));
        if (!known.includes(name)) {
          throw new InputError(
            `help: unknown command "${name}"${didYouMean(name, known)}; commands: ${known.join(', ')}`,
          );
        }
      }
      await buildParser(name === undefined ? ['--help'] : [name, '--help'], setExit).parseAsync();
      setExit(0);
    },
  );
}
