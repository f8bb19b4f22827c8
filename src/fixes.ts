// The fix switches (SPEC section 3): each upstream change this project starts from is a named fix.
// Code asks `fixes.on('...')` at the place where the upstream diff sits.

export const FIX_IDS = [
  'pod-worker-lifecycle',
  'unmount-device-uncertain',
  'reconstruct-reliable-mount-refs',
  'fc-unmount-retry',
  'block-metrics',
] as const;

export type FixId = (typeof FIX_IDS)[number];

export const FIX_DESCRIPTIONS: Record<FixId, string> = {
  'pod-worker-lifecycle':
    'PR #102344: the pod worker owns sync / terminating / terminated; every kill goes through UpdatePod(SyncPodKill); other loops ask it by UID',
  'unmount-device-uncertain':
    'PR #100183: a failed UnmountDevice / TearDown / unmap marks the mount uncertain, so MountDevice runs again',
  'reconstruct-reliable-mount-refs':
    'PR #102059: FC and iSCSI ConstructVolumeSpec retry inconsistent /proc/mounts reads (10 ms steps, up to 1 min)',
  'fc-unmount-retry':
    'PR #101862: FC UnmountDevice retries its device clean-up every 10 s for up to 2 min after unmounting',
  'block-metrics':
    'PRs #97972 + #101587: BlockVolume.SupportsMetrics(); the stats collector only calls GetMetrics where true',
};

export function isFixId(id: string): id is FixId {
  return (FIX_IDS as readonly string[]).includes(id);
}

export class Fixes {
  private readonly enabled: ReadonlySet<FixId>;

  constructor(enabled: Iterable<FixId>) {
    this.enabled = new Set(enabled);
  }

  static all(): Fixes {
    return new Fixes(FIX_IDS);
  }

  static none(): Fixes {
    return new Fixes([]);
  }

  on(id: FixId): boolean {
    return this.enabled.has(id);
  }

  with(id: FixId, value: boolean): Fixes {
    const next = new Set(this.enabled);
    if (value) next.add(id);
    else next.delete(id);
    return new Fixes(next);
  }

  /** Every fix ID with its state, in the table's order (for the JSON result). */
  toRecord(): Record<FixId, boolean> {
    const out = {} as Record<FixId, boolean>;
    for (const id of FIX_IDS) out[id] = this.enabled.has(id);
    return out;
  }

  /** A short label: `all`, `none`, or `-a,-b` / `+a` relative to the nearer end. */
  label(): string {
    const off = FIX_IDS.filter((id) => !this.enabled.has(id));
    if (off.length === 0) return 'all';
    if (off.length === FIX_IDS.length) return 'none';
    const on = FIX_IDS.filter((id) => this.enabled.has(id));
    return off.length <= on.length ? off.map((id) => `-${id}`).join(',') : on.map((id) => `+${id}`).join(',');
  }
}
