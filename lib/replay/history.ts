/**
 * A JobSet's story from its journal (`lineup history`): each pass with the events that triggered
 * it, the latency of each hop, what the planner saw (the counts it judged, the gate with its
 * numbers, rebuilt from the pass's recorded inputs: ./passView.ts), and its actions with their
 * reasons and the Jobs they name; then, per stage, where the time went from the event that opened
 * its gate to its Jobs Ready. The JSON shape (HistoryReport) is documented in docs/debugging.md and kept
 * stable: fields are only ever added.
 */
import { ActionReasonCode } from '../plan/reasons.ts';
import { inputsResolver } from '../reconcile/journal.ts';
import { formatDuration } from '../duration.ts';
import type { JobSetKey, JournalEntry, JournalEvent } from '../store/types.ts';
import { jobNamesText } from './jobNames.ts';
import { passViewOf, statusWriteText, type PassGate, type PassView, type ReplicatedJobCounts, type StatusWrite } from './passView.ts';

/** HISTORY_FORMAT: the format field of `lineup history --output json`. */
export const HISTORY_FORMAT = 'lineup.dev/history/v1';

/** Milliseconds spent in each hop of a pass; a hop whose ends were not recorded is absent. */
export interface HopLatency {
  /** Forwarder saw the change → the event time on the bus (absent when the bus keeps whole seconds). */
  readonly seenToBus?: number | undefined;
  /** Event time → the reconciler received it (absent when the bus keeps whole seconds). */
  readonly busToReceived?: number | undefined;
  /**
   * Forwarder saw the change → the reconciler received it: the two hops above in one, given
   * instead of them when the event time is in whole seconds (EventBridge on AWS, the local bus),
   * where splitting at the bus would be off by up to a second, often below zero.
   */
  readonly seenToReceived?: number | undefined;
  /** Received → the pass started (the lease, earlier passes of the loop). */
  readonly receivedToPass?: number | undefined;
  /** Pass started → its writes were done (reads, planning, writes). */
  readonly pass: number;
}

/** One action as history shows it. */
export interface HistoryAction {
  readonly kind: string;
  readonly target: string;
  readonly code: string;
  readonly message: string;
}

/** One pass as history shows it. */
export interface HistoryPass {
  readonly pass: number;
  /** ISO 8601 time of the pass. */
  readonly at: string;
  readonly triggers: readonly JournalEvent[];
  readonly latency: HopLatency;
  readonly reason: string;
  readonly applied: boolean;
  readonly replayName?: string | undefined;
  readonly error?: string | undefined;
  readonly plannerVersion: string;
  readonly inputsDigest: string;
  readonly inputsKept: JournalEntry['inputsKept'];
  readonly actions: readonly HistoryAction[];
  readonly actionsOmitted?: number | undefined;
  /**
   * The pass in one line, as the text prints it: the planner's reason, or for a pass whose reason
   * is "nothing to do" but which wrote something (the status, the condition that completes the
   * startup), what it wrote.
   */
  readonly summary: string;
  /** The counts the planner judged, per replicatedJob in spec order; absent when the inputs cannot be had (inputsUnavailable). */
  readonly counts?: readonly ReplicatedJobCounts[] | undefined;
  /** Why the counts are absent: the inputs were too large to keep, or their chain is broken. */
  readonly inputsUnavailable?: string | undefined;
  /** The startup gate the pass evaluated, with its numbers (absent when it evaluated none: a finished or failing JobSet). */
  readonly gate?: PassGate | undefined;
  /** What the pass's status write changed (absent when it wrote none, or today's planner does not write the recorded one). */
  readonly statusWrite?: StatusWrite | undefined;
}

/**
 * Where the time went before a gate opened: from the event that let it open to the pass that
 * opened it and to that pass's writes done, hop by hop. A later pass of a lease loop keeps no event
 * of its own (the events that arrived during the pass before it are folded into it): its gate is
 * timed from the event that started the loop, `eventPass` naming that pass.
 */
