/**
 * The bench's own Kubernetes requests, as the admin: the integration tier's Admin (client-node,
 * one kept-alive connection pool per user) for namespaces, JobSet creates and lists, and the Job
 * status patches the Job-controller stand-in writes, those retried as Lineup's gateway retries
 * (429, 5xx, a dropped connection).
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { Counters } from '../../lib/counters.ts';
import { KubeResource } from '../../lib/k8s/gateway.ts';
import { withRetry } from '../../lib/k8s/retry.ts';
import type { RetryPolicy } from '../../lib/retry.ts';
import type { KubeServer } from '../../test/integration/harness/index.ts';
import { Admin } from '../../test/integration/k8s/support.ts';
import { isObject, type JsonObject } from './story.ts';

/** STATUS_RETRY: a status patch is tried 5 times, 100 ms, 200 ms, … apart, before the stand-in records it as a problem. */
const STATUS_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_600, jitter: 'none' };

/** mergePatch: client-node's options for a JSON merge patch (its default is a JSON patch). */
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** BenchKubeClient: what the bench and the stand-in ask of the API server. */
export class BenchKubeClient {
  /** Retries of status patches (k8s.retries). */
  readonly counters = new Counters();
  private readonly admin: Admin;

  constructor(kube: KubeServer) {
    this.admin = new Admin(kube);
  }

  /** createNamespace: a namespace (idempotent). */
  createNamespace(name: string): Promise<void> {
    return this.admin.createNamespace(name);
  }

  /** createJobSet: a create (not an apply: the audit log's `create` by the admin is when a JobSet began). */
  async createJobSet(namespace: string, manifest: JsonObject): Promise<void> {
    await this.admin.custom.createNamespacedCustomObject({ ...KubeResource.JobSet, namespace, body: manifest });
  }

  /** jobSets: every JobSet of a namespace, as stored. */
  async jobSets(namespace: string): Promise<JsonObject[]> {
    const list: unknown = await this.admin.custom.listNamespacedCustomObject({ ...KubeResource.JobSet, namespace });
    return isObject(list) && Array.isArray(list.items) ? list.items.filter(isObject) : [];
  }

  /** patchJobStatus: a merge patch of a Job's status subresource (never conflicts with the controllers' writes), retried on STATUS_RETRY. */
  async patchJobStatus(namespace: string, name: string, status: JsonObject): Promise<void> {
    await withRetry(
      () => this.admin.custom.patchNamespacedCustomObjectStatus({ ...KubeResource.Job, namespace, name, body: { status } }, mergePatch) as Promise<unknown>,
      { counters: this.counters, policy: STATUS_RETRY, what: `stand-in: status of job ${namespace}/${name}` },
    );
  }
}
