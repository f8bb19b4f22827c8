// The PLEG's relist against pkg/kubelet/pleg/generic.go (release-1.20 and 1.23 agree on what follows).
import { describe, expect, it } from 'vitest';
import { Cache } from '../../src/kubelet/container/cache.js';
import { GenericPLEG, generateEvents, type PodLifecycleEvent } from '../../src/kubelet/pleg/genericPleg.js';
import { FakeRuntime } from '../../src/runtime/fakeRuntime.js';
import { type Chan, type Co, Sim } from '../../src/sim/index.js';

const META = { uid: 'u1', name: 'web', namespace: 'default' };

function drain(ch: Chan<PodLifecycleEvent>): PodLifecycleEvent[] {
  const out: PodLifecycleEvent[] = [];
  for (;;) {
    const v = ch.poll();
    if (typeof v !== 'object' || v === null || !('type' in v)) return out;
    out.push(v);
  }
}

describe('GenericPLEG relist', () => {
  it('generateEvents still reports a container in the unknown state as ContainerChanged', () => {
    expect(generateEvents('u1', 'c1', 'non-existent', 'unknown')).toEqual([
      { id: 'u1', type: 'ContainerChanged', data: 'c1' },
    ]);
  });

  it('drops ContainerChanged before it reaches the sync loop, and sends the others', () => {
    const sim = new Sim(1);
    const runtime = new FakeRuntime(sim, sim.rng.fork('runtime'), 'node-a', () => {});
    const ch = sim.chan<PodLifecycleEvent>(100, 'plegCh');
    const pleg = new GenericPLEG(sim, runtime, new Cache(sim), ch);
    let containerId = '';
    sim.spawn(
      'setup',
      (function* (): Co {
        yield* runtime.runPodSandbox(META);
        const r = yield* runtime.createContainer(META, { name: 'app', startDelayMs: 0 });
        containerId = r.value ?? '';
      })(),
    );
    sim.run({ horizonMs: 10_000, maxEvents: 10_000 });
    // The sandbox is ready (running) and the container is created: unknown to the PLEG.
    pleg.relist();
    const events = drain(ch);
    expect(events.map((e) => e.type)).toEqual(['ContainerStarted']);
    expect(events.some((e) => e.data === containerId)).toBe(false);
  });
});