export interface GateTiming {
  /** The pass that opened the gate (1-based, as in `passes`). */
  readonly pass: number;
  /** ISO 8601 time of that pass. */
  readonly at: string;
  /** The gate as its GateOpened reason says it, e.g. "InOrder: driver Ready 2/2". */
  readonly gate: string;
  /** The pass whose event the times start from: `pass` itself, or the first pass of its loop. */
  readonly eventPass: number;
  /** That event (absent when no pass before it recorded one). */
  readonly event?: JournalEvent | undefined;
  /** ms from the event (seen by the forwarder, else its bus time, else received) to the pass's start. */
  readonly toPass?: number | undefined;
  /** ms from the event to the pass's writes done. */
  readonly toWritesDone?: number | undefined;
  /** The hops in between: received→pass counts any earlier passes of the loop. */
  readonly hops: HopLatency;
  /** The stage the gate released and how it came up, when the passes' inputs can be read. */
  readonly stage?: StageTiming | undefined;
}

/** A moment of a stage as the passes saw it: the first pass whose inputs show it. */
export interface StageMark {
  readonly pass: number;
  /**
   * ISO 8601: when the cluster reported it, at the latest: the event of that pass (seen by the
   * forwarder, else its bus time, else received), or the pass's start when it had no event of its
   * own; never before the gate pass's writes were done.
   */
  readonly at: string;
  /** ms from the gate pass's writes done to `at`. */
  readonly afterWritesDone: number;
}

/** A stage: the replicatedJobs one gate released together, from the gate opening to their Jobs Ready. */
export interface StageTiming {
  readonly replicatedJobs: readonly string[];
  /** The Jobs the gate's pass created running. */
  readonly created: readonly string[];
  /** The Jobs the gate's pass resumed. */
  readonly resumed: readonly string[];
  /** The first later pass whose inputs show a Job of the stage with a pod active, ready or finished; absent: none did (unknown). */
  readonly firstRunning?: StageMark | undefined;
  /** The first later pass whose inputs show every replicatedJob of the stage Ready as a gate counts it; absent: none did. */
  readonly ready?: StageMark | undefined;
  /** Lineup's time: ms from the event reaching Lineup (the forwarder) to the gate pass's writes done (toWritesDone). */
  readonly lineup?: number | undefined;
  /** The cluster's time: ms from those writes done to the stage Ready (ready.afterWritesDone). */
  readonly cluster?: number | undefined;
}

/** `lineup history --output json`. */
export interface HistoryReport {
  readonly format: typeof HISTORY_FORMAT;
  readonly jobSet: JobSetKey;
  /** The newest passes, at most `--limit`, oldest first, numbered among all the JobSet's passes. */
  readonly passes: readonly HistoryPass[];
  /** Each gate that opened in those passes, in pass order, with where the time went before and after it (gateTimingsOf). */
  readonly gates: readonly GateTiming[];
  /** How many passes the journal holds for the JobSet (more than `passes` when --limit cut the oldest). */
  readonly totalPasses: number;
}

/** The reason code of an action that opens a gate. */
const GATE_OPENED: string = ActionReasonCode.GateOpened;

/** The reason codes of an action a startup gate decided. */
const GATE_CODES = new Set<string>([ActionReasonCode.GateOpened, ActionReasonCode.StartupRuleHeld, ActionReasonCode.AlreadyRunning]);

/** The status write's reason code when no step tagged it: its message is then the pass's reason (lib/plan/planner.ts defaultReason). */
const STATUS_CHANGED: string = ActionReasonCode.StatusChanged;

/** The reason code of an Event for a changed condition; its message starts with the condition's reason. */
const CONDITION_CHANGED: string = ActionReasonCode.ConditionChanged;

/** The planner's reason for a pass that created, resumed and suspended nothing and waits on nothing (lib/plan/planner.ts). */
const NOTHING_TO_DO = 'nothing to do';

/** difference: b − a when both are known. */
const difference = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined ? undefined : b - a);

/**
 * hopsOf: each hop from the event in `from` to a pass that started at `passStartedAt` and wrote
 * until `writesDoneAt`, for the hops whose ends were recorded. An event time in whole seconds
 * cannot split the way to the reconciler at the bus, so that way is one hop then.
 */
