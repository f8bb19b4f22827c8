// What each fact draws on the timeline: the span it opens or closes (a container's life, a mount, a
// pod worker phase, a kill) or the instant it marks, on which component's track.
import type { Fact } from '../facts.js';
import { onStorageFact } from './storageSpans.js';
import { type ArgValue, CLUSTER_PROCESS } from './timelineModel.js';
import { type Builder, kubeletOwned, pk, tracks } from './timelineTracks.js';

export function onFact(b: Builder, f: Fact): void {
  const node = f.node === '' ? CLUSTER_PROCESS : f.node;
  const at = f.atMs;
  switch (f.kind) {
    // ---- runtime ----
    case 'sandboxCreated':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'sandbox created', 'event', at, {
        uid: f.uid,
        pod: f.pod,
      });
      return;
    case 'sandboxStopped':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'sandbox stopped', 'event', at, {
        uid: f.uid,
        pod: f.pod,
      });
      return;
    case 'containerCreated':
      b.instant(tracks.container(node, f.pod, f.uid, f.container), 'created', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        container: f.container,
      });
      return;
    case 'containerStarted': {
      const args: Record<string, ArgValue> = { uid: f.uid, pod: f.pod, container: f.container };
      if (f.staticFullname !== undefined) args['staticFullname'] = f.staticFullname;
      b.begin(
        pk('container', node, f.uid, f.container),
        tracks.container(node, f.pod, f.uid, f.container),
        f.container,
        at,
        args,
      );
      return;
    }
    case 'containerStopping':
      b.instant(tracks.container(node, f.pod, f.uid, f.container), 'SIGTERM', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        container: f.container,
        gracePeriodSeconds: f.gracePeriodSeconds,
      });
      return;
    case 'preStopHookStarted':
      b.instant(tracks.container(node, f.pod, f.uid, f.container), 'preStop hook', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        container: f.container,
      });
      return;
    case 'containerStartFailed':
      b.instant(tracks.container(node, f.pod, f.uid, f.container), 'start failed', 'error', at, {
        uid: f.uid,
        pod: f.pod,
        container: f.container,
        error: f.error,
      });
      return;
    case 'containerExited': {
      const closed = b.end(pk('container', node, f.uid, f.container), at, { exitCode: f.exitCode });
      if (closed === undefined) {
        b.instant(tracks.container(node, f.pod, f.uid, f.container), `exited (${f.exitCode})`, 'event', at, {
          uid: f.uid,
          pod: f.pod,
          container: f.container,
          exitCode: f.exitCode,
        });
      }
      return;
    }
    case 'containerRemoved':
      b.instant(tracks.container(node, f.pod, f.uid, f.container), 'removed', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        container: f.container,
      });
      return;
    case 'killPodStarted':
      b.begin(
        `${kubeletOwned(node)}${JSON.stringify(['kill', f.uid])}]`,
        tracks.kill(node, f.pod, f.uid),
        'KillPod',
        at,
        { uid: f.uid, pod: f.pod, gracePeriodSeconds: f.gracePeriodSeconds, source: f.source },
      );
      return;
    case 'podKillDispatched':
      b.instant(tracks.kill(node, f.pod, f.uid), 'kill handed to the pod worker', 'event', at, {
        uid: f.uid,
        pod: f.pod,
      });
      return;
    case 'killPodFinished':
      if (b.end(`${kubeletOwned(node)}${JSON.stringify(['kill', f.uid])}]`, at) === undefined) {
        b.instant(tracks.kill(node, f.pod, f.uid), 'KillPod finished', 'event', at, {
          uid: f.uid,
          pod: f.pod,
        });
      }
      return;
    case 'unmountWaitIgnoredUncertain':
      b.instant(
        tracks.podWorker(node, f.pod, f.uid),
        'WaitForUnmount ignored uncertain mounts',
        'event',
        at,
        {
          uid: f.uid,
          pod: f.pod,
          volumes: f.volumes.join(', '),
        },
      );
      return;
    case 'terminatedPodVolumeKeptDesired':
      b.instant(
        tracks.podWorker(node, f.pod, f.uid),
        f.kept
          ? "desired state keeps a terminated pod's volume"
          : "desired state drops a terminated pod's volume",
        'event',
        at,
        { uid: f.uid, pod: f.pod, volume: f.volume },
      );
      return;
    case 'podVolumesExistMissedBlockMap':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'podVolumesExist missed a Block map', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        volume: f.volume,
      });
      return;
    case 'podCgroupDestroyed':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'pod cgroup destroyed', 'event', at, {
        uid: f.uid,
        pod: f.pod,
      });
      return;
    // ---- kubelet ----
    case 'podTerminated':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'treated as terminated', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        reason: f.reason,
      });
      return;
    case 'podWorkerPhase': {
      const key = `${kubeletOwned(node)}${JSON.stringify(['worker', f.uid])}]`;
      const current = b.peek(key);
      if (current !== undefined && current.name === f.phase) return;
      b.end(key, at);
      if (f.phase === 'finished') {
        b.instant(tracks.podWorker(node, f.pod, f.uid), 'finished', 'event', at, { uid: f.uid, pod: f.pod });
        return;
      }
      b.begin(key, tracks.podWorker(node, f.pod, f.uid), f.phase, at, { uid: f.uid, pod: f.pod });
      return;
    }
    case 'podFinishedOnFirstSight':
      b.instant(
        tracks.podWorker(node, f.pod, f.uid),
        'finished on first sight: no SyncTerminatedPod',
        'error',
        at,
        {
          uid: f.uid,
          pod: f.pod,
        },
      );
      return;
    case 'podRemoveDropped':
      b.instant(tracks.podWorker(node, f.pod, f.uid), "REMOVE dropped: sources aren't ready", 'error', at, {
        uid: f.uid,
        pod: f.pod,
      });
      return;
    case 'gracePeriodFellBack':
      b.instant(
        tracks.podWorker(node, f.pod, f.uid),
        `grace ${f.fromSeconds}s -> ${f.toSeconds}s: a ${f.cause} of 0 fell back to the spec`,
        'error',
        at,
        { uid: f.uid, pod: f.pod },
      );
      return;
    case 'staticPodStartedBesideOrphan':
      b.instant(
        tracks.podWorker(node, f.pod, f.uid),
        'started beside an orphan of its fullname',
        'error',
        at,
        {
          uid: f.uid,
          pod: f.pod,
          orphanUid: f.orphanUid,
        },
      );
      return;
    case 'podAdmitted':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'admitted', 'event', at, { uid: f.uid, pod: f.pod });
      return;
    case 'podRejected':
      b.instant(tracks.podWorker(node, f.pod, f.uid), `rejected: ${f.message}`, 'error', at, {
        uid: f.uid,
        pod: f.pod,
        reason: f.reason,
      });
      return;
    case 'rejectedPodKilledAsOrphan':
      b.instant(
        tracks.podWorker(node, f.pod, f.uid),
        'rejected pod killed as an orphaned runtime pod (1 s)',
        'error',
        at,
        { uid: f.uid, pod: f.pod },
      );
      return;
    case 'rejectedPodCountedActive':
      b.instant(
        tracks.podWorker(node, f.pod, f.uid),
        `admission counted rejected pod ${f.countedPod} as terminating`,
        'error',
        at,
        { uid: f.uid, pod: f.pod, countedUid: f.countedUid },
      );
      return;
    case 'podTerminationRequested':
      b.instant(tracks.podWorker(node, f.pod, f.uid), 'termination requested', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        reason: f.reason,
      });
      return;
    case 'kubeletStarted':
      b.end(pk('kubeletDown', node), at);
      b.begin(pk('kubelet', node), tracks.kubelet(node), 'kubelet up', at);
      return;
    case 'kubeletStopped':
      b.end(pk('kubelet', node), at);
      b.endAll(kubeletOwned(node), at, { interrupted: 'kubelet stopped' });
      b.instant(tracks.kubelet(node), 'kubelet stopped', 'event', at);
      // Until it starts again nothing runs the pod workers or the volume manager: a window of its own.
      b.begin(pk('kubeletDown', node), tracks.kubelet(node), 'kubelet down', at);
      return;
    case 'kubeletPanic':
      b.instant(tracks.kubelet(node), `panic in ${f.component}`, 'error', at, {
        component: f.component,
        message: f.message,
      });
      return;
    // ---- API server ----
    case 'apiPodCreated':
      b.begin(pk('api', f.uid), tracks.api(f.pod, f.uid), f.static ? 'static pod' : 'pod object', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        static: f.static,
        restartPolicy: f.restartPolicy,
      });
      return;
    case 'apiPodDeletionRequested':
      b.instant(tracks.api(f.pod, f.uid), 'deletion requested', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        gracePeriodSeconds: f.gracePeriodSeconds,
      });
      return;
    case 'podDeletionDelivered':
      b.instant(tracks.api(f.pod, f.uid), 'deletion delivered to the kubelet', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        gracePeriodSeconds: f.gracePeriodSeconds,
      });
      return;
    case 'podEvictionRequested':
      b.instant(tracks.api(f.pod, f.uid), 'eviction requested', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        gracePeriodSeconds: f.gracePeriodSeconds,
      });
      return;
    case 'apiPodDeleted':
      b.end(pk('api', f.uid), at, { deletedBy: f.by });
      b.instant(tracks.api(f.pod, f.uid), `deleted by ${f.by}`, 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        by: f.by,
      });
      return;
    case 'mirrorPod':
      // On the static pod's API track: the mirror pod is the API's view of it.
      b.instant(tracks.api(f.pod, f.staticUid), `mirror pod ${f.op}`, 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        staticUid: f.staticUid,
      });
      return;
    case 'apiPodPhase': {
      const args: Record<string, ArgValue> = {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        phase: f.phase,
        restartable: f.restartable,
      };
      if (f.reason !== undefined) args['reason'] = f.reason;
      b.instant(tracks.api(f.pod, f.uid), `phase ${f.phase}`, 'event', at, args);
      return;
    }
    case 'apiContainerStates':
      b.instant(tracks.api(f.pod, f.uid), 'container states', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        node: f.node,
        containers: f.containers
          .map((c) => `${c.name}=${c.state}${c.state === 'terminated' ? `(${c.exitCode ?? 0})` : ''}`)
          .join(' '),
      });
      return;
    case 'nodeShutdownStarted':
      b.instant(tracks.kubelet(node), 'node shutdown started', 'event', at);
      return;
    case 'nodeVolumesInUse':
      b.instant(tracks.kubelet(node), 'volumesInUse', 'event', at, { volumes: f.volumes.join(', ') });
      return;
    case 'nodeVolumesAttached':
      b.instant(tracks.kubelet(node), 'volumesAttached', 'event', at, { volumes: f.volumes.join(', ') });
      return;
    case 'nodeStatusRead':
      b.instant(tracks.kubelet(node), 'node read by attach/detach controller', 'event', at, {
        volumesInUse: f.volumesInUse.join(', '),
      });
      return;
    // ---- scenario actions ----
    case 'actionNoop': {
      const args: Record<string, ArgValue> = { action: f.action, reason: f.reason };
      if (f.line > 0) args['line'] = f.line;
      if (f.pod !== undefined) args['pod'] = f.pod;
      if (f.volume !== undefined) args['volume'] = f.volume;
      if (f.fault !== undefined) args['fault'] = f.fault;
      b.instant(tracks.actions(node), `${f.fault ?? f.action} did nothing`, 'event', at, args);
      return;
    }
    case 'podCreateWaiting':
      b.instant(tracks.actions(node), `createPod ${f.pod} waits`, 'event', at, {
        pod: f.pod,
        heldBy: f.heldBy,
        reason: f.reason,
        ...(f.line > 0 ? { line: f.line } : {}),
      });
      return;
    // ---- faults ----
    case 'faultInjected': {
      const args: Record<string, ArgValue> = { fault: f.fault };
      if (f.volume !== undefined) args['volume'] = f.volume;
      if (f.pod !== undefined) args['pod'] = f.pod;
      if (f.delayMs !== undefined) args['delayMs'] = f.delayMs;
      if (f.error !== undefined) args['error'] = f.error;
      b.instant(tracks.faults(node), `fault ${f.fault}`, 'fault', at, args);
      return;
    }
    default:
      onStorageFact(b, f, node);
      return;
  }
}
