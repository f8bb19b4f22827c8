// What an imported log says, read off its texts: the volume plugin and mode, the UnmountDevice stage an
// error implies, the release a kubelet version names, names made valid. Each answer says whether it was
// read or guessed: the writer marks guesses `# guess:`.
import { RELEASE_PRESETS, type ReleasePreset } from '../fixes.js';
import type { UnmountDeviceStage } from '../scenario/types.js';
import type { PluginKind } from '../volume/volume.js';

export interface Hinted<T> {
  readonly value: T;
  /** Why, when it was guessed; null when the log says it. */
  readonly guess: string | null;
}

/**
 * The plugin a UniqueName (`kubernetes.io/iscsi/...`, `kubernetes.io/csi/driver^handle`) or a path
 * (`kubernetes.io~iscsi`, `plugins/kubernetes.io/fc/`) names; null when the text names none.
 */
export function pluginIn(text: string): PluginKind | null {
  const m = /kubernetes\.io[~/](iscsi|fc|csi)\b/.exec(text);
  return m === null ? null : (m[1] as PluginKind);
}

/** Whether a text shows a Block volume: a pod's volumeDevices dir or a global map path. */
export function blockIn(text: string): boolean {
  return /volumeDevices\/|\/volumeDevices\b|\/plugins\/kubernetes\.io\/[^/]+\/volumeDevices/.test(text);
}

/**
 * The UnmountDevice stage a failure's error implies (docs/scenario-format.md, "From what you see to the
 * fault to write"): PR #107789's check after the unmount, a multipath flush refused, a clean-up after the
 * unmount that failed (FC's lstat of a deleted device, iSCSI's logout, CSI's NodeUnstage deadline), or
 * a umount refused before anything changed.
 */
export function unmountStage(error: string): Hinted<UnmountDeviceStage> {
  if (/no longer expected to be in use/.test(error)) return { value: 'deviceStillOpen', guess: null };
  if (/map in use|multipath -f/.test(error)) return { value: 'multipathFlushBusy', guess: null };
  if (
    /lstat .*no such file|iscsiadm|logout|exit status 8\b|ISCSI_ERR|DeadlineExceeded|after unmount/i.test(
      error,
    )
  )
    return { value: 'afterUnmount', guess: null };
  if (/target is busy|device or resource busy|device is busy|exit status 32\b/.test(error))
    return { value: 'beforeUnmount', guess: null };
  return {
    value: 'beforeUnmount',
    guess: 'the error names no stage: read as a umount refused before anything changed',
  };
}

/** The release preset for a kubelet version (`1.23`); the nearest modelled one, with why, for others. */
export function releaseOf(version: string): Hinted<ReleasePreset> | null {
  const m = /^1\.(\d+)$/.exec(version);
  if (m === null) return null;
  const minor = Number(m[1]);
  const exact = RELEASE_PRESETS.find((p) => p === version);
  if (exact !== undefined) return { value: exact, guess: null };
  const older = [...RELEASE_PRESETS].reverse().find((p) => Number(p.slice(2)) <= minor);
  const value = older ?? RELEASE_PRESETS[0];
  return { value, guess: `the log names kubelet ${version}; ${value} is the nearest release podrace models` };
}

/** A DNS-1123 subdomain made of a name from a log (host names, PV names are mostly valid already). */
export function subdomain(name: string, fallback: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '')
    .replace(/\.\.+/g, '.')
    .slice(0, 253)
    .replace(/[^a-z0-9]+$/, '');
  return s === '' ? fallback : s;
}

/** A DNS-1123 label (container names). */
export function label(name: string, fallback: string): string {
  const s = subdomain(name.replace(/\./g, '-'), fallback)
    .slice(0, 63)
    .replace(/[^a-z0-9]+$/, '');
  return s === '' ? fallback : s;
}
