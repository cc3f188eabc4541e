/** The Kubernetes adapter: cluster gateway, watch source, auth, registry, retries and error mapping. */
export {
  EksAuthenticator,
  EksTokenSource,
  kubeConfigFor,
  loadKubeConfigFile,
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
  retryAfterMs,
  StatusReason,
  statusToLineupError,
  toLineupError,
  type KubeStatus,
} from './errors.ts';
export {
  actionVerbs,
  KubeClusterGateway,
  KubeResource,
  kubeRetryPolicy,
  observeVerbs,
  parseObject,
  watchVerbs,
  type ApiAccess,
  type KubeClusterGatewayOptions,
  type KubeVerb,
  type RetryTuning,
} from './gateway.ts';
export { resolveClusters, type ResolveClustersOptions } from './registry.ts';
export { isConnectionError, isRetryable, kubeVerdict, withRetry, type KubeRetryOptions } from './retry.ts';
export { KubeWatchSource, type KubeWatchSourceOptions } from './watchSource.ts';
