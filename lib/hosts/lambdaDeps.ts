/**
 * Clients the Lambda functions build once at module scope (warm invocations reuse them): the
 * DynamoDB checkpoint store and the EventBridge sink (lib/hosts/lambdaAwsClients.ts), and the
 * cluster registry.
 */
import type { Counters } from '../counters.ts';
import { resolveClusters } from '../k8s/registry.ts';
import { secretsManagerReader } from '../k8s/secretToken.ts';
import type { ClusterResolver } from '../reconcile/types.ts';
import type { CheckpointStore } from '../store/types.ts';
import type { LambdaConfig } from './lambdaConfig.ts';

export { lambdaSink, lambdaStore } from './lambdaAwsClients.ts';

/**
 * lambdaClusters: static clusters from the configuration first, then the registry in the table;
 * a `token` cluster's bearer token is read from Secrets Manager (the function's role may read
 * exactly the configured clusters' secrets: infra/permissions.ts).
 */
export const lambdaClusters = (config: LambdaConfig, store: CheckpointStore, counters: Counters): ClusterResolver =>
  resolveClusters({ store, static: config.staticClusters, counters, auth: { resolveSecret: secretsManagerReader() } });
