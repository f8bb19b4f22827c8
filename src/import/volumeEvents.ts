// The volume events of an imported log (infer.ts): the operation executor's mounts, unmounts, maps and
// their failures, reconstruction after a restart, devices still in use, and the attach/detach controller's
// Multi-Attach errors and forced detaches. Failures become faults; a success closes them. Pure.
import { pvcLookupDefaultError } from '../cluster/scenarioFaults.js';
import { LIMITS } from '../scenario/limits.js';
import type { UnmountDeviceStage } from '../scenario/types.js';
import { DEFAULT_LATENCIES } from '../storage/common.js';
import type { LogEvent } from './events.js';
import { unmountStage } from './hints.js';
import type { ImportState, PvcLookupEntry, Reading } from './importState.js';

/** A claim read this soon after the kubelet process started is the new process's first read of it. */
const PVC_FIRST_LOOKUP_MS = 30_000;
/** The longest ControllerUnpublishVolume round trip the simulated array takes (a detach's Detach call). */
const CONTROLLER_UNPUBLISH_MS = DEFAULT_LATENCIES.controllerPublish[1];

type VolumeEvent = Extract<
  LogEvent,
  {
    kind:
      | 'volumeOp'
      | 'reconstructFailed'
      | 'inconsistentMounts'
      | 'mapInUse'
      | 'deviceStillOpen'
      | 'orphanVolumePaths'
      | 'pvcLookupFailed'
      | 'multiAttach'
      | 'forceDetach';
  }
>;

