// static-pod-overlap: two static pods (different UIDs) with the same fullname have running containers
// at the same time on one node. containerStarted carries staticFullname for static pods. Catches
// #42061, #97722 and #98103 (and the v1.22.0 regression fixed by #104743 / #106394): a manifest edit adds
// the new UID, which starts while the old one is still in its grace period.
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

type Started = Extract<Fact, { kind: 'containerStarted' }>;

interface NodeState {
  /** fullname -> uid -> container -> containerStarted (running: not yet exited / removed). */
  readonly byFullname: Map<string, Map<string, Map<string, Started>>>;
  /** uid -> fullname, so exits (which do not carry the fullname) find their entry. */
  readonly fullnameOf: Map<string, string>;
}

export class StaticPodOverlap implements Checker {
  readonly id = 'static-pod-overlap';
  readonly kinds: readonly FactKind[] = ['containerExited', 'containerRemoved', 'containerStarted'];
  readonly #nodes = new Map<string, NodeState>();

  onFact(f: Fact, report: (v: Violation) => void): void {
    switch (f.kind) {
      case 'containerStarted': {
        const fullname = f.staticFullname;
        if (fullname === undefined) return;
        let n = this.#nodes.get(f.node);
        if (n === undefined) {
          n = { byFullname: new Map(), fullnameOf: new Map() };
          this.#nodes.set(f.node, n);
        }
        n.fullnameOf.set(f.uid, fullname);
        let group = n.byFullname.get(fullname);
        if (group === undefined) {
          group = new Map();
          n.byFullname.set(fullname, group);
        }
        let mine = group.get(f.uid);
        if (mine === undefined) {
          mine = new Map();
          group.set(f.uid, mine);
        }
        for (const [uid, containers] of group) {
          if (uid === f.uid) continue;
          const other = first(containers);
          if (other === undefined) continue;
          report({
            invariant: this.id,
            atMs: f.atMs,
            node: f.node,
            pod: f.pod,
            uid: f.uid,
            volume: null,
            message:
              `static pod ${fullname} (uid ${f.uid}) started container ${f.container} at ${secs(f.atMs)} ` +
              `on ${f.node} while uid ${uid} of the same fullname still runs container ${other.container} ` +
              `(started at ${secs(other.atMs)})`,
            causes: [other, f],
          });
          break;
        }
        mine.set(f.container, f);
        return;
      }
      case 'containerExited':
      case 'containerRemoved': {
        const n = this.#nodes.get(f.node);
        const fullname = n?.fullnameOf.get(f.uid);
        if (n === undefined || fullname === undefined) return;
        n.byFullname.get(fullname)?.get(f.uid)?.delete(f.container);
        return;
      }
      default:
        return;
    }
  }

  onEnd(): void {}
}

function first(containers: Map<string, Started>): Started | undefined {
  for (const started of containers.values()) return started;
  return undefined;
}
