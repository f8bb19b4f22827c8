// The kube-controller-manager flags a scenario may set (`cluster.controllerManager`), each with the release
// whose kube-controller-manager first has it. A release preset names the whole cluster's version: the
// kubelet's switches and the attach/detach controller's (src/fixes.ts). A kube-controller-manager older
// than a flag's release does not start with it (pflag: "unknown flag"), so a scenario that sets one cannot
// run under an older preset: the loader refuses such a claim and a run such a `--kubelet` (exit 2).
import { type KubeletName, RELEASE_PRESETS, type ReleasePreset } from './fixes.js';

export interface ControllerManagerFlagDef {
  /** The command-line flag (cmd/kube-controller-manager/app/options/attachdetachcontroller.go). */
  readonly flag: string;
  /** The pull request that added it. */
  readonly pr: number;
  /** The minor release whose .0 first has it (CHANGELOG-1.30.md, v1.30.0: #120344). */
  readonly release: ReleasePreset;
}

export const CONTROLLER_MANAGER_FLAGS = {
  disableForceDetachOnTimeout: {
    flag: '--disable-force-detach-on-timeout',
    pr: 120344,
    release: '1.30',
  },
} as const satisfies Record<string, ControllerManagerFlagDef>;

export type ControllerManagerFlag = keyof typeof CONTROLLER_MANAGER_FLAGS;

/**
 * Whether the kube-controller-manager of a kubelet name has the flag: a release from the flag's on,
 * `fixed` (every change modelled, the newest), not `legacy` (every change off, older than 1.20). A switch set
 * not named after a kubelet (`Fixes.all()`, `Fixes.none()`, a fuzz campaign's read back from JSON) names
 * no release and is not held to one: it counts as the newest.
 */
export function controllerManagerHasFlag(
  flag: ControllerManagerFlag,
  kubelet: KubeletName | undefined,
): boolean {
  if (kubelet === undefined || kubelet === 'fixed') return true;
  if (kubelet === 'legacy') return false;
  const since = CONTROLLER_MANAGER_FLAGS[flag].release;
  return RELEASE_PRESETS.indexOf(kubelet) >= RELEASE_PRESETS.indexOf(since);
}

/**
 * Why a kubelet name cannot run a scenario that sets the flag, without the remedy (a claim and a run say
 * that differently): `the kube-controller-manager of 1.28 has no --disable-force-detach-on-timeout
 * (#120344, from 1.30) and does not start with it ("unknown flag")`.
 */
export function missingFlagMessage(flag: ControllerManagerFlag, kubelet: KubeletName): string {
  const def: ControllerManagerFlagDef = CONTROLLER_MANAGER_FLAGS[flag];
  const who = kubelet === 'legacy' ? 'legacy (every fix off, older than 1.20)' : kubelet;
  return `the kube-controller-manager of ${who} has no ${def.flag} (#${def.pr}, from ${def.release}) and does not start with it ("unknown flag")`;
}

/**
 * Whether a scenario that sets controller-manager flags (`set`: cluster.controllerManager, absent when it
 * sets none) can run under a kubelet name: every flag it sets is in that release's kube-controller-manager.
 * Code that runs every bundled scenario under one release skips the others with it (a run would be exit 2).
 */
export function controllerManagerStarts(set: object | undefined, kubelet: KubeletName | undefined): boolean {
  return set === undefined || controllerManagerHasFlag('disableForceDetachOnTimeout', kubelet);
}
