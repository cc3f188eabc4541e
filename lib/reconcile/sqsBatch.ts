/**
 * The reconciler's SQS batch handler, shared by the Lambda entry point and the local hosts
 * (`lineup run`, `lineup demo`): each record is an EventBridge event delivered by the rule's SQS
 * target. Powertools batch processing reports partial failures, so one bad record never makes
 * SQS redeliver the good ones.
 *
 * What each kind of record gets:
 * - poison (not JSON, a detail-type Lineup does not know, a cluster id that is not a DNS label,
 *   any other break of the event schema, a `Heartbeat` an older forwarder put where a rule still
 *   routes it): one error line (messageId, reason, the
 *   start of the body), the `reconciler.poisonRecords` counter (metric `ReconcilerPoisonRecords`)
 *   and success: dropped, not retried. The same bytes fail the same way on every receive, so
 *   retries would only hold a batch slot 5 times before the redrive policy dead-letters it. Moving
 *   it to the DLQ at once is not offered: SQS dead-letters by receive count only, Powertools' batch
 *   processing only reports failures, and a SendMessage to the DLQ before the delete would need
 *   the DLQ's URL and a grant in the function, and duplicates the record when the delete fails;
 * - source not matching its cluster, or an unknown cluster: a warning, and success (dropped on
 *   purpose: a forged or stray event must not be retried forever);
 * - duplicate, out of order, replayed: handled like any hint — level-triggered passes on live
 *   state make them harmless; replays are recorded, not applied;
 * - a pass that fails on the cluster or the store: an error line and a batch item failure (retried);
 *   on its last receive before the dead-letter queue, when the JobSet's state item records the
 *   failure, a warning and success: the resync re-queues the JobSet;
 * - with a fair share (lib/reconcile/fairShare.ts), an event of a cluster whose slots are all in
 *   use: put back on the queue with a delay, and success.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LineupEventBridgeSchema } from '../events/envelope.ts';
import { RECONCILE_MAX_RECEIVE_COUNT } from '../constants.ts';
import { CounterName } from '../counters.ts';
import { InvalidInputError } from '../errors.ts';
import { needsResync } from '../store/rules.ts';
import { takeFairShare, type FairShare } from './fairShare.ts';
import { handleEvent, type EventOutcome, type ReconcileDeps } from './reconcileJobSet.ts';
import type { JobSetStateStore } from '../store/types.ts';

/** MalformedEventError: a record whose body is not a Lineup EventBridge event. */
export class MalformedEventError extends InvalidInputError {}

/** NotAnSqsEventError: the invocation's event is not an SQS batch (no `Records` list). */
export class NotAnSqsEventError extends InvalidInputError {}

/** PoisonOutcome: a record no retry could ever handle, logged, counted and dropped. */
export type PoisonOutcome = 'poison-dropped';

/** POISON_BODY_EXCERPT_CHARS: how much of a dropped record's body its log line keeps (the log line is all that is left of it). */
const POISON_BODY_EXCERPT_CHARS = 512;

/** describeEvent: what an invocation's event is, in a few words, for NotAnSqsEventError. */
const describeEvent = (event: unknown): string => {
  if (event === null || event === undefined) return String(event);
  if (Array.isArray(event)) return `an array of ${event.length}`;
  if (typeof event !== 'object') return `a ${typeof event}`;
  const keys = Object.keys(event);
  if (!keys.includes('Records')) return keys.length === 0 ? '{}' : `an object with keys ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''}`;
  return `Records of type ${typeof (event as { Records: unknown }).Records}`;
};

/**
 * assertSqsEvent: `event` is an SQS batch, or NotAnSqsEventError in one line. Lambda hands the
 * handler whatever it was invoked with (a console test event, a mistaken direct invoke), and
 * without this `null` ends in a TypeError deep in Powertools.
 */
export const assertSqsEvent: (event: unknown) => asserts event is SQSEvent = (event) => {
  if (typeof event !== 'object' || event === null || !Array.isArray((event as { Records?: unknown }).Records)) {
    throw new NotAnSqsEventError(`reconciler: expected an SQS event with a Records list, got ${describeEvent(event)}`);
  }
};

/** isPoison: an error saying the record itself can never be handled, whatever is retried. */
const isPoison = (error: unknown): error is MalformedEventError => error instanceof MalformedEventError;

/** parseJsonBody: an SQS record's body as JSON, or MalformedEventError. */
const parseJsonBody = (record: SQSRecord): unknown => {
  try {
    return JSON.parse(record.body) as unknown;
  } catch (error) {
    throw new MalformedEventError(`message ${record.messageId}: body is not JSON: ${(error as Error).message}`, { cause: error });
  }
};

/** parseRecordBody: the Lineup event in an SQS record, or MalformedEventError saying why not. */
export const parseRecordBody = (record: SQSRecord, raw: unknown = parseJsonBody(record)) => {
  const parsed = LineupEventBridgeSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    throw new MalformedEventError(`message ${record.messageId}: not a Lineup event: ${problems}`);
  }
  return parsed.data;
};

/** RecordOutcome: what became of one record. */
export type RecordOutcome = EventOutcome | PoisonOutcome | Error;

/** BatchDeps: the pass loop's deps, its store also reading a JobSet's state (on a record's last receive). */
export type BatchDeps = ReconcileDeps & { readonly store: ReconcileDeps['store'] & Pick<JobSetStateStore, 'getState'> };

/** BatchHooks: what a host adds to the batch handler. */
export interface BatchHooks {
  /** Sees each handled record's fate (not those put back by the fair share). */
  readonly onOutcome?: ((record: SQSRecord, outcome: RecordOutcome) => void) | undefined;
  /** Keep each cluster to its share of the fleet's invocations (absent: no share, as a host serving one cluster). */
  readonly fairShare?: FairShare | undefined;
}

