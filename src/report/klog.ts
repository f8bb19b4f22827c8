// `podrace run --klog`: a run written as the kubelets and the controller manager would have logged it
// (journald lines around klog headers, virtual time from 1 Jan 00:00:00), with the messages upstream logs
// at the same places (pkg/kubelet/kubelet.go syncLoopIteration, kuberuntime killContainer,
// operation_generator.go, attachdetach/reconciler). `podrace import` reads it back (docs/import.md,
// "Round trip"). Built from the fact stream alone; pure.
import type { Fact } from '../facts.js';
import type { RunResult } from '../run/run.js';
import type { Scenario, VolumeDecl } from '../scenario/types.js';

const MONTH = 'Jan';
/** The controller manager's host and PID. */
const CONTROL_PLANE = 'control-plane';
const CM_PID = 1;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const q = (s: string) => JSON.stringify(s);

/** A klog header at a virtual time, behind journald's prefix. */
function line(atMs: number, host: string, ident: string, pid: number, sev: string, src: string, msg: string) {
  const day = 1 + Math.floor(atMs / 86_400_000);
  const inDay = atMs % 86_400_000;
  const h = pad(Math.floor(inDay / 3_600_000));
  const m = pad(Math.floor(inDay / 60_000) % 60);
  const s = pad(Math.floor(inDay / 1000) % 60);
  const us = pad((inDay % 1000) * 1000, 6);
  const journald = `${MONTH} ${String(day).padStart(2, ' ')} ${h}:${m}:${s}`;
  return `${journald} ${host} ${ident}[${pid}]: ${sev}01${pad(day)} ${h}:${m}:${s}.${us} ${String(pid).padStart(7, ' ')} ${src}] ${msg}`;
}

function uniqueName(v: VolumeDecl | undefined, name: string): string {
  const plugin = v?.plugin ?? 'csi';
  return plugin === 'csi' ? `kubernetes.io/csi/podrace.csi^${name}` : `kubernetes.io/${plugin}/${name}`;
}

