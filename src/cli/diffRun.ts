// `podrace diff`: where two runs of one scenario first diverge, and what each did next (docs/watching.md).
//   podrace diff FILE --fix pod-worker-lifecycle=off      A: the file's seed, every fix on; B: these flags
//   podrace diff FILE --base-seed 3 --seed 4              A and B both given
//   podrace diff a.jsonl b.jsonl                          two `run FILE --events --json` outputs
// The event-stream filters of `run --events` (--node, --pod, --volume, --kind, --since, --until) narrow
// both streams before they are compared, so the divergence can be looked for in one pod or one volume.
// Exit code as diff(1): 0 the runs do the same things, 1 they diverge, 2 bad input.
import { readFileSync } from 'node:fs';
import { Chalk } from 'chalk';
import type { Fact } from '../facts.js';
import { isFinding, type Violation } from '../invariants/types.js';
import { type EventFilter, filterEvents, formatEvents, NO_FILTER } from '../report/eventFilter.js';
import { diffFacts, type FactDiff } from '../report/factDiff.js';
import { formatSeconds } from '../report/spans.js';
import { type RunResult, runScenario } from '../run/run.js';
import { loadScenarioFile } from '../scenario/load.js';
import { shellQuote } from '../shellQuote.js';
import type { ArgvOf } from './commands.js';
import type { diffBuilder } from './diffCommand.js';
import { EXIT, InputError } from './errors.js';
import { eventFilterOf } from './eventsOption.js';
import { fixesOption, positiveIntOption, seedOption } from './options.js';
import { scenarioArg } from './scenarioArgs.js';
import { colorEnabled } from './terminal.js';

/** One side of the comparison: a label, its facts (filtered) and its violations. */
export interface DiffSide {
  readonly label: string;
  readonly facts: readonly Fact[];
  readonly violations: readonly Violation[];
}

export interface RunDiff {
  readonly a: DiffSide;
  readonly b: DiffSide;
  readonly diff: FactDiff;
}

function side(label: string, result: RunResult, filter: EventFilter): DiffSide {
  const events = filterEvents(result, filter);
  return {
    label,
    facts: events.flatMap((e) => (e.type === 'fact' ? [e.fact] : [])),
    violations: events.flatMap((e) => (e.type === 'violation' ? [e.violation] : [])),
  };
}

export function diffRuns(
  a: DiffSide,
  b: DiffSide,
  o: { readonly context: number; readonly next: number },
): RunDiff {
  return { a, b, diff: diffFacts(a.facts, b.facts, o) };
}

