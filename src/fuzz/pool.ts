// Runs fuzz cases over a pool of worker_threads, or in this thread. The cases are cut into chunks of
// consecutive case indices; chunks are handed out in order, each to the next idle worker; the results
// are merged back in case order. A case's result depends only on (campaign seed, case index, fixes), so
// the merged results are the same whatever the number of workers or the chunk size.
//
// Worker threads run the built JavaScript (dist/fuzz/worker.js next to this file). When this file is not
// the built one (tsx, vitest: there is no worker.js beside pool.ts) or when one worker is asked for, the
// chunks run in this thread, one after the other, with the same code and the same results.
//
// Wall time is none of this module's business: `shouldStop` (the CLI's --time-limit) is asked before a
// chunk is started, `onChunk` reports progress, and `now` (injected by the CLI) times each case in this
// thread; a worker thread times its cases with its own clock (src/fuzz/worker.ts).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FixId, KubeletName } from '../fixes.js';
import type { CaseOutcome, CaseRange } from './campaign.js';

/** What a worker needs to run chunks (structured-clone safe). */
export interface WorkerSetup {
  readonly seed: number;
  readonly fixes: readonly FixId[];
  /**
   * The kubelet the set was named after (Fixes.base): a hazard fixed upstream in that release or before
   * excuses nothing there (src/invariants/hazards.ts fixedIn).
   */
  readonly base?: KubeletName | undefined;
  /** Run the differential oracle on every failing case (src/fuzz/oracle.ts). */
  readonly oracle: boolean;
  /** Run every case twice and compare digests (src/fuzz/determinism.ts). */
  readonly checkDeterminism?: boolean;
  /** Skip idle loop rounds (the default); false: `--no-elide` (src/scenario/elisionDefault.ts). */
  readonly elide?: boolean;
  /** Time each case with the worker thread's own clock (the host asked for wallMs: PoolOptions.now). */
  readonly timeCases?: boolean;
}

export type ToWorker = { readonly type: 'chunk'; readonly id: number; readonly cases: readonly number[] };
export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'chunk'; readonly id: number; readonly results: readonly CaseOutcome[] }
  | { readonly type: 'error'; readonly id: number; readonly error: string };

export interface PoolOptions {
  readonly setup: WorkerSetup;
  /** The cases to run, in order; cut into chunks as they are started, never listed whole. */
  readonly cases: CaseRange;
  readonly workers: number;
  /** Cases per chunk (default 16). */
  readonly chunkSize?: number;
  /** Runs one chunk in this thread (the same function the worker runs), timing each case with `now`. */
  readonly runInProcess: (setup: WorkerSetup, cases: readonly number[], now?: () => number) => CaseOutcome[];
  /** Asked before each chunk is started; true: start no more (the chunks already running finish). */
  readonly shouldStop?: () => boolean;
  /** After each chunk: how many cases are done so far (in any order) and the chunk's results. */
  readonly onChunk?: (done: number, results: readonly CaseOutcome[]) => void;
  /**
   * A wall clock in ms (injected by the CLI): each case's wallMs is its own time, measured in the thread
   * that ran it (this clock here, the worker's own in a worker thread); without it wallMs stays 0.
   */
  readonly now?: () => number;
  /**
   * Lets the host's event loop run between chunks in this thread (the CLI passes setImmediate), so that a
   * signal handler can ask shouldStop to stop; without it the chunks run back to back.
   */
  readonly yieldToHost?: () => Promise<void>;
  /**
   * Calls `check` every `ms` of the host's wall clock until the returned function is called (the CLI passes
   * setInterval): with worker threads, lets shouldStop end the campaign while workers are still starting.
   */
  readonly every?: (ms: number, check: () => void) => () => void;
  /** Where the worker script is; default: worker.js beside this file, if it exists. */
  readonly workerUrl?: URL | null;
}

export interface PoolResult {
  /** Results of the cases that ran, in case order: always a prefix of `cases`. */
  readonly results: CaseOutcome[];
  /** shouldStop ended the run before every case ran. */
  readonly stopped: boolean;
  /** Worker threads used (0: ran in this thread). */
  readonly threads: number;
}

/**
 * Cases a worker thread must have before it pays: each thread is a V8 isolate that compiles the simulator
 * afresh, and its first thousand or two cases run while V8 does (docs/fuzzing.md, "When workers pay").
 */
export const CASES_PER_WORKER_MIN = 2000;

/**
 * The worker threads to use when the user named none (`podrace main`): one per CASES_PER_WORKER_MIN
 * cases, at most `cpus` and 4, and at least 1 (this thread). `npm start`'s 60 cases run in this thread,
 * already warm from verifying the bundled scenarios: two cold workers took 4.0-4.2 s against 2.2 s.
 */
