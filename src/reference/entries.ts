// One Markdown section per scenario, invariant, fix switch and known-open hazard. docs/races.md is these
// sections in a row and `podrace explain NAME` prints the section of NAME, so both say the same words.
import { FIX_IDS, FIX_TABLE, type FixDef, type FixId, fixApplies, RELEASE_PRESETS } from '../fixes.js';
import { INVARIANT_DESCRIPTIONS } from '../invariants/descriptions.js';
import { HAZARD_IDS, HAZARDS, type HazardDef, type HazardId, hazardOpenIn } from '../invariants/hazards.js';
import { INVARIANT_IDS, type InvariantId, isFinding } from '../invariants/types.js';
import {
  type Closing,
  closingsBy,
  closingsOfInvariant,
  firesWithEveryFix,
  type Glossary,
  type ScenarioEntry,
  scenariosShowing,
  scenariosToggling,
} from './glossary.js';

/** `owner/repo#N` as a link to GitHub (which redirects an issue number to its pull request). */
export function upstreamLink(ref: string): string {
  const m = /^([\w.-]+\/[\w.-]+)#(\d+)$/.exec(ref);
  return m === null ? ref : `[${ref}](https://github.com/${m[1]}/issues/${m[2]})`;
}

/** As upstreamLink, with `kubernetes/kubernetes#N` shown as `#N` (for tables). */
export function shortLink(ref: string): string {
  const m = /^kubernetes\/kubernetes#(\d+)$/.exec(ref);
  return m === null
    ? upstreamLink(ref)
    : `[#${m[1]}](https://github.com/kubernetes/kubernetes/issues/${m[1]})`;
}

const code = (s: string): string => `\`${s}\``;
const list = (items: readonly string[], none = 'none'): string =>
  items.length === 0 ? none : items.join(', ');
const scenarioLink = (name: string): string => `[${code(name)}](#${name})`;
const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];
/** A one-line description as a sentence: capital first letter, a full stop at the end. */
const sentence = (s: string): string =>
  `${s.charAt(0).toUpperCase()}${s.slice(1)}${s.endsWith('.') ? '' : '.'}`;

/** Two claims that differ in more switches than this are shown without the list of switches. */
export const MAX_LISTED_SWITCHES = 3;

/**
 * One switch: it closes the invariant. Several: the claims only show that the set does, not which of
 * them matters, so the text names the two fix sets (`run --bisect` finds the switch).
 */
function closingText(c: Closing): string {
  const sets = `fires with ${code(c.from)}, not with ${code(c.to)}`;
  if (c.switches.length === 1) return `${code(c.switches[0] ?? '')} closes ${code(c.invariant)} (${sets})`;
  const which = c.switches.length > MAX_LISTED_SWITCHES ? '' : `: ${c.switches.map(code).join(', ')}`;
  return `${code(c.invariant)} ${sets} (${c.switches.length} switches differ${which})`;
}

