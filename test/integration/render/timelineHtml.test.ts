/**
 * The drawn timeline in a real browser: `lineup simulate --output html` of KEP story 2, loaded
 * by headless Chromium from a file. The page must load with no console error and no request
 * beyond itself, and hold the lanes, Jobs, gates and passes the run had; its 3-second startup is
 * drawn wide though the run lasts 32 seconds, and the passes of one instant are one tick counted.
 * A screenshot is kept in test-artifacts/ for a person to look at.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { artifactPath, startBrowser } from '../harness/browser.ts';
import { simulatePage } from './pages.ts';

describe('timelineHtml in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let scratch = '';
  const problems: string[] = [];
  const requests: string[] = [];
  let pageUrl = '';

  before(async () => {
    // Prepare: the page as a user makes it.
    scratch = mkdtempSync(join(tmpdir(), 'lineup-timeline-'));
    const file = join(scratch, 'story2.html');
    writeFileSync(file, simulatePage());
    pageUrl = pathToFileURL(file).href;
    browser = await startBrowser();
    page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warn') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
    page.on('request', (request) => requests.push(request.url()));
    // Act
    await page.goto(pageUrl, { waitUntil: 'load' });
  });

  after(async () => {
    await browser?.close();
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  it('loads with no console error and fetches nothing but itself', () => {
    assert.deepEqual(problems, []);
    assert.deepEqual(requests, [pageUrl]);
  });

  it('holds a lane per replicatedJob with its Jobs, in startup order', async () => {
    const lanes = await page.$$eval('[data-lane]', (elements) =>
      elements.map((lane) => [lane.getAttribute('data-lane'), lane.querySelectorAll('[data-job]').length]),
    );
    assert.deepEqual(lanes, [
      ['messagequeue', 1],
      ['driver', 2],
      ['worker', 2],
    ]);
  });

  it('shows the gated Jobs suspended first, and a gate marker on each lane where it opened', async () => {
    const driverStates = await page.$$eval('[data-job$="-driver-0"] rect', (rects) => rects.map((rect) => rect.getAttribute('data-state')));
    assert.deepEqual(driverStates, ['suspended', 'running', 'ready', 'succeeded']);
    const gates = await page.$$eval('[data-marker="gate"]', (markers) => markers.map((marker) => marker.getAttribute('data-marker-lane')));
    assert.deepEqual(gates, ['messagequeue', 'driver', 'worker']);
    const gateBox = await page.$eval('[data-marker="gate"][data-marker-lane="driver"] line', (line) => line.getBoundingClientRect().height);
    assert.ok(gateBox > 0, 'the driver gate is not drawn');
  });

  it('draws every reconcile pass: those of one instant one tick counted ×N, each pass a table row with its reason and actions', async () => {
    const ticks = await page.$$eval('[data-tick]', (groups) => groups.map((group) => [group.querySelector('text')?.textContent ?? '', Number(group.getAttribute('data-count')), group.querySelector('title')?.textContent ?? '']));
    const rows = await page.$$eval('[data-pass-row]', (elements) => elements.map((row) => row.textContent ?? ''));
    assert.ok(rows.length >= 5, `only ${String(rows.length)} passes drawn`);
    assert.equal(ticks.reduce((sum, [, count]) => sum + Number(count), 0), rows.length);
    // Several passes run at 0 s: one tick, counted.
    assert.match(String(ticks[0]?.[0]), /^×\d+$/);
    assert.match(String(ticks[0]?.[2]), /pass 1: .*CreateJob ×5/);
    assert.match(rows[0] ?? '', /^1\s*0s\s*created 5 jobs \(4 suspended\)[^]*CreateJob ×5/);
  });

  it('draws the 3-second startup wide and the rest of the 32-second run compressed after a break in the axis', async () => {
    const breakAt = await page.$eval('[data-part="axis-break"]', (part) => Number(part.getAttribute('data-break-at')));
    assert.ok(breakAt > 3000 && breakAt < 4000, `the axis breaks at ${String(breakAt)} ms`);
    const workerGate = await page.$eval('[data-marker="gate"][data-marker-lane="worker"] line', (line) => line.getBoundingClientRect().x);
    const plot = await page.$eval('[data-job$="-worker-0"] rect', (rect) => rect.getBoundingClientRect().x);
    // The worker gate opens at 2 s: far from the start, not in the first tenth of the plot.
    assert.ok(workerGate - plot > 300, `the worker gate is ${String(workerGate - plot)} px from the start`);
  });

  it('keeps a screenshot for a person to look at', async () => {
    const file = artifactPath('timeline-story2.png');
    await page.screenshot({ path: file, fullPage: true });
    assert.ok(file.endsWith('.png'));
  });
});
