/**
 * The rehearsal's stand-in for Lambda's SQS event source mapping, driven by the mapping's own
 * properties (infra/rehearsal/wiring.ts EventSourceMappingWiring): receive up to BatchSize
 * records, gathering for up to MaximumBatchingWindowInSeconds once the first arrived; invoke the
 * function with them as an SQS event; then settle the batch as Lambda does — with
 * ReportBatchItemFailures, the records the response names stay on the queue and the rest are
 * deleted; a response Lambda cannot read (not an object, an itemIdentifier that is empty or not
 * of the batch) or an invocation error leaves the whole batch; without ReportBatchItemFailures
 * any successful invocation deletes the whole batch. As many pollers run as MaximumConcurrency
 * allows, bounded by the function instances the rehearsal runs.
 *
 * `settleBatch` is pure; `EventSourcePoller` is the loop, its queue and function given as functions.
 */
import type { SQSRecord } from 'aws-lambda';
import { isObject } from '../../lib/json.ts';
import { sleep } from '../../lib/retry.ts';

/** Invocation: how one invocation ended — the function's response payload, or its error (a throw, a timeout, a crash). */
export type Invocation = { readonly ok: true; readonly payload: unknown } | { readonly ok: false; readonly error: string };

/** Settlement: which records of a batch are deleted and which stay for redelivery, and why. */
export interface Settlement {
  readonly deleted: readonly string[];
  readonly kept: readonly string[];
  /** Why the batch settled so: 'all succeeded', 'partial: N failed', or why the whole batch stays. */
  readonly reason: string;
  /** Records the response named as failed that were deleted all the same (a mapping without ReportBatchItemFailures): lost to the queue. */
  readonly ignoredFailures: number;
}

/**
 * settleBatch: Lambda's verdict on one batch of `messageIds` after `invocation`, given whether
 * the mapping reports batch item failures. Follows the documented rules: success when the
 * response is null, empty, or has a null or empty batchItemFailures; the whole batch fails for an
 * invocation error or, with ReportBatchItemFailures, for a response that is not an object, a
 * batchItemFailures that is not a list, or an itemIdentifier that is missing, empty or not a
 * message of the batch.
 */
export const settleBatch = (messageIds: readonly string[], invocation: Invocation, reportBatchItemFailures: boolean): Settlement => {
  const all = (reason: string): Settlement => ({ deleted: [], kept: [...messageIds], reason, ignoredFailures: 0 });
  const none = (reason: string, ignoredFailures = 0): Settlement => ({ deleted: [...messageIds], kept: [], reason, ignoredFailures });
  if (!invocation.ok) return all(`invocation failed: ${invocation.error}`);
  const payload = invocation.payload;
  if (!reportBatchItemFailures) {
    const named = isObject(payload) && Array.isArray(payload['batchItemFailures']) ? payload['batchItemFailures'].length : 0;
    return named === 0
      ? none('all succeeded (no ReportBatchItemFailures: any response deletes the batch)')
      : none(`all deleted although the response names ${named} failed records: the mapping lacks ReportBatchItemFailures`, named);
  }
  if (payload === null || payload === undefined || payload === '') return none('all succeeded (empty response)');
  if (!isObject(payload)) return all(`the response ${JSON.stringify(payload).slice(0, 200)} is not an object`);
  const failures = payload['batchItemFailures'];
  if (failures === null || failures === undefined) return none('all succeeded (no batchItemFailures)');
  if (!Array.isArray(failures)) return all(`batchItemFailures is ${JSON.stringify(failures).slice(0, 200)}, not a list`);
  const batch = new Set(messageIds);
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = isObject(failure) ? failure['itemIdentifier'] : undefined;
    if (typeof id !== 'string' || id === '' || !batch.has(id)) return all(`batchItemFailures names ${JSON.stringify(failure).slice(0, 200)}, not a message of the batch`);
    failed.add(id);
  }
  if (failed.size === 0) return none('all succeeded');
  return { deleted: messageIds.filter((id) => !failed.has(id)), kept: messageIds.filter((id) => failed.has(id)), reason: `partial: ${failed.size} of ${messageIds.length} failed`, ignoredFailures: 0 };
};

