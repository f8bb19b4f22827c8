// The run as kubelet log lines: every line has a journald prefix around a klog header at the virtual
// time, the node's PID changes at a restart, the messages are the ones the importer reads, and the
// same run gives the same bytes.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { parseHeader } from '../../src/import/logLines.js';
import { recognise } from '../../src/import/recognise.js';
import { klogText, toKlogLines } from '../../src/report/klog.js';
import { runScenario } from '../../src/run/run.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

const load = (name: string) => loadScenarioFile(join(bundledScenariosDir(), `${name}.yaml`));

describe('toKlogLines', () => {
  it('a deletion race: ADD, DELETE, the kill with its grace, PLEG, REMOVE, each recognised', () => {
    const s = load('pod-deleted-before-start');
    const lines = toKlogLines(runScenario(s, { fixes: Fixes.of('1.23'), recordFacts: true }), s);
    const kinds = lines.map((l) => recognise(parseHeader(l)!.text)?.kind ?? null);
    expect(kinds).toContain('podOp');
    expect(kinds).toContain('killContainer');
    expect(kinds).toContain('pleg');
    expect(lines[0]).toBe(
      'Jan  1 00:00:00 node-a kubelet[1000]: I0101 00:00:00.000000    1000 server.go:446] "Kubelet version" kubeletVersion="v1.23.0"',
    );
    expect(lines.some((l) => l.includes('"Killing container with a grace period" pod="default/web"'))).toBe(
      true,
    );
  });

  it("a restart: the new process lists the node's pods (one ADD per source); what the API did meanwhile is not logged", () => {
    const syncLoop = (name: string, kubelet: '1.23' | 'all') => {
      const s = load(name);
      const fixes = kubelet === 'all' ? Fixes.all() : Fixes.of(kubelet);
      return toKlogLines(runScenario(s, { fixes, recordFacts: true }), s)
        .filter((l) => /"SyncLoop (ADD|DELETE|REMOVE)"/.test(l))
        .map((l) => l.replace(/^.*kubelet\[(\d+)\]: \S+ \S+\s+\d+ \S+\] /, '$1 '));
    };
    // web and batch force-deleted while the kubelet is down: config.go never hears of them again.
    expect(syncLoop('shared-volume-reconstruction', '1.23')).toEqual([
      '1000 "SyncLoop ADD" source="api" pods=[default/web]',
      '1000 "SyncLoop ADD" source="api" pods=[default/batch]',
    ]);
    // db deleted (gracefully) while it is down: the restarted kubelet's LIST has it, terminating: an ADD
    // (and no DELETE; its termination then sticks, so no REMOVE either).
    expect(syncLoop('failed-reconstruction-terminating-pod', 'all')).toEqual([
      '1000 "SyncLoop ADD" source="api" pods=[default/db]',
      '1100 "SyncLoop ADD" source="api" pods=[default/db]',
    ]);
    // etcd's manifest replaced while it is down: the file source lists the new one.
    expect(syncLoop('static-pod-orphan-after-restart', 'all')).toEqual([
      '1000 "SyncLoop ADD" source="file" pods=[default/etcd]',
      '1100 "SyncLoop ADD" source="file" pods=[default/etcd]',
    ]);
  });

  it('a restart: a new PID from the kubelet start on, and the same bytes on a second run', () => {
    const s = load('fc-kubelet-restart-reconstruct-procmounts');
    const text = () => klogText(toKlogLines(runScenario(s, { fixes: Fixes.none(), recordFacts: true }), s));
    const t = text();
    expect(t).toBe(text());
    const pids = new Set(
      t
        .split('\n')
        .filter((l) => l.includes(' kubelet['))
        .map((l) => parseHeader(l)!.pid),
    );
    expect(pids.size).toBeGreaterThan(1);
    expect(t).toContain('"Could not construct volume information, cleaning up mounts"');
    expect(t).toContain('could not get consistent content of /proc/mounts');
  });

  it('a failed UnmountDevice says the stage its fault fired at', () => {
    const s = load('csi-nodeunstage-timeout');
    const t = klogText(toKlogLines(runScenario(s, { fixes: Fixes.of('fixed'), recordFacts: true }), s));
    expect(t).toMatch(/UnmountDevice failed for volume "[^"]+" .* : rpc error: code = DeadlineExceeded/);
  });

  it('a failed WaitForAttach: one line per firing, at the failure, recognised as a failed waitForAttach', () => {
    const s = load('reconstructed-volume-wait-for-attach-fails');
    // The old reconstruction's timing (the new one reconstructs as the reconciler starts), and the force
    // delete's spec grace before #124063 (with its 1 s the pod goes before the ninth failure).
    const fixes = Fixes.of('fixed')
      .with('new-volume-reconstruction', false)
      .with('immediate-eviction-grace', false);
    const lines = toKlogLines(runScenario(s, { fixes, recordFacts: true }), s);
    const failed = lines.filter((l) => l.includes('MountVolume.WaitForAttach failed'));
    expect(failed).toHaveLength(9);
    expect(failed[0]).toContain('00:00:40.300000');
    // iSCSI's multi-line iscsiadm output stays on one log line.
    expect(failed[0]).toContain('last err seen: iscsi: failed to sendtargets to portal');
    expect(recognise(parseHeader(failed[0]!)!.text)).toMatchObject({
      kind: 'volumeOp',
      op: 'waitForAttach',
      ok: false,
      volume: 'lun-1',
    });
  });
});
