// Bundles the CLI and the fuzz worker after tsc has built dist/ (`npm run build` runs both). Node 20 has
// no compile cache for ES modules, and it resolves, stats, reads and compiles each module file on its own:
// a `podrace run` opened 368 module files (zod alone 99, yaml 84) and spent more time on that than on its
// simulation. Bundled, with the command handlers split into chunks loaded on demand (the dynamic imports of
// src/cli/commands.ts stay lazy), `--help` and `list` read a few files and never the simulator.
//
// Layout: dist/bin/podrace.js (src/cli.ts), dist/bin/worker.js (src/fuzz/worker.ts) and their shared
// chunks; dist/cli.js, the `podrace` of package.json, is a stub that imports dist/bin/podrace.js. Every
// bundled file sits two folders below the checkout, as tsc's modules do, so the `new URL('../../...',
// import.meta.url)` of src/ (scenarios/, package.json) and the pool's `./worker.js` resolve the same.
// dist/bin/meta.json is esbuild's metafile: which source module went into which output file (the CLI
// start-up test reads it). The rest of dist/ (tsc's output) stays what `podrace/testing` exports.

import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bin');

// esbuild's binary comes as an optional dependency of the platform. Without it (npm ci --omit=optional),
// dist/ stays as it is (after tsc, its dist/cli.js is the CLI: the same commands, a slower start). Say
// so, and let the build pass.
let build;
try {
  const esbuild = await import('esbuild');
  await esbuild.transform(''); // starts esbuild's binary: where it is missing, this is what throws
  build = esbuild.build;
} catch (err) {
  const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
  process.stderr.write(
    `podrace build: esbuild is not usable here (${why}); the CLI stays unbundled, slower to start\n`,
  );
  process.exit(0);
}

// Old chunks carry other hashes: never leave them beside the new ones.
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
  // Not minified: an internal error's stack keeps podrace's and upstream's function names. The source
  // maps (read only under `node --enable-source-maps`) turn its chunk lines back into src/ lines.
  minify: false,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});

writeFileSync(join(outdir, 'meta.json'), JSON.stringify(result.metafile));
const stub = join(root, 'dist', 'cli.js');
writeFileSync(
  stub,
  "#!/usr/bin/env node\n// The podrace CLI: the bundle (scripts/bundle.mjs).\nimport './bin/podrace.js';\n",
);
chmodSync(stub, 0o755);
