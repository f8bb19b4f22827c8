// The storage faults a scenario can inject into one node (docs/scenario-format.md, `fault`). Each fault maps to a
// real fallible call site of the upstream plugin code it perturbs; each
// firing counts `times` down by one and is published as a faultInjected fact.

/**
 * Where UnmountDevice (or, for Block volumes, TearDownDevice) fails:
 * - beforeUnmount: the umount of the global path fails (EBUSY); nothing has changed on the host.
 * - afterUnmount: the global path is unmounted, then the next fallible step fails (FC: DetachDisk's
 *   EvalSymlinks of the device; iSCSI: `iscsiadm --logout`; CSI: NodeUnstage reports an error after it
 *   did its work, the #100182 / #106729 pattern).
 * - multipathFlushBusy: `multipath -f` answers "device is busy" for `times` attempts.
 * - deviceStillOpen: a host process opens the LUN's device as UnmountDevice starts and holds it until the
 *   next UnmountDevice / MountDevice of the volume on the node: the multipath flush fails "map in use",
 *   so the dm map outlives the unmount and the kubelet's isDeviceOpened check (PR #107789) sees it open
 *   (iSCSI, whose deleteDevices falls through); FC with fc-unmount-retry returns the flush error.
 */
export type UnmountDeviceStage = 'beforeUnmount' | 'afterUnmount' | 'multipathFlushBusy' | 'deviceStillOpen';

/**
 * Where the attach/detach controller's Detach of a CSI volume from the node fails (csi_attacher.go Detach:
 * the VolumeAttachment is deleted, then waitForVolumeDetachmentWithLister returns the detachError the
 * external attacher recorded on it, verifyDetachmentStatus):
 * - beforeDetach: ControllerUnpublishVolume failed; the node's path to the LUN is still there.
 * - afterDetach: ControllerUnpublishVolume fenced the node's path, then its answer was lost (a timeout,
 *   #120571): the controller sees the error although the volume is no longer attached.
 */
export type DetachStage = 'beforeDetach' | 'afterDetach';

/**
 * How a faulted MountDevice fails once its delay has passed (docs/scenario-format.md, `mountDevice`):
 * - final: the staging failed and is over; nothing is left staged;
 * - uncertain: (CSI) the driver staged the volume, then its answer was lost.
 */
export type MountDeviceFailure = 'final' | 'uncertain';

/** What one firing of a mountDevice fault does to the MountDevice call that takes it. */
export interface MountDeviceFiring {
  readonly delayMs: number;
  readonly error: MountDeviceFailure | undefined;
}

/** What one firing of a waitForAttach fault does: how long the call takes, the error it returns. */
export interface WaitForAttachFiring {
  readonly delayMs: number;
  /** undefined: the plugin's upstream text. */
  readonly error: string | undefined;
}

/**
 * The storage part of the scenario's Fault union; a scenario fault object (with `node`) fits as is.
 * `line`: the scenario line that armed it, for the report of faults that never fired (0: none).
 */
export type StorageFault = (
  | {
      readonly kind: 'unmountDevice';
      readonly volume: string;
      readonly stage: UnmountDeviceStage;
      readonly times: number;
    }
  | { readonly kind: 'procMounts'; readonly inconsistentReads: number }
  /** Without `times` every ConstructVolumeSpec of the volume on the node fails. */
  | { readonly kind: 'constructVolumeSpec'; readonly volume: string; readonly times?: number | undefined }
  | {
      readonly kind: 'tearDown';
      readonly volume: string;
      readonly times: number;
      readonly delayMs?: number | null | undefined;
    }
  | {
      readonly kind: 'mountDevice';
      readonly volume: string;
      readonly delayMs: number | null;
      readonly error: MountDeviceFailure | null;
      readonly times: number;
    }
  | {
      readonly kind: 'waitForAttach';
      readonly volume: string;
      readonly times: number;
      readonly error: string | null;
      readonly delayMs: number | null;
    }
  | {
      readonly kind: 'setUp';
      readonly volume: string;
      readonly times: number;
      readonly error: MountDeviceFailure;
    }
  /** The controller's Detach of the (CSI) volume from this node fails at `stage`. */
  | {
      readonly kind: 'detach';
      readonly volume: string;
      readonly stage: DetachStage;
      readonly times: number;
    }
  /** The node's API client fails to read the volume's claim (a network fault rather than a storage one). */
  | { readonly kind: 'pvcLookup'; readonly volume: string; readonly times: number; readonly error: string }
) & { readonly line?: number | undefined };

interface Armed {
  readonly kind:
    | 'unmountDevice'
    | 'constructVolumeSpec'
    | 'tearDown'
    | 'mountDevice'
    | 'waitForAttach'
    | 'setUp'
    | 'pvcLookup'
    | 'detach';
  readonly volume: string;
  readonly stage: UnmountDeviceStage | DetachStage | undefined;
  /** mountDevice only: what each firing does. */
  readonly firing?: MountDeviceFiring | undefined;
  /** waitForAttach only: what each firing does. */
  readonly attachFiring?: WaitForAttachFiring | undefined;
  /** tearDown only: how long each firing hangs before the call fails. */
  readonly hangMs?: number | undefined;
  /** setUp only: how each firing fails. */
  readonly setUpError?: MountDeviceFailure | undefined;
  /** pvcLookup only: the API client's error. */
  readonly lookupError?: string | undefined;
  readonly line: number;
  remaining: number;
  fired: number;
}

