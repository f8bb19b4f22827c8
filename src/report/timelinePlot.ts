// The `--timeline` page's drawing: the track labels and the plot, an inline SVG of swim lanes drawn to a
// nominal width. Every mark carries its virtual times (data-a / data-b for spans and bands, data-t for
// instants and violation lines, data-t1 / data-t2 for the cause-to-effect arrows), from which the page's
// script re-places it for the visible range. Every piece of text from the run is escaped.
import type { Violation } from '../invariants/types.js';
import { hazardMark, hazardText } from './hazardMark.js';
import { type Args, type FlowStep, formatSeconds, type Instant, type Timeline } from './spans.js';
import { spanClass, spanFill } from './timelineStyle.js';

const LABEL_W = 320;
export const LANE_H = 20;
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

export function num(n: number): string {
  const r = Math.round(n * 10) / 10;
  return Object.is(r, -0) ? '0' : String(r);
}

export function argsText(args: Args): string {
  return Object.keys(args)
    .filter((k) => args[k] !== null && args[k] !== undefined)
    .map((k) => `${k}: ${String(args[k])}`)
    .join('\n');
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
  /** Process header rows: label, y, and where the process's rows end. */
  readonly headers: { label: string; name: string; y: number; bottom: number }[];
}

export function layout(t: Timeline): Layout {
  const endMs = Math.max(t.endMs, 1);
  const plotW = NOMINAL_PLOT_W;
  const rowY = new Map<string, number>();
  const headers: { label: string; name: string; y: number; bottom: number }[] = [];
  let y = AXIS_H;
  for (const p of t.processes) {
    const header = { label: p.label, name: p.name, y, bottom: y };
    y += PROC_H;
    for (const tr of t.tracks) {
      if (tr.pid !== p.pid) continue;
      rowY.set(tr.id, y);
      y += LANE_H;
    }
    header.bottom = y;
    headers.push(header);
  }
  return { plotW, height: y + 8, x: (ms) => PAD + (ms / endMs) * (plotW - 2 * PAD), rowY, headers };
}

export function labelsSvg(t: Timeline, l: Layout): string {
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
  causes?: readonly FlowStep[],
): string {
  const cy = y + LANE_H / 2;
  const chain =
    causes === undefined || causes.length === 0
      ? ''
      : `\ncaused by:\n${causes.map((c) => `  ${formatSeconds(c.atMs)} ${c.name}`).join('\n')}`;
  const title = `<title>${escapeHtml(`${i.name} at ${formatSeconds(i.atMs)}\n${argsText(i.args)}`.trimEnd() + chain)}</title>`;
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

export function plotSvg(t: Timeline, l: Layout, violations: readonly Violation[]): string {
  const out: string[] = [];
  out.push(
    `<svg class="plot" id="plot" width="${l.plotW}" height="${l.height}" data-end="${Math.max(t.endMs, 1)}" data-action-a="${t.action.startMs}" data-action-b="${t.action.endMs}" data-pad="${PAD}" data-axis="${AXIS_H}" data-lane="${LANE_H}" role="img" aria-label="timeline">`,
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
  // A node's kubelet down: a grey band across the node's rows (under the spans).
  const processOf = new Map(t.tracks.map((tr) => [tr.id, tr.process]));
  for (const s of t.spans) {
    if (s.cat !== 'kubelet' || s.name !== 'kubelet down') continue;
    const h = l.headers.find((x) => x.name === processOf.get(s.track));
    if (h === undefined) continue;
    const x0 = l.x(s.startMs);
    out.push(
      `<g class="band" data-a="${s.startMs}" data-b="${s.endMs}"><rect x="${num(x0)}" y="${h.y + PROC_H}" width="${num(Math.max(1.5, l.x(s.endMs) - x0))}" height="${h.bottom - h.y - PROC_H}"/></g>`,
    );
  }
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
      `<g class="span${spanClass(s)}" data-a="${s.startMs}" data-b="${s.endMs}"><title>${title}</title>` +
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
  // Cause to effect: an arrow from each step of a violation's chain to the next.
  for (const f of t.flows) {
    for (let k = 0; k + 1 < f.steps.length; k++) {
      const a = f.steps[k];
      const b = f.steps[k + 1];
      const ya = a === undefined ? undefined : l.rowY.get(a.track);
      const yb = b === undefined ? undefined : l.rowY.get(b.track);
      if (a === undefined || b === undefined || ya === undefined || yb === undefined) continue;
      out.push(flowArrow(f.violation, a, b, ya + LANE_H / 2, yb + LANE_H / 2, l));
    }
  }
  // Instants.
  const causesOf = new Map(t.flows.map((f) => [f.violation, f.steps.slice(0, -1)]));
  for (const inst of t.instants) {
    const y = l.rowY.get(inst.track);
    if (y === undefined) continue;
    const k = violationIndex(inst, violations);
    const v = k === undefined ? undefined : { index: k, home: inst.scope === 'thread' };
    const causes = k === undefined ? undefined : causesOf.get(k);
    out.push(instantMark(inst, l.x(inst.atMs), y, v, causes));
  }
  out.push('</svg>');
  return out.join('\n');
}

/**
 * One arrow of a cause-to-effect chain: a curve from one step's mark to the next and a head at the next.
 * The script re-draws both from data-t1 / data-y1 / data-t2 / data-y2 (no marker: no url() in the page).
 */
function flowArrow(violation: number, a: FlowStep, b: FlowStep, ya: number, yb: number, l: Layout): string {
  const title = escapeHtml(
    `cause to effect: ${formatSeconds(a.atMs)} ${a.name}\n  -> ${formatSeconds(b.atMs)} ${b.name}`,
  );
  const [line, head] = arrowPaths(l.x(a.atMs), ya, l.x(b.atMs), yb);
  return (
    `<g class="flow" data-v="${violation}" data-t1="${a.atMs}" data-y1="${ya}" data-t2="${b.atMs}" data-y2="${yb}"><title>${title}</title>` +
    `<path class="line" d="${line}"/><path class="head" d="${head}"/></g>`
  );
}

/** The curve and the head of an arrow from (x1, y1) to (x2, y2); the script has the same function. */
export function arrowPaths(x1: number, y1: number, x2: number, y2: number): [string, string] {
  const dx = Math.max(24, Math.abs(x2 - x1) / 2);
  const line = `M${num(x1)} ${num(y1)}C${num(x1 + dx)} ${num(y1)} ${num(x2 - dx)} ${num(y2)} ${num(x2 - 6)} ${num(y2)}`;
  const head = `M${num(x2 - 1)} ${num(y2)}L${num(x2 - 8)} ${num(y2 - 4)}L${num(x2 - 8)} ${num(y2 + 4)}Z`;
  return [line, head];
}
