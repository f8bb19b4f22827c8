// Ported from kubernetes pkg/kubelet/util/queue/work_queue.go, release-1.23.
// A queue of pod UIDs with a time each becomes due; GetWork returns (and removes) the due ones.
import type { UID } from '../api/v1.js';

export class WorkQueue {
  private readonly queue = new Map<UID, number>();

  constructor(private readonly clock: { readonly nowMs: number }) {}

  /** Enqueue: the newest delay wins, as upstream's map assignment does. */
  enqueue(uid: UID, delayMs: number): void {
    this.queue.set(uid, this.clock.nowMs + delayMs);
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
    return items;
  }

  get size(): number {
    return this.queue.size;
  }
}
