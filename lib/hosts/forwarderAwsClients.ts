/**
 * The AWS clients of the in-cluster forwarder (`lineup forward`, the Deployment's bundle):
 * its checkpoints and PutEvents as signed requests (lib/aws/jsonClient.ts) rather than the SDK's
 * clients, which the Lambda functions keep (./lambdaAwsClients.ts). Same environment as the SDK:
 * AWS_REGION, AWS_ENDPOINT_URL(_DYNAMODB|_EVENTBRIDGE), and the credentials of lib/aws/credentials.ts.
 */
import { credentialSource, credentialsFrom, requireCredentials } from '../aws/credentials.ts';
import { AwsJsonClient, DYNAMODB, EVENTBRIDGE, endpointFrom, regionFrom, type AwsJsonService } from '../aws/jsonClient.ts';
import type { Counters } from '../counters.ts';
import { EventBridgeSink, signedPutEvents } from '../forwarder/eventBridgeSink.ts';
import { DynamoBookmarkStore } from '../store/bookmarkStore.ts';
import type { LambdaConfig } from './lambdaConfig.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** ForwarderAwsClients: the forwarder's store and sink, and how to close their connections. */
export interface ForwarderAwsClients {
  readonly store: DynamoBookmarkStore;
  readonly sink: EventBridgeSink;
  /** Fetches the credentials both sign with once: UnauthenticatedError in one line when there are none (lib/aws/credentials.ts requireCredentials). */
  readonly requireCredentials: () => Promise<void>;
  readonly destroy: () => void;
}

/**
 * forwarderAwsClients: the bookmark store on the configured table (the SDK's 3 attempts per
 * request) and PutEvents onto the configured bus, sent once per call: the batcher is the one
 * layer that retries puts (lib/forwarder/batcher.ts), as lambdaSink's maxAttempts 1.
 */
export const forwarderAwsClients = (config: Pick<LambdaConfig, 'tableName' | 'eventBusName'>, counters: Counters, env: Env): ForwarderAwsClients => {
  const region = regionFrom(env);
  const credentials = credentialsFrom(env);
  const client = (service: AwsJsonService, maxAttempts?: number): AwsJsonClient =>
    new AwsJsonClient({
      service,
      region,
      endpoint: endpointFrom(service, region, env),
      credentials,
      ...(maxAttempts === undefined ? {} : { retryPolicy: { maxAttempts, baseDelayMs: 100, maxDelayMs: 20_000, jitter: 'equal' } }),
    });
  const dynamo = client(DYNAMODB);
  const events = client(EVENTBRIDGE, 1);
  return {
    store: new DynamoBookmarkStore({ client: dynamo, tableName: config.tableName, counters }),
    sink: new EventBridgeSink({ putEvents: signedPutEvents(events), eventBusName: config.eventBusName }),
    requireCredentials: () => requireCredentials(credentials, credentialSource(env)),
    destroy: () => {
      dynamo.destroy();
      events.destroy();
    },
  };
};
