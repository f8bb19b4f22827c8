// `--timeline OUT.html`: one self-contained page (no network: no external script, style sheet, font or
// image) with the run drawn as SVG swim lanes, the same tracks, spans and instants as the Chrome trace.
// Violations are red circles with a red line across every lane; every mark has a <title> tooltip.
// Every piece of text from the run (pod names come from user files) is escaped. The whole run is drawn
// to a nominal width; the page's inline script (timelineScript.ts) fits it to the window and zooms and
// pans it, re-placing every mark from the virtual times each carries in data attributes.
import type { Violation } from '../invariants/types.js';
import type { RunResult } from '../scenario/run.js';
import { hazardMark, hazardText } from './hazardMark.js';
import { type Args, buildTimeline, formatSeconds, type Instant, type Span, type Timeline } from './spans.js';
import { formatTimeline } from './terminalTimeline.js';
import { TIMELINE_SCRIPT } from './timelineScript.js';

const LABEL_W = 320;
const LANE_H = 20;
const PROC_H = 24;
const AXIS_H = 28;
/** The width the page is drawn at before its script fits it to the window (and without script). */
const NOMINAL_PLOT_W = 1200;
/** Space left and right of the plot so the first and last tick labels fit. */
const PAD = 24;

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function num(n: number): string {
  const r = Math.round(n * 10) / 10;
  return Object.is(r, -0) ? '0' : String(r);
}

function argsText(args: Args): string {
  return Object.keys(args)
    .filter((k) => args[k] !== null && args[k] !== undefined)
    .map((k) => `${k}: ${String(args[k])}`)
    .join('\n');
}

const SPAN_FILL: Record<string, string> = {
  kubelet: '#9ecae1',
  'podWorker:sync': '#74c476',
  'podWorker:terminating': '#fd8d3c',
  'podWorker:terminated': '#bdbdbd',
  kill: '#e6550d',
  container: '#3182bd',
  volume: '#9e9ac8',
  device: '#756bb1',
  'lun:read-write': '#31a354',
  'lun:read-only': '#a1d99b',
  api: '#c6dbef',
  adc: '#fdd0a2',
};

function spanFill(s: Span): string {
  return SPAN_FILL[`${s.cat}:${s.name}`] ?? SPAN_FILL[s.cat] ?? '#cccccc';
}

/** A "nice" tick step in ms (1, 2 or 5 x 10^k) giving at most ~maxTicks ticks. */
function tickStep(endMs: number, maxTicks: number): number {
  const raw = Math.max(endMs, 1) / maxTicks;
  let step = 1;
  while (step * 10 <= raw) step *= 10;
  for (const m of [1, 2, 5, 10]) if (step * m >= raw) return step * m;
  return step * 10;
}

interface Layout {
  readonly plotW: number;
  readonly height: number;
  readonly x: (ms: number) => number;
  /** Top y of each track's row, by track id. */
  readonly rowY: Map<string, number>;
  /** Process header rows: label and y. */
  readonly headers: { label: string; y: number }[];
}

function layout(t: Timeline): Layout {
  const endMs = Math.max(t.endMs, 1);
  const plotW = NOMINAL_PLOT_W;
  const rowY = new Map<string, number>();
  const headers: { label: string; y: number }[] = [];
  let y = AXIS_H;
  for (const p of t.processes) {
    headers.push({ label: p.label, y });
    y += PROC_H;
    for (const tr of t.tracks) {
      if (tr.pid !== p.pid) continue;
      rowY.set(tr.id, y);
      y += LANE_H;
    }
  }
  return { plotW, height: y + 8, x: (ms) => PAD + (ms / endMs) * (plotW - 2 * PAD), rowY, headers };
}