/** A fault whose firings did not all happen (at the end of a run: it was armed for nothing). */
export interface UnfiredFault {
  /** `unmountDevice/beforeUnmount`, `procMounts`, `constructVolumeSpec`, `tearDown`. */
  readonly label: string;
  readonly volume: string | undefined;
  readonly line: number;
  /** Firings left (null: unlimited) and done. */
  readonly remaining: number | null;
  readonly fired: number;
}

/**
 * Called on every firing: the fault's label (`unmountDevice/afterUnmount`, `procMounts`, ...), its volume
 * and, for mountDevice and waitForAttach, what the firing does (waitForAttach: the error text returned).
 */
export type FaultObserver = (
  fault: string,
  volume: string | undefined,
  firing?: { readonly delayMs: number; readonly error: string | undefined } | undefined,
) => void;

/** The faults armed on one node's host. */
export class HostFaults {
  private readonly armed: Armed[] = [];
  /** Every finished Armed entry stays here too, so the end-of-run report can list what was left. */
  private readonly all: Armed[] = [];
  /** procMounts faults in injection order; the first with reads left is consumed first. */
  private readonly procMounts: { readonly line: number; remaining: number; fired: number }[] = [];
  private inconsistentReads = 0;

  constructor(private readonly onFire: FaultObserver) {}

  inject(f: StorageFault): void {
    const line = f.line ?? 0;
    const arm = (a: Omit<Armed, 'line' | 'fired'>): void => {
      const entry: Armed = Object.assign({}, a, { line, fired: 0 });
      this.armed.push(entry);
      this.all.push(entry);
    };
    switch (f.kind) {
      case 'procMounts':
        this.inconsistentReads += Math.max(0, f.inconsistentReads);
        this.procMounts.push({ line, remaining: Math.max(0, f.inconsistentReads), fired: 0 });
        return;
      case 'unmountDevice':
      case 'detach':
        arm({ kind: f.kind, volume: f.volume, stage: f.stage, remaining: Math.max(0, f.times) });
        return;
      case 'constructVolumeSpec':
        arm({
          kind: f.kind,
          volume: f.volume,
          stage: undefined,
          remaining: f.times === undefined ? Number.POSITIVE_INFINITY : Math.max(0, f.times),
        });
        return;
      case 'tearDown':
        arm({
          kind: f.kind,
          volume: f.volume,
          stage: undefined,
          hangMs: Math.max(0, f.delayMs ?? 0),
          remaining: Math.max(0, f.times),
        });
        return;
      case 'mountDevice':
        arm({
          kind: f.kind,
          volume: f.volume,
          stage: undefined,
          firing: { delayMs: Math.max(0, f.delayMs ?? 0), error: f.error ?? undefined },
          remaining: Math.max(0, f.times),
        });
        return;
      case 'waitForAttach':
        arm({
          kind: f.kind,
          volume: f.volume,
          stage: undefined,
          attachFiring: { delayMs: Math.max(0, f.delayMs ?? 0), error: f.error ?? undefined },
          remaining: Math.max(0, f.times),
        });
        return;
      case 'setUp':
        arm({
          kind: f.kind,
          volume: f.volume,
          stage: undefined,
          setUpError: f.error,
          remaining: Math.max(0, f.times),
        });
        return;
      case 'pvcLookup':
        arm({
          kind: f.kind,
          volume: f.volume,
          stage: undefined,
          lookupError: f.error,
          remaining: Math.max(0, f.times),
        });
        return;
    }
  }

  /** Consumes one firing of a pvcLookup fault for `volume`: the API client's error, if it fired. */
  pvcLookup(volume: string): string | undefined {
    const error = this.find('pvcLookup', volume, undefined)?.lookupError;
    if (error === undefined) return undefined;
    this.take('pvcLookup', volume, undefined, 'pvcLookup', { delayMs: 0, error });
    return error;
  }

  /** Consumes one firing of a setUp fault for `volume` as a pod's SetUp / MapPodDevice starts: how it fails. */
  setUp(volume: string): MountDeviceFailure | undefined {
    const error = this.find('setUp', volume, undefined)?.setUpError;
    if (error === undefined) return undefined;
    this.take('setUp', volume, undefined, 'setUp', { delayMs: 0, error });
    return error;
  }

  /**
   * The next firing of a waitForAttach fault for `volume`, without consuming it: WaitForAttach waits its
   * delay first, then takes it with takeWaitForAttach (so a kubelet that dies during the delay leaves
   * the firing to the next one's call).
   */
  peekWaitForAttach(volume: string): WaitForAttachFiring | undefined {
    return this.find('waitForAttach', volume, undefined)?.attachFiring;
  }

