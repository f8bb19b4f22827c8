// The --timeline page in a real browser: Debian's chromium, driven by playwright-core (no browser is
// downloaded). A 360 s run opens on its action and shows the whole run on a click, zoom and pan change
// the visible range, a click on a violation in the table brings its mark into view, a kubelet restart is
// a grey band, and the page logs no error and requests nothing. A run of #100182's race shows the
// kubelet's belief beside the node's mount table with the gap marked, cause-to-effect arrows, the
// details panel a click pins and copies, and long lines wrapped. Skipped, with a line saying so, where
// /usr/bin/chromium is missing (.ci/run installs it with apt-get). Each test attaches its screenshots to
// its output (vitest's attachments, .vitest-attachments/); PODRACE_SCREENSHOTS=DIR also saves them there.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { toTimelineHtml } from '../../src/report/timelineHtml.js';
import { runScenario } from '../../src/run/run.js';
import { loadScenarioFile } from '../../src/scenario/load.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

/**
 * This file's temporary folders, removed when it ends (the suite checks that nothing is left). Made only
 * where the tests run: vitest runs no hook of a file whose tests are all skipped.
 */
const temp = haveChromium ? mkdtempSync(join(tmpdir(), 'podrace-html-')) : undefined;
afterAll(() => {
  if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
});
if (!haveChromium) {
  process.stdout.write(
    `SKIPPED test/report/timelineBrowser.test.ts: ${CHROMIUM} not found (apt-get install chromium; .ci/run does)\n`,
  );
}

const VIEWPORT = { width: 1600, height: 1000 };

/** Saves a screenshot of the page and attaches it to the test's output (and to PODRACE_SCREENSHOTS). */
async function attachShot(page: Page, ctx: TestContext, name: string, fullPage = false): Promise<void> {
  const path = join(temp ?? tmpdir(), `${name}.png`);
  await page.screenshot({ path, fullPage });
  await ctx.annotate(name, { path, contentType: 'image/png' });
  const shots = process.env['PODRACE_SCREENSHOTS'];
  if (shots !== undefined && shots !== '') {
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage });
  }
}

interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

