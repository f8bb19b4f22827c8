// Issue 27 (hardening), the smaller items: unknown YAML tags, CR-only line endings, Node's warnings,
// one file given twice to verify, FORCE_COLOR=false; and the wait on a silent FIFO, the shell-quoting of
// replay commands and the escaping of control characters.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podrace, root, shell } from './spawnCli.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-hardening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bundled = join(root, 'scenarios', 'pod-deleted-before-start.yaml');
const text = readFileSync(bundled, 'utf8');

describe('scenario text', () => {
  it('refuses an unknown YAML tag with file:line:col, exit 2', () => {
    const file = join(dir, 'tag.yaml');
    writeFileSync(file, text.replace(/^name: /m, 'name: !foo '));
    const r = podrace(['run', file]);
    expect(r.code).toBe(2);
    const line = text.split('\n').findIndex((l) => l.startsWith('name: ')) + 1;
    expect(r.stderr).toBe(`${file}:${line}:7: Unresolved tag: !foo; a scenario file uses no YAML tags\n`);
  });

  it('accepts CR-only line endings as it accepts LF and CRLF', () => {
    const file = join(dir, 'cr.yaml');
    writeFileSync(file, text.replaceAll('\n', '\r'));
    const r = podrace(['run', file, '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('the process', () => {
  it('prints no Node warning: an error stays one line', () => {
    // A warning emitted while podrace runs (planted by a preloaded module; its timer keeps the process
    // alive until it fires, after start-up).
    const plant =
      "data:text/javascript,setTimeout(()=>process.emitWarning('boo','ExperimentalWarning'),1500)";
    const r = podrace(['run', join(dir, 'missing.yaml')], { env: { NODE_OPTIONS: `--import=${plant}` } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`${join(dir, 'missing.yaml')}: cannot read (ENOENT: no such file or directory)\n`);
  });

  it('FORCE_COLOR=false and FORCE_COLOR=0 turn colour off, FORCE_COLOR=1 on', () => {
    for (const off of ['false', '0']) {
      const r = podrace(['run', bundled], { env: { FORCE_COLOR: off } });
      expect(r.stdout).not.toContain('\x1b[');
    }
    expect(podrace(['run', bundled], { env: { FORCE_COLOR: '1' } }).stdout).toContain('\x1b[');
  });

  it('verify checks one file given twice (or through ./ and its folder) once, no clash with itself', () => {
    const r = podrace(['verify', bundled, `${root}/./scenarios/pod-deleted-before-start.yaml`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\n2 claims, all hold\n$/);
  });
});

describe('inputs that never end', () => {
  it('a FIFO whose writer stays silent: exit 2 after 5 s with one line saying so', () => {
    const fifo = join(dir, 'silent.yaml');
    // The shell holds the FIFO open for writing (O_RDWR does not wait for a reader) and writes nothing.
    const start = Date.now();
    const r = shell(`mkfifo '${fifo}' && exec 3<>'${fifo}' && $PODRACE run '${fifo}'`);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `${fifo}: nothing to read for 5s (0 bytes read): a writer that stays silent, or a file that waits for events; podrace reads a pipe whose writer sends it a scenario\n`,
    );
    expect(Date.now() - start).toBeLessThan(20_000);
  });
});

describe('what reaches the terminal', () => {
  it.runIf(process.getuid?.() === 0 && existsSync('/proc/kmsg'))(
    'as root, /proc/kmsg (a file that waits for kernel events) ends in exit 2 after the 5 s bound',
    () => {
      const start = Date.now();
      const r = podrace(['run', '/proc/kmsg']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^\/proc\/kmsg: nothing to read for 5s .*\n$/);
      expect(r.stderr.split('\n')).toHaveLength(2); // one line
      expect(Date.now() - start).toBeLessThan(15_000);
    },
  );

  it('replay commands quote a path with a space or shell characters (POSIX single quotes)', () => {
    const file = join(dir, "my scenario $(touch pwned)'.yaml");
    writeFileSync(file, text);
    const r = podrace(['run', file, '--seeds', '1..2', '--kubelet', 'legacy']);
    const quoted = `'${file.replaceAll("'", "'\\''")}'`;
    expect(r.stdout).toContain(`replay a seed: npx podrace run ${quoted} --seed `);
    // Pasted into a shell, it is one word: the file itself.
    const echoed = shell(`printf %s ${quoted}`);
    expect(echoed.stdout).toBe(file);
  });

  it('escapes control characters of an input in an error line', () => {
    const r = podrace(['run', join(dir, 'a\x1b]0;title\x07b.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `${join(dir, 'a\\x1b]0;title\\x07b.yaml')}: cannot read (ENOENT: no such file or directory)\n`,
    );
  });
});

describe('scenario text on stdout', () => {
  it('a containerStart error with escape sequences and a newline reaches the timeline escaped, on one line', () => {
    const file = join(dir, 'esc.yaml');
    writeFileSync(
      file,
      [
        'name: esc',
        'cluster:',
        '  nodes: [a]',
        'timeline:',
        '  - at: 0s',
        '    createPod: { pod: web, node: a, containers: 1 }',
        '  - at: 0s',
        '    fault: { containerStart: { pod: web, error: "boom \\x1b]0;pwned\\x07 \\x1b[2J\\nforged line" } }',
        '',
      ].join('\n'),
    );
    for (const args of [
      ['run', file],
      ['run', file, '--events', 'pod=web'],
      ['diff', file, '--seed', '2'],
    ]) {
      const r = podrace(args);
      expect(r.stdout.includes('\x1b') || r.stdout.includes('\x07')).toBe(false);
      if (args.length === 2) {
        expect(r.stdout).toContain('containerStartFailed c1: boom \\x1b]0;pwned\\x07 \\x1b[2J\\nforged line');
        expect(r.stdout).not.toMatch(/^forged line/m);
      }
    }
  });
});

describe('event budgets', () => {
  it('run --seeds honours --max-events and never counts a seed cut short as clean', () => {
    const r = podrace(['run', bundled, '--seeds', '1..3', '--max-events', '20']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'INCOMPLETE: 3 seed(s) cut short by the event budget before the horizon (not checked after that point)',
    );
    expect(r.stdout).toContain('3 of 3 seeds with violations or cut short');
  });
});
