/**
 * historyDrawing / replayDrawing: a recorded JobSet (its journal, or a recording) as a
 * TimelineDrawing. The journal only sees the cluster when a pass reads it, so a Job's state
 * changes at passes: each pass's recorded inputs say what every Job was (suspended, running,
 * ready, succeeded, failed), and its own writes (create, resume, suspend, delete) say what the
 * Job became once they were done. Gate actions (reason GateOpened) are markers on their
 * replicatedJob's lane, labelled with the code and message; condition changes, the success
 * policy and a rejection are markers across the lanes; a restart is a marker with its attempt
 * number, found where the JobSet status's `restarts` the passes read goes up (or, when the next
 * pass's inputs are not kept, from the pass's own reason), and so is the JobSet failing; every
 * pass is a tick and a table row with its trigger, reason and grouped actions. In a replay, each
 * row also holds what today's planner did, and the passes it decides differently are highlighted.
 */
import { ActionReasonCode } from '../plan/reasons.ts';
import { isSuspended, jobFinishedType, jobReady, replicatedJobOf } from '../plan/childJobs.ts';
import type { Job } from '../jobset/schema.ts';
import { latencyOf, latencyText, summaryOf, triggerLabel } from '../replay/history.ts';
import { passViewOf, type PassView } from '../replay/passView.ts';
import { differenceLines, identityOf } from '../replay/actionDiff.ts';
import { observedOfPass, type RecordedPass, type Recording } from '../replay/recording.ts';
import type { PassOutcome, ReplayReport } from '../replay/replay.ts';
import { formatDuration } from '../duration.ts';
import type { JournalAction } from '../store/types.ts';
import { diffActionsIdentities } from './replayIdentities.ts';
import type { ActionLine, JobRow, JobState, Lane, Marker, PassReplay, PassRow, Segment, Tick, TimelineDrawing } from './drawing.ts';
import { compactNames } from './layout.ts';

/** The reason codes drawn as markers across every lane, and the kind of marker each is. */
const JOBSET_MARKERS: Partial<Record<string, Marker['kind']>> = {
  [ActionReasonCode.ConditionChanged]: 'condition',
  [ActionReasonCode.SuccessPolicyMet]: 'condition',
  [ActionReasonCode.JobSetInvalid]: 'rejected',
};

/** The reason codes with which a CreateJob makes a suspended Job; any other creates it running. */
const CREATED_SUSPENDED = new Set<string>([ActionReasonCode.StartupRuleHeld, ActionReasonCode.JobSetSuspended]);

/** observedState: what a Job read by a pass was doing. */
const observedState = (job: Job): JobState => {
  const finished = jobFinishedType(job);
  if (finished === 'Complete') return 'succeeded';
  if (finished === 'Failed') return 'failed';
  if (isSuspended(job)) return 'suspended';
  return jobReady(job) ? 'ready' : 'running';
};

/** writtenState: what a Job is once an action of the pass is done, or undefined when the action does not change it. */
const writtenState = (action: JournalAction): JobState | 'gone' | undefined => {
  switch (action.kind) {
    case 'CreateJob':
      return CREATED_SUSPENDED.has(action.code) ? 'suspended' : 'running';
    case 'ResumeJob':
      return 'running';
    case 'SuspendJob':
      return 'suspended';
    case 'DeleteJob':
      return 'gone';
    default:
      return undefined;
  }
};

/** A Job's state from an instant on; 'gone' ends its row until it appears again. */
interface StateChange {
  readonly at: number;
  readonly state: JobState | 'gone';
}

/** What the drawing knows of the JobSet's shape: its name and its replicatedJobs in spec order. */
interface Shape {
  readonly jobSetName: string;
  readonly replicatedJobs: readonly string[];
}

/** shapeOf: the JobSet's replicatedJobs from the first pass whose inputs can be had. */
const shapeOf = (recording: Recording): Shape => {
  for (let index = 0; index < recording.passes.length; index += 1) {
    const observed = observedOfPass(recording, index);
    if (typeof observed !== 'string') return { jobSetName: recording.jobSet.name, replicatedJobs: (observed.jobSet.spec.replicatedJobs ?? []).map((rjob) => rjob.name) };
  }
  return { jobSetName: recording.jobSet.name, replicatedJobs: [] };
};

