// Recognises the kubelet's and kube-controller-manager's messages that matter to the races podrace
// models, in both of their forms: structured (klog InfoS, 1.21+: `"SyncLoop ADD" source="api"
// pods=[default/web-0]`) and the older printf form (`SyncLoop (ADD, "api"): "web-0_default(uid)"`). The
// message texts are upstream's (pkg/kubelet/kubelet.go syncLoopIteration, kuberuntime_container.go
// killContainer, volume/util/operationexecutor/operation_generator.go, attachdetach/reconciler). Pure.
import type { LogEvent, PodRef, VolumeOp } from './events.js';
import { parseObjectList, parseStructured, readQuoted } from './keyValues.js';

/** `name_namespace(uid)` as the older SyncLoop lines print pods (format.Pods). */
function podsOfOldList(text: string): PodRef[] {
  const out: PodRef[] = [];
  for (const m of text.matchAll(/([a-z0-9][a-z0-9.-]*)_([a-z0-9][a-z0-9-]*)\(([^)\s]*)\)/g))
    out.push({ name: m[1]!, namespace: m[2]!, uid: m[3]! });
  return out;
}

function podFromKObj(value: string | undefined, uid: string | undefined): PodRef | null {
  if (value === undefined) return null;
  const [ref] = parseObjectList(value);
  return ref === undefined ? null : { ...ref, uid: uid ?? '' };
}

const OPS: readonly [RegExp, VolumeOp][] = [
  [/^MountVolume\.WaitForAttach$/, 'waitForAttach'],
  [/^MapVolume\.WaitForAttach$/, 'waitForAttach'],
  [/^MountVolume\.MountDevice$/, 'mountDevice'],
  [/^MountVolume\.SetUp$/, 'setUp'],
  [/^UnmountVolume\.TearDown$/, 'tearDown'],
  [/^UnmountDevice$/, 'unmountDevice'],
  [/^MapVolume\.(?:SetUpDevice|MapDevice)$/, 'mapDevice'],
  [/^MapVolume\.MapPodDevice$/, 'mapPodDevice'],
  [/^UnmapVolume\.(?:UnmapPodDevice|UnmapVolume|UnmapBlockVolume)$/, 'unmapPodDevice'],
  [/^UnmapDevice$/, 'unmapDevice'],
  [/^AttachVolume\.Attach$/, 'attach'],
  [/^DetachVolume\.Detach$/, 'detach'],
];

const OP_WORD =
  /(?<![\w.])(MountVolume\.\w+|UnmountVolume\.\w+|MapVolume\.\w+|UnmapVolume\.\w+|UnmountDevice|UnmapDevice|AttachVolume\.Attach|DetachVolume\.Detach) (succeeded|failed) for volume ("(?:[^"\\]|\\.)*"|\S+)/;

/** The Go-quoted value that `marker` (ending in its opening quote) introduces; '' when absent. */
function quotedAfter(text: string, marker: string): string {
  const at = text.indexOf(marker);
  if (at < 0) return '';
  return readQuoted(text, at + marker.length - 1)?.value ?? '';
}

/** An operation_generator message: `<Op> succeeded|failed for volume "v" (UniqueName: "u") pod "p" (UID: "x") ...`. */
function volumeOp(text: string, err: string | undefined): LogEvent | null {
  const m = OP_WORD.exec(text);
  if (m === null) return null;
  const op = OPS.find(([re]) => re.test(m[1]!))?.[1];
  if (op === undefined) return null;
  const rawVolume = m[3]!;
  const volume = rawVolume.startsWith('"') ? (readQuoted(rawVolume, 0)?.value ?? '') : rawVolume;
  const rest = text.slice(m.index);
  const podName = quotedAfter(rest, ' pod "');
  const uid = quotedAfter(rest, '(UID: "');
  const node = quotedAfter(rest, ' on node "') || quotedAfter(rest, ' from node "');
  const ok = m[2] === 'succeeded';
  let error = '';
  if (!ok) {
    // generateVolumeErrorMsg: `... details : error`; the structured form adds err="...".
    const colon = rest.indexOf(' : ');
    error = err ?? (colon < 0 ? '' : rest.slice(colon + 3));
  }
  // UnmountVolume.TearDown's own line names the volume by its unique name, then `(OuterVolumeSpecName:
  // "<the pod's name for it>") ... InnerVolumeSpecName "<the PV>"`: the PV is the name the mount lines use.
  let uniqueName = quotedAfter(rest, '(UniqueName: "');
  let specName = volume;
  const inner = quotedAfter(rest, 'InnerVolumeSpecName "');
  if (inner !== '' && uniqueName === '' && volume.includes('/')) {
    uniqueName = volume;
    specName = inner;
  }
  return {
    kind: 'volumeOp',
    op,
    ok,
    volume: specName,
    uniqueName,
    pod: podName === '' ? null : { namespace: '', name: podName, uid },
    node,
    error,
  };
}

