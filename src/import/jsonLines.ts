// The kubelet's JSON log format (`--logging-format=json`): one line's object read as its time, severity,
// source and the klog text form the same call prints (`"msg" key="value" pods=[ns/a ns/b]`). Pure.
//
// What upstream writes, from the sources read for this file:
// - k8s.io/component-base/logs/json/json.go (kubernetes/kubernetes staging/src/k8s.io/component-base/logs/
//   json/json.go): a zap JSON encoder with the keys `ts` (epochMillisTimeEncoder: a float of milliseconds
//   since the epoch, `1655581336244.2942`), `caller` (ShortCallerEncoder: `kubelet/kubelet.go:2102`) and
//   `msg`; zapr with LogInfoLevel("v") (info lines carry `"v":N`, error lines none) and ErrorKey("err"). No
//   level, severity, pid or stack key: a warning is an info line with `"v":0`.
// - its tests json_test.go and klog_test.go: `{"ts":%f,"caller":"json/klog_test.go:%d","msg":"test","v":0,
//   "count":1}`, ErrorS as `{"ts":..,"caller":..,"msg":"test","count":1,"err":"fail"}` (no `v`, `err`
//   last), klog.Infof as `"msg":"test 1\n"` (newer klog's output() drops the newline), KObj as
//   `"pod":{"name":"pod-1","namespace":"kube-system"}`, KObjs as an array of those.
// - klog/v2 k8s_references.go: ObjectRef is `{"name":..,"namespace":..}` (namespace omitempty) by
//   MarshalLog, `ns/name` by String(); KObjSlice marshals to an array of them. (Before ObjectRef had
//   MarshalLog, zap logged it by String(): `"pod":"kube-system/x"`.) ResourceRef likewise, String() joining
//   its non-empty parts with `/`.
// - klog/v2 internal/serialize/keyvalues.go (the text form): Stringer, string and error values are
//   strconv.Quote'd, anything else printed with %+v; ErrorS writes `err=` right after the message.
// - The Kubernetes docs' example (concepts/cluster-administration/system-logs) gives `"ts": 1580306777.04728`,
//   in seconds: a `ts` below 1e11 is read as seconds (1e11 ms is March 1973, 1e11 s the year 5138).

export interface JsonLine {
  /** Milliseconds since the epoch (UTC). */
  readonly epochMs: number;
  /** 'E' for an error line (no `v`), else 'I'. */
  readonly severity: string;
  /** The caller's file base name and line (`kubelet.go:2102`); '' when the line names none. */
  readonly source: string;
  /** The message in klog's text form. */
  readonly text: string;
}

/** Keys the line's header carries; every other key is one of the call's key/value pairs. */
const HEADER_KEYS = new Set(['ts', 'caller', 'msg', 'v', 'err']);
/** Keys klog's text form can carry readably (keyValues.ts stops at any other). */
const PLAIN_KEY = /^[A-Za-z_][\w.]*$/;
/** Nesting printed before `...` stands for the rest: the value printer recurses. */
const MAX_DEPTH = 16;
const MAX_EPOCH_MS = 8.64e15;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: Json): v is { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

/** Go's strconv.Quote: `"`, `\` and control characters escaped, other non-printable runes as \u or \U. */
export function goQuote(s: string): string {
  const body = s.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/gu, (ch) => {
    const simple = SIMPLE_ESCAPES[ch];
    if (simple !== undefined) return simple;
    if (PRINTABLE.test(ch)) return ch;
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || cp === 0x7f) return `\\x${hex(cp, 2)}`;
    // A lone surrogate is no rune: Go writes the replacement character for an invalid one.
    if (cp >= 0xd800 && cp <= 0xdfff) return '\\ufffd';
    return cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
  });
  return `"${body}"`;
}

/** klog's ObjectRef (`ns/name`) or ResourceRef (`group/version/kind/ns/name`) String(); null for another object. */
function refString(o: { [key: string]: Json }): string | null {
  const keys = Object.keys(o);
  if (keys.length === 0 || !keys.every((k) => typeof o[k] === 'string')) return null;
  const s = (k: string) => (o[k] as string | undefined) ?? '';
  if (keys.every((k) => k === 'name' || k === 'namespace') && 'name' in o)
    return s('namespace') === '' ? s('name') : `${s('namespace')}/${s('name')}`;
  const resource = ['group', 'version', 'kind', 'namespace', 'name'];
  if (
    keys.every((k) => resource.includes(k)) &&
    keys.some((k) => k === 'group' || k === 'version' || k === 'kind')
  )
    return resource
      .map(s)
      .filter((p) => p.trim() !== '')
      .join('/');
  return null;
}

/** A value as Go's %+v prints it: strings bare, lists `[a b]`, objects `{key:value ...}`, null `<nil>`. */
function plain(v: Json, depth: number): string {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v.replace(/\s*\n\s*/g, ' ');
  if (typeof v !== 'object') return String(v);
  if (depth >= MAX_DEPTH) return Array.isArray(v) ? '[...]' : '{...}';
  if (Array.isArray(v)) return `[${v.map((e) => plain(e, depth + 1)).join(' ')}]`;
  const ref = refString(v);
  if (ref !== null) return ref;
  return `{${Object.entries(v)
    .map(([k, e]) => `${k}:${plain(e, depth + 1)}`)
    .join(' ')}}`;
}

/** A key's value as klog's text form writes it: strings and object references quoted, the rest %+v. */
function klogValue(v: Json): string {
  if (typeof v === 'string') return goQuote(v);
  if (isObject(v)) {
    const ref = refString(v);
    if (ref !== null) return goQuote(ref);
  }
  return plain(v, 0);
}

/**
 * The klog text of a line's message and values. A line with neither (a printf-style call: klog.Infof,
 * Errorf) is the bare message, as klog prints it; a structured call's is `"msg" err="..." key=value ...`.
 * JSON.parse puts integer-like keys first; keys klog's text cannot carry readably (those, and keys with
 * spaces, such as zapr's `"invalid key"`) are written after the others so that they hide none of them.
 */
function klogForm(o: { [key: string]: Json }, msg: string): string {
  const keys = Object.keys(o).filter((k) => !HEADER_KEYS.has(k));
  if (keys.length === 0 && !('err' in o)) return msg.replace(/\n$/, '').replace(/\s*\n\s*/g, ' ');
  const ordered = [...keys.filter((k) => PLAIN_KEY.test(k)), ...keys.filter((k) => !PLAIN_KEY.test(k))];
  const pairs = ('err' in o ? ['err', ...ordered] : ordered).map((k) => `${k}=${klogValue(o[k]!)}`);
  return [goQuote(msg), ...pairs].join(' ');
}

/** One line of the JSON format: an object with a numeric `ts` and a string `msg`; null for any other text. */
export function parseJsonLine(raw: string): JsonLine | null {
  const line = raw.trim();
  if (!line.startsWith('{') || !line.endsWith('}')) return null;
  let o: Json;
  try {
    o = JSON.parse(line) as Json;
  } catch {
    return null;
  }
  if (!isObject(o)) return null;
  const { ts, msg, caller } = o;
  if (typeof ts !== 'number' || !Number.isFinite(ts) || typeof msg !== 'string') return null;
  const epochMs = Math.abs(ts) < 1e11 ? ts * 1000 : ts;
  if (Math.abs(epochMs) > MAX_EPOCH_MS) return null;
  return {
    epochMs,
    severity: 'v' in o ? 'I' : 'E',
    source: typeof caller === 'string' ? caller.replace(/^.*\//, '') : '',
    text: klogForm(o, msg),
  };
}
