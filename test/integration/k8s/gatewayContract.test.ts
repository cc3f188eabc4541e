/**
 * The ClusterGateway contract (test/k8s/gatewayBehaviour.ts) against KubeClusterGateway on a real
 * kube-apiserver with the JobSet CRD, as Lineup's own user (RBAC from the verb tables).
 * test/sim/gatewayContract.test.ts runs the same cases against the simulated cluster. Each case
 * gets a namespace of its own; no kube-controller-manager runs, so nothing writes Job status or
 * collects garbage behind a case's back. Then the simulated cluster's Job status and JobSet status
 * rules are held to the server's answers cause for cause. Nothing is skipped: a server that cannot
 * start fails the suite.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counters } from '../../../lib/counters.ts';
import { InvalidObjectError } from '../../../lib/errors.ts';
import type { FieldError } from '../../../lib/errors.ts';
import { PersistentVolumeClaimSchema, ServiceSchema } from '../../../lib/jobset/schema.ts';
import type { Condition, Job, JobCondition, JobSetStatus, JobStatus, PersistentVolumeClaim, Service } from '../../../lib/jobset/schema.ts';
import { kubeConfigEndpoint } from '../../../lib/k8s/kubeConfigFile.ts';
import { toLineupError } from '../../../lib/k8s/errors.ts';
import { KubeClusterGateway } from '../../../lib/k8s/gateway.ts';
import { jobSetStatusViolations } from '../../../lib/sim/jobSetStatusRules.ts';
import { jobStatusViolations } from '../../../lib/sim/jobStatusRules.ts';
import { makeJobSet } from '../../builders.ts';
import { describeGatewayBehaviour } from '../../k8s/gatewayBehaviour.ts';
import type { GatewayWorld } from '../../k8s/gatewayBehaviour.ts';
import type { KubeServer } from '../harness/index.ts';
import { Admin, COLD_START_TIMEOUT_MS, startCluster } from './support.ts';

/** isNotFound: the admin client's 404. */
const isNotFound = (error: unknown): boolean => error !== null && typeof error === 'object' && 'code' in error && error.code === 404;

