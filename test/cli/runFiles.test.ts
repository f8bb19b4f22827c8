import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failureCompanions, failureFileHeader } from '../../src/cli/failureFiles.js';
import { podrace, root } from './spawnCli.js';

/** This file's temporary folders, removed when it ends (the suite checks that nothing is left). */
const temp = mkdtempSync(join(tmpdir(), 'podrace-run-files-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

describe('replay --trace --timeline', () => {
  it('writes the fuzz case as a Chrome trace and an HTML page, with --json too', () => {
    const dir = mkdtempSync(join(temp, 'replay-'));
    const trace = join(dir, 'r.json');
    const html = join(dir, 'r.html');
    const r = podrace([
      'replay',
      '--seed',
      '1',
      '--path',
      '0',
      '--kubelet',
      'legacy',
      '--json',
      '--trace',
      trace,
      '--timeline',
      html,
    ]);
    expect(r.code).toBe(1);
    const events = (JSON.parse(readFileSync(trace, 'utf8')) as { traceEvents: { cat?: string }[] })
      .traceEvents;
    // Facts were recorded although --json alone would not record them: containers are drawn.
    expect(events.some((e) => e.cat === 'container')).toBe(true);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!DOCTYPE html>[\s\S]*container-started-after-terminated/);
  });
});

describe('fuzz failure files', () => {
  const dir = mkdtempSync(join(temp, 'fuzz-files-'));
  const r = podrace(['fuzz', '--runs', '2', '--kubelet', 'legacy', '--shrink-runs', '10', '--out', 'found'], {
    cwd: dir,
  });

  it('writes the YAML, its trace and its timeline side by side, and says so', () => {
    expect(r.code).toBe(1);
    const files = readdirSync(join(dir, 'found')).sort();
    const yaml = files.find((f) => f.endsWith('.yaml'));
    expect(yaml).toBeDefined();
    const stem = (yaml ?? '').replace(/\.yaml$/, '');
    expect(files).toEqual([`${stem}.html`, `${stem}.trace.json`, `${stem}.yaml`]);
    expect(r.stdout).toContain(
      `and its trace found/${stem}.trace.json (Perfetto) and timeline found/${stem}.html`,
    );
    expect(
      JSON.parse(readFileSync(join(dir, 'found', `${stem}.trace.json`), 'utf8')).otherData.scenario,
    ).toBe(stem);
    expect(readFileSync(join(dir, 'found', `${stem}.html`), 'utf8')).toContain(`<h1>podrace: ${stem}</h1>`);
  });

  it('starts the YAML with a schema line that resolves to the shipped schema, then the version', () => {
    const found = join(dir, 'found');
    const yaml = readdirSync(found).find((f) => f.endsWith('.yaml')) ?? '';
    const [first, second] = readFileSync(join(found, yaml), 'utf8').split('\n');
    const m = /^# yaml-language-server: \$schema=(\S+)$/.exec(first ?? '');
    expect(m).not.toBeNull();
    expect(resolve(found, m?.[1] ?? '')).toBe(join(root, 'docs', 'scenario.schema.json'));
    expect(existsSync(resolve(found, m?.[1] ?? ''))).toBe(true);
    expect(second).toBe(
      `# Written by podrace ${version} (podrace fuzz); \`npx podrace verify\` of this file checks its claims.`,
    );
    // The header is a comment: the file still verifies.
    expect(podrace(['verify', join(found, yaml)]).code).toBe(0);
  });
});

describe('failureFileHeader', () => {
  it('points at the schema relative to the file, with forward slashes', () => {
    const header = failureFileHeader('/a/b/out/x.yaml', '9.9.9', '/a/docs/scenario.schema.json');
    expect(header.split('\n')[0]).toBe('# yaml-language-server: $schema=../../docs/scenario.schema.json');
    expect(header).toContain('podrace 9.9.9');
    expect(dirname('/a/b/out/x.yaml')).toBe('/a/b/out');
  });

  it('names the companions after the YAML', () => {
    expect(failureCompanions('d/x-1-0.yaml')).toEqual({
      trace: 'd/x-1-0.trace.json',
      timeline: 'd/x-1-0.html',
    });
  });
});