type HookPhase = 'started' | 'completed' | 'notCompleted' | 'failed';

/** executePreStopHook's structured messages (1.21+). */
const PRESTOP_PHASES: ReadonlyMap<string, HookPhase> = new Map([
  ['Running preStop hook', 'started'],
  // A structured form some forks log (only the container's ID), not upstream's.
  ['Running preStop hook for container', 'started'],
  ['PreStop hook completed', 'completed'],
  ['PreStop hook not completed in grace period', 'notCompleted'],
  ['PreStop hook failed', 'failed'],
]);

/**
 * executePreStopHook's printf forms before 1.21: the start, end and timeout name the container's ID
 * (`Running preStop hook for container "docker://<id>"`, `preStop hook for container "<id>" completed`,
 * `... did not complete in 30 seconds`), the failure its name (`preStop hook for container "app" failed: ...`).
 */
function oldPreStopHook(text: string): LogEvent | null {
  const hook = (phase: HookPhase, quoted: string, gracePeriodS: number | null = null): LogEvent => ({
    kind: 'preStopHook',
    phase,
    pod: null,
    container: phase === 'failed' ? quoted : '',
    containerId: phase === 'failed' ? '' : quoted.replace(/^[a-z]+:\/\//, ''),
    gracePeriodS,
  });
  const started = /Running preStop hook for container "([^"]*)"/.exec(text);
  if (started !== null) return hook('started', started[1]!);
  const ended =
    /preStop hook for container "([^"]*)" (completed$|did not complete in (\d+) seconds|failed: )/.exec(text);
  if (ended === null) return null;
  if (ended[2] === 'completed') return hook('completed', ended[1]!);
  if (ended[3] !== undefined) return hook('notCompleted', ended[1]!, Number(ended[3]));
  return hook('failed', ended[1]!);
}

function versionOf(text: string): string {
  const m = /v?(1\.\d{1,2})\.\d+/.exec(text);
  return m === null ? '' : m[1]!;
}

