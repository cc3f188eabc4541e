/**
 * `lineup replay --archive NAME --from T --to T [--jobset CLUSTER/NS/NAME] --table TABLE --region R`:
 * an EventBridge archive replay limited to the reconciler's rule, waited for, and the replayed
 * decisions (recorded, not applied, by the reconciler) beside the original ones from the journal.
 * Exit 0 every replayed event decided the same, 1 one decided differently, 2 unusable input or
 * a replay that failed, was cancelled or did not finish in time. `--output json` prints the
 * report in a stable shape (ARCHIVE_REPLAY_FORMAT; fields are only ever added).
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeArchiveCommand,
  DescribeEventBusCommand,
  DescribeReplayCommand,
  DescribeRuleCommand,
  EventBridgeClient,
  ListRulesCommand,
  StartReplayCommand,
} from '@aws-sdk/client-eventbridge';
import { DEFAULT_STACK_NAME } from '../constants.ts';
import { ArchiveReplayError, InvalidInputError, LineupError } from '../errors.ts';
import { archiveReportText, compareArchiveReplay, type EventComparison, type JobSetArchiveReport, type ReplayRange, type ReportedPass } from '../replay/archive.ts';
import { formatDuration, parseDurationFlag } from '../duration.ts';
import { DynamoCheckpointStore } from '../store/dynamoStore.ts';
import type { JobSetKey, JournalEvent, StoreReader } from '../store/types.ts';
import { parseJobSetKey } from './replay.ts';
import { ExitCode, type CliIo } from './io.ts';
import { sleep } from '../retry.ts';

/** ArchiveReplayMessage: what `lineup replay --archive` prints: progress and the one line of an exit 2. */
export const ArchiveReplayMessage = {
  missingFlag: (flag: string): string => `${flag} is required with --archive`,
  badTime: (flag: string, value: string): string => `${flag} ${JSON.stringify(value)} is not a time: expected ISO 8601, e.g. 2026-01-01T12:00:00Z`,
  emptyRange: (from: string, to: string): string => `--from ${from} is not before --to ${to}: expected a range that holds events`,
  badJobSet: (target: string): string => `--jobset ${JSON.stringify(target)}: expected CLUSTER/NAMESPACE/NAME`,
  badName: (name: string): string => `replay name ${JSON.stringify(name)}: expected at most 64 of A-Z a-z 0-9 . - _`,
  badOutput: (output: string): string => `--output ${output} is not available with --archive: expected text or json`,
  callFailed: (call: string, detail: string): string => `${call} failed: ${detail}`,
  noArns: (archive: string): string => `archive ${archive}: DescribeArchive returned no ArchiveArn or EventSourceArn: expected both`,
  ruleNotFound: (bus: string, prefix: string, found: readonly string[]): string =>
    `bus ${bus}: ${found.length === 0 ? 'no rule' : `${found.length} rules (${found.join(', ')})`} named ${prefix}*: expected exactly one; name the reconciler's rule with --rule NAME|ARN (stack output ReconcilerRuleArn) or the stack with --stack`,
  description: 'lineup replay --archive: replayed events are recorded in the journal, not applied',
  started: (replay: string, archive: string, rule: string): string => `lineup replay: replay ${replay} of archive ${archive} started, limited to rule ${rule}`,
  progress: (replay: string, state: string, lastReplayed: string | undefined, percent: number): string =>
    `lineup replay: ${replay} ${state}${lastReplayed === undefined ? '' : `, replayed up to ${lastReplayed} (${percent}% of the range)`}`,
  timedOut: (replay: string, state: string, timeout: string): string =>
    `replay ${replay} still ${state} after --timeout ${timeout}: expected it to end; it keeps running in EventBridge (aws events cancel-replay --replay-name ${replay} stops it)`,
  ended: (replay: string, state: string, reason: string): string => `replay ${replay} ended ${state}${reason ? `: ${reason}` : ''}: expected COMPLETED`,
  heading: (replay: string, from: string, to: string): string =>
    `replay ${replay}, events ${from} to ${to}: each replayed event's decision (against the cluster as it is now, not applied) beside the original pass's`,
} as const;

