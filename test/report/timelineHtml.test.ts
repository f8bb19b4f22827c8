import { describe, expect, it } from 'vitest';
import { escapeHtml, toTimelineHtml } from '../../src/report/timelineHtml.js';
import { sampleFacts, sampleResult, violation } from './fixtures.js';

describe('toTimelineHtml', () => {
  const html = toTimelineHtml(sampleResult());

  it('is one self-contained page: no URL, no external script, style, font or image', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/<script[^>]*\bsrc=/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).not.toMatch(/<img\b/i);
  });

  it('has a header with scenario, seed, fixes and the violation list', () => {
    expect(html).toContain('<h1>podrace: pod-deleted-before-start</h1>');
    expect(html).toContain('<td>seed</td><td>7</td>');
    expect(html).toContain('pod-worker-lifecycle=off');
    expect(html).toContain('block-metrics=on');
    expect(html).toContain('1 violation');
    expect(html).toContain('<td class="bad">container-started-after-terminated</td>');
  });

  it('draws an SVG timeline with spans, a seconds axis and the violation in red with a tooltip', () => {
    expect(html).toContain('<svg class="plot"');
    expect(html).toMatch(/<text [^>]*class="tick">0\.0s<\/text>/);
    expect(html).toMatch(/<text [^>]*class="tick">1\.5s<\/text>/);
    expect(html).toContain('class="violation"');
    expect(html).toContain('class="violation-line"');
    expect(html).toContain('<title>VIOLATION container-started-after-terminated at 1.520s');
    expect(html).toContain('pod web (web-1) container app');
    expect(html).toContain('<title>fault containerStart at 1.100s');
  });

  it('badges a known-open hazard in the table with its name and upstream issue, as text', () => {
    expect(html).not.toContain('hazard-badge"');
    const page = toTimelineHtml(
      sampleResult({ violations: [{ ...violation, knownOpen: 'orphan-pod-volume-torn-down-on-restart' }] }),
    );
    expect(page).toContain(
      '<td class="bad">container-started-after-terminated<br><span class="hazard-badge" data-hazard="orphan-pod-volume-torn-down-on-restart" title="after a kubelet restart,',
    );
    expect(page).toContain(
      'known-open hazard <b>orphan-pod-volume-torn-down-on-restart</b> <span class="hazard-ref">kubernetes/kubernetes#110682</span></span></td>',
    );
    expect(page).toContain('1 violation <span class="hazard-note">(a known-open upstream hazard)</span>');
    // The marks say it too: amber circles, and the hazard in their tooltips.
    expect(page.match(/<circle [^>]*class="violation hazard"/g)).toHaveLength(2);
    expect(page).toContain('knownOpen: orphan-pod-volume-torn-down-on-restart');
    expect(page).toContain(
      '<title>VIOLATION container-started-after-terminated [known-open hazard orphan-pod-volume-torn-down-on-restart, kubernetes/kubernetes#110682] at 1.520s',
    );
    expect(page).not.toMatch(/https?:\/\//i);
  });

  it('escapes text from the run (a pod named <script>)', () => {
    const evil = '<script>alert("x")</script>';
    const page = toTimelineHtml(
      sampleResult({
        scenario: '<b>bold</b>',
        facts: sampleFacts(evil),
        violations: [{ ...violation, pod: evil, message: `pod ${evil} & co` }],
      }),
    );
    // The page's own inline script is its only script element; the pod's name is text.
    expect(page.match(/<script\b/g)).toHaveLength(1);
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<b>bold</b>');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page).toContain('&amp; co');
  });

  it('carries what its script needs: virtual times on every mark, violation ids on rows and marks', () => {
    expect(html).toContain('<svg class="plot" id="plot" width="1200"');
    expect(html).toContain('data-end="3000.5"');
    expect(html).toMatch(/<g class="span[^"]*" data-a="\d+(\.\d+)?" data-b="\d+(\.\d+)?">/);
    expect(html).toContain('<tr class="bad-row" data-t="1520" data-v="0" tabindex="0"');
    // The violation's mark on its pod's track is its home; the copy on the violations track is not.
    expect(html.match(/<circle [^>]*data-v="0" data-home=""/g)).toHaveLength(1);
    expect(html.match(/<circle [^>]*data-v="0"/g)).toHaveLength(2);
    expect(html).toContain('<div class="toolbar"><button type="button" id="zoom-in"');
    expect(html).toContain(
      '<span id="range" data-a="0" data-b="3000.5">0.000s &#8211; 3.001s of 3.001s</span>',
    );
    expect(html.match(/<script>/g)).toHaveLength(1);
  });

  it('opens on the action, offers the whole run, and has a details panel to pin and copy', () => {
    // The sample runs from 0 to its last fact at 2.6 s (a kubelet stopping) of 3.0005 s: that, plus 250 ms.
    expect(html).toMatch(/<svg class="plot" id="plot" [^>]*data-action-a="0" data-action-b="2850"/);
    expect(html).toContain(
      '<button type="button" id="fit" title="from the first to the last thing that happened',
    );
    expect(html).toContain('<button type="button" id="whole"');
    expect(html).toContain('<div class="details" id="details">');
    expect(html).toContain('<button type="button" id="copy"');
    // Pod volumes and devices: the kubelet's belief beside the host's mount table.
    expect(html).toContain('pod web (web-1) volume data: kubelet');
    expect(html).toContain('device data: kubelet (actual state)');
  });

  it('is deterministic', () => {
    expect(toTimelineHtml(sampleResult())).toBe(html);
  });

  it('renders a run without facts or violations', () => {
    const page = toTimelineHtml(sampleResult({ facts: undefined, violations: [] }));
    expect(page).toContain('no violations');
    expect(page).toContain('not recorded');
  });

  it('escapeHtml escapes the five specials', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
