// The generated parts of docs/cli.md: per command its usage, flags with types and defaults, and its
// example, read from the command definitions themselves (introspect.ts), so the reference cannot list
// a flag the parser does not take or miss one it does.
import { type CommandSpec, commandSpecs, globalOptionSpecs, type OptionSpec } from './introspect.js';
import { configureGlobal, registerAllCommands } from './parser.js';

export function allCommandSpecs(): CommandSpec[] {
  return commandSpecs((p) => registerAllCommands(p, () => {}));
}

const cell = (s: string): string => s.replace(/\|/g, '\\|');

function typeText(o: OptionSpec): string {
  if (o.choices !== undefined) return `one of ${o.choices.map((c) => `\`${c}\``).join(', ')}`;
  const t = o.type ?? 'string';
  return o.array ? `${t}, repeatable` : t;
}

function defaultText(o: OptionSpec): string {
  if (o.default === undefined) return o.required ? 'required' : '';
  return `\`${String(o.default)}\``;
}

function row(name: string, o: OptionSpec): string {
  return `| ${name} | ${typeText(o)} | ${defaultText(o)} | ${cell(o.describe)} |`;
}

function positionalName(spec: CommandSpec, o: OptionSpec): string {
  const m = new RegExp(`([<\\[])${o.name}(\\.\\.)?[>\\]]`).exec(spec.usage);
  return `\`${m?.[0] ?? o.name}\``;
}

/** A command's generated block: usage, what it does, its arguments and flags, its example. */
export function commandReference(spec: CommandSpec): string {
  const lines = [`\`npx podrace ${spec.usage} [options]\``, '', `${spec.description}.`, ''];
  const rows = [
    ...spec.positionals.map((o) => row(positionalName(spec, o), o)),
    ...spec.options.map((o) =>
      row(
        o.type === 'boolean' && o.default === true
          ? `\`--${o.name}\`, \`--no-${o.name}\``
          : `\`--${o.name}\``,
        o,
      ),
    ),
  ];
  if (rows.length > 0)
    lines.push('| argument / flag | type | default | meaning |', '| --- | --- | --- | --- |', ...rows, '');
  for (const e of spec.examples)
    lines.push('```sh', `${e.command.replace(/^\$0 /, 'npx podrace ')}   # ${e.description}`, '```', '');
  return lines.join('\n');
}

/** The global options (every command takes them). */
export function globalReference(): string {
  const own = globalOptionSpecs((p) => {
    configureGlobal(p);
  });
  return [
    '| flag | type | default | meaning |',
    '| --- | --- | --- | --- |',
    ...own.map((o) => row(`\`--${o.name}\`, \`--no-${o.name}\``, o)),
    '| `--help`, `-h` | boolean | | show the help of podrace or of the command before it |',
    '| `--version` | boolean | | print the version (package.json) |',
  ].join('\n');
}
