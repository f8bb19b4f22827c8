// The glossary of the races: what the bundled scenarios, the fix table, the invariant descriptions and the
// known-open hazards say about each other. Every relation is computed from those sources (a scenario
// shows an invariant when one of its claims names it; a switch closes an invariant when two claims that
// differ only in that switch disagree on it), so docs/races.md and `podrace explain` never hold a second
// copy of what the sources say.
import { basename } from 'node:path';
import { FIX_IDS, Fixes, type FixId } from '../fixes.js';
import { INVARIANT_IDS, type InvariantId, isFinding } from '../invariants/types.js';
import { runScenario } from '../run/run.js';
import { bundledScenarioFiles } from '../scenario/bundled.js';
import { loadScenarioFile } from '../scenario/load.js';
import { type Claim, fixesOfClaim, type Scenario } from '../scenario/types.js';

export interface ClaimView {
  readonly claim: Claim;
  readonly fixes: Fixes;
  /** The fix set as output headers write it (`Fixes.label()`: all, none, -id, 1.23,+id). */
  readonly label: string;
  /** The `run` flags that select this fix set. */
  readonly flags: readonly string[];
}

/** Flipping `switches` (`+id` on, `-id` off) from claim `from`, where the invariant fires, gives claim `to`, where it does not. */
export interface Closing {
  readonly scenario: string;
  readonly invariant: InvariantId;
  readonly switches: readonly string[];
  readonly from: string;
  readonly to: string;
}

export interface ScenarioEntry {
  readonly scenario: Scenario;
  /** `scenarios/<file>`, relative to the repository. */
  readonly path: string;
  readonly claims: readonly ClaimView[];
  /** Per invariant that some claim names, the fewest switches that close it (empty when none does). */
  readonly closings: readonly Closing[];
  /** Invariants that fire under every claim of the scenario. */
  readonly alwaysFires: readonly InvariantId[];
}

export interface Glossary {
  readonly scenarios: readonly ScenarioEntry[];
}

/** `--kubelet` and `--fix` flags of a claim's fix set, as written in the claim. */
export function claimFlags(claim: Claim): string[] {
  const f = claim.fixes;
  return [
    ...(f.kubelet === 'fixed' ? [] : [`--kubelet ${f.kubelet}`]),
    ...f.off.map((id) => `--fix ${id}=off`),
    ...f.on.map((id) => `--fix ${id}=on`),
  ];
}

/** The switches to flip from `a` to reach `b`: `+id` turned on, `-id` turned off, in table order. */
export function switchDiff(a: Fixes, b: Fixes): string[] {
  return FIX_IDS.filter((id) => a.on(id) !== b.on(id)).map((id) => `${b.on(id) ? '+' : '-'}${id}`);
}

const named = (c: Claim): readonly InvariantId[] => [...c.violations, ...(c.findings ?? [])];

/** What a claim says of an invariant; a claim without `findings:` says nothing about findings. */
function says(c: Claim, id: InvariantId): 'fires' | 'holds' | 'silent' {
  if (isFinding(id)) return c.findings === null ? 'silent' : c.findings.includes(id) ? 'fires' : 'holds';
  return c.violations.includes(id) ? 'fires' : 'holds';
}

function closingsOf(
  name: string,
  claims: readonly ClaimView[],
): { closings: Closing[]; always: InvariantId[] } {
  const closings: Closing[] = [];
  const always: InvariantId[] = [];
  for (const id of INVARIANT_IDS) {
    const fires = claims.filter((c) => says(c.claim, id) === 'fires');
    if (fires.length === 0) continue;
    const holds = claims.filter((c) => says(c.claim, id) === 'holds');
    if (holds.length === 0) {
      // Only when every claim says it fires; a claim without `findings:` says nothing either way.
      if (fires.length === claims.length) always.push(id);
      continue;
    }
    // Per claim where it fires, the nearest claims where it does not: each such flip closes it there.
    const best: Closing[] = [];
    for (const a of fires) {
      const near = holds.map((b) => ({ b, switches: switchDiff(a.fixes, b.fixes) }));
      const fewest = Math.min(...near.map((x) => x.switches.length));
      for (const { b, switches } of near.filter((x) => x.switches.length === fewest))
        if (!best.some((x) => x.switches.join() === switches.join()))
          best.push({ scenario: name, invariant: id, switches, from: a.label, to: b.label });
    }
    closings.push(...best);
  }
  return { closings, always };
}

