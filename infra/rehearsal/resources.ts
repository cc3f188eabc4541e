/**
 * The stack's resources on the test servers, from the wiring (infra/rehearsal/wiring.ts): each
 * bus on moto by its template name, each queue on moto with its (time-compressed) visibility
 * timeout and its redrive policy to its dead-letter queue, each rule queue-target on its bus with
 * the template's pattern, each table on the DynamoDB-API server with its keys and indexes. Returns
 * what a Ref or Fn::GetAtt of each resource resolves to, as CloudFormation would: a queue's Ref
 * is its URL, a table's and a bus's their names, `Arn` their ARNs.
 */
import { CreateTableCommand, DynamoDBClient, type KeyType, type ProjectionType, type ScalarAttributeType } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AwsClientConfig } from '../../test/integration/harness/moto.ts';
import type { TemplateValue, Wiring } from './wiring.ts';

/** Created: what each logical id resolves to. */
export interface Created {
  /** Ref of each resource. */
  readonly refs: ReadonlyMap<string, string>;
  /** Fn::GetAtt [id, 'Arn'] of each resource. */
  readonly arns: ReadonlyMap<string, string>;
  /** Queue URLs by logical id. */
  readonly queueUrls: ReadonlyMap<string, string>;
}

/** resolve: a template value with the resources created; throws naming `where` for a reference to nothing created. */
export const resolve = (value: TemplateValue, created: Created, where: string): string => {
  if ('literal' in value) return value.literal;
  if ('ref' in value) {
    const ref = created.refs.get(value.ref);
    if (ref === undefined) throw new Error(`${where}: Ref ${value.ref} names no resource the rehearsal created`);
    return ref;
  }
  const [id, attribute] = value.getAtt;
  const arn = attribute === 'Arn' ? created.arns.get(id) : attribute === 'QueueUrl' ? created.queueUrls.get(id) : attribute === 'QueueName' || attribute === 'Name' ? created.refs.get(id) : undefined;
  if (arn === undefined) throw new Error(`${where}: Fn::GetAtt ${id}.${attribute} is not an attribute the rehearsal resolves`);
  return arn;
};

/**
 * createResources: every bus, queue, rule and table of the wiring on moto (`aws`) and the
 * DynamoDB-API server (`dynamo`); queue visibility timeouts divided by `timeFactor` (at least 1 s).
 */
export const createResources = async (wiring: Wiring, aws: AwsClientConfig, dynamo: AwsClientConfig, timeFactor: number): Promise<Created> => {
  const events = new EventBridgeClient(aws);
  const sqs = new SQSClient(aws);
  const ddb = new DynamoDBClient(dynamo);
  const refs = new Map<string, string>();
  const arns = new Map<string, string>();
  const queueUrls = new Map<string, string>();
  try {
    for (const bus of wiring.buses) {
      const out = await events.send(new CreateEventBusCommand({ Name: bus.name }));
      refs.set(bus.logicalId, bus.name);
      arns.set(bus.logicalId, out.EventBusArn ?? `arn:aws:events:${aws.region}:123456789012:event-bus/${bus.name}`);
    }
    // Dead-letter queues first: a redrive policy names its queue's ARN.
    const ordered = [...wiring.queues].sort((a, b) => Number(a.redrive !== undefined) - Number(b.redrive !== undefined));
    for (const queue of ordered) {
      const attributes: Record<string, string> = { VisibilityTimeout: String(Math.max(1, Math.round(queue.visibilityTimeoutSeconds / timeFactor))) };
      if (queue.redrive !== undefined) {
        const target = arns.get(queue.redrive.deadLetterQueue);
        if (target === undefined) throw new Error(`queue ${queue.logicalId}: its dead-letter queue ${queue.redrive.deadLetterQueue} was not created`);
        attributes['RedrivePolicy'] = JSON.stringify({ deadLetterTargetArn: target, maxReceiveCount: queue.redrive.maxReceiveCount });
      }
      const url = (await sqs.send(new CreateQueueCommand({ QueueName: queue.logicalId, Attributes: attributes }))).QueueUrl;
      if (url === undefined) throw new Error(`moto created queue ${queue.logicalId} but returned no URL`);
      const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes?.['QueueArn'];
      if (arn === undefined) throw new Error(`moto returned no ARN for queue ${queue.logicalId}`);
      refs.set(queue.logicalId, url);
      arns.set(queue.logicalId, arn);
      queueUrls.set(queue.logicalId, url);
    }
    for (const rule of wiring.rules) {
      const bus = refs.get(rule.bus);
      if (bus === undefined) throw new Error(`rule ${rule.logicalId}: its bus ${rule.bus} was not created`);
      await events.send(new PutRuleCommand({ Name: rule.logicalId, EventBusName: bus, EventPattern: JSON.stringify(rule.pattern), State: 'ENABLED' }));
      await events.send(
        new PutTargetsCommand({ Rule: rule.logicalId, EventBusName: bus, Targets: rule.queues.map((queue, index) => ({ Id: `Target${index}`, Arn: arns.get(queue) })) }),
      );
    }
    for (const table of wiring.tables) {
      await ddb.send(
        new CreateTableCommand({
          TableName: table.logicalId,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: table.attributes.map((attribute) => ({ AttributeName: attribute.AttributeName, AttributeType: attribute.AttributeType as ScalarAttributeType })),
          KeySchema: table.keySchema.map((key) => ({ AttributeName: key.AttributeName, KeyType: key.KeyType as KeyType })),
          ...(table.globalSecondaryIndexes.length === 0
            ? {}
            : {
                GlobalSecondaryIndexes: table.globalSecondaryIndexes.map((index) => ({
                  IndexName: index.IndexName,
                  KeySchema: index.KeySchema.map((key) => ({ AttributeName: key.AttributeName, KeyType: key.KeyType as KeyType })),
                  Projection: { ProjectionType: (index.Projection.ProjectionType ?? 'ALL') as ProjectionType, ...(index.Projection.NonKeyAttributes ? { NonKeyAttributes: [...index.Projection.NonKeyAttributes] } : {}) },
                })),
              }),
        }),
      );
      refs.set(table.logicalId, table.logicalId);
      arns.set(table.logicalId, `arn:aws:dynamodb:${dynamo.region}:123456789012:table/${table.logicalId}`);
    }
    return { refs, arns, queueUrls };
  } finally {
    events.destroy();
    sqs.destroy();
    ddb.destroy();
  }
};