/** replicatedJobOfName: the replicatedJob of `<jobset>-<replicatedJob>-<index>` (the longest that fits), or '' when none does. */
const replicatedJobOfName = (shape: Shape, jobName: string): string =>
  shape.replicatedJobs
    .filter((rjob) => new RegExp(`^${escapeRegExp(`${shape.jobSetName}-${rjob}-`)}\\d+$`).test(jobName))
    .reduce((longest, rjob) => (rjob.length > longest.length ? rjob : longest), '');

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** jobOrder: Jobs of a lane by index, then by name. */
const jobOrder = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/** lanesOf: a row per Job, its states from the passes' observations and writes; lanes in spec order. */
const lanesOf = (recording: Recording, shape: Shape, start: number, endAt: number): Lane[] => {
  const changes = new Map<string, StateChange[]>();
  const laneOfJob = new Map<string, string>();
  const record = (job: string, at: number, state: JobState | 'gone'): void => {
    const list = changes.get(job) ?? [];
    if (list.at(-1)?.state !== state) list.push({ at, state });
    changes.set(job, list);
  };
  recording.passes.forEach((pass, index) => {
    const observed = observedOfPass(recording, index);
    if (typeof observed !== 'string') {
      const seen = new Set<string>();
      for (const job of observed.jobs) {
        const name = job.metadata.name ?? '';
        seen.add(name);
        laneOfJob.set(name, replicatedJobOf(job) ?? replicatedJobOfName(shape, name));
        record(name, pass.at - start, observedState(job));
      }
      // A Job the pass did not read is gone (deleted since), unless it is yet to appear.
      for (const [name, list] of changes) if (!seen.has(name) && list.length > 0) record(name, pass.at - start, 'gone');
    }
    const done = pass.timings.writesDoneAt - start;
    for (const action of pass.actions) {
      const state = writtenState(action);
      if (state === undefined || pass.error !== undefined || !pass.applied) continue;
      if (!laneOfJob.has(action.target)) laneOfJob.set(action.target, replicatedJobOfName(shape, action.target));
      record(action.target, done, state);
    }
  });
  const rows = new Map<string, JobRow[]>();
  for (const [name, list] of changes) {
    const segments: Segment[] = [];
    list.forEach((change, index) => {
      if (change.state === 'gone') return;
      segments.push({ from: change.at, to: list[index + 1]?.at ?? endAt, state: change.state });
    });
    if (segments.length === 0) continue;
    const lane = laneOfJob.get(name) ?? '';
    const label = name.startsWith(`${shape.jobSetName}-`) ? name.slice(shape.jobSetName.length + 1) : name;
    rows.set(lane, [...(rows.get(lane) ?? []), { name, label, segments }]);
  }
  const order = [...shape.replicatedJobs, ...[...rows.keys()].filter((lane) => !shape.replicatedJobs.includes(lane))];
  return order
    .filter((lane) => rows.has(lane))
    .map((lane) => ({ replicatedJob: lane, jobs: [...(rows.get(lane) ?? [])].sort((a, b) => jobOrder(a.name, b.name)) }));
};

/** clock: the pass's time as the page shows it: offset from the first pass and UTC time of day. */
const clock = (at: number, start: number): string => `${formatDuration(at - start)} (${new Date(at).toISOString().slice(11, 23)}Z)`;

