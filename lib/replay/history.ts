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
}

/** `lineup history --output json`. */
export interface HistoryReport {
  readonly format: typeof HISTORY_FORMAT;
  readonly jobSet: JobSetKey;
  readonly passes: readonly HistoryPass[];
  /** Each gate that opened, in pass order, with where the time went before it (gateTimingsOf). */
  readonly gates: readonly GateTiming[];
}

/** The reason code of an action that opens a gate (lib/plan/reasons.ts). */
const GATE_OPENED = 'GateOpened';

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

/**
 * gateTimingsOf: for each pass's each distinct GateOpened reason, the time from the event that let
 * the gate open (the pass's trigger, or its loop's) to the pass and to its writes done.
 */
export const gateTimingsOf = (entries: readonly JournalEntry[]): GateTiming[] => {
  const gates: GateTiming[] = [];
  let loopStart: { readonly index: number; readonly entry: JournalEntry } | undefined;
  entries.forEach((entry, index) => {
    if (entry.triggers.length > 0) loopStart = { index, entry };
    const opened = [...new Set(entry.actions.filter((action) => action.code === GATE_OPENED).map((action) => action.message))];
    if (opened.length === 0) return;
    const from = loopStart?.entry.timings;
    const start = from === undefined ? undefined : (from.seenAt ?? from.eventAt ?? from.receivedAt);
    const hops = hopsOf(from, entry.timings.passStartedAt, entry.timings.writesDoneAt);
    const toPass = difference(start, entry.timings.passStartedAt);
    const toWritesDone = difference(start, entry.timings.writesDoneAt);
    const event = loopStart?.entry.triggers[0];
    for (const gate of opened) {
      gates.push({
        pass: index + 1,
        at: new Date(entry.at).toISOString(),
        gate,
        eventPass: (loopStart?.index ?? index) + 1,
        ...(event !== undefined ? { event } : {}),
        ...(toPass !== undefined ? { toPass } : {}),
        ...(toWritesDone !== undefined ? { toWritesDone } : {}),
        hops,
      });
    }
  });
  return gates;
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
  gates: gateTimingsOf(entries),
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

/** triggerText: "Job Changed Job js-a-0 rv 12 MODIFIED (replay r1)". */
const triggerText = (trigger: JournalEvent): string =>
  `${trigger.detailType || 'event'} ${trigger.kind} ${trigger.name} rv ${trigger.resourceVersion} ${trigger.watchType}${trigger.replayName ? ` (replay ${trigger.replayName})` : ''}`;

/** gateText: one gate's paragraph of "where the time went". */
const gateText = (gate: GateTiming): string => {
  const event = gate.event === undefined ? 'no recorded event' : `${triggerText(gate.event)}${gate.eventPass === gate.pass ? '' : ` (the event of pass ${gate.eventPass}, which started its loop)`}`;
  const totals = [gate.toPass !== undefined ? `event→pass ${gate.toPass} ms` : undefined, gate.toWritesDone !== undefined ? `event→writes done ${gate.toWritesDone} ms` : undefined]
    .filter((part): part is string => part !== undefined)
    .join(', ');
  return [`  pass ${gate.pass}  ${gate.at}  ${gate.gate}`, `    after ${event}`, `    ${totals === '' ? '' : `${totals}: `}${latencyText(gate.hops)}`].join('\n');
};

/** historyText: the story as text, a paragraph per pass, then where the time went before each gate opened. */
export const historyText = (report: HistoryReport): string => {
  const passes = report.passes
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
  if (report.gates.length === 0) return passes;
  return `${passes}where the time went, from each gate's event to the pass that opened it:\n${report.gates.map((gate) => `${gateText(gate)}\n`).join('')}`;
};