describe.skipIf(temp === undefined)('the HTML timeline in Chromium', () => {
  // vitest collects a skipped suite too: nothing here may touch the disk before a hook.
  const result = runScenario(loadScenarioFile('scenarios/fc-kubelet-restart-reconstruct-procmounts.yaml'), {
    fixes: Fixes.none(),
    recordFacts: true,
  });
  // The last violation during the run: a liveness check's at the run's end (device-left-mounted) is no action.
  const lastViolation = result.violations.reduce(
    (last, v, i) => (v.atMs < result.virtualTimeMs ? i : last),
    -1,
  );
  let url = '';

  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    const file = join(mkdtempSync(join(temp ?? tmpdir(), 'html-')), 'timeline.html');
    writeFileSync(file, toTimelineHtml(result));
    url = pathToFileURL(file).href;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    page = await browser.newPage({ viewport: VIEWPORT });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`pageerror: ${String(e)}`));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  const range = async (): Promise<{ a: number; b: number }> =>
    page.$eval('#range', (e) => ({
      a: Number(e.getAttribute('data-a')),
      b: Number(e.getAttribute('data-b')),
    }));
  const plotBox = async (): Promise<Box> => {
    const box = await page.locator('#plotwrap').boundingBox();
    if (box === null) throw new Error('no plot');
    return box;
  };
  /** The violation's mark on its own track (not the copy on the cluster's violations track). */
  const markBox = async (v: number): Promise<Box> => {
    const box = await page.locator(`circle[data-v="${v}"][data-home]`).boundingBox();
    if (box === null) throw new Error(`no mark for violation ${v}`);
    return box;
  };
  const insidePlot = (m: Box, p: Box): boolean => m.x >= p.x && m.x + m.width <= p.x + p.width;

  it('opens on the action, the idle tail left out, and shows the whole 360 s run on a click', async (ctx) => {
    expect(result.virtualTimeMs).toBe(360_000);
    const action = await page.$eval('#plot', (e) => ({
      a: Number(e.getAttribute('data-action-a')),
      b: Number(e.getAttribute('data-action-b')),
    }));
    expect(await range()).toEqual(action);
    // From the first thing that happened to the last violation during the run, with a margin.
    const last = result.violations[lastViolation]?.atMs ?? 0;
    expect(action.b).toBeGreaterThan(last);
    expect(action.b).toBeLessThan(result.virtualTimeMs * 0.5);
    // A string: the test is compiled without the DOM library.
    const widths = (await page.evaluate(
      '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
    )) as number[];
    expect(widths[0]).toBeLessThanOrEqual(widths[1] ?? 0);
    const mark = await markBox(lastViolation);
    expect(insidePlot(mark, await plotBox())).toBe(true);
    expect(mark.x + mark.width).toBeLessThanOrEqual(VIEWPORT.width);
    await attachShot(page, ctx, 'timeline-action', true);
    await page.click('#whole');
    expect(await range()).toEqual({ a: 0, b: 360_000 });
    // The axis reaches the end of the run.
    expect(await page.locator('#axis text').last().textContent()).toBe('350s');
    await attachShot(page, ctx, 'timeline-360s');
    await page.click('#fit');
    expect(await range()).toEqual(action);
  });

  it("draws the kubelet's down window as a span and a grey band across its node", async () => {
    const down = page.locator('g.span.down');
    expect(await down.count()).toBe(1);
    const band = await page.locator('g.band rect').boundingBox();
    const span = await down.locator('rect').boundingBox();
    if (band === null || span === null) throw new Error('no band');
    expect(band.width).toBeGreaterThan(20);
    expect(Math.abs(band.x - span.x)).toBeLessThan(1);
    expect(band.height).toBeGreaterThan(5 * span.height);
  });

  it('zooms with the buttons and Ctrl+wheel, and pans by dragging', async () => {
    await page.click('#whole');
    await page.click('#zoom-in');
    const zoomed = await range();
    expect(zoomed.b - zoomed.a).toBe(180_000);
    const p = await plotBox();
    await page.mouse.move(p.x + p.width * 0.25, p.y + 60);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -300);
    await page.keyboard.up('Control');
    const wheeled = await range();
    expect(wheeled.b - wheeled.a).toBeLessThan(zoomed.b - zoomed.a);
    // Drag the plot 200 px to the right: earlier times come into view.
    await page.mouse.move(p.x + p.width / 2, p.y + 60);
    await page.mouse.down();
    await page.mouse.move(p.x + p.width / 2 + 200, p.y + 60, { steps: 4 });
    await page.mouse.up();
    const dragged = await range();
    expect(dragged.a).toBeLessThan(wheeled.a);
    expect(dragged.b - dragged.a).toBeCloseTo(wheeled.b - wheeled.a, 6);
    await page.click('#whole');
    expect(await range()).toEqual({ a: 0, b: 360_000 });
  });

  it('a click on a violation in the table brings it into view', async () => {
    // Look at the end of the run first, far from the violations (90-101 s).
    for (let i = 0; i < 4; i++) await page.click('#zoom-in');
    for (let i = 0; i < 8; i++) await page.click('#pan-right');
    const away = await range();
    const t = result.violations[lastViolation]?.atMs ?? 0;
    expect(t < away.a || t > away.b).toBe(true);
    expect(insidePlot(await markBox(lastViolation), await plotBox())).toBe(false);
    await page.click(`tr.bad-row[data-v="${lastViolation}"]`);
    const shown = await range();
    expect(shown.a).toBeLessThanOrEqual(t);
    expect(shown.b).toBeGreaterThanOrEqual(t);
    const mark = await markBox(lastViolation);
    expect(insidePlot(mark, await plotBox())).toBe(true);
    expect(mark.y).toBeGreaterThanOrEqual(0);
    expect(mark.y + mark.height).toBeLessThanOrEqual(VIEWPORT.height);
    expect(await page.locator(`circle[data-v="${lastViolation}"].focus`).count()).toBe(2);
  });

  it('logs no error or warning and requests nothing but the page itself', () => {
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
  });
});

