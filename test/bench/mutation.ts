// The mutation suite as a bench section (docs/mutation.md): how many planted bugs the fuzzer and the
// bundled claims catch. It reuses .mutation/report.json when that report measured the whole catalogue
// with the default budget on this very source (the report stores a hash of src/ and the catalogue);
// otherwise it runs the suite, which takes about 10 minutes on an idle 2-core machine. Never asserts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, runSuite } from '../mutation/main.js';
import { REPORT_FILE, type Report, sourceHash, summaryLines } from '../mutation/report.js';
import { DEFAULT_BUDGET } from '../mutation/run.js';
import type { BenchSection } from './measure.js';

/** The stored report, if it measured this source with the default budget and the whole catalogue. */
export function reusableReport(dir: string = root): Report | undefined {
  const file = join(dir, REPORT_FILE);
  if (!existsSync(file)) return undefined;
  let report: Report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  } catch {
    return undefined;
  }
  const b = report.budget;
  const sameBudget =
    b?.runs === DEFAULT_BUDGET.runs && JSON.stringify(b.seeds) === JSON.stringify(DEFAULT_BUDGET.seeds);
  return report.complete === true && sameBudget && report.sourceHash === sourceHash(dir) ? report : undefined;
}

export async function benchMutation(): Promise<BenchSection> {
  let report = reusableReport();
  const reused = report !== undefined;
  report ??= await runSuite({
    jobs: 2,
    only: undefined,
    budget: DEFAULT_BUDGET,
    keep: false,
    log: (l) => process.stderr.write(`${l}\n`),
  });
  const s = report.summary;
  return {
    title: `mutation (${reused ? `reused ${REPORT_FILE}: same source` : 'ran npm run mutation'})`,
    lines: summaryLines(report),
    json: {
      mutants: s.mutants,
      equivalent: s.equivalent,
      fuzzKillRate: s.fuzzKillRate,
      killRate: s.killRate,
      hiddenByHazard: s.hiddenByHazard,
      survivors: s.survivors,
    },
  };
}
