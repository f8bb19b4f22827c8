// The `--timeline` page's look: its style sheet, the colour of each kind of span and the legend. Inline
// in the page (it loads nothing); no url() anywhere, so nothing can be fetched.
import type { Span } from './timelineModel.js';

/** Span colours by `cat:name`, else by `cat`. */
const SPAN_FILL: Record<string, string> = {
  kubelet: '#9ecae1',
  'kubelet:kubelet down': '#d9d9d9',
  reconstruction: '#fdae6b',
  'podWorker:sync': '#74c476',
  'podWorker:terminating': '#fd8d3c',
  'podWorker:terminated': '#bdbdbd',
  kill: '#e6550d',
  container: '#3182bd',
  volume: '#9e9ac8',
  'volume:VolumeMountUncertain': '#fdd49e',
  device: '#756bb1',
  'device:DeviceMountUncertain': '#fdd49e',
  volumeHost: '#41ab5d',
  deviceHost: '#238b45',
  deviceState: '#74a9cf',
  volumeMismatch: '#e41a1c',
  deviceMismatch: '#e41a1c',
  'lun:read-write': '#31a354',
  'lun:read-only': '#a1d99b',
  api: '#c6dbef',
  adc: '#fdd0a2',
};

/** States in which the kubelet holds no belief: drawn pale with a dashed outline. */
const NO_BELIEF = new Set(['kubelet down: no state', 'reconstructing', 'left to the reconciler']);

export function spanFill(s: Span): string {
  if (NO_BELIEF.has(s.name)) return '#eeeeee';
  if (s.cat === 'reconstruction' && s.args['ok'] === false) return '#fb6a4a';
  if (s.cat === 'reconstruction' && s.args['ok'] === true) return '#a1d99b';
  return SPAN_FILL[`${s.cat}:${s.name}`] ?? SPAN_FILL[s.cat] ?? '#cccccc';
}

/** Extra classes of a span's group: a belief the kubelet does not hold firmly, a disagreement. */
export function spanClass(s: Span): string {
  const out: string[] = [];
  if (s.open) out.push('open');
  if (NO_BELIEF.has(s.name) || s.name.endsWith('Uncertain')) out.push('soft');
  if (s.cat === 'volumeMismatch' || s.cat === 'deviceMismatch') out.push('mismatch');
  if (s.cat === 'kubelet' && s.name === 'kubelet down') out.push('down');
  return out.length === 0 ? '' : ` ${out.join(' ')}`;
}