/** markersOf: per pass, a gate marker per replicatedJob whose gate it opened, and a marker per JobSet-wide reason. */
const markersOf = (recording: Recording, shape: Shape, start: number): Marker[] => {
  const markers: Marker[] = [];
  recording.passes.forEach((pass, index) => {
    const at = pass.at - start;
    const gates = new Map<string, JournalAction[]>();
    const jobSetWide = new Map<string, JournalAction>();
    for (const action of pass.actions) {
      // The Event a resume records carries the same reason; the Jobs' own actions place the marker.
      if (action.code === ActionReasonCode.GateOpened && action.target !== '') {
        const lane = replicatedJobOfName(shape, action.target);
        gates.set(lane, [...(gates.get(lane) ?? []), action]);
      } else if (JOBSET_MARKERS[action.code] !== undefined && !jobSetWide.has(`${action.code}\n${action.message}`)) {
        jobSetWide.set(`${action.code}\n${action.message}`, action);
      }
    }
    for (const [lane, actions] of gates) {
      const messages = [...new Set(actions.map((action) => action.message))].join('; ');
      markers.push({
        at,
        kind: 'gate',
        ...(lane === '' ? {} : { lane }),
        label: `${ActionReasonCode.GateOpened}: ${messages}`,
        detail: `${clock(pass.at, start)} pass ${String(index + 1)}: ${ActionReasonCode.GateOpened} for ${lane || 'the JobSet'}: ${messages} → ${actions.map((action) => `${action.kind} ${action.target}`).join(', ')}`,
      });
    }
    for (const action of jobSetWide.values()) {
      markers.push({
        at,
        kind: JOBSET_MARKERS[action.code] ?? 'condition',
        label: `${action.code}: ${action.message}`,
        detail: `${clock(pass.at, start)} pass ${String(index + 1)}: ${action.kind} ${action.code}: ${action.message}`,
      });
    }
  });
  return [...markers, ...restartMarkersOf(recording, start), ...failedMarkersOf(recording, start)];
};

/** statusOf: the JobSet status pass `index` read, or undefined when its inputs are not kept. */
const statusOf = (recording: Recording, index: number) => {
  const observed = index < recording.passes.length ? observedOfPass(recording, index) : 'none';
  return typeof observed === 'string' ? undefined : (observed.jobSet.status ?? {});
};

/** RESTARTING: how the planner words the reason of a pass that restarts the JobSet. */
const RESTARTING = /^restarting \(attempt (\d+)\)/;

/**
 * restartMarkersOf: a marker at each pass that restarted the JobSet, with the attempt it began:
 * the pass after it read a higher `restarts` in the JobSet status, or (its inputs not kept, or no
 * pass after it) its reason says so. Each attempt is marked once.
 */
export const restartMarkersOf = (recording: Recording, start: number): Marker[] => {
  const markers: Marker[] = [];
  const seen = new Set<number>();
  recording.passes.forEach((pass, index) => {
    const restartsRead = (at: number): number | undefined => {
      const status = statusOf(recording, at);
      return status === undefined ? undefined : (status.restarts ?? 0);
    };
    const before = restartsRead(index);
    const after = restartsRead(index + 1);
    const worded = RESTARTING.exec(pass.reason)?.[1];
    const attempt = before !== undefined && after !== undefined && after > before ? after : worded === undefined ? undefined : Number(worded);
    if (attempt === undefined || seen.has(attempt)) return;
    seen.add(attempt);
    const why = pass.actions.find((action) => action.code === ActionReasonCode.FailurePolicyRule);
    markers.push({
      at: pass.at - start,
      kind: 'restart',
      attempt,
      label: `restart, attempt ${String(attempt)}`,
      detail: `${clock(pass.at, start)} pass ${String(index + 1)}: restart, attempt ${String(attempt)} begins: ${pass.reason}${why === undefined ? '' : `\n${why.code}: ${why.message}`}`,
    });
  });
  return markers;
};

/**
 * failedMarkersOf: a marker at the pass that failed the JobSet: the pass after it read a Failed
 * condition that the pass itself did not, or (its inputs not kept) its reason says so.
 */
export const failedMarkersOf = (recording: Recording, start: number): Marker[] => {
  const failedCondition = (index: number) => statusOf(recording, index)?.conditions?.find((condition) => condition.type === 'Failed' && condition.status === 'True');
  for (let index = 0; index < recording.passes.length; index += 1) {
    const pass = recording.passes[index];
    if (pass === undefined) continue;
    const condition = failedCondition(index + 1);
    const decided = (condition !== undefined && failedCondition(index) === undefined) || (statusOf(recording, index + 1) === undefined && pass.reason.startsWith('jobset failed'));
    if (!decided) continue;
    const why = pass.actions.find((action) => action.code === ActionReasonCode.FailurePolicyRule);
    return [
      {
        at: pass.at - start,
        kind: 'failed',
        label: `Failed${condition?.reason === undefined ? '' : `: ${condition.reason}`}`,
        detail: `${clock(pass.at, start)} pass ${String(index + 1)}: ${pass.reason}${why === undefined ? '' : `\n${why.code}: ${why.message}`}`,
      },
    ];
  }
  return [];
};