/** ReceivedMessage: what the poller needs of a received SQS message. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly record: SQSRecord;
}

/** PollerIo: the queue and the function, as the poller uses them. */
export interface PollerIo {
  /** ReceiveMessage: up to `max` messages, long-polling up to `waitSeconds`. */
  receive(max: number, waitSeconds: number, signal: AbortSignal): Promise<readonly ReceivedMessage[]>;
  /** DeleteMessageBatch of these messages. */
  delete(messages: readonly ReceivedMessage[]): Promise<void>;
  /** Invoke the function (one instance of it) with the event. */
  invoke(event: { readonly Records: readonly SQSRecord[] }): Promise<Invocation>;
}

/** PollerOptions: the mapping's properties the loop follows. */
export interface PollerOptions {
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  readonly reportBatchItemFailures: boolean;
  /** Called with every settled batch (the rehearsal counts and reports them). */
  readonly onBatch?: (batch: { readonly size: number; readonly settlement: Settlement; readonly invokeMs: number }) => void;
  /** Called when receiving or deleting fails (the loop goes on). */
  readonly onError?: (error: unknown) => void;
}

/** SQS_MAX_RECEIVE: ReceiveMessage's limit on messages per call. */
const SQS_MAX_RECEIVE = 10;

/** gather: one batch — up to batchSize messages, receiving until the window since the first has passed. */
export const gather = async (io: PollerIo, options: PollerOptions, signal: AbortSignal, now: () => number = Date.now): Promise<ReceivedMessage[]> => {
  const batch: ReceivedMessage[] = [];
  let windowEnds = Number.POSITIVE_INFINITY;
  while (!signal.aborted && batch.length < options.batchSize) {
    const left = windowEnds - now();
    if (batch.length > 0 && left <= 0) break;
    // Long-poll for the first record; then only as long as the window has left (whole seconds: SQS's unit).
    const waitSeconds = batch.length === 0 ? 1 : Math.min(1, Math.floor(left / 1000));
    const received = await io.receive(Math.min(SQS_MAX_RECEIVE, options.batchSize - batch.length), waitSeconds, signal);
    if (batch.length === 0 && received.length > 0) windowEnds = now() + options.batchingWindowSeconds * 1000;
    batch.push(...received);
    if (batch.length === 0) continue;
    if (options.batchingWindowSeconds === 0) break;
    if (received.length === 0 && waitSeconds === 0) await sleep(Math.min(100, Math.max(0, windowEnds - now())));
  }
  return batch;
};

/** EventSourcePoller: one poller; `run` until the signal aborts. */
export class EventSourcePoller {
  private readonly io: PollerIo;
  private readonly options: PollerOptions;

  constructor(io: PollerIo, options: PollerOptions) {
    this.io = io;
    this.options = options;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let batch: ReceivedMessage[];
      try {
        batch = await gather(this.io, this.options, signal);
      } catch (error) {
        if (signal.aborted) return;
        this.options.onError?.(error);
        await sleep(200);
        continue;
      }
      if (batch.length === 0) continue;
      const started = Date.now();
      const invocation = await this.io.invoke({ Records: batch.map((message) => message.record) });
      const invokeMs = Date.now() - started;
      const settlement = settleBatch(batch.map((message) => message.messageId), invocation, this.options.reportBatchItemFailures);
      const deleted = new Set(settlement.deleted);
      const toDelete = batch.filter((message) => deleted.has(message.messageId));
      try {
        if (toDelete.length > 0) await this.io.delete(toDelete);
      } catch (error) {
        this.options.onError?.(error);
      }
      this.options.onBatch?.({ size: batch.length, settlement, invokeMs });
    }
  }
}