/** The event of one message, or null when it is none of the recognised ones. */
export function recognise(raw: string): LogEvent | null {
  // nestedpendingoperations (1.20+) quotes the operation's error: `Error: "UnmountDevice failed for volume \"v\" ..."`.
  const quotedError = raw.indexOf('Error: "');
  const text =
    quotedError < 0 ? raw : raw.slice(0, quotedError + 7) + (readQuoted(raw, quotedError + 7)?.value ?? '');
  const s = parseStructured(text);
  const msg = s?.message ?? text;
  const v = (k: string) => s?.values.get(k);

  // ---- syncLoop config updates ----
  const structuredOp = /^SyncLoop (ADD|UPDATE|DELETE|REMOVE)$/.exec(msg);
  if (structuredOp !== null && s !== null) {
    return {
      kind: 'podOp',
      op: structuredOp[1] as 'ADD',
      source: v('source') ?? '',
      pods: parseObjectList(v('pods') ?? '').map((p) => ({ ...p, uid: '' })),
    };
  }
  const oldOp = /SyncLoop \((ADD|UPDATE|DELETE|REMOVE), "(\w+)"\): (.*)$/.exec(text);
  if (oldOp !== null)
    return { kind: 'podOp', op: oldOp[1] as 'ADD', source: oldOp[2]!, pods: podsOfOldList(oldOp[3]!) };

  // ---- PLEG ----
  const plegType = /Type:"?(ContainerStarted|ContainerDied)"?/.exec(text);
  if (/SyncLoop \(PLEG\)/.test(text) && plegType !== null) {
    const pod =
      podFromKObj(v('pod'), undefined) ??
      podsOfOldList(text)[0] ??
      ({ namespace: '', name: '', uid: '' } satisfies PodRef);
    const uid = /ID:"?([^\s",}]+)"?/.exec(text)?.[1] ?? pod.uid;
    const data = /Data:"?([0-9a-f]{6,})"?/.exec(text)?.[1] ?? '';
    return {
      kind: 'pleg',
      pod: { ...pod, uid },
      event: plegType[1] as 'ContainerStarted',
      container: data,
    };
  }

  if (msg === 'Generic (PLEG): container finished' && s !== null) {
    const exitCode = Number(v('exitCode'));
    const containerId = (v('containerID') ?? '').replace(/^[a-z]+:\/\//, '');
    if (containerId !== '' && Number.isInteger(exitCode))
      return { kind: 'containerFinished', podUid: v('podID') ?? '', containerId, exitCode };
  }

  // ---- kills ----
  if (/^Killing container with a grace period$/.test(msg) && s !== null) {
    const pod = podFromKObj(v('pod'), v('podUID'));
    if (pod !== null)
      return {
        kind: 'killContainer',
        pod,
        container: v('containerName') ?? '',
        containerId: (v('containerID') ?? '').replace(/^[a-z]+:\/\//, ''),
        gracePeriodS: Number(v('gracePeriod') ?? '0') || 0,
      };
  }
  if (msg === 'Container termination failed with gracePeriod' && s !== null) {
    const pod = podFromKObj(v('pod'), v('podUID'));
    if (pod !== null)
      return {
        kind: 'killContainerFailed',
        pod,
        container: v('containerName') ?? '',
        containerId: (v('containerID') ?? '').replace(/^[a-z]+:\/\//, ''),
        error: v('err') ?? '',
      };
  }
  const oldKillFailed = /Container "([^"]*)" termination failed with gracePeriod \d+: (.*)$/.exec(text);
  if (oldKillFailed !== null) {
    const containerId = oldKillFailed[1]!.replace(/^[a-z]+:\/\//, '');
    if (containerId !== '')
      return { kind: 'killContainerFailed', pod: null, container: '', containerId, error: oldKillFailed[2]! };
  }
  const oldKill = /Killing container "([^"]*)" with (?:a )?(\d+) second grace period/.exec(text);
  if (oldKill !== null) {
    // 1.2's docker manager: `"<id> <container> <namespace>/<pod>"`; later ones name no pod here.
    const parts = oldKill[1]!.split(' ');
    const ref = parts.length === 3 ? parseObjectList(parts[2]!)[0] : undefined;
    const pod = podsOfOldList(text)[0] ?? (ref === undefined ? undefined : { ...ref, uid: '' });
    if (pod !== undefined)
      return {
        kind: 'killContainer',
        pod,
        container: parts.length === 3 ? parts[1]! : '',
        containerId: '',
        gracePeriodS: Number(oldKill[2]),
      };
  }

  // ---- preStop hooks (executePreStopHook) ----
  const hookPhase = PRESTOP_PHASES.get(msg);
  if (hookPhase !== undefined && s !== null) {
    const grace = Number(v('gracePeriod'));
    return {
      kind: 'preStopHook',
      phase: hookPhase,
      pod: podFromKObj(v('pod'), v('podUID')),
      container: v('containerName') ?? '',
      containerId: (v('containerID') ?? '').replace(/^[a-z]+:\/\//, ''),
      gracePeriodS: hookPhase === 'notCompleted' && Number.isInteger(grace) ? grace : null,
    };
  }
  const oldHook = oldPreStopHook(text);
  if (oldHook !== null) return oldHook;

  // ---- eviction, shutdown, start ----
  if (msg === 'Evicting pod' && s !== null) {
    const pod = podFromKObj(v('pod'), v('podUID'));
    if (pod !== null) return { kind: 'evict', pod };
  }
  const oldEvict = /eviction manager: pods? (\S+) (?:is )?evicted successfully/.exec(text);
  if (oldEvict !== null) {
    const pod = podsOfOldList(oldEvict[1]!)[0];
    if (pod !== undefined) return { kind: 'evict', pod };
  }
  if (/^Shutdown manager (?:detected new shutdown event|processing shutdown event)/.test(msg))
    return { kind: 'shutdown' };
  // nodeshutdown_manager_linux.go NewManager: logged only when a manager exists (gate on, period > 0).
  if (msg === 'Creating node shutdown manager') {
    const periodS = goDurationS(v('shutdownGracePeriodRequested') ?? '');
    const criticalS = goDurationS(v('shutdownGracePeriodCriticalPods') ?? '0s');
    if (periodS !== null && criticalS !== null && criticalS <= periodS)
      return { kind: 'shutdownConfig', periodS, criticalS };
  }
  if (msg === 'Kubelet version')
    return { kind: 'kubeletStart', version: versionOf(v('kubeletVersion') ?? '') };
  if (/^(?:Version: v1\.|Kubelet version v?1\.)/.test(msg))
    return { kind: 'kubeletStart', version: versionOf(msg) };
  if (/^Starting kubelet main sync loop|^Started kubelet$/.test(msg))
    return { kind: 'kubeletStart', version: '' };

  // ---- reconstruction ----
  if (/Could not construct volume information/.test(msg)) {
    // Older forms: `(pod.UID <uid>, volume.SpecName <name>)`, or the volume's dir under the pod.
    const quoted = /volume "([^"]+)".*?pod "?([0-9a-f-]{8,})"?/.exec(text);
    const specName = /pod\.UID ([^,\s]+), volume\.SpecName ([^)\s]+)\)/.exec(text);
    const path = /pods\/([^/\s]+)\/volumes\/[^/\s]+\/([^/\s]+)/.exec(text);
    const oldVolume = quoted?.[1] ?? specName?.[2] ?? path?.[2];
    const oldUid = quoted?.[2] ?? specName?.[1] ?? path?.[1];
    return {
      kind: 'reconstructFailed',
      volume: v('volumeSpecName') ?? oldVolume ?? '',
      uid: v('podName') ?? oldUid ?? '',
      error: v('err') ?? text.slice(text.indexOf('Could not construct volume information')),
    };
  }
  if (
    /[Oo]rphaned pod .*volume paths are still present on disk|^Orphaned pod found, but volume paths/.test(msg)
  ) {
    const uid = v('podUID') ?? /[Oo]rphaned pod "?([0-9a-f-]{8,})"?/.exec(text)?.[1] ?? '';
    return { kind: 'orphanVolumePaths', uid };
  }
  if (/could not get consistent content of \/proc\/mounts/.test(text)) return { kind: 'inconsistentMounts' };

  // ---- the desired state of world populator cannot read a pod's claim (or its volume) ----
  if (msg === 'Error processing volume' && s !== null) {
    const e = pvcFetchError(v('err') ?? '');
    if (e !== null)
      return {
        kind: 'pvcLookupFailed',
        pod: podFromKObj(v('pod'), v('podUID')),
        volumeName: v('volumeName') ?? '',
        ...e,
      };
  }
  const oldProcessing = /Error processing volume "([^"]*)" for pod "([^"]*)": (.*)$/s.exec(text);
  if (oldProcessing !== null) {
    const e = pvcFetchError(oldProcessing[3]!);
    if (e !== null)
      return {
        kind: 'pvcLookupFailed',
        pod: podsOfOldList(oldProcessing[2]!)[0] ?? null,
        volumeName: oldProcessing[1]!,
        ...e,
      };
  }

  // ---- attach / detach controller ----
  if (/Multi-Attach error/.test(text)) {
    const volume = quotedAfter(text, 'Multi-Attach error for volume "');
    const node = quotedAfter(text, ' from node "');
    const to = /attached to node (\S+?)(?: and|$)|on node (\S+?)$/.exec(text);
    return { kind: 'multiAttach', volume, node, attachedTo: to?.[1] ?? to?.[2] ?? '' };
  }
  if (/maxWaitForUnmountDuration\b.*expired, force detaching/.test(text)) {
    return {
      kind: 'forceDetach',
      volume: quotedAfter(text, 'for volume "') || (v('volumeName') ?? ''),
      node: quotedAfter(text, ' on node "') || quotedAfter(text, ' from node "') || (v('node') ?? ''),
    };
  }

  // ---- the volume manager's reconciler starting for a pod's volume: which pod wants which volume ----
  const verify =
    /operationExecutor\.(?:VerifyControllerAttachedVolume|MountVolume|MapVolume) started for volume ("(?:[^"\\]|\\.)*")/.exec(
      msg,
    );
  if (verify !== null) {
    const rest = msg.slice(verify.index);
    const podName = quotedAfter(rest, ' pod "');
    return {
      kind: 'volumeOp',
      op: 'waitForAttach',
      ok: true,
      volume: readQuoted(verify[1]!, 0)?.value ?? '',
      uniqueName: quotedAfter(rest, '(UniqueName: "'),
      pod: podName === '' ? null : { namespace: '', name: podName, uid: quotedAfter(rest, '(UID: "') },
      node: '',
      error: '',
    };
  }

  // ---- volume operations, and the failures inside them ----
  const op = volumeOp(
    msg === text ? text : `${msg} ${v('err') === undefined ? '' : `: ${v('err')}`}`,
    v('err'),
  );
  if (op !== null) return op;
  if (/no longer expected to be in use/.test(text))
    return { kind: 'deviceStillOpen', volume: quotedAfter(text, 'for volume "') };
  const mapInUse = /(\S+): map in use/.exec(text);
  if (mapInUse !== null) return { kind: 'mapInUse', device: mapInUse[1]! };
  return null;
}

/**
 * createVolumeSpec's error when the API read failed: `error processing PVC <ns>/<claim>: failed to fetch PVC
 * from API server: <err>` (getPVCExtractPV) or `... failed to fetch PV <pv> from API server: <err>`
 * (getPVSpec). Its other errors (a claim not bound, being deleted) are no read that failed: null.
 */
function pvcFetchError(err: string): { claim: string; pv: string; error: string } | null {
  const m =
    /^error processing PVC [^/\s]+\/(\S+): failed to fetch (?:PVC|PV (\S+)) from API server: (.*)$/s.exec(
      err,
    );
  return m === null ? null : { claim: m[1]!, pv: m[2] ?? '', error: m[3]! };
}

/** A Go duration as klog prints it (`30s`, `1m0s`, `1h2m3s`, `0s`) in whole seconds; null if it is not one. */
export function goDurationS(text: string): number | null {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(text);
  if (m === null || text === '') return null;
  const s = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return Number.isInteger(s) ? s : null;
}
