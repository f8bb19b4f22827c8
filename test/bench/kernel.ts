// Kernel dispatch speed, side by side with a bare binary-heap loop doing the same pushes and pops. It runs
// the built kernel (dist/, what users run: tsx's module wrappers would add a getter call to every
// cross-module access). A section of `npm run bench` (test/bench/main.ts); it measures, it never asserts
// a time.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as SimModule from '../../src/sim/index.js';
import type { Co, Target } from '../../src/sim/index.js';
import { type BenchSection, measureAll, tableLines } from './measure.js';

let kernel: typeof SimModule;

const EVENTS = 400_000;
const PROCESSES = 64;

/** The floor: a bare heap with the same (time, tie, seq) order, popped in a plain loop. */
function bareHeap(): number {
  const q = new kernel.EventQueue();
  let fired = 0;
  const target: Target = { fire: () => fired++ };
  let x = 1;
  for (let i = 0; i < PROCESSES; i++) q.push(0, i, target, 0);
  while (fired < EVENTS) {
    q.pop().fire(q.poppedArg);
    x = (x * 1103515245 + 12345) >>> 0;
    q.push(q.poppedTimeMs + 1 + (x % 100), x, target, 0);
  }
  return fired;
}

/** Kernel callbacks: one self-rescheduling callback chain per "process". */
function kernelCallbacks(): number {
  const sim = new kernel.Sim(1);
  let fired = 0;
  const tick = (): void => {
    fired++;
    if (fired < EVENTS) sim.after(1 + (fired % 100), tick);
  };
  for (let i = 0; i < PROCESSES; i++) sim.at(0, tick);
  sim.run({ horizonMs: Number.MAX_SAFE_INTEGER, maxEvents: EVENTS });
  return sim.events;
}

/** Kernel coroutines: goroutines that loop on sleep, the shape of every kubelet loop. */
function kernelCoroutines(): number {
  const sim = new kernel.Sim(1);
  for (let i = 0; i < PROCESSES; i++) {
    sim.spawn(
      `g${i}`,
      (function* (): Co {
        for (let n = 0; ; n++) yield* kernel.sleep(1 + ((n * 7 + i) % 100));
      })(),
    );
  }
  sim.run({ horizonMs: Number.MAX_SAFE_INTEGER, maxEvents: EVENTS });
  return sim.events;
}

/** Kernel channels: producer/consumer pairs over capacity-1 channels, like UpdatePod and managePodLoop. */
function kernelChannels(): number {
  const sim = new kernel.Sim(1);
  for (let i = 0; i < PROCESSES / 2; i++) {
    const ch = sim.chan<number>(1);
    sim.spawn(
      `producer${i}`,
      (function* (): Co {
        for (let n = 0; ; n++) {
          yield* ch.send(n);
          yield* kernel.sleep(1 + (n % 50));
        }
      })(),
    );
    sim.spawn(
      `consumer${i}`,
      (function* (): Co {
        for (;;) yield* ch.recv();
      })(),
    );
  }
  sim.run({ horizonMs: Number.MAX_SAFE_INTEGER, maxEvents: EVENTS });
  return sim.events;
}

/** The built kernel (`npm run bench` builds first). */
async function loadKernel(): Promise<typeof SimModule> {
  const file = join(import.meta.dirname, '..', '..', 'dist', 'sim', 'index.js');
  if (!existsSync(file)) throw new Error('dist/ is missing: run `npm run build` first (npm run bench does)');
  return (await import(pathToFileURL(file).href)) as typeof SimModule;
}

export async function benchKernel(): Promise<BenchSection> {
  kernel = await loadKernel();
  const [floor, ...rows] = measureAll([
    { name: 'bare binary heap', body: bareHeap },
    { name: 'kernel callbacks (sim.at)', body: kernelCallbacks },
    { name: 'kernel coroutines (sleep)', body: kernelCoroutines },
    { name: 'kernel channels (send/recv cap 1)', body: kernelChannels },
  ]);
  if (floor === undefined) throw new Error('no kernel measurement');
  const ratio = (name: string): number => {
    const r = rows.find((x) => x.name.startsWith(name));
    return r === undefined ? 0 : round2(floor.eventsPerSec / r.eventsPerSec);
  };
  return {
    title: 'kernel: events/s against a bare heap',
    lines: tableLines(floor, rows),
    json: {
      bareHeapEventsPerSec: Math.round(floor.eventsPerSec),
      callbacksRatio: ratio('kernel callbacks'),
      ratio: ratio('kernel coroutines'),
      channelsRatio: ratio('kernel channels'),
    },
  };
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
