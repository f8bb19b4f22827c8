// The release presets the reference pages name are the ones `--kubelet` and a claim's `kubelet:` accept:
// docs/cli.md and docs/scenario-format.md state the range from the first preset to the last, so a preset
// added to src/fixes.ts without them fails here (both pages once stopped at 1.25 while 1.31 existed).
import { describe, expect, it } from 'vitest';
import { RELEASE_PRESETS } from '../../src/fixes.js';
import { readDoc } from './docText.js';

const first = RELEASE_PRESETS[0];
const last = RELEASE_PRESETS[RELEASE_PRESETS.length - 1];

describe('the release range the reference pages state', () => {
  it('docs/cli.md names --kubelet from the first preset to the last', () => {
    expect(readDoc('docs/cli.md')).toContain(`| \`--kubelet ${first}\` to \`${last}\``);
  });

  it("docs/scenario-format.md says a claim's kubelet: takes the same range", () => {
    expect(readDoc('docs/scenario-format.md')).toContain(`or a release from \`${first}\` to \`${last}\``);
  });
});
