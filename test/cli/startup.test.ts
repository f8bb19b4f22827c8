// The CLI starts fast for two reasons, each checked by the files Node resolves, not by timing (the bench
// measures cli.startMs): it is bundled (scripts/bundle.mjs), so a command reads a handful of files where
// it read hundreds of modules; and `--help`, `help`, `list` and a bad command line load only the command
// definitions (yargs and a dozen small modules), never the simulator, the fuzzer or the YAML and schema
// libraries, because each command's work is a chunk imported when it runs. Which source modules a loaded
// file holds comes from the bundle's metafile (dist/bin/meta.json).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'podrace-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The hooks run on Node's loader thread: a write to standard error from there can be lost when the CLI
// exits right after its last import, so each resolution is appended to a file, synchronously.
const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  `import { appendFileSync } from 'node:fs';\n` +
    `export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith('file:')) appendFileSync(process.env.PODRACE_LOAD_LOG, r.url + '\\n'); return r; }\n`,
);
const register = join(dir, 'register.mjs');
writeFileSync(
  register,
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
);

let calls = 0;
/** The files Node resolved for `podrace ARGS`, relative to the checkout (`dist/cli.js`, `dist/bin/...`). */
function resolvedFiles(args: string[]): string[] {
  const log = join(dir, `loaded-${calls++}.txt`);
  writeFileSync(log, '');
  spawnSync(process.execPath, ['--import', register, join(root, 'dist', 'cli.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PODRACE_LOAD_LOG: log },
  });
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('file:'))
    .map((l) => l.replace(`${pathToFileURL(root).href}/`, ''))
    .filter((f, i, all) => all.indexOf(f) === i);
}

interface Metafile {
  readonly outputs: Readonly<Record<string, { readonly inputs: Readonly<Record<string, unknown>> }>>;
}
const meta = JSON.parse(readFileSync(join(root, 'dist', 'bin', 'meta.json'), 'utf8')) as Metafile;

/** The source modules (`src/...`, `node_modules/...`) in the files Node resolved for `podrace ARGS`. */
function loaded(args: string[]): string[] {
  // A checkout whose node_modules is a link (a git worktree's) has them as `../main/node_modules/...`.
  return resolvedFiles(args)
    .flatMap((f) => Object.keys(meta.outputs[f]?.inputs ?? {}))
    .map((m) => m.replace(/^(\.\.\/)+[^/]+\/(?=node_modules\/)/, ''));
}

/** The simulator, the fuzzer, the reports and the YAML / schema libraries; not the two constant modules. */
const HEAVY = [
  /^src\/(sim\/(?!units\.ts)|kubelet\/|cluster\/|storage\/|volume\/|fuzz\/(?!limits\.ts)|report\/)/,
  /^src\/scenario\/(load|schema|run)\.ts/,
  /^node_modules\/(zod|yaml|fast-check|seedrandom)\//,
];

