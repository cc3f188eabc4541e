/**
 * The drawn timeline in a real browser: `lineup simulate --output html` of KEP story 2, loaded
 * by headless Chromium from a file. The page must load with no console error and no request
 * beyond itself, and hold the lanes, Jobs, gates and passes the run had. A screenshot is kept
 * in test-artifacts/ for a person to look at.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { artifactPath, startBrowser } from '../harness/browser.ts';
import { examplePath } from '../../repoFiles.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

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
    const simulate = spawnSync(process.execPath, ['bin/lineup.js', 'simulate', examplePath('story2-messagequeue-driver-worker.yaml'), '--output', 'html'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    assert.equal(simulate.status, 0, simulate.stderr);
    const file = join(scratch, 'story2.html');
    writeFileSync(file, simulate.stdout);
    pageUrl = pathToFileURL(file).href;
    browser = await startBrowser();
    page = await browser.newPage();
    await page.setViewport({ width: 1320, height: 400 });
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

  it('draws a tick per reconcile pass, each with its details on hover', async () => {
    const ticks = await page.$$eval('[data-tick]', (lines) => lines.map((line) => line.querySelector('title')?.textContent ?? ''));
    assert.ok(ticks.length >= 5, `only ${String(ticks.length)} passes drawn`);
    assert.match(ticks[0] ?? '', /pass 1: .*CreateJob ×5/);
  });

  it('keeps a screenshot for a person to look at', async () => {
    const file = artifactPath('timeline-story2.png');
    await page.screenshot({ path: file, fullPage: true });
    assert.ok(file.endsWith('.png'));
  });
});
