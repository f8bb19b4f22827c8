// `--trace FILE` and `--timeline FILE`: the two files a run can be written to, shared by `run` and
// `replay` (and by `fuzz` through failureFiles.ts), so every command that runs one scenario writes the
// same two files the same way.
import { toChromeTrace } from '../report/chromeTrace.js';
import { toTimelineHtml } from '../report/timelineHtml.js';
import type { RunResult } from '../run/run.js';
import { writeOutputFile } from './output.js';

export { runFileOptions } from './flags.js';

export interface RunFiles {
  readonly trace?: string | undefined;
  readonly timeline?: string | undefined;
}

/** True if the run must record its facts for the files asked for. */
export function wantsRunFiles(o: RunFiles): boolean {
  return o.trace !== undefined || o.timeline !== undefined;
}

export function writeRunFiles(result: RunResult, o: RunFiles): void {
  if (o.trace !== undefined) writeOutputFile(o.trace, toChromeTrace(result));
  if (o.timeline !== undefined) writeOutputFile(o.timeline, toTimelineHtml(result));
}