/** REPLAY_POLL_MS: how often DescribeReplay is asked while the replay runs. */
export const REPLAY_POLL_MS = 5_000;
/** DEFAULT_REPLAY_TIMEOUT: how long the replay may run before the command gives up (it keeps running in AWS). */
export const DEFAULT_REPLAY_TIMEOUT = '30m';
/**
 * DEFAULT_SETTLE: after the replay completed, how long the journal's count of replayed passes
 * must stay the same before the report is made (EventBridge → SQS → the event source's batching
 * window → the reconciler take seconds).
 */
export const DEFAULT_SETTLE = '30s';
/** The rule's name in the deployed stack: `<stack>-BusReconcilerRule<hash>-<suffix>` (infra/constructs/lineupBus.ts). */
const RULE_LOGICAL_PREFIX = 'BusReconcilerRule';
/** Replay names EventBridge accepts: [.\-_A-Za-z0-9]+, at most 64. */
const REPLAY_NAME_PATTERN = /^[.\-_A-Za-z0-9]{1,64}$/;
const FINAL_STATES = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** ArchiveReplayFlags: raw flags from commander. */
export interface ArchiveReplayFlags {
  readonly archive: string;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly jobset?: string | undefined;
  readonly table?: string | undefined;
  readonly region?: string | undefined;
  readonly bus?: string | undefined;
  readonly rule?: string | undefined;
  readonly stack?: string | undefined;
  readonly name?: string | undefined;
  readonly timeout?: string | undefined;
  readonly settle?: string | undefined;
  /** text (default) or json. */
  readonly output?: string | undefined;
}

/** ArchiveReplaySeams: the clients and clock, replaced in tests (a loopback EventBridge, the table's server). */
export interface ArchiveReplaySeams {
  readonly events?: EventBridgeClient | undefined;
  readonly store?: StoreReader | undefined;
  readonly now?: (() => number) | undefined;
  readonly pollMs?: number | undefined;
}

/** ArchiveReplayRequest: the flags, checked. */
interface ArchiveReplayRequest {
  readonly archive: string;
  readonly range: ReplayRange;
  readonly jobSet: JobSetKey | undefined;
  readonly table: string;
  readonly region: string;
  readonly replayName: string;
  readonly timeoutMs: number;
  readonly settleMs: number;
  readonly output: 'text' | 'json';
}

const required = (flag: string, value: string | undefined): string => {
  if (value === undefined || value === '') throw new InvalidInputError(ArchiveReplayMessage.missingFlag(flag));
  return value;
};

const instant = (flag: string, value: string): number => {
  const at = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(at)) throw new InvalidInputError(ArchiveReplayMessage.badTime(flag, value));
  return at;
};

/** requestOf: the flags checked, or InvalidInputError naming the first that is wrong. */
const requestOf = (flags: ArchiveReplayFlags, now: number): ArchiveReplayRequest => {
  const from = instant('--from', required('--from', flags.from));
  const to = instant('--to', required('--to', flags.to));
  if (from >= to) throw new InvalidInputError(ArchiveReplayMessage.emptyRange(flags.from ?? '', flags.to ?? ''));
  const output = flags.output ?? 'text';
  if (output !== 'text' && output !== 'json') throw new InvalidInputError(ArchiveReplayMessage.badOutput(output));
  const jobSet = flags.jobset === undefined ? undefined : parseJobSetKey(flags.jobset);
  if (flags.jobset !== undefined && jobSet === undefined) throw new InvalidInputError(ArchiveReplayMessage.badJobSet(flags.jobset));
  const replayName = flags.name ?? `lineup-${new Date(now).toISOString().replace(/[-:]|\.\d+Z$/g, '')}-${randomUUID().slice(0, 8)}`;
  if (!REPLAY_NAME_PATTERN.test(replayName)) throw new InvalidInputError(ArchiveReplayMessage.badName(replayName));
  return {
    archive: flags.archive,
    range: { from, to },
    jobSet,
    table: required('--table', flags.table),
    region: required('--region', flags.region),
    replayName,
    timeoutMs: parseDurationFlag('--timeout', flags.timeout ?? DEFAULT_REPLAY_TIMEOUT),
    settleMs: parseDurationFlag('--settle', flags.settle ?? DEFAULT_SETTLE),
    output,
  };
};

