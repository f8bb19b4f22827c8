// Everything podrace reads from the user's file system: scenario files (run, verify, list), the folders
// that verify walks, the shard outputs that merge reads. Whatever the path names (a FIFO, /dev/zero, a
// symlink loop, a folder without permission), reading returns promptly with the text or throws one
// InputError naming the path and the reason (exit 2): it never blocks, never reads past a size limit and
// never lets a file-system error out as a stack trace.
//
// Pipes: a pipe named on the command line is read (`podrace run <(sed ... s.yaml)`), capped like a file, if
// a writer has it open already, as process substitution gives; podrace never waits for a writer to appear
// (it opens without blocking and reads a pipe nobody writes to as empty), and a read that finds nothing for
// SILENT_INPUT_MS (a writer that stays silent, /proc/kmsg) is an InputError, not a hang. In a folder only
// regular files
// (or symlinks to them) are read; any other `*.yaml` there is reported, not opened.
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  type Stats,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileError } from './errors.js';
import { FILE_BYTES_TEXT, LIMITS } from './limits.js';

export interface ReadLimit {
  /** Refuse a file or pipe holding more than this many bytes (without reading past it). */
  readonly maxBytes: number;
  /** The limit as the message prints it: `2 MiB`. */
  readonly maxText: string;
}

/** `EACCES: permission denied`: the code and what it means, without Node's `, open 'path'` tail. */
export function errnoReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const message = err instanceof Error ? err.message : String(err);
  if (e.code === undefined) return message;
  const described = new RegExp(`^${e.code}: ([^,]+)`).exec(message)?.[1];
  return described === undefined ? e.code : `${e.code}: ${described}`;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function tooLarge(path: string, bytes: string, limit: ReadLimit) {
  return fileError(path, `too large: ${bytes} (at most ${limit.maxText})`);
}

function statOrThrow(path: string): Stats {
  try {
    return statSync(path);
  } catch (err) {
    throw fileError(path, `cannot read (${errnoReason(err)})`);
  }
}

/** Sleeps the thread (a pipe whose writer has not written yet); Atomics.wait is allowed on Node's main thread. */
const napCell = new Int32Array(new SharedArrayBuffer(4));
function nap(ms: number): void {
  Atomics.wait(napCell, 0, 0, ms);
}

const CHUNK_BYTES = 64 * 1024;

/**
 * How long a read may find nothing to read before podrace gives up: a FIFO whose writer stays silent,
 * /proc/kmsg (which blocks until the kernel logs). A writer that is there sends within milliseconds.
 */
export const SILENT_INPUT_MS = 5000;
const NAP_MS = 10;

/**
 * The text of a regular file or of a pipe named explicitly, at most `limit.maxBytes` bytes. `what` names
 * the expected content in messages ("a scenario file").
 */
export function readInputText(path: string, limit: ReadLimit, what: string): string {
  return readInputBytes(path, limit, what).toString('utf8');
}

