// What `run` and `verify` accept where a scenario is expected: a file, a folder of *.yaml files, or the
// name of a bundled scenario (as `podrace list scenarios` prints it); and which folder `verify` checks
// when it is given none.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { bundledScenarioFiles, bundledScenariosDir } from '../scenario/bundled.js';
import { pathFiles, SCENARIO_EXTENSIONS } from '../scenario/files.js';
import { loadScenarioFile } from '../scenario/load.js';
import { didYouMean } from '../scenario/schema.js';
import { InputError } from './errors.js';

/** A name, not a path: no folder separator and no YAML extension. */
function looksLikeName(arg: string): boolean {
  return !/[/\\]/.test(arg) && !/\.ya?ml$/i.test(arg);
}

/** The bundled scenarios by name, in file order (a file that does not load is skipped here). */
export function bundledScenarioNames(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of bundledScenarioFiles()) {
    try {
      out.set(loadScenarioFile(file).name, file);
    } catch {
      // `podrace verify` reports a bundled file that does not load; a name lookup just skips it.
    }
  }
  return out;
}

/** The bundled scenario file of a name, or an error with a did-you-mean. */
export function bundledScenarioFile(name: string): string {
  const guess = join(bundledScenariosDir(), `${name}.yaml`);
  if (existsSync(guess)) {
    try {
      if (loadScenarioFile(guess).name === name) return guess;
    } catch {
      // Fall through to the full search, which names the closest scenario.
    }
  }
  const names = bundledScenarioNames();
  const file = names.get(name);
  if (file !== undefined) return file;
  throw new InputError(
    `${name}: no such file, and no bundled scenario has that name${didYouMean(name, [...names.keys()])}; \`npx podrace list scenarios\` lists them`,
  );
}

/** `run FILE|NAME`: an existing path as given, else a bundled scenario's name, else the path (the loader says it is missing). */
export function resolveScenarioArg(arg: string): string {
  return scenarioArg(arg).file;
}

/**
 * How a printed path names a file: relative to the current folder when the file is inside it (a bundled
 * scenario found by name, `verify`'s default folder), so hints and `file:line` locations are short and
 * work after a checkout elsewhere; else as it is.
 */
export function shownPath(path: string, cwd: string = process.cwd()): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? path : rel;
}

/** A scenario argument: the file to load, and how hints (replay commands, diff labels) name it. */
export interface ScenarioArg {
  readonly file: string;
  /** The bundled scenario's name as the user gave it, or the path (relative when inside the current folder). */
  readonly shown: string;
}

/** `run` / `diff` FILE|NAME: an existing path as given, else a bundled scenario's name, else the path. */
export function scenarioArg(arg: string): ScenarioArg {
  if (existsSync(arg) || !looksLikeName(arg)) return { file: arg, shown: shownPath(arg) };
  return { file: bundledScenarioFile(arg), shown: arg };
}

/**
 * The folder `verify` checks without arguments: the `scenarios/` folder of the project the current folder
 * is in (the nearest folder upward with a package.json), or podrace's bundled scenarios when that project
 * has none or there is no project.
 */
export function defaultScenariosDir(cwd: string = process.cwd()): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) {
      const own = join(dir, 'scenarios');
      return existsSync(own) && statSync(own).isDirectory() ? own : bundledScenariosDir();
    }
    const up = dirname(dir);
    if (up === dir) return bundledScenariosDir();
    dir = up;
  }
}

export interface ExpandedPaths {
  /** Scenario files, in argument order, each folder's sorted. */
  readonly files: readonly string[];
  /** Arguments that name nothing loadable, with the reason. */
  readonly invalid: readonly { readonly file: string; readonly message: string }[];
}

/**
 * Files, folders (their *.yaml / *.yml files, sorted) and bundled names; what cannot be found or read (a
 * missing path, a folder without permission, a FIFO or a link to a device among a folder's files) is
 * reported, not thrown, and never opened.
 */
export function expandScenarioPaths(paths: readonly string[]): ExpandedPaths {
  const files: string[] = [];
  const invalid: { file: string; message: string }[] = [];
  for (const p of paths) {
    if (!existsSync(p) && looksLikeName(p)) {
      try {
        files.push(shownPath(bundledScenarioFile(p)));
      } catch (err) {
        invalid.push({ file: p, message: (err as Error).message });
      }
      continue;
    }
    const found = pathFiles(p, SCENARIO_EXTENSIONS, 'scenario files (*.yaml)');
    files.push(...found.files);
    invalid.push(...found.invalid);
  }
  // One file named twice (`verify a.yaml ./a.yaml`, a folder and a file in it, a symlink to it) is checked
  // once, where it first appears: it is no clash with itself.
  const seen = new Set<string>();
  const unique = files.filter((f) => {
    let real: string;
    try {
      real = realpathSync(f);
    } catch {
      real = resolve(f);
    }
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
  return { files: unique, invalid };
}