/** STARTUP_COMPLETED: the condition whose setting marks a startup done, as a ConditionChanged action names it. */
const STARTUP_COMPLETED = /StartupPolicyCompleted: .*has completed/;

/** startupEndOf: the last pass that completed a startup, or the last gate, whichever is later. */
const startupEndOf = (recording: Recording, markers: readonly Marker[], start: number): number | undefined => {
  const completed = recording.passes.filter((pass) => pass.actions.some((action) => action.code === ActionReasonCode.ConditionChanged && STARTUP_COMPLETED.test(action.message))).map((pass) => pass.at - start);
  const all = [...completed, ...markers.filter((marker) => marker.kind === 'gate').map((marker) => marker.at)];
  return all.length === 0 ? undefined : Math.max(...all);
};

/**
 * actionLines: a pass's actions grouped for the table: one line per kind, code and message in
 * the order each first appears, its targets named compactly, so a restart's five deletions are
 * one line; a message that names its own target is grouped without that name. An Event emitted
 * for the same reason as another action is folded into that action's line. The bookkeeping a
 * reader can skip is marked minor and shortened: a status write whose message is the pass's
 * reason, by its code alone; a condition's Event, by the condition's reason (its message repeats
 * the pass's reason, which the row already shows). `differing` holds the identities (kind and
 * target) a replay disagrees on.
 */
export const actionLines = (actions: readonly JournalAction[], jobSetName: string, passReason: string, differing: ReadonlySet<string> = new Set()): ActionLine[] => {
  interface Group {
    kind: string;
    code: string;
    message: string;
    targets: string[];
    count: number;
    events: number;
    differs: boolean;
  }
  const groups = new Map<string, Group>();
  for (const action of actions) {
    const message = action.target === '' ? action.message : action.message.split(action.target).join('').replace(/\s{2,}/g, ' ').replace(/^[\s:]+|\s+$/g, '');
    const key = `${action.kind}\n${action.code}\n${message}`;
    const group = groups.get(key) ?? { kind: action.kind, code: action.code, message, targets: [], count: 0, events: 0, differs: false };
    group.count += 1;
    if (action.target !== '') group.targets.push(action.target);
    if (differing.has(identityOf(action))) group.differs = true;
    groups.set(key, group);
  }
  const lines = [...groups.values()];
  const folded = lines.filter((line) => {
    if (line.kind !== 'EmitEvent' || line.differs) return true;
    const twin = lines.find((other) => other.kind !== 'EmitEvent' && other.code === line.code && other.message === line.message);
    if (twin === undefined) return true;
    twin.events += line.count;
    return false;
  });
  return folded.map((line): ActionLine => {
    const statusAsReason = line.kind === 'UpdateJobSetStatus' && line.message === passReason;
    const conditionEvent = line.kind === 'EmitEvent' && line.code === ActionReasonCode.ConditionChanged;
    const why = statusAsReason || line.message === '' ? line.code : conditionEvent ? `${line.code}: ${line.message.split(':')[0] ?? ''}` : `${line.code}: ${line.message}`;
    return {
      kind: line.kind,
      count: line.count,
      targets: compactNames(line.targets, jobSetName),
      why,
      ...(line.events > 0 ? { events: line.events } : {}),
      ...(line.differs ? { differs: true } : {}),
      ...((statusAsReason || conditionEvent) && !line.differs ? { minor: true } : {}),
    };
  });
};

/** triggerText: the event that triggered a pass, compactly: "Job driver-0 rv 27 MODIFIED", "+2 more" when it carried others. */
const triggerText = (pass: RecordedPass, jobSetName: string): string => {
  const [first, ...rest] = pass.triggers;
  if (first === undefined) return '(no event of its own: a later pass of its loop)';
  // The JobSet's own events need not repeat its name.
  const name = first.kind === 'JobSet' && first.name === jobSetName ? '' : ` ${compactNames([first.name], jobSetName)}`;
  return `${first.kind}${name} rv ${first.resourceVersion} ${first.watchType}${rest.length === 0 ? '' : ` +${String(rest.length)} more`}`.trim();
};

