// Ported from kubernetes pkg/volume/plugins.go (VolumePluginMgr), release-1.23: one manager per kubelet
// incarnation on a node, holding the in-tree plugins this simulator models. Create a new one when a
// kubelet (re)starts: plugin-internal state such as iSCSI's targetLocks lives in the process.
import type { Fixes } from '../fixes.js';
import type { Host } from '../storage/host.js';
import { CsiPlugin } from './csi.js';
import { FcPlugin } from './fc.js';
import { IscsiPlugin } from './iscsi.js';
import { type PluginKind, pluginNames, type Spec, type VolumePlugin } from './volume.js';

export class VolumePluginMgr {
  private readonly plugins: Record<PluginKind, VolumePlugin>;

  constructor(
    readonly host: Host,
    readonly fixes: Fixes,
  ) {
    this.plugins = {
      fc: new FcPlugin(host, fixes),
      iscsi: new IscsiPlugin(host, fixes),
      csi: new CsiPlugin(host, fixes),
    };
  }

  /** FindPluginByName: by kind ('fc') or by the qualified name ('kubernetes.io/fc'). */
  findPluginByName(name: PluginKind | string): VolumePlugin {
    const kind = (Object.keys(pluginNames) as PluginKind[]).find(
      (k) => k === name || pluginNames[k] === name,
    );
    if (kind === undefined) throw new Error(`no volume plugin matched name: ${name}`);
    return this.plugins[kind];
  }

  /** FindPluginBySpec: the plugin whose CanSupport(spec) is true. */
  findPluginBySpec(spec: Spec): VolumePlugin {
    return this.plugins[spec.plugin];
  }

  /** FindAttachablePluginBySpec: all three are attachable (FC / iSCSI with no-op Attach, PR #48940). */
  findAttachablePluginBySpec(spec: Spec): VolumePlugin | undefined {
    const p = this.plugins[spec.plugin];
    return p.isAttachable() ? p : undefined;
  }

  all(): VolumePlugin[] {
    return Object.values(this.plugins);
  }
}
