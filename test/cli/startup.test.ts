// The CLI starts fast because `--help`, `help`, `list` and a bad command line load only the command
// definitions (yargs and a dozen small modules), never the simulator, the fuzzer or the YAML and schema
// libraries: each command's work is imported when it runs. Checked by the modules Node resolves, not by
// timing (the bench measures cli.startMs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
function loaded(args: string[]): string[] {
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
    .map((l) => l.replace(pathToFileURL(root).href, ''));
}

/** The simulator, the fuzzer, the reports and the YAML / schema libraries; not the two constant modules. */
const HEAVY = [
  /\/dist\/(sim\/(?!units\.js)|kubelet\/|cluster\/|storage\/|volume\/|fuzz\/(?!limits\.js)|report\/)/,
  /\/dist\/scenario\/(load|schema|run)\.js/,
  /node_modules\/(zod|yaml|fast-check|seedrandom)\//,
];

describe('CLI start', () => {
  for (const args of [['--help'], ['help', 'fuzz'], ['run', '--help'], ['list'], ['nonsense']]) {
    it(`${args.join(' ')} loads no simulator, fuzzer or parser module`, () => {
      const modules = loaded(args);
      expect(modules.some((m) => m.endsWith('/dist/cli.js'))).toBe(true);
      expect(modules.filter((m) => HEAVY.some((re) => re.test(m)))).toEqual([]);
    });
  }

  it('run loads the simulator but not the fuzzer (the oracle only for --bisect, sweeps only for --seeds)', () => {
    const modules = loaded(['run', 'scenarios/pod-deleted-before-start.yaml', '--quiet']);
    expect(modules.some((m) => /\/dist\/sim\//.test(m))).toBe(true);
    expect(modules.filter((m) => /node_modules\/fast-check\/|\/dist\/fuzz\/(?!limits\.js)/.test(m))).toEqual(
      [],
    );
    const bisect = loaded(['run', 'scenarios/pod-deleted-before-start.yaml', '--quiet', '--bisect']);
    expect(bisect.some((m) => /\/dist\/fuzz\/oracle\.js/.test(m))).toBe(true);
  });
});