const messageOf = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/** aws: one EventBridge call; its failure becomes an ArchiveReplayError naming the call. */
const aws = async <T>(call: string, send: () => Promise<T>): Promise<T> => {
  try {
    return await send();
  } catch (error) {
    throw new ArchiveReplayError(ArchiveReplayMessage.callFailed(call, messageOf(error)), { cause: error });
  }
};

/** Where the replay goes: the archive, the bus it archives, the reconciler's rule. */
interface ReplayTarget {
  readonly archiveArn: string;
  readonly busArn: string;
  readonly ruleArn: string;
}

/** targetOf: the archive's ARN and bus (or --bus), and the reconciler's rule (--rule, or the stack's naming). */
const targetOf = async (events: EventBridgeClient, request: ArchiveReplayRequest, flags: ArchiveReplayFlags): Promise<ReplayTarget> => {
  const archive = await aws('DescribeArchive', () => events.send(new DescribeArchiveCommand({ ArchiveName: request.archive })));
  const archiveArn = archive.ArchiveArn ?? '';
  const busArn = flags.bus === undefined
    ? archive.EventSourceArn ?? ''
    : (await aws('DescribeEventBus', () => events.send(new DescribeEventBusCommand({ Name: flags.bus })))).Arn ?? '';
  if (archiveArn === '' || busArn === '') throw new ArchiveReplayError(ArchiveReplayMessage.noArns(request.archive));
  const busName = busArn.slice(busArn.lastIndexOf('/') + 1);
  if (flags.rule?.startsWith('arn:')) return { archiveArn, busArn, ruleArn: flags.rule };
  if (flags.rule !== undefined) {
    const rule = await aws('DescribeRule', () => events.send(new DescribeRuleCommand({ Name: flags.rule, EventBusName: busName })));
    return { archiveArn, busArn, ruleArn: rule.Arn ?? '' };
  }
  const prefix = `${flags.stack ?? DEFAULT_STACK_NAME}-${RULE_LOGICAL_PREFIX}`;
  const listed = await aws('ListRules', () => events.send(new ListRulesCommand({ EventBusName: busName, NamePrefix: prefix })));
  const rules = (listed.Rules ?? []).filter((rule) => rule.Arn !== undefined);
  const [rule] = rules;
  if (rules.length !== 1 || rule?.Arn === undefined) throw new ArchiveReplayError(ArchiveReplayMessage.ruleNotFound(busName, prefix, rules.map((found) => found.Name ?? '')));
  return { archiveArn, busArn, ruleArn: rule.Arn };
};

/** waitForReplay: DescribeReplay until a final state, a progress line on stderr per poll; the final state. */
const waitForReplay = async (events: EventBridgeClient, request: ArchiveReplayRequest, io: CliIo, now: () => number, pollMs: number): Promise<{ state: string; reason: string }> => {
  const deadline = now() + request.timeoutMs;
  for (;;) {
    const replay = await aws('DescribeReplay', () => events.send(new DescribeReplayCommand({ ReplayName: request.replayName })));
    const state = replay.State ?? 'UNKNOWN';
    const last = replay.EventLastReplayedTime?.getTime();
    const percent = last === undefined ? 0 : Math.min(100, Math.max(0, Math.round(((last - request.range.from) / (request.range.to - request.range.from)) * 100)));
    io.stderr(`${ArchiveReplayMessage.progress(request.replayName, state, last === undefined ? undefined : new Date(last).toISOString(), percent)}\n`);
    if (FINAL_STATES.has(state)) return { state, reason: replay.StateReason ?? '' };
    if (now() >= deadline) throw new ArchiveReplayError(ArchiveReplayMessage.timedOut(request.replayName, state, formatDuration(request.timeoutMs)));
    await sleep(pollMs);
  }
};

