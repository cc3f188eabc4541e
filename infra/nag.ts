/**
 * The cdk-nag AwsSolutions findings Lineup acknowledges, each with its reason. Any other finding
 * fails synthesis (infra/app.ts) and test/infra/nag.test.ts.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { LineupStack } from './stack.ts';

/** NagAcknowledgement: one acknowledged finding on one construct (and its children). */
export interface NagAcknowledgement {
  /** Construct path below the stack, e.g. `Queue/DeliveryDeadLetters`. */
  readonly path: string;
  /** Rule id, with the finding in brackets where the rule reports several (`AwsSolutions-IAM5[Resource::...]`). */
  readonly id: string;
  readonly reason: string;
}

/** NAG_ACKNOWLEDGEMENTS: every acknowledged finding. */
export const NAG_ACKNOWLEDGEMENTS: readonly NagAcknowledgement[] = [
  {
    path: 'Queue/DeliveryDeadLetters',
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is a dead-letter queue: the ReconcilerRule target\'s DeadLetterConfig (events EventBridge could not deliver). cdk-nag only recognises queues named in another queue\'s RedrivePolicy; a DLQ of a DLQ would only move the problem.',
  },
];

/** constructAt: the construct at `path` below `stack`, or an error naming the path. */
const constructAt = (stack: LineupStack, path: string): IConstruct => {
  const found = stack.node.findAll().find((construct) => construct.node.path === `${stack.node.path}/${path}`);
  if (found === undefined) throw new Error(`cdk-nag acknowledgement names ${path}, which is not in stack ${stack.node.path}, expected a construct path below the stack`);
  return found;
};

/** acknowledgeNagFindings: record every acknowledgement on its construct (Validations.acknowledge). */
export const acknowledgeNagFindings = (stack: LineupStack): void => {
  for (const ack of NAG_ACKNOWLEDGEMENTS) Validations.of(constructAt(stack, ack.path)).acknowledge({ id: ack.id, reason: ack.reason });
};
