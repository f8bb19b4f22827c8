// The one script of the `--timeline` page, inline (the page loads nothing): it opens on the run's action
// (data-action-a / data-action-b), zooms and pans the plot (Ctrl+wheel, drag, Shift+wheel, keys, buttons),
// shows the whole run on request, jumps to a violation clicked in the table, and fills the details panel
// with the text of the mark under the pointer, or of the one clicked (pinned), to copy. The page is drawn
// complete without it (the whole run at a nominal width); the script re-lays out every mark from its
// virtual times (data-a / data-b for spans and bands, data-t for instants and violation lines, data-t1 /
// data-t2 for arrows) for the visible range, and redraws the time axis. Plain ES2017, no template
// literals, no element created from a namespace URL (it takes the SVG's own namespaceURI).
export const TIMELINE_SCRIPT = String.raw`
(function () {
  'use strict';
  var plot = document.getElementById('plot');
  var wrap = document.getElementById('plotwrap');
  var axis = document.getElementById('axis');
  var rangeEl = document.getElementById('range');
  if (!plot || !wrap || !axis || !rangeEl) return;
  var NS = plot.namespaceURI;
  var END = Math.max(1, Number(plot.getAttribute('data-end')));
  var PAD = Number(plot.getAttribute('data-pad'));
  var AXIS_H = Number(plot.getAttribute('data-axis'));
  var MIN_SPAN = Math.min(END, 10);
  var ACTION_A = Number(plot.getAttribute('data-action-a') || 0);
  var ACTION_B = Number(plot.getAttribute('data-action-b') || END);
  var view = { a: 0, b: END };
  var spans = Array.prototype.slice.call(plot.querySelectorAll('g.span, g.band'));
  var marks = Array.prototype.slice.call(plot.querySelectorAll('[data-t]'));
  var flows = Array.prototype.slice.call(plot.querySelectorAll('g.flow'));

  function width() { return Math.max(200, wrap.clientWidth); }
  function x(ms, w) { return PAD + (ms - view.a) / (view.b - view.a) * (w - 2 * PAD); }
  function msAt(px, w) { return view.a + (px - PAD) / (w - 2 * PAD) * (view.b - view.a); }
  function clampPx(v) { return Math.max(-100000, Math.min(100000, v)); }
  function r1(v) { return Math.round(v * 10) / 10; }
  function secs(ms) { return (ms / 1000).toFixed(3) + 's'; }

  function tickStep(span, maxTicks) {
    var raw = Math.max(span, 1) / maxTicks;
    var step = 1;
    while (step * 10 <= raw) step *= 10;
    var mults = [1, 2, 5, 10];
    for (var i = 0; i < mults.length; i++) if (step * mults[i] >= raw) return step * mults[i];
    return step * 10;
  }

  function drawAxis(w, h) {
    while (axis.firstChild) axis.removeChild(axis.firstChild);
    var step = tickStep(view.b - view.a, Math.max(4, Math.floor(w / 110)));
    var decimals = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
    for (var ms = Math.ceil(view.a / step) * step; ms <= view.b + 1e-9; ms += step) {
      var px = String(r1(x(ms, w)));
      var line = document.createElementNS(NS, 'line');
      line.setAttribute('x1', px);
      line.setAttribute('x2', px);
      line.setAttribute('y1', String(AXIS_H - 6));
      line.setAttribute('y2', String(h));
      line.setAttribute('class', 'grid');
      var text = document.createElementNS(NS, 'text');
      text.setAttribute('x', px);
      text.setAttribute('y', String(AXIS_H - 10));
      text.setAttribute('class', 'tick');
      text.textContent = (ms / 1000).toFixed(decimals) + 's';
      axis.appendChild(line);
      axis.appendChild(text);
    }
  }

  function layout() {
    var w = width();
    var h = Number(plot.getAttribute('height'));
    plot.setAttribute('width', String(w));
    drawAxis(w, h);
    for (var i = 0; i < spans.length; i++) {
      var g = spans[i];
      var x0 = clampPx(x(Number(g.getAttribute('data-a')), w));
      var x1 = clampPx(x(Number(g.getAttribute('data-b')), w));
      var sw = Math.max(1.5, x1 - x0);
      var rect = g.querySelector('rect');
      rect.setAttribute('x', String(r1(x0)));
      rect.setAttribute('width', String(r1(sw)));
      // The label sticks to the left edge of a span that began before the visible range.
      var label = g.querySelector('svg');
      if (label) {
        var lx = Math.max(x0, 0);
        var lw = x0 + sw - lx;
        label.setAttribute('x', String(r1(lx)));
        label.setAttribute('width', String(r1(Math.max(0, lw))));
        label.setAttribute('display', lw > 28 ? 'inline' : 'none');
      }
    }
    for (var j = 0; j < marks.length; j++) {
      var m = marks[j];
      var px = r1(clampPx(x(Number(m.getAttribute('data-t')), w)));
      if (m.tagName === 'line') {
        m.setAttribute('x1', String(px));
        m.setAttribute('x2', String(px));
      } else m.setAttribute('transform', 'translate(' + px + ' 0)');
    }
    for (var f = 0; f < flows.length; f++) {
      var fl = flows[f];
      var x1 = clampPx(x(Number(fl.getAttribute('data-t1')), w));
      var x2 = clampPx(x(Number(fl.getAttribute('data-t2')), w));
      var y1 = Number(fl.getAttribute('data-y1'));
      var y2 = Number(fl.getAttribute('data-y2'));
      var dx = Math.max(24, Math.abs(x2 - x1) / 2);
      var paths = fl.querySelectorAll('path');
      paths[0].setAttribute('d', 'M' + r1(x1) + ' ' + y1 + 'C' + r1(x1 + dx) + ' ' + y1 + ' ' + r1(x2 - dx) + ' ' + y2 + ' ' + r1(x2 - 6) + ' ' + y2);
      paths[1].setAttribute('d', 'M' + r1(x2 - 1) + ' ' + y2 + 'L' + r1(x2 - 8) + ' ' + (y2 - 4) + 'L' + r1(x2 - 8) + ' ' + (y2 + 4) + 'Z');
    }
    rangeEl.textContent = secs(view.a) + ' \u2013 ' + secs(view.b) + ' of ' + secs(END);
    rangeEl.setAttribute('data-a', String(view.a));
    rangeEl.setAttribute('data-b', String(view.b));
  }

  function setView(a, b) {
    var span = Math.min(END, Math.max(MIN_SPAN, b - a));
    var mid = (a + b) / 2;
    a = mid - span / 2;
    if (a < 0) a = 0;
    if (a + span > END) a = END - span;
    view = { a: a, b: a + span };
    layout();
  }

  function zoom(factor, atMs) {
    var at = atMs === undefined ? (view.a + view.b) / 2 : atMs;
    var span = Math.min(END, Math.max(MIN_SPAN, (view.b - view.a) * factor));
    var left = (at - view.a) / (view.b - view.a);
    setView(at - left * span, at - left * span + span);
  }

  function pan(deltaMs) { setView(view.a + deltaMs, view.b + deltaMs); }
  function fit() { setView(ACTION_A, ACTION_B); }
  function whole() { setView(0, END); }

  function button(id, fn) {
    var b = document.getElementById(id);
    if (b) b.addEventListener('click', fn);
  }
  button('zoom-in', function () { zoom(0.5); });
  button('zoom-out', function () { zoom(2); });
  button('pan-left', function () { pan(-(view.b - view.a) / 4); });
  button('pan-right', function () { pan((view.b - view.a) / 4); });
  button('fit', fit);
  button('whole', whole);

  wrap.addEventListener('wheel', function (e) {
    var w = width();
    var rect = wrap.getBoundingClientRect();
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      zoom(Math.exp(e.deltaY * 0.002), msAt(e.clientX - rect.left, w));
    } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      e.preventDefault();
      var d = e.shiftKey && e.deltaX === 0 ? e.deltaY : e.deltaX;
      pan(d / (w - 2 * PAD) * (view.b - view.a));
    }
  }, { passive: false });

  // Details: the mark under the pointer, or the one clicked (pinned until unpinned or another is clicked).
  var detailsText = document.getElementById('details-text');
  var detailsBox = document.getElementById('details');
  var detailsState = document.getElementById('details-state');
  var pinned = null;
  function markOf(el) {
    while (el && el !== plot) {
      if (el.matches && el.matches('g.span, g.flow, [data-t]')) return el;
      el = el.parentNode;
    }
    return null;
  }
  function textOf(el) {
    var t = el.querySelector('title');
    return t ? t.textContent : '';
  }
  function show(el) {
    if (detailsText) detailsText.textContent = el ? textOf(el) : '';
  }
  function pin(el) {
    if (pinned) pinned.classList.remove('pinned');
    pinned = el;
    if (el) el.classList.add('pinned');
    show(el);
    if (detailsBox) detailsBox.classList.toggle('is-pinned', el !== null);
    if (detailsState) detailsState.textContent = el ? 'pinned: click another mark, or unpin (Esc)' : 'hover a mark; click it to pin its details here';
  }
  plot.addEventListener('mouseover', function (e) {
    if (pinned === null) show(markOf(e.target));
  });
  button('unpin', function () { pin(null); });
  button('copy', function () {
    var text = detailsText ? detailsText.textContent : '';
    function fallback() {
      var range = document.createRange();
      range.selectNodeContents(detailsText);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      try { document.execCommand('copy'); } catch (err) { /* the text stays selected to copy by hand */ }
    }
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).catch(fallback);
    else fallback();
    if (detailsBox) detailsBox.setAttribute('data-copied', String(text.length));
  });

  // A press that does not move is a click on the mark under it (the drag captures the pointer, so the
  // click event itself would name the plot, not the mark).
  var drag = null;
  wrap.addEventListener('pointerdown', function (e) {
    if (e.button !== 0) return;
    drag = { x: e.clientX, a: view.a, b: view.b, target: markOf(e.target), moved: false };
    wrap.setPointerCapture(e.pointerId);
    wrap.classList.add('dragging');
  });
  wrap.addEventListener('pointermove', function (e) {
    if (drag === null) return;
    if (Math.abs(drag.x - e.clientX) > 3) drag.moved = true;
    if (!drag.moved) return;
    var dms = (drag.x - e.clientX) / (width() - 2 * PAD) * (drag.b - drag.a);
    setView(drag.a + dms, drag.b + dms);
  });
  function endDrag() { drag = null; wrap.classList.remove('dragging'); }
  wrap.addEventListener('pointerup', function () {
    if (drag !== null && !drag.moved) pin(drag.target);
    endDrag();
  });
  wrap.addEventListener('pointercancel', endDrag);
  wrap.addEventListener('dblclick', fit);

  document.addEventListener('keydown', function (e) {
    var t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === '+' || e.key === '=') zoom(0.5);
    else if (e.key === '-') zoom(2);
    else if (e.key === '0') fit();
    else if (e.key === 'w') whole();
    else if (e.key === 'Escape') pin(null);
    else if (e.key === 'ArrowLeft') pan(-(view.b - view.a) / 4);
    else if (e.key === 'ArrowRight') pan((view.b - view.a) / 4);
    else return;
    e.preventDefault();
  });

  // A violation row: zoom in around it and its causes (at most a twelfth of the run or what the chain
  // needs, at least 2 s), mark it, pin its details, scroll to it.
  function jump(row) {
    var t = Number(row.getAttribute('data-t'));
    var id = row.getAttribute('data-v');
    var first = t;
    var chain = plot.querySelectorAll('g.flow[data-v="' + id + '"]');
    for (var c = 0; c < chain.length; c++) first = Math.min(first, Number(chain[c].getAttribute('data-t1')));
    var span = Math.max(Math.min(view.b - view.a, Math.max(END / 12, 2000)), (t - first) * 1.15);
    var mid = first === t ? t : (first + t) / 2;
    setView(mid - span / 2, mid + span / 2);
    var focused = document.querySelectorAll('.focus');
    for (var i = 0; i < focused.length; i++) focused[i].classList.remove('focus');
    row.classList.add('focus');
    var hits = plot.querySelectorAll('[data-v="' + id + '"]');
    for (var k = 0; k < hits.length; k++) hits[k].classList.add('focus');
    var target = plot.querySelector('[data-v="' + id + '"][data-home]') || hits[0];
    if (target) pin(target);
    if (target && target.scrollIntoView) target.scrollIntoView({ block: 'center', inline: 'nearest' });
  }
  var rows = document.querySelectorAll('tr.bad-row[data-t]');
  for (var r = 0; r < rows.length; r++) {
    (function (row) {
      row.addEventListener('click', function () { jump(row); });
      row.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); jump(row); }
      });
    })(rows[r]);
  }

  // A deviation row (a run given --schedule): zoom in around the instant it was taken.
  var devs = document.querySelectorAll('tr.dev-row[data-t]');
  for (var d = 0; d < devs.length; d++) {
    (function (row) {
      var go = function () {
        var t = Number(row.getAttribute('data-t'));
        var span = Math.max(Math.min(view.b - view.a, END / 12), 2000);
        setView(t - span / 2, t + span / 2);
      };
      row.addEventListener('click', go);
      row.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); go(); }
      });
    })(devs[d]);
  }

  window.addEventListener('resize', layout);
  document.documentElement.classList.add('js');
  fit();
})();
`;
