// The monitor hands each fact only to the checkers whose `kinds` name it (src/invariants/index.ts). A
// checker that reads a kind it does not declare would silently miss it: every fact kind a checker's file
// names must be declared, and feeding every fact to every checker must report exactly the same.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes } from '../../src/fixes.js';
import { type Checker, createCheckers, type Violation } from '../../src/invariants/index.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

const root = join(import.meta.dirname, '..', '..');
const invariantsDir = join(root, 'src', 'invariants');
const FACT_KINDS = new Set(
  [...readFileSync(join(root, 'src', 'facts.ts'), 'utf8').matchAll(/kind: '([a-zA-Z]+)'/g)].map((m) => m[1]),
);

const checkers = (): Checker[] => createCheckers({ volumes: [], faultsActiveAtEnd: () => false });

/**
 * The kind lists a checker spreads from a shared helper (`...KUBELET_UPTIME_KINDS`): the text of each such
 * constant's definition, so that the kinds it names count as the checker's.
 */
function spreadKinds(text: string): string {
  const out: string[] = [];
  for (const [, name] of text.matchAll(/\.\.\.([A-Z_]+_KINDS)\b/g)) {
    const defined = readdirSync(invariantsDir)
      .map((f) => readFileSync(join(invariantsDir, f), 'utf8'))
      .map((t) => new RegExp(`export const ${name} = \\[[^\\]]*\\]`).exec(t)?.[0])
      .find((d) => d !== undefined);
    if (defined === undefined) throw new Error(`no definition of ${name}`);
    out.push(defined);
  }
  return out.join('\n');
}

/** The file that defines `checker`'s class, with the kind lists it spreads. */
function sourceOf(checker: Checker): string {
  const name = checker.constructor.name;
  for (const file of readdirSync(invariantsDir)) {
    const text = readFileSync(join(invariantsDir, file), 'utf8');
    if (text.includes(`export class ${name} implements Checker`)) return text + spreadKinds(text);
  }
  throw new Error(`no source file for ${name}`);
}

describe('checker kinds', () => {
  it('every checker declares exactly the fact kinds its file names', () => {
    expect(FACT_KINDS.size).toBeGreaterThan(40);
    for (const c of checkers()) {
      const named = new Set(
        [...sourceOf(c).matchAll(/'([a-zA-Z]+)'/g)].map((m) => m[1]).filter((k) => FACT_KINDS.has(k)),
      );
      expect([...c.kinds].sort(), c.id).toEqual([...named].sort());
    }
  });

  it('feeding every fact to every checker reports the same as feeding each its kinds (bundled scenarios)', () => {
    const dir = join(root, 'scenarios');
    let reports = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      const scenario = loadScenarioFile(join(dir, file));
      for (const fixes of [Fixes.all(), Fixes.none()]) {
        const facts = runScenario(scenario, { fixes, recordFacts: true }).facts as readonly Fact[];
        const feed = (only: boolean): Violation[] => {
          const out: Violation[] = [];
          const report = (v: Violation): void => void out.push(v);
          const cs = createCheckers({
            volumes: scenario.volumes.map((v) => ({ name: v.name, accessMode: v.accessMode })),
            faultsActiveAtEnd: () => false,
            terminationBudgetMs: 0,
          });
          for (const f of facts)
            for (const c of cs) if (!only || c.kinds.includes(f.kind)) c.onFact(f, report);
          for (const c of cs) c.onEnd(scenario.horizonMs, report);
          return out;
        };
        const dispatched = feed(true);
        expect(dispatched, `${scenario.name} ${fixes.label()}`).toEqual(feed(false));
        reports += dispatched.length;
      }
    }
    expect(reports).toBeGreaterThan(20);
  });
});
