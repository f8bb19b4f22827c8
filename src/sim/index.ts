// The kernel's public surface.
export { AssertionError, assert, unreachable } from './assert.js';
export { Bus, type Subscriber } from './bus.js';
export { EventQueue, type Target } from './queue.js';
export { Rng, type RngState } from './rng.js';
export {
  Chan,
  CLOSED,
  type Closed,
  type Co,
  Context,
  DEFAULT_CASE,
  type Outcome,
  Process,
  ProcessGroup,
  park,
  type RunBounds,
  SELECT_DEFAULT,
  SELECT_TIMEOUT,
  type SelectCase,
  type SelectResult,
  Sim,
  type StopReason,
  select,
  sleep,
  sleepCtx,
} from './sim.js';
export { formatDurationMs, type ParseResult, parseDurationMs, parseSeed, parseSizeBytes } from './units.js';
