/**
 * A JobSet's story from its journal (`lineup history`): each pass with the events that triggered
 * it, the latency of each hop, and its actions with their reasons. The JSON shape (HistoryReport)
 * is documented in the README and kept stable: fields are only ever added.
 */
import type { JobSetKey, JournalEntry, JournalEvent } from '../store/types.ts';

/** HISTORY_FORMAT: the format field of `lineup history --output json`. */
export const HISTORY_FORMAT = 'lineup.dev/history/v1';

/** Milliseconds spent in each hop of a pass; a hop whose ends were not recorded is absent. */
export interface HopLatency {
  /** Forwarder saw the change → EventBridge's event time (whole seconds on AWS: ±1 s). */
  readonly seenToBus?: number | undefined;
  /** Event time → the reconciler received it. */
  readonly busToReceived?: number | undefined;
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
}

/** `lineup history --output json`. */
export interface HistoryReport {
  readonly format: typeof HISTORY_FORMAT;
  readonly jobSet: JobSetKey;
  readonly passes: readonly HistoryPass[];
}

/** difference: b − a when both are known. */
const difference = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined ? undefined : b - a);

/** latencyOf: each hop of a pass that has both ends recorded. */
export const latencyOf = (timings: JournalEntry['timings']): HopLatency => {
  const seenToBus = difference(timings.seenAt, timings.eventAt);
  const busToReceived = difference(timings.eventAt, timings.receivedAt);
  const receivedToPass = difference(timings.receivedAt, timings.passStartedAt);
  return {
    ...(seenToBus !== undefined ? { seenToBus } : {}),
    ...(busToReceived !== undefined ? { busToReceived } : {}),
    ...(receivedToPass !== undefined ? { receivedToPass } : {}),
    pass: timings.writesDoneAt - timings.passStartedAt,
  };
};

/** historyOf: the story of one JobSet's entries, oldest first. */
export const historyOf = (key: JobSetKey, entries: readonly JournalEntry[]): HistoryReport => ({
  format: HISTORY_FORMAT,
  jobSet: { cluster: key.cluster, namespace: key.namespace, name: key.name },
  passes: entries.map((entry, index) => ({
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
  })),
});

/** groupedActions: consecutive actions of one kind with one reason, counted (a startup creates many alike). */
const groupedActions = (actions: readonly HistoryAction[]): { kind: string; code: string; message: string; count: number }[] => {
  const groups: { kind: string; code: string; message: string; count: number }[] = [];
  for (const action of actions) {
    const last = groups.at(-1);
    if (last && last.kind === action.kind && last.code === action.code && last.message === action.message) last.count += 1;
    else groups.push({ kind: action.kind, code: action.code, message: action.message, count: 1 });
  }
  return groups;
};

/** latencyText: "seen→bus 30 ms, bus→received 8 ms, received→pass 2 ms, pass 41 ms", known hops only. */
const latencyText = (latency: HopLatency): string =>
  [
    latency.seenToBus !== undefined ? `seen→bus ${latency.seenToBus} ms` : undefined,
    latency.busToReceived !== undefined ? `bus→received ${latency.busToReceived} ms` : undefined,
    latency.receivedToPass !== undefined ? `received→pass ${latency.receivedToPass} ms` : undefined,
    `pass ${latency.pass} ms`,
  ]
    .filter((part): part is string => part !== undefined)
    .join(', ');

/** triggerText: "Job Changed Job js-a-0 rv 12 MODIFIED (replay r1)". */
const triggerText = (trigger: JournalEvent): string =>
  `${trigger.detailType || 'event'} ${trigger.kind} ${trigger.name} rv ${trigger.resourceVersion} ${trigger.watchType}${trigger.replayName ? ` (replay ${trigger.replayName})` : ''}`;

/** historyText: the story as text, a paragraph per pass. */
export const historyText = (report: HistoryReport): string =>
  report.passes
    .map((pass) => {
      const lines = [`pass ${pass.pass}  ${pass.at}  ${pass.inputsDigest}  ${pass.reason}`];
      lines.push(`    after ${pass.triggers.length > 0 ? pass.triggers.map(triggerText).join('; ') : 'no event of its own: events arrived during the previous pass of this loop'}`);
      lines.push(`    ${latencyText(pass.latency)}`);
      const flags = [pass.applied ? '' : `not applied${pass.replayName ? ` (replay ${pass.replayName})` : ''}`, pass.error ? `error: ${pass.error}` : ''].filter((part) => part !== '');
      if (flags.length > 0) lines.push(`    ${flags.join('; ')}`);
      for (const group of groupedActions(pass.actions)) lines.push(`    ${group.kind}×${group.count} ${group.code}: ${group.message}`);
      if (pass.actionsOmitted !== undefined) lines.push(`    … ${pass.actionsOmitted} more actions not kept (item size limit)`);
      return `${lines.join('\n')}\n`;
    })
    .join('');