const hopsOf = (from: Partial<JournalEntry['timings']> | undefined, passStartedAt: number, writesDoneAt: number): HopLatency => {
  const wholeSeconds = from?.eventAt !== undefined && from.eventAt % 1000 === 0 && from.seenAt !== undefined;
  const seenToBus = wholeSeconds ? undefined : difference(from?.seenAt, from?.eventAt);
  const busToReceived = wholeSeconds ? undefined : difference(from?.eventAt, from?.receivedAt);
  const seenToReceived = wholeSeconds ? difference(from?.seenAt, from?.receivedAt) : undefined;
  const receivedToPass = difference(from?.receivedAt, passStartedAt);
  return {
    ...(seenToBus !== undefined ? { seenToBus } : {}),
    ...(busToReceived !== undefined ? { busToReceived } : {}),
    ...(seenToReceived !== undefined ? { seenToReceived } : {}),
    ...(receivedToPass !== undefined ? { receivedToPass } : {}),
    pass: writesDoneAt - passStartedAt,
  };
};

/** latencyOf: each hop of a pass that has both ends recorded. */
export const latencyOf = (timings: JournalEntry['timings']): HopLatency => hopsOf(timings, timings.passStartedAt, timings.writesDoneAt);

/** eventStartOf: when a pass's handled event reached Lineup: seen by the forwarder, else its bus time, else received. */
const eventStartOf = (timings: Partial<JournalEntry['timings']>): number | undefined => timings.seenAt ?? timings.eventAt ?? timings.receivedAt;

/**
 * reportedAt: the latest the cluster can have reported what a pass read: its event, or for a pass
 * without one (its events arrived during the pass before) its start.
 */
const reportedAt = (entry: JournalEntry): number => (entry.triggers.length > 0 ? (eventStartOf(entry.timings) ?? entry.timings.passStartedAt) : entry.timings.passStartedAt);

/** A pass's view for gate timings: what it judged, or undefined when its inputs cannot be had. */
export type PassViewAt = (index: number) => PassView | undefined;

/**
 * stageOf: the stage the GateOpened actions with `gate` of pass `index` start, and how it came up:
 * the first later pass whose inputs show one of its Jobs running, and the first that shows it
 * Ready, up to the next restart (a new attempt starts every stage again).
 */
const stageOf = (entries: readonly JournalEntry[], index: number, gate: string, viewAt: PassViewAt, toWritesDone: number | undefined): StageTiming | undefined => {
  const entry = entries[index];
  const view = viewAt(index);
  if (entry === undefined || view === undefined) return undefined;
  const starts = entry.actions.filter((action) => action.code === GATE_OPENED && action.message === gate && (action.kind === 'CreateJob' || action.kind === 'ResumeJob'));
  const replicatedJobs = [...new Set(starts.map((action) => view.replicatedJobOfJob(action.target)).filter((name): name is string => name !== undefined))];
  if (replicatedJobs.length === 0) return undefined;
  const writesDone = entry.timings.writesDoneAt;
  const markOf = (later: number): StageMark => {
    const at = Math.max(writesDone, reportedAt(entries[later] ?? entry));
    return { pass: later + 1, at: new Date(at).toISOString(), afterWritesDone: at - writesDone };
  };
  let firstRunning: StageMark | undefined;
  let ready: StageMark | undefined;
  for (let later = index + 1; later < entries.length && ready === undefined; later += 1) {
    const seen = viewAt(later);
    if (seen === undefined) continue;
    if (seen.attempt !== view.attempt) break;
    if (firstRunning === undefined && seen.ran(replicatedJobs)) firstRunning = markOf(later);
    if (seen.ready(replicatedJobs)) ready = markOf(later);
  }
  return {
    replicatedJobs,
    created: starts.filter((action) => action.kind === 'CreateJob').map((action) => action.target),
    resumed: starts.filter((action) => action.kind === 'ResumeJob').map((action) => action.target),
    ...(firstRunning !== undefined ? { firstRunning } : {}),
    ...(ready !== undefined ? { ready } : {}),
    ...(toWritesDone !== undefined ? { lineup: toWritesDone } : {}),
    ...(ready !== undefined ? { cluster: ready.afterWritesDone } : {}),
  };
};