/**
 * The most worker threads `--workers` takes. Each thread is a V8 isolate that loads the simulator and warms
 * its JIT afresh (about 35-40 MB and a second or more of one core each); 64 is more cores than the
 * machines podrace runs on have, and 64 threads already cost about 2.4 GB. More would only buy memory
 * and start-up time, so the flag refuses them (exit 2) instead of letting them eat a --time-limit.
 */
export const MAX_WORKERS = 64;

export function defaultWorkerCount(cases: number, cpus: number): number {
  return Math.max(1, Math.min(4, cpus, Math.floor(cases / CASES_PER_WORKER_MIN)));
}

/** worker.js beside this module when this is the built code, else null (run in this thread). */
export function defaultWorkerUrl(): URL | null {
  const here = import.meta.url;
  if (!here.endsWith('.js')) return null;
  const url = new URL('./worker.js', here);
  return existsSync(fileURLToPath(url)) ? url : null;
}

/** The cases of chunk `id` (positions id*size ... of the range). */
export function chunkOf(cases: CaseRange, size: number, id: number): number[] {
  const out: number[] = [];
  const end = Math.min(cases.size, (id + 1) * size);
  for (let p = id * size; p < end; p++) out.push(cases.caseAt(p));
  return out;
}

export async function runPool(o: PoolOptions): Promise<PoolResult> {
  const size = Math.max(1, o.chunkSize ?? 16);
  const chunkCount = Math.ceil(o.cases.size / size);
  const url = o.workerUrl === undefined ? defaultWorkerUrl() : o.workerUrl;
  const threads = url === null || o.workers <= 1 ? 0 : Math.min(o.workers, chunkCount);
  // Results by chunk id, only of the chunks that ran: a Map, since the range may be far larger.
  const byChunk = new Map<number, CaseOutcome[]>();
  let done = 0;
  let stopped = false;

  if (threads === 0) {
    for (let id = 0; id < chunkCount; id++) {
      if (o.yieldToHost !== undefined) await o.yieldToHost();
      if (o.shouldStop?.() === true) {
        stopped = true;
        break;
      }
      const cases = chunkOf(o.cases, size, id);
      const results = o.runInProcess(o.setup, cases, o.now);
      byChunk.set(id, results);
      done += cases.length;
      o.onChunk?.(done, results);
    }
  } else if (url !== null) {
    stopped = await runThreads(
      url,
      threads,
      { count: chunkCount, of: (id) => chunkOf(o.cases, size, id) },
      byChunk,
      o,
      (n) => {
        done += n;
        return done;
      },
    );
  }

  // Chunks are started in order and every started chunk finishes, so the ones that ran are a prefix.
  const results: CaseOutcome[] = [];
  for (let id = 0; byChunk.has(id); id++) results.push(...(byChunk.get(id) ?? []));
  return { results, stopped, threads };
}

function runThreads(
  url: URL,
  threads: number,
  chunks: { readonly count: number; of(id: number): number[] },
  byChunk: Map<number, CaseOutcome[]>,
  o: PoolOptions,
  addDone: (n: number) => number,
): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const workers: Worker[] = [];
    let next = 0;
    let running = 0;
    let stopped = false;
    let settled = false;

    // A worker gets its first chunk when it says it is ready: a time limit that passes while workers are
    // still starting (many workers on few cores take seconds) stops the campaign at the first worker
    // ready after it (dispatch finishes when nothing runs), or at the host's next check (`every`) when no
    // chunk runs, not after every worker has started and run a chunk.
    const stopPolling = o.every?.(50, () => {
      if (running === 0 && o.shouldStop?.() === true) {
        stopped = true;
        finish();
      }
    });
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      stopPolling?.();
      for (const w of workers) void w.terminate();
      if (err !== undefined) reject(err);
      else resolve(stopped);
    };
    const dispatch = (w: Worker) => {
      if (next < chunks.count && !stopped && o.shouldStop?.() === true) stopped = true;
      if (next >= chunks.count || stopped) {
        if (running === 0) finish();
        return;
      }
      const id = next++;
      running++;
      const msg: ToWorker = { type: 'chunk', id, cases: chunks.of(id) };
      w.postMessage(msg);
    };

    for (let k = 0; k < threads; k++) {
      const w = new Worker(url, {
        workerData: { ...o.setup, timeCases: o.now !== undefined } satisfies WorkerSetup,
      });
      workers.push(w);
      w.on('message', (msg: FromWorker) => {
        if (msg.type === 'ready') {
          dispatch(w);
          return;
        }
        running--;
        if (msg.type === 'error') {
          finish(new Error(`fuzz worker failed on chunk ${msg.id}: ${msg.error}`));
          return;
        }
        const results = [...msg.results];
        byChunk.set(msg.id, results);
        o.onChunk?.(addDone(results.length), results);
        dispatch(w);
      });
      w.on('error', (err) => finish(err));
      w.on('exit', (code) => {
        if (code !== 0 && !settled) finish(new Error(`fuzz worker exited with code ${code}`));
      });
    }
  });
}
