// Ported from kubernetes staging/src/k8s.io/client-go/util/flowcontrol/backoff.go, release-1.23.
// The kubelet's crash-loop back-off (kubelet.go: flowcontrol.NewBackOff(backOffPeriod, MaxContainerBackOff),
// no jitter): per key, a window that starts at the event (the exited attempt's FinishedAt), doubles on
// every Next up to the maximum, and starts over once the key has been quiet for twice the maximum.

interface BackoffEntry {
  backoffMs: number;
  lastUpdateMs: number;
}

export class Backoff {
  /** Keyed by getStableKey; iterated only to delete (GC), so insertion order never shows. */
  private readonly perItemBackoff = new Map<string, BackoffEntry>();

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly nowMs: () => number,
  ) {}

  /** Get: the current window of `id`, 0 without an entry. */
  get(id: string): number {
    return this.perItemBackoff.get(id)?.backoffMs ?? 0;
  }

  /** Next: move the window to the next mark, capping at the maximum (a new or expired entry starts over). */
  next(id: string, eventMs: number): void {
    let entry = this.perItemBackoff.get(id);
    if (entry === undefined || hasExpired(eventMs, entry.lastUpdateMs, this.maxMs)) {
      entry = { backoffMs: this.initialMs, lastUpdateMs: 0 };
      this.perItemBackoff.set(id, entry);
    } else {
      entry.backoffMs = Math.min(entry.backoffMs * 2, this.maxMs);
    }
    entry.lastUpdateMs = this.nowMs();
  }

  /** IsInBackOffSince: less time than the current window has passed since `eventMs`. */
  isInBackOffSince(id: string, eventMs: number): boolean {
    const entry = this.perItemBackoff.get(id);
    if (entry === undefined) return false;
    if (hasExpired(eventMs, entry.lastUpdateMs, this.maxMs)) return false;
    return this.nowMs() - eventMs < entry.backoffMs;
  }

  /** GC: forget the entries not updated for twice the maximum (HandlePodCleanups calls it). */
  gc(): void {
    const now = this.nowMs();
    for (const [id, entry] of this.perItemBackoff) {
      if (now - entry.lastUpdateMs > this.maxMs * 2) this.perItemBackoff.delete(id);
    }
  }
}

/** hasExpired: after twice the maximum the back-off factor starts over ("stable"). */
function hasExpired(eventMs: number, lastUpdateMs: number, maxMs: number): boolean {
  return eventMs - lastUpdateMs > maxMs * 2;
}
