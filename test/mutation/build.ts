// Builds the CLI once per mutant, as scripts/bundle.mjs builds dist/bin/ (same entry points and options),
// with an esbuild plugin that hands esbuild the mutated text of the one file the mutant changes. Every
// bundle sits exactly two folders below a checkout (`<root>/.mutation/<id>/`), as dist/bin/ does, so the
// `new URL('../../scenarios', import.meta.url)` of src/ (the bundled scenarios, package.json) resolves to
// that checkout's files.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import type { Mutant } from './catalogue.js';
import { applyMutant, occurrences } from './validate.js';

/** The folder below a checkout that holds one bundle per mutant (.gitignore'd). */
export const MUTATION_DIR = '.mutation';
/** The unmutated build's folder name. */
export const BASELINE_ID = '_baseline';

/** Where the bundle of `id` goes: `<root>/.mutation/<id>/`. */
export function bundleDir(root: string, id: string): string {
  return join(root, MUTATION_DIR, id);
}

/**
 * The plugin that substitutes the mutated text for one file (by absolute path); `loaded()` says whether
 * esbuild asked for that file at all (a file the CLI never imports would silently build the baseline).
 */
export function substitutePlugin(
  root: string,
  mutant: Pick<Mutant, 'file' | 'find' | 'replace'>,
): { plugin: Plugin; loaded: () => boolean } {
  const target = resolve(root, mutant.file);
  const escaped = target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let loaded = false;
  const plugin: Plugin = {
    name: 'podrace-mutant',
    setup(b) {
      b.onLoad({ filter: new RegExp(`^${escaped}$`) }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (occurrences(text, mutant.find) !== 1)
          return { errors: [{ text: `${mutant.file}: the mutant's find text does not occur exactly once` }] };
        loaded = true;
        return { contents: applyMutant(text, mutant), loader: 'ts' };
      });
    },
  };
  return { plugin, loaded: () => loaded };
}

export interface BuiltBundle {
  /** The folder of the bundle: podrace.js (the CLI), worker.js and their chunks. */
  readonly dir: string;
  /** `<dir>/podrace.js` (the first entry point's file: `<dir>/probe.js` for the probe). */
  readonly cli: string;
  readonly metafile: Metafile;
  readonly wallMs: number;
}

/** The CLI's entry points, as scripts/bundle.mjs has them. */
export const CLI_ENTRY_POINTS = { podrace: 'src/cli.ts', worker: 'src/fuzz/worker.ts' };
/** The reach probe's entry point (probe.ts), built beside a mutant's CLI only for a survivor. */
export const PROBE_ENTRY_POINTS = { probe: 'test/mutation/probe.ts' };

/**
 * Builds the sources of `root` into `<outRoot>/.mutation/<id>/` (replacing what was there): the baseline
 * when `mutant` is undefined. `outRoot` is the checkout itself, or a folder holding links to its
 * package.json and scenarios/ (the tests build there). Throws with esbuild's message if it does not build.
 */
export async function buildBundle(
  root: string,
  id: string,
  mutant: Pick<Mutant, 'file' | 'find' | 'replace'> | undefined,
  outRoot: string = root,
  entryPoints: Record<string, string> = CLI_ENTRY_POINTS,
): Promise<BuiltBundle> {
  const start = performance.now();
  const outdir = bundleDir(outRoot, id);
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const substitute = mutant === undefined ? undefined : substitutePlugin(root, mutant);
  const result = await build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunk-[hash]',
    // CommonJS dependencies (seedrandom, junit-report-builder) call require(); an ES module has none.
    banner: {
      js: "import { createRequire as __podraceCreateRequire } from 'node:module'; const require = __podraceCreateRequire(import.meta.url);",
    },
    minify: false,
    metafile: true,
    logLevel: 'silent',
    plugins: substitute === undefined ? [] : [substitute.plugin],
  });
  if (substitute !== undefined && !substitute.loaded())
    throw new Error(`${mutant?.file}: not part of the bundle (the mutant would change nothing)`);
  const main = Object.keys(entryPoints)[0] ?? 'podrace';
  return {
    dir: outdir,
    cli: join(outdir, `${main}.js`),
    metafile: result.metafile,
    wallMs: performance.now() - start,
  };
}

/** The output file (absolute path) whose code holds `file` (repo-relative), from the bundle's metafile. */
export function outputOf(root: string, bundle: BuiltBundle, file: string): string | undefined {
  for (const [out, meta] of Object.entries(bundle.metafile.outputs)) {
    if (Object.keys(meta.inputs).includes(file)) return resolve(root, out);
  }
  return undefined;
}
