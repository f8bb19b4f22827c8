// CLI start-up: wall time of a spawned `node dist/cli.js` (the bundle of scripts/bundle.mjs) for --help,
// `list fixes` and a small run, best of 5 spawns each, beside Node's own start (`node -e 0`, the floor under
// every command: on a loaded machine it alone can take 100 ms). A section of `npm run bench`; it measures,
// it never asserts.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { type BenchSection, nowMs } from './measure.js';

const SPAWNS = 5;
const root = join(import.meta.dirname, '..', '..');

const COMMANDS: Record<string, readonly string[]> = {
  help: ['--help'],
  list: ['list', 'fixes'],
  run: ['run', join(root, 'scenarios', 'pod-deleted-before-start.yaml'), '--quiet'],
};

function bestOf(nodeArgs: readonly string[]): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < SPAWNS; i++) {
    const start = nowMs();
    execFileSync(process.execPath, nodeArgs, {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, NO_COLOR: '1' },
    });
    best = Math.min(best, nowMs() - start);
  }
  return Math.round(best);
}

export function benchCli(): BenchSection {
  const startMs: Record<string, number> = {};
  for (const [name, args] of Object.entries(COMMANDS))
    startMs[name] = bestOf([join(root, 'dist', 'cli.js'), ...args]);
  const nodeMs = bestOf(['-e', '0']);
  return {
    title: `cli: start-up wall time of node dist/cli.js, best of ${SPAWNS} spawns`,
    lines: [
      `${'node'.padEnd(6)}${`${nodeMs} ms`.padStart(10)}  node -e 0 (the floor)`,
      ...Object.entries(startMs).map(
        ([name, ms]) =>
          `${name.padEnd(6)}${`${ms} ms`.padStart(10)}  podrace ${COMMANDS[name]?.join(' ').replace(root, '.')}`,
      ),
    ],
    json: { startMs, nodeMs },
  };
}
