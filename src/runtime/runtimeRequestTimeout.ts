// The kubelet's runtime-request-timeout (default 2m): remote_runtime.go runs CreateContainer and
// StartContainer under getContextWithTimeout(r.timeout), so a start slower than that fails with
// DeadlineExceeded, and containerd marks the container exited (128, StartError).

export const RUNTIME_REQUEST_TIMEOUT_MS = 120_000;

/**
 * The longest `startDelay` a scenario may give a container: with StartContainer's own latency (at most
 * 100 ms, src/runtime/fakeRuntime.ts) every attempt fits in the timeout. A longer one would fail on every
 * attempt, and the container would never start for a reason that is no kubelet's.
 */
export const MAX_START_DELAY_MS = RUNTIME_REQUEST_TIMEOUT_MS - 1000;