export function scenarioEntry(scenario: Scenario): ScenarioEntry {
  const claims = scenario.claims.map((claim): ClaimView => {
    const fixes = fixesOfClaim(claim.fixes);
    return { claim, fixes, label: fixes.label(), flags: claimFlags(claim) };
  });
  const { closings, always } = closingsOf(scenario.name, claims);
  return {
    scenario,
    path: `scenarios/${basename(scenario.file)}`,
    claims,
    closings,
    alwaysFires: always,
  };
}

const hazardRuns = new WeakMap<ScenarioEntry, ReadonlyMap<InvariantId, readonly string[]>>();

/**
 * What fires with every fix on and which known-open hazards the run ties it to (the runner's own
 * mechanism-based tie, src/invariants/hazards.ts): one run of the scenario, made on first use.
 */
export function firesWithEveryFix(e: ScenarioEntry): ReadonlyMap<InvariantId, readonly string[]> {
  let out = hazardRuns.get(e);
  if (out === undefined) {
    const byInvariant = new Map<InvariantId, string[]>();
    for (const v of runScenario(e.scenario, { fixes: Fixes.all() }).violations) {
      const list = byInvariant.get(v.invariant) ?? [];
      if (v.knownOpen !== undefined && !list.includes(v.knownOpen)) list.push(v.knownOpen);
      byInvariant.set(v.invariant, list);
    }
    out = new Map(
      INVARIANT_IDS.filter((id) => byInvariant.has(id)).map((id) => [id, byInvariant.get(id) ?? []]),
    );
    hazardRuns.set(e, out);
  }
  return out;
}

export function buildGlossary(scenarios: readonly Scenario[]): Glossary {
  return { scenarios: scenarios.map(scenarioEntry) };
}

let bundled: Glossary | undefined;

/** The glossary of the bundled scenarios (loaded once). */
export function bundledGlossary(): Glossary {
  bundled ??= buildGlossary(bundledScenarioFiles().map((f) => loadScenarioFile(f)));
  return bundled;
}

/** Scenarios whose claims name the invariant, with the fix sets under which it fires. */
export function scenariosShowing(
  g: Glossary,
  id: InvariantId,
): { readonly entry: ScenarioEntry; readonly firesWith: readonly string[] }[] {
  return g.scenarios
    .map((entry) => ({
      entry,
      firesWith: entry.claims.filter((c) => named(c.claim).includes(id)).map((c) => c.label),
    }))
    .filter((x) => x.firesWith.length > 0);
}

/** Scenarios with a claim that toggles the switch explicitly (`fixes: {off: [id]}`, `{on: [id]}`). */
export function scenariosToggling(g: Glossary, id: FixId): ScenarioEntry[] {
  return g.scenarios.filter((e) =>
    e.scenario.claims.some((c) => c.fixes.off.includes(id) || c.fixes.on.includes(id)),
  );
}

/** Closings in which flipping this switch alone closes an invariant. */
export function closingsBy(g: Glossary, id: FixId): Closing[] {
  return g.scenarios.flatMap((e) =>
    e.closings.filter((c) => c.switches.length === 1 && c.switches[0]?.slice(1) === id),
  );
}

export function closingsOfInvariant(g: Glossary, id: InvariantId): Closing[] {
  return g.scenarios.flatMap((e) => e.closings.filter((c) => c.invariant === id));
}

export { Fixes };
