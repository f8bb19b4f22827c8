// The entry of a fuzz worker thread (built as dist/fuzz/worker.js; src/fuzz/pool.ts starts it). It gets
// the campaign's seed and fixes as workerData, then runs the chunks of case indices it is sent and posts
// their results back. The work is exactly what the pool would do in its own thread (runCaseChunk).
// It is its thread's host, as src/cli is the main thread's: like the CLI it is exempt from the lint rule
// against the wall clock (biome.json, docs/lint/no-nondeterminism.grit), and reads it only to time each
// case for wallMs, around the runs, never inside them.
import { parentPort, workerData } from 'node:worker_threads';
import { setElisionDefault } from '../scenario/elisionDefault.js';
import { type CaseOutcome, runCaseChunk } from './campaign.js';
import type { FromWorker, ToWorker, WorkerSetup } from './pool.js';

const port = parentPort;
if (port !== null) {
  const setup = workerData as WorkerSetup;
  if (setup.elide === false) setElisionDefault(false);
  // The host's clock, for each case's wallMs only (the simulation never sees it): this is the thread's
  // host, as src/cli is the main thread's.
  const now = setup.timeCases === true ? () => performance.now() : undefined;
  port.on('message', (msg: ToWorker) => {
    let reply: FromWorker;
    try {
      const results: CaseOutcome[] = runCaseChunk(setup, msg.cases, now);
      reply = { type: 'chunk', id: msg.id, results };
    } catch (err) {
      reply = {
        type: 'error',
        id: msg.id,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      };
    }
    port.postMessage(reply);
  });
  // Loaded and ready: only now is a chunk sent, so start-up counts against --time-limit (src/fuzz/pool.ts).
  port.postMessage({ type: 'ready' } satisfies FromWorker);
}
