/**
 * ReconcileQueue: the SQS queue between the bus rule and the reconciler, and the two queues
 * where what could not be handled is kept: `DeadLetters` (records the reconciler failed on
 * maxReceiveCount times, by redrive) and `DeliveryDeadLetters` (events EventBridge could not
 * deliver to the queue). Both are alarmed on (LineupMonitoring); nothing in them is lost
 * within their retention.
 */
import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RECONCILE_MAX_RECEIVE_COUNT } from '../../lib/constants.ts';

/** MAX_RECEIVE_COUNT: receives of a record before redrive moves it to DeadLetters (lib/constants.ts: the handler knows its last receive). */
export const MAX_RECEIVE_COUNT = RECONCILE_MAX_RECEIVE_COUNT;
/**
 * VISIBILITY_TIMEOUT_FACTOR: the queue's visibility timeout in reconciler timeouts. AWS asks
 * for at least 6 with a Lambda event source, so a batch retried by Lambda's own throttling
 * retries is not redelivered while still in flight.
 */
export const VISIBILITY_TIMEOUT_FACTOR = 6;
/** DEAD_LETTER_RETENTION: SQS's maximum, the longest an operator has to look at a dead letter. */
export const DEAD_LETTER_RETENTION = Duration.days(14);

/** ReconcileQueueProps: the consumer's timeout decides the visibility timeout. */
export interface ReconcileQueueProps {
  /** The reconciler function's timeout. */
  readonly consumerTimeout: Duration;
}

/** queueDefaults: encryption at rest (SQS-managed keys, which EventBridge can send to) and TLS only. */
const queueDefaults = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;

/** ReconcileQueue: `Resource` (the queue), `DeadLetters`, `DeliveryDeadLetters`. */
export class ReconcileQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetters: sqs.Queue;
  readonly deliveryDeadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: ReconcileQueueProps) {
    super(scope, id);
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', { ...queueDefaults, retentionPeriod: DEAD_LETTER_RETENTION });
    this.deliveryDeadLetters = new sqs.Queue(this, 'DeliveryDeadLetters', { ...queueDefaults, retentionPeriod: DEAD_LETTER_RETENTION });
    this.queue = new sqs.Queue(this, 'Resource', {
      ...queueDefaults,
      visibilityTimeout: Duration.seconds(props.consumerTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
  }
}