/** A container ID as a runtime prints it: 12 hex digits from the pod UID and the container name. */
function containerId(uid: string, container: string): string {
  let h = 0x811c9dc5;
  for (const c of `${uid}/${container}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return `${h.toString(16).padStart(8, '0')}${(h >>> 16).toString(16).padStart(4, '0')}`;
}

/** The error text a failed UnmountDevice logs, for the stage the fault fired at (as upstream words it). */
function unmountError(stage: string, v: VolumeDecl | undefined, name: string): string {
  const plugin = v?.plugin ?? 'csi';
  switch (stage) {
    case 'deviceStillOpen':
      return 'the device is in use when it was no longer expected to be in use';
    case 'multipathFlushBusy':
      return 'flushing the multipath device failed';
    case 'afterUnmount':
      if (plugin === 'fc') return 'fc: failed to detach disk: lstat /dev/sdb: no such file or directory';
      if (plugin === 'iscsi')
        return 'iscsi: failed to detach disk: iscsiadm: exit status 8 ISCSI_ERR_TRANS_TIMEOUT';
      return 'rpc error: code = DeadlineExceeded desc = context deadline exceeded';
    default:
      return `unmount failed: exit status 32 Unmounting arguments: /var/lib/kubelet/plugins/${name} Output: umount: target is busy.`;
  }
}

export function toKlogLines(result: RunResult, scenario: Scenario): string[] {
  const facts: readonly Fact[] = result.facts ?? [];
  const volumes = new Map(scenario.volumes.map((v) => [v.name, v]));
  const out: string[] = [];
  const pids = new Map<string, number>();
  const up = new Map<string, boolean>();
  /**
   * The pods bound to each node (the API's, and the manifests' static pods), in creation order: what a
   * restarted kubelet's first LIST hands its sync loop as one ADD per source.
   */
  const bound = new Map<
    string,
    Map<string, { pod: string; isStatic: boolean; volumes: readonly string[] }>
  >();
  const staticPods = new Set<string>();
  /** node/volume -> the stage of the unmountDevice fault that fired last, until UnmountDevice reports. */
  const firing = new Map<string, string>();
  /** The stage (or error) of the fault that fired for the node's operation on the volume, once. */
  const takeFiring = (
    node: string,
    volume: string,
    op: 'mountDevice' | 'unmountDevice',
  ): string | undefined => {
    const key = `${node}/${volume}/${op}`;
    const stage = firing.get(key);
    firing.delete(key);
    return stage;
  };
  const base = result.fixes.base;
  const version = base !== undefined && /^1\.\d+$/.test(base) ? `v${base}.0` : '';

  const kubelet = (f: { atMs: number; node: string }, sev: string, src: string, msg: string) =>
    out.push(line(f.atMs, f.node, 'kubelet', pids.get(f.node) ?? 1000, sev, src, msg));
  const cm = (atMs: number, sev: string, src: string, msg: string) =>
    out.push(line(atMs, CONTROL_PLANE, 'kube-controller-manager', CM_PID, sev, src, msg));
  /**
   * A line the kubelet logs when the API tells it something, if it is up. A kubelet that is down logs
   * nothing of it: the restarted one lists the pods as they are then (its re-list ADD), and never hears
   * of a pod deleted meanwhile.
   */
  const onWatch = (node: string, emit: (atMs: number) => void, atMs: number) => {
    if (up.get(node) !== false) emit(atMs);
  };
  const verifyAttached = (atMs: number, node: string, pod: string, uid: string, vols: readonly string[]) => {
    for (const v of vols)
      kubelet(
        { atMs, node },
        'I',
        'reconciler.go:238',
        `${q(volMsg('operationExecutor.VerifyControllerAttachedVolume started', v, `pod ${q(pod)} (UID: ${q(uid)})`))} pod="default/${pod}"`,
      );
  };
  const volMsg = (op: string, vol: string, detail: string) =>
    `${op} for volume ${q(vol)} (UniqueName: ${q(uniqueName(volumes.get(vol), vol))}) ${detail}`;
  const opFailed = (f: { atMs: number; node: string }, vol: string, msg: string) =>
    kubelet(
      f,
      'E',
      'nestedpendingoperations.go:335',
      `Operation for "{volumeName:${uniqueName(volumes.get(vol), vol)} podName: nodeName:}" failed. Error: ${msg}`,
    );
  const block = (vol: string) => volumes.get(vol)?.mode === 'Block';
  // The new reconstruction's failures (reconstruct_new.go), by node, pod and volume: its later decision
  // (cleanOrphanVolumes) logs "Cleaning up mounts for volume that could not be reconstructed".
  const failedNew = new Set<string>();

  for (const f of facts) {
    switch (f.kind) {
      case 'kubeletStarted': {
        const restarted = pids.has(f.node);
        pids.set(f.node, (pids.get(f.node) ?? 900) + 100);
        up.set(f.node, true);
        if (version !== '')
          kubelet(f, 'I', 'server.go:446', `"Kubelet version" kubeletVersion=${q(version)}`);
        // NewManager logs its configuration only when a shutdown manager exists (the gate on, a period > 0).
        const shutdown = scenario.nodeShutdown?.[f.node];
        if (
          shutdown !== undefined &&
          shutdown.shutdownGracePeriodS > 0 &&
          result.fixes.on('graceful-node-shutdown-beta')
        )
          kubelet(
            f,
            'I',
            'nodeshutdown_manager_linux.go:124',
            `"Creating node shutdown manager" shutdownGracePeriodRequested="${shutdown.shutdownGracePeriodS}s" shutdownGracePeriodCriticalPods="${shutdown.shutdownGracePeriodCriticalPodsS}s" shutdownGracePeriodByPodPriority=[]`,
          );
        kubelet(f, 'I', 'kubelet.go:2031', '"Starting kubelet main sync loop"');
        // A restarted kubelet's config sources list every pod bound to the node: one ADD per source.
        const pods = [...(bound.get(f.node) ?? new Map()).entries()];
        for (const [source, isStatic] of [
          ['file', true],
          ['api', false],
        ] as const) {
          const listed = pods.filter(([, p]) => p.isStatic === isStatic);
          if (!restarted || listed.length === 0) continue;
          kubelet(
            f,
            'I',
            'kubelet.go:2100',
            `"SyncLoop ADD" source=${q(source)} pods=[${listed.map(([, p]) => `default/${p.pod}`).join(' ')}]`,
          );
          for (const [uid, p] of listed) verifyAttached(f.atMs, f.node, p.pod, uid, p.volumes);
        }
        break;
      }
      case 'kubeletStopped':
        // Not upstream: a killed process logs nothing; this line marks where the old process ends.
        kubelet(f, 'W', 'podrace.go:1', '"podrace: the kubelet process is killed here"');
        up.set(f.node, false);
        break;
      case 'apiPodCreated': {
        if (f.static) staticPods.add(f.uid);
        const onNode = bound.get(f.node) ?? new Map();
        onNode.set(f.uid, { pod: f.pod, isStatic: f.static, volumes: f.volumes });
        bound.set(f.node, onNode);
        const source = f.static ? 'file' : 'api';
        onWatch(
          f.node,
          (atMs) => {
            kubelet(
              { atMs, node: f.node },
              'I',
              'kubelet.go:2100',
              `"SyncLoop ADD" source=${q(source)} pods=[default/${f.pod}]`,
            );
            verifyAttached(atMs, f.node, f.pod, f.uid, f.volumes);
          },
          f.atMs,
        );
        break;
      }
      case 'podRejected':
        // predicateAdmitHandler.Admit's line (v1.27.2's kubelet, as #118497's thread shows it): a
        // PredicateFailureError's branch, or 4 lines on the InsufficientResourceError's (OutOfcpu, as at
        // v1.23.13 and v1.28.0).
        kubelet(
          f,
          'I',
          f.reason.startsWith('OutOf') ? 'predicate.go:133' : 'predicate.go:129',
          `"Predicate failed on Pod" pod="default/${f.pod}" err=${q(f.message)}`,
        );
        break;
      case 'apiPodDeletionRequested': {
        const isStatic = staticPods.has(f.uid);
        // A deletion with grace 0 removes the object at once: the kubelet's watch only sees it gone.
        if (!isStatic && f.gracePeriodSeconds === 0) break;
        const op = isStatic ? 'REMOVE' : 'DELETE';
        const source = isStatic ? 'file' : 'api';
        // A removed manifest: the file source no longer lists the static pod.
        if (isStatic) bound.get(f.node)?.delete(f.uid);
        onWatch(
          f.node,
          (atMs) =>
            kubelet(
              { atMs, node: f.node },
              'I',
              'kubelet.go:2130',
              `"SyncLoop ${op}" source=${q(source)} pods=[default/${f.pod}]`,
            ),
          f.atMs,
        );
        break;
      }
      case 'apiPodDeleted':
        bound.get(f.node)?.delete(f.uid);
        if (f.by === 'user-force' || f.by === 'kubelet')
          onWatch(
            f.node,
            (atMs) =>
              kubelet(
                { atMs, node: f.node },
                'I',
                'kubelet.go:2127',
                `"SyncLoop REMOVE" source="api" pods=[default/${f.pod}]`,
              ),
            f.atMs,
          );
        break;
      case 'containerStopping':
        kubelet(
          f,
          'I',
          'kuberuntime_container.go:725',
          `"Killing container with a grace period" pod="default/${f.pod}" podUID=${f.uid} containerName=${q(f.container)} containerID=${q(`containerd://${containerId(f.uid, f.container)}`)} gracePeriod=${f.gracePeriodSeconds}`,
        );
        break;
      case 'podVolumeLookupFailed':
        kubelet(
          f,
          'E',
          'desired_state_of_world_populator.go:313',
          `"Error processing volume" err=${q(`error processing PVC default/${f.volume}: ${f.error}`)} pod="default/${f.pod}" volumeName=${q(f.volume)}`,
        );
        break;
      case 'preStopHookStarted':
        kubelet(
          f,
          'I',
          'kuberuntime_container.go:641',
          `"Running preStop hook" pod="default/${f.pod}" podUID=${f.uid} containerName=${q(f.container)} containerID=${q(`containerd://${containerId(f.uid, f.container)}`)}`,
        );
        break;
      case 'containerStarted':
      case 'containerExited': {
        const type = f.kind === 'containerStarted' ? 'ContainerStarted' : 'ContainerDied';
        // generic.go relist logs a ContainerDied's exit code (from the pod cache) before it sends the event.
        if (f.kind === 'containerExited')
          kubelet(
            f,
            'I',
            'generic.go:296',
            `"Generic (PLEG): container finished" podID=${f.uid} containerID=${q(containerId(f.uid, f.container))} exitCode=${f.exitCode}`,
          );
        kubelet(
          f,
          'I',
          'kubelet.go:2145',
          `"SyncLoop (PLEG): event for pod" pod="default/${f.pod}" event=&{ID:${f.uid} Type:${type} Data:${containerId(f.uid, f.container)}}`,
        );
        break;
      }
      case 'podEvictionRequested':
        kubelet(
          f,
          'I',
          'eviction_manager.go:566',
          `"Evicting pod" pod="default/${f.pod}" podUID=${f.uid} message="The node was low on resource"`,
        );
        break;
      case 'nodeShutdownStarted':
        kubelet(
          f,
          'I',
          'nodeshutdown_manager_linux.go:240',
          '"Shutdown manager detected new shutdown event" event="shutdown"',
        );
        break;
      case 'volumeSetUp':
        kubelet(
          f,
          'I',
          'operation_generator.go:751',
          `${q(volMsg(block(f.volume) ? 'MapVolume.MapPodDevice succeeded' : 'MountVolume.SetUp succeeded', f.volume, `pod ${q(f.pod)} (UID: ${q(f.uid)})`))} pod="default/${f.pod}"`,
        );
        break;
      case 'volumeTearDown': {
        const op = block(f.volume) ? 'UnmapVolume.UnmapPodDevice' : 'UnmountVolume.TearDown';
        if (f.ok)
          kubelet(
            f,
            'I',
            'operation_generator.go:911',
            volMsg(`${op} succeeded`, f.volume, `pod ${q(f.pod)} (UID: ${q(f.uid)})`),
          );
        else
          opFailed(
            f,
            f.volume,
            volMsg(
              `${op} failed`,
              f.volume,
              `pod ${q(f.pod)} (UID: ${q(f.uid)}) : unmount failed: exit status 32 Output: umount: target is busy.`,
            ),
          );
        break;
      }
      case 'mountDevice': {
        const op = block(f.volume) ? 'MapVolume.SetUpDevice' : 'MountVolume.MountDevice';
        const stage = takeFiring(f.node, f.volume, 'mountDevice');
        if (f.ok)
          kubelet(
            f,
            'I',
            'operation_generator.go:674',
            q(volMsg(`${op} succeeded`, f.volume, `on node ${q(f.node)}`)),
          );
        else {
          const err =
            stage === 'uncertain'
              ? 'rpc error: code = Unavailable desc = driver restarted'
              : 'mount failed: exit status 32';
          opFailed(f, f.volume, volMsg(`${op} failed`, f.volume, `on node ${q(f.node)} : ${err}`));
        }
        break;
      }
      case 'faultInjected': {
        // A stopContainer firing is published as StopContainer returns its error: killContainer logged
        // the kill before the call (kuberuntime_container.go:725) and logs the failure after it.
        if (f.fault === 'stopContainer' && f.uid !== undefined && f.container !== undefined) {
          const who = `pod="default/${f.pod ?? ''}" podUID=${f.uid} containerName=${q(f.container)} containerID=${q(`containerd://${containerId(f.uid, f.container)}`)} gracePeriod=${f.gracePeriodSeconds ?? 0}`;
          kubelet(f, 'I', 'kuberuntime_container.go:725', `"Killing container with a grace period" ${who}`);
          kubelet(
            f,
            'E',
            'remote_runtime.go:479',
            `"StopContainer from runtime service failed" err=${q(f.error ?? '')} containerID=${q(containerId(f.uid, f.container))}`,
          );
          // Since #107670 killContainer takes NotFound as stopped and logs no failure (crierror.IsNotFound).
          if (!(result.fixes.on('stop-container-not-found') && f.error?.includes('code = NotFound') === true))
            kubelet(
              f,
              'E',
              'kuberuntime_container.go:730',
              `"Container termination failed with gracePeriod" err=${q(f.error ?? '')} ${who}`,
            );
          break;
        }
        if (f.volume === undefined) break;
        const [kind, stage] = f.fault.split('/');
        if (kind === 'unmountDevice' && stage !== undefined) {
          firing.set(`${f.node}/${f.volume}/unmountDevice`, stage);
        }
        if (kind === 'mountDevice' && f.error !== undefined)
          firing.set(`${f.node}/${f.volume}/mountDevice`, f.error);
        // A setUp firing is published as SetUp (MapPodDevice) starts and fails at once: the operation fails.
        if (kind === 'setUp') {
          const op = block(f.volume) ? 'MapVolume.MapPodDevice' : 'MountVolume.SetUp';
          const csi = volumes.get(f.volume)?.plugin === 'csi';
          const err = !csi
            ? 'mount failed: exit status 32'
            : f.error === 'uncertain'
              ? 'rpc error: code = DeadlineExceeded desc = context deadline exceeded'
              : 'rpc error: code = Internal desc = NodePublishVolume failed';
          opFailed(f, f.volume, volMsg(`${op} failed`, f.volume, `on node ${q(f.node)} : ${err}`));
        }
        // A waitForAttach firing is published as the call returns its error: the operation fails there.
        if (kind === 'waitForAttach') {
          const op = block(f.volume) ? 'MapVolume.WaitForAttach' : 'MountVolume.WaitForAttach';
          // One log line: the plugin's multi-line error (iSCSI's iscsiadm output) with its breaks as spaces.
          const err = (f.error ?? '').replace(/\s*\n\s*/g, ' ');
          opFailed(f, f.volume, volMsg(`${op} failed`, f.volume, `on node ${q(f.node)} : ${err}`));
        }
        break;
      }
      case 'unmountDevice': {
        const op = block(f.volume) ? 'UnmapDevice' : 'UnmountDevice';
        const stage = takeFiring(f.node, f.volume, 'unmountDevice');
        if (f.ok)
          kubelet(
            f,
            'I',
            'operation_generator.go:1024',
            volMsg(`${op} succeeded`, f.volume, `on node ${q(f.node)} `),
          );
        else
          opFailed(
            f,
            f.volume,
            volMsg(
              `${op} failed`,
              f.volume,
              `on node ${q(f.node)} : ${unmountError(stage ?? '', volumes.get(f.volume), f.volume)}`,
            ),
          );
        break;
      }
      case 'multipathFlushFailed':
        // What `multipath -f` answers for an open map; iSCSI's detach logs it and goes on.
        kubelet(f, 'E', 'multipath.go:1', `multipath -f ${f.device}: map in use`);
        break;
      case 'procMountsRead':
        if (!f.consistent)
          kubelet(
            f,
            'E',
            'reconstruct.go:1',
            `could not get consistent content of /proc/mounts after ${f.attempts} attempts`,
          );
        break;
      case 'volumeReconstruction': {
        const err = f.inconsistentRead
          ? 'could not get consistent content of /proc/mounts'
          : (f.error ?? 'failed to construct volume spec');
        if (!f.ok && f.outcome === 'failedReconstruction') {
          failedNew.add(`${f.node}\0${f.uid}\0${f.volume}`);
          kubelet(
            f,
            'I',
            'reconstruct_new.go:70',
            `"Could not construct volume information" podName=${f.uid} volumeSpecName=${q(f.volume)} err=${q(err)}`,
          );
        } else if (!f.ok && failedNew.delete(`${f.node}\0${f.uid}\0${f.volume}`)) {
          if (f.outcome === 'cleanupMounts')
            kubelet(
              f,
              'I',
              'reconstruct_new.go:170',
              `"Cleaning up mounts for volume that could not be reconstructed" podName=${f.uid} volumeSpecName=${q(f.volume)}`,
            );
        } else if (!f.ok) {
          kubelet(
            f,
            'I',
            'reconciler.go:388',
            `"Could not construct volume information, cleaning up mounts" podName=${f.uid} volumeSpecName=${q(f.volume)} err=${q(err)}`,
          );
        }
        break;
      }
      case 'volumeAttached':
        cm(
          f.atMs,
          'I',
          'operation_generator.go:413',
          volMsg('AttachVolume.Attach succeeded', f.volume, `from node ${q(f.node)}`),
        );
        break;
      case 'volumeDetachStarted':
        if (f.forced)
          cm(
            f.atMs,
            'W',
            'reconciler.go:227',
            volMsg(
              'attacherDetacher.DetachVolume started',
              f.volume,
              `on node ${q(f.node)} This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s expired, force detaching`,
            ),
          );
        break;
      case 'volumeDetached':
        cm(
          f.atMs,
          'I',
          'operation_generator.go:528',
          volMsg('DetachVolume.Detach succeeded', f.volume, `on node ${q(f.node)}`),
        );
        break;
      case 'volumeDetachFailed':
        // GenerateDetachVolumeFunc's error, as nestedpendingoperations logs the failed operation.
        cm(
          f.atMs,
          'E',
          'nestedpendingoperations.go:348',
          `Operation for "{volumeName:${uniqueName(volumes.get(f.volume), f.volume)} podName: nodeName:${f.node}}" failed. Error: ${volMsg('DetachVolume.Detach failed', f.volume, `on node ${q(f.node)} : ${f.error}`)}`,
        );
        break;
      case 'multiAttachError':
        cm(
          f.atMs,
          'W',
          'reconciler.go:346',
          volMsg(
            'Multi-Attach error',
            f.volume,
            `from node ${q(f.node)} Volume is already exclusively attached to node ${f.attachedTo.join(', ')} and can't be attached to another`,
          ),
        );
        break;
      default:
        break;
    }
  }
  return out;
}

/** The lines as a file: one per line, a newline after the last. */
export function klogText(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
