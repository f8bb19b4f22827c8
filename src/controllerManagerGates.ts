// The kube-controller-manager feature gates a scenario's timeline relies on, each with the releases whose
// default turns it on. NodeOutOfServiceVolumeDetach (KEP-2268, non-graceful node shutdown): pkg/features/
// kube_features.go has it {Default: false, Alpha} in v1.24.14, {Default: true, Beta} in v1.26.7 and
// v1.27.7, {Default: true, GA, LockToDefault: true} in v1.28.6, v1.30.7 and v1.31.11 (kubeedge's vendored
// trees); 1.20 to 1.23 do not have it. With the gate off the attach/detach controller's
// hasOutOfServiceTaint answers false and pod GC's gcTerminating does not run: the taint changes nothing.
// podrace does not model a gate turned on by hand (--feature-gates), nor its default as a fix switch: a
// scenario with an `outOfServiceTaint` entry runs only under a release whose default is on (1.26 and
// later, `fixed`, or a switch set named after no release); the loader refuses an older claim and a run
// such a `--kubelet` (exit 2), as for the flags of src/controllerManagerFlags.ts.
import { type KubeletName, RELEASE_PRESETS, type ReleasePreset } from './fixes.js';

export const NODE_OUT_OF_SERVICE_VOLUME_DETACH = {
  gate: 'NodeOutOfServiceVolumeDetach',
  /** The first release whose default is on (beta). */
  onByDefaultSince: '1.26' as ReleasePreset,
  /** Alpha, off by default. */
  alphaSince: '1.24' as ReleasePreset,
} as const;

/** Whether the kube-controller-manager of a kubelet name reads the out-of-service taint (its default). */
export function outOfServiceVolumeDetachOn(kubelet: KubeletName | undefined): boolean {
  if (kubelet === undefined || kubelet === 'fixed') return true;
  if (kubelet === 'legacy') return false;
  return (
    RELEASE_PRESETS.indexOf(kubelet) >=
    RELEASE_PRESETS.indexOf(NODE_OUT_OF_SERVICE_VOLUME_DETACH.onByDefaultSince)
  );
}

/** Why a kubelet name cannot run a scenario that sets the out-of-service taint, without the remedy. */
export function outOfServiceGateOffMessage(kubelet: KubeletName): string {
  const g = NODE_OUT_OF_SERVICE_VOLUME_DETACH;
  const who = kubelet === 'legacy' ? 'legacy (every fix off, older than 1.20)' : kubelet;
  const state =
    kubelet !== 'legacy' &&
    kubelet !== 'fixed' &&
    RELEASE_PRESETS.indexOf(kubelet) >= RELEASE_PRESETS.indexOf(g.alphaSince)
      ? `has the ${g.gate} feature gate off by default (alpha)`
      : `has no ${g.gate} feature gate (alpha from ${g.alphaSince})`;
  return `the kube-controller-manager of ${who} ${state}: the out-of-service taint would change nothing (on by default from ${g.onByDefaultSince})`;
}

/**
 * Whether a timeline can run under a kubelet name: it sets no out-of-service taint, or that release's
 * kube-controller-manager reads it. Code that runs every bundled scenario under one release skips the
 * others with it (a run would be exit 2), as with controllerManagerStarts.
 */
export function outOfServiceGateAllows(
  timeline: readonly { readonly action: { readonly kind: string } }[],
  kubelet: KubeletName | undefined,
): boolean {
  return outOfServiceVolumeDetachOn(kubelet) || !timeline.some((e) => e.action.kind === 'outOfServiceTaint');
}
