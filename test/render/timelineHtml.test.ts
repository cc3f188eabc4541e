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

  it('places time proportionally: a segment from 2 s to 10 s of 10 s spans the last 80% of the plot', () => {
    const html = renderTimelineHtml(DRAWING);
    const running = /<rect data-state="running" x="([\d.]+)" y="\d+" width="([\d.]+)"/.exec(html);
    assert.ok(running, 'no running segment');
    const [, x, width] = running.map(Number);
    assert.ok(Math.abs((width ?? 0) / ((width ?? 0) + ((x ?? 0) - 260)) - 0.8) < 0.001, `x ${String(x)} width ${String(width)}`);
  });

  it('is self-contained: no script, no fetched resource', () => {
    const html = renderTimelineHtml({ ...DRAWING, title: '<script src="https://cdn.example/x.js"></script>' });
    assert.doesNotMatch(html, /<script|\s(src|href)="|url\(|@import/);
  });
});

describe('timelineHtml: several drawings', () => {
  it('draws each drawing in a section of one page, and names highlighted passes in the legend only when a pass differs', () => {
    const same = { ...DRAWING, title: 'lineup replay c/ns/a', ticks: DRAWING.ticks.map((tick) => ({ ...tick, differs: false })) };
    const html = renderTimelineHtml([same, { ...DRAWING, title: 'lineup replay c/ns/b' }], 'lineup replay');
    assert.deepEqual([...html.matchAll(/<section data-drawing="([^"]+)"/g)].map((m) => m[1]), ['lineup replay c/ns/a', 'lineup replay c/ns/b']);
    assert.match(html, /<title>lineup replay<\/title>/);
    assert.equal([...html.matchAll(/pass a replay decides differently/g)].length, 1);
    assert.equal([...renderTimelineHtml(same).matchAll(/pass a replay decides differently/g)].length, 0);
  });
});
