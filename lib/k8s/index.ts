/** The Kubernetes adapter: REST client, watch stream, cluster gateway, watch source, auth, registry, retries and error mapping (the CLI's kubeconfig reader, lib/k8s/kubeConfigFile.ts, is left out: it loads client-node). */
export {
  caPem,
  clusterAccessFor,
  EksTokenSource,
  endpointFor,
  presignEksToken,
  stsHost,
  type AuthOptions,
  type AwsCredentials,
  type ClusterAccess,
  type KubeconfigReader,
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
export { kubeEndpoint, type BearerToken, type EndpointOptions, type KubeEndpoint, type KubeRequestOptions } from './endpoint.ts';
export { resolveClusters, type ResolveClustersOptions } from './registry.ts';
export { isConnectionError, isRetryable, kubeVerdict, withRetry, type KubeRetryOptions } from './retry.ts';
export { KubeHttpError, KubeResponseError, KubeRestClient, KubeTimeoutError, resourcePath, type ApiResource, type Query, type RequestSpec } from './rest.ts';
export { KubeWatchSource, type KubeWatchSourceOptions } from './watchSource.ts';
export { parseWatchLine, WatchIdleError, WatchLineError, watchEvents, type WatchLine } from './watchStream.ts';
