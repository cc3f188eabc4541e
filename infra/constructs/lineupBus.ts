/**
 * LineupBus: the custom event bus every forwarder puts on, its archive (for replay), and the
 * rule that sends Lineup's events to the reconcile queue. The rule's and the archive's pattern
 * is reconcilerRulePattern() (lib/events/pattern.ts), the one the local bus applies too.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { reconcilerRulePattern } from '../../lib/events/pattern.ts';
import { toRuleEventPattern } from '../eventPattern.ts';

/** DELIVERY_MAX_EVENT_AGE: how long EventBridge keeps retrying delivery to the queue before the event goes to DeliveryDeadLetters. */
export const DELIVERY_MAX_EVENT_AGE = Duration.hours(24);
/** DELIVERY_RETRY_ATTEMPTS: EventBridge's maximum; the age limit ends retries first. */
export const DELIVERY_RETRY_ATTEMPTS = 185;

/** LineupBusProps: where matched events go. */
export interface LineupBusProps {
  readonly queue: sqs.IQueue;
  /** Where events EventBridge could not deliver to the queue are kept. */
  readonly deliveryDeadLetters: sqs.IQueue;
  /** How long the archive keeps events. */
  readonly archiveRetention: Duration;
}

/** LineupBus: `Resource` (the bus), `Archive`, `ReconcilerRule`. */
export class LineupBus extends Construct {
  readonly bus: events.EventBus;
  readonly archive: events.Archive;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: LineupBusProps) {
    super(scope, id);
    const eventPattern = toRuleEventPattern(reconcilerRulePattern());
    this.bus = new events.EventBus(this, 'Resource', { description: 'Lineup: JobSet and Job change hints from every cluster (source lineup.<clusterId>)' });
    this.archive = this.bus.archive('Archive', {
      description: 'Lineup events for replay; replayed events carry replay-name and are recorded, not applied, unless applyReplays is set',
      eventPattern,
      retention: props.archiveRetention,
    });
    this.rule = new events.Rule(this, 'ReconcilerRule', {
      eventBus: this.bus,
      description: 'Lineup events to the reconcile queue',
      eventPattern,
      targets: [
        new targets.SqsQueue(props.queue, {
          deadLetterQueue: props.deliveryDeadLetters,
          maxEventAge: DELIVERY_MAX_EVENT_AGE,
          retryAttempts: DELIVERY_RETRY_ATTEMPTS,
        }),
      ],
    });
  }
}
