/**
 * timelineHtml: a TimelineDrawing as one self-contained HTML page — inline CSS and SVG, no
 * script, no fonts or images fetched from anywhere — so it opens offline, attaches to a ticket
 * and shows the same everywhere. What a reader needs is drawn as text, not left to hover: the
 * passes are numbered on the timeline and listed in a table with their trigger, reason and
 * actions (and, in a replay, what today's planner did instead), gates, restarts, failures and
 * rejections are labelled where they happen, so a screenshot of the page tells the story. SVG
 * <title> elements still hold the long form on hover. Every drawn part carries a data- attribute
 * naming what it is, for tests and for people's tools.
 */
import { formatDuration } from '../duration.ts';
import {
  JOB_STATES,
  type ActionLine,
  type JobState,
  type Marker,
  type MarkerKind,
  type PassRow,
  type ReplaySummary,
  type Tick,
  type TimelineDrawing,
} from './drawing.ts';
import { axisTicks, focusWindow, groupByPosition, placeLabels, textWidth, timeScale, type PlacedLabel, type TickGroup, type TimeScale } from './layout.ts';

/** PAGE_WIDTH: the drawing's width: a 1400-pixel window less the page margins, so nothing needs a scroll bar. */
const PAGE_WIDTH = 1360;
const RIGHT_MARGIN = 26;
const MIN_LABEL_COLUMN = 130;
const MAX_LABEL_COLUMN = 280;
const ROW_HEIGHT = 14;
const ROW_GAP = 3;
const LANE_HEADER = 20;
const LANE_GAP = 6;
const PASS_ROW = 28;
const EVENT_ROW = 20;
const AXIS_HEIGHT = 28;
const LABEL_FONT = 11;
const TICK_FONT = 10;
/** A failed segment is at least this wide, whatever the zoom: a failure at the end of a run is otherwise a hairline. */
const FAILED_MIN_PX = 10;

/** STATE_COLOURS: one colour per Job state, readable by people with the common colour-vision deficiencies. */
const STATE_COLOURS: Record<JobState, string> = {
  suspended: '#c8c8c8',
  running: '#6baed6',
  ready: '#2171b5',
  succeeded: '#31a354',
  failed: '#d62728',
};

/**
 * MEANINGS: a colour and a glyph per thing that went wrong or stands out, so failed, rejected and
 * differs are told apart by shape and word as well as by colour (one red for all three read as
 * one meaning, and not at all for a reader who cannot tell red from green).
 */
const MEANINGS = {
  failed: { colour: '#d62728', glyph: '✕' },
  rejected: { colour: '#6a3d9a', glyph: '⊘' },
  differs: { colour: '#d01c8b', glyph: '≠' },
  restart: { colour: '#a6611a', glyph: '↻' },
  unreplayable: { colour: '#737373', glyph: '?' },
} as const;

const MARKER_COLOURS: Record<MarkerKind, string> = {
  gate: '#e6550d',
  condition: '#5e6b7a',
  restart: MEANINGS.restart.colour,
  failed: MEANINGS.failed.colour,
  rejected: MEANINGS.rejected.colour,
};

/** The JobSet-wide markers labelled in their own row above the lanes. */
const EVENT_GLYPHS: Partial<Record<MarkerKind, string>> = { restart: MEANINGS.restart.glyph, failed: MEANINGS.failed.glyph, rejected: MEANINGS.rejected.glyph };

/** escapeHtml: text made safe for HTML and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);

const num = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));

/** sectionIds: an in-page anchor per drawing, from its title, unique on the page. */
const sectionIds = (drawings: readonly TimelineDrawing[]): string[] => {
  const seen = new Map<string, number>();
  return drawings.map((drawing) => {
    const base = `jobset-${drawing.title.replace(/^lineup \S+ /, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').toLowerCase() || 'drawing'}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}-${String(count)}`;
  });
};

/** labelColumnWidth: wide enough for the longest Job or lane name, within bounds. */
const labelColumnWidth = (drawing: TimelineDrawing): number => {
  const widths = [
    textWidth(drawing.replay === undefined ? 'reconcile passes' : 'recorded passes', 12) + 16,
    ...drawing.lanes.map((lane) => textWidth(lane.replicatedJob, 12) + 16),
    ...drawing.lanes.flatMap((lane) => lane.jobs.map((job) => textWidth(job.label, LABEL_FONT) + 28)),
  ];
  return Math.min(MAX_LABEL_COLUMN, Math.max(MIN_LABEL_COLUMN, ...widths));
};

