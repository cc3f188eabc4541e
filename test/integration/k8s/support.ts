/**
 * Shared set-up of the Kubernetes adapter's integration tests: a real kube-apiserver (the
 * harness), Lineup's user granted exactly what lib/k8s's verb tables list (so a missing verb is a
 * 403 in the test, not in production), and admin helpers, among them status fixtures: a Job
 * status written as upstream JobSet's integration tests write it, for a test that needs a Job in
 * one exact state (no Job controller runs on this server; tests that need Jobs to run use the real
 * control plane, test/integration/e2e/cluster.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { CoreV1Event } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { LineupError } from '../../../lib/errors.ts';
import { JobSchema, JobSetSchema } from '../../../lib/jobset/schema.ts';
import type { Job, JobSet, JobStatus } from '../../../lib/jobset/schema.ts';
import { actionVerbs, KubeResource, observeVerbs, watchVerbs } from '../../../lib/k8s/gateway.ts';
import type { ApiAccess } from '../../../lib/k8s/gateway.ts';
import { kubeConfigEndpoint } from '../../../lib/k8s/kubeConfigFile.ts';
import { KubeRestClient, resourcePath } from '../../../lib/k8s/rest.ts';
import { examplePath } from '../../repoFiles.ts';
import { LINEUP_GROUP, startKubeApiServer } from '../harness/index.ts';
import type { KubeServer, KubeServerOptions } from '../harness/index.ts';

/** COLD_START_TIMEOUT_MS: a first run builds kube-apiserver from source (minutes). */
export const COLD_START_TIMEOUT_MS = 30 * 60_000;

/** LINEUP_ROLE: the ClusterRole the tests derive from lib/k8s's verb tables. */
export const LINEUP_ROLE = 'lineup-k8s-adapter-test';

/** rbacRules: ClusterRole rules for a list of ApiAccess entries (subresources as `resource/sub`). */
export const rbacRules = (accesses: readonly ApiAccess[]): { apiGroups: string[]; resources: string[]; verbs: string[] }[] =>
  accesses.map((access) => ({
    apiGroups: [access.group],
    resources: [access.subresource === undefined ? access.resource : `${access.resource}/${access.subresource}`],
    verbs: [...access.verbs],
  }));

/** everyAccess: every entry of actionVerbs, observeVerbs and watchVerbs. */
export const everyAccess = (): ApiAccess[] => [...Object.values(actionVerbs).flat(), ...observeVerbs, ...watchVerbs];

/**
 * grantLineupAccess: bind Lineup's test user (group LINEUP_GROUP) to a ClusterRole built from the
 * verb tables, then wait until the authorizer's cache has it (RBAC changes are eventually seen).
 */
export const grantLineupAccess = async (kube: KubeServer): Promise<void> => {
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: LINEUP_ROLE }, rules: rbacRules(everyAccess()) };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: LINEUP_ROLE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: LINEUP_ROLE },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: LINEUP_GROUP }],
  };
  // JSON is YAML: applyYaml takes the documents as they are.
  await kube.applyYaml(`${JSON.stringify(role)}\n---\n${JSON.stringify(binding)}\n`);
  const custom = kube.kubeConfig('lineup').makeApiClient(CustomObjectsApi);
  await eventually('lineup user may list jobsets', async () => {
    await custom.listClusterCustomObject({ ...KubeResource.JobSet, limit: 1 });
  });
};

/** startCluster: kube-apiserver with the JobSet CRD and Lineup's access granted. */
export const startCluster = async (options: KubeServerOptions = {}): Promise<KubeServer> => {
  const kube = await startKubeApiServer(options);
  try {
    await grantLineupAccess(kube);
  } catch (error) {
    await kube.stop();
    throw error;
  }
  return kube;
};

/** eventually: retry `check` until it passes or `timeoutMs` ends (then its last failure is thrown). */
export const eventually = async <T>(what: string, check: () => Promise<T>, timeoutMs = 10_000, intervalMs = 100): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw new Error(`${what}: not true within ${timeoutMs} ms`, { cause: error });
    }
    await sleep(intervalMs);
  }
};

/** nowSeconds: an RFC 3339 timestamp of now at seconds precision, as metav1.Time is stored. */
export const nowSeconds = (): string => `${new Date().toISOString().slice(0, 19)}Z`;

