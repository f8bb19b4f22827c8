// A createPod whose name is still held by an earlier object: the API server refuses it (AlreadyExists,
// "object is being deleted" while the old pod terminates: the registry store's Create in
// staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go), and the controller that owns
// the name waits, as the StatefulSet controller does ("we must wait until graceful deletion completes
// before we continue to make progress", pkg/controller/statefulset/stateful_set_control.go, release-1.23).
// When the holder leaves the API server, the waiting create is retried after the controller's informer
// has seen the DELETE: a delay drawn from its own stream, so runs without a wait draw nothing.
import type { Rng, Sim } from '../sim/index.js';

/** The informer's watch delay before the controller acts on the DELETE (as the API server's watches). */
export const CREATE_RETRY_DELAY_MS = [10, 60] as const;

export interface Waiter<T> {
  readonly name: string;
  readonly line: number;
  readonly item: T;
}

export class PodNameWaiters<T> {
  /** Per name, in the order the creates were asked for. */
  private readonly waiting = new Map<string, Waiter<T>[]>();
  private rng: Rng | undefined;

  constructor(
    private readonly sim: Sim,
    private readonly forkRng: () => Rng,
    /** Tries the create: false if the name is still taken (the waiter keeps waiting). */
    private readonly tryCreate: (w: Waiter<T>) => boolean,
  ) {}

  wait(w: Waiter<T>): void {
    const list = this.waiting.get(w.name);
    if (list === undefined) this.waiting.set(w.name, [w]);
    else list.push(w);
  }

  /** The holder of `name` left the API server: the first waiter retries once the controller sees it. */
  freed(name: string): void {
    if ((this.waiting.get(name)?.length ?? 0) === 0) return;
    this.rng ??= this.forkRng();
    this.sim.after(
      this.rng.latencyMs(CREATE_RETRY_DELAY_MS[0], CREATE_RETRY_DELAY_MS[1], 'pod create retry'),
      () => {
        const list = this.waiting.get(name);
        const first = list?.[0];
        if (list === undefined || first === undefined || !this.tryCreate(first)) return;
        list.shift();
      },
    );
  }

  /** True while some create waits (the world listens for names being freed only then). */
  get any(): boolean {
    for (const list of this.waiting.values()) if (list.length > 0) return true;
    return false;
  }

  /** The creates still waiting, by name then order. */
  pending(): Waiter<T>[] {
    return [...this.waiting.keys()].sort().flatMap((name) => this.waiting.get(name) ?? []);
  }
}