  /**
   * Consumes one firing of a waitForAttach fault for `volume` as WaitForAttach returns `error`; false if
   * none is left (another call took the last one meanwhile).
   */
  takeWaitForAttach(volume: string, delayMs: number, error: string): boolean {
    return this.take('waitForAttach', volume, undefined, 'waitForAttach', { delayMs, error });
  }

  /**
   * Consumes one firing of a mountDevice fault for `volume`, as its MountDevice (or a CSI Block volume's
   * SetUpDevice) starts the staging work: how much longer the call takes and how it then fails.
   */
  mountDevice(volume: string): MountDeviceFiring | undefined {
    const firing = this.find('mountDevice', volume, undefined)?.firing;
    if (firing === undefined) return undefined;
    this.take('mountDevice', volume, undefined, 'mountDevice', firing);
    return firing;
  }

  /** Consumes one firing of an unmountDevice fault at `stage` for `volume`; true if it fired. */
  unmountDevice(volume: string, stage: UnmountDeviceStage): boolean {
    return this.take('unmountDevice', volume, stage, `unmountDevice/${stage}`);
  }

  /** True if the volume has an unmountDevice fault at `stage` still armed (without consuming it). */
  hasUnmountDevice(volume: string, stage: UnmountDeviceStage): boolean {
    return this.find('unmountDevice', volume, stage) !== undefined;
  }

  /**
   * Consumes one firing of a detach fault at `stage` for `volume` (the controller's Detach of it from this
   * node); true if it fired.
   */
  detach(volume: string, stage: DetachStage): boolean {
    return this.take('detach', volume, stage, `detach/${stage}`);
  }

  constructVolumeSpec(volume: string): boolean {
    return this.take('constructVolumeSpec', volume, undefined, 'constructVolumeSpec');
  }

  /** Consumes one firing of a tearDown fault for `volume`: how long the call hangs before it fails. */
  tearDown(volume: string): { readonly hangMs: number } | undefined {
    const hangMs = this.find('tearDown', volume, undefined)?.hangMs ?? 0;
    return this.take('tearDown', volume, undefined, 'tearDown') ? { hangMs } : undefined;
  }

  /** One attempt of utilio.ConsistentRead on /proc/mounts: true if this attempt is inconsistent. */
  procMountsInconsistent(): boolean {
    if (this.inconsistentReads <= 0) return false;
    this.inconsistentReads--;
    const p = this.procMounts.find((x) => x.remaining > 0);
    if (p !== undefined) {
      p.remaining--;
      p.fired++;
    }
    this.onFire('procMounts', undefined);
    return true;
  }

  /** Inconsistent /proc/mounts reads still to come. */
  get pendingInconsistentReads(): number {
    return this.inconsistentReads;
  }

  /**
   * True while a fault with a finite count has fired and still has firings left: the operations it
   * fails are still failing, so the liveness checks (termination-stuck and the others) wait. A fault
   * that never fired changed nothing in the run (the run is the one without it), so it holds nothing
   * back: in a fuzz campaign one case in five ends with such a fault (a procMounts fault for a kubelet
   * that never restarted, a tearDown fault for a pod never deleted), and waiting for it would leave those
   * cases' liveness unjudged. A constructVolumeSpec fault without `times` never expires and does not count.
   */
  active(): boolean {
    for (const p of this.procMounts) if (p.remaining > 0 && p.fired > 0) return true;
    return this.armed.some((a) => a.remaining > 0 && Number.isFinite(a.remaining) && a.fired > 0);
  }

  /**
   * The faults that have firings left, in injection order (an unlimited constructVolumeSpec fault only
   * if it never fired): what the run's end reports as armed for nothing.
   */
  unfired(): UnfiredFault[] {
    const out: UnfiredFault[] = [];
    for (const p of this.procMounts)
      if (p.remaining > 0)
        out.push({
          label: 'procMounts',
          volume: undefined,
          line: p.line,
          remaining: p.remaining,
          fired: p.fired,
        });
    for (const a of this.all) {
      const unlimited = !Number.isFinite(a.remaining);
      if (a.remaining <= 0 || (unlimited && a.fired > 0)) continue;
      out.push({
        label: a.stage === undefined ? a.kind : `${a.kind}/${a.stage}`,
        volume: a.volume,
        line: a.line,
        remaining: unlimited ? null : a.remaining,
        fired: a.fired,
      });
    }
    return out.sort((x, y) => x.line - y.line);
  }

  private find(kind: Armed['kind'], volume: string, stage: Armed['stage']): Armed | undefined {
    return this.armed.find(
      (a) => a.kind === kind && a.volume === volume && a.stage === stage && a.remaining > 0,
    );
  }

  private take(
    kind: Armed['kind'],
    volume: string,
    stage: Armed['stage'],
    label: string,
    firing?: { readonly delayMs: number; readonly error: string | undefined },
  ): boolean {
    const a = this.find(kind, volume, stage);
    if (a === undefined) return false;
    a.remaining--;
    a.fired++;
    if (a.remaining <= 0) this.armed.splice(this.armed.indexOf(a), 1);
    this.onFire(label, volume, firing);
    return true;
  }
}
