// The JSON log format (`--logging-format=json`): upstream's own example lines read as the klog text the same
// call prints, behind every prefix a klog line may have, on the same clock; and logs written in it import
// to the same scenario as their klog text form (run --klog of bundled scenarios, the fixtures).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importLogs } from '../../src/import/importLogs.js';
import { goQuote, parseJsonLine } from '../../src/import/jsonLines.js';
import { readQuoted } from '../../src/import/keyValues.js';
import { clockOfEpoch, parseHeader, readLogText } from '../../src/import/logLines.js';
import { recognise } from '../../src/import/recognise.js';
import { klogText, toKlogLines } from '../../src/report/klog.js';
import { runScenario } from '../../src/run/run.js';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { fixesOfClaim } from '../../src/scenario/types.js';

const text = (line: string) => parseJsonLine(line)?.text;

describe('parseJsonLine: upstream example lines', () => {
  // k8s.io/component-base/logs/json/klog_test.go (TestKlogIntegration), ts and line filled in.
  it('klog_test.go: InfoS, V(2).InfoS, ErrorS, Infof, Error', () => {
    const info = parseJsonLine(
      '{"ts":1653299458123.4,"caller":"json/klog_test.go:70","msg":"test","v":0,"count":1}',
    );
    expect(info).toEqual({
      epochMs: 1653299458123.4,
      severity: 'I',
      source: 'klog_test.go:70',
      text: '"test" count=1',
    });
    expect(text('{"ts":1,"caller":"json/klog_test.go:80","msg":"test","v":2,"count":1}')).toBe(
      '"test" count=1',
    );
    const err = parseJsonLine('{"ts":1,"caller":"json/klog_test.go:90","msg":"test","count":1,"err":"fail"}');
    expect(err).toMatchObject({ severity: 'E', text: '"test" err="fail" count=1' });
    // klog.Infof: the formatted text, with the newline older klog left on it; klog.Error: no `v`.
    expect(parseJsonLine('{"ts":1,"caller":"json/klog_test.go:60","msg":"test 1\\n","v":0}')).toMatchObject({
      severity: 'I',
      text: 'test 1',
    });
    expect(parseJsonLine('{"ts":1,"caller":"json/klog_test.go:60","msg":"test 1"}')).toMatchObject({
      severity: 'E',
      text: 'test 1',
    });
  });
  it('klog_test.go: KObj and KObjs as klog text prints them', () => {
    expect(
      text(
        '{"ts":1,"caller":"json/klog_test.go:1","msg":"some","v":0,"pod":{"name":"pod-1","namespace":"kube-system"}}',
      ),
    ).toBe('"some" pod="kube-system/pod-1"');
    expect(
      text(
        '{"ts":1,"caller":"json/klog_test.go:1","msg":"several","v":0,"pods":[{"name":"pod-1","namespace":"kube-system"},{"name":"pod-2","namespace":"kube-system"}]}',
      ),
    ).toBe('"several" pods=[kube-system/pod-1 kube-system/pod-2]');
    expect(text('{"ts":1,"msg":"n","v":0,"node":{"name":"node-1"},"nodes":[{"name":"a"},null]}')).toBe(
      '"n" node="node-1" nodes=[a <nil>]',
    );
  });
  it('json_test.go: durations as strings, zapr keys with spaces (and integer-like ones) last', () => {
    expect(
      parseJsonLine(
        '{"ts":0.000123,"caller":"json/json_test.go:1","msg":"test","v":3,"ns":"default","podnum":2,"time":"1µs"}',
      ),
    ).toMatchObject({ severity: 'I', text: '"test" ns="default" podnum=2 time="1µs"' });
    expect(
      text(
        '{"ts":1,"caller":"json/json_test.go:1","msg":"strongly-typed Zap Field passed to logr","zap field":{"Key":"attempt","Type":11,"Integer":3,"String":"","Interface":null}}',
      ),
    ).toBe(
      '"strongly-typed Zap Field passed to logr" zap field={Key:attempt Type:11 Integer:3 String: Interface:<nil>}',
    );
    expect(text('{"ts":1,"msg":"m","v":0,"7":"x","a b":1,"pod":"ns/p"}')).toBe('"m" pod="ns/p" 7="x" a b=1');
  });
  it("kops' kubelet behind journald, and Talos' kubelet: time, host, PID, source, recognised", () => {
    // A blog post on RBAC verbs (2022) quoting a kops node's kubelet at --v=2; journald's time and ts agree.
    const h = parseHeader(
      'Jun 18 19:42:16 ip-172-20-59-66 kubelet[5656]: {"ts":1655581336244.2942,"caller":"kubelet/kubelet.go:2102","msg":"SyncLoop REMOVE","v":2,"source":"api","pods":[{"name":"nettools","namespace":"dev"}]}',
    )!;
    expect(h).toMatchObject({
      host: 'ip-172-20-59-66',
      pid: 5656,
      identifier: 'kubelet',
      severity: 'I',
      source: 'kubelet.go:2102',
      text: '"SyncLoop REMOVE" source="api" pods=[dev/nettools]',
    });
    const klog = parseHeader(
      'I0618 19:42:16.244294    5656 kubelet.go:2102] "SyncLoop REMOVE" source="api"',
    )!;
    expect(h.timeMs).toBe(klog.timeMs);
    expect(recognise(h.text)).toMatchObject({
      kind: 'podOp',
      op: 'REMOVE',
      pods: [{ namespace: 'dev', name: 'nettools' }],
    });
    // siderolabs/talos internal/app/machined/pkg/runtime/logging (kubelet-err): ObjectRef by String(), an error.
    expect(
      parseJsonLine(
        '{"ts":1635266751595.943,"caller":"kubelet/kubelet.go:1703","msg":"Failed creating a mirror pod for","pod":"kube-system/kube-controller-manager-talos-dev-qemu-master-1","err":"pods \\"kube-controller-manager-talos-dev-qemu-master-1\\" already exists"}',
      ),
    ).toMatchObject({
      severity: 'E',
      text: '"Failed creating a mirror pod for" err="pods \\"kube-controller-manager-talos-dev-qemu-master-1\\" already exists" pod="kube-system/kube-controller-manager-talos-dev-qemu-master-1"',
    });
  });
  it('the docs example: ts in seconds reads as the same instant', () => {
    const s = parseJsonLine(
      '{"ts": 1580306777.04728, "v": 4, "msg": "Pod status updated", "status": "ready"}',
    );
    expect(s?.epochMs).toBeCloseTo(1580306777047.28, 1);
    expect(s?.source).toBe('');
  });
  it('a PLEG event struct prints as %+v, which the PLEG recogniser reads', () => {
    const t = text(
      '{"ts":1,"caller":"kubelet/kubelet.go:2200","msg":"SyncLoop (PLEG): event for pod","v":2,"pod":{"name":"web-0","namespace":"default"},"event":{"ID":"u1","Type":"ContainerDied","Data":"0123456789ab"}}',
    )!;
    expect(t).toBe(
      '"SyncLoop (PLEG): event for pod" pod="default/web-0" event={ID:u1 Type:ContainerDied Data:0123456789ab}',
    );
    expect(recognise(t)).toEqual({
      kind: 'pleg',
      pod: { namespace: 'default', name: 'web-0', uid: 'u1' },
      event: 'ContainerDied',
      container: '0123456789ab',
    });
  });
  it('quotes as Go strconv.Quote does, and keyValues reads it back', () => {
    const s = 'a "b" \\ c\nd\te\x00\x7f é 😀 \u00a0\u{e0001}';
    expect(goQuote(s)).toBe('"a \\"b\\" \\\\ c\\nd\\te\\x00\\x7f é 😀 \\u00a0\\U000e0001"');
    expect(readQuoted(goQuote('x "y"\n'), 0)?.value).toBe('x "y"\n');
  });
  it('is none for text that is no JSON object with a number ts and a string msg', () => {
    for (const l of [
      '{"ts":1,"msg":"m"',
      '{"ts":"2021-10-19T14:53:05.815Z","msg":"etcd"}',
      '{"ts":1,"message":"m"}',
      '{"ts":1,"msg":2}',
      '[{"ts":1,"msg":"m"}]',
      '{"ts":1e300,"msg":"m"}',
      'I0523 09:50:58.000000 1 a.go:1] {"ts":1,"msg":"m"}',
    ])
      expect(parseJsonLine(l)).toBeNull();
  });
  it('bounds the nesting it prints: a deep value neither throws nor grows', () => {
    const deep = `{"ts":1,"msg":"m","v":0,"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const t = text(deep)!;
    expect(t.startsWith('"m" x=[[[')).toBe(true);
    expect(t.length).toBeLessThan(100);
  });
});

describe('JSON lines behind prefixes, in files', () => {
  const json =
    '{"ts":1653299458123.4,"caller":"kubelet/kubelet.go:2100","msg":"SyncLoop ADD","v":2,"source":"api","pods":[{"name":"web-0","namespace":"default"}]}';
  const klog = parseHeader(
    'I0523 09:50:58.123456     268 kubelet.go:2100] "SyncLoop ADD" source="api" pods=[default/web-0]',
  )!;
  it('bare, grep -n, kubectl logs --timestamps and journald read the same message at the same time', () => {
    for (const line of [
      json,
      `12:${json}`,
      `kubelet.log:12:${json}`,
      `2022-05-23T09:50:58.123456789Z ${json}`,
      `May 23 09:50:58 node-1 kubelet[268]: ${json}`,
    ]) {
      const h = parseHeader(line);
      expect(h, line).toMatchObject({
        text: klog.text,
        timeMs: klog.timeMs,
        source: 'kubelet.go:2100',
        severity: 'I',
      });
    }
    expect(parseHeader(json)?.pid).toBe(0);
  });
  it("behind journald, on the host's clock: the klog lines of the same file (process start) stay in order", () => {
    // A host at UTC+2: journald and klog say 11:50, the JSON's ts 09:50 UTC.
    const recs = readLogText(
      'k.log',
      [
        'May 23 11:50:57 node-1 kubelet[268]: I0523 11:50:57.000000     268 server.go:446] "Kubelet version" kubeletVersion="v1.24.0"',
        `May 23 11:50:58 node-1 kubelet[268]: ${json}`,
        `May 24 01:10:00 node-1 kubelet[268]: ${json.replace('1653299458123.4', String(Date.UTC(2022, 4, 23, 23, 10)))}`,
      ].join('\n'),
    ).records;
    expect(recs.map((r) => r.timeMs - recs[0]!.timeMs)).toEqual([
      0,
      1123,
      13 * 3_600_000 + 19 * 60_000 + 3000,
    ]);
  });
  it("a UTC instant on the synthetic clock: month, day and time as a klog header's (29 Feb, 31 Dec, 1969)", () => {
    const DAYS_BEFORE = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335];
    for (const t of [
      Date.UTC(2024, 1, 29, 1, 2, 3, 4),
      Date.UTC(2023, 11, 31, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      1655581336244.2942,
      -1,
    ]) {
      const d = new Date(Math.floor(t));
      const inDay = Math.floor(t) - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
      expect(clockOfEpoch(t), String(t)).toBe(
        (DAYS_BEFORE[d.getUTCMonth()]! + d.getUTCDate() - 1) * 86_400_000 + inDay,
      );
    }
  });
  it('a line that is not JSON continues the message before it, as a wrapped one does', () => {
    const { records } = readLogText('k.log', `${json}\n{"ts":1,"msg"\n`);
    expect(records.map((r) => r.lines)).toEqual([[1, 2]]);
  });

  it("bare JSON after a kubelet's first klog lines: put on their local clock by the zone they differ by", () => {
    const klog = (hms: string) =>
      `I0523 ${hms}.900000     268 server.go:446] "Kubelet version" kubeletVersion="v1.27.3"`;
    const at = (ts: number) => `{"ts":${ts},"caller":"kubelet/kubelet.go:2100","msg":"SyncLoop ADD","v":2}`;
    const times = (text: string) =>
      readLogText('k.log', text).records.map(
        (r) => r.timeMs - (readLogText('k.log', text).records[0]?.timeMs ?? 0),
      );
    // 09:50:58.123 UTC after a klog line at 11:50:57.9 local (UTC+2), 05:20:57.9 (UTC-4:30), 09:50:57.9 (UTC).
    const ts = 1684835458123;
    expect(times(`${klog('11:50:57')}\n${at(ts)}\n${at(ts + 2000)}\n`)).toEqual([0, 223, 2223]);
    expect(times(`${klog('05:20:57')}\n${at(ts)}\n`)).toEqual([0, 223]);
    expect(times(`${klog('09:50:57')}\n${at(ts)}\n`)).toEqual([0, 223]);
    // No klog line before it: UTC as it is.
    expect(readLogText('k.log', `${at(ts)}\n`).records[0]?.timeMs).toBe(clockOfEpoch(ts));
  });

  it("a record pretty-printed over several lines (jq's output, also as an array's elements) is one message", () => {
    const pretty = (o: Record<string, unknown>, comma = '') => `${JSON.stringify(o, null, 2)}${comma}`;
    const a = {
      ts: 1684835458123.456,
      caller: 'kubelet/kubelet.go:2100',
      msg: 'SyncLoop ADD',
      source: 'api',
      pods: ['default/web-0'],
      v: 2,
    };
    const b = { ...a, ts: 1684835460123.456, msg: 'SyncLoop DELETE {not a brace}', pods: ['default/web-0'] };
    const text = ['[', pretty(a, ','), pretty(b), ']', JSON.stringify({ ...a, ts: 1684835461123 }), ''].join(
      '\n',
    );
    const { records, skipped } = readLogText('k.log', text);
    expect(records.map((r) => [r.text.split(' ')[0], r.lines.length])).toEqual([
      ['"SyncLoop', 10],
      ['"SyncLoop', 10],
      ['"SyncLoop', 1],
    ]);
    expect(records[1]?.text).toContain('{not a brace}');
    expect(skipped).toEqual([1, 22]);
    // An object never closed is left as lines, each looked at a bounded number of times.
    const open = `${'{\n'.repeat(5_000)}${json}\n`;
    expect(readLogText('k.log', open).records).toHaveLength(1);
  });
});

// ---- the same log in both formats imports to the same scenario ----

/** A klog header behind an optional prefix (journald, grep, a viewer's time). */
const KLOG_LINE =
  /^(.{0,80}?)([IWEF])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6})\s+(\d+) ([^\]\s]+)\] ?(.*)$/;

/** A klog text value as the JSON format writes the same argument: refs as objects, lists as arrays. */
function jsonValue(key: string, raw: string): unknown {
  const ref = (s: string) => {
    const slash = s.indexOf('/');
    return slash < 0 ? { name: s } : { name: s.slice(slash + 1), namespace: s.slice(0, slash) };
  };
  if (raw.startsWith('"')) {
    const v = readQuoted(raw, 0)!.value;
    return key === 'pod' && /^[\w.-]+\/[\w.-]+$/.test(v) ? ref(v) : v;
  }
  if (raw.startsWith('['))
    return raw
      .slice(1, -1)
      .split(' ')
      .filter((s) => s !== '')
      .map(ref);
  if (/^&?\{/.test(raw))
    return Object.fromEntries(
      raw
        .replace(/^&?\{|\}$/g, '')
        .split(' ')
        .map((kv) => [kv.slice(0, kv.indexOf(':')), kv.slice(kv.indexOf(':') + 1)]),
    );
  return /^-?\d+(?:\.\d+)?$/.test(raw) ? Number(raw) : raw;
}

/** klog's structured text split into its message and raw values, in order. */
function splitStructured(text: string): { msg: string; pairs: [string, string][] } {
  const m = readQuoted(text, 0)!;
  const pairs: [string, string][] = [];
  let i = m.end;
  while (i < text.length) {
    while (text[i] === ' ') i++;
    const key = /^([A-Za-z_][\w.]*)=/.exec(text.slice(i));
    if (key === null) break;
    i += key[0].length;
    let end: number;
    if (text[i] === '"') end = readQuoted(text, i)!.end;
    else if (text[i] === '[' || text[i] === '{' || text[i] === '&') {
      const close = text[i] === '[' ? ']' : '}';
      end = text.indexOf(close, i) + 1;
    } else end = text.indexOf(' ', i) < 0 ? text.length : text.indexOf(' ', i);
    pairs.push([key[1]!, text.slice(i, end)]);
    i = end;
  }
  return { msg: m.value, pairs };
}

/** One klog line as the JSON format writes the same call (zap's key order: ts, caller, msg, v, values, err). */
function toJsonLine(line: string): string {
  const k = KLOG_LINE.exec(line);
  if (k === null) return line;
  const [, prefix, sev, mo, dd, h, mi, s, us, , src, rest] = k as unknown as string[];
  const ts = Date.UTC(2024, Number(mo) - 1, Number(dd), Number(h), Number(mi), Number(s)) + Number(us) / 1000;
  const v = sev === 'E' ? {} : { v: 0 };
  const head = { ts, caller: `pkg/${src}` };
  if (!rest!.startsWith('"')) return `${prefix}${JSON.stringify({ ...head, msg: `${rest}\n`, ...v })}`;
  const { msg, pairs } = splitStructured(rest!);
  const values = Object.fromEntries(
    pairs.filter(([key]) => key !== 'err').map(([key, raw]) => [key, jsonValue(key, raw)]),
  );
  const err = pairs.find(([key]) => key === 'err');
  const o = {
    ...head,
    msg,
    ...v,
    ...values,
    ...(err === undefined ? {} : { err: jsonValue('err', err[1]) }),
  };
  return `${prefix}${JSON.stringify(o)}`;
}

const importText = (log: string, name: string) =>
  importLogs([{ name: 'k.log', bytes: Buffer.from(log) }], { name }).yaml;

describe('a log in the JSON format imports as its klog text form does', () => {
  it('run --klog of every bundled scenario (first claim), each line as JSON behind journald', () => {
    const dir = bundledScenariosDir();
    let compared = 0;
    const kinds = new Set<string>();
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()) {
      const s = loadScenarioFile(join(dir, file));
      const claim = s.claims[0];
      if (claim === undefined) continue;
      const run = runScenario(s, { fixes: fixesOfClaim(claim.fixes), recordFacts: true });
      const lines = toKlogLines(run, s);
      if (lines.length === 0) continue;
      const json = lines.map(toJsonLine);
      expect(
        json.every((l) => /^[A-Z][a-z]{2} [ \d]\d [\d:]{8} \S+ [\w-]+\[\d+\]: \{"ts":/.test(l)),
        file,
      ).toBe(true);
      for (const l of json)
        for (const k of ['"pod":{"name":', '"pods":[{"name":', '"err":', '"event":{"ID":', '\\n"}'])
          if (l.includes(k)) kinds.add(k);
      expect(importText(klogText(json), s.name), file).toBe(importText(klogText(lines), s.name));
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
    expect(kinds.size).toBe(5);
  });

  it('every fixture: bare, journald, grep -n and viewer-prefixed lines, wrapped ones, printf and structured', () => {
    const dir = join(import.meta.dirname, 'fixtures');
    const read = (t: string) => {
      try {
        return importText(t, 'f');
      } catch (e) {
        return (e as Error).message;
      }
    };
    let converted = 0;
    for (const file of readdirSync(dir).sort()) {
      const log = readFileSync(join(dir, file), 'utf8');
      const json = log.split('\n').map(toJsonLine);
      converted += json.filter((l) => l.includes('{"ts":')).length;
      expect(read(json.join('\n')), file).toBe(read(log));
    }
    expect(converted).toBeGreaterThan(30);
  });
});
