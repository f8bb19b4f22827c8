// Ported from kubernetes pkg/kubelet/pod/mirror_client.go, release-1.23 (the same in release-1.20).
// The kubelet's client for mirror pods: the API objects that make its static pods visible. Upstream's
// basicManager embeds it; here the Kubelet holds it next to the pod manager.
import { GoError } from '../../api/errors.js';
import {
  annotated,
  ConfigHashAnnotationKey,
  ConfigMirrorAnnotationKey,
  newPod,
  type Pod,
  type UID,
} from '../../api/v1.js';
import type { Co } from '../../sim/index.js';
import type { KubeClient } from '../kubeClient.js';

/** getPodHash: the config hash of a static pod (its UID for file pods, config/common.go). */
export function getPodHash(pod: Pod): string | undefined {
  return pod.metadata.annotations[ConfigHashAnnotationKey];
}

/** getHashFromMirrorPod: the hash of the static pod a mirror pod was made from. */
export function getHashFromMirrorPod(pod: Pod): string | undefined {
  return pod.metadata.annotations[ConfigMirrorAnnotationKey];
}

/** ParsePodFullName: name_namespace. */
function parsePodFullName(podFullName: string): { name: string; namespace: string } | undefined {
  const parts = podFullName.split('_');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { name: parts[0] as string, namespace: parts[1] as string };
}

export class BasicMirrorClient {
  constructor(private readonly apiserverClient: KubeClient) {}

  /**
   * CreateMirrorPod: a copy of the static pod, annotated with its hash, created in the API server.
   * Upstream also sets a Node owner reference (not modelled). On AlreadyExists it compares the hash of
   * the object Create returned, which client-go leaves empty on an error, so the error is returned.
   */
  *createMirrorPod(pod: Pod): Co<GoError | undefined> {
    const hash = getPodHash(pod) ?? '';
    const copyPod = newPod(annotated(pod.metadata, ConfigMirrorAnnotationKey, hash), pod.spec, pod.status);
    return yield* this.apiserverClient.createMirrorPod(copyPod);
  }

  /**
   * DeleteMirrorPod deletes a mirror pod (grace period 0). It returns whether the pod was actually
   * deleted; NotFound and a UID conflict are not errors, they just mean nothing was deleted.
   */
  *deleteMirrorPod(
    podFullName: string,
    uid: UID | undefined,
  ): Co<{ deleted: boolean; err: GoError | undefined }> {
    const parsed = parsePodFullName(podFullName);
    if (parsed === undefined) {
      return { deleted: false, err: new GoError(`failed to parse a pod full name "${podFullName}"`) };
    }
    const err = yield* this.apiserverClient.deleteMirrorPod(parsed.namespace, parsed.name, uid);
    // Upstream logs any error other than NotFound / Conflict, and reports nothing deleted either way.
    if (err !== undefined) return { deleted: false, err: undefined };
    return { deleted: true, err: undefined };
  }
}
