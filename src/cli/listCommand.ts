// `podrace list`: the invariants, the fix switches with their history, the bundled scenarios.
import { FIX_IDS, FIX_TABLE, type FixDef, fixApplies, fixPrs, RELEASE_PRESETS } from '../fixes.js';
import { INVARIANT_DESCRIPTIONS } from '../invariants/descriptions.js';
import { INVARIANT_IDS } from '../invariants/types.js';

export async function listLines(what: string): Promise<string[]> {
  switch (what) {
    case 'fixes':
      return fixesTable();
    case 'scenarios': {
      // The scenario loader (YAML, schema) only for this list.
      const { bundledScenarioFiles } = await import('../scenario/bundled.js');
      const { loadScenarioFile } = await import('../scenario/load.js');
      const files = bundledScenarioFiles();
      const names = files.map((f) => loadScenarioFile(f).name);
      const width = Math.max(...names.map((n) => n.length)) + 2;
      return files.map((f) => {
        const s = loadScenarioFile(f);
        // One line: the description's first sentence, cut at 100 characters.
        const text = s.description.replace(/\s+/g, ' ').trim();
        const sentence = text.split(/(?<=\.)\s/)[0] ?? '';
        const first = sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
        return `${s.name.padEnd(width)}${first}`;
      });
    }
    default:
      return INVARIANT_IDS.map((id) => `${id.padEnd(40)}${INVARIANT_DESCRIPTIONS[id]}`);
  }
}

/**
 * `podrace list fixes`: one line a switch, with its PRs, the release that first shipped it from master,
 * and its state in the last patch of each release preset (n/a where the code it switches does not
 * exist in that release); its summary and backports on the line below.
 */
export function fixesTable(): string[] {
  const idWidth = Math.max(...FIX_IDS.map((id) => id.length)) + 2;
  const prWidth = Math.max(...FIX_IDS.map((id) => fixPrs(id).length)) + 2;
  const head = `${'fix'.padEnd(idWidth)}${'upstream'.padEnd(prWidth)}${'since'.padEnd(7)}${RELEASE_PRESETS.map((p) => p.padEnd(6)).join('')}`;
  const lines = [head];
  for (const id of FIX_IDS) {
    const d: FixDef = FIX_TABLE[id];
    const presets = RELEASE_PRESETS.map((p) =>
      (fixApplies(id, p) ? (d.presets[p] ? 'on' : 'off') : 'n/a').padEnd(6),
    ).join('');
    lines.push(`${id.padEnd(idWidth)}${fixPrs(id).padEnd(prWidth)}${d.release.padEnd(7)}${presets}`);
    const backports = d.backports.length === 0 ? '' : ` (backports: ${d.backports.join(', ')})`;
    lines.push(`${''.padEnd(idWidth)}${d.summary}${backports}`);
  }
  lines.push('fixed: every switch on; legacy: every switch off; --fix ID=on|off applies after --kubelet.');
  return lines;
}