/** fitted: `text` shortened with "…" to fit `width` pixels at `fontPx`. */
const fitted = (text: string, fontPx: number, width: number): string => {
  if (textWidth(text, fontPx) <= width) return text;
  const chars = [...text];
  let keep = chars.length;
  while (keep > 1 && textWidth(`${chars.slice(0, keep).join('')}…`, fontPx) > width) keep -= 1;
  return `${chars.slice(0, keep).join('')}…`;
};

/** PassGroup: the ticks drawn as one, and what they add up to. */
interface PassGroup {
  readonly group: TickGroup<Tick>;
  readonly label: string;
  readonly passes: readonly number[];
  readonly differing: number;
  readonly unreplayable: number;
}

/** passGroups: ticks within a label's width of each other drawn as one tick, "×N". */
const passGroups = (ticks: readonly Tick[], x: (at: number) => number): PassGroup[] => {
  // A tick without its pass number is numbered by its place among the drawing's ticks.
  const numbered = ticks.map((tick, index) => ({ tick, pass: tick.pass ?? index + 1 }));
  // Close enough to group: nearer than the widest label a tick or a group can have.
  const minGap = textWidth(`×${String(Math.max(ticks.length, 10))}`, TICK_FONT) + 4;
  return groupByPosition(numbered, ({ tick }) => x(tick.at), minGap).map((group) => ({
    group: { x: group.x, members: group.members.map(({ tick }) => tick) },
    label: group.members.length === 1 ? String(group.members[0]?.pass ?? '') : `×${String(group.members.length)}`,
    passes: group.members.map(({ pass }) => pass),
    differing: group.members.filter(({ tick }) => tick.differs).length,
    unreplayable: group.members.filter(({ tick }) => tick.outcome === 'unreplayable').length,
  }));
};

/** SvgFrame: what every part of one drawing is placed by: the label column's width, time to x. */
interface SvgFrame {
  readonly id: string;
  readonly labelColumn: number;
  readonly x: (at: number) => number;
}

/** rowLabel: a row's name in the label column. */
const rowLabel = (frame: SvgFrame, text: string, rowY: number, part: string): string =>
  `<text x="8" y="${num(rowY)}" class="lane-label" data-label="${part}">${escapeHtml(fitted(text, 12, frame.labelColumn - 12))}</text>`;

/** passesRow: reconcile passes as numbered ticks, those too close to tell apart grouped and counted. */
const passesRow = (frame: SvgFrame, groups: readonly PassGroup[], y: number, isReplay: boolean): string[] => {
  const parts = [`<g data-part="passes">${rowLabel(frame, isReplay ? 'recorded passes' : 'reconcile passes', y + 22, 'passes')}`];
  for (const { group, label, passes } of groups) {
    const gx = num(group.x);
    const title = group.members.map((tick) => tick.detail).join('\n\n');
    const first = passes[0] ?? 1;
    parts.push(
      `<a href="#${frame.id}-pass-${String(first)}"><g data-tick="${escapeHtml(passes.length === 1 ? `pass ${String(first)}` : `passes ${passes.join(', ')}`)}" data-passes="${passes.join(' ')}" data-count="${String(passes.length)}">` +
        `<line x1="${gx}" x2="${gx}" y1="${num(y + 14)}" y2="${num(y + PASS_ROW - 2)}" class="tick"/>` +
        `<text x="${gx}" y="${num(y + 11)}" class="tick-label" data-label="tick">${escapeHtml(label)}</text>` +
        `<title>${escapeHtml(title)}</title></g></a>`,
    );
  }
  parts.push('</g>');
  return parts;
};

