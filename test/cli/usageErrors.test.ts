// Command-line errors as good as the scenario-file errors: the flag or argument first, what was expected,
// the nearest name for a typo (a flag, a command, a fix ID, an invariant ID, an enum value), the unit a
// bare number lacks, how a range is written; one line on standard error, exit 2, no stack trace.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/cli/errors.js';
import { eventFilterOf } from '../../src/cli/eventsOption.js';
import { durationOption, fixesOption } from '../../src/cli/options.js';
import { parseSeedList } from '../../src/cli/seedSweep.js';
import { RELEASE_PRESETS } from '../../src/fixes.js';
import { filterEvents } from '../../src/report/eventFilter.js';
import { Fixes, runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { dryParse } from '../docs/dryParse.js';
import { podrace } from './spawnCli.js';

async function parseError(args: readonly string[]): Promise<string> {
  const r = await dryParse(args);
  return r.ok ? `parsed as ${r.command}` : r.error;
}

function thrown(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof InputError) return err.message;
    throw err;
  }
  return 'no error';
}

const COMMANDS = 'run, verify, list, fuzz, replay, main, merge, explain, diff, import, explore, help';

describe("yargs' failures, in podrace's words", () => {
  const cases: readonly (readonly [readonly string[], string])[] = [
    [
      ['fuzz', '--run', '3'],
      '--run: unknown flag of fuzz (did you mean "--runs"?); `npx podrace fuzz --help` lists its flags',
    ],
    [['fuzz', '--shrink-run', '3'], '--shrink-run: unknown flag of fuzz (did you mean "--shrink-runs"?)'],
    [['fuzz', '--no-oracl'], '--no-oracl: unknown flag of fuzz (did you mean "--no-oracle"?)'],
    [['verify', '--jsn'], '--jsn: unknown flag of verify (did you mean "--json"?)'],
    [['run', 'x', '--runs', '4'], '--runs: unknown flag of run (a flag of fuzz, main);'],
    [['--colr', 'run', 'x'], '--colr: unknown flag of podrace (did you mean "--color"?)'],
    [['rn', 'x'], `rn: unknown command (did you mean "run"?); commands: ${COMMANDS}`],
    [['qqqqqq'], `qqqqqq: unknown command; commands: ${COMMANDS}`],
    [[], `name a command: ${COMMANDS}; \`npx podrace --help\` says what each does`],
    [['list', 'fixs'], 'list: expected invariants, fixes or scenarios, got "fixs" (did you mean "fixes"?)'],
    [
      ['run', 'x', '--kubelet', '1.32'],
      `--kubelet: expected fixed (also all), legacy (also none) or a modelled release (${RELEASE_PRESETS.join(', ')}), got "1.32" (not modelled: \`npx podrace list fixes\` shows what each modelled release ships)`,
    ],
    [
      ['run', 'x', '--kubelet', 'legcy'],
      `--kubelet: expected fixed (also all), legacy (also none) or a modelled release (${RELEASE_PRESETS.join(', ')}), got "legcy" (did you mean "legacy"?)`,
    ],
    [['diff', 'x', '--base-kubelet', '1.19'], '--base-kubelet: expected fixed (also all), legacy'],
    [['run', 'x', '--seed'], "--seed: needs a value (seed (decimal or 0x-hex uint32); default: the file's)"],
    [['replay'], 'replay: --seed is required (the campaign seed the fuzzer printed)'],
    [
      ['run'],
      'run: missing <file> (scenario file (YAML), or the name of a bundled scenario); usage: npx podrace run <file> [options]',
    ],
    [['run', 'a', 'b'], 'run: unexpected argument "b"; usage: npx podrace run <file> [options]'],
    [
      ['list', 'fixes', 'extra'],
      'list: unexpected argument "extra"; usage: npx podrace list [what] [options]',
    ],
  ];
  for (const [args, message] of cases)
    it(`podrace ${args.join(' ')}`, async () => {
      const error = await parseError(args);
      expect(error.startsWith(message), error).toBe(true);
      expect(error).not.toContain('\n');
    });
});

