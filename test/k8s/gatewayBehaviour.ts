/**
 * The ClusterGateway contract, written once and run against both implementations: the simulated
 * cluster's gateway (test/sim/gatewayContract.test.ts, unit tier) and KubeClusterGateway on a real
 * kube-apiserver with the JobSet CRD (test/integration/k8s/gatewayContract.test.ts), so the
 * simulator cannot drift from what a cluster answers: the same writes succeed, and the same
 * refusals arrive as the same Lineup error classes and codes.
 *
 * Neither world runs a Job controller or a garbage collector unless a case says so: Job status is
 * written by the case, through `writeJobStatus`, as upstream JobSet's integration tests do.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_NOTE_MAX_BYTES } from '../../lib/k8s/eventNote.ts';
import { Label, LineupKey } from '../../lib/jobset/api.ts';
import { AlreadyExistsError, ConflictError, ErrorCode, InvalidObjectError, LineupError, NotFoundError } from '../../lib/errors.ts';
import type { Job, JobSet, JobStatus, PersistentVolumeClaim, Service, Toleration } from '../../lib/jobset/schema.ts';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../lib/plan/index.ts';
import type { Action, Plan } from '../../lib/plan/types.ts';
import type { ClusterGateway, Written } from '../../lib/reconcile/types.ts';
import { makeJobSet } from '../builders.ts';

/** RecordedEvent: what a case reads back of an Event the gateway emitted. */
export interface RecordedEvent {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
}

/**
 * GatewayWorld: one fresh, empty namespace of one cluster, the gateway under test, and the
 * test's own hands on that cluster (a user, another client, the Job controller) that bypass the
 * gateway.
 */
export interface GatewayWorld {
  readonly gateway: ClusterGateway;
  readonly namespace: string;
  /** now: the time handed to the gateway (epoch ms). */
  now(): number;
  /** createJobSet: a JobSet as a user creates it; the stored object. */
  createJobSet(jobSet: JobSet): Promise<JobSet>;
  /** createJob: a Job as another client creates it; the stored object. */
  createJob(job: Job): Promise<Job>;
  getJobSet(name: string): Promise<JobSet | undefined>;
  getJob(name: string): Promise<Job | undefined>;
  getService(name: string): Promise<Service | undefined>;
  getPersistentVolumeClaim(name: string): Promise<PersistentVolumeClaim | undefined>;
  /** writeJobStatus: replace a Job's status as the Job controller does; a refusal is the Lineup error the adapter maps it to. */
  writeJobStatus(name: string, status: (job: Job) => JobStatus): Promise<Job>;
  /** events: the Events recorded on JobSet `jobSetName`, oldest first. */
  events(jobSetName: string): Promise<RecordedEvent[]>;
}

/** GatewayWorldFactory: a fresh world for one case. */
export type GatewayWorldFactory = () => Promise<GatewayWorld>;

/** A JobSet name loose Jobs are labelled with; no JobSet of that name exists. */
const LOOSE = 'loose-jobs';

/** stamp: an RFC 3339 time `seconds` after the world's now, at seconds precision like metav1.Time. */
const stamp = (world: GatewayWorld, seconds = 0): string => `${new Date(world.now() + seconds * 1000).toISOString().slice(0, 19)}Z`;

/** jobNamed: a child-like Job in `namespace` labelled for JobSet `jobSet` (nothing runs it). */
export const jobNamed = (
  namespace: string,
  name: string,
  options: { suspend?: boolean; finalizers?: string[]; tolerations?: Toleration[]; nodeSelector?: Record<string, string>; jobSet?: string } = {},
): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name,
    namespace,
    labels: { [Label.JobSetName]: options.jobSet ?? LOOSE, [Label.ReplicatedJobName]: 'workers' },
    ...(options.finalizers ? { finalizers: options.finalizers } : {}),
  },
  spec: {
    suspend: options.suspend ?? true,
    parallelism: 1,
    completions: 1,
    backoffLimit: 0,
    template: {
      metadata: { labels: { app: 'worker' }, annotations: { keep: 'me' } },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'main', image: 'busybox' }],
        ...(options.tolerations ? { tolerations: options.tolerations } : {}),
        ...(options.nodeSelector ? { nodeSelector: options.nodeSelector } : {}),
      },
    },
  },
});

