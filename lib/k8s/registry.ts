/**
 * resolveClusters: the reconciler's ClusterResolver over the cluster registry: static config
 * first, then the checkpoint store's registry items. One gateway per
 * cluster id is built on first use and kept, so a warm Lambda reuses its connections, its
 * cached EKS token and the token it read from a `token` cluster's secret.
 */
import type { ClusterGateway, ClusterResolver } from '../reconcile/types.ts';
import type { ClusterRecord, ClusterRegistry } from '../store/types.ts';
import { clusterAccessFor } from './auth.ts';
import type { AuthOptions } from './auth.ts';
import { KubeClusterGateway } from './gateway.ts';
import type { RetryTuning } from './gateway.ts';
import type { CounterSink } from '../counters.ts';

/** ResolveClustersOptions: where cluster records come from, and what every gateway shares. */
export interface ResolveClustersOptions {
  /** The registry in the checkpoint store, asked when static config does not know the id. */
  readonly store?: Pick<ClusterRegistry, 'getCluster'> | undefined;
  /** Clusters from static config; they win over store items of the same id. */
  readonly static?: readonly ClusterRecord[] | undefined;
  readonly counters: CounterSink;
  /** Credentials, clock, secret resolver and kubeconfig reader for building endpoints. */
  readonly auth?: AuthOptions | undefined;
  /** Retry tuning of every gateway. @default KUBE_RETRY */
  readonly retry?: RetryTuning | undefined;
}

/**
 * resolveClusters: a ClusterResolver that looks the id up (static config, then the store) and
 * returns the cluster's cached KubeClusterGateway; undefined for an id nobody registered (not
 * cached, so a cluster registered later is found).
 *
 * @example
 * const resolve = resolveClusters({ store, counters });
 * const gateway = await resolve(event.detail.cluster); // undefined: log and drop the event
 */
export const resolveClusters = (options: ResolveClustersOptions): ClusterResolver => {
  const staticRecords = new Map((options.static ?? []).map((record) => [record.id, record] as const));
  // Promises, so concurrent passes for one new cluster share one lookup and one gateway.
  const gateways = new Map<string, Promise<ClusterGateway | undefined>>();

  const build = async (id: string): Promise<ClusterGateway | undefined> => {
    const record = staticRecords.get(id) ?? (await options.store?.getCluster(id));
    if (!record) return undefined;
    const { endpoint, refresher } = await clusterAccessFor(record, options.auth);
    return new KubeClusterGateway({ endpoint, counters: options.counters, retry: options.retry, refresher });
  };

  return (id) => {
    const cached = gateways.get(id);
    if (cached) return cached;
    const pending = build(id);
    gateways.set(id, pending);
    // Neither an unknown id nor a failed lookup is remembered: the next event asks again.
    pending.then(
      (gateway) => {
        if (!gateway) gateways.delete(id);
      },
      () => gateways.delete(id),
    );
    return pending;
  };
};
