import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TimelineDrawing } from '../../lib/render/drawing.ts';
import { escapeHtml, renderTimelineHtml } from '../../lib/render/timelineHtml.ts';

const DRAWING: TimelineDrawing = {
  title: 'lineup simulate default/js',
  subtitle: 'Completed after 10s',
  endAt: 10_000,
  lanes: [
    { replicatedJob: 'driver', jobs: [{ name: 'js-driver-0', label: 'driver-0', segments: [{ from: 0, to: 10_000, state: 'ready' }] }] },
    {
      replicatedJob: 'workers',
      jobs: [
        { name: 'js-workers-0', label: 'workers-0', segments: [{ from: 0, to: 2000, state: 'suspended' }, { from: 2000, to: 10_000, state: 'running' }] },
        { name: 'js-workers-1', label: 'workers-1', segments: [{ from: 0, to: 2000, state: 'suspended' }, { from: 2000, to: 5000, state: 'failed' }] },
      ],
    },
  ],
  markers: [
    { at: 2000, kind: 'gate', lane: 'workers', label: 'workers starts', detail: 'driver Ready 1/1' },
    { at: 9000, kind: 'condition', label: 'Completed=True', detail: 'Completed' },
  ],
  ticks: [
    { at: 0, label: 'pass 1', detail: 'created', differs: false },
    { at: 2000, label: 'pass 2', detail: 'resumed workers', differs: true },
  ],
};

