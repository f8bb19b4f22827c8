// The kernel's public surface.
export { AssertionError, assert, unreachable } from './assert.js';
export { Bus, type Subscriber } from './bus.js';
export { Chan, CLOSED, type Closed, Context, sleepCtx } from './chan.js';
export {
  ChoiceLog,
  ChoiceRun,
  type Deviation,
  dependent,
  FP_HOOKED,
  FP_READER,
  FP_STALE,
  FP_WRITER,
  isLatencyDeviation,
  isTickFire,
  type Misfit,
  type Schedule,
  type Step,
} from './choices.js';
export {
  type Co,
  DEFAULT_CASE,
  type Effect,
  park,
  SELECT_DEFAULT,
  SELECT_TIMEOUT,
  type SelectCase,
  type SelectResult,
  select,
  sleep,
} from './effects.js';
export { IdleLoop, type LoopOptions, type RoundLoop, roundLoop, Ticker } from './elision.js';
export { formatLatencyMs, type LatencyDeviation, LatencyLog } from './latencyChoices.js';
export { WRITES_ALL } from './masks.js';
export { codeUnitOrder } from './order.js';
export { Process, ProcessGroup, type ProcessState } from './process.js';
export { EventQueue, type InstantEntries, type Target } from './queue.js';
export { type LatencyChooser, type LatencyDraw, Rng, type RngState } from './rng.js';
export { type Outcome, type RunBounds, Sim, type SimOptions, type StopReason } from './sim.js';
export { formatDurationMs, type ParseResult, parseDurationMs, parseSeed, parseSizeBytes } from './units.js';
export { VersionedMap, VersionedSet } from './versioned.js';
