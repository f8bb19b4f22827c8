// The Node.js versions the README states are the ones podrace and its dependencies declare: package.json's
// engines admits exactly them, every runtime dependency admits them, and a development dependency that
// does not (a test tool, a schema package) is named in the README with what it means for development.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDoc, root } from './docText.js';
import { admits } from './engines.js';

interface Manifest {
  readonly version: string;
  readonly engines?: { readonly node?: string };
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest;
const pkg = read(join(root, 'package.json'));
const installed = (name: string) => read(join(root, 'node_modules', name, 'package.json'));

const readme = readDoc('README.md');
const stated =
  /Node\.js (\d+\.\d+) or newer on the 20 line, (\d+\.\d+) or newer on the 22 line, or (\d+) and later/.exec(
    readme,
  );
/** The first version of each supported line, as the README states them. */
const minimums = stated === null ? [] : [`${stated[1]}.0`, `${stated[2]}.0`, `${stated[3]}.0.0`];

describe('the Node.js versions', () => {
  it('the range checker reads ranges as npm does', () => {
    expect(admits('^20.19.0 || >=22.12.0', '20.19.0')).toBe(true);
    expect(admits('^20.19.0 || >=22.12.0', '21.0.0')).toBe(false);
    expect(admits('^20.0.0 || ^22.0.0 || >=24.0.0', '23.0.0')).toBe(false);
    expect(admits('>= 14.6', '20.0.0')).toBe(true);
    expect(admits('>=22', '20.19.0')).toBe(false);
    expect(admits(undefined, '20.0.0')).toBe(true);
  });

  it('the README states them and package.json declares exactly them', () => {
    expect(minimums).toHaveLength(3);
    const engines = pkg.engines?.node;
    for (const v of minimums) expect(admits(engines, v), `${engines} admits ${v}`).toBe(true);
    for (const older of ['20.18.0', '21.7.0', '22.11.0'])
      expect(admits(engines, older), `${engines} refuses ${older}`).toBe(false);
  });

  it('every runtime dependency supports them', () => {
    for (const name of Object.keys(pkg.dependencies ?? {})) {
      const range = installed(name).engines?.node;
      for (const v of minimums) expect(admits(range, v), `${name} (${range}) on Node ${v}`).toBe(true);
    }
  });

  it('the README names each development dependency that declares less, with its version', () => {
    const lacking = Object.keys(pkg.devDependencies ?? {}).filter((name) =>
      minimums.some((v) => !admits(installed(name).engines?.node, v)),
    );
    for (const name of lacking) expect(readme, name).toContain(`${name} ${installed(name).version}`);
  });
});
