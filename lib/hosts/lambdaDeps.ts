/**
 * Clients the Lambda functions build once at module scope (warm invocations reuse them): the
 * DynamoDB checkpoint store, the cluster registry, the EventBridge sink.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { Counters } from '../counters.ts';
import { EventBridgeSink } from '../forwarder/eventBridgeSink.ts';
import { resolveClusters } from '../k8s/registry.ts';
import type { ClusterResolver } from '../reconcile/types.ts';
import { DynamoCheckpointStore } from '../store/dynamoStore.ts';
import type { CheckpointStore } from '../store/types.ts';
import type { LambdaConfig } from './lambdaConfig.ts';

/** lambdaStore: the checkpoint table named in the configuration. */
export const lambdaStore = (config: LambdaConfig, counters: Counters): DynamoCheckpointStore =>
  new DynamoCheckpointStore({ client: new DynamoDBClient({}), tableName: config.tableName, counters });

/** lambdaClusters: static clusters from the configuration first, then the registry in the table. */
export const lambdaClusters = (config: LambdaConfig, store: CheckpointStore, counters: Counters): ClusterResolver =>
  resolveClusters({ store, static: config.staticClusters, counters });

/**
 * lambdaSink: PutEvents onto the configured bus. One attempt per call: the forwarder's batcher is
 * the one layer that retries puts (lib/forwarder/batcher.ts), and an SDK retry inside it would
 * multiply the two policies.
 */
export const lambdaSink = (config: LambdaConfig): EventBridgeSink =>
  new EventBridgeSink({ client: new EventBridgeClient({ maxAttempts: 1 }), eventBusName: config.eventBusName });
