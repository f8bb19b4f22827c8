// Go `error` values. Functions ported from Go return `GoError | undefined` instead of throwing, so the
// caller's `if err != nil` branches port one to one.

export class GoError {
  constructor(readonly message: string) {}
  toString(): string {
    return this.message;
  }
}

/** context.Canceled. */
export const errContextCanceled = new GoError('context canceled');

/** volumetypes.NewTransientOperationFailure: the operation may succeed if retried; state unchanged. */
export class TransientOperationFailure extends GoError {}

/** volumetypes.NewUncertainProgressError: the operation may still be in progress; state is uncertain. */
export class UncertainProgressError extends GoError {}

/** io.IsInconsistentReadError: /proc/mounts changed while it was read (k8s.io/utils/io). */
export class InconsistentReadError extends GoError {}

/** volume.NewNotSupportedError and friends from pkg/volume/metrics_errors.go. */
export type MetricsErrorCode = 'NotSupported' | 'NoPathDefined' | 'FsInfoFailed';
export class MetricsError extends GoError {
  constructor(
    readonly code: MetricsErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** apierrors.StatusError, reduced to the reasons the kubelet's clients tell apart. */
export type StatusReason = 'AlreadyExists' | 'NotFound' | 'Conflict';
export class StatusError extends GoError {
  constructor(
    readonly reason: StatusReason,
    message: string,
  ) {
    super(message);
  }
}
