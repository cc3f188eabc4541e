/**
 * simulationDrawing: a simulated run (lib/sim) as a TimelineDrawing: Job states from the
 * timeline entries, a gate marker where each replicatedJob's first Job began to run (labelled
 * with what the startup condition said it was waiting for just before, and again after each
 * restart), a condition marker per startup or terminal condition change, a restart marker with
 * its attempt number, a failure marker, a tick and a table row per reconcile pass.
 */
import { formatDuration } from '../duration.ts';
import type { SimulationResult } from '../sim/simulate.ts';
import { TimelineType, type TimelineEntry } from '../sim/timeline.ts';
import type { ActionLine, JobRow, JobState, Lane, Marker, PassRow, Segment, Tick, TimelineDrawing } from './drawing.ts';

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

/** DRAWN_CONDITIONS: the condition types whose changes are drawn as markers. */
const DRAWN_CONDITIONS = new Set(['StartupPolicyInProgress', 'StartupPolicyCompleted', 'Completed', 'Suspended', 'RestartingJobSet']);

/**
 * PREVIOUS_ATTEMPT: the message of a JobDeleted entry for a Job of an earlier restart attempt
 * (the planner's delete reason). A restart deletes every Job of the attempt before it once, so
 * the k-th such deletion of any Job belongs to restart k: counting them per Job numbers the
 * restarts even when two follow each other without the RestartingJobSet condition changing.
 */
const PREVIOUS_ATTEMPT = 'previous restart attempt';

/** restartsOf: when each restart began (its first deletion of an earlier attempt's Job), in order. */
export const restartsOf = (timeline: readonly TimelineEntry[]): number[] => {
  const deletions = new Map<string, number>();
  const starts: number[] = [];
  for (const entry of timeline) {
    if (entry.type !== TimelineType.JobDeleted || entry.job === undefined || entry.message !== PREVIOUS_ATTEMPT) continue;
    const nth = (deletions.get(entry.job) ?? 0) + 1;
    deletions.set(entry.job, nth);
    if (starts[nth - 1] === undefined) starts[nth - 1] = entry.at;
  }
  return starts;
};

/** markersOf: gate, condition, restart, failure and rejection markers. */
const markersOf = (timeline: readonly TimelineEntry[]): Marker[] => {
  const markers: Marker[] = [];
  const restarts = restartsOf(timeline);
  let attempt = 0;
  let started = new Set<string>();
  let awaited = 'nothing awaited: starts at once';
  let restarting = '';
  for (const entry of timeline) {
    // Each restart starts the gates over: the first Job of each replicatedJob to run again marks it anew.
    while (restarts[attempt] !== undefined && (restarts[attempt] ?? 0) <= entry.at) {
      attempt += 1;
      started = new Set();
      markers.push({
        at: restarts[attempt - 1] ?? entry.at,
        kind: 'restart',
        attempt,
        label: `restart, attempt ${String(attempt)}`,
        detail: `${formatDuration(restarts[attempt - 1] ?? entry.at)} restart: attempt ${String(attempt)} begins, every Job of the attempt before is deleted and created again${restarting === '' ? '' : `; ${restarting}`}`,
      });
    }
    const condition = entry.condition;
    if (entry.type === TimelineType.ConditionChanged && condition) {
      if (condition.type === 'StartupPolicyInProgress' && condition.status === 'True') awaited = condition.message;
      if (condition.type === 'RestartingJobSet' && condition.status === 'True') restarting = `${condition.reason}: ${condition.message}`;
      if (condition.type === 'Failed' && condition.status === 'True') {
        markers.push({
          at: entry.at,
          kind: 'failed',
          label: `Failed: ${condition.reason}`,
          detail: `${formatDuration(entry.at)} JobSet failed: ${condition.reason}: ${condition.message}`,
        });
      } else if (DRAWN_CONDITIONS.has(condition.type)) {
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
        label: `${entry.replicatedJob} starts${attempt === 0 ? '' : ` (attempt ${String(attempt)})`}`,
        detail: `${formatDuration(entry.at)} gate open for ${entry.replicatedJob}; before it the JobSet said: ${awaited}`,
      });
    }
  }
  return markers;
};

/**
 * startupEndOf: when the (last) startup completed or its last stage started, whichever is later:
 * the end of the stretch the picture draws wide.
 */
const startupEndOf = (markers: readonly Marker[], timeline: readonly TimelineEntry[]): number | undefined => {
  const completed = timeline.filter((entry) => entry.condition?.type === 'StartupPolicyCompleted' && entry.condition.status === 'True').map((entry) => entry.at);
  const gates = markers.filter((marker) => marker.kind === 'gate').map((marker) => marker.at);
  const all = [...completed, ...gates];
  return all.length === 0 ? undefined : Math.max(...all);
};

/** actionLinesOf: a simulated pass's actions counted by kind (the simulator keeps no targets). */
const actionLinesOf = (actions: readonly string[]): ActionLine[] => {
  const counts = new Map<string, number>();
  for (const kind of actions) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => ({ kind, count, targets: '', why: '' }));
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
      pass: index + 1,
      detail: `${formatDuration(pass.at)} pass ${String(index + 1)}: ${pass.reason}${actions === '' ? ' (no actions)' : ` → ${actions}`}`,
      differs: false,
    };
  });

/** passRowsOf: a table row per pass; an action the simulated API server refused is noted on the pass it ended. */
const passRowsOf = (result: SimulationResult): PassRow[] =>
  result.passes.map((pass, index) => {
    const next = result.passes[index + 1];
    // A refused action ends its pass; the next pass at the same instant is a later one, so the error is this pass's if it is the last at that instant.
    const refused = next !== undefined && next.at === pass.at ? [] : result.errors.filter((error) => error.at === pass.at);
    return {
      pass: index + 1,
      at: pass.at,
      time: formatDuration(pass.at),
      reason: pass.reason,
      actions: actionLinesOf(pass.actions),
      ...(refused.length === 0 ? {} : { notes: refused.map((error) => `refused: ${error.action}: ${error.message}`) }),
    };
  });

/** simulationDrawing: the picture of a simulated run. */
export const simulationDrawing = (result: SimulationResult): TimelineDrawing => {
  const endAt = Math.max(result.endedAt, ...result.timeline.map((entry) => entry.at), 1);
  const final = result.final.terminalState ?? (result.stoppedBy === 'until' ? 'still running at --until' : 'not finished');
  const markers = markersOf(result.timeline);
  return {
    title: `lineup simulate ${result.jobSet}`,
    subtitle: `${final} after ${formatDuration(endAt)} of virtual time, ${String(result.passes.length)} reconcile passes, ${String(result.final.restarts)} restarts`,
    endAt,
    lanes: lanesOf(result.timeline, endAt, result.jobSet.slice(result.jobSet.indexOf('/') + 1)),
    markers,
    ticks: ticksOf(result),
    startupEnd: startupEndOf(markers, result.timeline),
    passes: passRowsOf(result),
  };
};
