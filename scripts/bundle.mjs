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
import { dirname, join, relative } from 'node:path';
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

// yargs lays out its help with cliui and wrap-ansi, which measure every string with string-width: a grapheme
// segmenter and a fresh emoji regular expression per character, a fifth of `--help`'s start-up. Each
// string-width they import is wrapped in scripts/asciiStringWidth.mjs, which answers for printable ASCII
// (help text) and hands anything else to the real one: the same widths without the per-character work.
// The real one is required on first use, not imported: esbuild then evaluates it (and its strip-ansi,
// emoji-regex, get-east-asian-width) only when called, and its top level builds an Intl.Segmenter and
// Unicode-property regular expressions (\p{RGI_Emoji}) whose ICU data cost 25-30 ms, which help text,
// all printable ASCII, never needs.
const asciiStringWidth = {
  name: 'ascii-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.pluginData === 'real') return undefined;
      const real = await b.resolve('string-width', {
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: 'real',
      });
      if (real.errors.length > 0) return { errors: real.errors };
      // Relative to the checkout: the metafile (and so the build) names no machine's folders.
      return { path: relative(root, real.path), namespace: 'ascii-string-width' };
    });
    b.onLoad({ filter: /.*/, namespace: 'ascii-string-width' }, (args) => ({
      resolveDir: root,
      contents:
        `import { withAsciiFastPath } from './scripts/asciiStringWidth.mjs';\n` +
        `let real;\n` +
        `export default withAsciiFastPath((string, options) => (real ??= require(${JSON.stringify(`./${args.path}`)}).default)(string, options));\n`,
    }));
  },
};

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
  // Whitespace and syntax minified (less to read and compile at start-up), identifiers not: an internal
  // error's stack keeps podrace's and upstream's function names. The source maps (read only under
  // `node --enable-source-maps`) turn its chunk lines back into src/ lines.
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [asciiStringWidth],
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
