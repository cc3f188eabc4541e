/**
 * simulationDrawing: a simulated run (lib/sim) as a TimelineDrawing: Job states from the
 * timeline entries, a gate marker where each replicatedJob's first Job began to run (labelled
 * with what the startup condition said it was waiting for just before), a condition marker per
 * startup or terminal condition change, and a tick per reconcile pass.
 */
import { formatDuration } from '../sim/duration.ts';
import type { SimulationResult } from '../sim/simulate.ts';
import { TimelineType, type TimelineEntry } from '../sim/timeline.ts';
import type { JobRow, JobState, Lane, Marker, Segment, Tick, TimelineDrawing } from './drawing.ts';

/** STATE_AFTER: the state a Job is in after each kind of Job entry; JobDeleted ends its row. */
const STATE_AFTER: Partial<Record<TimelineEntry['type'], JobState | 'gone'>> = {
  [TimelineType.JobResumed]: 'running',
  [TimelineType.JobSuspended]: 'suspended',
  [TimelineType.JobReady]: 'ready',
  [TimelineType.JobSucceeded]: 'succeeded',
  [TimelineType.JobFailed]: 'failed',
  [TimelineType.JobDeleted]: 'gone',
};

/** stateAfter: the state an entry leaves its Job in, or undefined for entries about the JobSet. */
const stateAfter = (entry: TimelineEntry): JobState | 'gone' | undefined =>
  entry.type === TimelineType.JobCreated ? (entry.suspended === true ? 'suspended' : 'running') : STATE_AFTER[entry.type];

/** OpenRow: a Job's row while it is being built: closed segments and the one still open. */
interface OpenRow {
  readonly name: string;
  readonly replicatedJob: string;
  readonly segments: Segment[];
  open: { from: number; state: JobState } | undefined;
}

/** lanesOf: the Jobs' rows, grouped by replicatedJob in the order each first appears. */
const lanesOf = (timeline: readonly TimelineEntry[], endAt: number, jobSetName: string): Lane[] => {
  const rows = new Map<string, OpenRow>();
  for (const entry of timeline) {
    const next = stateAfter(entry);
    if (next === undefined || entry.job === undefined) continue;
    let row = rows.get(entry.job);
    if (!row) {
      row = { name: entry.job, replicatedJob: entry.replicatedJob ?? '', segments: [], open: undefined };
      rows.set(entry.job, row);
    }
    if (row.open) row.segments.push({ from: row.open.from, to: entry.at, state: row.open.state });
    row.open = next === 'gone' ? undefined : { from: entry.at, state: next };
  }
  const lanes = new Map<string, JobRow[]>();
  for (const row of rows.values()) {
    const segments = row.open ? [...row.segments, { from: row.open.from, to: endAt, state: row.open.state }] : row.segments;
    // A zero-length segment (created and resumed at one instant) draws nothing and hides nothing.
    const drawn = segments.filter((segment) => segment.to > segment.from || segment === segments.at(-1));
    const label = row.name.startsWith(`${jobSetName}-`) ? row.name.slice(jobSetName.length + 1) : row.name;
    lanes.set(row.replicatedJob, [...(lanes.get(row.replicatedJob) ?? []), { name: row.name, label, segments: drawn }]);
  }
  return [...lanes].map(([replicatedJob, jobs]) => ({ replicatedJob, jobs }));
};

/** STARTUP_CONDITIONS: the condition types whose changes are drawn as markers. */
const DRAWN_CONDITIONS = new Set(['StartupPolicyInProgress', 'StartupPolicyCompleted', 'Completed', 'Failed', 'Suspended']);

/** markersOf: gate, condition and rejection markers. */
const markersOf = (timeline: readonly TimelineEntry[]): Marker[] => {
  const markers: Marker[] = [];
  const started = new Set<string>();
  let awaited = 'nothing awaited: starts at once';
  for (const entry of timeline) {
    const condition = entry.condition;
    if (entry.type === TimelineType.ConditionChanged && condition) {
      if (condition.type === 'StartupPolicyInProgress' && condition.status === 'True') awaited = condition.message;
      if (DRAWN_CONDITIONS.has(condition.type)) {
        markers.push({
          at: entry.at,
          kind: 'condition',
          label: `${condition.type}=${condition.status}`,
          detail: `${formatDuration(entry.at)} ${condition.type}=${condition.status} ${condition.reason}: ${condition.message}`,
        });
      }
    } else if (entry.type === TimelineType.Rejected) {
      markers.push({ at: entry.at, kind: 'rejected', label: 'Rejected', detail: `${formatDuration(entry.at)} rejected: ${entry.message ?? ''}` });
    } else if (stateAfter(entry) === 'running' && entry.replicatedJob !== undefined && !started.has(entry.replicatedJob)) {
      started.add(entry.replicatedJob);
      markers.push({
        at: entry.at,
        kind: 'gate',
        lane: entry.replicatedJob,
        label: `${entry.replicatedJob} starts`,
        detail: `${formatDuration(entry.at)} gate open for ${entry.replicatedJob}; before it the JobSet said: ${awaited}`,
      });
    }
  }
  return markers;
};

/** ticksOf: a tick per reconcile pass, its actions counted by kind. */
const ticksOf = (result: SimulationResult): Tick[] =>
  result.passes.map((pass, index) => {
    const counts = new Map<string, number>();
    for (const kind of pass.actions) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    const actions = [...counts].map(([kind, count]) => `${kind} ×${String(count)}`).join(', ');
    return {
      at: pass.at,
      label: `pass ${String(index + 1)}`,
      detail: `${formatDuration(pass.at)} pass ${String(index + 1)}: ${pass.reason}${actions === '' ? ' (no actions)' : ` → ${actions}`}`,
      differs: false,
    };
  });

/** simulationDrawing: the picture of a simulated run. */
export const simulationDrawing = (result: SimulationResult): TimelineDrawing => {
  const endAt = Math.max(result.endedAt, ...result.timeline.map((entry) => entry.at), 1);
  const final = result.final.terminalState ?? (result.stoppedBy === 'until' ? 'still running at --until' : 'not finished');
  return {
    title: `lineup simulate ${result.jobSet}`,
    subtitle: `${final} after ${formatDuration(endAt)} of virtual time, ${String(result.passes.length)} reconcile passes, ${String(result.final.restarts)} restarts`,
    endAt,
    lanes: lanesOf(result.timeline, endAt, result.jobSet.slice(result.jobSet.indexOf('/') + 1)),
    markers: markersOf(result.timeline),
    ticks: ticksOf(result),
  };
};
