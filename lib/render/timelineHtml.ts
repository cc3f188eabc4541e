/**
 * timelineHtml: a TimelineDrawing as one self-contained HTML page — inline CSS and SVG, no
 * script, no fonts or images fetched from anywhere — so it opens offline, attaches to a ticket
 * and shows the same everywhere. Details appear on hover through SVG <title> elements. Every
 * drawn part carries a data- attribute naming what it is, for tests and for people's tools.
 */
import { formatDuration } from '../sim/duration.ts';
import { JOB_STATES, type JobState, type Marker, type TimelineDrawing } from './drawing.ts';

const LABEL_WIDTH = 260;
const PLOT_WIDTH = 960;
const RIGHT_MARGIN = 40;
const ROW_HEIGHT = 14;
const ROW_GAP = 3;
const LANE_HEADER = 22;
const LANE_GAP = 10;
const PASS_ROW = 26;
const AXIS_HEIGHT = 28;
const TARGET_AXIS_TICKS = 8;

/** STATE_COLOURS: one colour per Job state, readable by people with the common colour-vision deficiencies. */
const STATE_COLOURS: Record<JobState, string> = {
  suspended: '#c8c8c8',
  running: '#6baed6',
  ready: '#2171b5',
  succeeded: '#31a354',
  failed: '#de2d26',
};

const MARKER_COLOURS: Record<Marker['kind'], string> = { gate: '#e6550d', condition: '#756bb1', rejected: '#de2d26' };

/** escapeHtml: text made safe for HTML and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

/** niceStep: a round axis step (1, 2 or 5 × 10^n ms) that gives about TARGET_AXIS_TICKS ticks. */
const niceStep = (span: number): number => {
  const raw = Math.max(span / TARGET_AXIS_TICKS, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].map((factor) => factor * power).find((step) => step >= raw) ?? 10 * power);
};

