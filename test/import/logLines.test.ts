// The line reader: every accepted prefix, wrapped lines, restarts (PID changes), the year roll-over,
// gzip, and the merge of several files by time.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  decodeLogBytes,
  decodeLogFile,
  LogDecodeError,
  mergeByTime,
  parseHeader,
  readLogText,
} from '../../src/import/logLines.js';

const SEC = 1000;

describe('parseHeader', () => {
  it('reads a klog header: severity, time to the millisecond, PID, source, message', () => {
    const h = parseHeader('I0523 09:50:58.123456     268 kubelet.go:2100] "SyncLoop ADD" source="api"');
    expect(h).toMatchObject({
      severity: 'I',
      pid: 268,
      source: 'kubelet.go:2100',
      text: '"SyncLoop ADD" source="api"',
    });
    const h2 = parseHeader('I0523 09:50:59.123999     268 kubelet.go:2100] x');
    expect(h2!.timeMs - h!.timeMs).toBe(1000);
  });
  it('reads journald lines, with and without klog inside; hyperkube too', () => {
    const j = parseHeader('May 23 09:50:58 node-1 kubelet[268]: SyncLoop (ADD, "api"): "web-0_default(1)"');
    expect(j).toMatchObject({
      host: 'node-1',
      pid: 268,
      identifier: 'kubelet',
      text: 'SyncLoop (ADD, "api"): "web-0_default(1)"',
    });
    const inner = parseHeader(
      'May 23 09:50:58 node-1 hyperkube[77]: E0523 09:50:58.500000   77 reconciler.go:1] boom',
    );
    expect(inner).toMatchObject({
      host: 'node-1',
      pid: 77,
      identifier: 'hyperkube',
      severity: 'E',
      text: 'boom',
    });
    expect(inner!.timeMs - j!.timeMs).toBe(500);
  });
  it('strips grep -n prefixes, with and without a file name', () => {
    for (const pre of ['123:', 'kubelet.log:123:', '45-'])
      expect(parseHeader(`${pre}I0523 09:50:58.000000 1 a.go:1] m`)?.text).toBe('m');
  });
  it("journald copied without its host, and a klog header behind a log viewer's time", () => {
    expect(parseHeader('May 17 16:45:26 kubelet[3292]: E0517 16:45:26.176639 3292 a.go:1] m')).toMatchObject({
      host: '',
      pid: 3292,
      text: 'm',
    });
    expect(
      parseHeader('4/2/2018 9:26:16 PMI0403 00:26:16.961352    1694 reconciler.go:217] m'),
    ).toMatchObject({ pid: 1694, text: 'm' });
  });
  it("unwraps Docker's json-file lines (a kubelet in a container): klog inside, the kubelet's JSON inside", () => {
    const klog =
      'I0523 09:50:58.123456     268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]';
    const docker = (log: string) =>
      JSON.stringify({ log: `${log}\n`, stream: 'stderr', time: '2023-05-23T09:50:58.123456789Z' });
    expect(parseHeader(docker(klog))).toEqual(parseHeader(klog));
    const json =
      '{"ts":1684835458123.456,"caller":"kubelet/kubelet.go:2100","msg":"SyncLoop ADD","v":0,"source":"api"}';
    expect(parseHeader(docker(json))).toEqual(parseHeader(json));
    expect(parseHeader(docker(json))?.text).toBe('"SyncLoop ADD" source="api"');
    // A wrapped error's continuation stays a continuation; a line that only looks like Docker's is no header.
    expect(parseHeader(docker('iscsi: failed to attach disk'))).toBeNull();
    expect(parseHeader('{"log": 3}')).toBeNull();
    expect(parseHeader('{"log":"unterminated')).toBeNull();
  });
  it('a line without a header is none', () => {
    expect(parseHeader('  continued text')).toBeNull();
    expect(parseHeader('I1323 09:50:58.000000 1 a.go:1] bad month')).toBeNull();
  });
});

