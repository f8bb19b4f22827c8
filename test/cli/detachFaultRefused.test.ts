// A detach fault on a volume whose in-tree Detach does nothing (iSCSI, FC) is bad input: the built CLI
// exits 2 with one line naming the file, line, column and field.
import { describe, expect, it } from 'vitest';
import { podrace } from './spawnCli.js';

describe('podrace run refuses a detach fault on an iscsi volume', () => {
  it('exit 2, one line: file:line:col, the field, the reason', () => {
    const file = 'test/fixtures/invalid/detach-iscsi.yaml';
    const r = podrace(['run', file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `${file}:8:44: timeline[0].fault.detach.volume: volume "lun-1" is an iscsi volume, whose in-tree Detach does nothing and cannot fail; a detach fault needs a csi volume\n`,
    );
  });
});
