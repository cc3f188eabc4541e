/**
 * The AWS clients the Lambda functions build once at module scope (warm invocations reuse them):
 * the DynamoDB checkpoint store and the EventBridge sink. Apart from lib/hosts/lambdaDeps.ts
 * because that one also resolves clusters, which loads the Kubernetes client: the resync needs
 * only these two, and its bundle then leaves the Kubernetes client and its HTTP stack out.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { Counters } from '../counters.ts';
import { EventBridgeSink, type PutEvents } from '../forwarder/eventBridgeSink.ts';
import { DynamoCheckpointStore } from '../store/dynamoStore.ts';
import type { LambdaConfig } from './lambdaConfig.ts';

/** lambdaStore: the checkpoint table named in the configuration. */
export const lambdaStore = (config: LambdaConfig, counters: Counters): DynamoCheckpointStore =>
  new DynamoCheckpointStore({ client: new DynamoDBClient({}), tableName: config.tableName, counters });

/** sdkPutEvents: PutEvents through the SDK's `client`. */
export const sdkPutEvents =
  (client: EventBridgeClient): PutEvents =>
  (request) =>
    client.send(new PutEventsCommand(request));

/**
 * lambdaSink: PutEvents onto the configured bus. One attempt per call: the forwarder's batcher is
 * the one layer that retries puts (lib/forwarder/batcher.ts), and an SDK retry inside it would
 * multiply the two policies.
 */
export const lambdaSink = (config: LambdaConfig): EventBridgeSink =>
  new EventBridgeSink({ putEvents: sdkPutEvents(new EventBridgeClient({ maxAttempts: 1 })), eventBusName: config.eventBusName });