/**
 * gateTimingsOf: for each pass's each distinct GateOpened reason, the time from the event that let
 * the gate open (the pass's trigger, or its loop's) to the pass and to its writes done; with
 * `viewAt` (what each pass judged), also the stage it released and how long that took to be Ready.
 */
export const gateTimingsOf = (entries: readonly JournalEntry[], viewAt?: PassViewAt): GateTiming[] => {
  const gates: GateTiming[] = [];
  let loopStart: { readonly index: number; readonly entry: JournalEntry } | undefined;
  entries.forEach((entry, index) => {
    if (entry.triggers.length > 0) loopStart = { index, entry };
    const opened = [...new Set(entry.actions.filter((action) => action.code === GATE_OPENED).map((action) => action.message))];
    if (opened.length === 0) return;
    const from = loopStart?.entry.timings;
    const start = from === undefined ? undefined : eventStartOf(from);
    const hops = hopsOf(from, entry.timings.passStartedAt, entry.timings.writesDoneAt);
    const toPass = difference(start, entry.timings.passStartedAt);
    const toWritesDone = difference(start, entry.timings.writesDoneAt);
    const event = loopStart?.entry.triggers[0];
    for (const gate of opened) {
      const stage = viewAt === undefined ? undefined : stageOf(entries, index, gate, viewAt, toWritesDone);
      gates.push({
        pass: index + 1,
        at: new Date(entry.at).toISOString(),
        gate,
        eventPass: (loopStart?.index ?? index) + 1,
        ...(event !== undefined ? { event } : {}),
        ...(toPass !== undefined ? { toPass } : {}),
        ...(toWritesDone !== undefined ? { toWritesDone } : {}),
        hops,
        ...(stage !== undefined ? { stage } : {}),
      });
    }
  });
  return gates;
};

/** HistoryOptions: how much of the journal to tell. */
export interface HistoryOptions {
  /** Tell only the newest this many passes (the ones being debugged, usually). @default every pass */
  readonly limit?: number | undefined;
}

/** firstShown: the index of the first entry a history of `total` entries shows under `limit`. */
export const firstShown = (total: number, limit: number | undefined): number => (limit === undefined || total <= limit ? 0 : total - limit);

/**
 * passViewsOf: what each pass from `from` on judged, rebuilt from its inputs (a delta walks back to
 * its keyframe, which may be before `from`), or why that cannot be done.
 */
const passViewsOf = (entries: readonly JournalEntry[], from: number): (PassView | string)[] => {
  const resolve = inputsResolver(entries);
  return entries.map((entry, index) => {
    if (index < from) return 'not shown';
    const inputs = resolve(index);
    if (typeof inputs === 'string') return inputs;
    try {
      return passViewOf({ ...inputs, now: entry.at }, entry.planOptions, entry.actions);
    } catch (error) {
      // Inputs that parse but that the planner's reading refuses: say so for this pass alone.
      return `inputs cannot be read: ${(error as Error).message}`;
    }
  });
};

/**
 * summaryOf: the pass's reason, unless the planner said "nothing to do" of a pass that wrote
 * something (the status write that completes a startup, or records counts): then what it wrote.
 * Without the status write itself (today's planner would write another), the conditions its
 * Events announce.
 */
