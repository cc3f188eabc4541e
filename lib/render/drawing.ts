/**
 * What a drawn timeline shows, as plain data: a lane per replicatedJob with a row per Job and
 * its states over time, markers for the gates, conditions, restarts, failures and rejections,
 * the reconcile passes as ticks, and (for sources that know them) each pass as a table row with
 * its reason and actions, so a screenshot tells the story without a mouse. Each source (a
 * simulation, a recorded history, a replay) turns its own records into a TimelineDrawing; one
 * renderer draws them all (timelineHtml.ts).
 */

/** JobState: what a Job was doing during a segment. */
export type JobState = 'suspended' | 'running' | 'ready' | 'succeeded' | 'failed';

/** JOB_STATES: every JobState, in the order the legend lists them. */
export const JOB_STATES: readonly JobState[] = ['suspended', 'running', 'ready', 'succeeded', 'failed'];

/** Segment: a Job in one state from `from` to `to` (milliseconds from the start). */
export interface Segment {
  readonly from: number;
  readonly to: number;
  readonly state: JobState;
}

/** JobRow: one Job and its segments, in time order. */
export interface JobRow {
  readonly name: string;
  /** What the row is labelled with: the name without the JobSet's prefix. */
  readonly label: string;
  readonly segments: readonly Segment[];
}

/** Lane: one replicatedJob and its Jobs. */
export interface Lane {
  readonly replicatedJob: string;
  readonly jobs: readonly JobRow[];
}

/**
 * MarkerKind: a gate that opened for a lane, a JobSet condition that changed, a restart of the
 * whole JobSet, the JobSet failing, or a rejection.
 */
export type MarkerKind = 'gate' | 'condition' | 'restart' | 'failed' | 'rejected';

/** Marker: something that happened at one instant; `lane` places a gate on its replicatedJob. */
export interface Marker {
  readonly at: number;
  readonly kind: MarkerKind;
  readonly lane?: string | undefined;
  /** Short text drawn beside the marker. */
  readonly label: string;
  /** The whole story, shown on hover. */
  readonly detail: string;
  /** For a restart: the attempt it starts (1 for the first restart). */
  readonly attempt?: number | undefined;
}

/** PassOutcomeKind: what a replay found for a pass. */
export type PassOutcomeKind = 'same' | 'different' | 'unreplayable';

/** Tick: one reconcile pass; `differs` marks a pass a replay decided differently. */
export interface Tick {
  readonly at: number;
  readonly label: string;
  readonly detail: string;
  readonly differs: boolean;
  /** The pass's 1-based number, matching its row in the pass table. */
  readonly pass?: number | undefined;
  /** In a replay: what the replay found for this pass. */
  readonly outcome?: PassOutcomeKind | undefined;
}

/**
 * ActionLine: a pass's actions of one kind done for one reason, counted, their targets named
 * compactly (`driver-0, driver-1`, `worker-0..7`); `differs` when a replay disagrees on one of them.
 */
export interface ActionLine {
  readonly kind: string;
  readonly count: number;
  /** The targets without the JobSet's prefix, compacted; '' for the JobSet itself or when unknown. */
  readonly targets: string;
  /** Reason code and message ('' when the source does not know them, or they repeat the pass's reason). */
  readonly why: string;
  /** Events the pass emitted for the same reason, folded into this line. */
  readonly events?: number | undefined;
  readonly differs?: boolean | undefined;
  /** Bookkeeping a reader can skip (the status write, a condition's Event): drawn small, several on one line. */
  readonly minor?: boolean | undefined;
}

/** PassReplay: a replay's outcome for one pass, and the replayed planner's actions when it differs. */
export interface PassReplay {
  readonly outcome: PassOutcomeKind;
  /** What the replayed planner did, grouped as the recorded actions are (empty unless different). */
  readonly actions: readonly ActionLine[];
  /** The differences in words (lib/replay/actionDiff.ts differenceLines), or why it could not be replayed. */
  readonly lines: readonly string[];
}

/** PassRow: one pass as the pass table shows it. */
export interface PassRow {
  readonly pass: number;
  /** Milliseconds from the start, as ticks are placed. */
  readonly at: number;
  /** The time as the page prints it (from the start). */
  readonly time: string;
  /** The wall-clock time, when the source has one. */
  readonly clock?: string | undefined;
  /** The event that triggered it, compactly; undefined when the source does not know triggers. */
  readonly trigger?: string | undefined;
  readonly reason: string;
  readonly actions: readonly ActionLine[];
  /** Anything else a reader must know: an error, not applied, actions not kept. */
  readonly notes?: readonly string[] | undefined;
  readonly replay?: PassReplay | undefined;
}

/** ReplaySummary: a replay's counts, for the summary table of a page with several JobSets. */
export interface ReplaySummary {
  readonly jobSet: string;
  readonly passes: number;
  readonly same: number;
  readonly different: number;
  readonly unreplayable: number;
  /** The first pass that differs, if any. */
  readonly firstDivergence?: number | undefined;
}

/** TimelineDrawing: everything one picture shows. */
export interface TimelineDrawing {
  readonly title: string;
  readonly subtitle: string;
  /** Where the time axis ends (milliseconds from the start); segments still open run to here. */
  readonly endAt: number;
  readonly lanes: readonly Lane[];
  readonly markers: readonly Marker[];
  readonly ticks: readonly Tick[];
  /**
   * When the startup finished (startup policy completed) or its last stage started, whichever is
   * later; the renderer draws the time up to it wide. Undefined: no startup to zoom on.
   */
  readonly startupEnd?: number | undefined;
  /** Each pass as a table row; undefined when the source has none to show. */
  readonly passes?: readonly PassRow[] | undefined;
  /** For a replay: its counts. */
  readonly replay?: ReplaySummary | undefined;
}
