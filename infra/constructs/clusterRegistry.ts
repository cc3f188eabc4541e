/**
 * The cluster registry, written at deploy time: one registry item per configured cluster in the
 * checkpoint table (the item `putCluster` writes, lib/store/dynamoStore.ts), so the reconciler,
 * the Lambda forwarder and the full resync find every cluster the same way, however many there
 * are. (Lambda's environment holds 4 KB in all; a fleet's endpoints and CAs do not fit in
 * LINEUP_STATIC_CLUSTERS.)
 *
 * A cluster configured by EKS name alone gets its endpoint and CA from eks:DescribeCluster at
 * deploy time. Both calls are AwsCustomResource calls made by one shared provider function
 * (`RegistryWriter`'s role); removing a cluster from the configuration deletes its item.
 */
import { Aws, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { clusterAttributes } from '../../lib/store/items.ts';
import { KeyPart, LIST_INDEX, TABLE_KEY, clusterPk } from '../../lib/store/table.ts';
import type { ClusterRecord } from '../../lib/store/types.ts';
import { eksClusterName } from '../config.ts';
import type { ClusterConfig } from '../config.ts';

/** AttributeValue: the DynamoDB wire form of the string, number and map values a registry item holds. */
export type AttributeValue = { readonly S: string } | { readonly N: string } | { readonly BOOL: boolean } | { readonly M: Readonly<Record<string, AttributeValue>> };

/** toAttributeValue: `value` in DynamoDB's wire form (what AwsCustomResource passes to PutItem). */
export const toAttributeValue = (value: unknown): AttributeValue => {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return { M: Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, toAttributeValue(v)])) };
  }
  throw new Error(`a registry item holds strings, numbers, booleans and maps, got ${JSON.stringify(value)}`);
};

/** registryItem: the registry item of `record`, exactly as putCluster writes it (keys, `list` index keys, attributes). */
export const registryItem = (record: ClusterRecord): Record<string, AttributeValue> => {
  const item: Record<string, unknown> = {
    [TABLE_KEY.partitionKey]: clusterPk(record.id),
    [TABLE_KEY.sortKey]: KeyPart.registry,
    [LIST_INDEX.partitionKey]: KeyPart.listClusters,
    [LIST_INDEX.sortKey]: record.id,
    ...clusterAttributes(record),
  };
  return Object.fromEntries(Object.entries(item).map(([key, value]) => [key, toAttributeValue(value)]));
};

/** eksClusterArn: the ARN of an EKS cluster of this account. */
export const eksClusterArn = (scope: Construct, clusterName: string, region: string): string =>
  Stack.of(scope).formatArn({ service: 'eks', region, resource: 'cluster', resourceName: clusterName });

/** RegistryWriterProps: the table the items go to. */
export interface RegistryWriterProps {
  readonly tableArn: string;
  readonly logRetentionDays: number;
}

/**
 * RegistryWriter: the role and log group of the shared AwsCustomResource provider function.
 * One role for every registration (instead of a policy per custom resource) keeps a fleet's
 * stack well under CloudFormation's 500 resources.
 */
export class RegistryWriter extends Construct {
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  private describe: iam.PolicyStatement | undefined;

  constructor(scope: Construct, id: string, props: RegistryWriterProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'LogGroup', { retention: props.logRetentionDays });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Lineup: writes the cluster registry items at deploy time',
    });
    this.logGroup.grantWrite(this.role);
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
        resources: [props.tableArn],
        // Registry items only: their partition keys are CLUSTER#<id>.
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${KeyPart.cluster}*`] } },
      }),
    );
  }

  /**
   * allowDescribe: let the provider read one EKS cluster's endpoint and CA. Every cluster goes
   * into one statement, so the role's policy grows by an ARN per cluster, not a statement.
   */
  allowDescribe(clusterArn: string): void {
    if (this.describe === undefined) {
      this.describe = new iam.PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [clusterArn] });
      this.role.addToPrincipalPolicy(this.describe);
    } else this.describe.addResources(clusterArn);
  }
}

/** ClusterRegistrationProps: the cluster, the table and the shared writer. */
export interface ClusterRegistrationProps {
  readonly cluster: ClusterConfig;
  readonly tableName: string;
  readonly writer: RegistryWriter;
}

/** ClusterRegistration: `Endpoint` (only without a configured endpoint) and `RegistryItem`. */
export class ClusterRegistration extends Construct {
  /** The registry record as deployed (endpoint and CA may be deploy-time tokens). */
  readonly record: ClusterRecord;

  constructor(scope: Construct, id: string, props: ClusterRegistrationProps) {
    super(scope, id);
    const { cluster, writer } = props;
    const region = cluster.region ?? Aws.REGION;
    let endpoint = cluster.endpoint;
    let caData = cluster.caData;
    if (endpoint === undefined || caData === undefined) {
      const clusterName = eksClusterName(cluster);
      writer.allowDescribe(eksClusterArn(this, clusterName, region));
      const describe = new cr.AwsCustomResource(this, 'Endpoint', {
        resourceType: 'Custom::LineupEksEndpoint',
        onUpdate: {
          service: 'EKS',
          action: 'DescribeCluster',
          parameters: { name: clusterName },
          region,
          physicalResourceId: cr.PhysicalResourceId.of(`${cluster.id}/${clusterName}`),
          outputPaths: ['cluster.endpoint', 'cluster.certificateAuthority.data'],
        },
        role: writer.role,
        logGroup: writer.logGroup,
        installLatestAwsSdk: false,
      });
      // The provider must hold eks:DescribeCluster (the role's policy) before the call.
      describe.node.addDependency(writer.role);
      endpoint = describe.getResponseField('cluster.endpoint');
      caData = describe.getResponseField('cluster.certificateAuthority.data');
    }
    this.record = {
      id: cluster.id,
      endpoint,
      caData,
      auth:
        cluster.tokenSecretArn === undefined
          ? { type: 'eks', clusterName: eksClusterName(cluster), region, ...(cluster.accessRoleArn === undefined ? {} : { roleArn: cluster.accessRoleArn }) }
          : { type: 'token', tokenSecretArn: cluster.tokenSecretArn },
    };
    const key = { [TABLE_KEY.partitionKey]: { S: clusterPk(cluster.id) }, [TABLE_KEY.sortKey]: { S: KeyPart.registry } };
    const put: cr.AwsSdkCall = {
      service: 'DynamoDB',
      action: 'PutItem',
      parameters: { TableName: props.tableName, Item: registryItem(this.record) },
      physicalResourceId: cr.PhysicalResourceId.of(clusterPk(cluster.id)),
    };
    const registration = new cr.AwsCustomResource(this, 'RegistryItem', {
      resourceType: 'Custom::LineupClusterRegistration',
      onCreate: put,
      onUpdate: put,
      onDelete: { service: 'DynamoDB', action: 'DeleteItem', parameters: { TableName: props.tableName, Key: key } },
      role: writer.role,
      logGroup: writer.logGroup,
      installLatestAwsSdk: false,
    });
    registration.node.addDependency(writer.role);
  }
}