describe('readLogText', () => {
  it('joins a wrapped line to the message before it and keeps both line numbers', () => {
    const text =
      'I0523 09:50:58.000000 1 a.go:1] first part\n   second part\nI0523 09:50:59.000000 1 a.go:1] next\n';
    const { records } = readLogText('k.log', text);
    expect(records.map((r) => [r.text, r.lines])).toEqual([
      ['first part second part', [1, 2]],
      ['next', [3]],
    ]);
  });
  it('a line wrapped in the middle of a word joins without a space', () => {
    const text = 'I0523 09:50:58.000000 1 a.go:1] volume "pvc-c7f6-\n1e2d" and \nmore\n';
    expect(readLogText('k.log', text).records[0]!.text).toBe('volume "pvc-c7f6-1e2d" and more');
  });
  it('counts lines before the first header as skipped', () => {
    const { records, skipped } = readLogText(
      'k.log',
      '-- Logs begin --\nI0523 09:50:58.000000 1 a.go:1] m\n',
    );
    expect(skipped).toEqual([1]);
    expect(records).toHaveLength(1);
  });
  it('keeps each line its PID, so a restart inside one file shows', () => {
    const text = 'I0523 09:50:58.000000 100 a.go:1] a\nI0523 09:51:58.000000 200 a.go:1] b\n';
    expect(readLogText('k.log', text).records.map((r) => r.pid)).toEqual([100, 200]);
  });
  it('crosses midnight and the new year monotonically', () => {
    const text = [
      'Dec 31 23:59:59 h kubelet[1]: a',
      'Jan  1 00:00:01 h kubelet[1]: b',
      'May 23 23:59:59.5 h kubelet[1]: c',
    ].join('\n');
    const t = readLogText('k.log', text).records.map((r) => r.timeMs);
    expect(t[1]! - t[0]!).toBe(2 * SEC);
    expect(t[2]!).toBeGreaterThan(t[1]!);
    const m = readLogText(
      'k.log',
      'I0523 23:59:59.900000 1 a.go:1] a\nI0524 00:00:00.100000 1 a.go:1] b\n',
    ).records;
    expect(m[1]!.timeMs - m[0]!.timeMs).toBe(200);
  });
  it('names the component from journald, the source file or the file name', () => {
    const r = (file: string, line: string) => readLogText(file, line).records[0]?.component;
    expect(r('x', 'May 23 09:50:58 h kube-controller-manager[9]: m')).toBe('controller-manager');
    expect(r('x', 'I0523 09:50:58.000000 1 attach_detach_controller.go:1] m')).toBe('controller-manager');
    expect(r('kube-controller-manager.log', 'I0523 09:50:58.000000 1 reconciler.go:1] m')).toBe(
      'controller-manager',
    );
    expect(r('x', 'I0523 09:50:58.000000 1 kubelet.go:1] m')).toBe('kubelet');
  });
});

describe('decodeLogBytes and mergeByTime', () => {
  it('gunzips on the magic bytes and reads plain text as it is', () => {
    const text = 'I0523 09:50:58.000000 1 a.go:1] m\n';
    expect(decodeLogBytes(gzipSync(Buffer.from(text)))).toBe(text);
    expect(decodeLogBytes(Buffer.from(text))).toBe(text);
  });
  it('a gzip file cut short gives what it holds; one that is no gzip, or unpacks past the bound, is refused', () => {
    const text = Array.from({ length: 2_000 }, (_, i) => `I0523 09:50:58.000000 1 a.go:1] message ${i}`).join(
      '\n',
    );
    const packed = gzipSync(Buffer.from(text));
    const cut = decodeLogFile(packed.subarray(0, Math.floor(packed.length / 2)));
    expect(cut.cutShort).toBe(true);
    expect(cut.text.length).toBeGreaterThan(0);
    expect(text.startsWith(cut.text)).toBe(true);
    expect(decodeLogFile(packed)).toEqual({ text, cutShort: false });
    expect(() => decodeLogFile(Buffer.from([0x1f, 0x8b, 0x41, 0x42, 0x43]))).toThrow(LogDecodeError);
    expect(() => decodeLogFile(Buffer.from([0x1f, 0x8b, 0x41, 0x42, 0x43]))).toThrow(
      /starts as gzip but does not unpack/,
    );
    // 2 MiB of zeros pack to a few KiB: unpacked past a 1 MiB bound, refused before it is all in memory.
    const bomb = gzipSync(Buffer.alloc(2 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(16 * 1024);
    expect(() => decodeLogFile(bomb, 1024 * 1024)).toThrow(/more than 1 MiB once gunzipped/);
  });
  it('merges files by time, each keeping its own order, the first file first on a tie', () => {
    const a = readLogText(
      'a',
      'I0523 09:00:01.000000 1 a.go:1] a1\nI0523 09:00:03.000000 1 a.go:1] a2\n',
    ).records;
    const b = readLogText(
      'b',
      'I0523 09:00:01.000000 1 a.go:1] b1\nI0523 09:00:02.000000 1 a.go:1] b2\n',
    ).records;
    expect(mergeByTime([a, b]).map((r) => r.text)).toEqual(['a1', 'b1', 'b2', 'a2']);
  });
});
