// Known-open upstream hazards are recognised by their mechanism: a violation is excused only when the
// fact its upstream site publishes is tied to it (same node, pod or volume, before it). The same
// invariant with another cause stays unexplained.
import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/facts.js';
import { Fixes, type KubeletName, RELEASE_PRESETS } from '../../src/fixes.js';
import {
  HAZARD_IDS,
  HAZARDS,
  type HazardDef,
  HazardTracker,
  hazardOpenIn,
} from '../../src/invariants/hazards.js';
import type { Violation } from '../../src/invariants/types.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

const violation = (over: Partial<Violation>): Violation => ({
  invariant: 'device-reported-unused-while-mounted',
  atMs: 100_000,
  node: 'node-a',
  pod: null,
  uid: null,
  volume: 'lun-1',
  message: '',
  causes: [],
  ...over,
});

const reconstruction = (over: Partial<Extract<Fact, { kind: 'volumeReconstruction' }>>): Fact => ({
  kind: 'volumeReconstruction',
  atMs: 90_000,
  node: 'node-a',
  uid: 'db-1',
  pod: 'db',
  volume: 'lun-1',
  mode: 'Filesystem',
  ok: false,
  error: 'input/output error',
  inconsistentRead: false,
  outcome: 'cleanupMounts',
  podKnown: false,
  podTerminating: true,
  ...over,
});

/** The injected fault that makes node-a's ConstructVolumeSpec of lun-1 fail (what a failed reconstruction needs to be excused). */
const constructFault: Fact = {
  kind: 'faultInjected',
  atMs: 90_000,
  node: 'node-a',
  fault: 'constructVolumeSpec',
  volume: 'lun-1',
};

describe('hazard registry', () => {
  it('every hazard names its upstream record, why it is open and what it explains', () => {
    for (const id of HAZARD_IDS) {
      const h = HAZARDS[id];
      expect(h.upstream.length, id).toBeGreaterThan(0);
      expect(h.open.length, id).toBeGreaterThan(10);
      expect(h.explains.length, id).toBeGreaterThan(0);
    }
  });
});

