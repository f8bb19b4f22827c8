// pod-rejected-with-room: the kubelet rejected a pod for want of cpu or memory (OutOfcpu, OutOfmemory)
// although the pods that really hold the node's resources leave room for it. Upstream's admission
// (kubelet.go HandlePodAdditions, filterOutInactivePods) counts the admitted pods that are alive; its
// races count pods that hold nothing: a pod it rejected itself, whose Failed had not come back from the API
// (#104817), a pod that had finished before a kubelet restart and was terminated again after it (#105523,
// fixed by #105527), a zero request compared against an overcommitted node (#116408).
//
// Ground truth, from facts alone: a pod on the node holds its requests while one of its containers runs
// (containerStarted not yet followed by containerExited), or while it is admitted (podAdmitted by any
// kubelet process, not rejected since) and not over: its worker has not terminated it (podWorkerPhase
// terminated / finished), its API phase is not Failed or Succeeded, its object is not deleted. An API pod
// that is over never runs again (a new pod of its name is a new UID). That set contains every pod the
// kubelet may rightly count: a pod admitted and not yet started, one still starting or terminating, a
// completed one whose worker is still terminating it (its API phase stays non-terminal until then, #108366).
// The pod is judged against it with fitsRequest's rule (a resource it requests none of always fits). Static
// pods request nothing (the loader refuses their requests: upstream admits them by preemption).
import type { ResourceList, UID } from '../api/v1.js';
import type { Fact, FactKind } from '../facts.js';
import { secs } from './format.js';
import type { Checker, Violation } from './types.js';

interface PodRecord {
  readonly uid: UID;
  readonly name: string;
  readonly node: string;
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly created: Fact;
  running: number;
  admitted: boolean;
  /** Terminated by its worker, terminal in the API or deleted: it holds nothing unless a container runs. */
  over: boolean;
  /** The fact that made it hold nothing (its rejection, termination, terminal phase, deletion). */
  why: Fact | undefined;
}

export class PodRejectedWithRoom implements Checker {
  readonly id = 'pod-rejected-with-room';
  readonly kinds: readonly FactKind[] = [
    'apiPodCreated',
    'podAdmitted',
    'podRejected',
    'containerStarted',
    'containerExited',
    'podWorkerPhase',
    'apiPodPhase',
    'apiPodDeleted',
  ];
  readonly #allocatable: Readonly<Record<string, ResourceList>>;
  readonly #pods = new Map<UID, PodRecord>();
  /** node -> the pods created on it that request something, in creation order. */
  readonly #byNode = new Map<string, PodRecord[]>();

  constructor(allocatable: Readonly<Record<string, ResourceList>> | undefined) {
    this.#allocatable = allocatable ?? {};
  }

  onFact(f: Fact, report: (v: Violation) => void): void {
    if (f.kind === 'apiPodCreated') {
      const requests = f.requests;
      const rec: PodRecord = {
        uid: f.uid,
        name: f.pod,
        node: f.node,
        cpuMilli: requests?.cpuMilli ?? 0,
        memoryBytes: requests?.memoryBytes ?? 0,
        created: f,
        running: 0,
        admitted: false,
        over: false,
        why: undefined,
      };
      this.#pods.set(f.uid, rec);
      if (rec.cpuMilli > 0 || rec.memoryBytes > 0) {
        const list = this.#byNode.get(f.node);
        if (list === undefined) this.#byNode.set(f.node, [rec]);
        else list.push(rec);
      }
      return;
    }
    const rec = this.#pods.get((f as { uid?: UID }).uid ?? '');
    if (rec === undefined) return;
    switch (f.kind) {
      case 'podAdmitted':
        rec.admitted = true;
        return;
      case 'containerStarted':
        rec.running++;
        return;
      case 'containerExited':
        if (rec.running > 0) rec.running--;
        return;
      case 'podWorkerPhase':
        if (f.phase === 'terminated' || f.phase === 'finished') this.#over(rec, f);
        return;
      case 'apiPodPhase':
        if (f.phase === 'Failed' || f.phase === 'Succeeded') this.#over(rec, f);
        return;
      case 'apiPodDeleted':
        this.#over(rec, f);
        return;
      case 'podRejected':
        this.#judge(rec, f, report);
        rec.admitted = false;
        if (rec.why === undefined) rec.why = f;
        return;
      default:
        return;
    }
  }

  #over(rec: PodRecord, f: Fact): void {
    if (rec.over) return;
    rec.over = true;
    rec.why = f;
  }

  #judge(rec: PodRecord, f: Extract<Fact, { kind: 'podRejected' }>, report: (v: Violation) => void): void {
    if (f.reason !== 'OutOfcpu' && f.reason !== 'OutOfmemory') return;
    const allocatable = this.#allocatable[f.node];
    if (allocatable === undefined) return;
    let heldMilliCPU = 0;
    let heldMemoryBytes = 0;
    const idle: PodRecord[] = [];
    for (const p of this.#byNode.get(f.node) ?? []) {
      if (p === rec) continue;
      if (p.running > 0 || (p.admitted && !p.over)) {
        heldMilliCPU += p.cpuMilli;
        heldMemoryBytes += p.memoryBytes;
      } else if (p.why?.kind !== 'apiPodDeleted') idle.push(p);
    }
    const cpu = allocatable.cpuMilli;
    const memory = allocatable.memoryBytes;
    const cpuFits = rec.cpuMilli === 0 || cpu === undefined || rec.cpuMilli <= cpu - heldMilliCPU;
    const memoryFits =
      rec.memoryBytes === 0 || memory === undefined || rec.memoryBytes <= memory - heldMemoryBytes;
    if (!cpuFits || !memoryFits) return;
    const held = [
      cpu === undefined ? '' : `${heldMilliCPU}m of ${cpu}m cpu`,
      memory === undefined ? '' : `${heldMemoryBytes} of ${memory} bytes of memory`,
    ]
      .filter((s) => s !== '')
      .join(' and ');
    const idleText =
      idle.length === 0
        ? ''
        : `; holding nothing: ${idle
            .slice(0, 3)
            .map((p) => `${p.name} (${describeWhy(p)})`)
            .join(', ')}${idle.length > 3 ? `, and ${idle.length - 3} more` : ''}`;
    const causes: Fact[] = [rec.created];
    for (const p of idle.slice(0, 3)) if (p.why !== undefined) causes.push(p.why);
    causes.push(f);
    report({
      invariant: this.id,
      atMs: f.atMs,
      node: f.node,
      pod: f.pod,
      uid: f.uid,
      volume: null,
      message:
        `the kubelet rejected pod ${f.pod} (${f.reason}: ${f.message}) at ${secs(f.atMs)}, yet it fits: ` +
        `the pods holding ${f.node}'s resources (a container running, or admitted and not over) request ` +
        `${held}${idleText}`,
      causes,
    });
  }

  onEnd(): void {}
}

function describeWhy(p: PodRecord): string {
  const f = p.why;
  if (f === undefined) return 'never admitted, nothing running';
  switch (f.kind) {
    case 'podRejected':
      return `rejected ${f.reason} at ${secs(f.atMs)}, never ran since`;
    case 'podWorkerPhase':
      return `terminated at ${secs(f.atMs)}, nothing running`;
    case 'apiPodPhase':
      return `${f.phase} at ${secs(f.atMs)}, nothing running`;
    default:
      return `over at ${secs(f.atMs)}`;
  }
}
