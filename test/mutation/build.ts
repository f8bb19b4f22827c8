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

/** The plugin that substitutes the mutated text for one file (by absolute path). */
export function substitutePlugin(root: string, mutant: Pick<Mutant, 'file' | 'find' | 'replace'>): Plugin {
  const target = resolve(root, mutant.file);
  const escaped = target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    name: 'podrace-mutant',
    setup(b) {
      let loaded = false;
      b.onLoad({ filter: new RegExp(`^${escaped}$`) }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (occurrences(text, mutant.find) !== 1)
          return { errors: [{ text: `${mutant.file}: the mutant's find text does not occur exactly once` }] };
        loaded = true;
        return { contents: applyMutant(text, mutant), loader: 'ts' };
      });
      b.onEnd((r) => {
        // A mutant of a file the CLI never imports would silently build the baseline.
        if (r.errors.length === 0 && !loaded)
          r.errors.push({
            id: 'not-bundled',
            pluginName: 'podrace-mutant',
            text: `${mutant.file} is not part of the CLI bundle`,
            location: null,
            notes: [],
            detail: undefined,
          });
      });
    },
  };
}

export interface BuiltBundle {
  /** The folder of the bundle: podrace.js (the CLI), worker.js and their chunks. */
  readonly dir: string;
  /** `<dir>/podrace.js`. */
  readonly cli: string;
  readonly metafile: Metafile;
  readonly wallMs: number;
}

/**
 * Builds `<root>/.mutation/<id>/` (replacing what was there): the baseline when `mutant` is undefined.
 * Throws with esbuild's message if the bundle does not build.
 */
export async function buildBundle(
  root: string,
  id: string,
  mutant: Pick<Mutant, 'file' | 'find' | 'replace'> | undefined,
): Promise<BuiltBundle> {
  const start = performance.now();
  const outdir = bundleDir(root, id);
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { podrace: 'src/cli.ts', worker: 'src/fuzz/worker.ts' },
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
    plugins: mutant === undefined ? [] : [substitutePlugin(root, mutant)],
  });
  return {
    dir: outdir,
    cli: join(outdir, 'podrace.js'),
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