/** replayedRow: in a replay, what today's planner did at the same passes, right under them: where the rows part is where the planners do. */
const replayedRow = (frame: SvgFrame, groups: readonly PassGroup[], y: number): string[] => {
  const parts = [`<g data-part="replayed">${rowLabel(frame, 'replayed passes', y + 22, 'replayed')}`];
  for (const { group, passes, differing, unreplayable } of groups) {
    const gx = group.x;
    const first = passes[0] ?? 1;
    const outcome = differing > 0 ? 'different' : unreplayable > 0 ? 'unreplayable' : 'same';
    const title = group.members.map((tick) => tick.detail).join('\n\n');
    let shape: string;
    let label = '';
    if (outcome === 'different') {
      const cy = y + 20;
      shape = `<path d="M${num(gx)} ${num(cy - 7)} L${num(gx + 6)} ${num(cy)} L${num(gx)} ${num(cy + 7)} L${num(gx - 6)} ${num(cy)} Z" class="differs-mark"/>`;
      label = differing === 1 && passes.length === 1 ? MEANINGS.differs.glyph : `${MEANINGS.differs.glyph}${String(differing)}`;
    } else if (outcome === 'unreplayable') {
      shape = `<circle cx="${num(gx)}" cy="${num(y + 20)}" r="4" class="unreplayable-mark"/>`;
      label = MEANINGS.unreplayable.glyph;
    } else shape = `<line x1="${num(gx)}" x2="${num(gx)}" y1="${num(y + 16)}" y2="${num(y + PASS_ROW - 4)}" class="tick same"/>`;
    parts.push(
      `<a href="#${frame.id}-pass-${String(first)}"><g data-replayed="${outcome}" data-passes="${passes.join(' ')}"${differing > 0 ? ` data-differs-count="${String(differing)}" data-differs="true"` : ''}>` +
        shape +
        (label === '' ? '' : `<text x="${num(gx)}" y="${num(y + 9)}" class="tick-label ${outcome}" data-label="replayed">${escapeHtml(label)}</text>`) +
        `<title>${escapeHtml(title)}</title></g></a>`,
    );
  }
  parts.push('</g>');
  return parts;
};

/** Lanes: the lanes drawn, each lane's vertical span (its markers are drawn within it), and where they end. */
interface Lanes {
  readonly parts: string[];
  readonly laneSpan: ReadonlyMap<string, { top: number; bottom: number }>;
  readonly bottom: number;
}

/** laneRows: a lane per replicatedJob: a header (its gates' labels in it), then a row per Job. */
const laneRows = (drawing: TimelineDrawing, frame: SvgFrame, top: number): Lanes => {
  const { labelColumn, x } = frame;
  const parts: string[] = [];
  const laneSpan = new Map<string, { top: number; bottom: number }>();
  let y = top;
  for (const lane of drawing.lanes) {
    const laneTop = y;
    parts.push(`<g data-lane="${escapeHtml(lane.replicatedJob)}"><text x="8" y="${num(y + 14)}" class="lane-label" data-label="lane">${escapeHtml(fitted(lane.replicatedJob, 12, labelColumn - 12))}</text>`);
    y += LANE_HEADER;
    for (const job of lane.jobs) {
      parts.push(`<g data-job="${escapeHtml(job.name)}"><text x="20" y="${num(y + ROW_HEIGHT - 3)}" class="job-label" data-label="job">${escapeHtml(fitted(job.label, LABEL_FONT, labelColumn - 24))}<title>${escapeHtml(job.name)}</title></text>`);
      for (const segment of job.segments) {
        const from = x(segment.from);
        const drawnWidth = Math.max(x(segment.to) - from, segment.state === 'failed' ? FAILED_MIN_PX : 1.5);
        const title = `${job.name}: ${segment.state} from ${formatDuration(segment.from)} to ${formatDuration(segment.to)}`;
        parts.push(
          `<rect data-state="${segment.state}" x="${num(from)}" y="${num(y)}" width="${num(drawnWidth)}" height="${String(ROW_HEIGHT)}" fill="${STATE_COLOURS[segment.state]}"${segment.state === 'failed' ? ' class="failed"' : ''}><title>${escapeHtml(title)}</title></rect>`,
        );
        if (segment.state === 'failed') {
          parts.push(`<text x="${num(from + drawnWidth / 2)}" y="${num(y + ROW_HEIGHT - 3)}" class="failed-glyph" data-part="failed-glyph">${MEANINGS.failed.glyph}</text>`);
        }
      }
      parts.push('</g>');
      y += ROW_HEIGHT + ROW_GAP;
    }
    parts.push('</g>');
    laneSpan.set(lane.replicatedJob, { top: laneTop, bottom: y });
    y += LANE_GAP;
  }
  return { parts, laneSpan, bottom: y };
};

