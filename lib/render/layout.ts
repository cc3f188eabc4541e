/**
 * The geometry of a drawn timeline, kept apart from the SVG text so it can be tested alone: how
 * wide a label is, where time falls on the page, which pass ticks are too close to tell apart,
 * and where each label goes so none is clipped or drawn over another.
 */
import { shortJobName } from '../replay/jobNames.ts';

/**
 * AVERAGE_CHAR_EM: the width of an average character of the page's sans-serif font, in ems. The
 * page names no font file (it fetches nothing), so the exact font is the reader's; 0.62 em is a
 * little above the average of DejaVu Sans, Helvetica and Segoe UI for names and digits, so a
 * label measured with it fits wherever the browser draws it.
 */
const AVERAGE_CHAR_EM = 0.62;

/** textWidth: roughly how many pixels `text` takes at `fontPx`. */
export const textWidth = (text: string, fontPx: number): number => Math.ceil([...text].length * fontPx * AVERAGE_CHAR_EM);

/** AxisPiece: a stretch of time drawn linearly between two x positions. */
export interface AxisPiece {
  readonly from: number;
  readonly to: number;
  readonly left: number;
  readonly right: number;
}

/** TimeScale: where each instant falls; more than one piece is a broken axis. */
export interface TimeScale {
  readonly pieces: readonly AxisPiece[];
  /** x: the position of `at` (clamped to the run). */
  readonly x: (at: number) => number;
  /** The gap between two pieces, where the axis is broken; undefined when it is not. */
  readonly gap?: { readonly left: number; readonly right: number; readonly at: number } | undefined;
}

/** The share of the plot the zoomed startup gets when the axis is broken. */
export const FOCUS_SHARE = 0.72;
/** A startup that already takes this share of the run is drawn on one linear axis. */
export const ZOOM_WORTH = 0.6;
/** The margin after the startup's end, as a share of the startup, so its last moments are not on the break. */
export const FOCUS_MARGIN = 0.15;
/** Pixels between the two pieces of a broken axis, where the break mark goes. */
export const BREAK_GAP = 16;

/**
 * focusWindow: the end of the stretch to draw wide — the startup's end plus a margin — or
 * undefined when zooming would not help (no startup known, or it already fills most of the run).
 */
export const focusWindow = (startupEnd: number | undefined, endAt: number): number | undefined => {
  if (startupEnd === undefined || startupEnd <= 0 || endAt <= 0) return undefined;
  const to = Math.round(startupEnd * (1 + FOCUS_MARGIN));
  return to >= endAt * ZOOM_WORTH ? undefined : to;
};

/**
 * timeScale: the time axis of a plot from `left`, `width` pixels wide. A startup of 3 s in a run
 * of 32 s would take a tenth of the width, its passes and gates on top of each other. Two ways
 * out were weighed: a second, compressed overview strip of the whole run, or one broken axis.
 * The broken axis is drawn: the startup (up to `focusTo`) takes most of the width, the rest of
 * the run is compressed after a visible break, each piece with its own ticks. One plot keeps
 * every lane, marker and pass on one line of sight, so a restart or a failure late in the run is
 * in the same picture as the startup it follows (in a strip it would be a few pixels of a second
 * drawing), and nothing is drawn twice.
 */
export const timeScale = (endAt: number, focusTo: number | undefined, left: number, width: number): TimeScale => {
  const end = Math.max(endAt, 1);
  if (focusTo === undefined || focusTo >= end) {
    const piece = { from: 0, to: end, left, right: left + width };
    return { pieces: [piece], x: (at) => left + (Math.min(Math.max(at, 0), end) / end) * width };
  }
  const focusRight = left + Math.round((width - BREAK_GAP) * FOCUS_SHARE);
  const first = { from: 0, to: focusTo, left, right: focusRight };
  const second = { from: focusTo, to: end, left: focusRight + BREAK_GAP, right: left + width };
  const within = (piece: AxisPiece, at: number): number => piece.left + ((at - piece.from) / (piece.to - piece.from)) * (piece.right - piece.left);
  return {
    pieces: [first, second],
    x: (at) => {
      const clamped = Math.min(Math.max(at, 0), end);
      return clamped <= focusTo ? within(first, clamped) : within(second, clamped);
    },
    gap: { left: focusRight, right: focusRight + BREAK_GAP, at: focusTo },
  };
};

/** TARGET_AXIS_TICKS: about how many labelled ticks a 1000-pixel piece of axis gets. */
const TARGET_TICKS_PER_1000PX = 9;

