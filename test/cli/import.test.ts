// `podrace import` as a user runs it: the scenario to --out (or standard output), the summary and the
// first unread lines on standard error, --run under every release preset, exit 2 with one line for
// input it cannot use, and nothing written but --out.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { RELEASE_PRESETS } from '../../src/fixes.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import { podrace } from './spawnCli.js';

const temp = mkdtempSync(join(tmpdir(), 'podrace-import-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const LOG = [
  'I0523 09:50:58.000000 268 server.go:446] "Kubelet version" kubeletVersion="v1.22.17"',
  'I0523 09:50:58.100000 268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]',
  'I0523 09:51:50.000000 268 kubelet.go:2130] "SyncLoop DELETE" source="api" pods=[default/web-0]',
  'I0523 09:51:50.100000 268 kubelet.go:1] "Updating node status"',
].join('\n');

describe('podrace import', () => {
  it('writes --out, loadable, with a claim for the release the log names; the summary on stderr', () => {
    const dir = mkdtempSync(join(temp, 'out-'));
    const log = join(dir, 'kubelet.log');
    writeFileSync(log, LOG);
    const out = join(dir, 'race.yaml');
    const r = podrace(['import', log, '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('podrace import: 3 of 4 messages read: 1 node(s), 1 pod(s)');
    expect(r.stderr).toContain(`${log}:4: "Updating node status"`);
    const s = parseScenarioText(readFileSync(out, 'utf8'), out);
    expect(s.name).toBe('race');
    expect(s.claims.map((c) => c.fixes.kubelet)).toEqual(['1.22']);
    expect(readdirSync(dir).sort()).toEqual(['kubelet.log', 'race.yaml']);
  });

  it('without --out the scenario goes to stdout; a gzip log reads as its text', () => {
    const log = join(temp, 'kubelet.log.gz');
    writeFileSync(log, gzipSync(Buffer.from(LOG)));
    const r = podrace(['import', log]);
    expect(r.code).toBe(0);
    expect(parseScenarioText(r.stdout, 'x.yaml').timeline.map((e) => e.action.kind)).toEqual([
      'createPod',
      'deletePod',
    ]);
  });

  it('--run prints one line per release preset', () => {
    const log = join(temp, 'run.log');
    writeFileSync(log, LOG);
    const r = podrace(['import', log, '--out', join(temp, 'run.yaml'), '--run']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(':')[0])).toEqual(RELEASE_PRESETS.map((p) => `kubelet ${p}`));
    expect(r.stdout).toContain("kubelet 1.22: nothing fires  (the log's release)");
  });

  it('no kubelet line: exit 2, one line, nothing written', () => {
    const dir = mkdtempSync(join(temp, 'bad-'));
    const log = join(dir, 'nginx.log');
    writeFileSync(log, '10.0.0.1 - - [23/May/2022:09:50:58] "GET / HTTP/1.1" 200\n');
    const r = podrace(['import', log, '--out', join(dir, 'x.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('no kubelet or kube-controller-manager line');
    expect(readdirSync(dir)).toEqual(['nginx.log']);
  });

  it('a gzip log that does not unpack, or unpacks past 64 MiB: exit 2, one line, no stack trace', () => {
    const dir = mkdtempSync(join(temp, 'gz-'));
    const corrupt = join(dir, 'kubelet.log.gz');
    writeFileSync(corrupt, Buffer.from([0x1f, 0x8b, 0x6e, 0x6f, 0x74, 0x20, 0x67, 0x7a]));
    const r = podrace(['import', corrupt]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `${corrupt}: starts as gzip but does not unpack (unknown compression method)`,
    ]);
    // 65 MiB of one line over and over packs to well under a MiB.
    const line = Buffer.from(
      'I0523 09:50:58.100000 268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]\n',
    );
    const bomb = join(dir, 'bomb.log.gz');
    writeFileSync(
      bomb,
      gzipSync(
        Buffer.concat(Array.from({ length: Math.ceil((65 * 1024 * 1024) / line.length) }, () => line)),
      ),
    );
    const b = podrace(['import', bomb]);
    expect(b.code).toBe(2);
    expect(b.stderr.trim()).toBe(`${bomb}: more than 64 MiB once gunzipped`);
  });

  it('events that form no valid timeline: exit 2 naming the line', () => {
    const log = join(temp, 'twice.log');
    writeFileSync(
      log,
      'I0523 09:00:00.000000 1 kubelet.go:1] SyncLoop (ADD, "api"): "a_default(1111)"\nI0523 09:00:01.000000 1 kubelet.go:1] SyncLoop (ADD, "api"): "a_default(2222)"\n',
    );
    const r = podrace(['import', log]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(new RegExp(`^${log}:2: pod default/a is added with UID 2222`));
  });

  it('--out naming a log is refused', () => {
    const log = join(temp, 'self.log');
    writeFileSync(log, LOG);
    const r = podrace(['import', log, '--out', log]);
    expect(r.code).toBe(2);
    expect(readFileSync(log, 'utf8')).toBe(LOG);
  });
});

describe('podrace run --klog', () => {
  it('writes the log; import reads it back to a scenario that fires as much', () => {
    const log = join(temp, 'race.log');
    // The old reconstruction's syncStates logs one line per failed volume (reconciler.go).
    const fix = [
      '--fix',
      'reconstruct-reliable-mount-refs=off',
      '--fix',
      'new-volume-reconstruction=off',
      '--quiet',
    ];
    const r = podrace(['run', 'fc-kubelet-restart-reconstruct-procmounts', ...fix, '--klog', log]);
    expect(r.code).toBe(1);
    expect(readFileSync(log, 'utf8')).toContain(
      '"Could not construct volume information, cleaning up mounts"',
    );
    const out = join(temp, 'race.yaml');
    expect(podrace(['import', log, '--out', out]).code).toBe(0);
    const again = podrace(['run', out, ...fix]);
    expect(again.code).toBe(1);
    expect(again.stdout.split(' ')[0]).toBe(r.stdout.split(' ')[0]);
  });

  it("the new reconstruction's failure and cleanup lines (reconstruct_new.go) read back as one failure", () => {
    const log = join(temp, 'race-new.log');
    const fix = ['--fix', 'reconstruct-reliable-mount-refs=off', '--quiet'];
    const r = podrace(['run', 'fc-kubelet-restart-reconstruct-procmounts', ...fix, '--klog', log]);
    expect(r.code).toBe(1);
    const text = readFileSync(log, 'utf8');
    expect(text).toContain('"Could not construct volume information" podName=');
    expect(text).toContain('"Cleaning up mounts for volume that could not be reconstructed"');
    expect(text).not.toContain('cleaning up mounts" podName=');
    const out = join(temp, 'race-new.yaml');
    expect(podrace(['import', log, '--out', out]).code).toBe(0);
    const again = podrace(['run', out, ...fix]);
    expect(again.code).toBe(1);
    expect(again.stdout.split(' ')[0]).toBe(r.stdout.split(' ')[0]);
  });
});
