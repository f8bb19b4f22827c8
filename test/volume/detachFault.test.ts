// The detach fault (src/storage/faults.ts DetachStage): the attach/detach controller's Detach of a CSI
// volume returns the VolumeAttachment's detachError `times` times, after ControllerUnpublishVolume fenced
// the node's path (afterDetach, the default) or with nothing changed (beforeDetach); each firing is a
// faultInjected fact. Then the scenario level: the loader's defaults, the round trip, the controller's
// volumeDetachFailed, and a fault that never fires reported as an entry that did nothing.
import { describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { runScenario } from '../../src/run/run.js';
import { parseScenarioText } from '../../src/scenario/load.js';
import type { DetachFault } from '../../src/scenario/types.js';
import { scenarioToYaml } from '../../src/scenario/write.js';
import type { DetachStage } from '../../src/storage/faults.js';
import { csiDetachErrorText } from '../../src/volume/csi.js';
import { World } from '../storage/world.js';

function detaching() {
  const w = new World();
  const spec = w.volume({ name: 'vol-1', plugin: 'csi' });
  const plugin = w.plugins('node-a').findPluginBySpec(spec);
  w.run(plugin.newAttacher().attach(spec, 'node-a'));
  const detach = () => w.run(plugin.newDetacher().detach('vol-1', 'node-a')).value;
  return { w, host: w.host(), detach };
}

describe('the detach fault on CsiDetacher.detach', () => {
  it("afterDetach: the node's path is fenced, then Detach returns the detachError; then it behaves", () => {
    const { w, host, detach } = detaching();
    host.injectFault({ kind: 'detach', volume: 'vol-1', stage: 'afterDetach', times: 2 });
    expect(detach()?.message).toBe(csiDetachErrorText);
    expect(w.san.isReachable('vol-1', 'node-a')).toBe(false);
    expect(host.faults.active()).toBe(true);
    // The external attacher's next try: already unpublished, and the answer lost again.
    expect(detach()?.message).toBe(csiDetachErrorText);
    expect(detach()).toBeUndefined();
    expect(host.faults.active()).toBe(false);
    expect(w.factsOf('faultInjected').map((f) => [f.fault, f.volume])).toEqual([
      ['detach/afterDetach', 'vol-1'],
      ['detach/afterDetach', 'vol-1'],
    ]);
    expect(w.factsOf('lunFenced').map((f) => f.fenced)).toEqual([false, true]);
  });

  it('beforeDetach: the unpublish failed and the path stays; the next Detach fences it', () => {
    const { w, host, detach } = detaching();
    host.injectFault({ kind: 'detach', volume: 'vol-1', stage: 'beforeDetach', times: 1 });
    expect(detach()?.message).toBe(csiDetachErrorText);
    expect(w.san.isReachable('vol-1', 'node-a')).toBe(true);
    expect(w.factsOf('lunFenced').map((f) => f.fenced)).toEqual([false]);
    expect(detach()).toBeUndefined();
    expect(w.san.isReachable('vol-1', 'node-a')).toBe(false);
    expect(w.factsOf('faultInjected').map((f) => f.fault)).toEqual(['detach/beforeDetach']);
  });

  it('a fault for another volume, or at the other stage, does not fire', () => {
    const { w, host, detach } = detaching();
    host.injectFault({ kind: 'detach', volume: 'vol-2', stage: 'afterDetach', times: 1 });
    expect(detach()).toBeUndefined();
    expect(w.factsOf('faultInjected')).toEqual([]);
    expect(host.faults.unfired().map((f) => [f.label, f.volume, f.remaining])).toEqual([
      ['detach/afterDetach', 'vol-2', 1],
    ]);
  });
});

const scenario = (fault: string, deleteAt = '15s') => `name: detach-fault
seed: 1
horizon: 2m
cluster:
  nodes: [node-a]
  volumes:
    - { name: vol-1, plugin: csi, mode: Filesystem, capacity: 10Gi }
timeline:
  - at: 0s
    createPod: { pod: db1, node: node-a, containers: 1, volumes: [vol-1], gracePeriod: 2s }
  - at: 10s
    fault: { detach: ${fault} }
  - at: ${deleteAt}
    deletePod: { pod: db1 }
`;

function faultOf(text: string): DetachFault {
  const a = parseScenarioText(text, 'f.yaml').timeline.find((e) => e.action.kind === 'fault')?.action;
  if (a?.kind !== 'fault' || a.fault.kind !== 'detach') throw new Error('no detach fault');
  return a.fault;
}

describe('the detach fault in a scenario', () => {
  it('loads with its defaults (afterDetach, once) and round-trips', () => {
    const text = scenario('{ node: node-a, volume: vol-1 }');
    expect(faultOf(text)).toEqual({
      kind: 'detach',
      node: 'node-a',
      volume: 'vol-1',
      stage: 'afterDetach',
      times: 1,
    });
    const written = scenarioToYaml(parseScenarioText(text, 'f.yaml'));
    expect(written).toContain('fault: {detach: {node: node-a, volume: vol-1}}');
    const explicit = scenario('{ node: node-a, volume: vol-1, stage: beforeDetach, times: 3 }');
    const back = faultOf(scenarioToYaml(parseScenarioText(explicit, 'f.yaml')));
    expect(back).toEqual({
      kind: 'detach',
      node: 'node-a',
      volume: 'vol-1',
      stage: 'beforeDetach',
      times: 3,
    });
  });

  const stages: readonly DetachStage[] = ['afterDetach', 'beforeDetach'];
  for (const stage of stages) {
    it(`${stage}: the controller's detach fails once with the detachError, then detaches`, () => {
      const r = runScenario(
        parseScenarioText(scenario(`{ node: node-a, volume: vol-1, stage: ${stage} }`), 'f.yaml'),
        {
          fixes: Fixes.all(),
          recordFacts: true,
        },
      );
      const facts = r.facts ?? [];
      const failed = facts.filter((f) => f.kind === 'volumeDetachFailed');
      expect(failed.map((f) => f.kind === 'volumeDetachFailed' && f.error)).toEqual([csiDetachErrorText]);
      const fired = facts.find((f) => f.kind === 'faultInjected');
      expect(fired).toMatchObject({ node: 'node-a', fault: `detach/${stage}`, volume: 'vol-1' });
      // afterDetach fences before the failure; beforeDetach only at the retry that succeeds.
      const fence = facts.find((f) => f.kind === 'lunFenced' && f.fenced);
      const detached = facts.find((f) => f.kind === 'volumeDetached');
      expect(fence !== undefined && fired !== undefined && detached !== undefined).toBe(true);
      if (stage === 'afterDetach') expect(fence?.atMs).toBe(fired?.atMs);
      else expect(fence?.atMs).toBe(detached?.atMs);
      expect(r.violations).toEqual([]);
      expect(facts.some((f) => f.kind === 'actionNoop')).toBe(false);
    });
  }

  it('a fault that never fires (no detach before the end) is reported as an entry that did nothing', () => {
    const r = runScenario(
      parseScenarioText(scenario('{ node: node-a, volume: vol-1, times: 2 }', '2m'), 'f.yaml'),
      {
        fixes: Fixes.all(),
        recordFacts: true,
      },
    );
    const noop = (r.facts ?? []).filter((f) => f.kind === 'actionNoop');
    expect(noop).toHaveLength(1);
    expect(noop[0]).toMatchObject({
      action: 'fault',
      line: 11,
      fault: 'detach/afterDetach',
      volume: 'vol-1',
    });
    expect(JSON.stringify(noop[0])).toContain('it never fired before the run ended (2 firing(s) armed)');
  });
});
