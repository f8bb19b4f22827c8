// The --timeline page in a real browser: Debian's chromium, driven by playwright-core (no browser is
// downloaded). A 360 s run fits the window, zoom and pan change the visible range, a click on a
// violation in the table brings its mark into view, and the page logs no error and requests nothing.
// Skipped, with a line saying so, where /usr/bin/chromium is missing (.ci/run installs it with apt-get).
// PODRACE_SCREENSHOTS=DIR also saves the fitted page as DIR/timeline-360s.png.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fixes } from '../../src/fixes.js';
import { toTimelineHtml } from '../../src/report/timelineHtml.js';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { runScenario } from '../../src/scenario/run.js';

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
  const lastViolation = result.violations.length - 1;
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

  it('fits the 360 s run to the window: the last violation is visible without scrolling', async () => {
    expect(result.virtualTimeMs).toBe(360_000);
    expect(await range()).toEqual({ a: 0, b: 360_000 });
    // A string: the test is compiled without the DOM library.
    const widths = (await page.evaluate(
      '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
    )) as number[];
    expect(widths[0]).toBeLessThanOrEqual(widths[1] ?? 0);
    const mark = await markBox(lastViolation);
    expect(insidePlot(mark, await plotBox())).toBe(true);
    expect(mark.x + mark.width).toBeLessThanOrEqual(VIEWPORT.width);
    // The axis reaches the end of the run.
    expect(await page.locator('#axis text').last().textContent()).toBe('350s');
    const shots = process.env['PODRACE_SCREENSHOTS'];
    if (shots !== undefined && shots !== '') {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: join(shots, 'timeline-360s.png'), fullPage: true });
    }
  });

  it('zooms with the buttons and Ctrl+wheel, and pans by dragging', async () => {
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
    await page.click('#fit');
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
