// volume-torn-down-while-running: a pod's volume is torn down on a node while a container of that pod
// runs there, or a container of the pod starts after one of its volumes was torn down and not set up
// again (it runs without its volume). Catches #88766: the pre-#102344 volume
// populator deciding from the runtime cache and IsPodTerminated instead of asking the pod worker.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Started = Extract<Fact, { kind: 'containerStarted' }>;
type SetUp = Extract<Fact, { kind: 'volumeSetUp' }>;
type TearDown = Extract<Fact, { kind: 'volumeTearDown' }>;

interface PodState {
  /** Running containers: containerStarted not yet followed by containerExited / containerRemoved. */
  readonly running: Map<string, Started>;
  /** The last volumeSetUp per volume (a cause only). */
  readonly setUp: Map<string, SetUp>;
  /** Volumes torn down (any ok) and not set up again since, with the tear-down. */
  readonly tornDown: Map<string, TearDown>;
}

const byTime = (a: Fact, b: Fact): number => a.atMs - b.atMs;

export class VolumeTornDownWhileRunning implements Checker {
  readonly id = 'volume-torn-down-while-running';
  readonly kinds: readonly FactKind[] = [
    'containerExited',
    'containerRemoved',
    'containerStarted',
    'volumeSetUp',
    'volumeTearDown',
  ];
  /** node -> uid -> state. */
  readonly #byNode = new Map<string, Map<string, PodState>>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'containerStarted': {
        const s = this.#state(f.node, f.uid);
        for (const [volume, td] of s.tornDown) {
          const setUp = s.setUp.get(volume);
          const causes: Fact[] = setUp === undefined ? [td, f] : [setUp, td, f];
          report(
            this.#violation(
              f,
              volume,
              `container ${f.pod}/${f.container} started at ${secs(f.atMs)} without its volume ${volume}: ` +
                `TearDown for pod ${f.pod} (uid ${f.uid}) at ${secs(td.atMs)} ` +
                `(${td.ok ? 'ok' : 'failed'}) and no SetUp since`,
              causes.sort(byTime),
            ),
          );
          break;
        }
        s.running.set(f.container, f);
        return;
      }
      case 'containerExited':
      case 'containerRemoved': {
        this.#byNode.get(f.node)?.get(f.uid)?.running.delete(f.container);
        return;
      }
      case 'volumeSetUp': {
        const s = this.#state(f.node, f.uid);
        s.setUp.set(f.volume, f);
        s.tornDown.delete(f.volume);
        return;
      }
      case 'volumeTearDown': {
        const s = this.#state(f.node, f.uid);
        for (const started of s.running.values()) {
          const setUp = s.setUp.get(f.volume);
          const causes: Fact[] = setUp === undefined ? [started, f] : [setUp, started, f];
          report(
            this.#violation(
              f,
              f.volume,
              `volume ${f.volume} of pod ${f.pod} (uid ${f.uid}) torn down at ${secs(f.atMs)} ` +
                `(${f.ok ? 'ok' : 'failed'}) while container ${started.pod}/${started.container} ` +
                `(started at ${secs(started.atMs)}) is still running`,
              causes.sort(byTime),
            ),
          );
          break;
        }
        s.tornDown.set(f.volume, f);
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}

  #violation(f: Started | TearDown, volume: string, message: string, causes: Fact[]): Violation {
    return {
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: f.pod,
      uid: f.uid,
      volume,
      message,
      causes,
    };
  }

  #state(node: string, uid: string): PodState {
    let pods = this.#byNode.get(node);
    if (pods === undefined) {
      pods = new Map();
      this.#byNode.set(node, pods);
    }
    let s = pods.get(uid);
    if (s === undefined) {
      s = { running: new Map(), setUp: new Map(), tornDown: new Map() };
      pods.set(uid, s);
    }
    return s;
  }
}