export function scenarioSection(e: ScenarioEntry): string[] {
  const s = e.scenario;
  const lines = [`### ${s.name}`, ''];
  const upstream = s.upstream.length === 0 ? '' : ` · upstream: ${s.upstream.map(upstreamLink).join(', ')}`;
  lines.push(`${code(e.path)}${upstream}`, '');
  if (s.description.trim() !== '') lines.push(s.description.replace(/\s+/g, ' ').trim(), '');
  const withFindings = e.claims.some((c) => c.claim.findings !== null);
  lines.push(
    withFindings ? '| fix set | run flags | fires | findings |' : '| fix set | run flags | fires |',
    withFindings ? '| --- | --- | --- | --- |' : '| --- | --- | --- |',
  );
  for (const c of e.claims) {
    const cells = [
      code(c.label),
      c.flags.length === 0 ? '(none)' : code(c.flags.join(' ')),
      list(c.claim.violations.map(code)),
    ];
    if (withFindings)
      cells.push(c.claim.findings === null ? 'not checked' : list(c.claim.findings.map(code)));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  lines.push('');
  // A pair of claims far apart says little when a nearer pair shows the same invariant closing.
  const near = (id: InvariantId) =>
    e.closings.some((c) => c.invariant === id && c.switches.length <= MAX_LISTED_SWITCHES);
  const bullets = e.closings
    .filter((c) => c.switches.length <= MAX_LISTED_SWITCHES || !near(c.invariant))
    .map((c) => `- ${closingText(c)}`);
  const withAll = firesWithEveryFix(e);
  for (const id of e.alwaysFires)
    if (!withAll.has(id)) bullets.push(`- ${code(id)} fires under every claim: no claimed switch closes it`);
  for (const [id, hazards] of withAll) {
    const always = e.alwaysFires.includes(id) ? ' under every claim (no claimed switch closes it)' : '';
    const why =
      hazards.length === 0
        ? 'tied to no known-open upstream hazard'
        : `with every fix on it is the known-open upstream hazard ${hazards.map((h) => `[${code(h)}](#${h})`).join(', ')}`;
    bullets.push(`- ${code(id)} fires${always}; ${why}`);
  }
  if (bullets.length > 0) lines.push(...bullets, '');
  return lines;
}

export function invariantSection(g: Glossary, id: InvariantId): string[] {
  const kind = isFinding(id)
    ? 'A finding: it records a behaviour and is never a failure.'
    : 'A violation when it fires.';
  const lines = [`### ${id}`, '', `${sentence(INVARIANT_DESCRIPTIONS[id])} ${kind}`, ''];
  const showing = scenariosShowing(g, id);
  lines.push(
    `- Shown by: ${list(
      showing.map(
        (x) => `${scenarioLink(x.entry.scenario.name)} (fires with ${x.firesWith.map(code).join(', ')})`,
      ),
      'no bundled scenario',
    )}`,
  );
  const closing = closingsOfInvariant(g, id).filter((c) => c.switches.length === 1);
  const bySwitches = new Map<string, string[]>();
  for (const c of closing) {
    const key = c.switches.map(code).join(' and ');
    bySwitches.set(key, unique([...(bySwitches.get(key) ?? []), c.scenario]));
  }
  lines.push(
    `- Closed by: ${list(
      [...bySwitches].map(([k, names]) => `${k} (${names.map(scenarioLink).join(', ')})`),
      'no claim of a bundled scenario',
    )}`,
  );
  const hazards = HAZARD_IDS.filter((h) => (HAZARDS[h].explains as readonly InvariantId[]).includes(id));
  if (hazards.length > 0)
    lines.push(`- Known-open upstream hazards: ${hazards.map((h) => `[${code(h)}](#${h})`).join(', ')}`);
  const upstream = unique(showing.flatMap((x) => x.entry.scenario.upstream));
  lines.push(`- Upstream: ${list(upstream.map(upstreamLink), 'see docs/invariants.md')}`);
  lines.push(`- Details: [docs/invariants.md](invariants.md#${id})`, '');
  return lines;
}

function presetText(id: FixId): string {
  const d: FixDef = FIX_TABLE[id];
  const on = RELEASE_PRESETS.filter((p) => fixApplies(id, p) && d.presets[p]);
  const off = RELEASE_PRESETS.filter((p) => fixApplies(id, p) && !d.presets[p]);
  const na = RELEASE_PRESETS.filter((p) => !fixApplies(id, p));
  const parts = [`on in ${list(on)}`, `off in ${list(off)}`];
  if (na.length > 0) parts.push(`no effect in ${na.join(', ')}`);
  return parts.join('; ');
}

export function fixSection(g: Glossary, id: FixId): string[] {
  const d: FixDef = FIX_TABLE[id];
  const prs = d.prs.map((n) => upstreamLink(`kubernetes/kubernetes#${n}`));
  const lines = [`### ${id}`, '', sentence(d.summary), ''];
  lines.push(`- Upstream: ${prs.join(', ')}; first in ${d.release}.0`);
  if (d.backports.length > 0) lines.push(`- Backports: ${d.backports.join('; ')}`);
  lines.push(`- Release presets (\`--kubelet\`): ${presetText(id)}`);
  // Grouped by what the flip does: `+id` (turned on) closes these, `-id` (turned off) those.
  const groups = new Map<string, string[]>();
  for (const c of closingsBy(g, id)) {
    const key = `${c.switches[0] ?? ''} ${c.invariant}`;
    groups.set(key, unique([...(groups.get(key) ?? []), c.scenario]));
  }
  const closes = [...groups].map(([key, names]) => {
    const [flip = '', invariant = ''] = key.split(' ');
    return `${code(flip)} closes ${code(invariant)} in ${names.map(scenarioLink).join(', ')}`;
  });
  if (closes.length === 0) lines.push('- Closes nothing on its own in the bundled scenarios');
  else lines.push(...closes.map((c) => `- ${c}`));
  lines.push(
    `- Toggled by the claims of: ${list(scenariosToggling(g, id).map((e) => scenarioLink(e.scenario.name)))}`,
  );
  lines.push(`- Details: [docs/fixes.md](fixes.md)`, '');
  return lines;
}

export function hazardSection(id: HazardId): string[] {
  const h: HazardDef = HAZARDS[id];
  return [
    `### ${id}`,
    '',
    sentence(h.summary),
    '',
    `- Still open: ${h.open}`,
    `- Open in presets: ${hazardOpenIn(id).join(', ') || 'none'}`,
    `- Upstream: ${h.upstream.map(upstreamLink).join(', ')}`,
    `- ${h.fixedBy === undefined ? 'Fires with every fix on' : `Fires with \`${h.fixedBy}\` off`}: ${h.explains.map(code).join(', ')}`,
    `- Shown by: ${scenarioLink(h.scenario)}${h.shownUnder === undefined ? '' : ` (under \`--kubelet ${h.shownUnder}\`)`}`,
    '',
  ];
}

/** Every name `explain` knows, by kind. */
export function glossaryNames(g: Glossary): Record<'scenario' | 'invariant' | 'fix' | 'hazard', string[]> {
  return {
    scenario: g.scenarios.map((e) => e.scenario.name),
    invariant: [...INVARIANT_IDS],
    fix: [...FIX_IDS],
    hazard: [...HAZARD_IDS],
  };
}
