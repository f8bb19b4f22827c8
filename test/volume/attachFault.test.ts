// The waitForAttach fault at the start of each plugin's WaitForAttach (src/volume/attachFault.ts): the call
// takes the fault's delay, fails with the plugin's upstream text (or the scenario's), `times` times, and
// then finds the device as usual; a kubelet that dies during the delay leaves the firing armed.
import { describe, expect, it } from 'vitest';
import type { LunPlugin } from '../../src/storage/san.js';
import { FC_NO_DISK_TEXT } from '../../src/volume/attachFault.js';
import type { Spec } from '../../src/volume/volume.js';
import { World } from '../storage/world.js';

function attaching(plugin: LunPlugin, mode: 'Filesystem' | 'Block' = 'Filesystem') {
  const w = new World();
  const spec: Spec = w.volume({ name: 'lun-1', plugin, mode });
  const attacher = w.plugins('node-a').findPluginBySpec(spec).newAttacher();
  if (plugin === 'csi') w.run(attacher.attach(spec, 'node-a'));
  const waitForAttach = () => w.run(attacher.waitForAttach(spec, '', 'uid-1', 120_000));
  return { w, host: w.host(), waitForAttach };
}

const UPSTREAM_TEXT: Record<LunPlugin, string> = {
  iscsi: 'failed to get any path for iscsi disk, last err seen:\niscsi: failed to sendtargets to portal',
  fc: FC_NO_DISK_TEXT,
  csi: 'volume lun-1 has GET error for volume attachment csi-lun-1-node-a',
};

describe('the waitForAttach fault', () => {
  for (const plugin of ['iscsi', 'fc', 'csi'] as const) {
    it(`${plugin}: fails with upstream's text \`times\` times, then finds the device`, () => {
      const { host, w, waitForAttach } = attaching(plugin);
      host.injectFault({ kind: 'waitForAttach', volume: 'lun-1', times: 2, error: null, delayMs: null });
      for (let i = 0; i < 2; i++) {
        const r = waitForAttach();
        expect(r.value.err?.message).toContain(UPSTREAM_TEXT[plugin]);
        expect(r.value.value).toBeUndefined();
        expect(r.tookMs).toBe(0);
      }
      const ok = waitForAttach();
      expect(ok.value.err).toBeUndefined();
      expect(host.faults.active()).toBe(false);
      const fired = w.factsOf('faultInjected');
      expect(fired).toHaveLength(2);
      expect(fired[0]).toMatchObject({ fault: 'waitForAttach', volume: 'lun-1', delayMs: 0 });
      expect(fired[0]?.error).toContain(UPSTREAM_TEXT[plugin]);
    });
  }

  it('iscsi Block: MapVolume calls the same WaitForAttach, which fails before any login', () => {
    const { host, w, waitForAttach } = attaching('iscsi', 'Block');
    host.injectFault({ kind: 'waitForAttach', volume: 'lun-1', times: 1, error: null, delayMs: null });
    const failed = waitForAttach();
    expect(failed.value.err).toBeDefined();
    // No login, no scan: it took no time at all, while the call that goes through logs in.
    expect(failed.tookMs).toBe(0);
    const ok = waitForAttach();
    expect(ok.value.err).toBeUndefined();
    expect(ok.tookMs).toBeGreaterThan(0);
    expect(w.factsOf('faultInjected')).toHaveLength(1);
  });

  it("takes the delay first and returns the scenario's error text", () => {
    const { host, w, waitForAttach } = attaching('iscsi');
    host.injectFault({
      kind: 'waitForAttach',
      volume: 'lun-1',
      times: 1,
      error: 'Could not attach disk: Timeout after 10s',
      delayMs: 10_000,
    });
    const r = waitForAttach();
    expect(r.value.err?.message).toBe('Could not attach disk: Timeout after 10s');
    expect(r.tookMs).toBe(10_000);
    // Published as the call fails, not as it starts.
    expect(w.factsOf('faultInjected')).toMatchObject([
      {
        atMs: 10_000,
        fault: 'waitForAttach',
        delayMs: 10_000,
        error: 'Could not attach disk: Timeout after 10s',
      },
    ]);
  });

  it('fires only for its volume and reports what was left unfired', () => {
    const { host, waitForAttach } = attaching('fc');
    host.injectFault({ kind: 'waitForAttach', volume: 'lun-2', times: 3, error: null, delayMs: null });
    expect(waitForAttach().value.err).toBeUndefined();
    expect(host.faults.unfired()).toMatchObject([{ label: 'waitForAttach', volume: 'lun-2', remaining: 3 }]);
  });
});