/** assertLineupError: `promise` rejects with a LineupError of `code`; returns it. */
export const assertLineupError = async (promise: Promise<unknown>, code: string): Promise<LineupError> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LineupError, `expected a LineupError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    return error;
  }
  assert.fail(`expected a LineupError ${code}, but the call succeeded`);
};

/** isNotFound: the admin client's 404. */
const isNotFound = (error: unknown): boolean => error !== null && typeof error === 'object' && 'code' in error && error.code === 404;

/**
 * Admin: the test's own view of the cluster, as the admin user — reads that bypass the gateway
 * and Job status fixtures (a state written once, not a Job controller).
 */
export class Admin {
  readonly custom: CustomObjectsApi;
  readonly core: CoreV1Api;
  readonly rest: KubeRestClient;
  private readonly kube: KubeServer;

  constructor(kube: KubeServer) {
    this.kube = kube;
    this.custom = kube.kubeConfig('admin').makeApiClient(CustomObjectsApi);
    this.core = kube.kubeConfig('admin').makeApiClient(CoreV1Api);
    this.rest = new KubeRestClient(kubeConfigEndpoint(kube.kubeConfig('admin')));
  }

  /** createNamespace: a namespace (idempotent). */
  async createNamespace(name: string): Promise<void> {
    await this.core.createNamespace({ body: { metadata: { name } } }).catch((error: unknown) => {
      if (!(error !== null && typeof error === 'object' && 'code' in error && error.code === 409)) throw error;
    });
  }

  /** createJobSet: a JobSet from a manifest object, created as a user would (server-side apply). */
  async createJobSet(manifest: JobSet, namespace: string): Promise<JobSet> {
    await this.kube.applyYaml(JSON.stringify(manifest), { namespace });
    const stored = await this.getJobSet(namespace, manifest.metadata.name ?? '');
    assert.ok(stored, `jobset ${namespace}/${manifest.metadata.name ?? ''} should exist after apply`);
    return stored;
  }

  /** createExampleJobSet: an example from examples/ under a new name. */
  async createExampleJobSet(example: string, name: string, namespace: string): Promise<JobSet> {
    const manifest: unknown = parse(readFileSync(examplePath(example), 'utf8'));
    const jobSet = JobSetSchema.parse(manifest);
    return this.createJobSet({ ...jobSet, metadata: { ...jobSet.metadata, name } }, namespace);
  }

  /** getJobSet: the stored JobSet, or undefined. */
  async getJobSet(namespace: string, name: string): Promise<JobSet | undefined> {
    try {
      return JobSetSchema.parse(await this.custom.getNamespacedCustomObject({ ...KubeResource.JobSet, namespace, name }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** getJob: the stored Job, or undefined. */
  async getJob(namespace: string, name: string): Promise<Job | undefined> {
    try {
      return JobSchema.parse(await this.custom.getNamespacedCustomObject({ ...KubeResource.Job, namespace, name }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** job: the stored Job, which must exist. */
  async job(namespace: string, name: string): Promise<Job> {
    const job = await this.getJob(namespace, name);
    assert.ok(job, `job ${namespace}/${name} should exist`);
    return job;
  }

  /** createJob: a Job as some other client would create it. */
  async createJob(job: Job, namespace: string): Promise<Job> {
    return JobSchema.parse(await this.custom.createNamespacedCustomObject({ ...KubeResource.Job, namespace, body: job }));
  }

  /** writeJobStatus: a status fixture — the Job's status replaced once through the status subresource, in the Job controller's shape; it runs nothing. */
  async writeJobStatus(namespace: string, name: string, status: (job: Job) => JobStatus): Promise<Job> {
    const job = await this.job(namespace, name);
    // Through Lineup's REST client, so a refusal is the KubeHttpError lib/k8s/errors.ts maps.
    const written: unknown = await this.rest.replace(resourcePath(KubeResource.Job, namespace, name, 'status'), { ...job, status: status(job) });
    return JobSchema.parse(written);
  }

  /** markSuspended: a status fixture — what the Job controller writes once a suspended Job's pods are gone. */
  async markSuspended(namespace: string, name: string): Promise<Job> {
    const at = nowSeconds();
    return this.writeJobStatus(namespace, name, (job) => ({
      ...job.status,
      active: 0,
      ready: 0,
      conditions: [{ type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended', lastProbeTime: at, lastTransitionTime: at }],
    }));
  }

  /** eventsOf: the core/v1 Events whose involvedObject is the named JobSet. */
  async eventsOf(namespace: string, jobSetName: string): Promise<CoreV1Event[]> {
    const list = await this.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.kind=JobSet,involvedObject.name=${jobSetName}` });
    return list.items;
  }

  /** serviceExists: whether a Service of that name exists. */
  async serviceExists(namespace: string, name: string): Promise<boolean> {
    try {
      await this.core.readNamespacedService({ namespace, name });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }
}

/** isCode: the error is a LineupError with `code` (for filters in waits). */
export const isCode = (error: unknown, code: string): boolean => error instanceof LineupError && error.code === code;