/** passReplayOf: what a replay found for one pass, the replayed actions grouped as the recorded ones. */
const passReplayOf = (outcome: PassOutcome, jobSetName: string, passReason: string): PassReplay => {
  if (outcome.result === 'same') return { outcome: 'same', actions: [], lines: [] };
  if (outcome.result === 'unreplayable') return { outcome: 'unreplayable', actions: [], lines: [outcome.why] };
  const { replayed } = diffActionsIdentities(outcome.differences);
  return {
    outcome: 'different',
    actions: actionLines(outcome.replayed, jobSetName, passReason, replayed),
    // Jobs named as the rest of the page names them, without the JobSet's prefix.
    lines: outcome.differences.flatMap((difference) => differenceLines(difference, outcome.pass)).map((line) => (jobSetName === '' ? line : line.split(`${jobSetName}-`).join(''))),
  };
};

/** passRowOf: one pass as the table shows it; `summary` is its reason as history words it (what a "nothing to do" pass wrote). */
const passRowOf = (pass: RecordedPass, index: number, start: number, jobSetName: string, outcome: PassOutcome | undefined, summary: string = pass.reason): PassRow => {
  const recordedDiffering = outcome?.result === 'different' ? diffActionsIdentities(outcome.differences).recorded : new Set<string>();
  const notes = [
    ...(pass.applied ? [] : [`not applied${pass.replayName === undefined ? '' : ` (replay ${pass.replayName})`}`]),
    ...(pass.error === undefined ? [] : [`error: ${pass.error}`]),
    ...(pass.actionsOmitted === undefined ? [] : [`${String(pass.actionsOmitted)} more actions not kept`]),
  ];
  return {
    pass: index + 1,
    at: pass.at - start,
    time: formatDuration(pass.at - start),
    clock: `${new Date(pass.at).toISOString().slice(11, 23)}Z`,
    trigger: triggerText(pass, jobSetName),
    reason: summary,
    actions: actionLines(pass.actions, jobSetName, pass.reason, recordedDiffering),
    ...(notes.length === 0 ? {} : { notes }),
    ...(outcome === undefined ? {} : { replay: passReplayOf(outcome, jobSetName, pass.reason) }),
  };
};

/** actionsText: actions of one kind, code and message counted: "CreateJob×4 StartupRuleHeld: …". */
const actionsText = (actions: readonly JournalAction[]): string[] => {
  const groups: { key: string; count: number }[] = [];
  for (const action of actions) {
    const key = `${action.kind}×COUNT ${action.code}: ${action.message}`;
    const last = groups.at(-1);
    if (last?.key === key) last.count += 1;
    else groups.push({ key, count: 1 });
  }
  return groups.map((group) => group.key.replace('COUNT', String(group.count)));
};

/** outcomeText: what a replay found for one pass, field by field when it differs. */
const outcomeText = (outcome: PassOutcome): string[] => {
  if (outcome.result === 'same') return ['replay: same'];
  if (outcome.result === 'unreplayable') return [`replay: unreplayable: ${outcome.why}`];
  return [
    `replay: DIFFERENT (${String(outcome.recorded.length)} actions recorded, ${String(outcome.replayed.length)} replayed)`,
    ...outcome.differences.flatMap((difference) => differenceLines(difference, outcome.pass)),
  ];
};

/** tickOf: one pass: when, why, after what, how long each hop took, what it did and why; and what a replay found. */
const tickOf = (pass: RecordedPass, index: number, start: number, outcome: PassOutcome | undefined): Tick => {
  const latency = latencyOf(pass.timings);
  const hops = latencyText(latency);
  const triggers = pass.triggers.map(triggerLabel);
  const lines = [
    `${clock(pass.at, start)} pass ${String(index + 1)}: ${pass.reason}`,
    `after ${triggers.length > 0 ? triggers.join('; ') : 'no event of its own'}; ${hops}`,
    ...(pass.applied ? [] : [`not applied${pass.replayName === undefined ? '' : ` (replay ${pass.replayName})`}`]),
    ...(pass.error === undefined ? [] : [`error: ${pass.error}`]),
    ...(pass.actions.length === 0 ? ['no actions'] : actionsText(pass.actions)),
    ...(pass.actionsOmitted === undefined ? [] : [`… ${String(pass.actionsOmitted)} more actions not kept`]),
    ...(outcome === undefined ? [] : outcomeText(outcome)),
  ];
  return {
    at: pass.at - start,
    label: `pass ${String(index + 1)}`,
    pass: index + 1,
    detail: lines.join('\n'),
    differs: outcome?.result === 'different',
    ...(outcome === undefined ? {} : { outcome: outcome.result }),
  };
};

