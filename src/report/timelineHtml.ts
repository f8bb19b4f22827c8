// `--timeline OUT.html`: one self-contained page (no network: no external script, style sheet, font or
// image) with the run drawn as SVG swim lanes (timelinePlot.ts), the same tracks, spans and instants as
// the Chrome trace, the kubelet's belief beside the node's mount table, and cause-to-effect arrows. The
// page opens on the run's action (its first to last non-idle event); the whole run is one click away.
// Violations are red circles with a red line across every lane; every mark has a tooltip, and a details
// panel that a click pins, with its text to copy. The page's inline script (timelineScript.ts) fits,
// zooms and pans it.
import type { Violation } from '../invariants/types.js';
import type { RunResult } from '../run/run.js';
import { formatLatencyMs } from '../sim/index.js';
import { hazardMark } from './hazardMark.js';
import { scheduleText } from './json.js';
import { buildTimeline, formatSeconds, type Timeline } from './spans.js';
import { formatTimeline } from './terminalTimeline.js';
import { escapeHtml, labelsSvg, layout, plotSvg } from './timelinePlot.js';
import { TIMELINE_SCRIPT } from './timelineScript.js';
import { legend, STYLE } from './timelineStyle.js';

export { escapeHtml } from './timelinePlot.js';

/**
 * The badge of a violation tied to a known-open upstream hazard: its name and upstream issue (as text: the
 * page holds no URL), its summary as the tooltip.
 */
function hazardBadge(v: Violation): string {
  const m = hazardMark(v.knownOpen);
  if (m === undefined) return '';
  const title = m.summary === '' ? '' : ` title="${escapeHtml(m.summary)}"`;
  const upstream = m.upstream === '' ? '' : ` <span class="hazard-ref">${escapeHtml(m.upstream)}</span>`;
  return `<br><span class="hazard-badge" data-hazard="${escapeHtml(m.id)}"${title}>known-open hazard <b>${escapeHtml(m.id)}</b>${upstream}</span>`;
}

/** `, 2 of them known-open upstream hazards` (nothing when none is). */
function knownOpenNote(violations: readonly Violation[]): string {
  const k = violations.filter((v) => v.knownOpen !== undefined).length;
  if (k === 0) return '';
  const what =
    k === violations.length
      ? k === 1
        ? 'a known-open upstream hazard'
        : 'all known-open upstream hazards'
      : `${k} of them known-open upstream hazard${k === 1 ? '' : 's'}`;
  return ` <span class="hazard-note">(${what})</span>`;
}

function header(result: RunResult, t: Timeline): string {
  const fixes = result.fixes.toRecord();
  const fixCells = Object.keys(fixes)
    .map((id) => {
      const on = fixes[id as keyof typeof fixes];
      return `<span class="${on ? 'fix-on' : 'fix-off'}">${escapeHtml(id)}=${on ? 'on' : 'off'}</span>`;
    })
    .join(', ');
  const n = result.violations.length;
  const rows: string[] = [
    `<tr><td>seed</td><td>${escapeHtml(String(result.seed))}</td></tr>`,
    `<tr><td>fixes</td><td>${escapeHtml(result.fixes.label())}: ${fixCells}</td></tr>`,
    `<tr><td>virtual time</td><td>${escapeHtml(formatSeconds(result.virtualTimeMs))} (${escapeHtml(result.outcome)}, ${result.events} events)</td></tr>`,
    `<tr><td>result</td><td class="${n === 0 ? 'ok' : 'bad'}">${n === 0 ? 'no violations' : `${n} violation${n === 1 ? '' : 's'}`}${knownOpenNote(result.violations)}</td></tr>`,
  ];
  if (result.facts === undefined) {
    rows.push('<tr><td>facts</td><td>not recorded for this run: only violations are drawn</td></tr>');
  } else {
    rows.push(`<tr><td>tracks</td><td>${t.tracks.length} on ${t.processes.length} processes</td></tr>`);
  }
  let out = `<h1>podrace: ${escapeHtml(result.scenario)}</h1>\n<table class="meta">${rows.join('')}</table>\n`;
  if (n > 0) {
    out +=
      '<h2 style="font-size:15px;margin:8px 0 0">Violations</h2>\n<table class="violations"><tr><th>time</th><th>invariant</th><th>node</th><th>pod</th><th>uid</th><th>volume</th><th>message</th></tr>';
    for (const [k, v] of result.violations.entries()) {
      const cell = (s: string | null): string => `<td>${s === null ? '-' : escapeHtml(s)}</td>`;
      out +=
        `<tr class="bad-row" data-t="${v.atMs}" data-v="${k}" tabindex="0" title="show it on the timeline"><td>${escapeHtml(formatSeconds(v.atMs))}</td><td class="bad">${escapeHtml(v.invariant)}${hazardBadge(v)}</td>` +
        cell(v.node) +
        cell(v.pod) +
        cell(v.uid) +
        cell(v.volume) +
        `<td class="msg">${escapeHtml(v.message)}</td></tr>`;
    }
    out += '</table>\n';
  }
  return out + deviations(result);
}

/**
 * A run given `--schedule`: the schedule, and each deviation from the default order (a choice point whose
 * pick is not the first ready event) or from a drawn latency (`L<point>`), at the instant it was taken; a
 * row zooms the timeline there.
 */
