// Reads log files as the kubelet and kube-controller-manager write them into records: one message each,
// with its time, the writing process's PID, its component and the physical lines it came from. Accepted
// prefixes (docs/import.md): a klog header (`I0523 09:50:58.123456     268 kubelet.go:2100] msg`), a
// journald line (`May 23 09:50:58 host kubelet[268]: msg`, also `hyperkube[...]`, with or without a klog
// header inside), a line of the JSON format (`{"ts":1655581336244.29,"caller":..,"msg":..}`, jsonLines.ts;
// bare or behind journald), and any of them behind a `grep -n` prefix (`123:` or `file:123:`). A line
// without a header continues the previous message (a terminal wrapped it). Pure: bytes in, records out.
import { constants, gunzipSync } from 'node:zlib';
import { parseJsonLine } from './jsonLines.js';

export type Component = 'kubelet' | 'controller-manager';

export interface LogRecord {
  /** The file name as given. */
  readonly file: string;
  /** 1-based physical lines of the file the message spans (more than one when wrapped). */
  readonly lines: readonly number[];
  /**
   * Milliseconds on a synthetic clock: the header's month, day and time (no year in either format; a JSON
   * line's UTC time, or behind journald its host's local time), plus a year for every time the file's clock
   * stepped back more than 12 hours (31 Dec to 1 Jan).
   */
  readonly timeMs: number;
  /** The writing process (the klog header's PID, else journald's); 0 when neither names one. */
  readonly pid: number;
  /** journald's host name; '' for a bare klog line. */
  readonly host: string;
  /** What wrote it: from the journald identifier, else the klog header's source file, else the file's. */
  readonly component: Component | null;
  /** Severity letter of a klog header (I, W, E, F; a JSON line's: E or I); '' when none. */
  readonly severity: string;
  /** The klog header's source file and line (`kubelet.go:2100`; a JSON line's `caller`); '' when none. */
  readonly source: string;
  /**
   * The message: everything after the header(s), wrapped continuation lines joined by a space; a JSON
   * line's in klog's text form (jsonLines.ts).
   */
  readonly text: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Days before each month in a leap year: a synthetic year that has every date a log can name (29 Feb). */
const DAYS_BEFORE = [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335];
const DAY_MS = 86_400_000;
const YEAR_MS = 366 * DAY_MS;

const KLOG = /^([IWEF])(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6})\s+(\d+) ([^\]\s]+)\] ?(.*)$/;
/** journald's short format; the host is left out by some copies (`May 17 16:45:26 kubelet[3292]: ...`). */
const JOURNALD =
  /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))? (?:(\S+) )?([\w.-]+)\[(\d+)\]: ?(.*)$/;
/**
 * A klog header behind some other short prefix: a log viewer's or `kubectl logs --timestamps`' time
 * (`4/2/2018 9:26:16 PMI0403 00:26:16.961352 ...`, `2022-05-23T09:50:58Z I0523 ...`).
 */
