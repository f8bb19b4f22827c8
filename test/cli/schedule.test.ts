// `podrace run FILE --schedule S`: follows a schedule of same-instant choices, shows it in the header,
// --json and the trace; a string that does not parse or does not fit the scenario is exit 2 naming its
// position.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podrace } from './spawnCli.js';

const temp = mkdtempSync(join(tmpdir(), 'podrace-schedule-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe('run --schedule', () => {
  it('follows the schedule and says so in the header, --json and the trace', () => {
    const text = podrace(['run', 'pod-deleted-before-start', '--schedule', '3:1']);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/fixes all {2}schedule 3:1$/);
    const json = JSON.parse(
      podrace(['run', 'pod-deleted-before-start', '--schedule', '3:1', '--json']).stdout,
    );
    expect(json.schedule).toBe('3:1');
    expect(json.choicePoints).toBeGreaterThan(3);
    const trace = join(temp, 'run.trace.json');
    expect(podrace(['run', 'pod-deleted-before-start', '--schedule', 'default', '--trace', trace]).code).toBe(
      0,
    );
    expect(JSON.parse(readFileSync(trace, 'utf8')).otherData.schedule).toBe('default');
    // Without --schedule the JSON result has no schedule fields.
    const plain = JSON.parse(podrace(['run', 'pod-deleted-before-start', '--json']).stdout);
    expect(plain.schedule).toBeUndefined();
  });

  it('a string that does not parse or fit is exit 2 naming the position', () => {
    const cases: [string, RegExp][] = [
      ['3:1,x', /--schedule: position 2 of "3:1,x": "x" is neither POINT:PICK .* nor LPOINT=MS/],
      ['L3=5,L2=1', /position 2 .*latency points must increase \(2 after 3\)/],
      [
        'L1=999999',
        /position 1 of "L1=999999" \(L1=999999\) does not fit .*latency point 1 \(.*\) draws from \d+\.\.\d+ ms, not 999999 ms/,
      ],
      ['L99999999=1', /position 1 .* does not fit .*latency point 99999999 is never reached/],
      ['5:1,3:1', /position 2 .*choice points must increase/],
      ['2:0', /position 1 .*pick 0 is the default order/],
      ['1:1,99999999:1', /position 2 of "1:1,99999999:1" \(99999999:1\) does not fit .*never reached/],
      ['0:99', /position 1 of "0:99" \(0:99\) does not fit .*choice point 0 has \d+ ready events/],
    ];
    for (const [s, message] of cases) {
      const r = podrace(['run', 'pod-deleted-before-start', '--schedule', s]);
      expect([r.code, r.stdout], s).toEqual([2, '']);
      expect(r.stderr, s).toMatch(message);
      expect(r.stderr).not.toMatch(/at .*\.js/);
    }
    const both = podrace(['run', 'pod-deleted-before-start', '--schedule', '1:1', '--seeds', '1..2']);
    expect(both.code).toBe(2);
    // A schedule's choice points are the elided run's: a plain run would number them otherwise.
    const plain = podrace(['run', 'pod-deleted-before-start', '--schedule', '1:1', '--no-elide']);
    expect([plain.code, plain.stdout]).toEqual([2, '']);
    expect(plain.stderr).toMatch(/--schedule and --no-elide cannot be combined/);
  });
});
