// The release table of docs/fixes.md, from the fix table itself (src/fixes.ts): the change's PR, the
// release whose .0 first shipped it, its backports, and its state in each release preset.
import { FIX_IDS, FIX_TABLE, type FixDef, fixApplies, fixPrs, RELEASE_PRESETS } from '../fixes.js';

export function renderFixTable(): string {
  const lines = [
    `| fix ID | upstream | since | backports | ${RELEASE_PRESETS.join(' | ')} |`,
    `| --- | --- | --- | --- |${RELEASE_PRESETS.map(() => ' --- |').join('')}`,
  ];
  for (const id of FIX_IDS) {
    const d: FixDef = FIX_TABLE[id];
    const states = RELEASE_PRESETS.map((p) => (fixApplies(id, p) ? (d.presets[p] ? 'on' : 'off') : 'n/a'));
    lines.push(
      `| \`${id}\` | ${fixPrs(id)} | ${d.release} | ${d.backports.join(', ')} | ${states.join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