/** ParsedEvent: the Lineup event an SQS record carries. */
type ParsedEvent = ReturnType<typeof parseRecordBody>;

/** HandledOutcome: what a record that did not throw came to. */
type HandledOutcome = EventOutcome | PoisonOutcome;

/**
 * handedToResync: on a record's last receive before the dead-letter queue, whether its
 * JobSet's state item records the failed pass (lastError, or events nobody reconciles), so the
 * resync re-queues it and nothing is lost by letting the record go: a cluster that stays
 * unreachable for minutes then waits for the resync, not for a person reading the DLQ.
 */
const handedToResync = async (deps: BatchDeps, record: SQSRecord, event: ParsedEvent): Promise<boolean> => {
  if (Number(record.attributes.ApproximateReceiveCount) < RECONCILE_MAX_RECEIVE_COUNT) return false;
  const key = { cluster: event.detail.cluster, namespace: event.detail.namespace, name: event.detail.jobSet };
  try {
    const state = await deps.store.getState(key);
    return state !== undefined && needsResync(state, deps.now());
  } catch (error) {
    deps.log('error', 'could not read the state item on the last receive; the record goes to the dead-letter queue', { messageId: record.messageId, error: (error as Error).message });
    return false;
  }
};

/** dropPoison: the one line and the count a poison record leaves behind; success, so SQS deletes it. */
const dropPoison = (deps: ReconcileDeps, hooks: BatchHooks, record: SQSRecord, error: MalformedEventError): PoisonOutcome => {
  deps.counters.add(CounterName.PoisonRecords);
  deps.log('error', 'poison record dropped, not retried: it can never be handled', {
    messageId: record.messageId,
    reason: error.message,
    receiveCount: record.attributes.ApproximateReceiveCount,
    body: record.body.length > POISON_BODY_EXCERPT_CHARS ? `${record.body.slice(0, POISON_BODY_EXCERPT_CHARS)}…` : record.body,
  });
  hooks.onOutcome?.(record, 'poison-dropped');
  return 'poison-dropped';
};

/** reconcileEvent: the event's reconcile pass (or its note for the lease holder). */
const reconcileEvent = async (deps: ReconcileDeps, hooks: BatchHooks, record: SQSRecord, event: ParsedEvent): Promise<EventOutcome> => {
  const outcome = await handleEvent(
    { source: event.source, detail: event.detail, replayName: event['replay-name'], id: event.id, detailType: event['detail-type'], time: event.time },
    deps,
  );
  hooks.onOutcome?.(record, outcome);
  return outcome;
};

/**
 * handleRecord: one record to its outcome: poison dropped, a failure on the last receive handed
 * to the resync, any other failure thrown so the batch reports the record for a retry.
 */
const handleRecord = async (deps: BatchDeps, hooks: BatchHooks, record: SQSRecord): Promise<HandledOutcome> => {
  let event: ParsedEvent | undefined;
  try {
    const raw = parseJsonBody(record);
    event = parseRecordBody(record, raw);
    return await reconcileEvent(deps, hooks, record, event);
  } catch (error) {
    if (isPoison(error)) return dropPoison(deps, hooks, record, error);
    if (event !== undefined && (await handedToResync(deps, record, event))) {
      deps.log('warn', 'reconcile failed on the last receive; the resync retries the jobset', {
        messageId: record.messageId,
        jobSet: `${event.detail.namespace}/${event.detail.jobSet}`,
        error: (error as Error).message,
        receiveCount: record.attributes.ApproximateReceiveCount,
      });
      hooks.onOutcome?.(record, 'handed-to-resync');
      return 'handed-to-resync';
    }
    deps.log('error', 'reconcile failed; the event will be retried', {
      messageId: record.messageId,
      error: (error as Error).message,
      receiveCount: record.attributes.ApproximateReceiveCount,
    });
    hooks.onOutcome?.(record, error as Error);
    throw error;
  }
};

/** handleRecords: `records` processed, a processor per call (it keeps the batch's successes and failures). */
const handleRecords = async (records: SQSRecord[], context: Context | undefined, handler: (record: SQSRecord) => Promise<HandledOutcome>): Promise<SQSBatchResponse> => {
  if (records.length === 0) return { batchItemFailures: [] };
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse({ Records: records }, handler, processor, { context, throwOnFullBatchFailure: false });
};

/** handleFairShare: the records the cluster's share lets through handled, the rest put back with a delay (lib/reconcile/fairShare.ts). */
const handleFairShare = async (records: SQSRecord[], context: Context | undefined, fairShare: FairShare, handler: (record: SQSRecord) => Promise<HandledOutcome>): Promise<SQSBatchResponse> => {
  const share = await takeFairShare(records, fairShare);
  try {
    const [failed, response] = await Promise.all([
      share.failed,
      handleRecords([...share.handle], context, async (record) => {
        try {
          return await handler(record);
        } finally {
          share.finished(record);
        }
      }),
    ]);
    return { batchItemFailures: [...failed.map((itemIdentifier) => ({ itemIdentifier })), ...response.batchItemFailures] };
  } finally {
    await share.release();
  }
};

/** makeSqsBatchHandler: the batch handler around `deps`. */
export const makeSqsBatchHandler = (
  deps: BatchDeps,
  hooks: BatchHooks = {},
): ((event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>) => {
  const handler = (record: SQSRecord): Promise<HandledOutcome> => handleRecord(deps, hooks, record);
  return async (event, context) => {
    assertSqsEvent(event);
    const { fairShare } = hooks;
    return fairShare === undefined ? handleRecords(event.Records, context, handler) : handleFairShare(event.Records, context, fairShare, handler);
  };
};