export const summaryOf = (entry: Pick<JournalEntry, 'reason' | 'actions'>, view: PassView | undefined): string => {
  if (!entry.reason.startsWith(NOTHING_TO_DO) || entry.actions.length === 0) return entry.reason;
  const notes = entry.reason.slice(NOTHING_TO_DO.length);
  const announced = entry.actions.filter((action) => action.kind === 'EmitEvent' && action.code === CONDITION_CHANGED).map((action) => action.message.split(':')[0] ?? '');
  const wroteStatus = entry.actions.some((action) => action.kind === 'UpdateJobSetStatus');
  const status =
    view?.statusWrite !== undefined
      ? `status: ${statusWriteText(view.statusWrite)}`
      : wroteStatus
        ? `status${announced.length > 0 ? `: ${announced.join(', ')}` : ''}`
        : undefined;
  const others = new Map<string, number>();
  for (const action of entry.actions) {
    // The status and the conditions its Events announce are said already.
    if (action.kind === 'UpdateJobSetStatus' || (status !== undefined && action.kind === 'EmitEvent' && action.code === CONDITION_CHANGED)) continue;
    others.set(action.kind, (others.get(action.kind) ?? 0) + 1);
  }
  const parts = [...(status !== undefined ? [status] : []), ...[...others].map(([kind, count]) => `${kind}×${count}`)];
  return `wrote ${parts.join(', ')}${notes}`;
};

/** historyOf: the story of one JobSet's entries (oldest first): the newest `limit` passes, oldest of them first. */
export const historyOf = (key: JobSetKey, entries: readonly JournalEntry[], options: HistoryOptions = {}): HistoryReport => {
  const from = firstShown(entries.length, options.limit);
  const views = passViewsOf(entries, from);
  const viewAt: PassViewAt = (index) => {
    const view = views[index];
    return typeof view === 'object' ? view : undefined;
  };
  return {
    format: HISTORY_FORMAT,
    jobSet: { cluster: key.cluster, namespace: key.namespace, name: key.name },
    passes: entries.slice(from).map((entry, offset) => {
      const index = from + offset;
      const view = viewAt(index);
      const unavailable = views[index];
      return {
        pass: index + 1,
        at: new Date(entry.at).toISOString(),
        triggers: entry.triggers,
        latency: latencyOf(entry.timings),
        reason: entry.reason,
        applied: entry.applied,
        ...(entry.replayName !== undefined ? { replayName: entry.replayName } : {}),
        ...(entry.error !== undefined ? { error: entry.error } : {}),
        plannerVersion: entry.plannerVersion,
        inputsDigest: entry.inputsDigest,
        inputsKept: entry.inputsKept,
        actions: entry.actions.map(({ kind, target, code, message }) => ({ kind, target, code, message })),
        ...(entry.actionsOmitted !== undefined ? { actionsOmitted: entry.actionsOmitted } : {}),
        summary: summaryOf(entry, view),
        ...(view !== undefined ? { counts: view.counts } : { inputsUnavailable: typeof unavailable === 'string' ? unavailable : 'no inputs' }),
        ...(view?.gate !== undefined ? { gate: view.gate } : {}),
        ...(view?.statusWrite !== undefined ? { statusWrite: view.statusWrite } : {}),
      };
    }),
    gates: gateTimingsOf(entries, viewAt).filter((gate) => gate.pass > from),
    totalPasses: entries.length,
  };
};

/** An action group as the text prints it: consecutive actions of one kind with one reason. */
interface ActionGroup {
  readonly kind: string;
  readonly code: string;
  readonly message: string;
  readonly targets: string[];
}

/** groupedActions: consecutive actions of one kind with one reason, their targets collected (a startup creates many alike). */
const groupedActions = (actions: readonly Pick<HistoryAction, 'kind' | 'target' | 'code' | 'message'>[]): ActionGroup[] => {
  const groups: ActionGroup[] = [];
  for (const action of actions) {
    const last = groups.at(-1);
    if (last && last.kind === action.kind && last.code === action.code && last.message === action.message) last.targets.push(action.target);
    else groups.push({ kind: action.kind, code: action.code, message: action.message, targets: [action.target] });
  }
  return groups;
};

/** latencyText: "seen→bus 30 ms, bus→received 8 ms, received→pass 2 ms, pass 41 ms", known hops only. */
export const latencyText = (latency: HopLatency): string =>
  [
    latency.seenToBus !== undefined ? `seen→bus ${latency.seenToBus} ms` : undefined,
    latency.busToReceived !== undefined ? `bus→received ${latency.busToReceived} ms` : undefined,
    latency.seenToReceived !== undefined ? `seen→received ${latency.seenToReceived} ms` : undefined,
    latency.receivedToPass !== undefined ? `received→pass ${latency.receivedToPass} ms` : undefined,
    `pass ${latency.pass} ms`,
  ]
    .filter((part): part is string => part !== undefined)
    .join(', ');