describe('KubeClusterGateway against kube-apiserver: the ClusterGateway contract', () => {
  let server: KubeServer | undefined;
  let admin: Admin;
  let gateway: KubeClusterGateway;
  let worlds = 0;

  before(
    async () => {
      server = await startCluster();
      admin = new Admin(server);
      gateway = new KubeClusterGateway({ endpoint: kubeConfigEndpoint(server.kubeConfig('lineup')), counters: new Counters() });
    },
    { timeout: COLD_START_TIMEOUT_MS },
  );
  after(() => server?.stop());

  /** kubeWorld: a fresh namespace on the shared server. */
  const kubeWorld = async (): Promise<GatewayWorld> => {
    worlds += 1;
    const namespace = `contract-${worlds}`;
    await admin.createNamespace(namespace);
    return {
      gateway,
      namespace,
      now: () => Date.now(),
      createJobSet: (jobSet) => admin.createJobSet(jobSet, namespace),
      createJob: (job) => admin.createJob(job, namespace),
      getJobSet: (name) => admin.getJobSet(namespace, name),
      getJob: (name) => admin.getJob(namespace, name),
      getPersistentVolumeClaim: async (name): Promise<PersistentVolumeClaim | undefined> => {
        try {
          return PersistentVolumeClaimSchema.parse(JSON.parse(JSON.stringify(await admin.core.readNamespacedPersistentVolumeClaim({ namespace, name }))));
        } catch (error) {
          if (isNotFound(error)) return undefined;
          throw error;
        }
      },
      getService: async (name): Promise<Service | undefined> => {
        try {
          // CoreV1Api hands back a model with Date timestamps; its JSON is the wire form again.
          return ServiceSchema.parse(JSON.parse(JSON.stringify(await admin.core.readNamespacedService({ namespace, name }))));
        } catch (error) {
          if (isNotFound(error)) return undefined;
          throw error;
        }
      },
      // A status fixture in the Job controller's shape (not a controller), its refusal mapped at the adapter's boundary as the gateway maps its own.
      writeJobStatus: async (name, status) => {
        try {
          return await admin.writeJobStatus(namespace, name, status);
        } catch (error) {
          throw toLineupError(error, `job ${namespace}/${name} status`);
        }
      },
      events: async (jobSetName) =>
        (await admin.eventsOf(namespace, jobSetName)).map((event) => ({ type: event.type ?? '', reason: event.reason ?? '', message: event.message ?? '' })),
    };
  };

  describeGatewayBehaviour(kubeWorld);

  /** causesOf: the field causes of a refused write, "path: message" each; [] when the server took it. */
  const causesOf = async (write: () => Promise<unknown>, what: string): Promise<string[]> => {
    try {
      await write();
      return [];
    } catch (error) {
      const mapped = toLineupError(error, what);
      assert.ok(mapped instanceof InvalidObjectError, `${what}: expected 422 Invalid, got ${mapped.message}`);
      return mapped.causes.map((cause) => `${cause.path}: ${cause.message}`);
    }
  };
  const listed = (causes: readonly FieldError[]): string[] => causes.map((cause) => `${cause.path}: ${cause.message}`);

  describe('the simulated cluster refuses what kube-apiserver refuses, with the same field causes', () => {
    const at = (second: number): string => `2026-01-01T00:00:${String(second).padStart(2, '0')}Z`;
    const condition = (type: string): JobCondition => ({ type, status: 'True', reason: 'Reason', message: 'message', lastProbeTime: at(5), lastTransitionTime: at(5) });
    const running: JobStatus = { startTime: at(1), active: 1 };
    const complete = (extra: Partial<JobStatus> = {}): JobStatus => ({
      startTime: at(1),
      completionTime: at(5),
      succeeded: 1,
      active: 0,
      conditions: [condition('SuccessCriteriaMet'), condition('Complete')],
      ...extra,
    });
    const failed = (extra: Partial<JobStatus> = {}): JobStatus => ({ startTime: at(1), failed: 1, active: 0, conditions: [condition('FailureTarget'), condition('Failed')], ...extra });
    /** `history`: the statuses the Job controller wrote before `next`, each one a server accepts. */
    const jobCases: { name: string; history: JobStatus[]; next: JobStatus }[] = [
      { name: 'Complete without completionTime', history: [running], next: complete({ completionTime: undefined }) },
      { name: 'completionTime without Complete', history: [running], next: { ...running, completionTime: at(5) } },
      { name: 'completionTime before startTime', history: [running], next: complete({ completionTime: at(0) }) },
      { name: 'finished without startTime', history: [], next: failed({ startTime: undefined }) },
      { name: 'Complete without SuccessCriteriaMet', history: [running], next: complete({ conditions: [condition('Complete')] }) },
      { name: 'Failed without FailureTarget', history: [running], next: failed({ conditions: [condition('Failed')] }) },
      { name: 'active pods on a finished Job', history: [running], next: complete({ active: 1 }) },
      { name: 'more ready than active', history: [running], next: { ...running, ready: 2 } },
      { name: 'succeeded going down', history: [running, { ...running, succeeded: 2 }], next: { ...running, succeeded: 1 } },
      { name: 'failed going down', history: [running, { ...running, failed: 2 }], next: { ...running, failed: 0 } },
      { name: 'a changed completionTime', history: [running, complete()], next: complete({ completionTime: at(9) }) },
      { name: 'a moved startTime on a running Job', history: [running], next: { ...running, startTime: at(3) } },
      { name: 'a cleared startTime on a running Job', history: [running], next: { active: 1 } },
      { name: 'a removed Complete condition', history: [running, complete()], next: complete({ conditions: [condition('SuccessCriteriaMet')], completionTime: undefined }) },
      { name: 'a removed Failed condition', history: [running, failed()], next: failed({ conditions: [condition('FailureTarget')] }) },
      { name: 'Complete and Failed at once', history: [running], next: complete({ conditions: ['SuccessCriteriaMet', 'Complete', 'FailureTarget', 'Failed'].map(condition) }) },
      { name: 'a valid completion', history: [running], next: complete() },
    ];

    it('Job status: every rule, cause for cause', async () => {
      const world = await kubeWorld();
      let index = 0;
      for (const tc of jobCases) {
        // Prepare: a running Job with the case's history, as the Job controller wrote it.
        index += 1;
        const name = `rules-${index}`;
        const job: Job = {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name, namespace: world.namespace },
          spec: { suspend: false, parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
        };
        await world.createJob(job);
        for (const status of tc.history) await world.writeJobStatus(name, () => status);
        const stored = await world.getJob(name);
        // Act
        const simulated = listed(jobStatusViolations(stored, tc.next));
        const real = await causesOf(() => world.writeJobStatus(name, () => tc.next), `job ${name} status`);
        // Assess
        assert.deepEqual(simulated, real, tc.name);
      }
    });

    const jobSetCondition = (type: string): Condition => ({ type, status: 'True', reason: 'Reason', message: 'message', lastTransitionTime: at(5) });
    const jobSetCases: { name: string; status: JobSetStatus }[] = [
      { name: 'a condition without reason, message and lastTransitionTime', status: { conditions: [{ type: 'Completed', status: 'True' }] } },
      { name: 'a reason that is not CamelCase, and two conditions of one type', status: { conditions: [{ ...jobSetCondition('Completed'), reason: 'all done' }, jobSetCondition('Completed')] } },
      { name: 'a condition status outside True/False/Unknown', status: { conditions: [{ ...jobSetCondition('Completed'), status: 'Yes' }] } as unknown as JobSetStatus },
      { name: 'two replicatedJobsStatus entries of one name', status: { replicatedJobsStatus: [0, 1].map(() => ({ name: 'workers', ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0 })) } },
      { name: 'a valid status', status: { restarts: 1, conditions: [jobSetCondition('Completed')] } },
    ];

    it('JobSet status: the CRD schema, cause for cause', async () => {
      const world = await kubeWorld();
      const built = makeJobSet('rules', world.namespace).replicatedJob('workers', 1).obj();
      const { uid: _uid, resourceVersion: _rv, ...metadata } = built.metadata;
      await world.createJobSet({ ...built, metadata });
      for (const tc of jobSetCases) {
        const simulated = listed(jobSetStatusViolations(tc.status));
        const real = await causesOf(
          () => world.gateway.apply(world.namespace, 'rules', { kind: 'UpdateJobSetStatus', resourceVersion: undefined, status: tc.status }, world.now()),
          'jobset rules status',
        );
        assert.deepEqual(simulated, real, tc.name);
      }
      assert.equal((await world.getJobSet('rules'))?.status?.restarts, 1, 'the valid status was written');
    });
  });
});