export function readVolumeEvent(s: ImportState, ev: VolumeEvent, { r, seq, t, node }: Reading): void {
  switch (ev.kind) {
    case 'volumeOp': {
      const nodeName = ev.node !== '' ? s.namedNode(ev.node) : (node?.name ?? s.namedNode('node-a'));
      const vol = s.volumes.see(ev.volume, ev.uniqueName, r, ev.op);
      if (ev.pod !== null && node !== null && ev.op !== 'attach' && ev.op !== 'detach') {
        const p = s.podFor(ev.pod, r, seq);
        if (!p.volumes.includes(vol)) p.volumes.push(vol);
        // Its containers start once every volume is set up (WaitForAttachAndMount).
        if (ev.ok && (ev.op === 'setUp' || ev.op === 'mapPodDevice') && p.startedIds.size === 0)
          p.readyAtMs = Math.max(p.readyAtMs, t);
      }
      const ns = node ?? s.nodes.get(nodeName)!;
      if (ev.op === 'unmountDevice' || ev.op === 'unmapDevice') {
        const pending = ns.pending.splice(0);
        // `map in use` and then an UnmountDevice that succeeds: the kubelet went on past a refused flush
        // while something held the device open (PR #107789's race), not a flush it retried.
        for (const pend of pending) {
          const stage = ev.ok && pend.stage === 'multipathFlushBusy' ? 'deviceStillOpen' : pend.stage;
          s.faultEntry(vol, nodeName, stage, pend.records, null);
        }
        // A failure right after `map in use` lines is the one they made fail: their count is the fault's.
        if (!ev.ok && pending.length === 0)
          s.faultEntry(vol, nodeName, unmountStage(ev.error).value, [r], unmountStage(ev.error).guess);
        else {
          s.volumes.lastUnmount.set(`${nodeName}/${vol}`, t);
          s.closeFaults(`unmountDevice/${nodeName}/${vol}/`);
        }
      } else if (ev.ok) {
        const kind = ev.op === 'tearDown' || ev.op === 'unmapPodDevice' ? 'tearDown' : 'mountDevice';
        if (ev.op !== 'setUp' && ev.op !== 'waitForAttach') s.closeFaults(`${kind}/${nodeName}/${vol}`);
        if (ev.op === 'setUp' || ev.op === 'mapPodDevice') {
          s.closeFaults(`setUp/${nodeName}/${vol}`);
          s.lastSetUp.set(`${nodeName}/${vol}`, t);
        }
        // A staging or set-up that went through: WaitForAttach, which runs before them, did too. (The
        // `waitForAttach` events that succeed include every "MountVolume started" line: not a success.)
        if (ev.op !== 'waitForAttach' && ev.op !== 'attach' && ev.op !== 'detach')
          s.closeFaults(`waitForAttach/${nodeName}/${vol}`);
        if (ev.op === 'detach') s.closeFaults(`detach/${nodeName}/${vol}`);
      } else if (!ev.ok && ev.op === 'detach' && s.volumes.pluginOf(vol) === 'csi') {
        // The controller's DetachVolume.Detach failed: the VolumeAttachment's detachError (csi_attacher.go
        // Detach). Whether ControllerUnpublishVolume had fenced the node first the log does not say:
        // #120571's case (the unpublish went through, its answer was lost) is the guess. Armed before the
        // Detach call that failed, which ControllerUnpublish took up to CONTROLLER_UNPUBLISH_MS of.
        const e = s.mergeFault(`detach/${nodeName}/${vol}`, r, t - CONTROLLER_UNPUBLISH_MS, seq, () => ({
          kind: 'detach',
          node: nodeName,
          volume: vol,
          stage: 'afterDetach',
          times: 1,
        }));
        e?.notes.push('guess: the unpublish went through before the error (afterDetach)');
      } else if (!ev.ok && ev.op === 'waitForAttach') {
        // MountVolume.WaitForAttach failed (upstream #110670's CSI driver not registered yet, an iSCSI
        // portal that does not answer): the plugin's own error; the logged text is not replayed.
        s.mergeFault(`waitForAttach/${nodeName}/${vol}`, r, t, seq, () => ({
          kind: 'waitForAttach',
          node: nodeName,
          volume: vol,
          times: 1,
          error: null,
          delayMs: null,
        }));
      } else if (!ev.ok && (ev.op === 'setUp' || ev.op === 'mapPodDevice')) {
        // MountVolume.SetUp / MapVolume.MapPodDevice failed: CSI's DeadlineExceeded (or Unavailable) is
        // not final, so the mount was marked uncertain; anything else is final.
        const uncertain = /code = (?:DeadlineExceeded|Unavailable|Canceled|ResourceExhausted|Aborted)/.test(
          ev.error,
        );
        s.mergeFault(`setUp/${nodeName}/${vol}`, r, t, seq - 0.1, () => ({
          kind: 'setUp',
          node: nodeName,
          volume: vol,
          times: 1,
          error: uncertain ? 'uncertain' : 'final',
        }));
      } else if (!ev.ok && (ev.op === 'tearDown' || ev.op === 'unmapPodDevice')) {
        s.mergeFault(`tearDown/${nodeName}/${vol}`, r, t, seq, () => ({
          kind: 'tearDown',
          node: nodeName,
          volume: vol,
          times: 1,
          delayMs: null,
        }));
      } else if (!ev.ok && (ev.op === 'mountDevice' || ev.op === 'mapDevice')) {
        const uncertain = /Unavailable|DeadlineExceeded/.test(ev.error) && s.volumes.pluginOf(vol) === 'csi';
        s.mergeFault(`mountDevice/${nodeName}/${vol}`, r, t, seq, () => ({
          kind: 'mountDevice',
          node: nodeName,
          volume: vol,
          delayMs: null,
          error: uncertain ? 'uncertain' : 'final',
          times: 1,
        }));
      } else if (!ev.ok)
        s.observed.push({ record: r, note: `${ev.op} failed: no fault of podrace makes it fail` });
      break;
    }
    case 'reconstructFailed': {
      const n = node ?? s.nodeOf(r);
      s.preludeRestart(n, r);
      const vol = s.volumes.see(ev.volume, '', r, null);
      let p = ev.uid === '' ? undefined : s.find({ namespace: '', name: '', uid: ev.uid });
      if (p === undefined) {
        // Structured ADDs print no UID: the one pod of the node whose UID is unknown is the one.
        const unknown = [...s.pods.values()].filter((q) => q.alive && q.node === n.name && q.uid === '');
        if (unknown.length === 1 && ev.uid !== '') {
          p = unknown[0]!;
          s.setUid(p, ev.uid);
        }
      }
      if (p !== undefined && !p.volumes.includes(vol)) p.volumes.push(vol);
      const armAt = n.restartAtMs;
      const armSeq = n.restartSeq - 0.1;
      const name = n.name;
      const procMounts = /\/proc\/mounts|consistent/.test(ev.error);
      // Only FC and iSCSI read /proc/mounts to reconstruct (CSI reads vol_data.json).
      if (procMounts)
        s.volumes.guessPlugin(
          vol,
          'iscsi',
          'plugin iscsi: reconstruction read /proc/mounts, as FC and iSCSI do',
        );
      const key = procMounts ? `procMounts/${name}` : `constructVolumeSpec/${name}/${vol}`;
      // reconstruct.go logs the inconsistent read itself too ("could not get consistent content of
      // /proc/mounts after 3 attempts"): one read failed, whichever of its two lines a log kept.
      const sameRead = procMounts && (s.lastInconsistentAtMs.get(name) ?? Number.NaN) === r.timeMs;
      s.mergeFault(
        key,
        r,
        armAt,
        armSeq,
        (times) =>
          procMounts
            ? { kind: 'procMounts', node: name, inconsistentReads: 3 * times }
            : { kind: 'constructVolumeSpec', node: name, volume: vol },
        !sameRead,
      );
      break;
    }
    case 'inconsistentMounts': {
      const n = node ?? s.nodeOf(r);
      s.preludeRestart(n, r);
      const name = n.name;
      s.lastInconsistentAtMs.set(name, r.timeMs);
      s.mergeFault(`procMounts/${name}`, r, n.restartAtMs, n.restartSeq - 0.1, (times) => ({
        kind: 'procMounts',
        node: name,
        inconsistentReads: 3 * times,
      }));
      break;
    }
    case 'mapInUse':
    case 'deviceStillOpen': {
      const n = node ?? s.nodeOf(r);
      const stage: UnmountDeviceStage = ev.kind === 'mapInUse' ? 'multipathFlushBusy' : 'deviceStillOpen';
      const last = n.pending[n.pending.length - 1];
      if (last?.stage === stage) last.records.push(r);
      else n.pending.push({ stage, records: [r] });
      break;
    }
    case 'orphanVolumePaths':
      s.preludeRestart(node ?? s.nodeOf(r), r);
      s.observed.push({ record: r, note: `orphaned pod ${ev.uid}: volume paths still on disk` });
      break;
    case 'pvcLookupFailed': {
      // The populator could not read the pod's claim (or its volume) from the API server: failures for
      // one claim on one node make one fault, armed just before the first; which scenario volume the
      // claim is, is settled once the whole log was read (ImportState.claimVolumes).
      const n = node ?? s.nodeOf(r);
      const p = ev.pod === null ? undefined : s.podFor(ev.pod, r, seq);
      const name = n.name;
      const claim = s.claimVolume(ev, name, p, r);
      // A new process's first lookups (upstream #120150: the kubelet restarted while the API server was
      // unreachable): armed at the restart, as the replayed kubelet may read the claim sooner after it.
      const first = n.startedAtMs >= 0 && t - n.startedAtMs <= PVC_FIRST_LOOKUP_MS;
      let extra = () => 0;
      const armAt = first ? n.restartAtMs : t;
      const armSeq = first ? n.restartSeq + 0.1 : seq - 0.1;
      const entry = s.mergeFault(claim.key, r, armAt, armSeq, (times) => {
        const volume = claim.volume();
        return {
          kind: 'pvcLookup',
          node: name,
          volume,
          times: times + extra(),
          error: ev.error === pvcLookupDefaultError(volume) ? null : ev.error.slice(0, LIMITS.errorChars),
        };
      });
      if (entry !== null) {
        if (claim.lookup !== null) claim.lookup.notes = entry.notes;
        const pf: PvcLookupEntry = { node: name, volume: claim.volume, entry, extra: 0 };
        s.pvcFaults.push(pf);
        extra = () => pf.extra;
      }
      break;
    }
    case 'multiAttach': {
      const vol = s.volumes.see(ev.volume, '', r, null);
      s.volumes.rwo(vol, r);
      if (ev.node !== '') s.namedNode(ev.node);
      if (ev.attachedTo !== '') s.namedNode(ev.attachedTo);
      s.observed.push({ record: r, note: `Multi-Attach error for ${vol}` });
      break;
    }
    case 'forceDetach':
      s.volumes.see(ev.volume, '', r, null);
      if (ev.node !== '') s.namedNode(ev.node);
      s.observed.push({ record: r, note: `force detach of ${ev.volume} after maxWaitForUnmountDuration` });
      break;
  }
}
