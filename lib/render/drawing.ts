/**
 * What a drawn timeline shows, as plain data: a lane per replicatedJob with a row per Job and
 * its states over time, markers for the gates and conditions, and the reconcile passes as
 * ticks. Each source (a simulation, later a recorded history or a replay) turns its own
 * records into a TimelineDrawing; one renderer draws them all (timelineHtml.ts).
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

/** MarkerKind: a gate that opened for a lane, a JobSet condition that changed, or a rejection. */
export type MarkerKind = 'gate' | 'condition' | 'rejected';

/** Marker: something that happened at one instant; `lane` places a gate on its replicatedJob. */
export interface Marker {
  readonly at: number;
  readonly kind: MarkerKind;
  readonly lane?: string | undefined;
  /** Short text drawn beside the marker. */
  readonly label: string;
  /** The whole story, shown on hover. */
  readonly detail: string;
}

/** Tick: one reconcile pass; `differs` marks a pass a replay decided differently. */
export interface Tick {
  readonly at: number;
  readonly label: string;
  readonly detail: string;
  readonly differs: boolean;
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
}