/** gateLabelsOf: gate labels, placed lane by lane where they fit. */
const gateLabelsOf = (drawing: TimelineDrawing, x: (at: number) => number): Map<Marker, PlacedLabel> => {
  const gateLabels = new Map<Marker, PlacedLabel>();
  for (const lane of drawing.lanes) {
    const gates = drawing.markers.filter((marker) => marker.kind === 'gate' && marker.lane === lane.replicatedJob);
    const placed = placeLabels(
      gates.map((marker) => ({ x: x(marker.at), text: marker.label })),
      LABEL_FONT,
      // The header's own name is on the left; a label may use the room after it.
      16 + textWidth(lane.replicatedJob, 12),
      PAGE_WIDTH - 4,
    );
    gates.forEach((marker, index) => {
      const label = placed[index];
      if (label !== undefined) gateLabels.set(marker, label);
    });
  }
  return gateLabels;
};

/** MarkerPlaces: where markers go: the event row and its labels, the lanes, the plot's bottom. */
interface MarkerPlaces {
  readonly events: readonly Marker[];
  readonly eventTop: number;
  readonly eventLabels: readonly PlacedLabel[];
  readonly gateLabels: ReadonlyMap<Marker, PlacedLabel>;
  readonly laneSpan: ReadonlyMap<string, { top: number; bottom: number }>;
  readonly lanesTop: number;
  readonly plotBottom: number;
}

/** markerHead: a marker's shape at its top: a restart's arrowhead, a rejection's square, a failure's cross, a gate's dot. */
const markerHead = (kind: MarkerKind, mx: number, y1: number, colour: string): string =>
  kind === 'restart'
    ? `<path d="M${num(mx - 5)} ${num(y1 - 2)} L${num(mx + 5)} ${num(y1 - 2)} L${num(mx)} ${num(y1 + 6)} Z" fill="${colour}"/>`
    : kind === 'rejected'
      ? `<rect x="${num(mx - 4)}" y="${num(y1)}" width="8" height="8" fill="${colour}"/>`
      : kind === 'failed'
        ? `<path d="M${num(mx - 4)} ${num(y1)} L${num(mx + 4)} ${num(y1 + 8)} M${num(mx + 4)} ${num(y1)} L${num(mx - 4)} ${num(y1 + 8)}" stroke="${colour}" stroke-width="2.5"/>`
        : `<circle cx="${num(mx)}" cy="${num(y1 + 4)}" r="4" fill="${colour}"/>`;

/** markerSvg: one marker: gates within their lane, the rest across the lanes, with its label where one was placed. */
const markerSvg = (marker: Marker, x: (at: number) => number, places: MarkerPlaces): string => {
  const { eventTop, lanesTop } = places;
  const span = marker.lane === undefined ? undefined : places.laneSpan.get(marker.lane);
  const mx = x(marker.at);
  const colour = MARKER_COLOURS[marker.kind];
  const isEvent = EVENT_GLYPHS[marker.kind] !== undefined;
  const y1 = span?.top ?? (isEvent ? eventTop + EVENT_ROW - 4 : lanesTop);
  const y2 = span?.bottom ?? places.plotBottom;
  let label = '';
  const placed = marker.kind === 'gate' ? places.gateLabels.get(marker) : isEvent ? places.eventLabels[places.events.indexOf(marker)] : undefined;
  if (placed !== undefined && placed.text !== '') {
    const labelY = marker.kind === 'gate' ? (span?.top ?? lanesTop) + 14 : eventTop + 14;
    const anchorX = placed.before ? placed.left + placed.width : placed.left;
    label = `<text x="${num(anchorX)}" y="${num(labelY)}" fill="${colour}" class="marker-label${placed.before ? ' before' : ''}${isEvent ? ' event' : ''}" data-label="marker">${escapeHtml(placed.text)}</text>`;
  }
  return (
    `<g data-marker="${marker.kind}"${marker.lane === undefined ? '' : ` data-marker-lane="${escapeHtml(marker.lane)}"`}${marker.attempt === undefined ? '' : ` data-attempt="${String(marker.attempt)}"`}>` +
    `<line x1="${num(mx)}" x2="${num(mx)}" y1="${num(y1)}" y2="${num(y2)}" stroke="${colour}" class="marker ${marker.kind}"/>` +
    markerHead(marker.kind, mx, y1, colour) +
    label +
    `<title>${escapeHtml(marker.detail)}</title></g>`
  );
};