describe('flag values', () => {
  it('--fix: the nearest fix ID for a typo, the state for a bare ID, on or off for a misspelt state', () => {
    expect(thrown(() => fixesOption(undefined, ['pod-worker-lifcycle=off']))).toMatch(
      /^--fix: unknown fix "pod-worker-lifcycle" \(did you mean "pod-worker-lifecycle"\?\); known fixes: pod-worker-lifecycle, /,
    );
    expect(thrown(() => fixesOption(undefined, ['block-metrics']))).toBe(
      '--fix: expected ID=on or ID=off, got "block-metrics" (block-metrics=on or block-metrics=off)',
    );
    expect(thrown(() => fixesOption(undefined, ['block-metrics=of']))).toBe(
      '--fix: block-metrics=of: expected on or off after "=" (did you mean "off"?)',
    );
    expect(thrown(() => fixesOption(undefined, ['block-metric=on'], 'base-'))).toMatch(
      /^--base-fix: unknown fix "block-metric" \(did you mean "block-metrics"\?\)/,
    );
  });

  it('a duration without a unit says which units there are, with the number in them', () => {
    expect(thrown(() => durationOption('80', '--since'))).toBe(
      '--since: "80" needs a unit: 80ms, 80s or 80m (a duration like 250ms, 30s or 5m)',
    );
    expect(thrown(() => durationOption('1.5', '--time-limit'))).toMatch(/"1.5" needs a unit: 1.5ms, 1.5s/);
    expect(durationOption('80s', '--since')).toBe(80_000);
    expect(thrown(() => durationOption('abc', '--until'))).toBe(
      '--until: expected a duration like 250ms, 30s or 5m, got "abc"',
    );
  });

  it('--seeds: a range written as other tools write it is told how podrace writes it', () => {
    for (const [given, meant] of [
      ['1-200', '1..200'],
      ['1...200', '1..200'],
      ['1:200', '1..200'],
      ['0x10-0x1f', '0x10..0x1f'],
    ] as const)
      expect(thrown(() => parseSeedList(given))).toBe(
        `--seeds: ranges are A..B (both included): ${meant}, not "${given}"`,
      );
    expect(thrown(() => parseSeedList('5,1..'))).toBe(
      '--seeds: 1.. lacks an end; ranges are A..B (both included), as 1..200',
    );
    expect(parseSeedList('1..3,7')).toEqual([1, 2, 3, 7]);
  });

  it('--kind takes an invariant ID (its violations), and a typo gets the nearest kind or invariant', () => {
    expect(thrown(() => eventFilterOf({ kind: ['container-started-after-terminatd'] }, undefined))).toMatch(
      /^--kind: unknown kind "container-started-after-terminatd" \(did you mean "container-started-after-terminated"\?\); expected an invariant ID/,
    );
    expect(thrown(() => eventFilterOf({ kind: ['containerStart'] }, undefined))).toMatch(
      /did you mean "containerStarted"\?/,
    );
    const scenario = loadScenarioFile('scenarios/pod-deleted-before-start.yaml');
    const result = runScenario(scenario, { fixes: Fixes.none(), recordFacts: true });
    const filter = eventFilterOf({ kind: ['container-started-after-terminated'] }, scenario);
    if (filter === undefined) throw new Error('a --kind gives a filter');
    const events = filterEvents(result, filter);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      expect(e.type).toBe('violation');
      if (e.type === 'violation') expect(e.violation.invariant).toBe('container-started-after-terminated');
    }
    const other = eventFilterOf({ kind: ['multi-node-mount'] }, scenario);
    if (other === undefined) throw new Error('a --kind gives a filter');
    expect(filterEvents(result, other)).toEqual([]);
  });
});

describe('the built CLI', () => {
  it('prints one line on standard error, exit 2, no stack trace', () => {
    for (const args of [
      ['fuzz', '--run', '3'],
      ['run', 'pod-deleted-before-start', '--seeds', '1-200'],
      ['run', 'pod-deleted-before-start', '--since', '80'],
      ['run', 'pod-deleted-before-start', '--kubelet', '1.32'],
      ['run', 'pod-deleted-before-start', '--fix', 'pod-worker-lifcycle=off'],
    ]) {
      const r = podrace(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^podrace: --[a-z-]+: [^\n]+\n$/);
    }
  });

  it('checks the flags before it looks for the scenario', () => {
    const r = podrace(['run', 'no-such-scenario', '--fix', 'pod-worker-lifcycle=off']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^podrace: --fix: unknown fix "pod-worker-lifcycle"/);
  });
});
