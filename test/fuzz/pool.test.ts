// The worker count `podrace main` picks when none is named: a cold worker thread pays only once it has
// enough cases to outlast compiling the simulator afresh, so small campaigns stay in this thread.
import { describe, expect, it } from 'vitest';
import { CASES_PER_WORKER_MIN, defaultWorkerCount } from '../../src/fuzz/pool.js';

describe('defaultWorkerCount', () => {
  it("runs npm start's 60 cases in this thread, whatever the CPUs", () => {
    for (const cpus of [1, 2, 8, 64]) expect(defaultWorkerCount(60, cpus)).toBe(1);
  });

  it('adds a worker per CASES_PER_WORKER_MIN cases, up to the CPUs and 4', () => {
    expect(defaultWorkerCount(2 * CASES_PER_WORKER_MIN - 1, 8)).toBe(1);
    expect(defaultWorkerCount(2 * CASES_PER_WORKER_MIN, 8)).toBe(2);
    expect(defaultWorkerCount(3 * CASES_PER_WORKER_MIN, 8)).toBe(3);
    expect(defaultWorkerCount(100 * CASES_PER_WORKER_MIN, 8)).toBe(4);
    expect(defaultWorkerCount(100 * CASES_PER_WORKER_MIN, 2)).toBe(2);
    expect(defaultWorkerCount(100 * CASES_PER_WORKER_MIN, 1)).toBe(1);
    expect(defaultWorkerCount(0, 8)).toBe(1);
  });
});
