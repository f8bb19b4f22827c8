// Every file podrace writes goes through here (traces, timelines, failure files, JUnit reports): written
// to a temporary file beside the target and renamed over it, so a reader never sees half a file and an
// interrupted run leaves the old file whole. A write that fails is the user's to fix: exit 2 with the
// path and the reason.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InputError } from './errors.js';

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ?? (err instanceof Error ? err.message : String(err));
}

/** Writes `text` to `path` atomically (temporary file, then rename); `mkdir`: create the folder first. */
export function writeOutputFile(path: string, text: string, o: { readonly mkdir?: boolean } = {}): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    if (o.mkdir === true) mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new InputError(`${path}: cannot write file (${reason(err)})`);
  }
}
