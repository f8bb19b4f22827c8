// docs/scenario-format.md's table from what a storage developer sees to the fault to write: every fault
// kind and every UnmountDevice stage the loader knows has a row, and the fault of every row loads.
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseScenarioText } from '../../src/scenario/load.js';
import { FAULT_KINDS, UNMOUNT_DEVICE_STAGES } from '../../src/scenario/types.js';
import { readDoc } from './docText.js';

const doc = readDoc('docs/scenario-format.md');
const section = doc.slice(
  doc.indexOf('### From what you see to the fault to write'),
  doc.indexOf('### Names and pod lifetimes'),
);
/** The last cell of each row: the fault, as written. */
const faults = [...section.matchAll(/^\|.*\| `([^`]+)`[^|]*\|$/gm)].map((m) => m[1] ?? '');

/** The row's fault inside a small scenario, with the node, volume or pod it leaves out. */
function scenarioOf(fault: string): string {
  const value = parse(`{${fault.replace(/\bN\b/g, '3').replace('"..."', '"CreateContainerError: boom"')}}`);
  const [kind = '', args] = Object.entries((value ?? {}) as Record<string, unknown>)[0] ?? [];
  const own = (args ?? {}) as Record<string, unknown>;
  const where =
    kind === 'containerStart' || kind === 'stopContainer'
      ? { pod: 'web' }
      : kind === 'procMounts' || kind === 'nodePartition'
        ? { node: 'node-a' }
        : { node: 'node-a', volume: 'lun-1' };
  return stringify({
    name: 'fault-table',
    cluster: { nodes: ['node-a'], volumes: [{ name: 'lun-1', plugin: 'csi', capacity: '1Gi' }] },
    timeline: [
      { at: '0s', createPod: { pod: 'web', node: 'node-a', containers: 1, volumes: ['lun-1'] } },
      { at: '1s', fault: { [kind]: { ...where, ...own } } },
    ],
  });
}

describe('the fault table of docs/scenario-format.md', () => {
  it('has a row for every fault kind and every unmountDevice stage', () => {
    expect(faults.length).toBeGreaterThanOrEqual(10);
    for (const kind of FAULT_KINDS)
      expect(
        faults.some((f) => f.startsWith(kind)),
        kind,
      ).toBe(true);
    for (const stage of UNMOUNT_DEVICE_STAGES)
      expect(
        faults.some((f) => f.includes(`stage: ${stage}`)),
        stage,
      ).toBe(true);
  });

  for (const fault of faults)
    it(`${fault} loads`, () => {
      const s = parseScenarioText(scenarioOf(fault), 'fault-table.yaml');
      expect(s.timeline.some((e) => e.action.kind === 'fault')).toBe(true);
    });
});