/** jobSetsOf: the JobSet named, or every JobSet of every cluster in the registry. */
const jobSetsOf = async (store: StoreReader, jobSet: JobSetKey | undefined): Promise<JobSetKey[]> => {
  if (jobSet !== undefined) return [jobSet];
  const keys: JobSetKey[] = [];
  for (const cluster of await store.listClusters()) keys.push(...(await store.listJobSets(cluster.id)).map((state) => state.key));
  return keys;
};

/**
 * reportsOnceSettled: the reports once the number of replayed passes in the journal stayed the
 * same for `settleMs` (the last replayed events may still be on their way to the reconciler).
 */
const reportsOnceSettled = async (store: StoreReader, keys: readonly JobSetKey[], request: ArchiveReplayRequest, now: () => number, pollMs: number): Promise<JobSetArchiveReport[]> => {
  let seen = -1;
  let stableSince = now();
  for (;;) {
    const reports: JobSetArchiveReport[] = [];
    for (const key of keys) reports.push(compareArchiveReplay(key, await store.listJournal(key), request.replayName, request.range));
    const replayed = reports.reduce((sum, report) => sum + report.events.filter((event) => event.result !== 'not-replayed').length, 0);
    if (replayed !== seen) {
      seen = replayed;
      stableSince = now();
    } else if (now() - stableSince >= request.settleMs) return reports;
    await sleep(Math.min(pollMs, Math.max(request.settleMs, 1)));
  }
};

/** ARCHIVE_REPLAY_FORMAT: the format field of `lineup replay --archive --output json`. */
export const ARCHIVE_REPLAY_FORMAT = 'lineup.dev/archive-replay/v1';

/** A pass in the JSON report: when (ISO), its reason, and its actions as history shows them. */
interface ArchivePassJson {
  readonly at: string;
  readonly reason: string;
  readonly actions: readonly { readonly kind: string; readonly target: string; readonly code: string; readonly message: string }[];
}

/** One replayed (or not replayed) event in the JSON report. */
interface ArchiveEventJson {
  readonly result: EventComparison['result'];
  /** The event as history's triggers show it (time: epoch ms on the bus). */
  readonly event: JournalEvent;
  readonly original?: ArchivePassJson;
  readonly replayed?: ArchivePassJson;
  readonly differences?: readonly { readonly action: number; readonly field: string; readonly original?: string; readonly replayed?: string }[];
}

/** ArchiveReplayJson: `lineup replay --archive --output json`; a stable shape, fields only ever added. */
export interface ArchiveReplayJson {
  readonly format: typeof ARCHIVE_REPLAY_FORMAT;
  readonly replay: { readonly name: string; readonly archive: string; readonly archiveArn: string; readonly rule: string; readonly from: string; readonly to: string };
  readonly summary: { readonly jobSets: number; readonly events: number; readonly same: number; readonly different: number; readonly noOriginalPass: number; readonly notReplayed: number };
  readonly reports: readonly {
    readonly jobSet: JobSetKey;
    readonly same: number;
    readonly different: number;
    readonly noOriginalPass: number;
    readonly notReplayed: number;
    readonly events: readonly ArchiveEventJson[];
  }[];
}

const passJson = (pass: ReportedPass): ArchivePassJson => ({
  at: new Date(pass.at).toISOString(),
  reason: pass.reason,
  actions: pass.actions.map(({ kind, target, code, message }) => ({ kind, target, code, message })),
});

const eventJson = (comparison: EventComparison): ArchiveEventJson => ({
  result: comparison.result,
  event: comparison.event,
  ...(comparison.result === 'no-original-pass' ? {} : { original: passJson(comparison.original) }),
  ...(comparison.result === 'not-replayed' ? {} : { replayed: passJson(comparison.replayed) }),
  ...(comparison.result === 'different'
    ? {
        differences: comparison.differences.map(({ action, field, recorded, replayed }) => ({
          action,
          field,
          ...(recorded === undefined ? {} : { original: recorded }),
          ...(replayed === undefined ? {} : { replayed }),
        })),
      }
    : {}),
});

