/**
 * The cluster side of the end-to-end scenarios: a kube-apiserver where Lineup's user holds
 * exactly the shipped ClusterRoles (infra/manifests/clusterrole.yaml), plus compact views of a
 * JobSet's progress for assertions. Either the real control plane minus kubelet runs on it
 * (`startE2eCluster({ controlPlane: true })`, harness/controlPlane.ts: the Job controller, the
 * TTL-after-finished controller, the garbage collector, the scheduler and a kwok node; every Pod
 * of a scenario's JobSet is held Pending and runs for ever until the test releases it), or the
 * test stands in for those controllers: Job status written through the status subresource, as
 * upstream JobSet's integration tests do.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULT_CONTROLLER_NAME, Label } from '../../../lib/constants.ts';
import { JobSchema, JobSetSchema } from '../../../lib/jobset/schema.ts';
import type { Condition, Job, JobSet, JobStatus } from '../../../lib/jobset/schema.ts';
import { KubeResource } from '../../../lib/k8s/gateway.ts';
import { examplePath } from '../../repoFiles.ts';
import { LINEUP_GROUP, podAnnotations, setPodBehaviour, startControlPlane, startKubeApiServer } from '../harness/index.ts';
import type { ControlPlane, KubeServer, KubeServerOptions, PodBehaviour } from '../harness/index.ts';
import { withRestartableApiServer, type RestartableKubeServer } from '../harness/restartApiServer.ts';
import { Admin, eventually, grantLineupAccess, nowSeconds } from '../k8s/support.ts';

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
  readonly jobs: JobController;
  /** The real control plane minus kubelet, when started with `controlPlane: true`. */
  readonly controlPlane: ControlPlane | undefined;
  /** Stops the control plane (if any), then the API server. */
  stop(): Promise<void>;
}

/** E2eClusterOptions: the API server's options, and whether the real control plane runs on it. */
export interface E2eClusterOptions extends KubeServerOptions {
  /** Run kube-controller-manager, kube-scheduler and kwok (harness/controlPlane.ts). @default false */
  readonly controlPlane?: boolean;
}

/**
 * startE2eCluster: kube-apiserver (restartable) with the JobSet CRD and the shipped RBAC bound
 * to Lineup's user, and with `controlPlane: true` the real control plane minus kubelet on it.
 */
