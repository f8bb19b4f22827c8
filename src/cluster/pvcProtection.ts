// Ported from kubernetes pkg/controller/volume/pvcprotection/pvc_protection_controller.go (release-1.28):
// removes kubernetes.io/pvc-protection from a claim being deleted once no pod uses it, so the API server
// can remove the claim. Only the deletion half: every claim has the finalizer from the start (claims.ts),
// so NeedToAddFinalizer never holds, and no ephemeral volume exists.
import { type Pod, PVCProtectionFinalizer } from '../api/v1.js';
import { type Co, type Rng, type Sim, sleep } from '../sim/index.js';
import type { APIServer } from './apiServer.js';

/** Watch delivery delay and API request latency, as the API server draws them (apiServer.ts). */
const WATCH_DELAY_MS = [10, 60] as const;
const API_LATENCY_MS = [5, 30] as const;

export class PvcProtectionController {
  private readonly rng: Rng;
  /** The workqueue: a claim queued once however often it is added before it is processed. */
  private readonly queued = new Set<string>();
  private started = false;

  constructor(
    private readonly sim: Sim,
    private readonly api: APIServer,
  ) {
    this.rng = sim.rng.fork('pvc-protection');
  }

  /**
   * pvcAddedUpdated: the claim's update reached the controller's PVC informer, and it is a deletion
   * candidate (IsDeletionCandidate: being deleted, the finalizer still on it), so it is queued. The
   * informers start with the first claim deletion: until one, the controller has nothing to do, and a run
   * with none draws nothing and schedules nothing for it.
   */
  claimUpdated(name: string): void {
    this.start();
    this.sim.after(this.rng.latencyMs(WATCH_DELAY_MS[0], WATCH_DELAY_MS[1], 'watch delivery'), () =>
      this.enqueue(name),
    );
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.api.watchPods(
      'pvc-protection',
      (type, pod) => this.enqueuePVCs(pod, type === 'DELETED'),
      () => {},
    );
  }

  /** enqueuePVCs: only a deleted or terminated pod can let a finalizer go. */
  private enqueuePVCs(pod: Pod, deleted: boolean): void {
    const terminated = pod.status.phase === 'Failed' || pod.status.phase === 'Succeeded';
    if (!deleted && !terminated && pod.spec.nodeName !== '') return;
    for (const claim of pod.spec.volumes) this.enqueue(claim);
  }

  private enqueue(name: string): void {
    if (this.queued.has(name)) return;
    this.queued.add(name);
    this.sim.spawn(`pvc-protection/processPVC ${name}`, this.processPVC(name), undefined, 0);
  }

  /**
   * processPVC: a claim being deleted that no pod uses loses its finalizer. isBeingUsed asks the pod
   * informer first and then lists pods live; the live list decides whenever the informer finds none, and
   * a pod the informer still shows after its deletion re-queues the claim with its DELETED event, so
   * only the live list is modelled.
   */
  private *processPVC(name: string): Co {
    this.queued.delete(name);
    const pvc = this.api.claims.get(name);
    if (pvc === undefined) return; // PVC not found, ignoring
    const candidate =
      pvc.metadata.deletionTimestamp !== undefined &&
      pvc.metadata.finalizers.includes(PVCProtectionFinalizer);
    if (!candidate) return;
    // askAPIServer: Pods(ns).List.
    yield* sleep(this.rng.latencyMs(API_LATENCY_MS[0], API_LATENCY_MS[1], 'API request'));
    if (this.api.allPods().some((pod) => podUsesPVC(pod, name))) return; // Keeping PVC because it is being used
    // removeFinalizer: an Update of the claim without it.
    yield* sleep(this.rng.latencyMs(API_LATENCY_MS[0], API_LATENCY_MS[1], 'API request'));
    this.api.claims.removeFinalizer(name, PVCProtectionFinalizer);
  }
}

/**
 * podUsesPVC: a scheduled pod that names the claim, whatever its phase ("kubelet sees pods after they have
 * been scheduled and it won't allow starting a pod referencing a PVC with a non-nil deletionTimestamp").
 */
function podUsesPVC(pod: Pod, claimName: string): boolean {
  return pod.spec.nodeName !== '' && pod.spec.volumes.includes(claimName);
}
