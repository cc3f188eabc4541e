/**
 * What an EventBridge archive replay decided, beside what the original events decided. Pure:
 * the journal entries come in, a report goes out.
 *
 * A replayed event carries `replay-name`; the reconciler plans it against the cluster as it is
 * now and records the pass without applying it. Each replayed pass is paired with the original
 * pass its event triggered, by the event's identity (object kind and name, resourceVersion,
 * watch type), which a replay keeps while EventBridge gives the event a new id. An original
 * event may have triggered no pass of its own (the lease holder folded it into a running loop),
 * and an original pass may have no replayed twin (its event is outside the archive or the range).
 */
import type { JobSetKey, JournalAction, JournalEntry, JournalEvent } from '../store/types.ts';
import { actionDifferences, type FieldDifference } from './replay.ts';

/** The time range a replay covers, epoch ms, both ends included. */
export interface ReplayRange {
  readonly from: number;
  readonly to: number;
}

/** A pass as the report shows it. */
export interface ReportedPass {
  readonly at: number;
  readonly reason: string;
  readonly actions: readonly JournalAction[];
}

/** One replayed event and what it decided, beside the original when there is one. */
export type EventComparison =
  | { readonly result: 'same'; readonly event: JournalEvent; readonly original: ReportedPass; readonly replayed: ReportedPass }
  | {
      readonly result: 'different';
      readonly event: JournalEvent;
      readonly original: ReportedPass;
      readonly replayed: ReportedPass;
      readonly differences: readonly FieldDifference[];
    }
  /** The original event triggered no pass of its own: it was folded into the pass loop running then. */
  | { readonly result: 'no-original-pass'; readonly event: JournalEvent; readonly replayed: ReportedPass }
  /** The original pass's event was not replayed (not in the archive, or outside what the replay delivered). */
  | { readonly result: 'not-replayed'; readonly event: JournalEvent; readonly original: ReportedPass };

/** The comparison for one JobSet. */
export interface JobSetArchiveReport {
  readonly jobSet: JobSetKey;
  readonly events: readonly EventComparison[];
  readonly same: number;
  readonly different: number;
  readonly noOriginalPass: number;
  readonly notReplayed: number;
}

/** eventIdentity: what a replay keeps of an event (not its id, which EventBridge renews). */
export const eventIdentity = (event: JournalEvent): string => JSON.stringify([event.kind, event.name, event.resourceVersion, event.watchType, event.detailType]);

const inRange = (event: JournalEvent, range: ReplayRange): boolean => event.time !== undefined && event.time >= range.from && event.time <= range.to;

const reported = (entry: JournalEntry): ReportedPass => ({ at: entry.at, reason: entry.reason, actions: entry.actions });

/**
 * compareArchiveReplay: for one JobSet's journal (oldest first), the passes `replayName`
 * triggered with events of `range`, each beside the original pass of the same event, and the
 * original passes of the range that no replayed event matched. Events are listed by event time.
 * Only a replayed pass's first trigger is its event (the reconciler records one per pass).
 */
export const compareArchiveReplay = (jobSet: JobSetKey, journal: readonly JournalEntry[], replayName: string, range: ReplayRange): JobSetArchiveReport => {
  const originals = new Map<string, JournalEntry>();
  const replays: { event: JournalEvent; entry: JournalEntry }[] = [];
  for (const entry of journal) {
    const [event] = entry.triggers;
    if (event === undefined || !inRange(event, range)) continue;
    if (entry.replayName === replayName) replays.push({ event, entry });
    else if (entry.replayName === undefined && event.replayName === undefined && !originals.has(eventIdentity(event))) originals.set(eventIdentity(event), entry);
  }
  const events: EventComparison[] = [];
  const matched = new Set<string>();
  for (const { event, entry } of replays) {
    const identity = eventIdentity(event);
    const original = originals.get(identity);
    if (original === undefined) {
      events.push({ result: 'no-original-pass', event, replayed: reported(entry) });
      continue;
    }
    matched.add(identity);
    const differences = actionDifferences(original.actions, entry.actions);
    events.push(
      differences.length === 0
        ? { result: 'same', event, original: reported(original), replayed: reported(entry) }
        : { result: 'different', event, original: reported(original), replayed: reported(entry), differences },
    );
  }
  for (const [identity, original] of originals) {
    const [event] = original.triggers;
    if (!matched.has(identity) && event !== undefined) events.push({ result: 'not-replayed', event, original: reported(original) });
  }
  events.sort((a, b) => (a.event.time ?? 0) - (b.event.time ?? 0));
  const count = (result: EventComparison['result']): number => events.filter((comparison) => comparison.result === result).length;
  return { jobSet, events, same: count('same'), different: count('different'), noOriginalPass: count('no-original-pass'), notReplayed: count('not-replayed') };
};

const time = (epochMs: number): string => new Date(epochMs).toISOString();

const actionsText = (actions: readonly JournalAction[]): string =>
  actions.length === 0 ? 'no actions' : actions.map((action) => `${action.kind}${action.target ? ` ${action.target}` : ''} ${action.code}`).join(', ');

const eventText = (event: JournalEvent): string =>
  `${event.detailType} ${event.kind} ${event.name} rv ${event.resourceVersion} ${event.watchType} at ${event.time === undefined ? '?' : time(event.time)}`;

const actionText = (action: JournalAction | undefined): string =>
  action === undefined ? 'none' : `${action.kind}${action.target ? ` ${action.target}` : ''} ${action.code}: ${JSON.stringify(action.message)}`;

/** differenceLines: an action only one side has in one line; otherwise each field that differs. */
const differenceLines = (original: readonly JournalAction[], replayed: readonly JournalAction[], differences: readonly FieldDifference[]): string[] => {
  const lines: string[] = [];
  const shown = new Set<number>();
  for (const difference of differences) {
    const before = original[difference.action - 1];
    const after = replayed[difference.action - 1];
    if (before === undefined || after === undefined) {
      if (!shown.has(difference.action)) lines.push(`      action ${difference.action}: original ${actionText(before)}, replayed ${actionText(after)}`);
      shown.add(difference.action);
      continue;
    }
    lines.push(`      action ${difference.action} ${difference.field}: original ${JSON.stringify(difference.recorded ?? null)}, replayed ${JSON.stringify(difference.replayed ?? null)}`);
  }
  return lines;
};

/** archiveReportText: a JobSet's comparison, event by event, a difference field by field. */
export const archiveReportText = (report: JobSetArchiveReport): string => {
  const { cluster, namespace, name } = report.jobSet;
  const lines = [`${cluster}/${namespace}/${name}:`];
  for (const comparison of report.events) {
    lines.push(`  ${eventText(comparison.event)}: ${comparison.result}`);
    if (comparison.result !== 'no-original-pass') lines.push(`    original ${time(comparison.original.at)}: ${actionsText(comparison.original.actions)}`);
    if (comparison.result !== 'not-replayed') lines.push(`    replayed ${time(comparison.replayed.at)}: ${actionsText(comparison.replayed.actions)}`);
    if (comparison.result === 'different') lines.push(...differenceLines(comparison.original.actions, comparison.replayed.actions, comparison.differences));
  }
  lines.push(`  ${report.same} same, ${report.different} different, ${report.noOriginalPass} without an original pass, ${report.notReplayed} not replayed`);
  return `${lines.join('\n')}\n`;
};