/** durationText: "41 ms" under a second, else "1m30s": a stage's cluster time is often minutes. */
const durationText = (ms: number): string => (ms < 1000 ? `${ms} ms` : formatDuration(ms));

/** triggerLabel: "Job Changed Job js-a-0 rv 12": an event as a replay's first divergence and a drawn pass name it. */
export const triggerLabel = (trigger: JournalEvent): string => `${trigger.detailType} ${trigger.kind} ${trigger.name} rv ${trigger.resourceVersion}`;

/** triggerText: "Job Changed Job js-a-0 rv 12 MODIFIED (replay r1)". */
const triggerText = (trigger: JournalEvent): string =>
  `${trigger.detailType || 'event'} ${trigger.kind} ${trigger.name} rv ${trigger.resourceVersion} ${trigger.watchType}${trigger.replayName ? ` (replay ${trigger.replayName})` : ''}`;

/** countsText: "messagequeue 1/1 jobs: 1 active, 1 ready; driver 2/2 jobs: 2 suspended", zero counts left out. */
export const countsText = (counts: readonly ReplicatedJobCounts[]): string =>
  counts
    .map((one) => {
      const nonZero = (['active', 'ready', 'succeeded', 'failed', 'suspended'] as const).filter((field) => one[field] > 0).map((field) => `${one[field]} ${field}`);
      const earlier = one.previousAttempt !== undefined ? [`${one.previousAttempt} of an earlier attempt`] : [];
      const details = one.jobs === 0 && earlier.length === 0 ? '' : `: ${[...(nonZero.length > 0 || one.jobs === 0 ? nonZero : ['0 active']), ...earlier].join(', ')}`;
      return `${one.replicatedJob} ${one.jobs}/${one.replicas} jobs${details}`;
    })
    .join('; ');

/** stageText: the lines a gate's stage adds to "where the time went". */
const stageText = (stage: StageTiming, jobSetName: string): string[] => {
  const started = [
    stage.created.length > 0 ? `created ${jobNamesText(stage.created, jobSetName)}` : undefined,
    stage.resumed.length > 0 ? `resumed ${jobNamesText(stage.resumed, jobSetName)}` : undefined,
  ].filter((part): part is string => part !== undefined);
  const mark = (what: string, at: StageMark | undefined, otherwise: string): string => (at === undefined ? `${what}: ${otherwise}` : `${what} by pass ${at.pass}, +${durationText(at.afterWritesDone)}`);
  const lineup = stage.lineup === undefined ? "Lineup's time unknown (no recorded event)" : `Lineup ${stage.lineup} ms (event → writes done)`;
  const cluster = stage.cluster === undefined ? 'the cluster: not Ready in the passes shown' : `the cluster ${durationText(stage.cluster)} (writes done → Ready)`;
  return [
    `    ${stage.replicatedJobs.join(', ')}: ${started.join(', ')} → ${mark('a pod running', stage.firstRunning, 'unknown')} → ${mark('Ready', stage.ready, 'not seen')}`,
    `    ${lineup}, ${cluster}`,
  ];
};

/** gateText: one gate's paragraph of "where the time went". */
const gateText = (gate: GateTiming, jobSetName: string): string => {
  const event = gate.event === undefined ? 'no recorded event' : `${triggerText(gate.event)}${gate.eventPass === gate.pass ? '' : ` (the event of pass ${gate.eventPass}, which started its loop)`}`;
  const totals = [gate.toPass !== undefined ? `event→pass ${gate.toPass} ms` : undefined, gate.toWritesDone !== undefined ? `event→writes done ${gate.toWritesDone} ms` : undefined]
    .filter((part): part is string => part !== undefined)
    .join(', ');
  return [
    `  pass ${gate.pass}  ${gate.at}  ${gate.gate}`,
    `    after ${event}`,
    `    ${totals === '' ? '' : `${totals}: `}${latencyText(gate.hops)}`,
    ...(gate.stage === undefined ? [] : stageText(gate.stage, jobSetName)),
  ].join('\n');
};

