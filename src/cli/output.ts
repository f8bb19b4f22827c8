// Every file podrace writes goes through here (traces, timelines, failure files, JUnit reports). What the
// target is decides how:
//
// - nothing there, or a regular file: written to a temporary file beside the target and renamed over it,
//   so a reader never sees half a file and an interrupted run leaves the old file whole. The temporary file
//   has a name nobody can guess and is created with O_EXCL | O_NOFOLLOW (a symlink in its place is an
//   error, never written through);
// - a character device (/dev/null, /dev/tty) or a FIFO, or a symlink to one: written into directly, never
//   replaced (as root, a rename over /dev/null would replace the device node with a regular file);
// - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written into that descriptor of podrace;
// - anything else (a symlink to a regular file or a folder, a directory, a block device, a socket): refused,
//   exit 2; podrace neither writes through a symlink it may not own nor replaces it.
//
// checkOutputPaths makes the same decision before any work starts (a campaign is not run for a report it
// cannot write); a write that still fails is the user's to fix: exit 2 with the path and the reason.
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from './errors.js';

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ?? (err instanceof Error ? err.message : String(err));
}

const TEMPORARY_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NOCTTY;

/** A new temporary file beside the target: its descriptor and name. */
function openTemporary(dir: string, base: string): { fd: number; name: string } {
  for (let attempt = 0; ; attempt++) {
    const name = join(dir, `.${base.slice(0, 200)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      return { fd: openSync(name, TEMPORARY_FLAGS, 0o666), name };
    } catch (err) {
      // Someone holds that name (a planted file or link): draw another, a few times.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw err;
    }
  }
}

/** How an output path is written. */
type Target =
  | { readonly how: 'rename' }
  | { readonly how: 'device' }
  | { readonly how: 'descriptor'; readonly fd: number }
  | { readonly how: 'refuse'; readonly why: string };

/** `/dev/stdout` and friends: the descriptor of podrace they name. */
function descriptorOf(path: string): number | undefined {
  const m = /^\/(?:dev\/(stdin|stdout|stderr)|dev\/fd\/(\d+)|proc\/self\/fd\/(\d+))$/.exec(resolve(path));
  if (m === null) return undefined;
  if (m[1] !== undefined) return { stdin: 0, stdout: 1, stderr: 2 }[m[1] as 'stdin' | 'stdout' | 'stderr'];
  return Number(m[2] ?? m[3]);
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'a regular file';
}

/** What `path` is now, and so how it is written (lstat: a symlink is looked at before it is followed). */
function targetOf(path: string): Target {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { how: 'rename' };
    throw err;
  }
  if (st.isFile()) return { how: 'rename' };
  if (st.isCharacterDevice() || st.isFIFO()) return { how: 'device' };
  if (st.isSymbolicLink()) {
    let fd = descriptorOf(path);
    if (fd === undefined) {
      try {
        fd = descriptorOf(resolve(dirname(path), readlinkSync(path)));
      } catch {
        // unreadable link: judged by what it points at below
      }
    }
    if (fd !== undefined) return { how: 'descriptor', fd };
    let to: Stats;
    try {
      to = statSync(path);
    } catch (err) {
      return { how: 'refuse', why: `a symbolic link that leads nowhere (${reason(err)})` };
    }
    if (to.isCharacterDevice() || to.isFIFO()) return { how: 'device' };
    return {
      how: 'refuse',
      why: `a symbolic link to ${kindOf(to)}; podrace neither writes through nor replaces a symlink: name the file itself`,
    };
  }
  return { how: 'refuse', why: `${kindOf(st)}; podrace writes regular files, character devices and pipes` };
}

/** Sleeps the thread (a pipe that is full, a FIFO whose reader has not opened it yet). */
const napCell = new Int32Array(new SharedArrayBuffer(4));
function nap(ms: number): void {
  Atomics.wait(napCell, 0, 0, ms);
}

/** How long a FIFO named as an output may wait for its reader to open it. */
const READER_WAIT_MS = 5000;

function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) {
    try {
      done += writeSync(fd, bytes, done);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      nap(5); // a pipe that is full for now
    }
  }
}

/** Opens a device or FIFO for writing without blocking; a FIFO without a reader is waited for a while. */
function openDevice(path: string): number {
  const flags = constants.O_WRONLY | constants.O_NOCTTY | constants.O_NONBLOCK | constants.O_APPEND;
  for (let waited = 0; ; waited += 20) {
    try {
      return openSync(path, flags);
    } catch (err) {
      // ENXIO: a FIFO nobody reads yet.
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
      if (waited >= READER_WAIT_MS)
        throw new Error(`ENXIO: a pipe with no reader after ${READER_WAIT_MS / 1000}s`);
      nap(20);
    }
  }
}

/**
 * Writes `text` to `path`: atomically over a regular file or nothing, directly into a device, a FIFO or
 * /dev/stdout (see the top of this file). `mkdir`: create the folder first.
 */
export function writeOutputFile(path: string, text: string, o: { readonly mkdir?: boolean } = {}): void {
  let tmp: string | undefined;
  try {
    if (o.mkdir === true) mkdirSync(dirname(path), { recursive: true });
    const bytes = Buffer.from(text, 'utf8');
    const target = targetOf(path);
    if (target.how === 'refuse') throw new Error(target.why);
    if (target.how === 'descriptor') {
      writeAll(target.fd, bytes);
      return;
    }
    if (target.how === 'device') {
      const fd = openDevice(path);
      try {
        writeAll(fd, bytes);
      } finally {
        closeSync(fd);
      }
      return;
    }
    const opened = openTemporary(dirname(path), basename(path));
    tmp = opened.name;
    try {
      writeAll(opened.fd, bytes);
    } finally {
      closeSync(opened.fd);
    }
    renameSync(tmp, path);
    tmp = undefined;
  } catch (err) {
    if (tmp !== undefined) rmSync(tmp, { force: true });
    throw new InputError(`${path}: cannot write file (${reason(err)})`);
  }
}

/**
 * Before any work: every output flag must name something podrace can write (the same decision as
 * writeOutputFile, without writing): its folder exists and is writable, or it is a writable device, FIFO or
 * open descriptor. A campaign or a verify is not run for a report it cannot write.
 */
export function checkOutputPaths(outputs: Readonly<Record<string, string | undefined>>): void {
  for (const [flag, path] of Object.entries(outputs)) {
    if (path === undefined) continue;
    const fail = (why: string) => new InputError(`${flag} ${path}: cannot write there (${why})`);
    let target: Target;
    try {
      target = targetOf(path);
    } catch (err) {
      throw fail(reason(err));
    }
    if (target.how === 'refuse') throw fail(target.why);
    try {
      if (target.how === 'descriptor') fstatSync(target.fd);
      else if (target.how === 'device') accessSync(path, constants.W_OK);
      else {
        const dir = dirname(path);
        if (!statSync(dir).isDirectory()) throw fail(`${dir} is not a folder`);
        accessSync(dir, constants.W_OK);
      }
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw fail(reason(err));
    }
  }
}

/** The real path of `path`, or of its folder joined with its name when it does not exist yet. */
function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

/**
 * Refuses output flags that name one of the inputs (`run s.yaml --trace s.yaml` would replace the scenario
 * with a trace) or the same file twice, comparing real paths (symlinks and `./` resolved).
 */
export function refuseInputsAsOutputs(
  inputs: readonly string[],
  outputs: Readonly<Record<string, string | undefined>>,
): void {
  const inputByReal = new Map<string, string>();
  for (const input of inputs) {
    try {
      inputByReal.set(realpathSync(input), input);
    } catch {
      // An input that does not exist is reported when it is read.
    }
  }
  const outputByReal = new Map<string, string>();
  for (const [flag, path] of Object.entries(outputs)) {
    if (path === undefined) continue;
    const real = realTarget(path);
    // Two outputs into /dev/null or a terminal are fine: only files that would replace each other clash.
    const shared = (() => {
      try {
        const st = statSync(path);
        return st.isCharacterDevice() || st.isFIFO();
      } catch {
        return false;
      }
    })();
    const input = inputByReal.get(real);
    if (input !== undefined) throw new InputError(`${flag} ${path}: would overwrite its input ${input}`);
    const other = shared ? undefined : outputByReal.get(real);
    if (other !== undefined) throw new InputError(`${flag} ${path}: the same file as ${other}`);
    outputByReal.set(real, `${flag} ${path}`);
  }
}
