/**
 * The drawn journal in a real browser. Story 2 recorded by `lineup demo --state-dir`, drawn by
 * `lineup history --output html` and, one pass's recorded reason edited, `lineup replay --output
 * html`; and a JobSet that failed after one restart, recorded by the real reconciler over the
 * simulated cluster, drawn as history and as a replay by a planner that words every resume
 * otherwise. Each page must load with no console error and no request beyond itself; at
 * 1400×900, without hover, the failure, the restart and every pass's reason must be in the
 * viewport as drawn text, every differing pass of a replay visible, and no label overflow its
 * box. Screenshots are kept in test-artifacts/.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { artifactPath, startBrowser } from '../harness/browser.ts';
import { failurePages, NAME, story2Pages, type FailurePages, type Story2Pages } from './pages.ts';

const VIEWPORT = { width: 1400, height: 900 };

/** PageUnderTest: a page opened in the browser, with what it complained about and what it fetched. */
interface PageUnderTest {
  readonly page: Page;
  readonly url: string;
  readonly problems: string[];
  readonly requests: string[];
}

/** Box: an element's bounding box in the viewport. */
interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

const inViewport = (box: Box): boolean => box.width > 0 && box.height > 0 && box.x >= 0 && box.y >= 0 && box.x + box.width <= VIEWPORT.width && box.y + box.height <= VIEWPORT.height;

/** boxesOf: the bounding boxes of what `selector` selects, with their visible text. */
const boxesOf = (page: Page, selector: string): Promise<(Box & { text: string })[]> =>
  page.$$eval(selector, (elements) =>
    elements.map((element) => {
      const box = element.getBoundingClientRect();
      // innerText is what is drawn (no <title>); SVG elements have none, their textContent is drawn.
      const drawn = 'innerText' in element && typeof element.innerText === 'string' ? element.innerText : (element.textContent ?? '');
      return { x: box.x, y: box.y, width: box.width, height: box.height, text: drawn };
    }),
  );

/**
 * overflows: every drawn label that leaves its box: SVG text outside its SVG, two labels of the
 * timeline that overlap, a table cell whose content is wider than the cell, a page wider than the window.
 */
const overflows = async (page: Page): Promise<string[]> => {
  // Run in the page as text: the tests are compiled without the DOM's types.
  const found = await page.evaluate(`(() => {
    const found = [];
    for (const svg of document.querySelectorAll('svg')) {
      const frame = svg.getBoundingClientRect();
      const labels = [...svg.querySelectorAll('text')].map((text) => ({ text: text.textContent ?? '', kind: text.getAttribute('data-label') ?? '', box: text.getBoundingClientRect() }));
      for (const { text, box } of labels) {
        if (box.width === 0) continue;
        if (box.left < frame.left - 0.5 || box.right > frame.right + 0.5 || box.top < frame.top - 0.5 || box.bottom > frame.bottom + 0.5) found.push('"' + text + '" leaves its drawing');
      }
      // Labels placed beside markers and ticks must not overlap each other.
      const placed = labels.filter(({ kind, box }) => (kind === 'marker' || kind === 'tick' || kind === 'replayed') && box.width > 0);
      for (let i = 0; i < placed.length; i += 1) {
        for (let j = i + 1; j < placed.length; j += 1) {
          const a = placed[i].box;
          const b = placed[j].box;
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) found.push('"' + placed[i].text + '" overlaps "' + placed[j].text + '"');
        }
      }
    }
    for (const cell of document.querySelectorAll('td, th')) if (cell.scrollWidth > cell.clientWidth + 1) found.push('cell "' + (cell.textContent ?? '').slice(0, 40) + '" overflows');
    if (document.documentElement.scrollWidth > window.innerWidth) found.push('the page is ' + document.documentElement.scrollWidth + ' px wide');
    return found;
  })()`);
  return found as string[];
};