function deviations(result: RunResult): string {
  const c = result.choices;
  if (c === undefined) return '';
  const log = c.log;
  const rows: { readonly atMs: number; readonly html: string }[] = [];
  for (let p = 0; p < log.pointPick.length; p++) {
    const pick = log.pointPick[p] ?? 0;
    if (pick === 0) continue;
    const atMs = log.timeMs[log.pointEvent[p] ?? 0] ?? 0;
    const ready = p < log.points ? log.readyCount(p) : 0;
    rows.push({
      atMs,
      html: `<tr class="dev-row" data-t="${atMs}" tabindex="0" title="show it on the timeline"><td>${escapeHtml(formatSeconds(atMs))}</td><td>${p}</td><td>${pick + 1} of ${ready} ready events (the default takes the 1st)</td></tr>`,
    });
  }
  const lat = c.latency;
  for (let l = 0; l < lat.points; l++) {
    const takenMs = lat.takenMs[l] ?? 0;
    const drawnMs = lat.drawnMs[l] ?? 0;
    if (takenMs === drawnMs) continue;
    const atMs = lat.timeMs[l] ?? 0;
    rows.push({
      atMs,
      html: `<tr class="dev-row" data-t="${atMs}" tabindex="0" title="show it on the timeline"><td>${escapeHtml(formatSeconds(atMs))}</td><td>L${l}</td><td>${escapeHtml(lat.what[l] ?? '')} latency ${formatLatencyMs(takenMs)} (drawn ${formatLatencyMs(drawnMs)}, range ${lat.loMs[l] ?? 0}..${lat.hiMs[l] ?? 0} ms${lat.neverAllowed[l] === true ? ' or never' : ''})</td></tr>`,
    });
  }
  // Stable: at one instant an event's pop comes before the latencies it draws.
  rows.sort((a, b) => a.atMs - b.atMs);
  const misfit =
    c.misfit === undefined
      ? ''
      : `<p class="bad">deviation ${c.misfit.position + 1} of the schedule does not fit: ${escapeHtml(c.misfit.reason)}</p>\n`;
  return (
    `<h2 style="font-size:15px;margin:8px 0 0">Schedule <code>${escapeHtml(scheduleText(c.schedule))}</code>: ${rows.length} deviation${rows.length === 1 ? '' : 's'} from the default order and the drawn latencies, ${c.points} choice points, ${lat.points} latency points</h2>\n` +
    misfit +
    (rows.length === 0
      ? ''
      : `<table class="deviations"><tr><th>time</th><th>choice point</th><th>taken</th></tr>${rows.map((r) => r.html).join('')}</table>\n`)
  );
}

/** Zoom and pan buttons and the visible range (shown once the script runs). */
function toolbar(t: Timeline): string {
  const end = formatSeconds(Math.max(t.endMs, 1));
  const b = (id: string, label: string, title: string) =>
    `<button type="button" id="${id}" title="${title}">${label}</button>`;
  return (
    '<div class="toolbar">' +
    b('zoom-in', '+', 'zoom in (+)') +
    b('zoom-out', '&#8722;', 'zoom out (-)') +
    b('pan-left', '&#9664;', 'earlier (left arrow)') +
    b('pan-right', '&#9654;', 'later (right arrow)') +
    b('fit', 'fit action', 'from the first to the last thing that happened (0, or double-click the plot)') +
    b('whole', 'whole run', `0 to ${end}, the whole horizon (w)`) +
    `<span id="range" data-a="0" data-b="${Math.max(t.endMs, 1)}">0.000s &#8211; ${end} of ${end}</span>` +
    '<span class="hint">Ctrl+wheel: zoom at the pointer; drag or Shift+wheel: pan; click a mark to pin its details; click a violation above to jump to it</span>' +
    '</div>'
  );
}

/** The details of the mark under the pointer, or of the one clicked (pinned), as text to copy. */
function detailsPanel(): string {
  return (
    '<div class="details" id="details"><div class="head"><b>Details</b>' +
    '<span id="details-state">hover a mark; click it to pin its details here</span>' +
    '<button type="button" id="copy" title="copy the details">copy</button>' +
    '<button type="button" id="unpin" title="unpin (Esc)">unpin</button></div>' +
    '<pre id="details-text"></pre></div>'
  );
}

/** The self-contained HTML page of a run; byte-identical for identical input. */
export function toTimelineHtml(result: RunResult): string {
  const t = buildTimeline(result);
  const l = layout(t);
  const lines = formatTimeline(result, { color: false });
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`podrace ${result.scenario} seed ${result.seed}`)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    header(result, t),
    legend(),
    toolbar(t),
    '<div class="chart">',
    labelsSvg(t, l),
    '<div class="plotwrap" id="plotwrap">',
    plotSvg(t, l, result.violations),
    '</div>',
    '</div>',
    `<details${lines.length <= 400 ? ' open' : ''}><summary>Timeline (${lines.length} lines)</summary>`,
    `<pre>${escapeHtml(lines.join('\n'))}</pre>`,
    '</details>',
    detailsPanel(),
    `<script>${TIMELINE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
