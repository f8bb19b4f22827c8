// scenarioToYaml's comments (podrace import writes each entry's source lines with them): above the file,
// above a volume, above a timeline entry, several lines each; the file loads back to the same scenario.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledScenariosDir } from '../../src/scenario/bundled.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenario/load.js';
import { stripSourcePositions } from '../../src/scenario/types.js';
import { scenarioToYaml } from '../../src/scenario/write.js';

describe('scenarioToYaml comments', () => {
  const s = loadScenarioFile(join(bundledScenariosDir(), 'fc-kubelet-restart-reconstruct-procmounts.yaml'));
  const text = scenarioToYaml(s, {
    comments: {
      header: 'first\nsecond',
      volumes: s.volumes.map((v) => `vol ${v.name}`),
      timeline: s.timeline.map((_, i) => (i === 0 ? 'from k.log:1\nguess: x' : null)),
    },
  });

  it('writes each comment where it belongs', () => {
    expect(text.startsWith('# first\n# second\n')).toBe(true);
    expect(text).toContain(`    # vol ${s.volumes[0]!.name}\n    - {name: ${s.volumes[0]!.name}`);
    expect(text).toMatch(/\n {2}# from k\.log:1\n {2}# guess: x\n {2}- at: /);
    expect(text.match(/# from/g)).toHaveLength(1);
  });

  it('loads back to the same scenario', () => {
    expect(stripSourcePositions(parseScenarioText(text, 'x.yaml'))).toEqual(stripSourcePositions(s));
  });
});
