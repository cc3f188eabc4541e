/**
 * The drawn journal in a real browser: `lineup history --output html` and `lineup replay
 * --output html` of KEP story 2 recorded by `lineup demo --state-dir`, loaded by headless
 * Chromium from files. Each page must load with no console error and no request beyond itself,
 * and hold the lanes, gate markers and passes the journal has; in the replay of a recording whose
 * one pass an older planner decided differently (its recorded reason edited), that pass and only
 * it is highlighted. Screenshots are kept in test-artifacts/.
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
const NAME = 'messagequeue-driver-worker';

/** lineup: the CLI as a user runs it; returns its exit code and output. */
const lineup = (...args: string[]) => {
  const result = spawnSync(process.execPath, ['bin/lineup.js', ...args], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

interface RecordedAction {
  kind: string;
  target: string;
  message: string;
}

/** PageUnderTest: a page opened in the browser, with what it complained about and what it fetched. */
interface PageUnderTest {
  readonly page: Page;
  readonly url: string;
  readonly problems: string[];
  readonly requests: string[];
}

describe('history and replay pages in Chromium', () => {
  let browser: Browser;
  let scratch = '';
  let history: PageUnderTest;
  let replay: PageUnderTest;
  let passes = 0;
  let editedPass = 0;

  const open = async (file: string, html: string): Promise<PageUnderTest> => {
    writeFileSync(file, html);
    const page = await browser.newPage();
    await page.setViewport({ width: 1320, height: 400 });
    const opened: PageUnderTest = { page, url: pathToFileURL(file).href, problems: [], requests: [] };
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warn') opened.problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => opened.problems.push(`page error: ${String(error)}`));
    page.on('request', (request) => opened.requests.push(request.url()));
    await page.goto(opened.url, { waitUntil: 'load' });
    return opened;
  };

  before(async () => {
    // Prepare: story 2's journal as the demo keeps it, and a recording of it whose drivers' resume
    // carries the reason an older planner would have given.
    scratch = mkdtempSync(join(tmpdir(), 'lineup-recording-html-'));
    const stateDir = join(scratch, 'D');
    const demo = lineup('demo', examplePath('story2-messagequeue-driver-worker.yaml'), '--speed', '0', '--state-dir', stateDir);
    assert.equal(demo.code, 0, demo.stderr);
    const historyHtml = lineup('history', `local/default/${NAME}`, '--state-dir', stateDir, '--output', 'html');
    assert.equal(historyHtml.code, 0, historyHtml.stderr);
    const exported = lineup('export', `local/default/${NAME}`, '--state-dir', stateDir);
    assert.equal(exported.code, 0, exported.stderr);
    const recording = JSON.parse(exported.stdout) as { passes: { actions: RecordedAction[] }[] };
    passes = recording.passes.length;
    editedPass = recording.passes.findIndex((pass) => pass.actions.some((action) => action.kind === 'ResumeJob' && action.target === `${NAME}-driver-0`)) + 1;
    assert.ok(editedPass > 1, 'the journal has no pass resuming the drivers');
    for (const action of recording.passes[editedPass - 1]?.actions ?? []) if (action.kind === 'ResumeJob') action.message = 'InOrder: messagequeue Ready 0/1 (an older planner)';
    const edited = join(scratch, 'older.json');
    writeFileSync(edited, JSON.stringify(recording));
    const replayHtml = lineup('replay', edited, '--output', 'html');
    assert.equal(replayHtml.code, 1, `a pass differs: ${replayHtml.stderr}`);
    browser = await startBrowser();
    // Act
    history = await open(join(scratch, 'history.html'), historyHtml.stdout);
    replay = await open(join(scratch, 'replay.html'), replayHtml.stdout);
  });

  after(async () => {
    await browser?.close();
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  it('both pages load with no console error and fetch nothing but themselves', () => {
    for (const opened of [history, replay]) {
      assert.deepEqual(opened.problems, [], opened.url);
      assert.deepEqual(opened.requests, [opened.url]);
    }
  });

  it('the history page holds a lane per replicatedJob with its Jobs from the recorded inputs, in spec order', async () => {
    const lanes = await history.page.$$eval('[data-lane]', (elements) => elements.map((lane) => [lane.getAttribute('data-lane'), lane.querySelectorAll('[data-job]').length]));
    assert.deepEqual(lanes, [
      ['messagequeue', 1],
      ['driver', 2],
      ['worker', 2],
    ]);
    const driverStates = await history.page.$$eval('[data-job$="-driver-0"] rect', (rects) => rects.map((rect) => rect.getAttribute('data-state')));
    assert.deepEqual(driverStates, ['suspended', 'running', 'ready', 'succeeded']);
  });

  it('the history page marks each gate on its lane, labelled with its reason code and message, drawn', async () => {
    const gates = await history.page.$$eval('[data-marker="gate"]', (markers) =>
      markers.map((marker) => [marker.getAttribute('data-marker-lane'), marker.querySelector('text')?.textContent ?? '', marker.querySelector('line')?.getBoundingClientRect().height ?? 0]),
    );
    assert.deepEqual(
      gates.map(([lane, label]) => [lane, label]),
      [
        ['messagequeue', 'GateOpened: InOrder: first replicatedJob'],
        ['driver', 'GateOpened: InOrder: messagequeue Ready 1/1'],
        ['worker', 'GateOpened: InOrder: driver Ready 2/2'],
      ],
    );
    assert.ok(gates.every(([, , height]) => Number(height) > 0), 'a gate marker is not drawn');
  });

  it('the history page draws a tick per pass, each with its reason and actions on hover', async () => {
    const ticks = await history.page.$$eval('[data-tick]', (lines) => lines.map((line) => line.querySelector('title')?.textContent ?? ''));
    assert.equal(ticks.length, passes);
    assert.match(ticks[0] ?? '', /pass 1: created 5 jobs \(4 suspended\)[^]*\nCreateJob×4 StartupRuleHeld: InOrder: waiting for messagequeue to be Ready: 0\/1 jobs ready\n/);
  });

  it('the replay page highlights the one pass that differs, in red and wider, with the difference on hover', async () => {
    const differing = await replay.page.$$eval('[data-tick][data-differs="true"]', (lines) =>
      lines.map((line) => {
        const style = line.ownerDocument.defaultView?.getComputedStyle(line);
        return { label: line.getAttribute('data-tick'), stroke: style?.stroke, width: style?.strokeWidth, title: line.querySelector('title')?.textContent ?? '' };
      }),
    );
    assert.deepEqual(
      differing.map(({ label, stroke, width }) => [label, stroke, width]),
      [[`pass ${String(editedPass)}`, 'rgb(222, 45, 38)', '3px']],
    );
    assert.match(differing[0]?.title ?? '', /\nreplay: DIFFERENT \(\d+ actions recorded, \d+ replayed\)\naction \d+ message: recorded "InOrder: messagequeue Ready 0\/1 \(an older planner\)", replayed "InOrder: messagequeue Ready 1\/1"\n/);
    const others = await replay.page.$$eval('[data-tick]:not([data-differs])', (lines) => lines.map((line) => line.ownerDocument.defaultView?.getComputedStyle(line).stroke));
    assert.equal(others.length, passes - 1);
    assert.ok(others.every((stroke) => stroke === 'rgb(85, 85, 85)'), others.join(', '));
    assert.match(await replay.page.$eval('h1', (heading) => heading.textContent ?? ''), new RegExp(`^lineup replay local/default/${NAME}$`));
  });

  it('keeps a screenshot of each page for a person to look at', async () => {
    for (const [opened, name] of [
      [history, 'history-story2.png'],
      [replay, 'replay-story2-differs.png'],
    ] as const) {
      const file = artifactPath(name);
      // Headless Chromium captures only the tab in front: a screenshot of a tab behind another waits for ever.
      await opened.page.bringToFront();
      await opened.page.screenshot({ path: file, fullPage: true });
      assert.ok(file.endsWith('.png'));
    }
  });
});
