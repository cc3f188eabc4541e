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
 * - a pass that fails on the cluster or the store: an error line and a batch item failure (retried).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LineupEventBridgeSchema } from '../events/envelope.ts';
import { InvalidInputError } from '../errors.ts';
import { handleEvent, type EventOutcome, type ReconcileDeps } from './reconcileJobSet.ts';

/** MalformedEventError: a record whose body is not a Lineup EventBridge event. */
export class MalformedEventError extends InvalidInputError {}

/** parseRecordBody: the Lineup event in an SQS record, or MalformedEventError saying why not. */
export const parseRecordBody = (record: SQSRecord) => {
  let raw: unknown;
  try {
    raw = JSON.parse(record.body);
  } catch (error) {
    throw new MalformedEventError(`message ${record.messageId}: body is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = LineupEventBridgeSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    throw new MalformedEventError(`message ${record.messageId}: not a Lineup event: ${problems}`);
  }
  return parsed.data;
};

/** makeSqsBatchHandler: the batch handler around `deps`; `onOutcome` sees each record's fate. */
export const makeSqsBatchHandler = (
  deps: ReconcileDeps,
  onOutcome?: (record: SQSRecord, outcome: EventOutcome | Error) => void,
): ((event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>) => {
  const recordHandler = async (record: SQSRecord): Promise<EventOutcome> => {
    try {
      const event = parseRecordBody(record);
      const outcome = await handleEvent(
        { source: event.source, detail: event.detail, replayName: event['replay-name'], id: event.id, detailType: event['detail-type'], time: event.time },
        deps,
      );
      onOutcome?.(record, outcome);
      return outcome;
    } catch (error) {
      const level = error instanceof MalformedEventError ? 'warn' : 'error';
      deps.log(level, error instanceof MalformedEventError ? 'malformed event' : 'reconcile failed; the event will be retried', {
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