/** axisSvg: the time axis; a broken one is cut where the compressed rest of the run starts. */
const axisSvg = (scale: TimeScale, lanesTop: number, plotBottom: number): string[] => {
  const parts = [`<g data-part="axis">`];
  for (const piece of scale.pieces) {
    parts.push(`<line x1="${num(piece.left)}" x2="${num(piece.right)}" y1="${num(plotBottom + 4)}" y2="${num(plotBottom + 4)}" class="axis"/>`);
  }
  for (const at of axisTicks(scale)) {
    const ax = num(scale.x(at));
    parts.push(`<line x1="${ax}" x2="${ax}" y1="${num(plotBottom + 4)}" y2="${num(plotBottom + 9)}" class="axis"/><text x="${ax}" y="${num(plotBottom + 21)}" class="axis-label" data-label="axis">${escapeHtml(formatDuration(at))}</text>`);
  }
  if (scale.gap !== undefined) {
    const { left, right, at } = scale.gap;
    parts.push(
      `<g data-part="axis-break" data-break-at="${String(Math.round(at))}"><rect x="${num(left + 3)}" y="${num(lanesTop)}" width="${num(right - left - 6)}" height="${num(plotBottom - lanesTop + 10)}" class="break-band"/>` +
        `<path d="M${num(left + 1)} ${num(plotBottom + 9)} l6 -10 M${num(right - 7)} ${num(plotBottom + 9)} l6 -10" class="break-mark"/>` +
        `<title>${escapeHtml(`the axis is broken here: up to ${formatDuration(at)} (the startup) is drawn wide, the rest of the run compressed`)}</title></g>`,
    );
  }
  parts.push('</g>');
  return parts;
};