describe('timelineHtml', () => {
  it('escapes every character that could end text or an attribute', () => {
    assert.equal(escapeHtml(`<script>alert("x") & 'y'</script>`), '&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;');
  });

  it('draws a lane per replicatedJob, a row per Job, a rectangle per segment, the markers and the passes', () => {
    const html = renderTimelineHtml(DRAWING);
    assert.deepEqual([...html.matchAll(/data-lane="([^"]+)"/g)].map((m) => m[1]), ['driver', 'workers']);
    assert.deepEqual([...html.matchAll(/data-job="([^"]+)"/g)].map((m) => m[1]), ['js-driver-0', 'js-workers-0', 'js-workers-1']);
    assert.deepEqual([...html.matchAll(/data-state="([^"]+)"/g)].map((m) => m[1]), ['ready', 'suspended', 'running', 'suspended', 'failed']);
    assert.deepEqual([...html.matchAll(/data-marker="([^"]+)"/g)].map((m) => m[1]), ['gate', 'condition']);
    assert.match(html, /data-marker-lane="workers"/);
    assert.equal([...html.matchAll(/data-tick=/g)].length, 2);
    assert.equal([...html.matchAll(/data-differs="true"/g)].length, 1);
    assert.match(html, /<title>driver Ready 1\/1<\/title>/);
  });

  it('places time proportionally when no startup is known: a segment from 2 s to 10 s of 10 s spans the last 80% of the plot', () => {
    const html = renderTimelineHtml(DRAWING);
    const suspended = /<rect data-state="suspended" x="([\d.]+)" y="\d+" width="([\d.]+)"/.exec(html);
    const running = /<rect data-state="running" x="([\d.]+)" y="\d+" width="([\d.]+)"/.exec(html);
    assert.ok(running && suspended, 'no running or suspended segment');
    const [, left] = suspended.map(Number);
    const [, x, width] = running.map(Number);
    assert.ok(Math.abs((width ?? 0) / ((width ?? 0) + ((x ?? 0) - (left ?? 0))) - 0.8) < 0.001, `x ${String(x)} width ${String(width)}`);
    assert.doesNotMatch(html, /data-part="axis-break"/);
  });

  it('breaks the axis after a short startup: the startup drawn wide, the rest compressed after a break', () => {
    const html = renderTimelineHtml({ ...DRAWING, endAt: 100_000, startupEnd: 2000 });
    assert.match(html, /data-part="axis-break" data-break-at="2300"/);
    const suspended = /<rect data-state="suspended" x="([\d.]+)" y="\d+" width="([\d.]+)"/.exec(html);
    // 2 s of 100 s would be 2% of the plot; zoomed, it is most of it.
    assert.ok(Number(suspended?.[2]) > 600, `the startup is ${String(suspended?.[2])} px wide`);
  });

  it('draws a failed segment at least 10 px wide, however short, with a cross as well as its colour', () => {
    const html = renderTimelineHtml({
      ...DRAWING,
      endAt: 3_600_000,
      lanes: [{ replicatedJob: 'w', jobs: [{ name: 'js-w-0', label: 'w-0', segments: [{ from: 0, to: 3_599_999, state: 'ready' }, { from: 3_599_999, to: 3_600_000, state: 'failed' }] }] }],
    });
    const failed = /<rect data-state="failed" x="[\d.]+" y="\d+" width="([\d.]+)"/.exec(html);
    assert.equal(Number(failed?.[1]), 10);
    assert.match(html, /data-part="failed-glyph">✕</);
  });

  it('groups passes within a few pixels into one tick counted ×N, still counting those that differ', () => {
    const ticks = [0, 1, 2, 3].map((at, index) => ({ at, label: `pass ${String(index + 1)}`, pass: index + 1, detail: `pass ${String(index + 1)}`, differs: index !== 1, outcome: index !== 1 ? ('different' as const) : ('same' as const) }));
    const html = renderTimelineHtml({ ...DRAWING, ticks: [...ticks, { at: 9000, label: 'pass 5', pass: 5, detail: 'later', differs: false, outcome: 'same' }] });
    assert.match(html, /<g data-tick="passes 1, 2, 3, 4" data-passes="1 2 3 4" data-count="4">.*>×4<\/text>/);
    assert.match(html, /<g data-replayed="different" data-passes="1 2 3 4" data-differs-count="3" data-differs="true">.*>≠3<\/text>/);
    assert.match(html, /<g data-tick="pass 5" data-passes="5" data-count="1">.*>5<\/text>/);
  });

  it('marks restarts with their attempt, a failure and a rejection, each with its own glyph and label', () => {
    const html = renderTimelineHtml({
      ...DRAWING,
      markers: [
        { at: 3000, kind: 'restart', attempt: 1, label: 'restart, attempt 1', detail: 'r' },
        { at: 6000, kind: 'failed', label: 'Failed: ReachedMaxRestarts', detail: 'f' },
        { at: 8000, kind: 'rejected', label: 'Rejected', detail: 'x' },
      ],
    });
    assert.match(html, /<g data-marker="restart" data-attempt="1">.*>↻ restart, attempt 1<\/text>/);
    assert.match(html, /<g data-marker="failed">.*>✕ Failed: ReachedMaxRestarts<\/text>/);
    assert.match(html, /<g data-marker="rejected">.*>⊘ Rejected<\/text>/);
  });

  it('lists each pass in a table: number, time, trigger, reason and grouped actions, in plain text', () => {
    const html = renderTimelineHtml({
      ...DRAWING,
      passes: [
        { pass: 1, at: 0, time: '0s', trigger: 'JobSet rv 1 ADDED', reason: 'created 2 jobs', actions: [{ kind: 'CreateJob', count: 2, targets: 'workers-0, workers-1', why: 'StartupRuleHeld: waiting' }] },
        {
          pass: 2,
          at: 2000,
          time: '2s',
          reason: 'resumed workers',
          actions: [{ kind: 'ResumeJob', count: 1, targets: 'workers-0', why: 'GateOpened', differs: true }],
          replay: { outcome: 'different', actions: [{ kind: 'ResumeJob', count: 1, targets: 'workers-1', why: 'GateOpened', differs: true }], lines: ['ResumeJob workers-1: only in the replay'] },
        },
      ],
    });
    assert.match(html, /<tr id="jobset-default-js-pass-1" data-pass-row="1"><td class="num">1<\/td><td class="time">0s<\/td><td class="trigger" data-part="trigger">JobSet rv 1 ADDED<\/td><td class="reason" data-part="reason">created 2 jobs<\/td>/);
    assert.match(html, /<b>CreateJob ×2<\/b> workers-0, workers-1 <span class="why">StartupRuleHeld: waiting<\/span>/);
    assert.match(html, /<tr id="jobset-default-js-pass-2" data-pass-row="2" data-outcome="different" class="differs">/);
    assert.match(html, /<ul class="differences" data-part="differences"><li>ResumeJob workers-1: only in the replay<\/li><\/ul>/);
    assert.match(html, /<a href="#jobset-default-js-pass-2">/);
  });

  it('is self-contained: no script, no fetched resource (links are in-page anchors only)', () => {
    const html = renderTimelineHtml({ ...DRAWING, title: '<script src="https://cdn.example/x.js"></script>' });
    assert.doesNotMatch(html, /<script|\s(src|href)="(?!#)|url\((?!#)|@import/);
  });
});

describe('timelineHtml: several drawings', () => {
  it('draws each drawing in a section of one page, and names highlighted passes in the legend only when a pass differs', () => {
    const same = { ...DRAWING, title: 'lineup replay c/ns/a', ticks: DRAWING.ticks.map((tick) => ({ ...tick, differs: false })) };
    const html = renderTimelineHtml([same, { ...DRAWING, title: 'lineup replay c/ns/b' }], 'lineup replay');
    assert.deepEqual([...html.matchAll(/<section id="[^"]+" data-drawing="([^"]+)"/g)].map((m) => m[1]), ['lineup replay c/ns/a', 'lineup replay c/ns/b']);
    assert.match(html, /<title>lineup replay<\/title>/);
    assert.equal([...html.matchAll(/pass a replay decides differently/g)].length, 1);
    assert.equal([...renderTimelineHtml(same).matchAll(/pass a replay decides differently/g)].length, 0);
  });
});

describe('timelineHtml: a replay of several JobSets', () => {
  it('opens with a summary, the JobSets that differ first, each linking to its section and its first divergence', () => {
    const replayOf = (name: string, different: number) => ({
      ...DRAWING,
      title: `lineup replay c/ns/${name}`,
      replay: { jobSet: `c/ns/${name}`, passes: 5, same: 5 - different, different, unreplayable: 0, ...(different > 0 ? { firstDivergence: 2 } : {}) },
    });
    const html = renderTimelineHtml([replayOf('a', 0), replayOf('b', 2)], 'lineup replay');
    assert.match(html, /<h1>lineup replay: 2 JobSets, 10 passes: 8 same, 2 different, 0 unreplayable<\/h1>/);
    assert.deepEqual([...html.matchAll(/data-summary-row="([^"]+)" data-outcome="(\w+)"/g)].map((m) => [m[1], m[2]]), [
      ['c/ns/b', 'different'],
      ['c/ns/a', 'same'],
    ]);
    assert.match(html, /<a href="#jobset-c-ns-b">c\/ns\/b<\/a>.*<a href="#jobset-c-ns-b-pass-2">pass 2<\/a>/);
    assert.match(html, /<section id="jobset-c-ns-b" /);
    assert.doesNotMatch(renderTimelineHtml(replayOf('a', 0)), /data-part="summary"/);
  });
});
