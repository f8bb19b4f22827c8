// Every file podrace writes goes through here (traces, timelines, failure files, JUnit reports): written
// to a temporary file beside the target and renamed over it, so a reader never sees half a file and an
// interrupted run leaves the old file whole. Nothing planted in the folder is followed: the temporary file
// has a name nobody can guess and is created with O_EXCL | O_NOFOLLOW (a symlink in its place is an error,
// never written through), and rename(2) replaces a symlink at the target itself instead of writing to what
// it points at. A write that fails is the user's to fix: exit 2 with the path and the reason.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
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

/** Writes `text` to `path` atomically (temporary file, then rename); `mkdir`: create the folder first. */
export function writeOutputFile(path: string, text: string, o: { readonly mkdir?: boolean } = {}): void {
  let tmp: string | undefined;
  try {
    if (o.mkdir === true) mkdirSync(dirname(path), { recursive: true });
    const opened = openTemporary(dirname(path), basename(path));
    tmp = opened.name;
    try {
      const bytes = Buffer.from(text, 'utf8');
      for (let done = 0; done < bytes.length; ) done += writeSync(opened.fd, bytes, done);
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
    const input = inputByReal.get(real);
    if (input !== undefined) throw new InputError(`${flag} ${path}: would overwrite its input ${input}`);
    const other = outputByReal.get(real);
    if (other !== undefined) throw new InputError(`${flag} ${path}: the same file as ${other}`);
    outputByReal.set(real, `${flag} ${path}`);
  }
}
