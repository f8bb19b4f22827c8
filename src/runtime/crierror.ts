// Ported from kubernetes staging/src/k8s.io/cri-api/pkg/errors/errors.go (crierror.IsNotFound) and the
// gRPC status a CRI runtime answers with: the kubelet tells errors apart by their gRPC code, not their text.
import { GoError } from '../api/errors.js';

/** The gRPC codes the fake runtime answers with (google.golang.org/grpc/codes). */
export type GrpcCode = 'NotFound' | 'Unavailable' | 'Unknown';

/** A gRPC status error as the CRI client returns it: `rpc error: code = <code> desc = <desc>`. */
export class CRIStatusError extends GoError {
  constructor(
    readonly code: GrpcCode,
    desc: string,
  ) {
    super(`rpc error: code = ${code} desc = ${desc}`);
  }
}

/** crierror.IsNotFound: a gRPC status error whose code is NotFound (status.FromError, s.Code()). */
export function isNotFound(err: GoError | undefined): boolean {
  return err instanceof CRIStatusError && err.code === 'NotFound';
}

/**
 * containerd's StopContainer of an ID its container store does not hold (pkg/cri/server/container_stop.go:
 * "an error occurred when try to find container %q: %w" around errdefs.ErrNotFound, which the CRI service
 * maps to codes.NotFound).
 */
export function containerNotFound(containerId: string): CRIStatusError {
  return new CRIStatusError(
    'NotFound',
    `an error occurred when try to find container ${JSON.stringify(containerId)}: not found`,
  );
}