function labelsSvg(t: Timeline, l: Layout): string {
  const out: string[] = [];
  out.push(`<svg class="labels" width="${LABEL_W}" height="${l.height}" role="img" aria-label="tracks">`);
  for (const h of l.headers) {
    out.push(
      `<rect x="0" y="${h.y}" width="${LABEL_W}" height="${PROC_H}" class="proc"/>` +
        `<text x="6" y="${h.y + 16}" class="proc-label">${escapeHtml(h.label)}</text>`,
    );
  }
  let i = 0;
  for (const tr of t.tracks) {
    const y = l.rowY.get(tr.id) ?? 0;
    out.push(
      `<svg x="0" y="${y}" width="${LABEL_W - 4}" height="${LANE_H}">` +
        `<rect width="${LABEL_W}" height="${LANE_H}" class="${i++ % 2 === 0 ? 'row0' : 'row1'}"/>` +
        `<text x="14" y="14" class="track-label"><title>${escapeHtml(tr.label)}</title>${escapeHtml(tr.label)}</text></svg>`,
    );
  }
  out.push('</svg>');
  return out.join('\n');
}

/**
 * A mark drawn around x = 0 and moved to its time with a translate, so the script moves it by one
 * attribute. `v`: the index of the violation it shows (the table's rows carry the same), and whether
 * this is its mark on its own track (the one a click in the table scrolls to).
 */
function instantMark(
  i: Instant,
  x: number,
  y: number,
  v: { index: number; home: boolean } | undefined,
): string {
  const cy = y + LANE_H / 2;
  const title = `<title>${escapeHtml(`${i.name} at ${formatSeconds(i.atMs)}\n${argsText(i.args)}`.trimEnd())}</title>`;
  const at = `data-t="${i.atMs}" transform="translate(${num(x)} 0)"`;
  switch (i.kind) {
    case 'violation': {
      const ids = v === undefined ? '' : ` data-v="${v.index}"${v.home ? ' data-home=""' : ''}`;
      // A known-open upstream hazard's violation is amber inside its red ring.
      const cls = typeof i.args['knownOpen'] === 'string' ? 'violation hazard' : 'violation';
      return `<circle cx="0" cy="${num(cy)}" r="6" class="${cls}" ${at}${ids}>${title}</circle>`;
    }
    case 'fault':
      return `<path d="M0 ${num(cy - 6)}L6 ${num(cy + 5)}L-6 ${num(cy + 5)}Z" class="fault" ${at}>${title}</path>`;
    case 'error':
      return `<path d="M0 ${num(cy - 6)}L6 ${num(cy)}L0 ${num(cy + 6)}L-6 ${num(cy)}Z" class="error" ${at}>${title}</path>`;
    case 'event':
      return `<path d="M0 ${num(cy - 4)}L4 ${num(cy)}L0 ${num(cy + 4)}L-4 ${num(cy)}Z" class="event" ${at}>${title}</path>`;
  }
}

/** The index in `violations` of the violation an instant shows (by time, invariant and message). */
function violationIndex(i: Instant, violations: readonly Violation[]): number | undefined {
  if (i.kind !== 'violation') return undefined;
  const k = violations.findIndex(
    (v) => v.atMs === i.atMs && v.invariant === i.args['invariant'] && v.message === i.args['message'],
  );
  return k === -1 ? undefined : k;
}

/** ` [known-open hazard X, kubernetes/kubernetes#N]`, as the terminal timeline says it. */
function hazardSuffix(v: Violation): string {
  const m = hazardMark(v.knownOpen);
  return m === undefined ? '' : ` [${hazardText(m)}]`;
}