/** archiveReplayJson: the reports of one archive replay in the stable JSON shape. */
export const archiveReplayJson = (request: Pick<ArchiveReplayRequest, 'replayName' | 'archive' | 'range'>, target: Pick<ReplayTarget, 'archiveArn' | 'ruleArn'>, reports: readonly JobSetArchiveReport[]): ArchiveReplayJson => {
  const total = (count: (report: JobSetArchiveReport) => number): number => reports.reduce((sum, report) => sum + count(report), 0);
  return {
    format: ARCHIVE_REPLAY_FORMAT,
    replay: {
      name: request.replayName,
      archive: request.archive,
      archiveArn: target.archiveArn,
      rule: target.ruleArn,
      from: new Date(request.range.from).toISOString(),
      to: new Date(request.range.to).toISOString(),
    },
    summary: {
      jobSets: reports.length,
      events: total((report) => report.events.length),
      same: total((report) => report.same),
      different: total((report) => report.different),
      noOriginalPass: total((report) => report.noOriginalPass),
      notReplayed: total((report) => report.notReplayed),
    },
    reports: reports.map((report) => ({
      jobSet: report.jobSet,
      same: report.same,
      different: report.different,
      noOriginalPass: report.noOriginalPass,
      notReplayed: report.notReplayed,
      events: report.events.map(eventJson),
    })),
  };
};

/** archiveReplayCommand: `lineup replay --archive NAME …`. */
export const archiveReplayCommand = async (flags: ArchiveReplayFlags, io: CliIo, seams: ArchiveReplaySeams = {}): Promise<number> => {
  const now = seams.now ?? Date.now;
  const pollMs = seams.pollMs ?? REPLAY_POLL_MS;
  let request: ArchiveReplayRequest;
  try {
    request = requestOf(flags, now());
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    io.stderr(`lineup replay: ${error.message}\n`);
    return ExitCode.Usage;
  }
  const events = seams.events ?? new EventBridgeClient({ region: request.region });
  let dynamo: DynamoDBClient | undefined;
  const store = seams.store ?? new DynamoCheckpointStore({ client: (dynamo = new DynamoDBClient({ region: request.region })), tableName: request.table });
  try {
    const target = await targetOf(events, request, flags);
    await aws('StartReplay', () =>
      events.send(
        new StartReplayCommand({
          ReplayName: request.replayName,
          Description: ArchiveReplayMessage.description,
          EventSourceArn: target.archiveArn,
          EventStartTime: new Date(request.range.from),
          EventEndTime: new Date(request.range.to),
          Destination: { Arn: target.busArn, FilterArns: [target.ruleArn] },
        }),
      ),
    );
    io.stderr(`${ArchiveReplayMessage.started(request.replayName, request.archive, target.ruleArn)}\n`);
    const final = await waitForReplay(events, request, io, now, pollMs);
    if (final.state !== 'COMPLETED') throw new ArchiveReplayError(ArchiveReplayMessage.ended(request.replayName, final.state, final.reason));
    const keys = await jobSetsOf(store, request.jobSet);
    const reports = await reportsOnceSettled(store, keys, request, now, pollMs);
    if (request.output === 'json') {
      io.stdout(`${JSON.stringify(archiveReplayJson(request, target, reports), null, 2)}\n`);
    } else {
      io.stdout(`${ArchiveReplayMessage.heading(request.replayName, new Date(request.range.from).toISOString(), new Date(request.range.to).toISOString())}\n`);
      for (const report of reports) io.stdout(archiveReportText(report));
    }
    return reports.some((report) => report.different > 0) ? ExitCode.Invalid : ExitCode.Ok;
  } catch (error) {
    // A failed AWS call, or the table unreadable (the store's typed errors): one line, exit 2.
    if (!(error instanceof LineupError)) throw error;
    io.stderr(`lineup replay: ${error.message}\n`);
    return ExitCode.Usage;
  } finally {
    if (seams.events === undefined) events.destroy();
    dynamo?.destroy();
  }
};
