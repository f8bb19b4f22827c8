// container-restarted-during-back-off on synthetic facts (the runtime's attempts of one container): the
// planted bug (a doBackOff that lets a crash-looping container straight back in) fires; the kubelet's own
// schedule (10 s, 20 s, ... from each exit; a window that starts over) does not.
import { describe, expect, it } from 'vitest';
import type { Fact, FactKind } from '../../src/facts.js';
import { ContainerRestartedDuringBackOff } from '../../src/invariants/index.js';
import type { Violation } from '../../src/invariants/types.js';

type FactOf<K extends FactKind> = Extract<Fact, { kind: K }>;
const POD = { node: 'node-a', pod: 'web', uid: 'uid-web', container: 'c1' } as const;

const created = (atMs: number): FactOf<'containerCreated'> => ({ kind: 'containerCreated', atMs, ...POD });
const exited = (atMs: number): FactOf<'containerExited'> => ({
  kind: 'containerExited',
  atMs,
  ...POD,
  exitCode: 1,
});
const removed = (atMs: number): FactOf<'containerRemoved'> => ({ kind: 'containerRemoved', atMs, ...POD });
const kubeletStarted = (atMs: number): FactOf<'kubeletStarted'> => ({
  kind: 'kubeletStarted',
  atMs,
  node: 'node-a',
});

function run(facts: readonly Fact[]): Violation[] {
  const out: Violation[] = [];
  const checker = new ContainerRestartedDuringBackOff();
  for (const f of facts) checker.onFact(f, (v) => void out.push(v));
  checker.onEnd();
  return out;
}

/** A crash loop: each attempt created `gapsMs[i]` after the previous attempt's exit, crashing 1 s after. */
function loop(gapsMs: readonly number[]): Fact[] {
  const facts: Fact[] = [created(0)];
  let t = 1000;
  facts.push(exited(t));
  for (const gap of gapsMs) {
    t += gap;
    facts.push(created(t));
    t += 1000;
    facts.push(exited(t));
  }
  return facts;
}

describe('container-restarted-during-back-off', () => {
  it("is quiet on the kubelet's schedule: at once, then 10 s, 20 s, 40 s ... up to 5 min after each exit", () => {
    expect(run(loop([0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]))).toEqual([]);
  });

  it('fires for a restart at once after the second crash (the planted bug: doBackOff never backs off)', () => {
    const facts = loop([0, 0]);
    const out = run(facts);
    expect(out).toHaveLength(1);
    expect(out[0]?.invariant).toBe('container-restarted-during-back-off');
    expect(out[0]?.atMs).toBe(2000);
    expect(out[0]?.causes).toEqual([facts[3], facts[4]]);
    expect(out[0]?.message).toBe(
      'container web/c1 (uid uid-web) was created again at 2.00s, 0.00s after its last attempt ended at ' +
        '2.00s, inside its crash-loop back-off of 10.00s: doBackOff skips such a start',
    );
  });

  it('fires for a window that does not double (20 s expected after the third crash)', () => {
    expect(run(loop([0, 10_000, 10_000])).map((v) => v.atMs)).toEqual([23_000]);
  });

  it('starts over after twice the maximum quiet, after a kubelet restart, and when every exited attempt is gone', () => {
    // Quiet for 11 min after the last restart: the window starts over (at once is fine).
    const quiet = loop([0, 10_000]);
    quiet.push(created(12_000 + 660_000));
    expect(run(quiet)).toEqual([]);
    // A new kubelet process starts with no back-off.
    expect(run([...loop([0]), kubeletStarted(2500), created(2600)])).toEqual([]);
    // The kubelet stopped the newest attempt (a changed sandbox) and starts the container again at once.
    const stopping: FactOf<'containerStopping'> = {
      kind: 'containerStopping',
      atMs: 2100,
      ...POD,
      gracePeriodSeconds: 30,
    };
    expect(run([...loop([0]), created(12_000), stopping, exited(12_200), created(12_300)])).toEqual([]);
    // The garbage collector removed both attempts: doBackOff has no exited attempt to go by.
    expect(run([...loop([0]), removed(2100), removed(2200), created(2300)])).toEqual([]);
  });
});