/** timelineSvg: the passes (and, in a replay, the replayed passes), the event row, the lanes, the markers and the axis of one drawing, top to bottom. */
const timelineSvg = (drawing: TimelineDrawing, id: string): string => {
  const labelColumn = labelColumnWidth(drawing);
  const endAt = Math.max(drawing.endAt, 1);
  const scale = timeScale(endAt, focusWindow(drawing.startupEnd, endAt), labelColumn, PAGE_WIDTH - RIGHT_MARGIN - labelColumn);
  const x = scale.x;
  const frame: SvgFrame = { id, labelColumn, x };
  const groups = passGroups(drawing.ticks, x);
  const isReplay = drawing.replay !== undefined || drawing.ticks.some((tick) => tick.outcome !== undefined || tick.differs);
  const parts = passesRow(frame, groups, 0, isReplay);
  let y = PASS_ROW;
  if (isReplay) {
    parts.push(...replayedRow(frame, groups, y));
    y += PASS_ROW;
  }
  // JobSet-wide events that matter most — restarts, failure, rejection — labelled in a row of their own.
  const events = drawing.markers.filter((marker) => EVENT_GLYPHS[marker.kind] !== undefined);
  const eventTop = y;
  const eventLabels = placeLabels(
    events.map((marker) => ({ x: x(marker.at), text: `${EVENT_GLYPHS[marker.kind] ?? ''} ${marker.label}` })),
    LABEL_FONT,
    4,
    PAGE_WIDTH - 4,
  );
  if (events.length > 0) y += EVENT_ROW;
  const lanes = laneRows(drawing, frame, y);
  parts.push(...lanes.parts);
  const plotBottom = Math.max(lanes.bottom, y + 4);
  const places: MarkerPlaces = { events, eventTop, eventLabels, gateLabels: gateLabelsOf(drawing, x), laneSpan: lanes.laneSpan, lanesTop: y, plotBottom };
  for (const marker of drawing.markers) parts.push(markerSvg(marker, x, places));
  parts.push(...axisSvg(scale, y, plotBottom));
  const height = plotBottom + AXIS_HEIGHT;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${String(PAGE_WIDTH)}" height="${num(height)}" viewBox="0 0 ${String(PAGE_WIDTH)} ${num(height)}" role="img" aria-label="${escapeHtml(drawing.title)}" data-part="timeline">
${parts.join('\n')}
</svg>`;
};

/** legendHtml: what each colour and shape means, with the shape beside the colour. */
const legendHtml = (drawing: TimelineDrawing): string => {
  const swatch = (colour: string, text: string, glyph = ''): string =>
    `<span class="key"><span class="swatch" style="background:${colour}">${glyph}</span>${escapeHtml(text)}</span>`;
  const items = JOB_STATES.map((state) => swatch(STATE_COLOURS[state], state === 'failed' ? 'failed Job' : state, state === 'failed' ? MEANINGS.failed.glyph : ''));
  items.push(swatch(MARKER_COLOURS.gate, 'gate opened'), swatch(MARKER_COLOURS.condition, 'condition changed'));
  const kinds = new Set(drawing.markers.map((marker) => marker.kind));
  if (kinds.has('restart')) items.push(swatch(MEANINGS.restart.colour, 'restart (attempt)', MEANINGS.restart.glyph));
  if (kinds.has('failed')) items.push(swatch(MEANINGS.failed.colour, 'JobSet failed', MEANINGS.failed.glyph));
  if (kinds.has('rejected')) items.push(swatch(MEANINGS.rejected.colour, 'rejected', MEANINGS.rejected.glyph));
  items.push(swatch('#555', 'reconcile pass (number; ×N: N passes within a few pixels)'));
  if (drawing.ticks.some((tick) => tick.differs)) items.push(swatch(MEANINGS.differs.colour, 'pass a replay decides differently', MEANINGS.differs.glyph));
  if (drawing.ticks.some((tick) => tick.outcome === 'unreplayable')) items.push(swatch(MEANINGS.unreplayable.colour, 'pass that could not be replayed', MEANINGS.unreplayable.glyph));
  return `<div class="legend" data-part="legend">${items.join(' ')}</div>`;
};

/** actionLineHtml: one group of actions: kind ×count, targets, then why. */
const actionLineHtml = (line: ActionLine): string =>
  (line.differs === true ? `<span class="glyph">${MEANINGS.differs.glyph}</span> ` : '') +
  `<b>${escapeHtml(line.kind)}${line.count > 1 ? ` ×${String(line.count)}` : ''}</b>` +
  (line.targets === '' ? '' : ` ${escapeHtml(line.targets)}`) +
  (line.why === '' ? '' : ` <span class="why">${escapeHtml(line.why)}</span>`) +
  (line.events !== undefined && line.events > 0 ? ` <span class="muted">+${line.events === 1 ? '' : `${String(line.events)} `}event</span>` : '');

/** actionLinesHtml: grouped actions, one per line, the minor ones together on a last, smaller line. */
const actionLinesHtml = (lines: readonly ActionLine[], empty: string): string => {
  if (lines.length === 0) return `<span class="muted">${escapeHtml(empty)}</span>`;
  // Actions known only by kind (a simulation's) read best on one line.
  if (lines.every((line) => line.targets === '' && line.why === '' && line.differs !== true)) {
    return lines.map((line) => `<b>${escapeHtml(line.kind)}</b>${line.count > 1 ? ` ×${String(line.count)}` : ''}`).join(', ');
  }
  const major = lines
    .filter((line) => line.minor !== true)
    .map((line) => `<div class="action${line.differs === true ? ' differs' : ''}"${line.differs === true ? ' data-differs="true"' : ''}>${actionLineHtml(line)}</div>`);
  const minor = lines.filter((line) => line.minor === true).map(actionLineHtml);
  return major.join('') + (minor.length === 0 ? '' : `<div class="action minor">${minor.join(' · ')}</div>`);
};

/** replayCellHtml: what a replay found for one pass: same, or the replayed actions and the differences, or why not. */
const replayCellHtml = (row: PassRow): string => {
  const replay = row.replay;
  if (replay === undefined) return '<td></td>';
  if (replay.outcome === 'same') return '<td data-part="replayed" class="muted">= same</td>';
  if (replay.outcome === 'unreplayable') {
    return `<td data-part="replayed"><span class="unreplayable">${MEANINGS.unreplayable.glyph} could not be replayed:</span> ${escapeHtml(replay.lines.join('; '))}</td>`;
  }
  // What differs, in full; the replayed actions that agree are only counted (the recorded column shows them).
  const differing = replay.actions.filter((line) => line.differs === true);
  const agreeing = replay.actions.filter((line) => line.differs !== true).reduce((sum, line) => sum + line.count, 0);
  return (
    `<td data-part="replayed">${actionLinesHtml(differing, 'no action differs')}` +
    (agreeing === 0 ? '' : `<div class="muted">${String(agreeing)} other action${agreeing === 1 ? '' : 's'} the same</div>`) +
    `<ul class="differences" data-part="differences">${replay.lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul></td>`
  );
};

/** passTableHtml: a row per pass, numbered as the ticks are, its reason and actions in plain view. */
const passTableHtml = (rows: readonly PassRow[], id: string): string => {
  const withTrigger = rows.some((row) => row.trigger !== undefined);
  const withReplay = rows.some((row) => row.replay !== undefined);
  const head =
    '<tr><th class="num">#</th><th class="time">time</th>' +
    (withTrigger ? '<th class="trigger">after</th>' : '') +
    `<th class="reason${withReplay ? ' narrow' : ''}">reason</th>` +
    (withReplay ? '<th class="actions">recorded actions</th><th class="actions">replayed with today\'s planner</th>' : '<th class="actions">actions</th>') +
    '</tr>';
  const body = rows.map((row) => {
    const outcome = row.replay?.outcome;
    const mark = outcome === 'different' ? `<span class="glyph differs">${MEANINGS.differs.glyph}</span>` : outcome === 'unreplayable' ? `<span class="glyph unreplayable">${MEANINGS.unreplayable.glyph}</span>` : '';
    const notes = (row.notes ?? []).map((note) => `<div class="note">${escapeHtml(note)}</div>`).join('');
    return (
      `<tr id="${id}-pass-${String(row.pass)}" data-pass-row="${String(row.pass)}"${outcome === undefined ? '' : ` data-outcome="${outcome}"`}${outcome === 'different' ? ' class="differs"' : ''}>` +
      `<td class="num">${mark}${String(row.pass)}</td>` +
      `<td class="time">${escapeHtml(row.time)}${row.clock === undefined ? '' : `<div class="muted">${escapeHtml(row.clock)}</div>`}</td>` +
      (withTrigger ? `<td class="trigger" data-part="trigger">${escapeHtml(row.trigger ?? '')}</td>` : '') +
      `<td class="reason" data-part="reason">${escapeHtml(row.reason)}${notes}</td>` +
      `<td data-part="actions">${actionLinesHtml(row.actions, 'no actions')}</td>` +
      (withReplay ? replayCellHtml(row) : '') +
      '</tr>'
    );
  });
  return `<table class="passes" data-part="pass-table"><thead>${head}</thead><tbody>\n${body.join('\n')}\n</tbody></table>`;
};

/** timelineSection: one drawing as a heading, its subtitle, the legend, the SVG and the pass table. */
const timelineSection = (drawing: TimelineDrawing, id: string): string => `<section id="${id}" data-drawing="${escapeHtml(drawing.title)}">
<h1>${escapeHtml(drawing.title)}</h1>
<p>${escapeHtml(drawing.subtitle)}</p>
${legendHtml(drawing)}
${timelineSvg(drawing, id)}
${drawing.passes === undefined || drawing.passes.length === 0 ? '' : passTableHtml(drawing.passes, id)}
</section>`;

/** summaryHtml: for a page of several replays, one row per JobSet, those that differ first, each linking to its section. */
const summaryHtml = (drawings: readonly TimelineDrawing[], ids: readonly string[]): string => {
  const rows = drawings
    .map((drawing, index) => ({ drawing, id: ids[index] ?? '', summary: drawing.replay }))
    .filter((row): row is { drawing: TimelineDrawing; id: string; summary: ReplaySummary } => row.summary !== undefined)
    .sort((a, b) => b.summary.different - a.summary.different || b.summary.unreplayable - a.summary.unreplayable || a.summary.jobSet.localeCompare(b.summary.jobSet));
  if (rows.length === 0) return '';
  const total = (pick: (summary: ReplaySummary) => number): number => rows.reduce((sum, row) => sum + pick(row.summary), 0);
  const line = rows.map(({ id, summary }) => {
    const state = summary.different > 0 ? 'different' : summary.unreplayable > 0 ? 'unreplayable' : 'same';
    const mark = state === 'different' ? MEANINGS.differs.glyph : state === 'unreplayable' ? MEANINGS.unreplayable.glyph : '=';
    return (
      `<tr data-summary-row="${escapeHtml(summary.jobSet)}" data-outcome="${state}"${state === 'different' ? ' class="differs"' : ''}>` +
      `<td class="num"><span class="glyph ${state}">${mark}</span></td><td><a href="#${id}">${escapeHtml(summary.jobSet)}</a></td>` +
      `<td class="num">${String(summary.passes)}</td><td class="num">${String(summary.same)}</td><td class="num">${String(summary.different)}</td><td class="num">${String(summary.unreplayable)}</td>` +
      `<td>${summary.firstDivergence === undefined ? '' : `<a href="#${id}-pass-${String(summary.firstDivergence)}">pass ${String(summary.firstDivergence)}</a>`}</td></tr>`
    );
  });
  return `<section data-part="summary"><h1>lineup replay: ${String(rows.length)} JobSets, ${String(total((s) => s.passes))} passes: ${String(total((s) => s.same))} same, ${String(total((s) => s.different))} different, ${String(total((s) => s.unreplayable))} unreplayable</h1>
<table class="passes summary" data-part="summary-table"><thead><tr><th></th><th>JobSet</th><th>passes</th><th>same</th><th>different</th><th>unreplayable</th><th>first divergence</th></tr></thead><tbody>
${line.join('\n')}
</tbody></table></section>`;
};

/** renderTimelineHtml: the page for `drawing`, or for several (`lineup replay --all`) one below the other after a summary. */
export const renderTimelineHtml = (drawing: TimelineDrawing | readonly TimelineDrawing[], pageTitle?: string): string => {
  const drawings: readonly TimelineDrawing[] = 'lanes' in drawing ? [drawing] : drawing;
  const ids = sectionIds(drawings);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(pageTitle ?? drawings[0]?.title ?? 'lineup')}</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
section { margin-bottom: 28px; }
h1 { font-size: 16px; margin: 0 0 2px; }
p { margin: 0 0 6px; color: #555; }
a { color: inherit; }
.legend { margin-bottom: 6px; font-size: 12px; }
.key { white-space: nowrap; margin-right: 10px; }
.swatch { display: inline-block; width: 13px; height: 13px; margin-right: 4px; vertical-align: -2px; color: #fff; font-size: 10px; line-height: 13px; text-align: center; font-weight: 700; }
svg { display: block; }
.lane-label { font-weight: 600; font-size: 12px; }
.job-label { font-size: 11px; fill: #444; }
.tick { stroke: #555; stroke-width: 1.5; }
.tick.same { stroke: #aaa; }
.tick-label { font-size: 10px; fill: #333; text-anchor: middle; }
.tick-label.different { fill: ${MEANINGS.differs.colour}; font-weight: 700; }
.tick-label.unreplayable { fill: ${MEANINGS.unreplayable.colour}; }
.differs-mark { fill: ${MEANINGS.differs.colour}; }
.unreplayable-mark { fill: #fff; stroke: ${MEANINGS.unreplayable.colour}; stroke-width: 1.5; }
.marker { stroke-width: 1.5; }
.marker.condition { stroke-dasharray: 3 3; }
.marker.restart, .marker.failed, .marker.rejected { stroke-width: 2; }
.marker-label { font-size: 11px; }
.marker-label.before { text-anchor: end; }
.marker-label.event { font-weight: 700; }
rect.failed { stroke: #67000d; stroke-width: 1; }
.failed-glyph { font-size: 10px; font-weight: 700; fill: #fff; text-anchor: middle; }
.axis { stroke: #888; }
.axis-label { font-size: 11px; fill: #555; text-anchor: middle; }
.break-band { fill: #fff; opacity: 0.75; }
.break-mark { stroke: #555; stroke-width: 1.5; fill: none; }
table.passes { border-collapse: collapse; width: ${String(PAGE_WIDTH)}px; margin-top: 8px; font-size: 12px; line-height: 1.3; }
table.passes th { text-align: left; font-weight: 600; border-bottom: 1px solid #bbb; padding: 2px 6px; }
table.passes td { vertical-align: top; padding: 1px 6px; border-bottom: 1px solid #eee; overflow-wrap: anywhere; }
table.passes td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.passes td.time { white-space: nowrap; font-variant-numeric: tabular-nums; }
table.passes td.trigger { color: #555; }
table.passes th.num { width: 36px; }
table.passes th.trigger { width: 150px; }
table.passes th.reason { width: 25%; }
table.passes th.reason.narrow { width: 20%; }
.action.minor { font-size: 11px; color: #666; }
.action.minor b { font-weight: 600; }
tr.differs { background: #fde6f2; box-shadow: inset 4px 0 ${MEANINGS.differs.colour}; }
.action.differs { color: #8e0152; }
.why { color: #555; }
.muted { color: #888; }
.note { color: ${MEANINGS.failed.colour}; }
.glyph { font-weight: 700; margin-right: 3px; }
.glyph.differs, .glyph.different { color: ${MEANINGS.differs.colour}; }
.glyph.unreplayable { color: ${MEANINGS.unreplayable.colour}; }
.unreplayable { color: ${MEANINGS.unreplayable.colour}; }
ul.differences { margin: 2px 0 0; padding-left: 16px; color: #8e0152; }
table.summary { width: auto; }
</style>
</head>
<body>
${drawings.length > 1 ? summaryHtml(drawings, ids) : ''}
${drawings.map((one, index) => timelineSection(one, ids[index] ?? 'drawing')).join('\n')}
</body>
</html>
`;
};
