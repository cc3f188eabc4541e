/**
 * The cluster side of the end-to-end scenarios: a kube-apiserver where Lineup's user holds
 * exactly the shipped ClusterRoles (infra/manifests/clusterrole.yaml), with the real control
 * plane minus kubelet on it (harness/controlPlane.ts: the Job controller, the TTL-after-finished
 * controller, the garbage collector, the scheduler and a kwok node). Every Pod of a scenario's
 * JobSet is held Pending and runs for ever until the test's JobDriver releases it, lets it
 * succeed or fail; the real Job controller writes every Job status. Plus compact views of a
 * JobSet's progress for assertions.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULT_CONTROLLER_NAME } from '../../../lib/jobset/managedBy.ts';
import { Label } from '../../../lib/jobset/api.ts';
import { JobSchema, JobSetSchema } from '../../../lib/jobset/schema.ts';
import type { Job, JobSet } from '../../../lib/jobset/schema.ts';
import { KubeResource } from '../../../lib/k8s/gateway.ts';
import { examplePath } from '../../repoFiles.ts';
import { LINEUP_GROUP, podAnnotations, setPodBehaviour, startControlPlane, startKubeApiServer } from '../harness/index.ts';
import type { ControlPlane, KubeServer, KubeServerOptions, PodBehaviour } from '../harness/index.ts';
import { withRestartableApiServer, type RestartableKubeServer } from '../harness/restartApiServer.ts';
import { Admin, eventually, grantLineupAccess } from '../k8s/support.ts';

/** SHIPPED_CLUSTERROLE_FILE: the ClusterRoles infra ships (generated from lib/k8s's verb tables). */
export const SHIPPED_CLUSTERROLE_FILE = fileURLToPath(new URL('../../../infra/manifests/clusterrole.yaml', import.meta.url));
/** ADMISSION_POLICY_FILE: the shipped ValidatingAdmissionPolicy and its binding. */
export const ADMISSION_POLICY_FILE = fileURLToPath(new URL('../../../infra/manifests/validating-admission-policy.yaml', import.meta.url));

/** RbacSource: which ClusterRoles Lineup's user was bound to. */
export type RbacSource =
  | { readonly from: 'shipped'; readonly file: string; readonly roles: readonly string[] }
  | { readonly from: 'generated-by-support.ts' };

/** shippedRoleNames: the names of the ClusterRoles in the shipped file. */
export const shippedRoleNames = (file: string = SHIPPED_CLUSTERROLE_FILE): string[] =>
  parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => document.toJS() as { kind?: string; metadata?: { name?: string } } | null)
    .filter((object) => object?.kind === 'ClusterRole' && typeof object.metadata?.name === 'string')
    .map((object) => object?.metadata?.name ?? '');

/**
 * bindShippedRoles: apply the shipped ClusterRoles and bind every one of them to Lineup's test
 * group (LINEUP_GROUP; the shipped bindings name the production groups, which the test token
 * user is not in). Falls back to support.ts's role generated from lib/k8s when infra has not
 * shipped the file. Waits until the authorizer has the binding.
 */
