// Ported from kubernetes pkg/volume/util/nestedpendingoperations/nestedpendingoperations.go, release-1.23.
// Run starts an operation as its own goroutine, unless an operation with a matching key is pending or
// backing off after a failure. Keys (volumeName, podName, nodeName) match as upstream documents: an
// empty podName (or nodeName) matches every podName (nodeName) of the same volume.
import { GoError } from '../../api/errors.js';
import type { Co, ProcessGroup, Sim } from '../../sim/index.js';
import { ExponentialBackoff } from './exponentialBackoff.js';

export const EmptyUniquePodName = '';
export const EmptyUniqueVolumeName = '';
export const EmptyNodeName = '';

/** volumetypes.GeneratedOperations: the operation body is a coroutine returning the detailed error. */
export interface GeneratedOperations {
  readonly operationName: string;
  readonly operationFunc: () => Co<GoError | undefined>;
}

interface OperationKey {
  readonly volumeName: string;
  readonly podName: string;
  readonly nodeName: string;
}

interface Operation {
  key: OperationKey;
  operationName: string;
  operationPending: boolean;
  expBackoff: ExponentialBackoff;
}

function keyString(k: OperationKey): string {
  return `{volumeName:${k.volumeName} podName:${k.podName} nodeName:${k.nodeName}}`;
}

/** alreadyExistsError: an operation with a matching key is still running. */
export class AlreadyExistsError extends GoError {
  constructor(key: OperationKey) {
    super(
      `Failed to create operation with name ${keyString(key)}. An operation with that name is already executing.`,
    );
  }
}

export function isAlreadyExists(err: GoError | undefined): boolean {
  return err instanceof AlreadyExistsError;
}

export class NestedPendingOperations {
  private operations: Operation[] = [];

  constructor(
    private readonly sim: Sim,
    private readonly group: ProcessGroup | undefined,
    private readonly exponentialBackOffOnError = true,
    /**
     * The operations' footprint write mask (Process.footprintWriteMask): the kubelet's change only its
     * volume manager's state and the node's storage. -1: their write mask (everything).
     */
    private readonly footprintWriteMask = -1,
  ) {}

  run(
    volumeName: string,
    podName: string,
    nodeName: string,
    generatedOperations: GeneratedOperations,
  ): GoError | undefined {
    const opKey: OperationKey = { volumeName, podName, nodeName };
    const previousOpIndex = this.isOperationExists(opKey);
    if (previousOpIndex >= 0) {
      const previousOp = this.operations[previousOpIndex] as Operation;
      if (previousOp.operationPending) return new AlreadyExistsError(opKey);
      const backOffErr = previousOp.expBackoff.safeToRetry(keyString(opKey), this.sim.nowMs);
      if (backOffErr !== undefined) {
        if (previousOp.operationName === generatedOperations.operationName) {
          this.noteBackoffEnd(previousOp.expBackoff);
          return backOffErr;
        }
        // previous operation and new operation are different. reset op. name and exp. backoff
        previousOp.operationName = generatedOperations.operationName;
        previousOp.expBackoff = new ExponentialBackoff();
      }
      previousOp.operationPending = true;
      previousOp.key = opKey;
    } else {
      this.operations.push({
        key: opKey,
        operationPending: true,
        operationName: generatedOperations.operationName,
        expBackoff: new ExponentialBackoff(),
      });
    }
    const op = this.sim.spawn(
      `volume-op ${generatedOperations.operationName} ${volumeName}${podName === '' ? '' : `/${podName}`}`,
      this.runOperation(opKey, generatedOperations),
      this.group,
    );
    op.footprintWriteMask = this.footprintWriteMask;
    return undefined;
  }

  // A method, not a generator closure per operation: every generator function object gets a hidden class
  // of its own when first called, which keeps the whole closure alive past young-generation GCs.
  private *runOperation(opKey: OperationKey, generatedOperations: GeneratedOperations): Co {
    const detailedErr = yield* generatedOperations.operationFunc();
    this.operationComplete(opKey, detailedErr);
  }

  isOperationSafeToRetry(
    volumeName: string,
    podName: string,
    nodeName: string,
    operationName: string,
  ): boolean {
    const opKey: OperationKey = { volumeName, podName, nodeName };
    const i = this.isOperationExists(opKey);
    if (i < 0) return true;
    const previousOp = this.operations[i] as Operation;
    if (previousOp.operationPending) return false;
    const backOffErr = previousOp.expBackoff.safeToRetry(keyString(opKey), this.sim.nowMs);
    if (backOffErr !== undefined && previousOp.operationName === operationName) {
      this.noteBackoffEnd(previousOp.expBackoff);
      return false;
    }
    return true;
  }

  /** A refusal changes when the back-off ends: the polling loop that asked must look again then. */
  private noteBackoffEnd(b: ExponentialBackoff): void {
    this.sim.noteDeadline(b.lastErrorTimeMs + b.durationBeforeRetryMs + 1);
  }

  isOperationPending(volumeName: string, podName: string, nodeName: string): boolean {
    const i = this.isOperationExists({ volumeName, podName, nodeName });
    return i >= 0 && (this.operations[i] as Operation).operationPending;
  }

  /** For tests: how many operations are recorded (pending or backing off). */
  get size(): number {
    return this.operations.length;
  }

  /** isOperationExists: the index of the matching operation (pending ones first), or -1. */
  private isOperationExists(key: OperationKey): number {
    // If volumeName is empty, operation can be executed concurrently
    if (key.volumeName === EmptyUniqueVolumeName) return -1;
    let opIndex = -1;
    for (let i = 0; i < this.operations.length; i++) {
      const previousOp = this.operations[i] as Operation;
      const volumeNameMatch = previousOp.key.volumeName === key.volumeName;
      const podNameMatch =
        previousOp.key.podName === EmptyUniquePodName ||
        key.podName === EmptyUniquePodName ||
        previousOp.key.podName === key.podName;
      const podNameExactMatch = previousOp.key.podName === key.podName;
      const nodeNameMatch =
        previousOp.key.nodeName === EmptyNodeName ||
        key.nodeName === EmptyNodeName ||
        previousOp.key.nodeName === key.nodeName;
      const nodeNameExactMatch = previousOp.key.nodeName === key.nodeName;
      if (volumeNameMatch && podNameMatch && nodeNameMatch) {
        // nonExactMatch pending first
        if (previousOp.operationPending) return i;
        // nonExactMatch with no pending, set opIndex to the first nonExactMatch
        // exactMatch can override opIndex to expected
        if (opIndex === -1 || (podNameExactMatch && nodeNameExactMatch)) opIndex = i;
      }
    }
    return opIndex;
  }

  private getOperation(key: OperationKey): number {
    return this.operations.findIndex(
      (op) =>
        op.key.volumeName === key.volumeName &&
        op.key.podName === key.podName &&
        op.key.nodeName === key.nodeName,
    );
  }

  private deleteOperation(key: OperationKey): void {
    const opIndex = this.getOperation(key);
    if (opIndex < 0) return;
    // Delete index without preserving order
    this.operations[opIndex] = this.operations[this.operations.length - 1] as Operation;
    this.operations.pop();
  }

  private operationComplete(key: OperationKey, err: GoError | undefined): void {
    if (err === undefined || !this.exponentialBackOffOnError) {
      this.deleteOperation(key);
      return;
    }
    const i = this.getOperation(key);
    if (i < 0) return;
    const op = this.operations[i] as Operation;
    op.expBackoff.update(err, this.sim.nowMs);
    op.operationPending = false;
  }
}
