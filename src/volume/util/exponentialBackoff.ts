// Ported from kubernetes pkg/util/goroutinemap/exponentialbackoff/exponential_backoff.go, release-1.23.
import { GoError } from '../../api/errors.js';

/** initialDurationBeforeRetry: the first wait after a failed operation. */
export const initialDurationBeforeRetryMs = 500;
/** maxDurationBeforeRetry: "slightly offset from 2 minutes to make timeouts due to this constant recognizable". */
export const maxDurationBeforeRetryMs = 2 * 60_000 + 2_000;

/** ExponentialBackoff: the last error, when it happened, and how long retries are refused. */
export class ExponentialBackoff {
  lastError: GoError | undefined = undefined;
  lastErrorTimeMs = Number.NEGATIVE_INFINITY;
  durationBeforeRetryMs = 0;

  /** SafeToRetry: an error while `now - lastErrorTime <= durationBeforeRetry`. */
  safeToRetry(operationName: string, nowMs: number): GoError | undefined {
    if (nowMs - this.lastErrorTimeMs <= this.durationBeforeRetryMs) {
      return new ExponentialBackoffError(operationName, this);
    }
    return undefined;
  }

  update(err: GoError, nowMs: number): void {
    if (this.durationBeforeRetryMs === 0) {
      this.durationBeforeRetryMs = initialDurationBeforeRetryMs;
    } else {
      this.durationBeforeRetryMs = Math.min(2 * this.durationBeforeRetryMs, maxDurationBeforeRetryMs);
    }
    this.lastError = err;
    this.lastErrorTimeMs = nowMs;
  }
}

/** exponentialBackoffError: a retry was refused because the previous attempt failed too recently. */
export class ExponentialBackoffError extends GoError {
  constructor(operationName: string, backoff: ExponentialBackoff) {
    super(
      `Failed to create operation with name "${operationName}". An operation with that name failed at ` +
        `${backoff.lastErrorTimeMs}ms. No retries permitted until ` +
        `${backoff.lastErrorTimeMs + backoff.durationBeforeRetryMs}ms (${backoff.durationBeforeRetryMs}ms). ` +
        `Last error: "${backoff.lastError?.message ?? ''}".`,
    );
  }
}

export function isExponentialBackoff(err: GoError | undefined): boolean {
  return err instanceof ExponentialBackoffError;
}