/** niceStep: a round step (1, 2 or 5 × 10^n ms) that gives about `count` ticks over `span`. */
export const niceStep = (span: number, count: number): number => {
  const raw = Math.max(span / Math.max(count, 1), 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((factor) => factor * power).find((step) => step >= raw) ?? 10 * power;
};

/** axisTicks: the round instants to label on each piece, by its width in pixels. */
export const axisTicks = (scale: TimeScale): number[] =>
  scale.pieces.flatMap((piece, index) => {
    const count = Math.max(3, Math.round(((piece.right - piece.left) / 1000) * TARGET_TICKS_PER_1000PX));
    const step = niceStep(piece.to - piece.from, count);
    const ticks: number[] = [];
    // The second piece starts at the break; its first label is its first round instant after it.
    for (let at = Math.ceil(piece.from / step) * step; at <= piece.to; at += step) if (index === 0 || at > piece.from) ticks.push(at);
    return ticks;
  });

/** TickGroup: passes drawn as one tick because they fall within a few pixels of each other. */
export interface TickGroup<T> {
  readonly x: number;
  readonly members: readonly T[];
}

/**
 * groupByPosition: items in x order, those within `minGap` pixels of a group's first member
 * joined to it, so two passes in the same second are one tick counted "×2" instead of two lines
 * on top of each other that read as one. The group sits at its first member.
 */
export const groupByPosition = <T>(items: readonly T[], xOf: (item: T) => number, minGap: number): TickGroup<T>[] => {
  const sorted = [...items].sort((a, b) => xOf(a) - xOf(b));
  const groups: { x: number; members: T[] }[] = [];
  for (const item of sorted) {
    const x = xOf(item);
    const last = groups.at(-1);
    if (last !== undefined && x - last.x < minGap) last.members.push(item);
    else groups.push({ x, members: [item] });
  }
  return groups;
};

/** LabelRequest: a label wanted beside `x` (its anchor: a marker, a tick). */
export interface LabelRequest {
  readonly x: number;
  readonly text: string;
}

/** PlacedLabel: where a label went: its left edge, the text that fits, and whether it was shortened. */
export interface PlacedLabel {
  readonly left: number;
  readonly width: number;
  readonly text: string;
  /** Drawn to the left of its anchor (text-anchor end at left + width). */
  readonly before: boolean;
  readonly shortened: boolean;
}

/** LABEL_PAD: pixels between a label and its anchor, and between two labels. */
const LABEL_PAD = 4;

/**
 * placeLabels: each label of one row placed where it fits between `minX` and `maxX` and clear of
 * the labels already placed (in x order): after its anchor, else before it, else shortened with
 * "…" into the widest free room beside it (empty when not even a few characters fit; the full
 * text stays in the table and the tooltip). Results are in the order of `requests`.
 */
export const placeLabels = (requests: readonly LabelRequest[], fontPx: number, minX: number, maxX: number): PlacedLabel[] => {
  const order = requests.map((request, index) => ({ request, index })).sort((a, b) => a.request.x - b.request.x);
  const taken: { left: number; right: number }[] = [];
  const free = (left: number, right: number): boolean => left >= minX && right <= maxX && taken.every((box) => right + LABEL_PAD <= box.left || left >= box.right + LABEL_PAD);
  const placed: PlacedLabel[] = new Array<PlacedLabel>(requests.length);
  for (const { request, index } of order) {
    const width = textWidth(request.text, fontPx);
    const after = request.x + LABEL_PAD;
    const before = request.x - LABEL_PAD - width;
    let result: PlacedLabel;
    if (free(after, after + width)) result = { left: after, width, text: request.text, before: false, shortened: false };
    else if (free(before, before + width)) result = { left: before, width, text: request.text, before: true, shortened: false };
    else {
      // The room right of the anchor up to the next label or the edge, and left of it likewise.
      const rightEdge = Math.min(maxX, ...taken.filter((box) => box.left >= after).map((box) => box.left - LABEL_PAD));
      const leftEdge = Math.max(minX, ...taken.filter((box) => box.right <= request.x).map((box) => box.right + LABEL_PAD));
      const roomAfter = free(after, after) ? rightEdge - after : 0;
      const roomBefore = free(request.x - LABEL_PAD, request.x - LABEL_PAD) ? request.x - LABEL_PAD - leftEdge : 0;
      const room = Math.max(roomAfter, roomBefore);
      const chars = Math.floor(room / (fontPx * AVERAGE_CHAR_EM)) - 1;
      const text = chars >= 4 ? `${[...request.text].slice(0, chars).join('')}…` : '';
      const shortWidth = textWidth(text, fontPx);
      result = roomAfter >= roomBefore
        ? { left: after, width: shortWidth, text, before: false, shortened: true }
        : { left: request.x - LABEL_PAD - shortWidth, width: shortWidth, text, before: true, shortened: true };
    }
    if (result.text !== '') taken.push({ left: result.left, right: result.left + result.width });
    placed[index] = result;
  }
  return placed;
};

/**
 * compactNames: Jobs named compactly for a table cell: the JobSet's prefix dropped, several of
 * one replicatedJob with consecutive indices as a range (`worker-0..7`), at most `limit` parts
 * then a count of the rest. Names in first-seen order; a name without an index is listed as is.
 */
export const compactNames = (names: readonly string[], jobSetName: string, limit = 6): string => {
  const short = names.map((name) => shortJobName(name, jobSetName));
  const groups = new Map<string, number[]>();
  const parts: string[] = [];
  for (const name of short) {
    const match = /^(.*)-(\d+)$/.exec(name);
    if (match === null) {
      parts.push(name);
      continue;
    }
    const prefix = match[1] ?? '';
    if (!groups.has(prefix)) parts.push(`\u0000${prefix}`);
    groups.set(prefix, [...(groups.get(prefix) ?? []), Number(match[2])]);
  }
  const expanded = parts.flatMap((part) => {
    if (!part.startsWith('\u0000')) return [part];
    const prefix = part.slice(1);
    const indices = [...new Set(groups.get(prefix) ?? [])].sort((a, b) => a - b);
    const runs: string[] = [];
    for (let i = 0; i < indices.length; ) {
      let j = i;
      while (j + 1 < indices.length && indices[j + 1] === (indices[j] ?? 0) + 1) j += 1;
      // Two in a row read better by name than as a range.
      if (j - i >= 2) runs.push(`${prefix}-${String(indices[i])}..${String(indices[j])}`);
      else for (let k = i; k <= j; k += 1) runs.push(`${prefix}-${String(indices[k])}`);
      i = j + 1;
    }
    return runs;
  });
  if (expanded.length <= limit) return expanded.join(', ');
  return `${expanded.slice(0, limit).join(', ')} +${String(expanded.length - limit)} more`;
};
