// What `podrace fuzz` with a switch turned off shows the user (issue 26, item 1): the switches --fix
// changed from the --kubelet preset, the find one of them closes shrunk and written first, and one line
// that says why the campaign exits 1.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podrace as podraceIn } from './spawnCli.js';

const dir = mkdtempSync(join(tmpdir(), 'podrace-rank-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const podrace = (args: string[]) => podraceIn(args, { cwd: dir });

describe('fuzz with a switch turned off', () => {
  it('writes the find that switch closes, and says why it exits 1 in one line', () => {
    // Seed 1, case 3: static-pod-overlap (and mirror-pod-deleted-while-running, which turning the pod
    // worker off closes too), closed by turning static-pod-start-exclusion back on: what the user asked.
    const args = ['fuzz', '--runs', '24', '--kubelet', '1.23', '--fix', 'static-pod-start-exclusion=off'];
    const r = podrace([...args, '--shrink-runs', '10', '--out', 'found']);
    expect(r.code).toBe(1);
    const reason = r.stdout.split('\n').filter((l) => l.startsWith('exit '));
    expect(reason).toEqual([
      expect.stringMatching(
        /^exit 1: static-pod-overlap fired in \d+ case\(s\) that no known-open hazard explains; in case 3 turning static-pod-start-exclusion back on \(--fix turned it off\) closes it/,
      ),
    ]);
    expect(r.stdout).toContain('(closed by static-pod-start-exclusion on), first in case 3');
    expect(readdirSync(join(dir, 'found'))).toContain('static-pod-overlap-1-3.yaml');

    const json = podrace([...args, '--shrink', '0', '--json']);
    const summary = JSON.parse(json.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(summary['changedFixes']).toEqual(['static-pod-start-exclusion']);
    expect(summary['exitReason']).toBe(reason[0]);
    // The release preset alone changes nothing: the same find is merely fix-sensitive.
    const preset = podrace(['fuzz', '--runs', '24', '--kubelet', 'legacy', '--shrink', '0', '--json']);
    const s2 = JSON.parse(preset.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(s2['changedFixes']).toEqual([]);
    expect(s2['exitReason']).toMatch(
      /^exit 1: \S+ fired in \d+ case\(s\) that no known-open hazard explains; /,
    );
    expect(s2['exitReason']).not.toMatch(/--fix turned it/);
  });
});
