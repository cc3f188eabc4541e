/**
 * The local hosts' stand-in for EventBridge → rule → SQS → Lambda (docs/deploy.md): PutEvents
 * entries become EventBridge events, the same rule pattern the infrastructure deploys decides
 * what reaches the queue, and the queue invokes the same SQS batch handler with batches of up
 * to 10 records, redelivering reported failures after a backoff and moving a record to the
 * dead-letter list after `maxReceiveCount` receives, as an SQS redrive policy does.
 */
import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { RECONCILE_MAX_RECEIVE_COUNT } from '../constants.ts';
import type { PutEventsEntry } from '../events/envelope.ts';
import { matchesPattern, type EventPattern } from '../events/pattern.ts';
import type { EventSink, PutResult } from '../forwarder/types.ts';
import type { Log } from '../log.ts';
import { sleep } from '../retry.ts';

/** A message on the in-process queue. */
interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  receiveCount: number;
  /** Epoch ms before which the message is invisible (redelivery backoff). */
  visibleAt: number;
}

/** InProcessBusOptions: the rule, the consumer, and the queue's redrive settings. */
export interface InProcessBusOptions {
  readonly pattern: EventPattern;
  readonly handler: (event: SQSEvent) => Promise<SQSBatchResponse>;
  readonly log: Log;
  /** @default 10 (the SQS event source maximum for a standard queue without a window is 10) */
  readonly batchSize?: number | undefined;
  /** How long to wait for a batch to fill. @default 0 */
  readonly batchWindowMs?: number | undefined;
  /** Receives before a message goes to the dead-letter list. @default 5 */
  readonly maxReceiveCount?: number | undefined;
  /** Redelivery delay after a failure (visibility timeout). @default 1000 */
  readonly visibilityTimeoutMs?: number | undefined;
  /** Clock; the demo passes virtual time. @default Date.now */
  readonly now?: (() => number) | undefined;
  /**
   * Redeliver failed messages by a real timer (hosts on wall-clock time) or only when the host
   * calls kick() (the demo, whose clock is virtual). @default 'timer'
   */
  readonly redelivery?: 'timer' | 'manual' | undefined;
  /** Account and region written into events. */
  readonly account?: string | undefined;
  readonly region?: string | undefined;
}

/** InProcessBus: an EventSink whose events are routed to the reconciler in this process. */
export class InProcessBus implements EventSink {
  /** Every event put (the archive a replay reads). */
  readonly archive: Record<string, unknown>[] = [];
  /** Records that exhausted their receives. */
  readonly deadLetters: { readonly messageId: string; readonly body: string }[] = [];
  private readonly queue: QueuedMessage[] = [];
  private inFlight = 0;
  private draining: Promise<void> | undefined;
  private stopped = false;
  private readonly options: InProcessBusOptions;
  private readonly now: () => number;

  constructor(options: InProcessBusOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** put: PutEvents semantics — every entry gets an event id; matching ones are queued. */
  async put(entries: readonly PutEventsEntry[]): Promise<PutResult> {
    for (const entry of entries) {
      const event = {
        version: '0',
        id: randomUUID(),
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: this.options.account ?? '000000000000',
        time: new Date(this.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        region: this.options.region ?? 'local',
        resources: [],
        detail: JSON.parse(entry.Detail) as unknown,
      };
      this.archive.push(event);
      if (matchesPattern(this.options.pattern, event)) {
        this.queue.push({ messageId: randomUUID(), body: JSON.stringify(event), receiveCount: 0, visibleAt: this.now() });
      }
    }
    this.kick();
    return { failed: [] };
  }

  /** pending: messages waiting or being handled. */
  pending(): number {
    return this.queue.length + this.inFlight;
  }

  /** visiblePending: messages that could be delivered right now, plus those in flight. */
  visiblePending(): number {
    const now = this.now();
    return this.queue.filter((message) => message.visibleAt <= now).length + this.inFlight;
  }

  /** kick: make sure a delivery loop runs. */
  kick(): void {
    if (this.draining || this.stopped) return;
    this.draining = this.deliver().finally(() => {
      this.draining = undefined;
    });
  }

  /** idle: resolves once nothing visible is queued or in flight. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** stop: deliver nothing more; waits for the batch in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.redeliveryTimer) clearTimeout(this.redeliveryTimer);
    await this.idle();
  }

  private async deliver(): Promise<void> {
    const batchSize = this.options.batchSize ?? 10;
    for (;;) {
      if (this.stopped) return;
      const window = this.options.batchWindowMs ?? 0;
      // Without a window, yield one turn so that messages sent together are delivered together.
      await (window > 0 ? sleep(window) : new Promise((resolve) => setImmediate(resolve)));
      const now = this.now();
      const batch: QueuedMessage[] = [];
      for (let i = 0; i < this.queue.length && batch.length < batchSize; ) {
        const message = this.queue[i];
        if (message && message.visibleAt <= now) {
          batch.push(message);
          this.queue.splice(i, 1);
        } else i += 1;
      }
      if (batch.length === 0) {
        this.scheduleRedelivery();
        return;
      }
      this.inFlight += batch.length;
      try {
        await this.handleBatch(batch);
      } finally {
        this.inFlight -= batch.length;
      }
    }
  }

  /** nextVisibleAt: when the earliest invisible message becomes deliverable again, if any. */
  nextVisibleAt(): number | undefined {
    const times = this.queue.map((message) => message.visibleAt);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  private redeliveryTimer: NodeJS.Timeout | undefined;

  private scheduleRedelivery(): void {
    const next = this.nextVisibleAt();
    if (next === undefined || (this.options.redelivery ?? 'timer') !== 'timer' || this.redeliveryTimer) return;
    this.redeliveryTimer = setTimeout(() => {
      this.redeliveryTimer = undefined;
      this.kick();
    }, Math.max(0, next - this.now()));
    // A pending redelivery alone must not keep the process alive after stop().
    this.redeliveryTimer.unref();
  }

  private async handleBatch(batch: QueuedMessage[]): Promise<void> {
    const records: SQSRecord[] = batch.map((message) => {
      message.receiveCount += 1;
      return {
        messageId: message.messageId,
        receiptHandle: message.messageId,
        body: message.body,
        attributes: {
          ApproximateReceiveCount: String(message.receiveCount),
          SentTimestamp: String(this.now()),
          SenderId: 'lineup-local',
          ApproximateFirstReceiveTimestamp: String(this.now()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:local:000000000000:lineup-reconcile',
        awsRegion: this.options.region ?? 'local',
      };
    });
    let failedIds: Set<string>;
    try {
      const response = await this.options.handler({ Records: records });
      failedIds = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    } catch (error) {
      // The whole invocation failed: SQS redelivers the whole batch.
      this.options.log('error', 'reconciler invocation failed; redelivering the batch', { error: (error as Error).message });
      failedIds = new Set(batch.map((message) => message.messageId));
    }
    for (const message of batch) {
      if (!failedIds.has(message.messageId)) continue;
      if (message.receiveCount >= (this.options.maxReceiveCount ?? RECONCILE_MAX_RECEIVE_COUNT)) {
        this.deadLetters.push({ messageId: message.messageId, body: message.body });
        this.options.log('error', 'message moved to the dead-letter list', { messageId: message.messageId, receives: message.receiveCount });
        continue;
      }
      message.visibleAt = this.now() + (this.options.visibilityTimeoutMs ?? 1000);
      this.queue.push(message);
    }
  }
}
