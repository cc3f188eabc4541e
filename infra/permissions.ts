/**
 * The IAM statements of Lineup's identities, each action listed with the store or sink call that
 * needs it (lib/store/dynamoStore.ts, lib/forwarder/eventBridgeSink.ts), so a grant cannot grow
 * without a reason written next to it. No statement names `*` as a resource or an action:
 * indexes are granted one by one, and event sources are held by condition.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import { EVENT_SOURCE_PREFIX, eventSource } from '../lib/events/schema.ts';
import { BOOKMARK_ATTRIBUTES, KeyPart, clusterPk, forwarderPk } from '../lib/store/table.ts';

/** TableActions: the DynamoDB actions of each identity. */
export const TableActions = {
  reconciler: [
    // getCluster (registry lookup of an event's cluster), getState.
    'dynamodb:GetItem',
    // appendJournal (the journal of reconcile passes).
    'dynamodb:PutItem',
    // noteEvent (and its lease takeover), releaseLease, failLease.
    'dynamodb:UpdateItem',
    // forgetJobSet (the state item of a JobSet that is gone, conditional on holding its lease).
    'dynamodb:DeleteItem',
  ],
  resync: [
    // listNeedingResync (index `resync`), listClusters and listJobSets (index `list`); listBookmarks,
    // each registered cluster's forwarder checkpoints, its heartbeat (the table, `FORWARDER#…` keys only).
    'dynamodb:Query',
    // The KEYS_ONLY index hits are read in full with BatchGetItem.
    'dynamodb:BatchGetItem',
  ],
  // A forwarder's bookmarks, under its own partition key only (forwarderBookmarkStatements).
  forwarderBookmarkRead: [
    // getBookmark.
    'dynamodb:GetItem',
  ],
  forwarderBookmarkWrite: [
    // putBookmark (BOOKMARK_ATTRIBUTES only).
    'dynamodb:PutItem',
  ],
  // The Lambda watch session's getCluster: its own cluster's registry entry, read only (registryReadStatement).
  registryRead: [
    'dynamodb:GetItem',
  ],
} as const;

/** reconcilerTableStatement: the reconciler's item reads and writes (the table only: it queries no index). */
export const reconcilerTableStatement = (tableArn: string): iam.PolicyStatement =>
  new iam.PolicyStatement({ actions: [...TableActions.reconciler], resources: [tableArn] });

/**
 * resyncTableStatements: Query on the two indexes, BatchGetItem on the table, and Query on the
 * table of the forwarders' partitions only (`FORWARDER#*`): their checkpoints are the heartbeats
 * the resync judges each cluster by. The resync reads nothing else of the table item by item.
 */
export const resyncTableStatements = (tableArn: string, indexArns: readonly string[]): iam.PolicyStatement[] => [
  new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [...indexArns] }),
  new iam.PolicyStatement({ actions: ['dynamodb:BatchGetItem'], resources: [tableArn] }),
  new iam.PolicyStatement({
    actions: ['dynamodb:Query'],
    resources: [tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${KeyPart.forwarder}*`] } },
  }),
];

/**
 * forwarderBookmarkStatements: a cluster's forwarder reads and writes only its own bookmarks
 * (docs/security.md): GetItem and PutItem of items whose partition key is `FORWARDER#<id>`
 * (dynamodb:LeadingKeys), and a PutItem may name BOOKMARK_ATTRIBUTES only (dynamodb:Attributes),
 * so it can give no item of its partition an index key (`listPk`, `resyncShard`) or a registry
 * entry's fields. Nothing under `CLUSTER#<id>` (the registry entry the reconciler trusts, the
 * heartbeat the resync judges liveness by), `JOBSET#…` or another forwarder's key. The same
 * statements, with the partner's roles as principals, are a partner cluster's grant in the
 * table's resource policy.
 */
export const forwarderBookmarkStatements = (tableArn: string, clusterId: string): iam.PolicyStatement[] => [
  new iam.PolicyStatement({
    actions: [...TableActions.forwarderBookmarkRead],
    resources: [tableArn],
    conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [forwarderPk(clusterId)] } },
  }),
  new iam.PolicyStatement({
    actions: [...TableActions.forwarderBookmarkWrite],
    resources: [tableArn],
    conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [forwarderPk(clusterId)], 'dynamodb:Attributes': [...BOOKMARK_ATTRIBUTES] } },
  }),
];

/**
 * registryReadStatement: GetItem of items under `CLUSTER#<id>` only — the Lambda watch session
 * reads its cluster's endpoint and credentials from the registry entry (lib/hosts/forwarderHost.ts);
 * it writes nothing there.
 */
export const registryReadStatement = (tableArn: string, clusterId: string): iam.PolicyStatement =>
  new iam.PolicyStatement({
    actions: [...TableActions.registryRead],
    resources: [tableArn],
    conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [clusterPk(clusterId)] } },
  });

/** clusterPutEventsStatement: PutEvents on the bus with source `lineup.<clusterId>` only. */
export const clusterPutEventsStatement = (busArn: string, clusterId: string): iam.PolicyStatement =>
  new iam.PolicyStatement({
    actions: ['events:PutEvents'],
    resources: [busArn],
    conditions: { StringEquals: { 'events:source': eventSource(clusterId) } },
  });

/** anyClusterPutEventsStatement: PutEvents of Sync events for any cluster (the resync), still only Lineup sources. */
export const anyClusterPutEventsStatement = (busArn: string): iam.PolicyStatement =>
  new iam.PolicyStatement({
    actions: ['events:PutEvents'],
    resources: [busArn],
    conditions: { StringLike: { 'events:source': `${EVENT_SOURCE_PREFIX}*` } },
  });

/**
 * tokenSecretStatement: secretsmanager:GetSecretValue on exactly the token clusters' secrets
 * (lib/k8s/secretToken.ts reads each on a warm process's first request to its cluster and again
 * after a 401). One statement for all of them, so a fleet grows the policy by an ARN per cluster.
 */
export const tokenSecretStatement = (secretArns: readonly string[]): iam.PolicyStatement =>
  new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [...secretArns] });
