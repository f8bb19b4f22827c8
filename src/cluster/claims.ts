// The API server's PersistentVolumeClaims, after staging/src/k8s.io/apiserver/pkg/registry/generic/registry/
// store.go (Delete with finalizers, Update that removes the last one): each scenario volume is a PV bound to a
// claim of its own name in namespace default, created before the run with the kubernetes.io/pvc-protection
// finalizer (plugin/pkg/admission/storage/storageobjectinuseprotection adds it to every claim it admits). Only a claim's deletion changes it; binding, resizing and the PV's reclaim are not modelled.
import { type PersistentVolumeClaim, PVCProtectionFinalizer } from '../api/v1.js';
import type { Fact } from '../facts.js';
import type { Sim } from '../sim/index.js';

/** What a DELETE of a claim did: set its deletionTimestamp, removed it, found it already deleting, or none. */
export type ClaimDeleteOutcome = 'updated' | 'deleted' | 'pending' | 'notFound';

export class ClaimStore {
  private readonly claims = new Map<string, PersistentVolumeClaim>();
  /** The claims' object id for schedule footprints (Sim.newSharedObjectId): a GET reads it, a change touches it. */
  private readonly object: number;

  constructor(
    private readonly sim: Sim,
    private readonly publish: (fact: Fact) => void,
  ) {
    this.object = sim.newSharedObjectId();
  }

  /** A bound claim of the volume's name, with the admission plugin's finalizer. */
  add(volumeName: string): void {
    this.claims.set(volumeName, {
      metadata: { name: volumeName, namespace: 'default', finalizers: [PVCProtectionFinalizer] },
      spec: { volumeName },
      status: { phase: 'Bound' },
    });
  }

  /** PersistentVolumeClaims(ns).Get: the claim as stored now, undefined if there is none (NotFound). */
  get(name: string): PersistentVolumeClaim | undefined {
    this.sim.readObject(this.object);
    return this.claims.get(name);
  }

  /**
   * `kubectl delete pvc`: the registry store's Delete. An object with finalizers is only updated with a
   * deletionTimestamp (updateForGracefulDeletionAndFinalizers) and stays until they are gone; one without
   * is removed from storage at once. A second DELETE of a claim already being deleted changes nothing.
   */
  delete(name: string): ClaimDeleteOutcome {
    this.sim.touchObject(this.object);
    const claim = this.claims.get(name);
    if (claim === undefined) return 'notFound';
    if (claim.metadata.deletionTimestamp !== undefined) return 'pending';
    this.publish({
      kind: 'apiPvcDeletionRequested',
      atMs: this.sim.nowMs,
      node: '',
      volume: name,
      finalizers: claim.metadata.finalizers,
    });
    if (claim.metadata.finalizers.length === 0) {
      this.remove(name);
      return 'deleted';
    }
    this.claims.set(name, { ...claim, metadata: { ...claim.metadata, deletionTimestamp: this.sim.nowMs } });
    return 'updated';
  }

  /**
   * An Update that drops `finalizer` (the pvc-protection controller's removeFinalizer). A claim being
   * deleted with no finalizer left is removed in the same update (store.go Update: ShouldDeleteDuringUpdate).
   */
  removeFinalizer(name: string, finalizer: string): void {
    this.sim.touchObject(this.object);
    const claim = this.claims.get(name);
    if (claim === undefined || !claim.metadata.finalizers.includes(finalizer)) return;
    const finalizers = claim.metadata.finalizers.filter((f) => f !== finalizer);
    this.publish({ kind: 'apiPvcFinalizerRemoved', atMs: this.sim.nowMs, node: '', volume: name });
    if (finalizers.length === 0 && claim.metadata.deletionTimestamp !== undefined) {
      this.remove(name);
      return;
    }
    this.claims.set(name, { ...claim, metadata: { ...claim.metadata, finalizers } });
  }

  private remove(name: string): void {
    this.claims.delete(name);
    this.publish({ kind: 'apiPvcDeleted', atMs: this.sim.nowMs, node: '', volume: name });
  }
}