/** timelineSection: one drawing as a heading, its subtitle, the legend and the SVG. */
const timelineSection = (drawing: TimelineDrawing): string => {
  const endAt = Math.max(drawing.endAt, 1);
  const x = (at: number): number => LABEL_WIDTH + (Math.min(Math.max(at, 0), endAt) / endAt) * PLOT_WIDTH;
  const parts: string[] = [];
  let y = 0;

  // Reconcile passes: a row of ticks on top.
  parts.push(`<g data-part="passes"><text x="8" y="${String(y + 17)}" class="lane-label">reconcile passes</text>`);
  for (const tick of drawing.ticks) {
    const tx = x(tick.at).toFixed(1);
    parts.push(
      `<line data-tick="${escapeHtml(tick.label)}"${tick.differs ? ' data-differs="true"' : ''} x1="${tx}" x2="${tx}" y1="${String(y + 4)}" y2="${String(y + PASS_ROW - 4)}" class="tick${tick.differs ? ' differs' : ''}"><title>${escapeHtml(tick.detail)}</title></line>`,
    );
  }
  parts.push('</g>');
  y += PASS_ROW;

  // A lane per replicatedJob: a header, then a row per Job.
  const laneTop = new Map<string, { top: number; bottom: number }>();
  for (const lane of drawing.lanes) {
    const top = y;
    parts.push(`<g data-lane="${escapeHtml(lane.replicatedJob)}"><text x="8" y="${String(y + 15)}" class="lane-label">${escapeHtml(lane.replicatedJob)}</text>`);
    y += LANE_HEADER;
    for (const job of lane.jobs) {
      parts.push(`<g data-job="${escapeHtml(job.name)}"><text x="20" y="${String(y + ROW_HEIGHT - 3)}" class="job-label">${escapeHtml(job.label)}</text>`);
      for (const segment of job.segments) {
        const from = x(segment.from);
        const width = Math.max(x(segment.to) - from, 1.5);
        parts.push(
          `<rect data-state="${segment.state}" x="${from.toFixed(1)}" y="${String(y)}" width="${width.toFixed(1)}" height="${String(ROW_HEIGHT)}" fill="${STATE_COLOURS[segment.state]}"><title>${escapeHtml(`${job.name}: ${segment.state} from ${formatDuration(segment.from)} to ${formatDuration(segment.to)}`)}</title></rect>`,
        );
      }
      parts.push('</g>');
      y += ROW_HEIGHT + ROW_GAP;
    }
    parts.push('</g>');
    laneTop.set(lane.replicatedJob, { top, bottom: y });
    y += LANE_GAP;
  }
  const plotBottom = y;

  // Markers: gates within their lane, conditions across the whole plot.
  for (const marker of drawing.markers) {
    const span = marker.lane === undefined ? undefined : laneTop.get(marker.lane);
    const mx = x(marker.at).toFixed(1);
    // Condition markers start below the passes' row so that they hide no tick.
    const y1 = span?.top ?? PASS_ROW;
    const y2 = span?.bottom ?? plotBottom;
    const colour = MARKER_COLOURS[marker.kind];
    const labelY = span ? span.top + 15 : PASS_ROW - 2;
    parts.push(
      `<g data-marker="${marker.kind}"${marker.lane === undefined ? '' : ` data-marker-lane="${escapeHtml(marker.lane)}"`}>` +
        `<line x1="${mx}" x2="${mx}" y1="${String(y1)}" y2="${String(y2)}" stroke="${colour}" class="marker ${marker.kind}"/>` +
        (marker.kind === 'condition' ? '' : `<text x="${(Number(mx) + 4).toFixed(1)}" y="${String(labelY)}" fill="${colour}" class="marker-label">${escapeHtml(marker.label)}</text>`) +
        `<circle cx="${mx}" cy="${String(y1 + 4)}" r="4" fill="${colour}"/>` +
        `<title>${escapeHtml(marker.detail)}</title></g>`,
    );
  }

  // The time axis.
  const step = niceStep(endAt);
  parts.push(`<g data-part="axis"><line x1="${String(LABEL_WIDTH)}" x2="${String(LABEL_WIDTH + PLOT_WIDTH)}" y1="${String(plotBottom + 4)}" y2="${String(plotBottom + 4)}" class="axis"/>`);
  for (let at = 0; at <= endAt; at += step) {
    const ax = x(at).toFixed(1);
    parts.push(`<line x1="${ax}" x2="${ax}" y1="${String(plotBottom + 4)}" y2="${String(plotBottom + 9)}" class="axis"/><text x="${ax}" y="${String(plotBottom + 21)}" class="axis-label">${escapeHtml(formatDuration(at))}</text>`);
  }
  parts.push('</g>');

  const height = plotBottom + AXIS_HEIGHT;
  const width = LABEL_WIDTH + PLOT_WIDTH + RIGHT_MARGIN;
  const legend = JOB_STATES.map((state) => `<span class="swatch" style="background:${STATE_COLOURS[state]}"></span>${state}`).join(' ');
  const markerLegend = (Object.keys(MARKER_COLOURS) as Marker['kind'][])
    .map((kind) => `<span class="swatch" style="background:${MARKER_COLOURS[kind]}"></span>${kind === 'gate' ? 'gate opened' : kind === 'condition' ? 'condition changed' : 'rejected'}`)
    .join(' ');
  return `<section data-drawing="${escapeHtml(drawing.title)}">
<h1>${escapeHtml(drawing.title)}</h1>
<p>${escapeHtml(drawing.subtitle)}</p>
<div class="legend">${legend} ${markerLegend} <span class="swatch" style="background:#555"></span>reconcile pass${drawing.ticks.some((tick) => tick.differs) ? ' <span class="swatch" style="background:#de2d26"></span>pass a replay decides differently' : ''}</div>
<svg xmlns="http://www.w3.org/2000/svg" width="${String(width)}" height="${String(height)}" viewBox="0 0 ${String(width)} ${String(height)}" role="img" aria-label="${escapeHtml(drawing.title)}">
${parts.join('\n')}
</svg>
</section>`;
};

/** renderTimelineHtml: the page for `drawing`, or for several (`lineup replay --all`) one below the other. */
export const renderTimelineHtml = (drawing: TimelineDrawing | readonly TimelineDrawing[], pageTitle?: string): string => {
  const drawings: readonly TimelineDrawing[] = 'lanes' in drawing ? [drawing] : drawing;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(pageTitle ?? drawings[0]?.title ?? 'lineup')}</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
section { margin-bottom: 24px; }
h1 { font-size: 16px; margin: 0 0 2px; }
p { margin: 0 0 8px; color: #555; }
.legend { margin-bottom: 8px; }
.swatch { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 10px; vertical-align: -2px; }
.lane-label { font-weight: 600; font-size: 12px; }
.job-label { font-size: 11px; fill: #444; }
.tick { stroke: #555; stroke-width: 1.5; }
.tick.differs { stroke: #de2d26; stroke-width: 3; }
.marker { stroke-width: 1.5; }
.marker.condition { stroke-dasharray: 3 3; }
.marker-label { font-size: 11px; }
.axis { stroke: #888; }
.axis-label { font-size: 11px; fill: #555; text-anchor: middle; }
</style>
</head>
<body>
${drawings.map(timelineSection).join('\n')}
</body>
</html>
`;
};
