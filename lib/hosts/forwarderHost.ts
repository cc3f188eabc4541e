/**
 * The forwarder's two hosts, one wiring: the Lambda watch session (functions/forwarder.ts) and
 * the long-running container process (`lineup forward`, for a Deployment in the cluster).
 */
import type { Counters } from '../counters.ts';
import { UnknownClusterError } from '../errors.ts';
import { Forwarder, WATCH_SESSION_MAX_MS } from '../forwarder/forwarder.ts';
import type { EventSink } from '../forwarder/types.ts';
import { endpointFor } from '../k8s/auth.ts';
import type { KubeEndpoint } from '../k8s/endpoint.ts';
import { secretsManagerReader } from '../k8s/secretToken.ts';
import { KubeWatchSource } from '../k8s/watchSource.ts';
import type { Log } from '../log.ts';
import type { ForwarderStore } from '../store/types.ts';
import type { LambdaConfig } from './lambdaConfig.ts';

/** Time a watch session leaves itself to flush and checkpoint before Lambda's deadline. */
export const SESSION_FLUSH_MARGIN_MS = 30_000;

/** sessionLength: how long a watch session may watch, given the invocation's remaining time. */
export const sessionLength = (remainingMs: number): number => Math.max(0, Math.min(WATCH_SESSION_MAX_MS, remainingMs - SESSION_FLUSH_MARGIN_MS));

/** ForwarderHostDeps: what every host provides. */
export interface ForwarderHostDeps {
  readonly config: Pick<LambdaConfig, 'forwarderCluster' | 'staticClusters' | 'controllerName' | 'claimUnmanaged' | 'eventBusName' | 'heartbeatIntervalMs'>;
  /** The forwarder's part of the store: its bookmarks, and the registry for hosts given no kubeConfig. */
  readonly store: ForwarderStore;
  readonly sink: EventSink;
  readonly counters: Counters;
  readonly log: Log;
  /** In-cluster hosts pass the pod's own cluster (lib/k8s/inCluster.ts) or a kubeconfig's; others find the cluster in the registry. */
  readonly endpoint?: KubeEndpoint | undefined;
}

/** forwarderFor: a Forwarder for the configured cluster, its endpoint from the host or the registry. */
export const forwarderFor = async (deps: ForwarderHostDeps): Promise<Forwarder> => {
  const cluster = deps.config.forwarderCluster;
  if (!cluster) throw new UnknownClusterError('no cluster to forward for: set LINEUP_FORWARDER_CLUSTER');
  let endpoint = deps.endpoint;
  if (!endpoint) {
    const record = deps.config.staticClusters.find((candidate) => candidate.id === cluster) ?? (await deps.store.getCluster(cluster));
    if (!record) throw new UnknownClusterError(`cluster ${cluster} is not registered (static configuration or the registry table)`);
    // A token cluster's secret is read once per session; a 401 ends the session, and the next one reads it again.
    endpoint = await endpointFor(record, { resolveSecret: secretsManagerReader() });
  }
  return new Forwarder({
    cluster,
    source: new KubeWatchSource({ endpoint, counters: deps.counters, log: deps.log }),
    sink: deps.sink,
    bookmarks: deps.store,
    planOptions: { controllerName: deps.config.controllerName, claimUnmanaged: deps.config.claimUnmanaged },
    counters: deps.counters,
    log: deps.log,
    now: Date.now,
    eventBusName: deps.config.eventBusName,
    heartbeatIntervalMs: deps.config.heartbeatIntervalMs,
  });
};
