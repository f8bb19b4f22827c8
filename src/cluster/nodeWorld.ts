// One node of the world: what survives a kubelet restart (host state) and the current kubelet process.
import type { Kubelet, NodeHostState } from '../kubelet/kubelet.js';
import type { Host } from '../storage/host.js';

export interface NodeWorld {
  readonly name: string;
  /** Mount table, SCSI devices, multipath maps, iSCSI sessions, /proc/mounts. */
  readonly storage: Host;
  /** Container runtime, pod cgroups, static pod manifests. */
  readonly host: NodeHostState;
  /** The running kubelet process, or undefined while it is down. */
  kubelet: Kubelet | undefined;
  /** How many kubelet processes this node has started (names their RNG streams). */
  kubeletGeneration: number;
  /**
   * The node object's labels, as its kubelet registered them (cluster.nodes' `labels`, replaced by a
   * restartKubelet's): what admission matches a pod's nodeSelector against.
   */
  labels: Readonly<Record<string, string>>;
}