/** The facts and violations of a `run --events --json` output (one JSON object a line). */
export function parseEventLines(text: string, file: string): { facts: Fact[]; violations: Violation[] } {
  const facts: Fact[] = [];
  const violations: Violation[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      throw new InputError(
        `${file}:${i + 1}: not JSON; expected the output of podrace run FILE --events --json`,
      );
    }
    const r = o as Record<string, unknown> | null;
    if (
      r === null ||
      typeof r !== 'object' ||
      typeof r['kind'] !== 'string' ||
      typeof r['atMs'] !== 'number'
    ) {
      throw new InputError(
        `${file}:${i + 1}: expected one fact or violation a line (podrace run FILE --events --json), got ${line.slice(0, 60)}`,
      );
    }
    if (r['kind'] === 'violation' || r['kind'] === 'finding') {
      const { kind: _kind, ...v } = r;
      violations.push(v as unknown as Violation);
    } else facts.push(r as unknown as Fact);
  });
  return { facts, violations };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(`${path}: cannot read file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

function violationSummary(vs: readonly Violation[]): string {
  const ids = [...new Set(vs.filter((v) => !isFinding(v.invariant)).map((v) => v.invariant))];
  if (ids.length === 0) return 'no violations';
  return ids
    .map((id) => `${id} at ${formatSeconds(vs.find((v) => v.invariant === id)?.atMs ?? 0)}`)
    .join(', ');
}

const factEvents = (facts: readonly Fact[]) =>
  facts.map((fact) => ({ type: 'fact' as const, atMs: fact.atMs, fact }));

export function formatRunDiff(d: RunDiff, color: boolean): string[] {
  const c = new Chalk({ level: color ? 1 : 0 });
  const lines = [`A: ${d.a.label}`, `B: ${d.b.label}`];
  const { diff } = d;
  const first = diff.subjects[0];
  if (first === undefined) {
    lines.push(c.green(`the runs do the same things: ${diff.alike} subject(s), every event alike`));
  } else {
    const at = (f: Fact | undefined) => (f === undefined ? 'no more events' : formatSeconds(f.atMs));
    lines.push(
      c.bold(
        `first divergence: ${first.subject}, after ${first.common} event(s) alike (A: ${at(first.a[0])}, B: ${at(first.b[0])})`,
      ),
    );
    if (first.before.length > 0) {
      lines.push('  alike before it:');
      for (const l of formatEvents(factEvents(first.before), color)) lines.push(`    ${l}`);
    }
    for (const [name, facts] of [
      ['A', first.a],
      ['B', first.b],
    ] as const) {
      lines.push(`  ${name} next:`);
      if (facts.length === 0) lines.push('    (nothing more: the run ends here for this subject)');
      for (const [i, l] of formatEvents(factEvents(facts), color).entries())
        lines.push(`  ${i === 0 ? c.yellow('>') : ' '} ${l}`);
    }
    const others = diff.subjects.slice(1);
    if (others.length > 0) {
      lines.push(`also diverging (${others.length}), by time:`);
      for (const s of others.slice(0, 12)) lines.push(`  ${formatSeconds(s.atMs).padStart(9)}  ${s.subject}`);
      if (others.length > 12) lines.push(`  ... ${others.length - 12} more`);
    }
    lines.push(`${diff.alike} subject(s) alike in both runs`);
  }
  lines.push(`violations  A: ${violationSummary(d.a.violations)}`);
  lines.push(`            B: ${violationSummary(d.b.violations)}`);
  return lines;
}

export function runDiffToJson(d: RunDiff): Record<string, unknown> {
  const v = (s: DiffSide) =>
    s.violations.filter((x) => !isFinding(x.invariant)).map(({ causes: _causes, ...x }) => x);
  return {
    a: { label: d.a.label, events: d.a.facts.length, violations: v(d.a) },
    b: { label: d.b.label, events: d.b.facts.length, violations: v(d.b) },
    diverged: d.diff.diverged,
    alike: d.diff.alike,
    subjects: d.diff.subjects,
  };
}

const isEventsFile = (p: string) => /\.jsonl?$/i.test(p);

export function diffCommand(argv: ArgvOf<typeof diffBuilder>): number {
  const o = {
    context: positiveIntOption(argv.context, '--context'),
    next: positiveIntOption(argv.next, '--next'),
  };
  let d: RunDiff;
  if (isEventsFile(argv.a)) {
    if (argv.b === undefined || !isEventsFile(argv.b))
      throw new InputError(`diff: ${argv.a} is an events file: give run B's events file too (a .jsonl)`);
    const flags = ['seed', 'kubelet', 'fix', 'base-seed', 'base-kubelet', 'base-fix'].filter(
      (k) => argv[k] !== undefined,
    );
    if (flags.length > 0)
      throw new InputError(`diff: --${flags[0]} runs a scenario; two events files are compared as they are`);
    const load = (file: string): RunResult => {
      const { facts, violations } = parseEventLines(readText(file), file);
      return {
        scenario: file,
        seed: 0,
        fixes: fixesOption(undefined, undefined),
        events: facts.length,
        virtualTimeMs: facts[facts.length - 1]?.atMs ?? 0,
        outcome: 'idle',
        complete: true,
        maxEvents: facts.length,
        horizonMs: facts[facts.length - 1]?.atMs ?? 0,
        fixesRead: [],
        fixesFirstReadMs: {},
        firedDuringRunAtMs: {},
        violations,
        findings: [],
        facts,
      };
    };
    const filter = eventFilterOf({ ...argv, events: true }, undefined) ?? NO_FILTER;
    d = diffRuns(side(argv.a, load(argv.a), filter), side(argv.b, load(argv.b), filter), o);
  } else {
    if (argv.b !== undefined)
      throw new InputError(
        `diff: ${argv.b}: with a scenario file, give run B as flags (--seed, --kubelet, --fix)`,
      );
    const { file, shown } = scenarioArg(argv.a);
    const scenario = loadScenarioFile(file);
    const seedA =
      argv['base-seed'] === undefined ? scenario.seed : seedOption(argv['base-seed'], '--base-seed');
    const seedB = argv.seed === undefined ? scenario.seed : seedOption(argv.seed);
    const fixesA = fixesOption(argv['base-kubelet'], argv['base-fix'], 'base-');
    const fixesB = fixesOption(argv.kubelet, argv.fix);
    if (seedA === seedB && fixesA.equals(fixesB))
      throw new InputError(
        'diff: runs A and B are the same run; give B a --seed, --kubelet or --fix (A: --base-seed, --base-kubelet, --base-fix)',
      );
    const filter = eventFilterOf({ ...argv, events: true }, scenario) ?? NO_FILTER;
    const run = (seed: number, fixes: typeof fixesA) =>
      runScenario(scenario, { fixes, seed, recordFacts: true });
    d = diffRuns(
      side(`${shellQuote(shown)} seed ${seedA} fixes ${fixesA.label()}`, run(seedA, fixesA), filter),
      side(`${shellQuote(shown)} seed ${seedB} fixes ${fixesB.label()}`, run(seedB, fixesB), filter),
      o,
    );
  }
  const color = colorEnabled(argv['color'], process.stdout.isTTY === true, process.env);
  const lines = argv.json ? [JSON.stringify(runDiffToJson(d))] : formatRunDiff(d, color);
  for (const l of lines) process.stdout.write(`${l}\n`);
  return d.diff.diverged ? EXIT.VIOLATION : EXIT.OK;
}