describe.skipIf(temp === undefined)('belief beside truth, cause to effect and details in Chromium', () => {
  // Issue #100182's race before PR #100183 (seed 1 fires it): NodeUnstage unmounts the staging path and
  // times out; the kubelet keeps the device DeviceGloballyMounted and db2's SetUp binds the empty dir.
  const result = runScenario(loadScenarioFile('scenarios/csi-nodeunstage-timeout.yaml'), {
    fixes: Fixes.none(),
    seed: 1,
    recordFacts: true,
  });
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    const file = join(mkdtempSync(join(temp ?? tmpdir(), 'html-')), 'csi.html');
    writeFileSync(file, toTimelineHtml(result));
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(`pageerror: ${String(e)}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
    });
    await page.goto(pathToFileURL(file).href);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** The box of the span named `name` on the track labelled `label` (node-a's). */
  const spanBox = async (label: string, name: string): Promise<Box> => {
    const i = await page.$$eval(
      'svg.labels text.track-label',
      (els, l) => els.findIndex((e) => e.lastChild?.textContent === l),
      label,
    );
    expect(i, label).toBeGreaterThanOrEqual(0);
    const rows = page.locator('svg.labels > svg');
    const row = await rows.nth(i).boundingBox();
    const spans = page.locator('g.span', { has: page.locator(`text.span-label:text-is("${name}")`) });
    for (let k = 0; k < (await spans.count()); k++) {
      const box = await spans.nth(k).locator('rect').boundingBox();
      if (box !== null && row !== null && Math.abs(box.y + box.height / 2 - (row.y + row.height / 2)) < 3) {
        return box;
      }
    }
    throw new Error(`no span ${name} on ${label}`);
  };

  it("draws the kubelet's DeviceGloballyMounted past the host's global mount, and marks the gap", async (ctx) => {
    await page.click('tr.bad-row[data-v="0"]');
    const belief = await spanBox('device vol-1: kubelet (actual state)', 'DeviceGloballyMounted');
    const truth = await spanBox('device vol-1: host (mount table)', 'global mount');
    const gap = await spanBox(
      'device vol-1: kubelet \u2260 host',
      'kubelet: DeviceGloballyMounted; host: not mounted',
    );
    const plot = await page.locator('#plotwrap').boundingBox();
    if (plot === null) throw new Error('no plot');
    // The belief runs to the end (past the visible range); the mount ended where the gap begins.
    expect(belief.x + belief.width).toBeGreaterThanOrEqual(plot.x + plot.width - 1);
    expect(truth.x + truth.width).toBeLessThan(plot.x + plot.width - 100);
    expect(Math.abs(gap.x - (truth.x + truth.width))).toBeLessThan(2);
    await attachShot(page, ctx, 'belief-beside-truth');
  });

  it('draws the chain fault -> failed UnmountDevice -> skipped MountDevice -> violation as arrows', async () => {
    const flows = page.locator('g.flow[data-v="0"]');
    const n = await flows.count();
    expect(n).toBeGreaterThanOrEqual(4);
    const titles = await flows.evaluateAll((els) =>
      els.map((e) => e.querySelector('title')?.textContent ?? ''),
    );
    expect(titles.some((t) => /faultInjected unmountDevice.*\n.*unmountDevice FAILED/.test(t))).toBe(true);
    expect(titles[n - 1]).toMatch(/-> 17\.500s VIOLATION mount-device-skipped-after-failure$/);
    // The last arrow's head sits on the violation's mark.
    const head = await flows
      .nth(n - 1)
      .locator('path.head')
      .boundingBox();
    const mark = await page.locator('circle[data-v="0"][data-home]').boundingBox();
    if (head === null || mark === null) throw new Error('no arrow');
    expect(Math.abs(head.x + head.width - (mark.x + mark.width / 2))).toBeLessThan(3);
    // Focused by the click in the table: drawn strong.
    expect(await page.locator('g.flow.focus').count()).toBe(n);
  });

  it('pins the details of a clicked mark, keeps them while the pointer moves on, and copies them', async () => {
    // The click in the table pinned the violation's details, with its causes.
    const text = () => page.locator('#details-text').textContent();
    expect(await text()).toContain('caused by:\n  11.477s volume vol-1 mountDevice');
    const belief = await spanBox('device vol-1: kubelet (actual state)', 'DeviceGloballyMounted');
    const plot = await page.locator('#plotwrap').boundingBox();
    if (plot === null) throw new Error('no plot');
    // Right of the last arrow, inside the visible range.
    await page.mouse.move(plot.x + plot.width - 40, belief.y + belief.height / 2);
    expect(await text()).toContain('VIOLATION mount-device-skipped-after-failure'); // still pinned
    await page.mouse.down();
    await page.mouse.up();
    expect(await text()).toMatch(/^DeviceGloballyMounted: 11\.477s - 180\.000s \(still running at the end\)/);
    await page.mouse.move(10, 10);
    expect(await text()).toMatch(/^DeviceGloballyMounted/);
    await page.click('#copy');
    expect(await page.getAttribute('#details', 'data-copied')).toBe(String((await text())?.length));
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(await text());
    await page.keyboard.press('Escape');
    expect(await page.locator('.pinned').count()).toBe(0);
    // Unpinned: hovering shows what is under the pointer.
    const truth = await spanBox('device vol-1: host (mount table)', 'global mount');
    await page.mouse.move(truth.x + 10, truth.y + truth.height / 2);
    expect(await text()).toMatch(/^global mount: 11\.477s - 16\.310s/);
  });

  it('wraps long lines: the text timeline, the details and the messages never scroll sideways', async () => {
    await page.evaluate("document.querySelector('details').open = true");
    for (const sel of ['details > pre', '#details-text', 'td.msg']) {
      const [scroll, client] = (await page.$eval(sel, (e) => [e.scrollWidth, e.clientWidth])) as number[];
      expect(scroll, sel).toBeLessThanOrEqual((client ?? 0) + 1);
    }
    // The violation's line in the text timeline is longer than the page is wide: it wraps.
    const line = await page.$eval('details > pre', (e) => e.getBoundingClientRect().height);
    expect(line).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