/** The bytes of a regular file or of a pipe named explicitly, as readInputText reads them (gzip stays as is). */
export function readInputBytes(path: string, limit: ReadLimit, what: string): Buffer {
  const before = statOrThrow(path);
  if (before.isDirectory()) throw fileError(path, `is a directory; expected ${what}`);
  if (!before.isFile() && !before.isFIFO()) {
    throw fileError(path, `${kindOf(before)}, not ${what}; podrace reads regular files and pipes`);
  }
  if (before.isFile() && before.size > limit.maxBytes) throw tooLarge(path, `${before.size} bytes`, limit);
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO without a writer would otherwise wait for one for ever.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    throw fileError(path, `cannot read (${errnoReason(err)})`);
  }
  try {
    // What was opened may not be what was looked at (the path was replaced in between): check it again.
    const st = fstatSync(fd);
    if (!st.isFile() && !st.isFIFO()) {
      throw fileError(path, `${kindOf(st)}, not ${what}; podrace reads regular files and pipes`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    let silentMs = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limit.maxBytes + 1 - total));
      let n: number;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
          // A pipe whose writer has not written yet: waited for, a while.
          if (silentMs >= SILENT_INPUT_MS) {
            throw fileError(
              path,
              `nothing to read for ${SILENT_INPUT_MS / 1000}s (${total} bytes read): a writer that stays silent, or a file that waits for events; podrace reads a pipe whose writer sends it a scenario`,
            );
          }
          nap(NAP_MS);
          silentMs += NAP_MS;
          continue;
        }
        throw fileError(path, `cannot read (${errnoReason(err)})`);
      }
      if (n === 0) break;
      silentMs = 0;
      chunks.push(buffer.subarray(0, n));
      total += n;
      if (total > limit.maxBytes) throw tooLarge(path, `more than ${limit.maxBytes} bytes`, limit);
    }
    if (total === 0 && st.isFIFO()) {
      throw fileError(
        path,
        'a pipe with nothing to read: no writer has it open (podrace reads a pipe from a writer that is already there, as <(...) gives)',
      );
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/**
 * The files a list of paths names: each file as given (a pipe included), each folder as its files ending in
 * one of `extensions` (sorted), every one of which must be a regular file or a symlink to one. `what` names
 * the files in messages ("scenario files (*.yaml)").
 */
export function inputFiles(paths: readonly string[], extensions: readonly string[], what: string): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const st = statOrThrow(p);
    if (!st.isDirectory()) {
      out.push(p);
      continue;
    }
    let names: string[];
    try {
      names = readdirSync(p);
    } catch (err) {
      throw fileError(p, `cannot list the folder (${errnoReason(err)})`);
    }
    const files = names
      .filter((f) => extensions.some((e) => f.endsWith(e)))
      .sort()
      .map((f) => join(p, f));
    if (files.length === 0) throw fileError(p, `no ${what} in this folder`);
    for (const f of files) {
      // stat follows a symlink: a link to /dev/zero or to a FIFO is what it points at, and is refused.
      const entry = statOrThrow(f);
      if (!entry.isFile()) {
        throw fileError(
          f,
          `${kindOf(entry)}, not a regular file; in a folder podrace reads regular files only`,
        );
      }
    }
    out.push(...files);
  }
  return out;
}

/** One path's files, or why it has none: for callers that report a bad path and go on (verify). */
export interface PathFiles {
  readonly files: readonly string[];
  readonly invalid: readonly { readonly file: string; readonly message: string }[];
}

/**
 * As inputFiles, for one path, reporting instead of throwing: a folder's entries that are not regular files
 * (a FIFO, a link to /dev/zero, a link loop) are reported one by one and the others kept.
 */
export function pathFiles(path: string, extensions: readonly string[], what: string): PathFiles {
  const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
  let st: Stats;
  try {
    st = statOrThrow(path);
  } catch (err) {
    return { files: [], invalid: [{ file: path, message: message(err) }] };
  }
  if (!st.isDirectory()) return { files: [path], invalid: [] };
  let names: string[];
  try {
    names = readdirSync(path);
  } catch (err) {
    return {
      files: [],
      invalid: [
        { file: path, message: fileError(path, `cannot list the folder (${errnoReason(err)})`).message },
      ],
    };
  }
  const candidates = names
    .filter((f) => extensions.some((e) => f.endsWith(e)))
    .sort()
    .map((f) => join(path, f));
  if (candidates.length === 0)
    return {
      files: [],
      invalid: [{ file: path, message: fileError(path, `no ${what} in this folder`).message }],
    };
  const files: string[] = [];
  const invalid: { file: string; message: string }[] = [];
  for (const f of candidates) {
    try {
      const entry = statOrThrow(f);
      if (!entry.isFile()) {
        throw fileError(
          f,
          `${kindOf(entry)}, not a regular file; in a folder podrace reads regular files only`,
        );
      }
      files.push(f);
    } catch (err) {
      invalid.push({ file: f, message: message(err) });
    }
  }
  return { files, invalid };
}

// ---- scenario files -------------------------------------------------------------------------------------

export const SCENARIO_EXTENSIONS = ['.yaml', '.yml'] as const;

/** The text of one scenario file, at most LIMITS.fileBytes. */
export function readScenarioText(path: string): string {
  return readInputText(path, { maxBytes: LIMITS.fileBytes, maxText: FILE_BYTES_TEXT }, 'a scenario file');
}

/** The scenario files of a folder (sorted), or the file itself. */
export function scenarioFiles(paths: readonly string[]): string[] {
  return inputFiles(paths, SCENARIO_EXTENSIONS, 'scenario files (*.yaml)');
}
