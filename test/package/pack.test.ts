// The package as a user gets it: `npm pack`, installed into a scratch project that has its own fast-check
// (a peer dependency, so podrace's arbitraries and the user's fc are one instance), type-checked there
// with strict settings, and a small property run over podrace/testing's scenarios. The tarball holds
// dist, docs, scenarios, README.md, LICENSE and package.json only. Slow (npm install, from the npm cache
// `npm ci` filled): not in `npm run test:quick`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const pkg = require('../../package.json') as {
  version: string;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const dir = mkdtempSync(join(tmpdir(), 'podrace-pack-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships only what a user needs, installs beside its own fast-check, type-checks and runs a property', () => {
    const listing = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root)) as {
      files: { path: string }[];
    }[];
    const tops = [...new Set((listing[0]?.files ?? []).map((f) => f.path.split('/')[0]))].sort();
    expect(tops).toEqual(['LICENSE', 'README.md', 'dist', 'docs', 'package.json', 'scenarios']);
    expect(pkg.peerDependencies['fast-check']).toBe(`^${pkg.devDependencies['fast-check']}`);

    npm(['pack', '--ignore-scripts', '--pack-destination', dir], root);
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBe(`podrace-${pkg.version}.tgz`);
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'scratch',
        private: true,
        type: 'module',
        dependencies: {
          podrace: `file:../${tarball}`,
          'fast-check': pkg.devDependencies['fast-check'],
          '@types/node': pkg.devDependencies['@types/node'],
        },
      }),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          outDir: 'out',
          types: ['node'],
        },
        include: ['property.ts'],
      }),
    );
    writeFileSync(
      join(project, 'property.ts'),
      [
        "import fc from 'fast-check';",
        "import { firedInvariants, run, scenarios, type Scenario } from 'podrace/testing';",
        '',
        '// Every generated scenario runs to an answer with the fixed kubelet: a list of invariant IDs.',
        'let ran = 0;',
        'fc.assert(',
        '  fc.property(scenarios(), (s: Scenario) => {',
        '    ran++;',
        '    return Array.isArray(firedInvariants(run(s)));',
        '  }),',
        '  { numRuns: 3, seed: 1 },',
        ');',
        "console.log('ran ' + String(ran));",
        '',
      ].join('\n'),
    );
    npm(['install', '--prefer-offline', '--ignore-scripts', '--no-package-lock'], project);
    const tsc = require.resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: project, encoding: 'utf8' });
    const out = execFileSync(process.execPath, [join(project, 'out', 'property.js')], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('ran 3');
  }, 240_000);
});