describe('CLI start', () => {
  for (const args of [['--help'], ['help', 'fuzz'], ['run', '--help'], ['list'], ['nonsense']]) {
    it(`${args.join(' ')} loads no simulator, fuzzer or parser module`, () => {
      const modules = loaded(args);
      expect(modules).toContain('src/cli.ts');
      expect(modules.filter((m) => HEAVY.some((re) => re.test(m)))).toEqual([]);
    });
  }

  it('run loads the simulator but not the fuzzer (the oracle only for --bisect, sweeps only for --seeds)', () => {
    const modules = loaded(['run', 'scenarios/pod-deleted-before-start.yaml', '--quiet']);
    expect(modules).toContain('src/sim/sim.ts');
    expect(modules.filter((m) => /^node_modules\/fast-check\/|^src\/fuzz\/(?!limits\.ts)/.test(m))).toEqual(
      [],
    );
    const bisect = loaded(['run', 'scenarios/pod-deleted-before-start.yaml', '--quiet', '--bisect']);
    expect(bisect).toContain('src/fuzz/oracle.ts');
  });

  it('run --quiet loads no zod locale but English, and no writer of a file or an output it does not print', () => {
    // \`import { z }\` kept every zod locale in the bundle (esbuild cannot shake that namespace); the
    // timeline, trace and klog writers are imported by run only when their flag or the output needs them.
    const modules = loaded(['run', 'scenarios/pod-deleted-before-start.yaml', '--quiet']);
    expect(modules.some((m) => /node_modules\/zod\/v4\/locales\/en\.js$/.test(m))).toBe(true);
    expect(modules.filter((m) => /node_modules\/zod\/v4\/locales\/(?!en\.js)/.test(m))).toEqual([]);
    expect(
      modules.filter((m) =>
        /^src\/report\/(timelineHtml|chromeTrace|klog|terminalTimeline|eventFilter)\.ts$/.test(m),
      ),
    ).toEqual([]);
    const html = loaded([
      'run',
      'scenarios/pod-deleted-before-start.yaml',
      '--quiet',
      '--timeline',
      join(dir, 'timeline.html'),
    ]);
    expect(html).toContain('src/report/timelineHtml.ts');
  });

  it('--help and list build no grapheme segmenter: string-width is evaluated only when it is called', () => {
    // The real string-width builds an Intl.Segmenter and \\p{RGI_Emoji} regular expressions at its top level
    // (25-30 ms of ICU data); yargs' help text is printable ASCII, which the bundle's fast path measures.
    const spy = join(dir, 'segmenter.mjs');
    writeFileSync(
      spy,
      `import { appendFileSync } from 'node:fs';\n` +
        `const S = Intl.Segmenter;\n` +
        `Intl.Segmenter = class extends S { constructor(...a) { super(...a); appendFileSync(process.env.PODRACE_SEGMENTER_LOG, 'new\\n'); } };\n`,
    );
    const built = (args: string[]): number => {
      const log = join(dir, `segmenter-${calls++}.txt`);
      writeFileSync(log, '');
      const r = spawnSync(process.execPath, ['--import', spy, ...args], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, PODRACE_SEGMENTER_LOG: log },
      });
      expect(r.status).toBe(0);
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l === 'new').length;
    };
    // The spy sees a segmenter built (so the zeros below are not vacuous); the bundle imported the three
    // string-width copies eagerly before, three segmenters at start-up.
    expect(built(['-e', 'new Intl.Segmenter()'])).toBe(1);
    const cli = join(root, 'dist', 'cli.js');
    expect(built([cli, '--help'])).toBe(0);
    expect(built([cli, 'list', 'fixes'])).toBe(0);
    expect(built([cli, 'run', '--help'])).toBe(0);
  });

  it('builds without esbuild too: the build passes, says why, and leaves dist/ as tsc made it', () => {
    // A checkout without node_modules/esbuild (npm ci --omit=optional drops its binary the same way).
    const bare = mkdtempSync(join(tmpdir(), 'podrace-nobundle-'));
    try {
      mkdirSync(join(bare, 'scripts'));
      mkdirSync(join(bare, 'dist'));
      writeFileSync(join(bare, 'dist', 'cli.js'), '// tsc\n');
      copyFileSync(join(root, 'scripts', 'bundle.mjs'), join(bare, 'scripts', 'bundle.mjs'));
      const r = spawnSync(process.execPath, [join(bare, 'scripts', 'bundle.mjs')], {
        cwd: bare,
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/^podrace build: esbuild is not usable here \(.+\); the CLI stays unbundled/);
      expect(readdirSync(join(bare, 'dist'))).toEqual(['cli.js']);
      expect(readFileSync(join(bare, 'dist', 'cli.js'), 'utf8')).toBe('// tsc\n');
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('is bundled: a run reads a few dozen files at most, and every one of them is the bundle', () => {
    // Unbundled, the same run opened 368 module files (zod 99, yaml 84, the simulator about 150); bundled, 26.
    const files = resolvedFiles(['run', 'scenarios/pod-deleted-before-start.yaml', '--quiet']);
    expect(files[0]).toBe('dist/cli.js');
    expect(files.slice(1).filter((f) => meta.outputs[f] === undefined)).toEqual([]);
    expect(files.length).toBeLessThanOrEqual(40);
    expect(loaded(['run', 'scenarios/pod-deleted-before-start.yaml', '--quiet']).length).toBeGreaterThan(200);
  });
});