const PREFIXED_KLOG = /^.{1,80}?(?=[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{6}\s+\d+ [^\]\s]+\] )/;
/** A JSON line behind such a prefix: upstream's, whose first key is `ts`. */
const PREFIXED_JSON = /^.{1,80}?(?=\{"ts":)/;
/** `grep -n` (`123:`), `grep -n` over several files (`file:123:`), and grep's context lines (`123-`). */
const GREP = /^(?:[^\s:]+[:-])?\d+[:-]/;

interface Header {
  readonly timeMs: number;
  /** How its time was read: a klog header's local time, or a bare JSON line's UTC (no journald around it). */
  readonly clock?: 'klog' | 'utc' | undefined;
  readonly pid: number;
  readonly host: string;
  readonly identifier: string;
  readonly severity: string;
  readonly source: string;
  readonly text: string;
}

function clock(month: number, day: number, h: string, m: string, s: string, fraction: string): number {
  const micros = Number(fraction.padEnd(6, '0'));
  return (
    ((DAYS_BEFORE[month] ?? 0) + day - 1) * DAY_MS +
    ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000 +
    Math.floor(micros / 1000)
  );
}

/** The synthetic clock's time of a UTC instant: its month and day by Hinnant's civil_from_days. */
export function clockOfEpoch(epochMs: number): number {
  const ms = Math.floor(epochMs);
  const days = Math.floor(ms / DAY_MS);
  const z = days + 719_468;
  const doe = z - Math.floor(z / 146_097) * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 2 : mp - 10;
  return ((DAYS_BEFORE[month] ?? 0) + day - 1) * DAY_MS + (ms - days * DAY_MS);
}

/**
 * The host's offset from UTC, from journald's local time of a JSON line and the line's own UTC time: their
 * difference within a day (the dates may differ by one, or by a year at New Year), to 15 minutes.
 */
function zoneOffsetMs(journaldMs: number, utcMs: number): number {
  const QUARTER = 15 * 60_000;
  let d = (((journaldMs - utcMs) % DAY_MS) + DAY_MS) % DAY_MS;
  if (d > 14 * 3_600_000) d -= DAY_MS;
  return Math.round(d / QUARTER) * QUARTER;
}

/** A line of the JSON format as a header; `journaldMs` is the time of journald's prefix around it. */
function jsonHeader(line: string, journaldMs: number | null): Header | null {
  const j = parseJsonLine(line);
  if (j === null) return null;
  // journald's time (and a klog line's) is the host's local time, the JSON's UTC: put the JSON line on the
  // local clock too, so that a file's klog lines (logged before the JSON logger is set up) and the
  // journald lines around it stay on one clock.
  const offset = journaldMs === null ? 0 : zoneOffsetMs(journaldMs, clockOfEpoch(j.epochMs));
  return {
    timeMs: clockOfEpoch(j.epochMs + offset),
    pid: 0,
    host: '',
    identifier: '',
    severity: j.severity,
    source: j.source,
    text: j.text,
  };
}

function klogHeader(line: string): Header | null {
  const k = KLOG.exec(line);
  if (k === null) return null;
  const [, sev, mo, dd, h, m, s, us, pid, src, text] = k as unknown as string[];
  const month = Number(mo) - 1;
  const day = Number(dd);
  if (month < 0 || month > 11 || day < 1 || day > 31) return null;
  return {
    timeMs: clock(month, day, h!, m!, s!, us!),
    pid: Number(pid),
    host: '',
    identifier: '',
    severity: sev!,
    source: src!,
    text: text!,
  };
}

/**
 * A header at the start of `line`: journald (maybe wrapping klog or JSON), klog, or a JSON line; null for
 * a continuation.
 */
export function parseHeader(raw: string): Header | null {
  const line = dockerLogLine(raw.replace(/\r$/, ''));
  const candidates = [line];
  const grep = GREP.exec(line);
  if (grep !== null) candidates.push(line.slice(grep[0].length));
  const prefixed = PREFIXED_KLOG.exec(line);
  if (prefixed !== null) candidates.push(line.slice(prefixed[0].length));
  const prefixedJson = PREFIXED_JSON.exec(line);
  if (prefixedJson !== null) candidates.push(line.slice(prefixedJson[0].length));
  for (const c of candidates) {
    const j = JOURNALD.exec(c);
    if (j !== null) {
      const [, mon, dd, h, m, s, frac, host, ident, pid, text] = j as unknown as string[];
      const journaldMs = clock(MONTHS.indexOf(mon!), Number(dd), h!, m!, s!, frac ?? '');
      const json = jsonHeader(text!, journaldMs);
      if (json !== null) return { ...json, pid: Number(pid), host: host ?? '', identifier: ident! };
      const inner = klogHeader(text!);
      const outer: Header = {
        timeMs: journaldMs,
        pid: Number(pid),
        host: host ?? '',
        identifier: ident!,
        severity: '',
        source: '',
        text: text!,
      };
      // klog's time has microseconds, journald's (short format) seconds: take klog's, and its PID, which
      // is the process's own (journald's is the same process; a wrapper script's would differ).
      return inner === null ? outer : { ...inner, host: host ?? '', identifier: ident! };
    }
    const k = klogHeader(c);
    if (k !== null) return { ...k, clock: 'klog' };
    const bare = jsonHeader(c, null);
    if (bare !== null) return { ...bare, clock: 'utc' };
  }
  return null;
}

/**
 * A line of Docker's json-file log driver (`docker logs` of a kubelet in a container, /var/lib/docker/
 * containers/*-json.log): `{"log":"I0523 09:50:58.123456 ...\n","stream":"stderr","time":"..."}`. The
 * line the kubelet wrote is `log`, with its quotes escaped; anything else is returned as it is.
 */
function dockerLogLine(line: string): string {
  if (!line.startsWith('{"log":')) return line;
  try {
    const o: unknown = JSON.parse(line);
    if (typeof o !== 'object' || o === null) return line;
    const log = (o as { log?: unknown }).log;
    return typeof log === 'string' ? log.replace(/\r?\n$/, '') : line;
  } catch {
    return line;
  }
}

/**
 * Joins a continuation line to the message: a terminal wraps at a column, in the middle of a word
 * (`pvc-c7f6-` / `1e2d`), after a space, or at a word's end; a space is added only between two words.
 */
function joinWrapped(message: string, continuation: string): string {
  if (/[\s\-_/.:=,([{]$/.test(message)) return message + continuation;
  return `${message} ${continuation}`;
}

function componentOf(identifier: string, source: string, fileName: string): Component | null {
  const id = identifier.toLowerCase();
  if (id.includes('controller-manager') || id.includes('controller_manager')) return 'controller-manager';
  if (id === 'kubelet') return 'kubelet';
  // hyperkube runs either; its klog source file tells.
  if (/^attach_detach_controller\.go|^controllermanager\.go/.test(source)) return 'controller-manager';
  const f = fileName.toLowerCase();
  if (f.includes('controller-manager') || f.includes('controller_manager')) return 'controller-manager';
  if (id === 'hyperkube' || source !== '' || f.includes('kubelet')) return 'kubelet';
  return null;
}

/** A log is read whole, gunzipped or not: 64 MiB (a day of a busy kubelet at -v=2 is some tens of MiB). */
export const LOG_BYTES_MAX = 64 * 1024 * 1024;

/** Why a gzip file gives no text: it is not gzip after all, or it unpacks to more than the bound. */
export class LogDecodeError extends Error {}

/**
 * The text of a file: gunzipped when it starts with gzip's magic bytes, UTF-8 (invalid bytes replaced). A
 * gzip file cut short (an attachment truncated on its way) gives what it holds; one that unpacks to more
 * than `maxBytes`, or is no gzip stream, is a LogDecodeError, so a small file cannot unpack to gigabytes.
 */
export function decodeLogBytes(bytes: Uint8Array, maxBytes = LOG_BYTES_MAX): string {
  return decodeLogFile(bytes, maxBytes).text;
}

/** decodeLogBytes, saying whether the file was a gzip stream cut short. */
export function decodeLogFile(
  bytes: Uint8Array,
  maxBytes = LOG_BYTES_MAX,
): { readonly text: string; readonly cutShort: boolean } {
  const gz = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (!gz) return { text: new TextDecoder('utf-8').decode(bytes), cutShort: false };
  const unpack = (finishFlush: number): Uint8Array => {
    try {
      return gunzipSync(bytes, { maxOutputLength: maxBytes, finishFlush });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE')
        throw new LogDecodeError(`more than ${maxBytes / (1024 * 1024)} MiB once gunzipped`);
      if (code === 'Z_BUF_ERROR' && finishFlush === constants.Z_FINISH) throw new CutShort();
      throw new LogDecodeError(
        `starts as gzip but does not unpack (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  };
  try {
    return { text: new TextDecoder('utf-8').decode(unpack(constants.Z_FINISH)), cutShort: false };
  } catch (err) {
    if (!(err instanceof CutShort)) throw err;
    // The stream ends early: Z_SYNC_FLUSH gives what it holds without insisting on its end.
    return { text: new TextDecoder('utf-8').decode(unpack(constants.Z_SYNC_FLUSH)), cutShort: true };
  }
}

class CutShort extends Error {}

/** The most physical lines one pretty-printed JSON record (`jq .` output) may span. */
const PRETTY_JSON_LINES_MAX = 200;

/**
 * A pretty-printed JSON record starting at `physical[start]` (a line that is only `{`, as jq prints one):
 * its lines up to the one that closes the object, if they parse as one JSON log line; null if they do
 * not, 'open' if the object is not closed within PRETTY_JSON_LINES_MAX lines. Strings are skipped while counting braces, so a brace inside a message does not count.
 */
function prettyJsonRecord(
  physical: readonly string[],
  start: number,
): { header: Header; count: number } | 'open' | null {
  if ((physical[start] ?? '').trim() !== '{') return null;
  let depth = 0;
  let inString = false;
  let escaped = false;
  const parts: string[] = [];
  const end = Math.min(physical.length, start + PRETTY_JSON_LINES_MAX);
  for (let i = start; i < end; i++) {
    const line = (physical[i] ?? '').replace(/\r$/, '');
    parts.push(line.trim());
    for (const ch of line) {
      if (escaped) escaped = false;
      else if (inString) {
        if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{') depth++;
      else if (ch === '}') depth--;
    }
    if (depth <= 0) {
      if (i === start) return null;
      // An element of a JSON array (jq -s) ends in a comma.
      const header = parseHeader(parts.join(' ').replace(/,\s*$/, ''));
      return header === null ? null : { header, count: i - start + 1 };
    }
  }
  return 'open';
}

/** One file's records, in file order. Lines before the first header are counted in `skipped`. */
export function readLogText(file: string, text: string): { records: LogRecord[]; skipped: number[] } {
  const records: LogRecord[] = [];
  const skipped: number[] = [];
  let current: { header: Header; lines: number[]; parts: string[] } | null = null;
  let yearOffset = 0;
  let lastTime: number | null = null;
  const flush = () => {
    if (current === null) return;
    const h = current.header;
    records.push({
      file,
      lines: current.lines,
      timeMs: h.timeMs,
      pid: h.pid,
      host: h.host,
      component: componentOf(h.identifier, h.source, file),
      severity: h.severity,
      source: h.source,
      text: current.parts.reduce(joinWrapped),
    });
  };
  const physical = text.split('\n');
  if (physical.length > 0 && physical[physical.length - 1] === '') physical.pop();
  let prettyOpenUntil = 0;
  let lastKlogMs: number | null = null;
  let utcOffsetMs: number | null = null;
  for (let i = 0; i < physical.length; i++) {
    const raw = physical[i] ?? '';
    let header = parseHeader(raw);
    let span = 1;
    if (header === null && i >= prettyOpenUntil) {
      // A JSON record printed over several lines (jq's output pasted into a report) is one message. An
      // object left open is not looked for again inside its window: each line is scanned a bounded number
      // of times, whatever the file holds.
      const pretty = prettyJsonRecord(physical, i);
      if (pretty === 'open') prettyOpenUntil = i + PRETTY_JSON_LINES_MAX;
      else if (pretty !== null) ({ header, count: span } = pretty);
    }
    if (header === null) {
      const rest = raw.replace(/\r$/, '').trim();
      // The brackets of a JSON array of records (jq -s) continue no message.
      if (rest === '[' || rest === ']') {
        skipped.push(i + 1);
        continue;
      }
      if (current !== null && rest !== '') {
        current.lines.push(i + 1);
        current.parts.push(rest);
      } else if (rest !== '') skipped.push(i + 1);
      continue;
    }
    flush();
    if (header.clock === 'klog') lastKlogMs = header.timeMs;
    else if (header.clock === 'utc') {
      // A bare JSON line is UTC, the klog lines a kubelet writes before its JSON logger is set up are the
      // host's local time: the first JSON line after one puts the file's JSON lines on that clock, when
      // they differ by a zone's offset (15 minutes to 14 hours, to 15 minutes).
      if (utcOffsetMs === null && lastKlogMs !== null) utcOffsetMs = zoneOffsetMs(lastKlogMs, header.timeMs);
      if (utcOffsetMs !== null && utcOffsetMs !== 0)
        header = { ...header, timeMs: header.timeMs + utcOffsetMs };
    }
    // The formats carry no year: a step back of more than 12 hours is the new year, so time stays monotone.
    let t = header.timeMs + yearOffset;
    if (lastTime !== null && t < lastTime - DAY_MS / 2) {
      yearOffset += YEAR_MS;
      t += YEAR_MS;
    }
    lastTime = t;
    const lines = Array.from({ length: span }, (_, k) => i + 1 + k);
    current = { header: { ...header, timeMs: t }, lines, parts: [header.text] };
    i += span - 1;
  }
  flush();
  return { records, skipped };
}

/**
 * Several files merged by time: each file keeps its own order (a message logged a little out of time
 * order by another goroutine stays where its file has it), and of the files' next records the earliest
 * goes first, the file given first on a tie.
 */
export function mergeByTime(files: readonly (readonly LogRecord[])[]): LogRecord[] {
  const next = files.map(() => 0);
  const out: LogRecord[] = [];
  for (;;) {
    let best = -1;
    for (let f = 0; f < files.length; f++) {
      const r = files[f]?.[next[f] ?? 0];
      if (r === undefined) continue;
      const b = best < 0 ? undefined : files[best]?.[next[best] ?? 0];
      if (b === undefined || r.timeMs < b.timeMs) best = f;
    }
    if (best < 0) return out;
    out.push(files[best]![next[best]!]!);
    next[best] = next[best]! + 1;
  }
}
