// The fix switches: each modelled upstream change is a named switch with its PRs, the release that first
// shipped it, and where each release's last patch stands on it. Code asks `fixes.on('...')` at the place
// where the upstream diff sits; a release preset (`--kubelet 1.23`) sets every switch as that release
// shipped it, so bisecting a behaviour across releases is one command per release.

/** The release presets `--kubelet` accepts besides `fixed` (every switch on) and `legacy` (every switch off). */
export const RELEASE_PRESETS = ['1.20', '1.21', '1.22', '1.23', '1.25'] as const;
export type ReleasePreset = (typeof RELEASE_PRESETS)[number];
export const KUBELET_NAMES = ['fixed', 'legacy', ...RELEASE_PRESETS] as const;
export type KubeletName = (typeof KUBELET_NAMES)[number];

export interface FixDef {
  /** Upstream pull requests (the first is the change itself; the others are its parts or backports). */
  readonly prs: readonly number[];
  /** The first release that shipped it (its minor version). */
  readonly release: string;
  /** What it changes, in one line. */
  readonly summary: string;
  /** In the last patch release of each preset's minor version. */
  readonly presets: Readonly<Record<ReleasePreset, boolean>>;
}

const shippedFrom = (first: ReleasePreset): Record<ReleasePreset, boolean> => {
  const i = RELEASE_PRESETS.indexOf(first);
  return Object.fromEntries(RELEASE_PRESETS.map((p, k) => [p, k >= i])) as Record<ReleasePreset, boolean>;
};

/**
 * The table, in the order `podrace list fixes` prints it: the five changes this project starts from,
 * then the upstream history around them. Backports are in `presets` (see docs/fixes.md for sources).
 */
export const FIX_TABLE = {
  'pod-worker-lifecycle': {
    prs: [102344],
    release: '1.22',
    summary:
      'the pod worker owns sync / terminating / terminated; every kill goes through UpdatePod(SyncPodKill); other loops ask it by UID',
    presets: shippedFrom('1.22'),
  },
  'unmount-device-uncertain': {
    prs: [100183],
    release: '1.21',
    summary: 'a failed UnmountDevice / TearDown / unmap marks the mount uncertain, so MountDevice runs again',
    presets: shippedFrom('1.21'),
  },
  'reconstruct-reliable-mount-refs': {
    prs: [102059],
    release: '1.22',
    summary:
      'FC and iSCSI ConstructVolumeSpec retry inconsistent /proc/mounts reads (10 ms steps, up to 1 min)',
    presets: shippedFrom('1.22'),
  },
  'fc-unmount-retry': {
    prs: [101862],
    release: '1.22',
    summary: 'FC UnmountDevice retries its device clean-up every 10 s for up to 2 min after unmounting',
    presets: shippedFrom('1.22'),
  },
  'block-metrics': {
    prs: [97972, 101587],
    release: '1.22',
    summary: 'BlockVolume.SupportsMetrics(); the stats collector only calls GetMetrics where it is true',
    presets: shippedFrom('1.22'),
  },
  'mirror-pod-pending-termination': {
    prs: [98103],
    release: '1.21',
    summary:
      'release-1.20 paths: deletePod marks a static pod with a mirror pod pending termination; its successor waits',
    presets: shippedFrom('1.20'),
  },
  'static-pod-start-exclusion': {
    prs: [104743, 106394],
    release: '1.23',
    summary:
      'pod worker: one static pod per fullname may start (allowStaticPodStart), the next waits its turn',
    presets: shippedFrom('1.22'),
  },
  'pod-uid-reuse-restart': {
    prs: [104847],
    release: '1.23',
    summary: 'pod worker: a create for a terminating UID restarts the pod once it has terminated',
    presets: shippedFrom('1.22'),
  },
  'terminal-pod-on-first-sight': {
    prs: [105527],
    release: '1.23',
    summary: 'pod worker: a pod first seen terminal with nothing running is finished at once, never active',
    presets: shippedFrom('1.22'),
  },
  'unstarted-static-pod-terminated': {
    prs: [107900],
    release: '1.24',
    summary: 'pod worker: a static pod terminated before it started leaves the start queue to its successor',
    presets: shippedFrom('1.22'),
  },
  'node-shutdown-failed-phase': {
    prs: [106900],
    release: '1.23',
    summary: 'graceful node shutdown sets Phase=Failed again (partly reverting #102344)',
    presets: shippedFrom('1.22'),
  },
  'unmount-device-open-uncertain': {
    prs: [107789, 107791],
    release: '1.24',
    summary: 'UnmountDevice marks the device uncertain when it is still open after the unmount',
    presets: shippedFrom('1.23'),
  },
  'no-force-detach-healthy-node': {
    prs: [110721],
    release: '1.25',
    summary: 'attach/detach controller: no force detach after maxWaitForUnmountDuration from a healthy node',
    presets: shippedFrom('1.25'),
  },
} as const satisfies Record<string, FixDef>;

export type FixId = keyof typeof FIX_TABLE;
export const FIX_IDS = Object.keys(FIX_TABLE) as unknown as readonly [FixId, ...FixId[]];

export function fixDef(id: FixId): FixDef {
  return FIX_TABLE[id];
}

export function isFixId(id: string): id is FixId {
  return Object.hasOwn(FIX_TABLE, id);
}

export function isKubeletName(name: string): name is KubeletName {
  return (KUBELET_NAMES as readonly string[]).includes(name);
}

/** `#102344` or `#97972 + #101587`. */
export function fixPrs(id: FixId): string {
  return FIX_TABLE[id].prs.map((pr) => `#${pr}`).join(' + ');
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

  /** `fixed`, `legacy` or a release preset: every switch as that release's last patch shipped it. */
  static of(kubelet: KubeletName): Fixes {
    if (kubelet === 'fixed') return Fixes.all();
    if (kubelet === 'legacy') return Fixes.none();
    return new Fixes(FIX_IDS.filter((id) => FIX_TABLE[id].presets[kubelet]));
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

  equals(other: Fixes): boolean {
    return FIX_IDS.every((id) => this.on(id) === other.on(id));
  }

  /** The switches that are on, in the table's order. */
  ids(): FixId[] {
    return FIX_IDS.filter((id) => this.enabled.has(id));
  }

  /** Every fix ID with its state, in the table's order (for the JSON result). */
  toRecord(): Record<FixId, boolean> {
    const out = {} as Record<FixId, boolean>;
    for (const id of FIX_IDS) out[id] = this.enabled.has(id);
    return out;
  }

  /**
   * The shortest description: the kubelet name (`all` for fixed, `none` for legacy, or a release) and
   * the switches that differ from it, `-id` off and `+id` on: `all`, `1.23`, `-fc-unmount-retry`,
   * `1.22,+static-pod-start-exclusion`.
   */
  label(): string {
    let best: { base: KubeletName; diff: string[] } | undefined;
    for (const base of KUBELET_NAMES) {
      const ref = Fixes.of(base);
      const diff = FIX_IDS.filter((id) => ref.on(id) !== this.on(id)).map(
        (id) => `${this.on(id) ? '+' : '-'}${id}`,
      );
      if (best === undefined || diff.length < best.diff.length) best = { base, diff };
    }
    const b = best ?? { base: 'fixed', diff: [] };
    const name = b.base === 'fixed' ? 'all' : b.base === 'legacy' ? 'none' : b.base;
    if (b.diff.length === 0) return name;
    return b.base === 'fixed' || b.base === 'legacy' ? b.diff.join(',') : `${name},${b.diff.join(',')}`;
  }
}