describe('history and replay pages in Chromium', () => {
  let browser: Browser;
  let scratch = '';
  let story2: Story2Pages;
  let failure: FailurePages;
  const opened = new Map<string, PageUnderTest>();

  const open = async (name: string, html: string): Promise<PageUnderTest> => {
    const file = join(scratch, `${name}.html`);
    writeFileSync(file, html);
    const page = await browser.newPage();
    await page.setViewport(VIEWPORT);
    const under: PageUnderTest = { page, url: pathToFileURL(file).href, problems: [], requests: [] };
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warn') under.problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => under.problems.push(`page error: ${String(error)}`));
    page.on('request', (request) => under.requests.push(request.url()));
    await page.goto(under.url, { waitUntil: 'load' });
    opened.set(name, under);
    return under;
  };
  const pageOf = (name: string): Page => {
    const under = opened.get(name);
    assert.ok(under, `no page ${name}`);
    return under.page;
  };

  before(async () => {
    // Prepare: story 2's journal as the demo keeps it and an edited recording of it; a JobSet that failed after one restart.
    scratch = mkdtempSync(join(tmpdir(), 'lineup-recording-html-'));
    story2 = story2Pages();
    failure = await failurePages();
    browser = await startBrowser();
    // Act
    await open('history', story2.history);
    await open('replay', story2.replay);
    await open('failure-history', failure.history);
    await open('failure-replay', failure.replay);
    await open('replay-all', failure.all);
  });

  after(async () => {
    await browser?.close();
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  it('every page loads with no console error and fetches nothing but itself', () => {
    for (const under of opened.values()) {
      assert.deepEqual(under.problems, [], under.url);
      assert.deepEqual(under.requests, [under.url]);
    }
  });

  it('the history page holds a lane per replicatedJob with its Jobs from the recorded inputs, in spec order', async () => {
    const history = pageOf('history');
    const lanes = await history.$$eval('[data-lane]', (elements) => elements.map((lane) => [lane.getAttribute('data-lane'), lane.querySelectorAll('[data-job]').length]));
    assert.deepEqual(lanes, [
      ['messagequeue', 1],
      ['driver', 2],
      ['worker', 2],
    ]);
    const driverStates = await history.$$eval('[data-job$="-driver-0"] rect', (rects) => rects.map((rect) => rect.getAttribute('data-state')));
    assert.deepEqual(driverStates, ['suspended', 'running', 'ready', 'succeeded']);
  });

  it('the history page marks each gate on its lane, labelled with its reason code and message, drawn', async () => {
    const gates = await pageOf('history').$$eval('[data-marker="gate"]', (markers) =>
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

  it('the history page draws every pass: ticks numbered or counted ×N add up to the passes, each pass a table row with its reason and actions in plain text', async () => {
    const history = pageOf('history');
    const counts = await history.$$eval('[data-tick]', (groups) => groups.map((group) => Number(group.getAttribute('data-count'))));
    assert.equal(counts.reduce((sum, count) => sum + count, 0), story2.passes);
    const rows = await boxesOf(history, '[data-pass-row]');
    assert.equal(rows.length, story2.passes);
    assert.match(rows[0]?.text ?? '', /created 5 jobs \(4 suspended\)[^]*CreateJob ×4 driver-0, driver-1, worker-0, worker-1 StartupRuleHeld: InOrder: waiting for messagequeue to be Ready: 0\/1 jobs ready/);
  });

  it('the replay page draws the recorded and the replayed passes one row above the other, the one that differs marked ≠ and its row in the table highlighted with the difference', async () => {
    const replay = pageOf('replay');
    const differing = await replay.$$eval('[data-replayed="different"]', (groups) =>
      groups.map((group) => {
        const path = group.querySelector('path');
        return { passes: group.getAttribute('data-passes'), label: group.querySelector('text')?.textContent ?? '', fill: path === null ? '' : (group.ownerDocument.defaultView?.getComputedStyle(path).fill ?? '') };
      }),
    );
    assert.equal(differing.length, 1);
    assert.ok(differing[0]?.passes?.split(' ').includes(String(story2.editedPass)), JSON.stringify(differing));
    assert.match(differing[0]?.label ?? '', /^≠/);
    assert.equal(differing[0]?.fill, 'rgb(208, 28, 139)');
    const rows = await boxesOf(replay, '[data-pass-row][data-outcome="different"]');
    assert.equal(rows.length, 1);
    assert.match(rows[0]?.text ?? '', /ResumeJob driver-0: message recorded "InOrder: messagequeue Ready 0\/1 \(an older planner\)", replayed "InOrder: messagequeue Ready 1\/1"/);
    const rowOf = await replay.$eval('[data-outcome="different"]', (row) => row.getAttribute('data-pass-row'));
    assert.equal(rowOf, String(story2.editedPass));
    assert.equal(await replay.$$eval('[data-pass-row][data-outcome="same"]', (rows) => rows.length), story2.passes - 1);
    assert.match(await replay.$eval('h1', (heading) => heading.textContent ?? ''), new RegExp(`^lineup replay local/default/${NAME}$`));
  });

  it('a JobSet that failed after one restart, at 1400×900: the failure, the restart with its attempt, and every pass\'s reason are in view without hover', async () => {
    const history = pageOf('failure-history');
    const failed = await boxesOf(history, '[data-job$="-worker-0"] rect[data-state="failed"]');
    assert.equal(failed.length, 2, 'the workers fail in both attempts');
    for (const box of failed) assert.ok(inViewport(box) && box.width >= 8, `a failed segment is not in view or too thin: ${JSON.stringify(box)}`);
    const failedLabel = await boxesOf(history, '[data-marker="failed"] text');
    assert.equal(failedLabel.length, 1);
    assert.ok(inViewport(failedLabel[0] as Box), JSON.stringify(failedLabel));
    assert.equal(failedLabel[0]?.text, '✕ Failed: ReachedMaxRestarts');
    const restart = await boxesOf(history, '[data-marker="restart"][data-attempt="1"] text');
    assert.equal(restart.length, 1);
    assert.ok(inViewport(restart[0] as Box), JSON.stringify(restart));
    assert.equal(restart[0]?.text, '↻ restart, attempt 1');
    // Every reason as drawn text (a table cell, not a tooltip's <title>), in the viewport.
    const reasons = await boxesOf(history, '[data-pass-row] [data-part="reason"]');
    // Each pass's reason, but a "nothing to do" pass that wrote something says what it wrote.
    assert.equal(reasons.length, failure.recording.passes.length);
    failure.recording.passes.forEach((pass, index) => {
      const shown = reasons[index]?.text ?? '';
      if (pass.reason.startsWith('nothing to do') && pass.actions.length > 0) assert.match(shown, /^wrote status: StartupPolicyCompleted=True$/, `pass ${index + 1}`);
      else assert.equal(shown, pass.reason, `pass ${index + 1}`);
    });
    for (const reason of reasons) assert.ok(inViewport(reason), `the reason "${reason.text}" is not in view: ${JSON.stringify(reason)}`);
  });

  it('every differing pass of a replay is visible: marked on the replayed row in view, and its table row drawn with its difference lines', async () => {
    const replay = pageOf('failure-replay');
    const marked = await replay.$$eval('[data-replayed="different"]', (groups) =>
      groups.map((group) => {
        const box = group.querySelector('path')?.getBoundingClientRect() ?? { x: 0, y: 0, width: 0, height: 0 };
        return { passes: (group.getAttribute('data-passes') ?? '').split(' ').map(Number), differing: Number(group.getAttribute('data-differs-count')), x: box.x, y: box.y, width: box.width, height: box.height };
      }),
    );
    assert.deepEqual(marked.flatMap((group) => group.passes).filter((pass) => failure.differing.includes(pass)), [...failure.differing]);
    assert.equal(marked.reduce((sum, group) => sum + group.differing, 0), failure.differing.length);
    for (const group of marked) assert.ok(inViewport(group), JSON.stringify(group));
    const rows = await boxesOf(replay, '[data-pass-row][data-outcome="different"]');
    assert.deepEqual(rows.length, failure.differing.length);
    for (const row of rows) {
      assert.ok(row.width > 0 && row.height > 0, JSON.stringify(row));
      assert.match(row.text, /≠ ResumeJob ×2 [^\n]*\(variant\)/);
      assert.match(row.text, /message recorded "InOrder: [^"]+", replayed "InOrder: [^"]+ \(variant\)"/);
    }
  });

  it('the replay of several JobSets opens with a summary, the one that differs first, linking to its section', async () => {
    const all = pageOf('replay-all');
    const summary = await all.$$eval('[data-summary-row]', (rows) => rows.map((row) => [row.getAttribute('data-outcome'), row.querySelector('a')?.getAttribute('href') ?? '']));
    assert.deepEqual(summary.map(([outcome]) => outcome), ['different', 'same']);
    for (const [, href] of summary) assert.equal(await all.$$eval(href ?? '', (targets) => targets.length), 1, `no section ${String(href)}`);
  });

  it('no label overflows its box on any page', async () => {
    for (const [name, under] of opened) assert.deepEqual(await overflows(under.page), [], name);
  });

  it('keeps a screenshot of each page for a person to look at', async () => {
    for (const [name, under] of opened) {
      const file = artifactPath(`${name}.png`);
      // Headless Chromium captures only the tab in front: a screenshot of a tab behind another waits for ever.
      await under.page.bringToFront();
      await under.page.screenshot({ path: file, fullPage: true });
      assert.ok(file.endsWith('.png'));
    }
  });
});
