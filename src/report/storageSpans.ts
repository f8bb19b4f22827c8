// What the storage facts draw: the kubelet's volume operations as marks on the volume's kubelet track (the
// states they leave are beliefTruth.ts's spans), what the host did to a device on its host track, LUN
// access, the attach/detach controller, and volume reconstruction after a kubelet start on its own track:
// a span from start to finish, one per volume up to its outcome, and the /proc/mounts reads in it.
import type { Fact } from '../facts.js';
import type { ArgValue } from './timelineModel.js';
import { type Builder, pk, tracks } from './timelineTracks.js';

export function onStorageFact(b: Builder, f: Fact, node: string): void {
  const at = f.atMs;
  switch (f.kind) {
    // ---- the kubelet's volume operations ----
    case 'volumeSetUp':
      b.instant(tracks.volume(node, f.pod, f.uid, f.volume), 'SetUp', 'event', at, {
        uid: f.uid,
        pod: f.pod,
        volume: f.volume,
      });
      return;
    case 'volumeTearDown':
      b.instant(
        tracks.volume(node, f.pod, f.uid, f.volume),
        f.ok ? 'TearDown' : 'TearDown failed',
        f.ok ? 'event' : 'error',
        at,
        { uid: f.uid, pod: f.pod, volume: f.volume, ok: f.ok },
      );
      return;
    case 'mountDevice':
    case 'unmountDevice': {
      const name = f.kind === 'mountDevice' ? 'MountDevice' : 'UnmountDevice';
      b.instant(tracks.device(node, f.volume), f.ok ? name : `${name} failed`, f.ok ? 'event' : 'error', at, {
        volume: f.volume,
        ok: f.ok,
      });
      return;
    }
    case 'deviceInUseAfterUnmount':
      b.instant(tracks.device(node, f.volume), 'device in use after unmount', 'error', at, {
        volume: f.volume,
      });
      return;
    case 'bindMountOfUnmountedGlobalPath':
      b.instant(
        tracks.volume(node, f.pod, f.uid, f.volume),
        'SetUp bind-mounted an unmounted global path',
        'error',
        at,
        { uid: f.uid, pod: f.pod, volume: f.volume },
      );
      return;
    // ---- what the host did to the device ----
    case 'lunAccessOpened':
      b.begin(
        pk('lun', node, f.volume),
        tracks.lun(node, f.volume),
        f.readWrite ? 'read-write' : 'read-only',
        at,
        { volume: f.volume, readWrite: f.readWrite },
      );
      return;
    case 'lunAccessClosed':
      if (b.end(pk('lun', node, f.volume), at) === undefined) {
        b.instant(tracks.lun(node, f.volume), 'access closed', 'event', at, { volume: f.volume });
      }
      return;
    case 'lunFenced':
      b.instant(tracks.lun(node, f.volume), f.fenced ? 'fenced' : 'unfenced', 'event', at, {
        volume: f.volume,
        fenced: f.fenced,
      });
      return;
    case 'hostDevices': {
      // One span per state of the LUN's devices on the node, while it has any.
      const key = pk('hostDevices', node, f.volume);
      const name = `${f.scsiPaths} path${f.scsiPaths === 1 ? '' : 's'}, ${f.multipathMaps} map${f.multipathMaps === 1 ? '' : 's'}`;
      const args = { volume: f.volume, scsiPaths: f.scsiPaths, multipathMaps: f.multipathMaps };
      const open = b.peek(key);
      const any = f.scsiPaths + f.multipathMaps > 0;
      // A rescan finds the paths and multipathd assembles the map within one millisecond: one span.
      if (open !== undefined && open.startMs === at && any) {
        open.name = name;
        open.args = args;
        return;
      }
      b.end(key, at);
      if (any) b.begin(key, tracks.deviceState(node, f.volume), name, at, args);
      return;
    }
    case 'deviceResidue': {
      const leaked = f.scsiPaths > 0 || f.multipathMaps > 0;
      b.instant(
        tracks.deviceHost(node, f.volume),
        leaked ? 'device residue' : 'devices clean',
        leaked ? 'error' : 'event',
        at,
        { volume: f.volume, scsiPaths: f.scsiPaths, multipathMaps: f.multipathMaps },
      );
      return;
    }
    case 'mountStacked':
      b.instant(tracks.deviceHost(node, f.volume), 'mount stacked', 'error', at, {
        volume: f.volume,
        path: f.path,
        device: f.device,
      });
      return;
    case 'deviceReleased':
      b.instant(
        tracks.deviceHost(node, f.volume),
        f.holders > 0 ? `${f.action} while open` : f.action,
        f.holders > 0 ? 'error' : 'event',
        at,
        {
          volume: f.volume,
          device: f.device,
          holders: f.holders,
          mounts: f.mounts,
          pods: f.pods.join(', '),
          hostProcess: f.hostProcess,
        },
      );
      return;
    case 'fcDetachRetryExhausted':
      b.instant(tracks.deviceHost(node, f.volume), 'FC detach retry exhausted', 'error', at, {
        volume: f.volume,
        device: f.device,
      });
      return;
    case 'multipathFlushFailed':
      b.instant(
        tracks.deviceHost(node, f.volume),
        f.fellThrough ? 'multipath -f failed, fell through' : 'multipath -f failed',
        'error',
        at,
        { volume: f.volume, device: f.device, fellThrough: f.fellThrough },
      );
      return;
    case 'iscsiLogout':
    case 'iscsiLogoutSkipped':
      b.instant(
        tracks.deviceHost(node, f.volume),
        f.kind === 'iscsiLogout' ? 'iSCSI logout' : 'iSCSI logout skipped: session busy',
        f.kind === 'iscsiLogoutSkipped' && f.block ? 'error' : 'event',
        at,
        { volume: f.volume, block: f.block },
      );
      return;
    // ---- attach/detach controller ----
    case 'volumeAttached':
      b.begin(pk('adc', f.volume, f.node), tracks.adc(f.volume, f.node), 'attached', at, {
        volume: f.volume,
        node: f.node,
      });
      return;
    case 'volumeDetached':
      if (b.end(pk('adc', f.volume, f.node), at, { forced: f.forced }) === undefined) {
        b.instant(tracks.adc(f.volume, f.node), f.forced ? 'force-detached' : 'detached', 'event', at, {
          volume: f.volume,
          node: f.node,
          forced: f.forced,
        });
      }
      return;
    case 'multiAttachError':
      b.instant(tracks.adc(f.volume, f.node), 'Multi-Attach error', 'error', at, {
        volume: f.volume,
        node: f.node,
        attachedTo: f.attachedTo.join(', '),
      });
      return;
    case 'volumeAttachUncertain':
      b.instant(tracks.adc(f.volume, f.node), 'attach uncertain', 'error', at, {
        volume: f.volume,
        node: f.node,
        error: f.error,
      });
      return;
    case 'volumeDetachStarted':
      b.instant(
        tracks.adc(f.volume, f.node),
        f.forced ? 'force detach started' : 'detach started',
        'event',
        at,
        { volume: f.volume, node: f.node, forced: f.forced, verifySafeToDetach: f.verifySafeToDetach },
      );
      return;
    case 'volumeDetachFailed':
      b.instant(tracks.adc(f.volume, f.node), 'detach failed', 'error', at, {
        volume: f.volume,
        node: f.node,
        error: f.error,
      });
      return;
    default:
      onReconstructionFact(b, f, node);
  }
}

