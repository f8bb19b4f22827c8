// The Kubernetes Indexed Job of deploy/, played on one machine: N processes of the built CLI, each with
// JOB_COMPLETION_INDEX=0..N-1 and `--shard /N` (what deploy/job.yaml runs), then `podrace merge`, which
// must print what one unsharded `podrace fuzz` prints. Then one index is SIGKILLed mid-run (a lost pod),
// merge refuses and names it, and the index's rerun (what backoffLimitPerIndex does) completes the campaign.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'dist', 'cli.js');
const SHARDS = 4;
// Seed 3 against the legacy kubelet: the first failures of its first kinds lie in different shards.
const CAMPAIGN = [
  '--runs',
  '40',
  '--seed',
  '3',
  '--kubelet',
  'legacy',
  '--shrink',
  '4',
  '--shrink-runs',
  '5',
];

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

const dir = mkdtempSync(join(tmpdir(), 'podrace-job-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The built CLI in `dir` (so failure files are written to the same relative folder by every run). */
function podrace(
  args: string[],
  env: Record<string, string> = {},
  killAfterMs?: number,
  stdin?: string,
): Promise<Run> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    child.stdin.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - start) });
    });
  });
}

/** One pod of the Job: its index from JOB_COMPLETION_INDEX, its JSON lines kept as `kubectl logs` would. */
async function pod(index: number, killAfterMs?: number): Promise<Run> {
  const r = await podrace(
    ['fuzz', ...CAMPAIGN, '--shard', `/${SHARDS}`, '--json'],
    { JOB_COMPLETION_INDEX: String(index) },
    killAfterMs,
  );
  writeFileSync(join(dir, 'logs', `index-${index}.jsonl`), r.stdout);
  return r;
}

const withoutWall = (jsonl: string) =>
  jsonl
    .trim()
    .split('\n')
    .map((l): Record<string, unknown> => ({ ...(JSON.parse(l) as Record<string, unknown>), wallMs: 0 }));

let text: Run;
let json: Run;
const timings: Record<string, number> = {};

beforeAll(async () => {
  mkdirSync(join(dir, 'logs'));
  const start = performance.now();
  const pods = await Promise.all(Array.from({ length: SHARDS }, (_, i) => pod(i)));
  timings['job (4 pods at once)'] = Math.round(performance.now() - start);
  for (const p of pods) expect(p.stderr).toBe('');
  // A find is exit 1: the Job's podFailurePolicy marks such an index failed without rerunning it.
  expect(pods.map((p) => p.code)).toContain(1);
  [text, json] = await Promise.all([
    podrace(['fuzz', ...CAMPAIGN]),
    podrace(['fuzz', ...CAMPAIGN, '--json']),
  ]);
  timings['one machine (text)'] = text.ms;
}, 120_000);

describe('the Indexed Job on one machine', () => {
  it('merges to exactly what one machine prints', async () => {
    expect(text.code).toBe(1);
    const merged = await podrace(['merge', 'logs']);
    timings['merge'] = merged.ms;
    expect(merged.stdout).toBe(text.stdout);
    expect(merged.code).toBe(text.code);
    expect(merged.stderr).toMatch(/^merge: 4 input\(s\), 40 case\(s\)/);
    // The failures the campaign shows come from different shards (so the merge chose among them).
    const failures = withoutWall(json.stdout).filter((l) => l['type'] === 'failure');
    expect(new Set(failures.map((f) => (f['case'] as number) % SHARDS)).size).toBeGreaterThan(1);

    const mergedJson = await podrace([
      'merge',
      ...Array.from({ length: SHARDS }, (_, i) => `logs/index-${i}.jsonl`),
      '--json',
    ]);
    expect(mergedJson.code).toBe(1);
    expect(withoutWall(mergedJson.stdout)).toEqual(withoutWall(json.stdout));
  });

  it('names a pod killed mid-run, and merges once its index has rerun', async () => {
    const killed = await pod(2, 250);
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).toBe('');
    const refused = await podrace(['merge', 'logs']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('logs/index-2.jsonl: no output');
    expect(refused.stderr).toMatch(/missing shard\(s\) 3\/4 \(JOB_COMPLETION_INDEX 2\)/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);

    const rerun = await pod(2);
    timings['rerun of index 2'] = rerun.ms;
    const merged = await podrace(['merge', 'logs']);
    expect(merged.stdout).toBe(text.stdout);
    expect(merged.code).toBe(1);
    // Every pod's log in one stream, killed pod included, as `kubectl logs -l job-name=...` prints them.
    const stream = [0, 1, 2, 3].map((i) => readFileSync(join(dir, 'logs', `index-${i}.jsonl`), 'utf8'));
    const piped = await podrace(['merge', '-'], {}, undefined, [killed.stdout, ...stream].join(''));
    expect(piped.stdout).toBe(text.stdout);
    // Reported with the suite's output: how long the Job takes here.
    console.log(
      `Indexed Job test, ms: ${Object.entries(timings)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
  });
});
