/**
 * The reconciler's SQS batch handler, shared by the Lambda entry point and the local hosts
 * (`lineup run`, `lineup demo`): each record is an EventBridge event delivered by the rule's SQS
 * target. Powertools batch processing reports partial failures, so one bad record never makes
 * SQS redeliver the good ones.
 *
 * What each kind of record gets:
 * - malformed (not JSON, not a Lineup event): a warning naming the problem, and a batch item
 *   failure — SQS redelivers it until the redrive policy moves it to the DLQ, where it is kept;
 * - source not matching its cluster, or an unknown cluster: a warning, and success (dropped on
 *   purpose: a forged or stray event must not be retried forever);
 * - duplicate, out of order, replayed: handled like any hint — level-triggered passes on live
 *   state make them harmless; replays are recorded, not applied;
 * - a pass that fails on the cluster or the store: an error line and a batch item failure (retried);
 *   on its last receive before the dead-letter queue, when the JobSet's state item records the
 *   failure, a warning and success: the resync re-queues the JobSet.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LineupEventBridgeSchema } from '../events/envelope.ts';
import { RECONCILE_MAX_RECEIVE_COUNT } from '../constants.ts';
import { isHeartbeatBody } from '../events/heartbeat.ts';
import { InvalidInputError } from '../errors.ts';
import { MalformedHeartbeatError, recordHeartbeat, type HeartbeatOutcome } from '../fleet/heartbeatRecorder.ts';
import { needsResync } from '../store/rules.ts';
import { handleEvent, type EventOutcome, type ReconcileDeps } from './reconcileJobSet.ts';

/** MalformedEventError: a record whose body is not a Lineup EventBridge event. */
export class MalformedEventError extends InvalidInputError {}

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

/**
 * makeSqsBatchHandler: the batch handler around `deps`; `onOutcome` sees each record's fate;
 * `onHeartbeat` hears of each live forwarder heartbeat (lib/fleet/heartbeatRecorder.ts), which the
 * handler records in `deps.store`.
 */
export const makeSqsBatchHandler = (
  deps: ReconcileDeps,
  onOutcome?: (record: SQSRecord, outcome: EventOutcome | HeartbeatOutcome | Error) => void,
  onHeartbeat?: (cluster: string) => void,
): ((event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>) => {
  /**
   * handedToResync: on a record's last receive before the dead-letter queue, whether its
   * JobSet's state item records the failed pass (lastError, or events nobody reconciles), so the
   * resync re-queues it and nothing is lost by letting the record go: a cluster that stays
   * unreachable for minutes then waits for the resync, not for a person reading the DLQ.
   */
  const handedToResync = async (record: SQSRecord, event: ReturnType<typeof parseRecordBody>): Promise<boolean> => {
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
  const recordHandler = async (record: SQSRecord): Promise<EventOutcome | HeartbeatOutcome> => {
    let event: ReturnType<typeof parseRecordBody> | undefined;
    try {
      const raw = parseJsonBody(record);
      if (isHeartbeatBody(raw)) {
        const beat = await recordHeartbeat(raw, record, { store: deps.store, now: deps.now, counters: deps.counters, log: deps.log, onHeartbeat });
        onOutcome?.(record, beat);
        return beat;
      }
      event = parseRecordBody(record, raw);
      const outcome = await handleEvent(
        { source: event.source, detail: event.detail, replayName: event['replay-name'], id: event.id, detailType: event['detail-type'], time: event.time },
        deps,
      );
      onOutcome?.(record, outcome);
      return outcome;
    } catch (error) {
      if (!(error instanceof MalformedEventError) && event !== undefined && (await handedToResync(record, event))) {
        deps.log('warn', 'reconcile failed on the last receive; the resync retries the jobset', {
          messageId: record.messageId,
          jobSet: `${event.detail.namespace}/${event.detail.jobSet}`,
          error: (error as Error).message,
          receiveCount: record.attributes.ApproximateReceiveCount,
        });
        onOutcome?.(record, 'handed-to-resync');
        return 'handed-to-resync';
      }
      const malformed = error instanceof MalformedEventError || error instanceof MalformedHeartbeatError;
      deps.log(malformed ? 'warn' : 'error', malformed ? 'malformed event' : 'reconcile failed; the event will be retried', {
        messageId: record.messageId,
        error: (error as Error).message,
        receiveCount: record.attributes.ApproximateReceiveCount,
      });
      onOutcome?.(record, error as Error);
      throw error;
    }
  };
  return async (event, context) => {
    // A processor per invocation: it keeps the batch's successes and failures.
    const processor = new BatchProcessor(EventType.SQS);
    return processPartialResponse(event, recordHandler, processor, { context, throwOnFullBatchFailure: false });
  };
};