describe('HazardTracker', () => {
  it('#101791: a non-retryable reconstruction failure explains the volume reported unused on that node', () => {
    const t = new HazardTracker();
    t.onFact(constructFault);
    t.onFact(reconstruction({}));
    expect(t.explain(violation({}))).toBe('reconstruction-fails-other-error');
    // Another volume, another node, or before the reconstruction: not this hazard.
    expect(t.explain(violation({ volume: 'lun-2' }))).toBeNull();
    expect(t.explain(violation({ node: 'node-b' }))).toBeNull();
    expect(t.explain(violation({ atMs: 80_000 }))).toBeNull();
    // multi-node-mount is reported on the second node: only the volume must match.
    expect(t.explain(violation({ invariant: 'multi-node-mount', node: 'node-b' }))).toBe(
      'reconstruction-fails-other-error',
    );
  });

  it("a reconstruction failure that no injected fault caused is the port's: no hazard excuses it", () => {
    // csi-reconstruct-wrong-data-dir (every CSI volume fails reconstruction) hid behind #101791's hazard.
    const t = new HazardTracker();
    t.onFact(reconstruction({}));
    t.onFact(reconstruction({ outcome: 'skippedDesired', podKnown: true }));
    expect(t.explain(violation({}))).toBeNull();
    expect(t.explain(violation({ invariant: 'pod-cgroup-destroyed-with-volumes', uid: 'db-1' }))).toBeNull();
    // A fault on another volume does not excuse this one; a procMounts fault on the node does.
    t.onFact({ ...constructFault, volume: 'lun-2' });
    t.onFact(reconstruction({ atMs: 91_000 }));
    expect(t.explain(violation({ atMs: 100_000 }))).toBeNull();
    t.onFact({
      kind: 'procMountsRead',
      atMs: 92_000,
      node: 'node-a',
      purpose: 'reconstruct',
      attempts: 3,
      consistent: false,
    });
    t.onFact(reconstruction({ atMs: 93_000 }));
    expect(t.explain(violation({ atMs: 100_000 }))).toBe('reconstruction-fails-other-error');
  });

  it('a pod volume dir a kubelet killed inside SetUp left unmounted is a cause upstream has too (fc.go ConstructVolumeSpec)', () => {
    // Found by fuzz, seed 3 case 5142: the kubelet died between SetUp's MkdirAll and its bind mount; the
    // restarted one's FC ConstructVolumeSpec found no global mount among the dir's mount refs.
    const t = new HazardTracker();
    t.onFact(reconstruction({ outcome: 'failedReconstruction', podPathMounted: true }));
    expect(t.explain(violation({}))).toBeNull();
    const u = new HazardTracker();
    u.onFact(reconstruction({ outcome: 'failedReconstruction', podPathMounted: false }));
    expect(u.explain(violation({}))).toBe('reconstruction-fails-other-error');
    // Only the volume it names.
    expect(u.explain(violation({ volume: 'lun-2' }))).toBeNull();
  });

  it('an inconsistent-read failure is the bug #102059 fixes, not #101791', () => {
    const t = new HazardTracker();
    t.onFact(reconstruction({ inconsistentRead: true }));
    expect(t.explain(violation({}))).toBeNull();
    expect(t.explain(violation({ invariant: 'multi-node-mount', node: 'node-b' }))).toBeNull();
  });

  it('a volume torn down under a running container is excused only after its reconstruction', () => {
    const t = new HazardTracker(Fixes.of('1.23'));
    const torn = violation({ invariant: 'volume-torn-down-while-running', uid: 'db-1', pod: 'db' });
    expect(t.explain(torn)).toBeNull(); // e.g. the pre-#102344 populator race: no restart involved
    t.onFact(reconstruction({ ok: true, error: undefined, outcome: 'addedToActualState', podKnown: true }));
    expect(t.explain(torn)).toBe('terminating-pod-volume-torn-down-on-restart');
    expect(t.explain({ ...torn, uid: 'other-1' })).toBeNull();
  });

  it('#113979 excuses nothing once its fix (#114326) is on: the same path is then a bug of the port', () => {
    const torn = violation({ invariant: 'volume-torn-down-while-running', uid: 'db-1', pod: 'db' });
    const added = reconstruction({
      ok: true,
      error: undefined,
      outcome: 'addedToActualState',
      podKnown: true,
    });
    for (const fixes of [
      Fixes.all(),
      Fixes.of('1.25'),
      Fixes.of('1.23').with('dsw-terminating-pod-on-restart', true),
    ]) {
      const t = new HazardTracker(fixes);
      t.onFact(added);
      expect(t.explain(torn), fixes.label()).toBeNull();
      expect(t.explain(violation({})), fixes.label()).toBeNull();
    }
    // The switch is read where the marker is, at its time, and only there.
    const reads = new Map();
    const t = new HazardTracker(Fixes.of('1.23').recording(reads, () => 90_000));
    t.onFact(reconstruction({ ok: true, error: undefined, outcome: 'reportedInUse', podKnown: true }));
    expect(reads.has('dsw-terminating-pod-on-restart')).toBe(false);
    t.onFact(added);
    expect(reads.get('dsw-terminating-pod-on-restart')).toBe(90_000);
  });

  it('#113979: the volume reported unused after its teardown is excused only when syncStates added it', () => {
    const t = new HazardTracker(Fixes.of('1.23'));
    const unused = violation({ atMs: 100_000 });
    // cleanupMounts after a failed (or inconsistent) read leaves the global mount: #101791's or #102059's.
    t.onFact(reconstruction({ inconsistentRead: true, podKnown: true }));
    expect(t.explain(unused)).toBeNull();
    t.onFact(reconstruction({ ok: true, error: undefined, outcome: 'addedToActualState', podKnown: true }));
    expect(t.explain(unused)).toBe('terminating-pod-volume-torn-down-on-restart');
    expect(t.explain({ ...unused, volume: 'lun-2' })).toBeNull();
    expect(t.explain({ ...unused, node: 'node-b' })).toBeNull();
    expect(t.explain({ ...unused, atMs: 80_000 })).toBeNull();
  });

  it('an iSCSI Block volume torn down under a terminating pod after a restart and reported unused: both hazards, tied', () => {
    const r = runScenario(loadScenarioFile('scenarios/terminating-pod-iscsi-block-reported-unused.yaml'), {
      fixes: Fixes.of('1.23'),
    });
    expect(r.violations.map((v) => [v.invariant, v.volume, v.knownOpen])).toEqual([
      ['volume-torn-down-while-running', 'raw-1', 'terminating-pod-volume-torn-down-on-restart'],
      ['device-leaked-after-unmount', 'raw-1', 'iscsi-block-session-busy'],
      ['device-reported-unused-while-mounted', 'raw-1', 'terminating-pod-volume-torn-down-on-restart'],
    ]);
  });

  it("#85834: a pod stays terminating when cleanupMounts' one UnmountVolume failed, and only then", () => {
    const stuck = violation({
      invariant: 'termination-stuck',
      uid: 'db-1',
      pod: 'db',
      volume: null,
      atMs: 240_000,
    });
    const tearDown = (ok: boolean, uid = 'db-1'): Fact => ({
      kind: 'volumeTearDown',
      atMs: 90_100,
      node: 'node-a',
      uid,
      pod: 'db',
      volume: 'lun-1',
      ok,
    });
    // The old reconstruction's syncStates (1.27 and earlier); the new one's cleanOrphanVolumes below.
    const trackerAfter = (...facts: Fact[]): HazardTracker => {
      const t = new HazardTracker(Fixes.all().with('new-volume-reconstruction', false));
      t.onFact(constructFault);
      for (const f of facts) t.onFact(f);
      return t;
    };
    expect(trackerAfter(reconstruction({}), tearDown(false)).explain(stuck)).toBe(
      'cleanup-mounts-not-retried',
    );
    // KEP-3756's cleanOrphanVolumes gives a failed volume the same one-shot cleanupMounts.
    const newReconstruction = new HazardTracker(Fixes.all());
    for (const f of [constructFault, reconstruction({}), tearDown(false)]) newReconstruction.onFact(f);
    expect(newReconstruction.explain(stuck)).toBe('clean-orphan-volumes-not-retried');
    // The cleanup's TearDown succeeded: a stuck pod has another cause.
    expect(trackerAfter(reconstruction({}), tearDown(true)).explain(stuck)).toBeNull();
    // Only the cleanup's own TearDown counts, not a later one of the same volume.
    expect(trackerAfter(reconstruction({}), tearDown(true), tearDown(false)).explain(stuck)).toBeNull();
    // #102059's inconsistent read (a fixed bug), another pod, or no reconstruction at all: not this.
    expect(
      trackerAfter(reconstruction({ inconsistentRead: true }), tearDown(false)).explain(stuck),
    ).toBeNull();
    expect(trackerAfter(reconstruction({}), tearDown(false, 'web-1')).explain(stuck)).toBeNull();
    expect(trackerAfter(tearDown(false)).explain(stuck)).toBeNull();
  });

  it('#85476: a kubelet stopped inside UnmapBlockVolume leaves the pod reference no reconstruction finds', () => {
    // podrace fuzz --seed 8, case 27346: v0's containers are gone at 11.36 s and the reconciler is
    // unmapping its FC Block volume (pod link removed, the bind on the global map path not yet) when the
    // kubelet stops at 11.42 s. No pod dir names the volume any more, so syncStates never reconstructs
    // it and v0's reference stays on the global map path for ever.
    const r = runScenario(loadScenarioFile('scenarios/block-unmap-interrupted-by-restart.yaml'), {
      fixes: Fixes.all(),
      recordFacts: true,
    });
    const finished = r.facts?.filter((f) => f.kind === 'reconstructionFinished' && f.atMs > 20_000);
    expect(finished).toMatchObject([{ unreconstructedPodMaps: [{ uid: 'v0-1', volume: 'lun-1' }] }]);
    expect(r.violations.map((v) => [v.invariant, v.uid, v.knownOpen])).toEqual([
      ['device-reported-unused-while-mounted', null, 'one-shot-reconstruction-gap'],
      ['termination-stuck', 'v0-1', 'one-shot-reconstruction-gap'],
    ]);
  });

  it("#101862's 2-minute window: a leak after FC's DetachDisk retry gave up is the hazard; the leak the fix closes is not", () => {
    const t = new HazardTracker();
    const leaked = violation({ invariant: 'device-leaked-after-unmount', atMs: 138_000 });
    expect(t.explain(leaked)).toBeNull();
    t.onFact({
      kind: 'fcDetachRetryExhausted',
      atMs: 137_400,
      node: 'node-a',
      volume: 'lun-1',
      device: '/dev/dm-0',
    });
    expect(t.explain(leaked)).toBe('fc-detach-retry-window');
    expect(t.explain({ ...leaked, volume: 'lun-2' })).toBeNull();
    expect(t.explain({ ...leaked, node: 'node-b' })).toBeNull();
    const file = loadScenarioFile('scenarios/fc-unmount-retry-window.yaml');
    const leaks = (fixes: Fixes) =>
      runScenario(file, { fixes })
        .violations.filter((v) => v.invariant === 'device-leaked-after-unmount')
        .map((v) => [v.atMs, v.knownOpen]);
    expect(leaks(Fixes.all())).toEqual([[136_300, 'fc-detach-retry-window']]);
    // Without #101862 the first busy flush already leaks: the bug the switch fixes, never excused.
    expect(leaks(Fixes.all().with('fc-unmount-retry', false))).toEqual([[16_300, undefined]]);
  });

  it("a forgotten volume's fenced global mount, bind-mounted for a later pod, is the forgotten volume's hazard; a SetUp over an unmounted path is not", () => {
    // podrace fuzz --seed 3, case 4411 (every fix on): ConstructVolumeSpec fails after a restart, so
    // cleanupMounts leaves lun-1's global mount; the volume drops out of volumesInUse and its CSI detach
    // fences it at 19.39 s; attached again, v2's SetUp bind-mounts that dead mount at 81.53 s.
    const t = new HazardTracker();
    t.onFact(constructFault);
    t.onFact(reconstruction({ atMs: 18_570, uid: 'v0-1', pod: 'v0' }));
    const setUp = (fencedAtMs: number): Fact => ({
      kind: 'bindMountOfFencedGlobalPath',
      atMs: 81_533,
      node: 'node-a',
      uid: 'v2-1',
      pod: 'v2',
      volume: 'lun-1',
      mountedAtMs: 11_463,
      fencedAtMs,
    });
    const fenced = (fencedAtMs: number) =>
      violation({
        invariant: 'mount-device-skipped-after-failure',
        atMs: 81_533,
        uid: 'v2-1',
        pod: 'v2',
        causes: [setUp(fencedAtMs)],
      });
    expect(t.explain(fenced(19_388))).toBe('reconstruction-fails-other-error');
    // A fence before the volume was forgotten is not its consequence; another node's or volume's neither.
    expect(t.explain(fenced(10_000))).toBeNull();
    expect(t.explain({ ...fenced(19_388), node: 'node-b' })).toBeNull();
    expect(t.explain({ ...fenced(19_388), volume: 'lun-2' })).toBeNull();
    // #100183's bug (a SetUp over a global path a failed UnmountDevice left unmounted) is excused by nothing.
    const unmounted: Fact = {
      kind: 'bindMountOfUnmountedGlobalPath',
      atMs: 81_533,
      node: 'node-a',
      uid: 'v2-1',
      pod: 'v2',
      volume: 'lun-1',
    };
    expect(t.explain({ ...fenced(19_388), causes: [unmounted] })).toBeNull();
  });

  it('a leaked device is never excused by a torn-down-on-restart marker, even with a flush that fell through', () => {
    const t = new HazardTracker();
    t.onFact(reconstruction({ ok: true, error: undefined, outcome: 'addedToActualState' }));
    t.onFact({
      kind: 'multipathFlushFailed',
      atMs: 95_000,
      node: 'node-a',
      volume: 'lun-1',
      device: '/dev/dm-0',
      fellThrough: true,
    });
    expect(t.explain(violation({ invariant: 'device-leaked-after-unmount' }))).toBeNull();
  });

  it('a failed reconstruction skipped for a desired (terminating) pod explains that pod and volume only', () => {
    const t = new HazardTracker();
    t.onFact(constructFault);
    const cgroup = violation({ invariant: 'pod-cgroup-destroyed-with-volumes', uid: 'db-1', pod: 'db' });
    // A failed reconstruction that went to cleanupMounts, or a desired one that succeeded: not this path.
    t.onFact(reconstruction({ podKnown: true }));
    t.onFact(reconstruction({ ok: true, error: undefined, outcome: 'skippedDesired', podKnown: true }));
    expect(t.explain(cgroup)).toBeNull();
    t.onFact(reconstruction({ outcome: 'skippedDesired', podKnown: true }));
    expect(t.explain(cgroup)).toBe('failed-reconstruction-left-to-terminating-pod');
    expect(t.explain({ ...cgroup, uid: 'web-1' })).toBeNull();
    expect(t.explain({ ...cgroup, volume: 'lun-2' })).toBeNull();
    expect(t.explain({ ...cgroup, node: 'node-b' })).toBeNull();
  });

  it('one-shot-reconstruction-gap excuses only a volume no pod dir named (a dir syncStates skipped is a bug)', () => {
    const stuck = violation({ invariant: 'device-reported-unused-while-mounted' });
    const finished = (podDirVolumes: { uid: string; volume: string }[]): Fact => ({
      kind: 'reconstructionFinished',
      atMs: 90_000,
      node: 'node-a',
      unreconstructedDevices: ['lun-1'],
      unreconstructedPodMaps: [{ uid: 'db-1', volume: 'lun-2' }],
      podDirVolumes,
    });
    const t = new HazardTracker();
    t.onFact(finished([]));
    expect(t.explain(stuck)).toBe('one-shot-reconstruction-gap');
    expect(t.explain(violation({ invariant: 'termination-stuck', uid: 'db-1', volume: null }))).toBe(
      'one-shot-reconstruction-gap',
    );
    // The planted bug: a pod dir named lun-1 (and db-1's lun-2) on disk, and syncStates still left the
    // device in neither state. The old marker excused it; now it is unexplained.
    const planted = new HazardTracker();
    planted.onFact(
      finished([
        { uid: 'web-1', volume: 'lun-1' },
        { uid: 'db-1', volume: 'lun-2' },
      ]),
    );
    expect(planted.explain(stuck)).toBeNull();
    expect(
      planted.explain(violation({ invariant: 'termination-stuck', uid: 'db-1', volume: null })),
    ).toBeNull();
  });

  it('#113979 excuses a known pod left out of the desired state only when its containers were terminating', () => {
    const torn = violation({ invariant: 'volume-torn-down-while-running', uid: 'db-1', pod: 'db' });
    const added = { ok: true, error: undefined, outcome: 'addedToActualState', podKnown: true } as const;
    const t = new HazardTracker(Fixes.of('1.23'));
    t.onFact(reconstruction({ ...added, podTerminating: true }));
    expect(t.explain(torn)).toBe('terminating-pod-volume-torn-down-on-restart');
    // The planted bug: the populator lost a running pod (not terminating) and syncStates added its volume.
    const planted = new HazardTracker(Fixes.of('1.23'));
    planted.onFact(reconstruction({ ...added, podTerminating: false }));
    expect(planted.explain(torn)).toBeNull();
    expect(planted.explain(violation({}))).toBeNull();
  });

  it('a hazard fixed upstream in release X excuses nothing under --kubelet X or later', () => {
    expect(hazardOpenIn('terminating-pod-volume-torn-down-on-restart')).toEqual(['1.22', '1.23']);
    // KEP-3756's reconstruction (switch new-volume-reconstruction) replaces syncStates' cleanupMounts: on
    // by default in the last patches of 1.28 and later (1.27.2 turned it off again, #117752).
    expect(hazardOpenIn('cleanup-mounts-not-retried')).toEqual([
      '1.20',
      '1.21',
      '1.22',
      '1.23',
      '1.24',
      '1.25',
      '1.26',
      '1.27',
    ]);
    expect(hazardOpenIn('iscsi-block-session-busy')).toEqual([...RELEASE_PRESETS]);
    // #114326 (on from 1.24) keeps the scenario's terminating pod desired, so it shows under 1.23; with it
    // turned off, 1.26 and 1.27 take syncStates' path again, 1.28 and `fixed` cleanOrphanVolumes' one:
    // the same one-shot cleanupMounts, the new reconstruction's own hazard.
    const file = loadScenarioFile('scenarios/reconstruct-fails-cleanup-not-retried.yaml');
    const knownOpen = (fixes: Fixes) =>
      runScenario(file, { fixes })
        .violations.filter((v) => v.invariant === 'termination-stuck')
        .map((v) => v.knownOpen ?? null);
    const off = (kubelet: KubeletName) => Fixes.of(kubelet).with('dsw-terminating-pod-on-restart', false);
    expect(knownOpen(Fixes.of('1.23'))).toEqual(['cleanup-mounts-not-retried']);
    expect(knownOpen(off('1.26'))).toEqual(['cleanup-mounts-not-retried']);
    expect(knownOpen(off('1.27'))).toEqual(['cleanup-mounts-not-retried']);
    expect(knownOpen(off('1.28'))).toEqual(['clean-orphan-volumes-not-retried']);
    expect(knownOpen(off('fixed'))).toEqual(['clean-orphan-volumes-not-retried']);
    // With #114326 on, the new reconstruction leaves the terminating pod's volume to the reconciler,
    // which mounts it again and retries the failed TearDown: the pod terminates.
    expect(knownOpen(Fixes.of('1.31'))).toEqual([]);
  });

  it('a hazard whose fix is a switch excuses nothing while the switch is on (#113145)', () => {
    // A regression of #102344: no such pod worker before 1.22.
    expect(hazardOpenIn('remove-before-sources-ready')).toEqual(['1.22', '1.23', '1.24', '1.25', '1.26']);
    const file = loadScenarioFile('scenarios/static-pod-removed-before-sources-ready.yaml');
    const stuck = (fixes: Fixes) =>
      runScenario(file, { fixes })
        .violations.filter((v) => v.invariant === 'termination-stuck')
        .map((v) => v.knownOpen ?? null);
    expect(stuck(Fixes.of('1.26'))).toEqual(['remove-before-sources-ready']);
    expect(stuck(Fixes.of('1.31').with('orphan-pod-worker-terminates', false))).toEqual([
      'remove-before-sources-ready',
    ]);
    expect(stuck(Fixes.of('1.27'))).toEqual([]);
    expect(stuck(Fixes.all())).toEqual([]);
    // The REMOVE is still dropped with the fix on (1.27 keeps deletePod's check): the marker's fact is
    // published, and the closed hazard excuses nothing.
    const t = new HazardTracker(Fixes.all());
    t.onFact({ kind: 'podRemoveDropped', atMs: 500, node: 'node-a', uid: 'web-1', pod: 'web' });
    const v = violation({ invariant: 'termination-stuck', uid: 'web-1', pod: 'web', volume: null });
    expect(t.explain(v)).toBeNull();
  });

  it("#112814: the orphan's own UID is excused its mirror deletion, nothing else", () => {
    // Found by fuzz, every fix on (seed 4 case 79, seed 5 case 6295): the orphan's manifest came back
    // with the same UID; its worker never started, and housekeeping killed the old containers with 1 s.
    // That 1 s kill is no longer excused here: grace-period-not-honoured judges a runtime pod's kill as
    // the orphaned lifecycle's (HandlePodCleanups' override for orphans), so it does not fire, and a
    // grace violation of the orphan's UID that does fire is not this hazard's to hide.
    const t = new HazardTracker(Fixes.all());
    t.onFact({
      kind: 'staticPodStartedBesideOrphan',
      atMs: 10_000,
      node: 'node-a',
      uid: 'static-new',
      pod: 's',
      orphanUid: 'static-old',
    });
    const base = { pod: 's', volume: null, atMs: 18_000 };
    const at = (invariant: Violation['invariant'], uid: string) =>
      t.explain(violation({ ...base, invariant, uid }));
    expect(at('static-pod-overlap', 'static-new')).toBe('static-pod-orphan-after-restart');
    expect(at('mirror-pod-deleted-while-running', 'static-old')).toBe('static-pod-orphan-after-restart');
    expect(at('grace-period-not-honoured', 'static-old')).toBeNull();
    expect(at('mirror-pod-deleted-while-running', 'static-new')).toBeNull();
    expect(at('grace-period-not-honoured', 'static-other')).toBeNull();
    expect(at('static-pod-overlap', 'static-old')).toBeNull();
  });

  it("#124586: a rejected pod's orphan kill excuses that pod's grace violation, nothing else", () => {
    const t = new HazardTracker(Fixes.all());
    t.onFact({ kind: 'rejectedPodKilledAsOrphan', atMs: 17_000, node: 'node-a', uid: 'web-1', pod: 'web' });
    const grace = violation({
      invariant: 'grace-period-not-honoured',
      uid: 'web-1',
      pod: 'web',
      volume: null,
      atMs: 19_000,
    });
    expect(t.explain(grace)).toBe('rejected-running-pod-killed-as-orphan');
    // Another pod, another node, before the kill, or another invariant: not this hazard.
    expect(t.explain({ ...grace, uid: 'web-2' })).toBeNull();
    expect(t.explain({ ...grace, node: 'node-b' })).toBeNull();
    expect(t.explain({ ...grace, atMs: 16_000 })).toBeNull();
    expect(t.explain({ ...grace, invariant: 'termination-stuck' })).toBeNull();
    // Release-1.23's housekeeping never kills a config pod as an orphan: the preset does not have it.
    expect(hazardOpenIn('rejected-running-pod-killed-as-orphan')).toEqual(
      RELEASE_PRESETS.filter((p) => RELEASE_PRESETS.indexOf(p) >= RELEASE_PRESETS.indexOf('1.27')),
    );
  });

  it('termination-stuck is excused only for the pod whose REMOVE was dropped', () => {
    const t = new HazardTracker(Fixes.of('1.26'));
    t.onFact({ kind: 'podRemoveDropped', atMs: 500, node: 'node-a', uid: 'web-1', pod: 'web' });
    const stuck = violation({ invariant: 'termination-stuck', uid: 'web-1', pod: 'web', volume: null });
    expect(t.explain(stuck)).toBe('remove-before-sources-ready');
    expect(t.explain({ ...stuck, uid: 'web-2' })).toBeNull();
  });
});

