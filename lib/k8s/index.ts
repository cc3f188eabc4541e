/** The Kubernetes adapter: cluster gateway, watch source, auth, registry, retries and error mapping. */
export {
  EksAuthenticator,
  EksTokenSource,
  kubeConfigFor,
  presignEksToken,
  stsHost,
  type AuthOptions,
  type Authenticator,
  type AwsCredentials,
  type CredentialProvider,
  type EksTokenSourceOptions,
} from './auth.ts';
export {
  describeError,
  fieldCauses,
  headerOf,
  httpStatusOf,
  kubeStatusOf,
  KubeStatusSchema,
  parseStatus,
  StatusReason,
  statusToLineupError,
  toLineupError,
  type KubeStatus,
} from './errors.ts';
export {
  actionVerbs,
  KubeClusterGateway,
  KubeResource,
  observeVerbs,
  parseObject,
  watchVerbs,
  type ApiAccess,
  type KubeClusterGatewayOptions,
  type KubeVerb,
  type RetryTuning,
} from './gateway.ts';
export { resolveClusters, type ResolveClustersOptions } from './registry.ts';
export {
  backoffMs,
  isConnectionError,
  isRetryable,
  realSleep,
  retryAfterMs,
  withRetry,
  type CounterSink,
  type RetryOptions,
  type Sleep,
} from './retry.ts';
export { KubeWatchSource, type KubeWatchSourceOptions } from './watchSource.ts';
