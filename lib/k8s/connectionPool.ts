/**
 * PooledKubeConfig: a KubeConfig whose requests share one connection pool per TLS setup.
 *
 * Why: client-node 2.0.1 builds a new undici Agent for every request it authenticates
 * (`applySecurityAuthentication` → `createDispatcher`, which, unlike `createAgent` for
 * websockets, caches nothing). Every API call and every watch therefore opened its own TCP
 * connection and TLS handshake and left that connection idle behind it. A reconciler serving many
 * clusters pays the handshake, on both ends, for each of the few calls a pass makes.
 *
 * Authentication is untouched: headers (a static token, an EKS token re-signed before it expires,
 * a token read from a secret) are still applied to every request by client-node and Lineup's
 * authenticators; only the dispatcher — which carries the TLS material — is shared. Pooling is
 * keyed by everything that dispatcher is built from, and left off where the TLS material can
 * change under the same KubeConfig: a client certificate or key read from a file (it may be
 * rotated) or supplied by an exec plugin.
 */
import { KubeConfig } from '@kubernetes/client-node';

/** RequestContext: client-node's request context (not exported by name from the package root). */
type RequestContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];
/** Dispatcher: the undici dispatcher a request context carries. */
type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

export class PooledKubeConfig extends KubeConfig {
  private readonly pools = new Map<string, Dispatcher>();

  /** poolCount: how many pools this KubeConfig holds (one per TLS setup its requests used). */
  get poolCount(): number {
    return this.pools.size;
  }

  /**
   * poolKey: what the current context's dispatcher is built from, or undefined when the TLS
   * material may change between requests (then each request gets client-node's own dispatcher).
   */
  private poolKey(): string | undefined {
    const cluster = this.getCurrentCluster();
    const user = this.getCurrentUser();
    if (user?.exec !== undefined || user?.certFile !== undefined || user?.keyFile !== undefined) return undefined;
    return JSON.stringify([
      cluster?.name,
      cluster?.server,
      cluster?.caData,
      cluster?.caFile,
      cluster?.skipTLSVerify,
      cluster?.tlsServerName,
      cluster?.proxyUrl,
      user?.name,
      user?.certData,
      user?.keyData,
    ]);
  }

  /**
   * applySecurityAuthentication: client-node's (headers and a dispatcher), then the dispatcher
   * swapped for this TLS setup's pool. The dispatcher client-node just built is dropped unused:
   * an undici Agent opens no connection until it dispatches.
   */
  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const built = context.getDispatcher();
    const key = this.poolKey();
    if (built === undefined || key === undefined) return;
    const pool = this.pools.get(key);
    if (pool === undefined) this.pools.set(key, built);
    else context.setDispatcher(pool);
  }
}
