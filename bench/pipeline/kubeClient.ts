/**
 * The bench's own Kubernetes requests, as the admin: namespaces, JobSet creates and lists. Sent
 * with the integration tier's httpRequest over one keep-alive agent: client-node and the
 * harness's default open a TLS connection per request, load on the API server that is the
 * bench's, not either controller's.
 */
import { isObject, type JsonObject } from '../../lib/json.ts';
import { Agent } from 'node:https';
import { httpRequest, type HttpResponse, type KubeServer } from '../../test/integration/harness/index.ts';

/** REQUEST_TIMEOUT_MS: how long one request may take (a loaded API server under the burst answers in seconds). */
const REQUEST_TIMEOUT_MS = 30_000;
/** MAX_SOCKETS: connections kept to the API server. */
const MAX_SOCKETS = 16;
/** BENCH_USER_AGENT: the bench's requests (the audit log tells them by it: the control plane shares the admin's user). */
export const BENCH_USER_AGENT = 'lineup-bench/pipeline';

/** KubeRequestError: the API server answered a bench request with an error status. */
export class KubeRequestError extends Error {
  readonly statusCode: number;

  constructor(what: string, response: HttpResponse) {
    super(`${what}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
    this.name = 'KubeRequestError';
    this.statusCode = response.status;
  }
}

/** BenchKubeClient: what the bench asks of the API server. */
export class BenchKubeClient {
  private readonly agent: Agent;
  private readonly kube: KubeServer;

  constructor(kube: KubeServer) {
    this.kube = kube;
    this.agent = new Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  }

  /** request: one request as the admin; its body parsed, or a KubeRequestError for any status but 2xx (and `allowed`). */
  private async request(what: string, method: string, path: string, body?: unknown, contentType = 'application/json', allowed: readonly number[] = []): Promise<JsonObject> {
    const response = await httpRequest(`${this.kube.url}${path}`, {
      method,
      ca: this.kube.caPem,
      agent: this.agent,
      timeoutMs: REQUEST_TIMEOUT_MS,
      headers: {
        authorization: `Bearer ${this.kube.adminToken}`,
        accept: 'application/json',
        'user-agent': BENCH_USER_AGENT,
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if ((response.status < 200 || response.status > 299) && !allowed.includes(response.status)) throw new KubeRequestError(what, response);
    const parsed: unknown = JSON.parse(response.body);
    return isObject(parsed) ? parsed : {};
  }

  /** createNamespace: a namespace (one that exists already is fine). */
  async createNamespace(name: string): Promise<void> {
    await this.request(`create namespace ${name}`, 'POST', '/api/v1/namespaces', { metadata: { name } }, 'application/json', [409]);
  }

  /** createJobSet: a create (not an apply: the audit log's `create` by the admin is when a JobSet began). */
  async createJobSet(namespace: string, manifest: JsonObject): Promise<void> {
    await this.request(`create jobset in ${namespace}`, 'POST', `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${namespace}/jobsets`, manifest);
  }

  /** jobSets: every JobSet of a namespace, as stored. */
  async jobSets(namespace: string): Promise<JsonObject[]> {
    const list = await this.request(`list jobsets in ${namespace}`, 'GET', `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${namespace}/jobsets`);
    return Array.isArray(list.items) ? list.items.filter(isObject) : [];
  }

  /** close: the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}
