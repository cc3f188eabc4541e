/**
 * CheckpointTable: the DynamoDB table of reconcile checkpoints (leases, dirty counters, the
 * journal, watch bookmarks, the cluster registry). Its keys and indexes are read from
 * tableDefinition() (lib/store/table.ts), the CreateTable input `lineup run` and the tests use,
 * so the three cannot drift; test/infra/stack.test.ts compares the synthesized table with it.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import type { AttributeDefinition, KeySchemaElement } from '@aws-sdk/client-dynamodb';
import { TTL_ATTRIBUTE, tableDefinition } from '../../lib/store/table.ts';

/** CheckpointTableProps: what an operator may choose. */
export interface CheckpointTableProps {
  /** Refuse DeleteTable (CloudFormation DeletionProtectionEnabled). */
  readonly deletionProtection: boolean;
}

const ATTRIBUTE_TYPES: Readonly<Record<string, dynamodb.AttributeType>> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
  B: dynamodb.AttributeType.BINARY,
};

/** keyAttribute: the CDK attribute of a key element, typed from the definition's AttributeDefinitions. */
const keyAttribute = (key: KeySchemaElement | undefined, definitions: readonly AttributeDefinition[]): dynamodb.Attribute | undefined => {
  if (key?.AttributeName === undefined) return undefined;
  const type = ATTRIBUTE_TYPES[definitions.find((d) => d.AttributeName === key.AttributeName)?.AttributeType ?? ''];
  if (type === undefined) throw new Error(`tableDefinition() defines no attribute type for key ${key.AttributeName}, expected S, N or B`);
  return { name: key.AttributeName, type };
};

const keyOf = (schema: readonly KeySchemaElement[] | undefined, keyType: 'HASH' | 'RANGE'): KeySchemaElement | undefined =>
  schema?.find((element) => element.KeyType === keyType);

/** CheckpointTable: `Resource` (the table). */
export class CheckpointTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: CheckpointTableProps) {
    super(scope, id);
    const definition = tableDefinition();
    const attributes = definition.AttributeDefinitions ?? [];
    if (definition.BillingMode !== 'PAY_PER_REQUEST') throw new Error(`tableDefinition() billing is ${String(definition.BillingMode)}, expected PAY_PER_REQUEST`);
    const partitionKey = keyAttribute(keyOf(definition.KeySchema, 'HASH'), attributes);
    if (partitionKey === undefined) throw new Error('tableDefinition() has no HASH key');
    this.table = new dynamodb.Table(this, 'Resource', {
      partitionKey,
      sortKey: keyAttribute(keyOf(definition.KeySchema, 'RANGE'), attributes),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection,
      // RETAIN: the table holds every JobSet's checkpoint and decision history; deleting the
      // stack (or replacing the table by a mistaken change) must never take them with it. An
      // operator who wants them gone deletes the table by hand (docs/deploy.md, "Remove").
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of definition.GlobalSecondaryIndexes ?? []) {
      const indexPartitionKey = keyAttribute(keyOf(index.KeySchema, 'HASH'), attributes);
      if (index.IndexName === undefined || indexPartitionKey === undefined) throw new Error('tableDefinition() has an index without a name or HASH key');
      if (index.Projection?.ProjectionType !== 'KEYS_ONLY') throw new Error(`index ${index.IndexName} projects ${String(index.Projection?.ProjectionType)}, expected KEYS_ONLY`);
      this.table.addGlobalSecondaryIndex({
        indexName: index.IndexName,
        partitionKey: indexPartitionKey,
        sortKey: keyAttribute(keyOf(index.KeySchema, 'RANGE'), attributes),
        projectionType: dynamodb.ProjectionType.KEYS_ONLY,
      });
    }
  }

  /** indexArn: the ARN of one of the table's indexes (IAM grants name indexes one by one, never `index/*`). */
  indexArn(indexName: string): string {
    return `${this.table.tableArn}/index/${indexName}`;
  }
}
