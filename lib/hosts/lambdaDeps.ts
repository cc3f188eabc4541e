/**
 * Clients the Lambda functions build once at module scope (warm invocations reuse them): the
 * DynamoDB checkpoint store and the EventBridge sink (lib/hosts/lambdaAwsClients.ts), the
 * cluster registry and the reconciler's fair share.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Counters } from '../counters.ts';
import { resolveClusters } from '../k8s/registry.ts';
import { secretsManagerReader } from '../k8s/secretToken.ts';
import type { Log } from '../log.ts';
import { DEFERRALS_ATTRIBUTE, type FairShare, type PutBack } from '../reconcile/fairShare.ts';
import { DEFAULT_LEASE_TTL_MS } from '../reconcile/reconcileJobSet.ts';
import type { ClusterResolver } from '../reconcile/types.ts';
import { DynamoClusterSlots } from '../store/dynamoClusterSlots.ts';
import type { ClusterRegistry } from '../store/types.ts';
import type { LambdaConfig } from './lambdaConfig.ts';

export { lambdaSink, lambdaStore } from './lambdaAwsClients.ts';

/**
 * lambdaClusters: static clusters from the configuration first, then the registry in the table;
 * a `token` cluster's bearer token is read from Secrets Manager (the function's role may read
 * exactly the configured clusters' secrets: infra/permissions.ts).
 */
export const lambdaClusters = (config: LambdaConfig, store: Pick<ClusterRegistry, 'getCluster'>, counters: Counters): ClusterResolver =>
  resolveClusters({ store, static: config.staticClusters, counters, auth: { resolveSecret: secretsManagerReader() } });

/** SQS_BATCH_MAX_ENTRIES: SendMessageBatch's limit on entries per request. */
const SQS_BATCH_MAX_ENTRIES = 10;

/**
 * sqsPutBack: records put back on the queue at `queueUrl` with SendMessageBatch (each its delay
 * and its count of deferrals as a message attribute); the message ids SQS did not take.
 */
export const sqsPutBack =
  (client: SQSClient, queueUrl: string): PutBack =>
  async (records) => {
    const failed: string[] = [];
    for (let start = 0; start < records.length; start += SQS_BATCH_MAX_ENTRIES) {
      const chunk = records.slice(start, start + SQS_BATCH_MAX_ENTRIES);
      const output = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((record, index) => ({
            Id: String(index),
            MessageBody: record.body,
            DelaySeconds: record.delaySeconds,
            MessageAttributes: { [DEFERRALS_ATTRIBUTE]: { DataType: 'Number', StringValue: String(record.deferrals) } },
          })),
        }),
      );
      for (const entry of output.Failed ?? []) {
        const record = chunk[Number(entry.Id)];
        if (record !== undefined) failed.push(record.messageId);
      }
    }
    return failed;
  };

/**
 * lambdaFairShare: the reconciler's fair share (lib/reconcile/fairShare.ts) when the configuration
 * gives one: slots in the checkpoint table, records put back on the reconciler's queue. A slot
 * outlives the function's timeout (one lease TTL) by nothing: a timed-out invocation holds none.
 */
export const lambdaFairShare = (config: LambdaConfig, counters: Counters, log: Log, owner: string): FairShare | undefined => {
  if (config.fairShare === undefined) return undefined;
  return {
    slots: new DynamoClusterSlots({ client: new DynamoDBClient({}), tableName: config.tableName, counters }),
    slotsPerCluster: config.fairShare.slotsPerCluster,
    slotTtlMs: DEFAULT_LEASE_TTL_MS,
    putBack: sqsPutBack(new SQSClient({}), config.fairShare.queueUrl),
    holderId: () => `${owner}/${randomUUID()}`,
    now: Date.now,
    counters,
    log,
  };
};