export const startE2eCluster = async (options: E2eClusterOptions = {}): Promise<E2eCluster> => {
  const { controlPlane: withControlPlane = false, ...kubeOptions } = options;
  const kube = withRestartableApiServer(await startKubeApiServer(kubeOptions));
  let controlPlane: ControlPlane | undefined;
  const stop = async (): Promise<void> => {
    await controlPlane?.stop();
    await kube.stop();
  };
  try {
    const rbac = await bindShippedRoles(kube);
    const admin = new Admin(kube);
    if (withControlPlane) controlPlane = await startControlPlane(kube);
    return { kube, rbac, admin, jobs: new JobController(kube, admin, controlPlane), controlPlane, stop };
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

/** HELD_FOR_EVER: the Pods of a scenario on the real control plane: Pending until released, then running until told to end. */
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

// ---------------------------------------------------------------------------------------------
// Stand-ins for kube-controller-manager.

/** upsertCondition: `conditions` with one of `type` set to `condition` (added when missing). */
const upsertCondition = (conditions: readonly Condition[] | undefined, condition: Condition): Condition[] => {
  const others = (conditions ?? []).filter((c) => c.type !== condition.type);
  return [...others, condition];
};

/** POD_STEP_TIMEOUT_MS: how long the real controllers may take to show a released Pod's change in its Job. */
const POD_STEP_TIMEOUT_MS = 30_000;

/**
 * JobController: without a control plane, what the Job controller, the TTL-after-finished
 * controller and the garbage collector would do, done by the admin: status writes replace
 * `.status` whole through the status subresource, the way upstream JobSet's integration tests
 * fake Job progress. With the real control plane, `markReady` and `markComplete` act on the
 * Job's Pods instead (see releasePods) and the real Job controller writes the status.
 */
export class JobController {
  private readonly kube: KubeServer;
  private readonly admin: Admin;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly controlPlane: ControlPlane | undefined;

  constructor(kube: KubeServer, admin: Admin, controlPlane?: ControlPlane) {
    this.kube = kube;
    this.admin = admin;
    this.custom = admin.custom;
    this.core = admin.core;
    this.controlPlane = controlPlane;
  }

  /** podsOf: the live (not deleting) Pods of a Job. */
  private async podsOf(namespace: string, job: string): Promise<V1Pod[]> {
    const list = await this.core.listNamespacedPod({ namespace, labelSelector: `batch.kubernetes.io/job-name=${job}` });
    return list.items.filter((pod) => pod.metadata?.deletionTimestamp === undefined);
  }

  /**
   * releasePods: on the real control plane, waits until the running Job has its `parallelism`
   * Pods (created by the Job controller, held Pending by kwok), gives each `behaviour`, then
   * waits until the Job controller's status shows `done`.
   */
  private async releasePods(namespace: string, name: string, behaviour: PodBehaviour, what: string, done: (job: Job) => boolean): Promise<Job> {
    const job = await this.admin.job(namespace, name);
    assert.notEqual(job.spec.suspend, true, `job ${namespace}/${name} is suspended; the Job controller would not start its pods`);
    const parallelism = job.spec.parallelism ?? 1;
    const pods = await eventually(
      `job ${namespace}/${name}: ${parallelism} pods created by the Job controller`,
      async () => {
        const live = await this.podsOf(namespace, name);
        assert.equal(live.length, parallelism);
        return live;
      },
      POD_STEP_TIMEOUT_MS,
      150,
    );
    for (const pod of pods) await setPodBehaviour(this.kube, namespace, pod.metadata?.name ?? '', behaviour);
    return eventually(
      `job ${namespace}/${name}: ${what}`,
      async () => {
        const current = await this.admin.job(namespace, name);
        assert.ok(done(current), JSON.stringify(current.status));
        return current;
      },
      POD_STEP_TIMEOUT_MS,
      150,
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

  /**
   * markReady: a running Job whose pods are all ready — active = ready = parallelism (upstream's
   * integration tests), with the startTime and Suspended=False the Job controller writes when
   * it starts or resumes a Job.
   */
  async markReady(namespace: string, name: string): Promise<Job> {
    if (this.controlPlane !== undefined) {
      return this.releasePods(namespace, name, { held: false }, 'every pod Ready, counted by the Job controller', (job) => job.status?.ready === (job.spec.parallelism ?? 1));
    }
    return this.admin.writeJobStatus(namespace, name, (job) => {
      assert.notEqual(job.spec.suspend, true, `job ${namespace}/${name} is suspended; the Job controller would not start its pods`);
      const parallelism = job.spec.parallelism ?? 1;
      const status: JobStatus = { ...job.status, startTime: job.status?.startTime ?? nowSeconds(), active: parallelism, ready: parallelism };
      const suspended = job.status?.conditions?.find((c) => c.type === 'Suspended');
      if (suspended !== undefined) {
        status.conditions = upsertCondition(job.status?.conditions, { ...suspended, status: 'False', reason: 'JobResumed', message: 'Job resumed', lastProbeTime: nowSeconds(), lastTransitionTime: nowSeconds() });
      }
      return status;
    });
  }

  /**
   * markComplete: startTime, completionTime, SuccessCriteriaMet and Complete, succeeded =
   * completions (upstream's integration tests). Conditions carry lastProbeTime and
   * lastTransitionTime, as the Job controller's newCondition writes them.
   */
  async markComplete(namespace: string, name: string): Promise<Job> {
    if (this.controlPlane !== undefined) {
      return this.releasePods(namespace, name, { held: false, outcome: 'Succeeded', finishAfterMs: 0 }, 'Complete', (job) =>
        job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true,
      );
    }
    return this.admin.writeJobStatus(namespace, name, (job) => {
      const at = nowSeconds();
      const completions = job.spec.completions ?? job.spec.parallelism ?? 1;
      const indexed = job.spec.completionMode === 'Indexed';
      return {
        ...job.status,
        startTime: job.status?.startTime ?? at,
        completionTime: at,
        active: 0,
        ready: 0,
        succeeded: completions,
        ...(indexed ? { completedIndexes: completions === 1 ? '0' : `0-${completions - 1}` } : {}),
        conditions: [
          ...(job.status?.conditions ?? []),
          { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: at, lastTransitionTime: at },
          { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: at, lastTransitionTime: at },
        ],
      };
    });
  }

  /** markFailed: startTime, FailureTarget and Failed (BackoffLimitExceeded), as upstream's integration tests fail a Job. */
  async markFailed(namespace: string, name: string): Promise<Job> {
    return this.admin.writeJobStatus(namespace, name, (job) => {
      const at = nowSeconds();
      const message = 'Job has reached the specified backoff limit';
      return {
        ...job.status,
        startTime: job.status?.startTime ?? at,
        active: 0,
        ready: 0,
        failed: 1,
        conditions: [
          ...(job.status?.conditions ?? []),
          { type: 'FailureTarget', status: 'True', reason: 'BackoffLimitExceeded', message, lastProbeTime: at, lastTransitionTime: at },
          { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message, lastProbeTime: at, lastTransitionTime: at },
        ],
      };
    });
  }

  /** markSuspended: the status the Job controller writes once a suspended Job's pods are gone. */
  markSuspended(namespace: string, name: string): Promise<Job> {
    return this.admin.markSuspended(namespace, name);
  }

  /**
   * deleteAsTtlController: delete a finished Job the way the TTL-after-finished controller
   * does (foreground propagation), then stand in for the garbage collector (see collectGarbage).
   */
  async deleteAsTtlController(namespace: string, name: string): Promise<void> {
    await this.custom.deleteNamespacedCustomObject({ ...KubeResource.Job, namespace, name, body: { propagationPolicy: 'Foreground' } });
    await this.collectGarbage(namespace, name);
  }

  /**
   * collectGarbage: remove the `foregroundDeletion` finalizer from a Job being deleted in the
   * foreground. No kube-controller-manager runs in these tests, so no garbage collector does
   * it: a Job deleted in the foreground would keep its deletionTimestamp and that finalizer
   * forever. The Jobs have no pods, so the collector would remove it at once; other
   * finalizers (Lineup's finished-record) stay and keep the Job until their owner lets go.
   */
  async collectGarbage(namespace: string, name: string): Promise<void> {
    await eventually(`foregroundDeletion finalizer removed from job ${namespace}/${name}`, async () => {
      const job = await this.admin.getJob(namespace, name);
      if (job === undefined) return;
      const finalizers = job.metadata.finalizers ?? [];
      assert.ok(job.metadata.deletionTimestamp !== undefined, `job ${namespace}/${name} is not being deleted`);
      if (!finalizers.includes('foregroundDeletion')) return;
      // A merge patch replaces the list: guarded by the resourceVersion it was computed from (409 → try again).
      const response = await this.kube.request(
        'PATCH',
        `/apis/batch/v1/namespaces/${namespace}/jobs/${name}`,
        { metadata: { resourceVersion: job.metadata.resourceVersion, finalizers: finalizers.filter((f) => f !== 'foregroundDeletion') } },
        { contentType: 'application/merge-patch+json' },
      );
      if (response.status === 404) return;
      assert.ok(response.status < 300, `removing foregroundDeletion from ${namespace}/${name}: HTTP ${response.status} ${response.body.slice(0, 300)}`);
    });
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