/** The action kinds whose target is a Job: their Jobs are named (another target is in the message already). */
const JOB_KINDS = new Set(['CreateJob', 'ResumeJob', 'SuspendJob', 'DeleteJob', 'RemoveJobFinalizer']);

/**
 * actionText: "ResumeJob×2 GateOpened: InOrder: messagequeue Ready 1/1" and, below it, the Jobs it
 * names ("driver-0, driver-1"). The first line is kept as it always was, since scripts and tests
 * match it; the names go on their own line.
 */
const actionText = (group: ActionGroup, pass: HistoryPass, jobSetName: string): string[] => {
  // An untagged status write carries the pass's reason; what it changed says more.
  const message = group.kind === 'UpdateJobSetStatus' && group.code === STATUS_CHANGED && pass.statusWrite !== undefined ? statusWriteText(pass.statusWrite) : group.message;
  const named = JOB_KINDS.has(group.kind) ? group.targets.filter((target) => target !== '') : [];
  return [`    ${group.kind}×${group.targets.length} ${group.code}: ${message}`, ...(named.length > 0 ? [`      ${jobNamesText(named, jobSetName)}`] : [])];
};

/** showsGate: a gate line says why the pass held or released: when something is held, or the pass acted on a gate. */
const showsGate = (pass: HistoryPass): pass is HistoryPass & { gate: PassGate } =>
  pass.gate !== undefined && pass.gate.form !== 'AnyOrder' && (pass.gate.held.length > 0 || pass.actions.some((action) => GATE_CODES.has(action.code)));

/** passText: one pass's paragraph. */
const passText = (pass: HistoryPass, jobSetName: string): string => {
  const lines = [`pass ${pass.pass}  ${pass.at}  ${pass.inputsDigest}  ${pass.summary}`];
  lines.push(`    after ${pass.triggers.length > 0 ? pass.triggers.map(triggerText).join('; ') : 'no event of its own: events arrived during the previous pass of this loop'}`);
  lines.push(`    ${latencyText(pass.latency)}`);
  if (pass.counts !== undefined) lines.push(`    saw ${countsText(pass.counts)}`);
  // One word: a pass too large to keep is common and expected; a broken chain says why.
  else lines.push(`    saw: ${pass.inputsKept === 'too-large' ? 'too-large' : `unreadable (${pass.inputsUnavailable ?? 'no inputs'})`}`);
  if (showsGate(pass)) lines.push(`    gate ${pass.gate.text}`);
  const flags = [pass.applied ? '' : `not applied${pass.replayName ? ` (replay ${pass.replayName})` : ''}`, pass.error ? `error: ${pass.error}` : ''].filter((part) => part !== '');
  if (flags.length > 0) lines.push(`    ${flags.join('; ')}`);
  for (const group of groupedActions(pass.actions)) lines.push(...actionText(group, pass, jobSetName));
  if (pass.actionsOmitted !== undefined) lines.push(`    … ${pass.actionsOmitted} more actions not kept (item size limit)`);
  return `${lines.join('\n')}\n`;
};

/** shownText: "newest 200 of 350 passes (151–350)" when --limit left the oldest out, else nothing. */
const shownText = (report: HistoryReport): string => {
  const first = report.passes[0]?.pass;
  if (first === undefined || report.passes.length >= report.totalPasses) return '';
  return `newest ${report.passes.length} of ${report.totalPasses} passes (${first}–${report.totalPasses}); --limit ${report.totalPasses} shows every one\n`;
};

/** historyText: the story as text, a paragraph per pass, then where the time went for each gate that opened. */
export const historyText = (report: HistoryReport): string => {
  const jobSetName = report.jobSet.name;
  const passes = `${shownText(report)}${report.passes.map((pass) => passText(pass, jobSetName)).join('')}`;
  if (report.gates.length === 0) return passes;
  return `${passes}where the time went, from each gate's event to the pass that opened it:\n${report.gates.map((gate) => `${gateText(gate, jobSetName)}\n`).join('')}`;
};
