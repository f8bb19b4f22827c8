// The kubelet's actual state of world beside the node's mount table, per device and pod volume, and where
// they disagree: issue #100182's find (csi-nodeunstage-timeout, seed 1, before PR #100183) is the gap.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { buildTimeline, type Span, type Timeline } from '../../src/report/spans.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fact, sampleResult } from './fixtures.js';

const spansOf = (t: Timeline, label: string, node = 'node-a'): Span[] => {
  const ids = new Set(t.tracks.filter((tr) => tr.label === label && tr.process === node).map((tr) => tr.id));
  return t.spans.filter((s) => ids.has(s.track));
};
const brief = (s: Span) => [s.name, s.startMs, s.endMs, s.open];

describe('belief beside truth', () => {
  const scenario = loadScenarioFile('scenarios/csi-nodeunstage-timeout.yaml');
  const run = (fixes: Fixes) => buildTimeline(runScenario(scenario, { fixes, seed: 1, recordFacts: true }));

  it('before #100183: the kubelet believes the staging path mounted after NodeUnstage unmounted it', () => {
    const t = run(Fixes.none());
    expect(spansOf(t, 'device vol-1: kubelet (actual state)').map(brief)).toEqual([
      ['DeviceGloballyMounted', 11_477, 180_000, true],
    ]);
    expect(spansOf(t, 'device vol-1: host (mount table)').map(brief)).toEqual([
      ['global mount', 11_477, 16_310, false],
    ]);
    expect(spansOf(t, 'device vol-1: kubelet \u2260 host').map(brief)).toEqual([
      ['kubelet: DeviceGloballyMounted; host: not mounted', 16_310, 180_000, true],
    ]);
    // db2's SetUp bound the hollow staging dir: the kubelet has it mounted, the node has no mount of the LUN.
    expect(spansOf(t, 'pod db2 (db2-1) volume vol-1: kubelet \u2260 host').map(brief)).toEqual([
      ['kubelet: VolumeMounted; host: not mounted', 17_510, 180_000, true],
    ]);
    expect(spansOf(t, 'pod db1 (db1-1) volume vol-1: host').map(brief)).toEqual([
      ['mounted', 11_495, 16_212, false],
    ]);
  });

  it("draws the LUN's SCSI paths and maps on the node beside them", () => {
    const r = runScenario(loadScenarioFile('scenarios/fc-unmount-retry-window.yaml'), {
      fixes: Fixes.none(),
      recordFacts: true,
    });
    const t = buildTimeline(r);
    // The rescan and multipathd within one millisecond: one span. FC's DetachDisk gave up: they stay.
    expect(spansOf(t, 'device lun-1: host (SCSI paths, multipath maps)').map(brief)).toEqual([
      ['2 paths, 1 map', 10_386, 360_000, true],
    ]);
  });

  it('with #100183 the failed UnmountDevice leaves the device uncertain, and nothing disagrees', () => {
    const t = run(Fixes.all());
    const belief = spansOf(t, 'device vol-1: kubelet (actual state)').map((s) => s.name);
    expect(belief.slice(0, 2)).toEqual(['DeviceGloballyMounted', 'DeviceMountUncertain']);
    expect(t.spans.filter((s) => s.cat === 'deviceMismatch' || s.cat === 'volumeMismatch')).toEqual([]);
  });

  it('a kubelet restart: no state while it is down, reconstruction, then what syncStates put back', () => {
    const r = runScenario(loadScenarioFile('scenarios/fc-kubelet-restart-reconstruct-procmounts.yaml'), {
      fixes: Fixes.none(),
      recordFacts: true,
    });
    const t = buildTimeline(r);
    const belief = spansOf(t, 'device lun-1: kubelet (actual state)').map((s) => s.name);
    expect(belief).toEqual(['DeviceGloballyMounted', 'kubelet down: no state', 'reconstructing']);
    // The pod's volume was left to the reconciler, which tore it down (the orphan's teardown, #110682).
    expect(spansOf(t, 'pod db1 (db1-1) volume lun-1: kubelet').map((s) => s.name)).toEqual([
      'VolumeMounted',
      'kubelet down: no state',
      'reconstructing',
      'left to the reconciler',
    ]);
    // Reconstruction failed (cleanupMounts): the global mount stays, in no state of the kubelet (#101791).
    const mismatch = spansOf(t, 'device lun-1: kubelet \u2260 host');
    expect(mismatch.map((s) => s.name)).toEqual([
      'kubelet: not mounted; host: mounted at /var/lib/kubelet/plugins/kubernetes.io/fc/50060e801049cfd1-lun-0',
    ]);
    const down = t.spans.filter((s) => s.name === 'kubelet down');
    expect(down.length).toBeGreaterThan(0);
    expect(mismatch[0]?.startMs).toBeGreaterThan(down[0]?.endMs ?? Number.POSITIVE_INFINITY);
    // The reconstruction track: syncStates, each volume up to its outcome, the /proc/mounts reads.
    const rec = spansOf(t, 'volume reconstruction').map((s) => s.name);
    expect(rec).toContain('reconstruction: 1 volume dir(s)');
    expect(rec).toContain('lun-1: FAILED -> cleanupMounts');
    const reads = t.instants.filter((i) => i.name.startsWith('/proc/mounts'));
    expect(reads.length).toBeGreaterThan(0);
  });

  it('a mount that goes while the operation still runs is no disagreement until it returns', () => {
    const p = { pod: 'web', uid: 'web-1' };
    const path = '/var/lib/kubelet/plugins/x/globalmount';
    const facts = [
      fact('kubeletStarted', 0, {}),
      fact('reconstructionStarted', 5, { volumeDirs: 0 }),
      fact('reconstructionFinished', 5, {
        unreconstructedDevices: [],
        unreconstructedPodMaps: [],
        podDirVolumes: [],
      }),
      fact('hostMount', 10, { volume: 'data', path, mounted: true, scope: 'global' }),
      fact('mountDevice', 10, { volume: 'data', ok: true }),
      fact('volumeSetUp', 20, { ...p, volume: 'data' }),
      fact('hostMount', 100, { volume: 'data', path, mounted: false, scope: 'global' }),
      // The detach retries for a while; the kubelet learns the outcome only here.
      fact('unmountDevice', 900, { volume: 'data', ok: true }),
    ];
    const t = buildTimeline(sampleResult({ facts, violations: [], virtualTimeMs: 1000 }));
    expect(t.spans.filter((s) => s.cat === 'deviceMismatch')).toEqual([]);
    expect(spansOf(t, 'device data: kubelet (actual state)').map(brief)).toEqual([
      ['DeviceGloballyMounted', 10, 900, false],
    ]);
    // The pod's volume: mounted as the kubelet believes, but the node has no mount of it for the pod.
    expect(spansOf(t, 'pod web (web-1) volume data: kubelet \u2260 host').map(brief)).toEqual([
      ['kubelet: VolumeMounted; host: not mounted', 20, 1000, true],
    ]);
  });
});