/** Reconstruction on its track: the whole of syncStates, each volume up to its outcome, its reads. */
function onReconstructionFact(b: Builder, f: Fact, node: string): void {
  const at = f.atMs;
  const track = tracks.reconstruction(node);
  const volumeKey = pk('reconstructionVolume', node);
  switch (f.kind) {
    case 'reconstructionStarted':
      // A start that finds no volume dir is no news (every kubelet start has one).
      if (f.volumeDirs === 0) return;
      b.begin(pk('syncStates', node), track, `reconstruction: ${f.volumeDirs} volume dir(s)`, at, {
        volumeDirs: f.volumeDirs,
      });
      // The first volume's reconstruction runs from the start.
      b.mark(volumeKey, at);
      return;
    case 'reconstructionFinished': {
      b.end(pk('syncStates', node), at, { unreconstructedDevices: f.unreconstructedDevices.join(', ') });
      for (const volume of f.unreconstructedDevices) {
        b.instant(tracks.deviceHost(node, volume), 'still mounted, in no state', 'error', at, { volume });
      }
      for (const m of f.unreconstructedPodMaps) {
        b.instant(tracks.deviceHost(node, m.volume), 'pod map reference in no state', 'error', at, {
          volume: m.volume,
          uid: m.uid,
        });
      }
      return;
    }
    case 'volumeReconstruction': {
      // Each volume from where the previous one ended to its outcome, nested in syncStates' span.
      const from = b.marked(volumeKey) ?? at;
      const args: Record<string, ArgValue> = {
        volume: f.volume,
        pod: f.pod,
        uid: f.uid,
        mode: f.mode,
        ok: f.ok,
        outcome: f.outcome,
        podKnown: f.podKnown,
      };
      if (f.error !== undefined) args['error'] = f.error;
      const name = `${f.volume}: ${f.ok ? '' : 'FAILED -> '}${f.outcome}`;
      b.begin(volumeKey, track, name, from, args);
      b.end(volumeKey, at);
      b.mark(volumeKey, at);
      return;
    }
    case 'procMountsRead': {
      // A read in syncStates is one of its steps; elsewhere only the reads that met an inconsistency.
      const inReconstruction = b.peek(pk('syncStates', node)) !== undefined;
      if (!inReconstruction && f.consistent && f.attempts === 1) return;
      b.instant(
        inReconstruction ? track : tracks.faults(node),
        f.consistent
          ? `/proc/mounts read${f.attempts > 1 ? ` consistent after ${f.attempts}` : ''}`
          : `/proc/mounts inconsistent after ${f.attempts}`,
        f.consistent ? 'event' : 'error',
        at,
        { purpose: f.purpose, attempts: f.attempts, consistent: f.consistent },
      );
      return;
    }
    default:
      return;
  }
}