export const bindShippedRoles = async (kube: KubeServer): Promise<RbacSource> => {
  if (!existsSync(SHIPPED_CLUSTERROLE_FILE)) {
    await grantLineupAccess(kube);
    return { from: 'generated-by-support.ts' };
  }
  await kube.applyYamlFile(SHIPPED_CLUSTERROLE_FILE);
  const roles = shippedRoleNames();
  assert.ok(roles.length > 0, `${SHIPPED_CLUSTERROLE_FILE} holds no ClusterRole`);
  const bindings = roles.map((role) =>
    JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${role}-e2e` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: LINEUP_GROUP }],
    }),
  );
  await kube.applyYaml(bindings.join('\n---\n'));
  const custom = kube.kubeConfig('lineup').makeApiClient(CustomObjectsApi);
  await eventually('the lineup user may list jobsets and jobs (shipped roles bound)', async () => {
    await custom.listClusterCustomObject({ ...KubeResource.JobSet, limit: 1 });
    await custom.listClusterCustomObject({ ...KubeResource.Job, limit: 1 });
  });
  return { from: 'shipped', file: SHIPPED_CLUSTERROLE_FILE, roles };
};

/** E2eCluster: the API server, who Lineup's user is bound to, and the admin's helpers. */
export interface E2eCluster {
  readonly kube: RestartableKubeServer;
  readonly rbac: RbacSource;
  readonly admin: Admin;
  readonly jobs: JobDriver;
  /** The real control plane minus kubelet. */
  readonly controlPlane: ControlPlane;
  /** Stops the control plane, then the API server. */
  stop(): Promise<void>;
}

/**
 * startE2eCluster: kube-apiserver (restartable) with the JobSet CRD and the shipped RBAC bound
 * to Lineup's user, and the real control plane minus kubelet on it.
 */
export const startE2eCluster = async (options: KubeServerOptions = {}): Promise<E2eCluster> => {
  const kube = withRestartableApiServer(await startKubeApiServer(options));
  let controlPlane: ControlPlane | undefined;
  const stop = async (): Promise<void> => {
    await controlPlane?.stop();
    await kube.stop();
  };
  try {
    const rbac = await bindShippedRoles(kube);
    const admin = new Admin(kube);
    controlPlane = await startControlPlane(kube);
    return { kube, rbac, admin, jobs: new JobDriver(kube, admin), controlPlane, stop };
  } catch (error) {
    await stop();
    throw error;
  }
};

// ---------------------------------------------------------------------------------------------
// JobSets to run.

/** asCreated: a JobSet as a user writes it — no uid or resourceVersion (builders set both). */
export const asCreated = (jobSet: JobSet, name?: string): JobSet => {
  const { uid: _uid, resourceVersion: _rv, ...metadata } = jobSet.metadata;
  return { ...jobSet, metadata: { ...metadata, ...(name === undefined ? {} : { name }) } };
};

/** HELD_FOR_EVER: the Pods of a scenario: Pending until released, then running until told to end. */
export const HELD_FOR_EVER: PodBehaviour = { held: true, outcome: 'Running' };

/** withPodBehaviour: `jobSet` with `behaviour`'s annotations on every replicatedJob's pod template. */
export const withPodBehaviour = (jobSet: JobSet, behaviour: PodBehaviour): JobSet => ({
  ...jobSet,
  spec: {
    ...jobSet.spec,
    replicatedJobs: jobSet.spec.replicatedJobs?.map((replicatedJob) => {
      const jobSpec = replicatedJob.template.spec;
      const metadata = jobSpec.template.metadata;
      return {
        ...replicatedJob,
        template: {
          ...replicatedJob.template,
          spec: { ...jobSpec, template: { ...jobSpec.template, metadata: { ...metadata, annotations: { ...metadata?.annotations, ...podAnnotations(behaviour) } } } },
        },
      };
    }),
  },
});

/**
 * exampleJobSet: an example of examples/ under a new name, managed by Lineup
 * (upstream's own examples name no manager; Lineup does not claim unmanaged JobSets by default).
 */
export const exampleJobSet = (example: string, name: string): JobSet => {
  const jobSet = JobSetSchema.parse(parse(readFileSync(examplePath(example), 'utf8')));
  return { ...jobSet, metadata: { ...jobSet.metadata, name }, spec: { ...jobSet.spec, managedBy: jobSet.spec.managedBy ?? DEFAULT_CONTROLLER_NAME } };
};

// ---------------------------------------------------------------------------------------------
// Views for assertions.

/** jobNameOf: upstream's child Job name `<jobset>-<replicatedJob>-<index>`. */
export const jobNameOf = (jobSet: string, replicatedJob: string, index: number): string => `${jobSet}-${replicatedJob}-${index}`;

/**
 * Flags: per replicatedJob, one letter per Job in index order — R running (spec.suspend false),
 * S suspended, D being deleted — so `assert.deepEqual` shows the whole order at a glance.
 */
export type Flags = Record<string, string>;

/** flagsOf: the Flags of a list of Jobs (Jobs without the replicatedJob label are ignored). */
export const flagsOf = (jobs: readonly Job[]): Flags => {
  const byReplicatedJob = new Map<string, [number, string][]>();
  for (const job of jobs) {
    const rjob = job.metadata.labels?.[Label.ReplicatedJobName];
    if (rjob === undefined) continue;
    const index = Number(job.metadata.labels?.[Label.JobIndex] ?? '0');
    const letter = job.metadata.deletionTimestamp !== undefined ? 'D' : job.spec.suspend === true ? 'S' : 'R';
    byReplicatedJob.set(rjob, [...(byReplicatedJob.get(rjob) ?? []), [index, letter]]);
  }
  return Object.fromEntries(
    [...byReplicatedJob.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([rjob, letters]) => [rjob, letters.sort(([a], [b]) => a - b).map(([, l]) => l).join('')]),
  );
};

/** conditionOf: the JobSet condition of `type`, as {status, reason, message}, or undefined. */
export const conditionOf = (jobSet: JobSet | undefined, type: string): { status: string; reason: string | undefined; message: string | undefined } | undefined => {
  const condition = jobSet?.status?.conditions?.find((c) => c.type === type);
  return condition === undefined ? undefined : { status: condition.status, reason: condition.reason, message: condition.message };
};


/** jobConditionIsTrue: the Job has condition `type` with status True. */
export const jobConditionIsTrue = (job: Job | undefined, type: string): boolean => job?.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

// ---------------------------------------------------------------------------------------------
// Driving Jobs through their Pods.

/** POD_STEP_TIMEOUT_MS: how long the real controllers may take to show a released Pod's change in its Job. */
const POD_STEP_TIMEOUT_MS = 30_000;

/** POLL_MS: how often a wait on the control plane looks again. */
const POLL_MS = 150;

/**
 * JobDriver: what the kubelet would make of a Job's Pods, chosen by the test. The real Job
 * controller creates the Pods (held Pending by kwok, see HELD_FOR_EVER) and writes every Job
 * status; the driver only changes Pods' behaviour — release them Ready, let them succeed or fail
 * — and waits until the Job controller's status shows the result. It also holds the test's
 * read-only views of a JobSet's Jobs and the user's own actions (suspend a JobSet).
 */
export class JobDriver {
  private readonly kube: KubeServer;
  private readonly admin: Admin;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;

  constructor(kube: KubeServer, admin: Admin) {
    this.kube = kube;
    this.admin = admin;
    this.custom = admin.custom;
    this.core = admin.core;
  }

  /** podsOf: the live (not deleting) Pods of a Job. */
  async podsOf(namespace: string, job: string): Promise<V1Pod[]> {
    const list = await this.core.listNamespacedPod({ namespace, labelSelector: `batch.kubernetes.io/job-name=${job}` });
    return list.items.filter((pod) => pod.metadata?.deletionTimestamp === undefined);
  }

  /** allPodsOf: every Pod of a Job, those being deleted included. */
  async allPodsOf(namespace: string, job: string): Promise<V1Pod[]> {
    return (await this.core.listNamespacedPod({ namespace, labelSelector: `batch.kubernetes.io/job-name=${job}` })).items;
  }

  /**
   * runningPods: waits until the running Job has its `parallelism` live Pods whose phase is
   * Pending or Running (created by the Job controller, held Pending by kwok until released).
   */
  async runningPods(namespace: string, name: string, timeoutMs = POD_STEP_TIMEOUT_MS): Promise<V1Pod[]> {
    const job = await this.admin.job(namespace, name);
    assert.notEqual(job.spec.suspend, true, `job ${namespace}/${name} is suspended; the Job controller would not start its pods`);
    const parallelism = job.spec.parallelism ?? 1;
    return eventually(
      `job ${namespace}/${name}: ${parallelism} pods created by the Job controller`,
      async () => {
        const live = (await this.podsOf(namespace, name)).filter((pod) => pod.status?.phase === undefined || pod.status.phase === 'Pending' || pod.status.phase === 'Running');
        assert.equal(live.length, parallelism, JSON.stringify(live.map((pod) => `${pod.metadata?.name ?? ''}:${pod.status?.phase ?? ''}`)));
        return live;
      },
      timeoutMs,
      POLL_MS,
    );
  }

  /**
   * drivePods: gives every running Pod of the Job `behaviour`, then waits until the Job
   * controller's status shows `done` (called with undefined once the Job is gone).
   */
  private async drivePods(namespace: string, name: string, behaviour: PodBehaviour, what: string, done: (job: Job | undefined) => boolean): Promise<Job | undefined> {
    for (const pod of await this.runningPods(namespace, name)) await setPodBehaviour(this.kube, namespace, pod.metadata?.name ?? '', behaviour);
    return eventually(
      `job ${namespace}/${name}: ${what}`,
      async () => {
        const current = await this.admin.getJob(namespace, name);
        assert.ok(done(current), JSON.stringify(current?.status ?? 'the job is gone'));
        return current;
      },
      POD_STEP_TIMEOUT_MS,
      POLL_MS,
    );
  }

  /** list: the Jobs of a JobSet (label jobset.sigs.k8s.io/jobset-name), as stored. */
  async list(namespace: string, jobSet: string): Promise<Job[]> {
    const list = (await this.custom.listNamespacedCustomObject({ ...KubeResource.Job, namespace, labelSelector: `${Label.JobSetName}=${jobSet}` })) as { items: unknown[] };
    // The test's view does not depend on lib's schema accepting every valid Job (see the
    // lastProbeTime scenario): what it cannot parse is read as it came.
    return list.items.map((item) => {
      const parsed = JobSchema.safeParse(item);
      return parsed.success ? parsed.data : (item as Job);
    });
  }

  /** flags: the Flags of a JobSet's Jobs. */
  async flags(namespace: string, jobSet: string): Promise<Flags> {
    return flagsOf(await this.list(namespace, jobSet));
  }

  /** namesOf: the Jobs of one replicatedJob, by index. */
  async namesOf(namespace: string, jobSet: string, replicatedJob: string): Promise<string[]> {
    return (await this.list(namespace, jobSet))
      .filter((job) => job.metadata.labels?.[Label.ReplicatedJobName] === replicatedJob)
      .map((job) => job.metadata.name ?? '')
      .sort();
  }

  /** markReady: releases every Pod of a running Job; resolves once the Job controller counts them all Ready. */
  async markReady(namespace: string, name: string): Promise<Job> {
    const job = await this.drivePods(namespace, name, { held: false }, 'every pod Ready, counted by the Job controller', (current) => current?.status?.ready === (current?.spec.parallelism ?? 1));
    assert.ok(job, `job ${namespace}/${name} exists`);
    return job;
  }

  /**
   * markComplete: every Pod of a running Job succeeds now; resolves once the Job controller marks
   * the Job Complete, or once the Job is gone or being deleted (a TTL of 0 s may delete it first).
   */
  async markComplete(namespace: string, name: string): Promise<void> {
    await this.drivePods(namespace, name, { held: false, outcome: 'Succeeded', finishAfterMs: 0 }, 'Complete', (job) =>
      job === undefined || job.metadata.deletionTimestamp !== undefined || jobConditionIsTrue(job, 'Complete'),
    );
  }

  /**
   * failPods: every Pod of a running Job fails now (exit code 1). Resolves once the Job controller
   * counted `failed` failures of the Job (its backoffLimit decides whether it then retries or fails).
   */
  async failPods(namespace: string, name: string, failed: number): Promise<Job | undefined> {
    return this.drivePods(namespace, name, { held: false, outcome: 'Failed', finishAfterMs: 0 }, `${failed} failed pods counted`, (job) =>
      job === undefined || job.metadata.deletionTimestamp !== undefined || (job.status?.failed ?? 0) >= failed,
    );
  }

  /**
   * markFailed: every Pod of a running Job with backoffLimit 0 fails now; resolves once the Job
   * controller marks the Job Failed, or once it is gone or being deleted (Lineup restarting the JobSet).
   */
  async markFailed(namespace: string, name: string): Promise<void> {
    const job = await this.admin.job(namespace, name);
    assert.equal(job.spec.backoffLimit, 0, `job ${namespace}/${name}: markFailed needs backoffLimit 0 (the Job controller retries a failed pod otherwise)`);
    await this.drivePods(namespace, name, { held: false, outcome: 'Failed', finishAfterMs: 0 }, 'Failed', (current) =>
      current === undefined || current.metadata.deletionTimestamp !== undefined || jobConditionIsTrue(current, 'Failed'),
    );
  }

  /**
   * suspendedByJobController: waits until the Job controller has carried out a suspended Job's
   * suspension — Suspended True, its Pods gone, active 0 and startTime reset — and returns the Job.
   */
  async suspendedByJobController(namespace: string, name: string): Promise<Job> {
    return eventually(
      `job ${namespace}/${name}: suspended by the Job controller (pods deleted, startTime reset)`,
      async () => {
        const job = await this.admin.job(namespace, name);
        const pods = await this.allPodsOf(namespace, name);
        const view = { suspend: job.spec.suspend, suspended: jobConditionIsTrue(job, 'Suspended'), active: job.status?.active ?? 0, startTime: job.status?.startTime, pods: pods.length };
        assert.deepEqual(view, { suspend: true, suspended: true, active: 0, startTime: undefined, pods: 0 });
        return job;
      },
      POD_STEP_TIMEOUT_MS,
      POLL_MS,
    );
  }

  /** setJobSetSuspend: a user's `kubectl patch jobset --type=merge -p '{"spec":{"suspend":…}}'`. */
  async setJobSetSuspend(namespace: string, name: string, suspend: boolean): Promise<void> {
    const response = await this.kube.request(
      'PATCH',
      `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${namespace}/jobsets/${name}`,
      { spec: { suspend } },
      { contentType: 'application/merge-patch+json' },
    );
    assert.equal(response.status, 200, `suspend=${String(suspend)} on jobset ${namespace}/${name}: ${response.body.slice(0, 300)}`);
  }

  /** warningEvents: reason and message of the Warning Events on a JobSet. */
  async warningEvents(namespace: string, jobSet: string): Promise<{ reason: string | undefined; message: string | undefined }[]> {
    const list = await this.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.kind=JobSet,involvedObject.name=${jobSet},type=Warning` });
    return list.items.map((event) => ({ reason: event.reason, message: event.message }));
  }
}