describe('bundled scenarios', () => {
  it('reconstruct-fails-other-error: every violation with every fix on is tied to a hazard', () => {
    const r = runScenario(loadScenarioFile('scenarios/reconstruct-fails-other-error.yaml'), {
      fixes: Fixes.all(),
    });
    expect(r.violations.length).toBeGreaterThan(0);
    expect(r.violations.map((v) => [v.invariant, v.knownOpen])).toEqual(
      expect.arrayContaining([
        ['multi-node-mount', 'reconstruction-fails-other-error'],
        ['device-reported-unused-while-mounted', 'reconstruction-fails-other-error'],
      ]),
    );
    for (const v of r.violations) expect(v.knownOpen, v.invariant).toBeDefined();
  });

  it('the force detach of release-1.23 (a bug #110721 fixed) is not excused as a known-open hazard', () => {
    const r = runScenario(loadScenarioFile('scenarios/fc-force-detach-healthy-node.yaml'), {
      fixes: Fixes.of('1.23'),
    });
    const multi = r.violations.find((v) => v.invariant === 'multi-node-mount');
    expect(multi).toBeDefined();
    expect(multi?.knownOpen).toBeUndefined();
  });

  it('every known-open hazard has a bundled scenario in which, under its kubelet, a violation is tied to it', () => {
    for (const id of HAZARD_IDS) {
      const def: HazardDef = HAZARDS[id];
      const fixes = Fixes.of(def.shownUnder ?? 'fixed');
      const r = runScenario(loadScenarioFile(`scenarios/${def.scenario}.yaml`), { fixes });
      expect(
        r.violations.filter((v) => v.knownOpen === id).map((v) => v.invariant),
        `${id} in ${def.scenario}`,
      ).not.toEqual([]);
    }
  });
});
