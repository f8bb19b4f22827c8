// Ported from kubernetes pkg/kubelet/util/queue/work_queue.go, release-1.23.
// A queue of pod UIDs with a time each becomes due; GetWork returns (and removes) the due ones.
import type { UID } from '../api/v1.js';

export class WorkQueue {
  private readonly queue = new Map<UID, number>();
  /** Bumped by every change: a syncCh tick that left it alone (and did nothing else) was idle. */
  version = 0;

  constructor(private readonly clock: { readonly nowMs: number }) {}

  /** Enqueue: the newest delay wins, as upstream's map assignment does. */
  enqueue(uid: UID, delayMs: number): void {
    this.queue.set(uid, this.clock.nowMs + delayMs);
    this.version++;
  }

  /** GetWork: every UID whose time has come, in insertion order (upstream iterates a map; we keep order). */
  getWork(): UID[] {
    const now = this.clock.nowMs;
    const items: UID[] = [];
    for (const [uid, due] of this.queue) {
      if (due <= now) {
        items.push(uid);
        this.queue.delete(uid);
      }
    }
    if (items.length > 0) this.version++;
    return items;
  }

  /** When the next UID becomes due (Infinity if none is queued): GetWork's answer changes then. */
  nextDueMs(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const due of this.queue.values()) if (due < next) next = due;
    return next;
  }

  get size(): number {
    return this.queue.size;
  }
}