/**
 * rowSummary: a summary short enough for the table's reason column: of a status write, the
 * conditions it turned True ("wrote status: StartupPolicyCompleted=True"); the counts and the
 * other conditions are in the row's actions and in `lineup history`'s text.
 */
export const rowSummary = (summary: string): string => {
  const written = /^wrote status: ([^;]*)/.exec(summary)?.[1];
  if (written === undefined) return summary;
  const conditions = written.split(/,\s*(?=[A-Za-z]+=)/).map((entry) => entry.replace(/\s*\(.*\)$/, '').trim());
  const turnedTrue = conditions.filter((entry) => entry.endsWith('=True'));
  return `wrote status: ${(turnedTrue.length > 0 ? turnedTrue : conditions.slice(0, 1)).join(', ')}`;
};

/** viewOf: what pass `index` saw and wrote, for its summary; undefined when its inputs were not kept. */
const viewOf = (recording: Recording, index: number): PassView | undefined => {
  const pass = recording.passes[index];
  const observed = observedOfPass(recording, index);
  return pass === undefined || typeof observed === 'string' ? undefined : passViewOf(observed, pass.planOptions, pass.actions);
};

/** recordingDrawing: the picture of a recording, with a replay's outcome per pass when given. */
const recordingDrawing = (recording: Recording, title: string, subtitle: string, outcomes: readonly PassOutcome[] | undefined): TimelineDrawing => {
  const start = recording.passes[0]?.at ?? 0;
  const endAt = Math.max(1, ...recording.passes.map((pass) => Math.max(pass.at, pass.timings.writesDoneAt) - start));
  const shape = shapeOf(recording);
  const markers = markersOf(recording, shape, start);
  const outcomeOf = (index: number): PassOutcome | undefined => outcomes?.find((outcome) => outcome.pass === index + 1);
  return {
    title,
    subtitle,
    endAt,
    lanes: lanesOf(recording, shape, start, endAt),
    markers,
    ticks: recording.passes.map((pass, index) => tickOf(pass, index, start, outcomeOf(index))),
    startupEnd: startupEndOf(recording, markers, start),
    passes: recording.passes.map((pass, index) => passRowOf(pass, index, start, shape.jobSetName, outcomeOf(index), rowSummary(summaryOf(pass, viewOf(recording, index))))),
  };
};

const keyText = (recording: Recording): string => `${recording.jobSet.cluster}/${recording.jobSet.namespace}/${recording.jobSet.name}`;

/** span: "12 passes from 2026-01-01T00:00:00.000Z over 32s". */
const span = (recording: Recording): string => {
  const first = recording.passes[0];
  const last = recording.passes.at(-1);
  if (first === undefined || last === undefined) return 'no passes';
  return `${String(recording.passes.length)} passes from ${new Date(first.at).toISOString()} over ${formatDuration(last.timings.writesDoneAt - first.at)}`;
};

/** historyDrawing: the picture `lineup history --output html` draws of a JobSet's journal. */
export const historyDrawing = (recording: Recording): TimelineDrawing =>
  recordingDrawing(
    recording,
    `lineup history ${keyText(recording)}`,
    `${span(recording)}, planner ${[...new Set(recording.passes.map((pass) => pass.plannerVersion))].join(', ')}`,
    undefined,
  );

/** replayDrawing: the picture `lineup replay --output html` draws: the recording, its differing passes highlighted. */
export const replayDrawing = (recording: Recording, report: ReplayReport): TimelineDrawing => ({
  ...recordingDrawing(
    recording,
    `lineup replay ${keyText(recording)}`,
    `${String(report.same)} same, ${String(report.different)} different, ${String(report.unreplayable)} unreplayable${report.firstDivergence === undefined ? '' : ` (first divergence: pass ${String(report.firstDivergence.pass)})`}: ${span(recording)} recorded by ${report.recordedPlannerVersions.join(', ')}, replayed with ${report.plannerVersion}`,
    report.passes,
  ),
  replay: {
    jobSet: keyText(recording),
    passes: report.passes.length,
    same: report.same,
    different: report.different,
    unreplayable: report.unreplayable,
    firstDivergence: report.firstDivergence?.pass,
  },
});