export const STYLE = `
body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 8px; }
table { border-collapse: collapse; margin: 8px 0 12px; }
th, td { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; }
td.msg { max-width: 900px; overflow-wrap: anywhere; }
.meta td:first-child { color: #666; }
.meta td { overflow-wrap: anywhere; }
.ok { color: #2a7f2a; font-weight: 600; }
.bad { color: #c00; font-weight: 600; }
.fix-off { color: #c00; }
.chart { display: flex; border: 1px solid #ccc; }
.chart .plotwrap { overflow-x: auto; flex: 1; min-width: 0; }
html.js .chart .plotwrap { overflow: hidden; cursor: grab; touch-action: pan-y; }
html.js .chart .plotwrap.dragging { cursor: grabbing; }
svg.plot { display: block; user-select: none; }
.toolbar { margin: 4px 0; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
html:not(.js) .toolbar, html:not(.js) .details { display: none; }
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
.span.soft rect { stroke: #888; stroke-dasharray: 2 2; }
.span.mismatch rect { stroke: #7a0000; stroke-width: 1; }
.span.mismatch .span-label { fill: #fff; font-weight: 600; }
.span-label { fill: #111; pointer-events: none; }
.band rect { fill: #9e9e9e; opacity: 0.13; pointer-events: none; }
.violation { fill: #e00; stroke: #700; stroke-width: 1; }
.violation-line { stroke: #e00; stroke-width: 1.5; stroke-dasharray: 4 3; opacity: 0.7; }
.fault { fill: #ff9800; stroke: #8a4b00; stroke-width: 0.8; }
.error { fill: #d95f02; stroke: #5a2500; stroke-width: 0.8; }
.event { fill: #555; }
.flow { opacity: 0.4; }
.flow path.line { fill: none; stroke: #6a1b9a; stroke-width: 1.5; }
.flow path.head { fill: #6a1b9a; }
.flow.focus { opacity: 1; }
.flow.focus path.line { stroke-width: 2.5; }
.pinned rect, circle.pinned, path.pinned { stroke: #000 !important; stroke-width: 2.5 !important; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 14px; height: 10px; margin-right: 4px; vertical-align: middle; border: 1px solid #0003; }
pre { font: 12px/1.35 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #f8f8f8; padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; }
.details { position: sticky; bottom: 0; background: #fff; border: 1px solid #bbb; box-shadow: 0 -2px 6px #0002; margin-top: 8px; padding: 4px 8px; z-index: 2; }
.details .head { display: flex; gap: 8px; align-items: center; }
.details .head button { font: inherit; padding: 0 8px; }
.details #details-state { color: #666; }
.details pre { margin: 4px 0; max-height: 30vh; overflow-y: auto; }
.details.is-pinned { border-color: #6a1b9a; }
.hazard-badge { display: inline-block; margin-top: 2px; padding: 0 6px; border-radius: 8px; background: #fff3cd; border: 1px solid #d9a400; color: #5c4400; font-weight: 400; font-size: 12px; }
.hazard-ref { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.hazard-note { color: #8a6100; font-weight: 400; }
circle.violation.hazard { fill: #f0a000; }
`;

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function legend(): string {
  const items: [string, string][] = [
    ['container running', SPAN_FILL['container']!],
    ['pod worker sync', SPAN_FILL['podWorker:sync']!],
    ['terminating', SPAN_FILL['podWorker:terminating']!],
    ['terminated', SPAN_FILL['podWorker:terminated']!],
    ['KillPod', SPAN_FILL['kill']!],
    ['kubelet: VolumeMounted', SPAN_FILL['volume']!],
    ['kubelet: DeviceGloballyMounted', SPAN_FILL['device']!],
    ['kubelet: uncertain', SPAN_FILL['device:DeviceMountUncertain']!],
    ['kubelet down / reconstructing: no belief', '#eeeeee'],
    ['host: mounted', SPAN_FILL['volumeHost']!],
    ['host: global mount', SPAN_FILL['deviceHost']!],
    ['host: SCSI paths / maps', SPAN_FILL['deviceState']!],
    ['kubelet \u2260 host', SPAN_FILL['deviceMismatch']!],
    ['LUN read-write', SPAN_FILL['lun:read-write']!],
    ['LUN read-only', SPAN_FILL['lun:read-only']!],
    ['kubelet up', SPAN_FILL['kubelet']!],
    ['reconstruction', SPAN_FILL['reconstruction']!],
    ['API object', SPAN_FILL['api']!],
    ['attached', SPAN_FILL['adc']!],
  ];
  return (
    '<p class="legend">' +
    items
      .map(([label, color]) => `<span><i style="background:${color}"></i>${escapeText(label)}</span>`)
      .join('') +
    '<span><b style="color:#e00">&#9679;</b> violation</span><span><b style="color:#f0a000">&#9679;</b> violation of a known-open upstream hazard</span>' +
    '<span><b style="color:#ff9800">&#9650;</b> fault</span><span><b style="color:#d95f02">&#9670;</b> error</span>' +
    '<span><b style="color:#555">&#9670;</b> event</span><span><b style="color:#6a1b9a">&#10230;</b> cause to effect</span>' +
    ' Dashed outline: still running at the end. Grey band: the node\u2019s kubelet is down. Hover a mark for its details, click it to pin them.</p>'
  );
}