function plotSvg(t: Timeline, l: Layout, violations: readonly Violation[]): string {
  const out: string[] = [];
  out.push(
    `<svg class="plot" id="plot" width="${l.plotW}" height="${l.height}" data-end="${Math.max(t.endMs, 1)}" data-pad="${PAD}" data-axis="${AXIS_H}" role="img" aria-label="timeline">`,
  );
  // Row backgrounds and process bands (as wide as the plot, whatever its width).
  for (const h of l.headers) {
    out.push(`<rect x="0" y="${h.y}" width="100%" height="${PROC_H}" class="proc"/>`);
  }
  let i = 0;
  for (const tr of t.tracks) {
    const y = l.rowY.get(tr.id) ?? 0;
    out.push(
      `<rect x="0" y="${y}" width="100%" height="${LANE_H}" class="${i++ % 2 === 0 ? 'row0' : 'row1'}"/>`,
    );
  }
  // Time axis in seconds, with grid lines (the script redraws it for the visible range).
  const step = tickStep(t.endMs, Math.max(4, Math.floor(l.plotW / 110)));
  const decimals = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
  out.push('<g id="axis">');
  for (let ms = 0; ms <= t.endMs + 1e-9; ms += step) {
    const x = num(l.x(ms));
    out.push(
      `<line x1="${x}" y1="${AXIS_H - 6}" x2="${x}" y2="${l.height}" class="grid"/>` +
        `<text x="${x}" y="${AXIS_H - 10}" class="tick">${(ms / 1000).toFixed(decimals)}s</text>`,
    );
  }
  out.push('</g>');
  // Spans.
  for (const s of t.spans) {
    const y = l.rowY.get(s.track);
    if (y === undefined) continue;
    const x0 = l.x(s.startMs);
    const w = Math.max(1.5, l.x(s.endMs) - x0);
    const title = escapeHtml(
      `${s.name}: ${formatSeconds(s.startMs)} - ${formatSeconds(s.endMs)}${s.open ? ' (still running at the end)' : ''}` +
        ` (${formatSeconds(s.endMs - s.startMs)})\n${argsText(s.args)}`.trimEnd(),
    );
    out.push(
      `<g class="span${s.open ? ' open' : ''}" data-a="${s.startMs}" data-b="${s.endMs}"><title>${title}</title>` +
        `<rect x="${num(x0)}" y="${y + 3}" width="${num(w)}" height="${LANE_H - 6}" rx="2" fill="${spanFill(s)}"/>` +
        `<svg x="${num(x0)}" y="${y}" width="${num(w)}" height="${LANE_H}"${w > 28 ? '' : ' display="none"'}><text x="3" y="14" class="span-label">${escapeHtml(s.name)}</text></svg>` +
        '</g>',
    );
  }
  // Violation lines across every lane, under the marks.
  for (const [k, v] of violations.entries()) {
    const x = num(l.x(v.atMs));
    out.push(
      `<line x1="${x}" y1="${AXIS_H}" x2="${x}" y2="${l.height}" class="violation-line" data-t="${v.atMs}" data-v="${k}">` +
        `<title>${escapeHtml(`VIOLATION ${v.invariant}${hazardSuffix(v)} at ${formatSeconds(v.atMs)}: ${v.message}`)}</title></line>`,
    );
  }
  // Instants.
  for (const inst of t.instants) {
    const y = l.rowY.get(inst.track);
    if (y === undefined) continue;
    const k = violationIndex(inst, violations);
    const v = k === undefined ? undefined : { index: k, home: inst.scope === 'thread' };
    out.push(instantMark(inst, l.x(inst.atMs), y, v));
  }
  out.push('</svg>');
  return out.join('\n');
}

