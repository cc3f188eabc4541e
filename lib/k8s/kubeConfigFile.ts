/**
 * A user's kubeconfig, read by client-node's KubeConfig, as a KubeEndpoint for Lineup's REST
 * client: the CLI's way to a cluster (`lineup run`, `lineup forward --kubeconfig`). Each request's
 * credentials and TLS material come from `KubeConfig.applyToHTTPSOptions`, so every kubeconfig
 * auth method keeps working: tokens and token files, client certificates, exec plugins (which may
 * hand out a new certificate), OIDC and other auth providers.
 *
 * Only the CLI loads this module, by a dynamic import: client-node loads undici and its whole
 * generated client, which no Lambda bundle and not the forwarder's may carry.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeconfigMessage } from './kubeconfigMessage.ts';
import { InvalidInputError } from '../errors.ts';
import { KEEP_ALIVE_MSECS } from './endpoint.ts';
import type { KubeEndpoint, KubeRequestOptions } from './endpoint.ts';

/** firstLine: the first line of an error message (a YAML error goes on with a code excerpt). */
const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';

/**
 * loadKubeConfigFile: the kubeconfig at `path` with `context` (or the file's current-context)
 * selected, as kubectl would read it; InvalidInputError naming the file (and the context) when it
 * is missing, unreadable, not YAML, not a kubeconfig, or has no such context or its cluster.
 *
 * @example
 * const kubeConfig = loadKubeConfigFile(join(homedir(), '.kube', 'config'), 'kind-dev');
 */
export const loadKubeConfigFile = (path: string, context?: string): KubeConfig => {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromFile(path);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT') throw new InvalidInputError(KubeconfigMessage.missing(path), { cause: error });
    if (typeof code === 'string') throw new InvalidInputError(KubeconfigMessage.unreadable(path, firstLine(error)), { cause: error });
    if (error instanceof Error && error.name === 'YAMLException') throw new InvalidInputError(KubeconfigMessage.notYaml(path, firstLine(error)), { cause: error });
    throw new InvalidInputError(KubeconfigMessage.invalid(path, firstLine(error)), { cause: error });
  }
  const known = kubeConfig.getContexts().map((candidate) => candidate.name);
  const selected = context ?? (kubeConfig.getCurrentContext() || undefined);
  if (selected === undefined) throw new InvalidInputError(KubeconfigMessage.noCurrentContext(path, known));
  const found = kubeConfig.getContextObject(selected);
  if (!found) throw new InvalidInputError(KubeconfigMessage.noSuchContext(path, selected, known));
  kubeConfig.setCurrentContext(selected);
  if (!kubeConfig.getCurrentCluster()) throw new InvalidInputError(KubeconfigMessage.noCluster(path, selected, found.cluster));
  return kubeConfig;
};


/**
 * kubeConfigEndpoint: the current context of `kubeConfig` as an endpoint. One keep-alive pool
 * serves it (but behind a proxyUrl): Node's agent keeps connections apart by the TLS material of
 * each request, so a certificate an exec plugin renews gets connections of its own.
 *
 * @example
 * const endpoint = kubeConfigEndpoint(loadKubeConfigFile(path, 'kind-dev'));
 */
export const kubeConfigEndpoint = (kubeConfig: KubeConfig): KubeEndpoint => {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new InvalidInputError(`kubeconfig context ${JSON.stringify(kubeConfig.getCurrentContext())} names no cluster, expected one with a server`);
  const server = new URL(cluster.server);
  const agent = server.protocol === 'http:' ? new HttpAgent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_MSECS }) : new HttpsAgent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_MSECS });
  return {
    server,
    agent,
    authorize: async (options: KubeRequestOptions) => {
      await kubeConfig.applyToHTTPSOptions(options);
      // client-node sets its own agent, one per cluster and user, that keeps no connection open
      // and keeps the TLS material of its first request; a proxy's agent is kept, as only it
      // speaks to the proxy.
      if (cluster.proxyUrl === undefined) options.agent = agent;
    },
  };
};

/**
 * readKubeconfigEndpoint: the endpoint of the kubeconfig at `path` with `context` selected
 * (loadKubeConfigFile's errors): the CLI's AuthOptions.readKubeconfig.
 */
export const readKubeconfigEndpoint = async (path: string, context: string | undefined): Promise<KubeEndpoint> => kubeConfigEndpoint(loadKubeConfigFile(path, context));
