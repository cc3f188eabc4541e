/**
 * The bench's own Kubernetes requests, as the admin: namespaces, JobSet creates and lists, and
 * the Job status patches the Job-controller stand-in writes. Sent with the integration tier's
 * httpRequest over one keep-alive agent, as a controller keeps its connections: client-node and
 * the harness's default open a TLS connection per request, which under a burst of status writes
 * would add load to the API server that no real Job controller adds. Status patches are retried
 * as Lineup's gateway retries (429, 5xx, a dropped connection).
 */
import { Agent } from 'node:https';
import { Counters } from '../../lib/counters.ts';
import { withRetry } from '../../lib/k8s/retry.ts';
import type { RetryPolicy } from '../../lib/retry.ts';
import { httpRequest, type HttpResponse, type KubeServer } from '../../test/integration/harness/index.ts';
import { isObject, type JsonObject } from './story.ts';

/** STATUS_RETRY: a status patch is tried 5 times, 100 ms, 200 ms, … apart, before the stand-in records it as a problem. */
const STATUS_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_600, jitter: 'none' };
/** REQUEST_TIMEOUT_MS: how long one request may take (a loaded API server under the burst answers in seconds). */
const REQUEST_TIMEOUT_MS = 30_000;
/** MAX_SOCKETS: connections kept to the API server. */
const MAX_SOCKETS = 16;
/** USER_AGENT: the bench's requests (the audit log tells the bench by its user, the admin). */
const USER_AGENT = 'lineup-bench/pipeline';

/** KubeRequestError: the API server answered a bench request with an error status; `statusCode` is what lib/k8s/retry.ts judges. */
export class KubeRequestError extends Error {
  readonly statusCode: number;

  constructor(what: string, response: HttpResponse) {
    super(`${what}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
    this.name = 'KubeRequestError';
    this.statusCode = response.status;
  }
}

/** BenchKubeClient: what the bench and the stand-in ask of the API server. */
export class BenchKubeClient {
  /** Retries of status patches (k8s.retries). */
  readonly counters = new Counters();
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
        'user-agent': USER_AGENT,
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

  /** patchJobStatus: a merge patch of a Job's status subresource (never conflicts with the controllers' writes), retried on STATUS_RETRY. */
  async patchJobStatus(namespace: string, name: string, status: JsonObject): Promise<void> {
    const what = `stand-in: status of job ${namespace}/${name}`;
    await withRetry(
      () => this.request(what, 'PATCH', `/apis/batch/v1/namespaces/${namespace}/jobs/${name}/status`, { status }, 'application/merge-patch+json'),
      { counters: this.counters, policy: STATUS_RETRY, what },
    );
  }

  /** close: the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}