/** simpleJobSet: a Lineup-managed JobSet of two workers, as a user writes it (no uid, no resourceVersion). */
const simpleJobSet = (world: GatewayWorld, name: string): JobSet => {
  const built = makeJobSet(name, world.namespace).replicatedJob('workers', 2).obj();
  const { uid: _uid, resourceVersion: _rv, ...metadata } = built.metadata;
  return { ...built, metadata };
};

/** expectError: `pending` rejects with a Lineup error of class `type` and `code`; returns it. */
const expectError = async <E extends LineupError>(pending: Promise<unknown>, type: abstract new (...args: never[]) => E, code: string): Promise<E> => {
  try {
    await pending;
  } catch (error) {
    assert.ok(error instanceof type, `expected a ${type.name} (${code}), got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    return error;
  }
  assert.fail(`expected a ${type.name} (${code}), but the call succeeded`);
};

/** causePaths: the field paths of an InvalidObjectError's causes. */
const causePaths = (error: InvalidObjectError): string[] => error.causes.map((cause) => cause.path);

/** markSuspended: the status the Job controller writes once a suspended Job's pods are gone. */
const markSuspended = (world: GatewayWorld, name: string): Promise<Job> =>
  world.writeJobStatus(name, (job) => ({
    ...job.status,
    active: 0,
    ready: 0,
    conditions: [{ type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended', lastProbeTime: stamp(world), lastTransitionTime: stamp(world) }],
  }));

/** describeGatewayBehaviour: the whole ClusterGateway contract as tests, against worlds from `makeWorld`. */
export const describeGatewayBehaviour = (makeWorld: GatewayWorldFactory): void => {
  const apply = (world: GatewayWorld, jobSetName: string, action: Action): Promise<Written | void> => world.gateway.apply(world.namespace, jobSetName, action, world.now());

  /** pass: one reconcile pass — observe, plan, apply every action in order. */
  const pass = async (world: GatewayWorld, name: string): Promise<Plan> => {
    const observed = await world.gateway.observe(world.namespace, name, world.now());
    assert.ok(observed, `jobset ${name} should exist`);
    const decided = plan(observed, DEFAULT_PLAN_OPTIONS);
    for (const action of decided.actions) await apply(world, name, action);
    return decided;
  };

  describe('observe', () => {
    it('returns undefined for a JobSet that does not exist', async () => {
      const world = await makeWorld();
      assert.equal(await world.gateway.observe(world.namespace, 'no-such-jobset', world.now()), undefined);
    });

    it('lists exactly the Jobs labelled with the JobSet name, and the Service named after its subdomain', async () => {
      // Prepare
      const world = await makeWorld();
      const created = await world.createJobSet(simpleJobSet(world, 'listed'));
      await world.createJob(jobNamed(world.namespace, 'listed-workers-0', { jobSet: 'listed' }));
      await world.createJob(jobNamed(world.namespace, 'listed-workers-1', { jobSet: 'listed' }));
      await world.createJob(jobNamed(world.namespace, 'other-workers-0', { jobSet: 'other' }));
      await apply(world, 'listed', { kind: 'CreateService', service: { metadata: { name: 'listed', namespace: world.namespace }, spec: { clusterIP: 'None' } } });
      // Act
      const at = world.now();
      const observed = await world.gateway.observe(world.namespace, 'listed', at);
      // Assess
      assert.ok(observed);
      assert.equal(observed.jobSet.metadata.uid, created.metadata.uid);
      assert.deepEqual(observed.jobs.map((job) => job.metadata.name).sort(), ['listed-workers-0', 'listed-workers-1']);
      assert.equal(observed.service?.metadata.name, 'listed');
      assert.equal(observed.now, at);
    });
  });

  describe('create', () => {
    it('a first pass creates the JobSet-owned Service and Jobs, writes status and records an Event; creating them again is AlreadyExists for a Job and done for the Service', async () => {
      // Prepare
      const world = await makeWorld();
      const created = await world.createJobSet(simpleJobSet(world, 'first'));
      // Act
      const first = await pass(world, 'first');
      // Assess: the Service and both Jobs exist, owned by the JobSet.
      const service = await world.getService('first');
      assert.ok(service, 'the headless Service exists');
      assert.equal(service.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
      assert.equal(service.spec?.clusterIP, 'None');
      for (const name of ['first-workers-0', 'first-workers-1']) {
        const job = await world.getJob(name);
        assert.ok(job, `${name} exists`);
        assert.equal(job.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
        assert.equal(job.metadata.labels?.[Label.JobSetName], 'first');
      }
      assert.ok((await world.getJobSet('first'))?.status?.replicatedJobsStatus?.some((entry) => entry.name === 'workers'), 'status written');
      const emitted = first.actions.filter((action) => action.kind === 'EmitEvent');
      assert.deepEqual((await world.events('first')).map((event) => event.reason).sort(), emitted.map((action) => action.reason).sort(), 'its Events recorded');

      // Act + Assess: the same creates again.
      const createJob = first.actions.find((action) => action.kind === 'CreateJob');
      const createService = first.actions.find((action) => action.kind === 'CreateService');
      assert.ok(createJob && createService, `the first pass creates Jobs and the Service: ${first.actions.map((a) => a.kind).join(', ')}`);
      const before = await world.getJob(createJob.job.metadata.name ?? '');
      const error = await expectError(apply(world, 'first', createJob), AlreadyExistsError, ErrorCode.ALREADY_EXISTS);
      assert.ok(!(error instanceof ConflictError), 'AlreadyExists is its own error, not a stale resourceVersion');
      assert.match(error.message, /already exists/);
      assert.equal((await world.getJob(createJob.job.metadata.name ?? ''))?.metadata.resourceVersion, before?.metadata.resourceVersion);
      await apply(world, 'first', createService);
      assert.equal((await world.getService('first'))?.metadata.uid, service.metadata.uid, 'the Service is the one created first');
    });

    it('volumeClaimPolicies: the first pass creates each claim (named, labelled, owned unless Retain) before the Jobs that mount it; creating one again keeps the stored one', async () => {
      // Prepare: upstream's single-pvc example, shrunk: "model" deleted with the JobSet, "checkpoints" retained.
      const world = await makeWorld();
      const jobSet = simpleJobSet(world, 'claims');
      const storage = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
      jobSet.spec.volumeClaimPolicies = [
        { templates: [{ metadata: { name: 'model', labels: { team: 'ml' }, annotations: { note: 'shared' } }, spec: storage }] },
        { templates: [{ metadata: { name: 'checkpoints' }, spec: storage }], retentionPolicy: { whenDeleted: 'Retain' } },
      ];
      const podSpec = jobSet.spec.replicatedJobs?.[0]?.template.spec.template.spec;
      assert.ok(podSpec);
      podSpec.containers = [{ name: 'main', image: 'busybox', volumeMounts: [{ name: 'model', mountPath: '/model' }, { name: 'checkpoints', mountPath: '/checkpoints' }] }];
      const created = await world.createJobSet(jobSet);
      // Act
      const first = await pass(world, 'claims');
      // Assess: claims come before Jobs in the plan, and exist as upstream names and labels them.
      const kinds = first.actions.map((action) => action.kind);
      assert.ok(kinds.lastIndexOf('CreatePersistentVolumeClaim') < kinds.indexOf('CreateJob'), kinds.join(', '));
      const model = await world.getPersistentVolumeClaim('model-claims');
      assert.ok(model, 'claim model-claims exists');
      assert.deepEqual(model.metadata.labels, { team: 'ml', [Label.JobSetName]: 'claims' });
      assert.deepEqual(model.metadata.annotations, { note: 'shared' });
      assert.deepEqual(
        model.metadata.ownerReferences?.map((ref) => [ref.kind, ref.name, ref.uid, ref.controller]),
        [['JobSet', 'claims', created.metadata.uid, true]],
      );
      assert.deepEqual((model.spec as { resources?: unknown } | undefined)?.resources, { requests: { storage: '1Gi' } });
      const checkpoints = await world.getPersistentVolumeClaim('checkpoints-claims');
      assert.ok(checkpoints, 'claim checkpoints-claims exists');
      assert.equal(checkpoints.metadata.ownerReferences, undefined, 'a retained claim has no owner');
      for (const name of ['claims-workers-0', 'claims-workers-1']) {
        assert.deepEqual((await world.getJob(name))?.spec.template.spec?.volumes, [
          { name: 'model', persistentVolumeClaim: { claimName: 'model-claims' } },
          { name: 'checkpoints', persistentVolumeClaim: { claimName: 'checkpoints-claims' } },
        ]);
      }
      // Act + Assess: the same create again succeeds and leaves the stored claim as it is.
      const createClaim = first.actions.find((action) => action.kind === 'CreatePersistentVolumeClaim');
      assert.ok(createClaim);
      await apply(world, 'claims', createClaim);
      assert.equal((await world.getPersistentVolumeClaim('model-claims'))?.metadata.resourceVersion, model.metadata.resourceVersion);
    });

    it('a create of a Service that exists leaves the stored one as it is', async () => {
      const world = await makeWorld();
      const service = { apiVersion: 'v1' as const, kind: 'Service' as const, metadata: { name: 'svc', namespace: world.namespace }, spec: { clusterIP: 'None', selector: { app: 'a' } } };
      await apply(world, LOOSE, { kind: 'CreateService', service });
      const stored = await world.getService('svc');
      await apply(world, LOOSE, { kind: 'CreateService', service: { ...service, spec: { clusterIP: 'None', selector: { app: 'b' } } } });
      const after = await world.getService('svc');
      assert.deepEqual(after?.spec?.selector, { app: 'a' });
      assert.equal(after?.metadata.resourceVersion, stored?.metadata.resourceVersion);
    });
  });

  describe('stale resourceVersion', () => {
    it('SuspendJob from a stale resourceVersion is a ConflictError and changes nothing; from the current one it suspends', async () => {
      // Prepare: the Job controller wrote status after the read.
      const world = await makeWorld();
      const read = await world.createJob(jobNamed(world.namespace, 'to-suspend', { suspend: false }));
      const current = await world.writeJobStatus('to-suspend', () => ({ startTime: stamp(world), active: 1 }));
      // Act + Assess
      await expectError(
        apply(world, LOOSE, { kind: 'SuspendJob', name: 'to-suspend', replicatedJob: 'workers', resourceVersion: read.metadata.resourceVersion }),
        ConflictError,
        ErrorCode.STALE_RESOURCE_VERSION,
      );
      assert.equal((await world.getJob('to-suspend'))?.spec.suspend, false);
      await apply(world, LOOSE, { kind: 'SuspendJob', name: 'to-suspend', replicatedJob: 'workers', resourceVersion: current.metadata.resourceVersion });
      assert.equal((await world.getJob('to-suspend'))?.spec.suspend, true);
    });

    for (const clearStartTime of [true, false]) {
      it(`ResumeJob from a stale resourceVersion is a ConflictError and changes nothing (clearStartTime ${clearStartTime})`, async () => {
        const world = await makeWorld();
        const read = await world.createJob(jobNamed(world.namespace, 'resume-stale'));
        await world.writeJobStatus('resume-stale', () => ({ startTime: stamp(world) }));
        await expectError(
          apply(world, LOOSE, { kind: 'ResumeJob', name: 'resume-stale', replicatedJob: 'workers', resourceVersion: read.metadata.resourceVersion, clearStartTime, podTemplate: undefined }),
          ConflictError,
          ErrorCode.STALE_RESOURCE_VERSION,
        );
        const job = await world.getJob('resume-stale');
        assert.equal(job?.spec.suspend, true);
        assert.notEqual(job?.status?.startTime, undefined);
      });
    }

    it('RemoveJobFinalizer from a stale resourceVersion is a ConflictError and keeps the finalizer', async () => {
      const world = await makeWorld();
      const read = await world.createJob(jobNamed(world.namespace, 'held-stale', { finalizers: [LineupKey.FinishedRecordFinalizer] }));
      await world.writeJobStatus('held-stale', () => ({ startTime: stamp(world) }));
      await expectError(
        apply(world, LOOSE, { kind: 'RemoveJobFinalizer', name: 'held-stale', resourceVersion: read.metadata.resourceVersion, finalizer: LineupKey.FinishedRecordFinalizer }),
        ConflictError,
        ErrorCode.STALE_RESOURCE_VERSION,
      );
      assert.deepEqual((await world.getJob('held-stale'))?.metadata.finalizers, [LineupKey.FinishedRecordFinalizer]);
    });

    it('PatchJobSetAnnotations and UpdateJobSetStatus from a stale resourceVersion are ConflictErrors', async () => {
      // Prepare
      const world = await makeWorld();
      const read = await world.createJobSet(simpleJobSet(world, 'stale-set'));
      await apply(world, 'stale-set', { kind: 'PatchJobSetAnnotations', resourceVersion: read.metadata.resourceVersion, annotations: { 'example.com/a': '1' } });
      // Act + Assess
      await expectError(
        apply(world, 'stale-set', { kind: 'PatchJobSetAnnotations', resourceVersion: read.metadata.resourceVersion, annotations: { 'example.com/a': null } }),
        ConflictError,
        ErrorCode.STALE_RESOURCE_VERSION,
      );
      await expectError(
        apply(world, 'stale-set', { kind: 'UpdateJobSetStatus', resourceVersion: read.metadata.resourceVersion, status: { restarts: 2 } }),
        ConflictError,
        ErrorCode.STALE_RESOURCE_VERSION,
      );
      const stored = await world.getJobSet('stale-set');
      assert.equal(stored?.metadata.annotations?.['example.com/a'], '1');
      assert.equal(stored?.status?.restarts, undefined);
    });

    it('DeleteJob and DeleteJobSet with a uid precondition naming another object are ConflictErrors', async () => {
      const world = await makeWorld();
      await world.createJob(jobNamed(world.namespace, 'wrong-uid'));
      await world.createJobSet(simpleJobSet(world, 'wrong-uid-set'));
      const otherUid = '00000000-0000-0000-0000-000000000000';
      await expectError(
        apply(world, LOOSE, { kind: 'DeleteJob', name: 'wrong-uid', uid: otherUid, propagation: 'Background', reason: 'test' }),
        ConflictError,
        ErrorCode.STALE_RESOURCE_VERSION,
      );
      await expectError(apply(world, 'wrong-uid-set', { kind: 'DeleteJobSet', uid: otherUid, propagation: 'Foreground' }), ConflictError, ErrorCode.STALE_RESOURCE_VERSION);
      assert.ok(await world.getJob('wrong-uid'));
      assert.equal((await world.getJobSet('wrong-uid-set'))?.metadata.deletionTimestamp, undefined);
    });
  });

  describe('missing objects', () => {
    it('a write to a missing Job or JobSet is a NotFoundError', async () => {
      const world = await makeWorld();
      await expectError(apply(world, LOOSE, { kind: 'SuspendJob', name: 'missing', replicatedJob: 'workers', resourceVersion: undefined }), NotFoundError, ErrorCode.NOT_FOUND);
      for (const clearStartTime of [true, false]) {
        await expectError(
          apply(world, LOOSE, { kind: 'ResumeJob', name: 'missing', replicatedJob: 'workers', resourceVersion: undefined, clearStartTime, podTemplate: undefined }),
          NotFoundError,
          ErrorCode.NOT_FOUND,
        );
      }
      await expectError(apply(world, 'missing-set', { kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { a: 'b' } }), NotFoundError, ErrorCode.NOT_FOUND);
      for (const resourceVersion of [undefined, '1']) {
        await expectError(apply(world, 'missing-set', { kind: 'UpdateJobSetStatus', resourceVersion, status: {} }), NotFoundError, ErrorCode.NOT_FOUND);
      }
    });

    it('a delete of a missing Job or JobSet, and a finalizer removal from a missing Job, are done already', async () => {
      const world = await makeWorld();
      await apply(world, LOOSE, { kind: 'DeleteJob', name: 'missing', uid: undefined, propagation: 'Foreground', reason: 'test' });
      await apply(world, LOOSE, { kind: 'DeleteJob', name: 'missing', uid: '00000000-0000-0000-0000-000000000001', propagation: 'Background', reason: 'test' });
      await apply(world, LOOSE, { kind: 'RemoveJobFinalizer', name: 'missing', resourceVersion: '1', finalizer: LineupKey.FinishedRecordFinalizer });
      await apply(world, 'missing-set', { kind: 'DeleteJobSet', uid: undefined, propagation: 'Foreground' });
      assert.equal(await world.getJob('missing'), undefined);
    });
  });

  describe('resume', () => {
    it('ResumeJob of a Job that ran clears startTime, writes the pod template (maps merged, removed nodeSelector keys deleted, lists replaced) and un-suspends', async () => {
      // Prepare: a suspended Job that ran before (startTime) and that the Job controller marked Suspended.
      const world = await makeWorld();
      const a: Toleration = { key: 'a', operator: 'Exists', effect: 'NoSchedule' };
      const b: Toleration = { key: 'b', operator: 'Equal', value: 'x', effect: 'NoExecute' };
      await world.createJob(jobNamed(world.namespace, 'to-resume', { tolerations: [a], nodeSelector: { flavor: 'a', keep: 'yes' } }));
      await world.writeJobStatus('to-resume', () => ({ startTime: stamp(world) }));
      const marked = await markSuspended(world, 'to-resume');
      // Act
      await apply(world, LOOSE, {
        kind: 'ResumeJob',
        name: 'to-resume',
        replicatedJob: 'workers',
        resourceVersion: marked.metadata.resourceVersion,
        clearStartTime: true,
        podTemplate: { labels: { queue: 'gpu' }, annotations: { added: 'yes' }, nodeSelector: { pool: 'gpu' }, nodeSelectorRemoved: ['flavor'], tolerations: [b], schedulingGates: [{ name: 'example.com/gate' }] },
      });
      // Assess
      const resumed = await world.getJob('to-resume');
      assert.ok(resumed);
      assert.equal(resumed.spec.suspend, false);
      assert.equal(resumed.status?.startTime, undefined);
      assert.equal(resumed.spec.template.metadata?.labels?.app, 'worker', 'labels merge: the Job keeps its own');
      assert.equal(resumed.spec.template.metadata?.labels?.queue, 'gpu');
      assert.deepEqual(resumed.spec.template.metadata?.annotations, { keep: 'me', added: 'yes' });
      assert.deepEqual(resumed.spec.template.spec?.nodeSelector, { keep: 'yes', pool: 'gpu' }, 'the removed key deleted, the others merged');
      assert.deepEqual(resumed.spec.template.spec?.tolerations, [b], 'a merge patch replaces a list');
      assert.deepEqual(resumed.spec.template.spec?.schedulingGates, [{ name: 'example.com/gate' }]);
    });

    for (const clearStartTime of [false, true]) {
      it(`ResumeJob changing the template while the suspended Job still has pods is a ConflictError caused by the 422 on spec.template (clearStartTime ${clearStartTime})`, async () => {
        // Prepare: ran, then suspended, but the Job controller has not removed its pods yet.
        const world = await makeWorld();
        await world.createJob(jobNamed(world.namespace, 'not-yet-suspended', { suspend: false }));
        await world.writeJobStatus('not-yet-suspended', () => ({ startTime: stamp(world), active: 1 }));
        await apply(world, LOOSE, { kind: 'SuspendJob', name: 'not-yet-suspended', replicatedJob: 'workers', resourceVersion: undefined });
        // Act
        const error = await expectError(
          apply(world, LOOSE, {
            kind: 'ResumeJob',
            name: 'not-yet-suspended',
            replicatedJob: 'workers',
            resourceVersion: undefined,
            clearStartTime,
            podTemplate: { labels: { app: 'worker', extra: 'label' }, annotations: { keep: 'me' }, nodeSelector: {}, nodeSelectorRemoved: [], tolerations: [], schedulingGates: [] },
          }),
          ConflictError,
          ErrorCode.STALE_RESOURCE_VERSION,
        );
        // Assess: the server's refusal is the cause; the Job stays suspended with its template.
        assert.ok(error.cause instanceof InvalidObjectError, `cause: ${String(error.cause)}`);
        assert.ok(causePaths(error.cause).includes('spec.template'), JSON.stringify(error.cause.causes));
        const job = await world.getJob('not-yet-suspended');
        assert.equal(job?.spec.suspend, true);
        assert.equal(job?.spec.template.metadata?.labels?.extra, undefined);
      });
    }

    it('ResumeJob clearing the startTime of a finished Job is the InvalidObjectError the status rules give (status.startTime)', async () => {
      // Prepare: a suspended Job that ran to completion.
      const world = await makeWorld();
      await world.createJob(jobNamed(world.namespace, 'finished'));
      const done = await world.writeJobStatus('finished', () => ({
        startTime: stamp(world),
        completionTime: stamp(world, 5),
        succeeded: 1,
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: stamp(world, 5), lastTransitionTime: stamp(world, 5) },
          { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: stamp(world, 5), lastTransitionTime: stamp(world, 5) },
        ],
      }));
      // Act
      const error = await expectError(
        apply(world, LOOSE, { kind: 'ResumeJob', name: 'finished', replicatedJob: 'workers', resourceVersion: done.metadata.resourceVersion, clearStartTime: true, podTemplate: undefined }),
        InvalidObjectError,
        ErrorCode.INVALID_OBJECT,
      );
      // Assess
      assert.deepEqual(causePaths(error), ['status.startTime']);
      assert.match(error.message, /^job \S+\/finished status: /);
      assert.equal((await world.getJob('finished'))?.status?.startTime, done.status?.startTime);
    });
  });

  describe('Job status rules', () => {
    it('a Job status written as finished without startTime is refused as invalid (status.startTime)', async () => {
      const world = await makeWorld();
      await world.createJob(jobNamed(world.namespace, 'never-started'));
      const error = await expectError(
        world.writeJobStatus('never-started', () => ({
          failed: 1,
          conditions: [
            { type: 'FailureTarget', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: stamp(world), lastTransitionTime: stamp(world) },
            { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: stamp(world), lastTransitionTime: stamp(world) },
          ],
        })),
        InvalidObjectError,
        ErrorCode.INVALID_OBJECT,
      );
      assert.deepEqual(causePaths(error), ['status.startTime']);
      assert.match(error.causes[0]?.message ?? '', /^Required value: startTime is required for finished job/);
      assert.deepEqual((await world.getJob('never-started'))?.status?.conditions ?? [], []);
    });
  });

  describe('JobSet status', () => {
    it('UpdateJobSetStatus replaces the status subresource, conditionally and unconditionally, and leaves the spec alone', async () => {
      // Prepare
      const world = await makeWorld();
      const created = await world.createJobSet(simpleJobSet(world, 'with-status'));
      const condition = { type: 'StartupPolicyCompleted', status: 'True' as const, reason: 'DependsOnStartupCompleted', message: 'done', lastTransitionTime: stamp(world) };
      const workers = { name: 'workers', ready: 1, succeeded: 0, failed: 0, active: 2, suspended: 0 };
      // Act
      await apply(world, 'with-status', { kind: 'UpdateJobSetStatus', resourceVersion: created.metadata.resourceVersion, status: { restarts: 1, conditions: [condition], replicatedJobsStatus: [workers] } });
      // Assess
      const written = await world.getJobSet('with-status');
      assert.equal(written?.status?.restarts, 1);
      assert.deepEqual(written?.status?.conditions, [condition]);
      assert.deepEqual(written?.status?.replicatedJobsStatus, [workers]);
      assert.deepEqual(written?.spec.replicatedJobs?.map((rjob) => rjob.name), ['workers']);
      assert.equal(written?.metadata.generation, created.metadata.generation, 'a status write is no spec change');
      // Act + Assess: without a resourceVersion the status is replaced whole.
      await apply(world, 'with-status', { kind: 'UpdateJobSetStatus', resourceVersion: undefined, status: { restarts: 3 } });
      const replaced = await world.getJobSet('with-status');
      assert.equal(replaced?.status?.restarts, 3);
      assert.equal(replaced?.status?.conditions, undefined);
    });

    it('UpdateJobSetStatus with a condition the CRD schema refuses is an InvalidObjectError naming the fields, and writes nothing', async () => {
      const world = await makeWorld();
      const created = await world.createJobSet(simpleJobSet(world, 'bad-status'));
      const status = { conditions: [{ type: 'Completed', status: 'True' as const, message: 'jobset completed', lastTransitionTime: stamp(world) }] };
      const error = await expectError(
        apply(world, 'bad-status', { kind: 'UpdateJobSetStatus', resourceVersion: created.metadata.resourceVersion, status }),
        InvalidObjectError,
        ErrorCode.INVALID_OBJECT,
      );
      assert.deepEqual(causePaths(error), ['status.conditions[0].reason']);
      assert.equal((await world.getJobSet('bad-status'))?.metadata.resourceVersion, created.metadata.resourceVersion);
    });

    it('PatchJobSetAnnotations sets keys and deletes those given as null', async () => {
      const world = await makeWorld();
      await world.createJobSet(simpleJobSet(world, 'annotated'));
      await apply(world, 'annotated', { kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { 'example.com/a': '1', 'example.com/b': '2' } });
      await apply(world, 'annotated', { kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { 'example.com/a': null } });
      const stored = await world.getJobSet('annotated');
      assert.equal(stored?.metadata.annotations?.['example.com/a'], undefined);
      assert.equal(stored?.metadata.annotations?.['example.com/b'], '2');
    });
  });

  describe('finalizers and deletion', () => {
    it('RemoveJobFinalizer removes only its finalizer, writes nothing when it is absent, and lets a deleted Job go', async () => {
      // Prepare
      const world = await makeWorld();
      const other = 'example.com/keep';
      await world.createJob(jobNamed(world.namespace, 'held', { finalizers: [LineupKey.FinishedRecordFinalizer, other] }));
      // Act + Assess
      await apply(world, LOOSE, { kind: 'RemoveJobFinalizer', name: 'held', resourceVersion: undefined, finalizer: LineupKey.FinishedRecordFinalizer });
      const kept = await world.getJob('held');
      assert.deepEqual(kept?.metadata.finalizers, [other]);
      await apply(world, LOOSE, { kind: 'RemoveJobFinalizer', name: 'held', resourceVersion: undefined, finalizer: LineupKey.FinishedRecordFinalizer });
      assert.equal((await world.getJob('held'))?.metadata.resourceVersion, kept?.metadata.resourceVersion);
      // Prepare: a deleted Job held only by Lineup's finalizer.
      const held = await world.createJob(jobNamed(world.namespace, 'held-deleted', { finalizers: [LineupKey.FinishedRecordFinalizer] }));
      await apply(world, LOOSE, { kind: 'DeleteJob', name: 'held-deleted', uid: held.metadata.uid, propagation: 'Background', reason: 'test' });
      const deleting = await world.getJob('held-deleted');
      assert.ok(deleting?.metadata.deletionTimestamp);
      // Act + Assess
      await apply(world, LOOSE, { kind: 'RemoveJobFinalizer', name: 'held-deleted', resourceVersion: deleting.metadata.resourceVersion, finalizer: LineupKey.FinishedRecordFinalizer });
      assert.equal(await world.getJob('held-deleted'), undefined);
    });

    it('DeleteJob in the background removes a Job without finalizers at once; in the foreground it marks it for the garbage collector', async () => {
      const world = await makeWorld();
      const background = await world.createJob(jobNamed(world.namespace, 'delete-bg'));
      const foreground = await world.createJob(jobNamed(world.namespace, 'delete-fg'));
      await apply(world, LOOSE, { kind: 'DeleteJob', name: 'delete-bg', uid: background.metadata.uid, propagation: 'Background', reason: 'test' });
      await apply(world, LOOSE, { kind: 'DeleteJob', name: 'delete-fg', uid: foreground.metadata.uid, propagation: 'Foreground', reason: 'test' });
      assert.equal(await world.getJob('delete-bg'), undefined);
      const deleting = await world.getJob('delete-fg');
      assert.ok(deleting?.metadata.deletionTimestamp);
      assert.ok(deleting.metadata.finalizers?.includes('foregroundDeletion'));
    });

    it('DeleteJobSet with its uid deletes it in the foreground: gone, or marked for the garbage collector', async () => {
      const world = await makeWorld();
      const created = await world.createJobSet(simpleJobSet(world, 'expired'));
      await apply(world, 'expired', { kind: 'DeleteJobSet', uid: created.metadata.uid, propagation: 'Foreground' });
      const after = await world.getJobSet('expired');
      assert.ok(after === undefined || after.metadata.deletionTimestamp !== undefined, 'deleted or being deleted');
    });
  });

  describe('events', () => {
    it('EmitEvent records an Event on the JobSet with its type, reason and message, cut to the API limit', async () => {
      const world = await makeWorld();
      await world.createJobSet(simpleJobSet(world, 'eventful'));
      const long = `${'é'.repeat(EVENT_NOTE_MAX_BYTES)}end`;
      await apply(world, 'eventful', { kind: 'EmitEvent', eventType: 'Normal', reason: 'InOrderStartupPolicyInProgress', message: 'in order startup policy is in progress' });
      await apply(world, 'eventful', { kind: 'EmitEvent', eventType: 'Warning', reason: 'JobCreationFailed', message: long });
      const events = await world.events('eventful');
      const byReason = (reason: string): RecordedEvent | undefined => events.find((event) => event.reason === reason);
      assert.equal(events.length, 2);
      assert.equal(byReason('InOrderStartupPolicyInProgress')?.type, 'Normal');
      assert.equal(byReason('InOrderStartupPolicyInProgress')?.message, 'in order startup policy is in progress');
      assert.equal(byReason('JobCreationFailed')?.type, 'Warning');
      const cut = byReason('JobCreationFailed')?.message ?? '';
      assert.ok(Buffer.byteLength(cut, 'utf8') <= EVENT_NOTE_MAX_BYTES, `message of ${Buffer.byteLength(cut, 'utf8')} bytes`);
      assert.ok(cut.startsWith('éé') && cut.endsWith('…'));
    });
  });
};