const STYLE = `
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 8px; }
table { border-collapse: collapse; margin: 8px 0 12px; }
th, td { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; }
td.msg { max-width: 900px; }
.meta td:first-child { color: #666; }
.ok { color: #2a7f2a; font-weight: 600; }
.bad { color: #c00; font-weight: 600; }
.fix-off { color: #c00; }
.chart { display: flex; border: 1px solid #ccc; }
.chart .plotwrap { overflow-x: auto; flex: 1; min-width: 0; }
html.js .chart .plotwrap { overflow: hidden; cursor: grab; touch-action: pan-y; }
html.js .chart .plotwrap.dragging { cursor: grabbing; }
svg.plot { display: block; user-select: none; }
.toolbar { margin: 4px 0; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
html:not(.js) .toolbar { display: none; }
.toolbar button { font: inherit; min-width: 30px; padding: 1px 8px; }
.toolbar #range { font-variant-numeric: tabular-nums; margin-left: 8px; }
.toolbar .hint { color: #666; margin-left: 8px; }
tr.bad-row[data-t] { cursor: pointer; }
tr.bad-row[data-t]:hover td, tr.bad-row.focus td { background: #fde3e3; }
circle.violation.focus { stroke: #000; stroke-width: 3; }
.violation-line.focus { opacity: 1; stroke-width: 2.5; }
svg text { font: 11px system-ui, sans-serif; fill: #222; }
.proc { fill: #e8e8e8; }
.proc-label { font-weight: 600; font-size: 12px; }
.row0 { fill: #ffffff; }
.row1 { fill: #f6f6f6; }
.grid { stroke: #ddd; stroke-width: 1; }
.tick { text-anchor: middle; fill: #555; }
.span rect { stroke: #0003; stroke-width: 0.5; }
.span.open rect { stroke: #000; stroke-dasharray: 3 2; }
.span-label { fill: #111; pointer-events: none; }
.violation { fill: #e00; stroke: #700; stroke-width: 1; }
.violation-line { stroke: #e00; stroke-width: 1.5; stroke-dasharray: 4 3; opacity: 0.7; }
.fault { fill: #ff9800; stroke: #8a4b00; stroke-width: 0.8; }
.error { fill: #d95f02; stroke: #5a2500; stroke-width: 0.8; }
.event { fill: #555; }
.hazard-badge { display: inline-block; margin-top: 2px; padding: 0 6px; border-radius: 8px; background: #fff3cd; border: 1px solid #d9a400; color: #5c4400; font-weight: 400; font-size: 12px; }
.hazard-ref { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.hazard-note { color: #8a6100; font-weight: 400; }
circle.violation.hazard { fill: #f0a000; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 14px; height: 10px; margin-right: 4px; vertical-align: middle; border: 1px solid #0003; }
pre { font: 12px/1.35 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #f8f8f8; padding: 8px; overflow-x: auto; }
`;

function legend(): string {
  const items: [string, string][] = [
    ['container running', SPAN_FILL['container']!],
    ['pod worker sync', SPAN_FILL['podWorker:sync']!],
    ['terminating', SPAN_FILL['podWorker:terminating']!],
    ['terminated', SPAN_FILL['podWorker:terminated']!],
    ['KillPod', SPAN_FILL['kill']!],
    ['volume set up', SPAN_FILL['volume']!],
    ['global mount', SPAN_FILL['device']!],
    ['LUN read-write', SPAN_FILL['lun:read-write']!],
    ['LUN read-only', SPAN_FILL['lun:read-only']!],
    ['kubelet up', SPAN_FILL['kubelet']!],
    ['API object', SPAN_FILL['api']!],
    ['attached', SPAN_FILL['adc']!],
  ];
  return (
    '<p class="legend">' +
    items
      .map(([label, color]) => `<span><i style="background:${color}"></i>${escapeHtml(label)}</span>`)
      .join('') +
    '<span><b style="color:#e00">&#9679;</b> violation</span><span><b style="color:#f0a000">&#9679;</b> violation of a known-open upstream hazard</span><span><b style="color:#ff9800">&#9650;</b> fault</span>' +
    '<span><b style="color:#d95f02">&#9670;</b> error</span><span><b style="color:#555">&#9670;</b> event</span>' +
    ' Dashed outline: still running at the end. Hover any mark for details.</p>'
  );
}

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
  return out;
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
    b('fit', 'fit', 'the whole run (0, or double-click the plot)') +
    `<span id="range" data-a="0" data-b="${Math.max(t.endMs, 1)}">0.000s &#8211; ${end} of ${end}</span>` +
    '<span class="hint">Ctrl+wheel: zoom at the pointer; drag or Shift+wheel: pan; click a violation above to jump to it</span>' +
    '</div>'
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
    `<script>${TIMELINE_SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
