import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JOBSET_API_VERSION, Label, LineupKey } from '../../lib/jobset/api.ts';
import { AlreadyExistsError, ConflictError, ErrorCode, InvalidObjectError, NotFoundError } from '../../lib/errors.ts';
import type { Job, JobSet, JobStatus } from '../../lib/jobset/schema.ts';
import type { Action } from '../../lib/plan/types.ts';
import { loadBehaviour, resolveBehaviour } from '../../lib/sim/behaviour.ts';
import { SimCluster, toTimestamp } from '../../lib/sim/cluster.ts';
import { FOREGROUND_FINALIZER, POD_TERMINATION_MS, SIM_EPOCH_MS } from '../../lib/sim/constants.ts';
import { jobStatusViolations } from '../../lib/sim/jobStatusRules.ts';
import { EventQueue } from '../../lib/sim/queue.ts';
import { makeJobSet } from '../builders.ts';

const NS = 'default';
const JS = 'js';

/** makeJob: a child Job of JobSet `js` the way the planner builds one, with only what the cluster reads. */
const makeJob = (name: string, options: { suspend?: boolean; parallelism?: number; completions?: number; ttl?: number; finalizers?: string[]; rjob?: string } = {}): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name,
    namespace: NS,
    labels: { [Label.JobSetName]: JS, [Label.ReplicatedJobName]: options.rjob ?? 'workers', [Label.RestartAttempt]: '0' },
    ownerReferences: [{ apiVersion: JOBSET_API_VERSION, kind: 'JobSet', name: JS, uid: `uid-${JS}`, controller: true, blockOwnerDeletion: true }],
    ...(options.finalizers ? { finalizers: options.finalizers } : {}),
  },
  spec: {
    parallelism: options.parallelism ?? 1,
    completions: options.completions ?? options.parallelism ?? 1,
    suspend: options.suspend ?? false,
    ...(options.ttl === undefined ? {} : { ttlSecondsAfterFinished: options.ttl }),
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main' }] } },
  },
});

/** setup: a queue and a cluster whose Jobs follow the given behaviour file. */
const setup = (behaviourYaml = 'default: {readyAfter: 1s, succeedAfter: 5s}') => {
  const queue = new EventQueue();
  const behaviour = loadBehaviour(behaviourYaml, 'test-behaviour.yaml');
  const changes: string[] = [];
  const cluster = new SimCluster({ queue, timing: (job) => resolveBehaviour(behaviour, job), onChange: (ns, name) => changes.push(`${ns}/${name}`) });
  const jobSet: JobSet = makeJobSet(JS, NS).replicatedJob('workers', 2).obj();
  cluster.createJobSet(jobSet, 0);
  /** at: run the cluster up to virtual time t. */
  const at = (t: number): void => queue.runUntil(t);
  const job = (name: string): Job => {
    const found = cluster.getJob(NS, name);
    assert.ok(found, `job ${name} should exist`);
    return found;
  };
  const apply = (action: Action): void => cluster.apply(NS, JS, action, queue.now());
  const types = (name: string) => cluster.timeline(NS, JS).filter((entry) => entry.job === name).map((entry) => `${entry.at} ${entry.type}`);
  return { queue, cluster, at, job, apply, types, changes };
};

const conditionTypes = (job: Job): string[] => (job.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
const resume = (name: string, resourceVersion?: string, clearStartTime = true): Action => ({
  kind: 'ResumeJob',
  name,
  replicatedJob: 'workers',
  resourceVersion,
  clearStartTime,
  podTemplate: undefined,
});

describe('sim/cluster', () => {
  describe('the Job controller', () => {
    it('starts a Job created unsuspended at once: startTime, active = parallelism, no ready pods yet', () => {
      // Prepare
      const { cluster, at, job } = setup();
      // Act
      cluster.createJob(makeJob('js-workers-0', { parallelism: 3, completions: 2 }), 0);
      at(0);
      // Assess
      assert.deepEqual(job('js-workers-0').status, { startTime: toTimestamp(0), active: 3, ready: 0 });
    });

    it('makes a Job ready after readyAfter, with min(parallelism, completions) pods ready', () => {
      const { cluster, at, job } = setup();
      cluster.createJob(makeJob('js-workers-0', { parallelism: 3, completions: 2 }), 0);
      at(999);
      assert.equal(job('js-workers-0').status?.ready, 0);
      at(1_000);
      assert.equal(job('js-workers-0').status?.ready, 2);
      assert.equal(job('js-workers-0').status?.active, 3);
    });

    it('completes a Job after succeedAfter the way a 1.32+ Job controller does', () => {
      const { cluster, at, job, types } = setup();
      cluster.createJob(makeJob('js-workers-0', { parallelism: 2, completions: 4 }), 0);
      at(4_999);
      assert.deepEqual(conditionTypes(job('js-workers-0')), []);
      at(5_000);
      const status = job('js-workers-0').status;
      assert.deepEqual(conditionTypes(job('js-workers-0')), ['SuccessCriteriaMet=True', 'Complete=True']);
      assert.equal(status?.succeeded, 4);
      assert.equal(status?.active, 0);
      assert.equal(status?.ready, 0);
      assert.equal(status?.completionTime, toTimestamp(5_000));
      assert.deepEqual(types('js-workers-0'), ['0 JobCreated', '1000 JobReady', '5000 JobSucceeded']);
    });

    it('fails a Job after failAfter with FailureTarget then Failed, carrying the behaviour reason and message', () => {
      const { cluster, at, job, types } = setup('jobs: {js-workers-0: {failAfter: 3s, failReason: PodFailurePolicy, failMessage: exit 42}}');
      cluster.createJob(makeJob('js-workers-0'), 0);
      at(3_000);
      const current = job('js-workers-0');
      assert.deepEqual(conditionTypes(current), ['FailureTarget=True', 'Failed=True']);
      assert.deepEqual(
        current.status?.conditions?.map((c) => [c.reason, c.message]),
        [
          ['PodFailurePolicy', 'exit 42'],
          ['PodFailurePolicy', 'exit 42'],
        ],
      );
      assert.equal(current.status?.failed, 1);
      assert.equal(current.status?.active, 0);
      assert.equal(current.status?.completionTime, undefined);
      assert.deepEqual(types('js-workers-0'), ['0 JobCreated', '1000 JobReady', '3000 JobFailed']);
    });

    const races: { name: string; behaviour: string; want: string[] }[] = [
      { name: 'failure wins a tie with success', behaviour: 'default: {readyAfter: 1s, succeedAfter: 4s, failAfter: 4s}', want: ['0 JobCreated', '1000 JobReady', '4000 JobFailed'] },
      { name: 'a Job that finishes before it would be ready never reports ready', behaviour: 'default: {readyAfter: 5s, succeedAfter: 2s}', want: ['0 JobCreated', '2000 JobSucceeded'] },
      { name: 'a Job that never succeeds or fails stays ready', behaviour: 'default: {readyAfter: 1s, succeedAfter: never}', want: ['0 JobCreated', '1000 JobReady'] },
      { name: 'readyAfter 0 makes a Job ready at its start', behaviour: 'default: {readyAfter: 0, succeedAfter: 2s}', want: ['0 JobCreated', '0 JobReady', '2000 JobSucceeded'] },
    ];
    for (const tc of races) {
      it(tc.name, () => {
        const { cluster, at, types } = setup(tc.behaviour);
        cluster.createJob(makeJob('js-workers-0'), 0);
        at(3_600_000);
        assert.deepEqual(types('js-workers-0'), tc.want);
      });
    }

    it('leaves a Job created suspended without pods and marks it Suspended', () => {
      const { cluster, at, job, types } = setup();
      cluster.createJob(makeJob('js-workers-0', { suspend: true }), 0);
      at(60_000);
      const current = job('js-workers-0');
      assert.equal(current.status?.startTime, undefined);
      assert.equal(current.status?.active, 0);
      assert.deepEqual(conditionTypes(current), ['Suspended=True']);
      assert.equal(current.status?.conditions?.[0]?.reason, 'JobSuspended');
      assert.deepEqual(types('js-workers-0'), ['0 JobCreated']);
    });

    it('kills the pods of a Job that gets suspended and cancels its timers', () => {
      // Prepare
      const { cluster, at, job, apply, types } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      at(2_000);
      // Act
      apply({ kind: 'SuspendJob', name: 'js-workers-0', replicatedJob: 'workers', resourceVersion: job('js-workers-0').metadata.resourceVersion });
      at(60_000);
      // Assess
      const current = job('js-workers-0');
      assert.equal(current.status?.active, 0);
      assert.equal(current.status?.ready, 0);
      assert.deepEqual(conditionTypes(current), ['Suspended=True']);
      assert.deepEqual(types('js-workers-0'), ['0 JobCreated', '1000 JobReady', '2000 JobSuspended']);
    });

    it('restarts the timers from the resume time, with a new startTime when the resume cleared it', () => {
      // Prepare
      const { cluster, at, job, apply, types, queue } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      at(2_000);
      apply({ kind: 'SuspendJob', name: 'js-workers-0', replicatedJob: 'workers', resourceVersion: undefined });
      at(7_000);
      // Act
      apply(resume('js-workers-0', job('js-workers-0').metadata.resourceVersion));
      at(queue.now());
      // Assess
      assert.equal(job('js-workers-0').status?.startTime, toTimestamp(7_000));
      assert.deepEqual(conditionTypes(job('js-workers-0')), ['Suspended=False']);
      assert.equal(job('js-workers-0').status?.conditions?.[0]?.reason, 'JobResumed');
      at(60_000);
      assert.deepEqual(types('js-workers-0'), ['0 JobCreated', '1000 JobReady', '2000 JobSuspended', '7000 JobResumed', '8000 JobReady', '12000 JobSucceeded']);
    });

    it('merges the pod template on resume of a Job that never started', () => {
      const { cluster, at, job, apply } = setup();
      cluster.createJob(makeJob('js-workers-0', { suspend: true }), 0);
      at(0);
      apply({
        ...resume('js-workers-0'),
        podTemplate: { labels: { team: 'a' }, annotations: {}, nodeSelector: { pool: 'gpu' }, nodeSelectorRemoved: [], tolerations: [{ key: 'gpu', operator: 'Exists' }], schedulingGates: [] },
      } as Action);
      const template = job('js-workers-0').spec.template;
      assert.equal(template.metadata?.labels?.team, 'a');
      assert.equal(template.spec?.nodeSelector?.pool, 'gpu');
      assert.deepEqual(template.spec?.tolerations, [{ key: 'gpu', operator: 'Exists' }]);
      assert.equal(job('js-workers-0').spec.suspend, false);
    });

    const templateChange = (clearStartTime: boolean): Action => ({
      ...resume('js-workers-0', undefined, clearStartTime),
      podTemplate: { labels: { team: 'a' }, annotations: {}, nodeSelector: {}, nodeSelectorRemoved: [], tolerations: [], schedulingGates: [] },
    }) as Action;

    for (const clearStartTime of [false, true]) {
      it(`refuses a pod template change while the suspended Job still has pods, as a conflict to re-plan (clearStartTime ${clearStartTime})`, () => {
        // Prepare: suspended, but the Job controller has not run since (pods still active).
        const { cluster, at, job, apply } = setup();
        cluster.createJob(makeJob('js-workers-0'), 0);
        at(2_000);
        apply({ kind: 'SuspendJob', name: 'js-workers-0', replicatedJob: 'workers', resourceVersion: undefined });
        // Act + Assess: the server's 422 on spec.template, reported as the real gateway reports it.
        assert.throws(
          () => apply(templateChange(clearStartTime)),
          (error: unknown) =>
            error instanceof ConflictError &&
            error.cause instanceof InvalidObjectError &&
            error.cause.causes.some((cause) => cause.path === 'spec.template'),
        );
        assert.equal(job('js-workers-0').spec.suspend, true);
        assert.equal(job('js-workers-0').spec.template.metadata?.labels?.team, undefined);
      });
    }

    it('lets the pod template of a started Job change once the Job controller marked it Suspended (1.36)', () => {
      const { cluster, at, job, apply } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      at(2_000);
      apply({ kind: 'SuspendJob', name: 'js-workers-0', replicatedJob: 'workers', resourceVersion: undefined });
      at(3_000);
      apply(templateChange(false));
      assert.equal(job('js-workers-0').spec.template.metadata?.labels?.team, 'a');
      assert.equal(job('js-workers-0').spec.suspend, false);
    });

    it('replaces the tolerations and scheduling gates with the lists sent, as a merge patch does', () => {
      const { cluster, at, job, apply } = setup();
      const gpu = { key: 'gpu', operator: 'Exists' };
      cluster.createJob({ ...makeJob('js-workers-0', { suspend: true }), spec: { ...makeJob('js-workers-0', { suspend: true }).spec, template: { spec: { tolerations: [gpu], schedulingGates: [{ name: 'old' }] } } } }, 0);
      at(0);
      apply({ ...resume('js-workers-0'), podTemplate: { labels: {}, annotations: {}, nodeSelector: {}, nodeSelectorRemoved: [], tolerations: [], schedulingGates: [{ name: 'new' }] } } as Action);
      assert.deepEqual(job('js-workers-0').spec.template.spec?.tolerations, []);
      assert.deepEqual(job('js-workers-0').spec.template.spec?.schedulingGates, [{ name: 'new' }]);
    });
  });

  describe('the 1.32+ Job status rules', () => {
    const startedAt = toTimestamp(1_000);
    const running: Job = { ...makeJob('j'), status: { startTime: startedAt, active: 1 } };
    const suspended: Job = { ...makeJob('j', { suspend: true }), status: { startTime: startedAt, active: 0 } };
    const complete = (extra: Partial<JobStatus> = {}): JobStatus => ({
      startTime: startedAt,
      completionTime: toTimestamp(5_000),
      succeeded: 1,
      active: 0,
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True' },
        { type: 'Complete', status: 'True' },
      ],
      ...extra,
    });
    const failed = (extra: Partial<JobStatus> = {}): JobStatus => ({
      startTime: startedAt,
      failed: 1,
      active: 0,
      conditions: [
        { type: 'FailureTarget', status: 'True' },
        { type: 'Failed', status: 'True' },
      ],
      ...extra,
    });
    // `path` and `mentions`: the field cause a 1.36 API server lists (pkg/apis/batch/validation).
    const invalid: { name: string; old: Job; next: JobStatus; path: string; mentions: string }[] = [
      { name: 'Complete without completionTime', old: running, next: complete({ completionTime: undefined }), path: 'status.completionTime', mentions: 'completionTime is required for Complete jobs' },
      { name: 'completionTime on a Job that is not Complete', old: running, next: { ...running.status, completionTime: toTimestamp(5_000) }, path: 'status.completionTime', mentions: 'no Complete=True condition' },
      { name: 'completionTime before startTime', old: running, next: complete({ completionTime: toTimestamp(0) }), path: 'status.completionTime', mentions: 'after `startTime`' },
      { name: 'a finished Job without startTime', old: makeJob('j'), next: failed({ startTime: undefined }), path: 'status.startTime', mentions: 'Required value: startTime is required for finished job' },
      { name: 'Complete without SuccessCriteriaMet', old: running, next: complete({ conditions: [{ type: 'Complete', status: 'True' }] }), path: 'status.conditions', mentions: 'without the SuccessCriteriaMet=true condition' },
      { name: 'Failed without FailureTarget', old: running, next: failed({ conditions: [{ type: 'Failed', status: 'True' }] }), path: 'status.conditions', mentions: 'without the FailureTarget=true condition' },
      { name: 'active pods on a finished Job', old: running, next: complete({ active: 1 }), path: 'status.active', mentions: 'active>0 is invalid for finished job' },
      { name: 'more ready pods than active', old: running, next: { ...running.status, ready: 2 }, path: 'status.ready', mentions: 'more ready pods than active' },
      { name: 'succeeded going down', old: { ...running, status: { ...running.status, succeeded: 2 } }, next: { ...running.status, succeeded: 1 }, path: 'status.succeeded', mentions: 'cannot decrease the succeeded counter' },
      { name: 'failed going down', old: { ...running, status: { ...running.status, failed: 2 } }, next: { ...running.status, failed: 0 }, path: 'status.failed', mentions: 'cannot decrease the failed counter' },
      { name: 'a changed completionTime', old: { ...running, status: complete() }, next: complete({ completionTime: toTimestamp(9_000) }), path: 'status.completionTime', mentions: 'field is immutable' },
      { name: 'a changed startTime on an unsuspended Job', old: running, next: { ...running.status, startTime: toTimestamp(3_000) }, path: 'status.startTime', mentions: 'immutable for unsuspended job' },
      { name: 'a cleared startTime on an unsuspended Job', old: running, next: { active: 1 }, path: 'status.startTime', mentions: 'immutable for unsuspended job' },
      { name: 'a removed Complete condition', old: { ...running, status: complete() }, next: complete({ conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }], completionTime: undefined }), path: 'status.conditions', mentions: 'terminal Complete=True' },
      { name: 'a removed Failed condition', old: { ...running, status: failed() }, next: failed({ conditions: [{ type: 'FailureTarget', status: 'True' }] }), path: 'status.conditions', mentions: 'terminal Failed=True' },
      { name: 'Complete with Failed', old: running, next: complete({ conditions: [...(complete().conditions ?? []), { type: 'FailureTarget', status: 'True' }, { type: 'Failed', status: 'True' }] }), path: 'status.conditions', mentions: 'Complete=True and Failed=true' },
    ];
    for (const tc of invalid) {
      it(`rejects ${tc.name}`, () => {
        const causes = jobStatusViolations(tc.old, tc.next);
        assert.ok(
          causes.some((cause) => cause.path === tc.path && cause.message.includes(tc.mentions)),
          `${tc.path}: …${tc.mentions} not in ${JSON.stringify(causes)}`,
        );
      });
    }

    const valid: { name: string; old: Job | undefined; next: JobStatus }[] = [
      { name: 'an empty status on create', old: undefined, next: {} },
      { name: 'a start', old: makeJob('j'), next: { startTime: startedAt, active: 1 } },
      { name: 'a completion', old: running, next: complete() },
      { name: 'a failure', old: running, next: failed() },
      { name: 'clearing the startTime of a suspended Job (upstream resume)', old: suspended, next: { active: 0 } },
      { name: 'setting the startTime of a Job that had none', old: makeJob('j'), next: { startTime: toTimestamp(9_000), active: 1 } },
      {
        name: 'a new startTime while the Job controller resumes it (Suspended True → False)',
        old: { ...makeJob('j'), status: { startTime: startedAt, conditions: [{ type: 'Suspended', status: 'True' }] } },
        next: { startTime: toTimestamp(9_000), active: 1, conditions: [{ type: 'Suspended', status: 'False' }] },
      },
      {
        name: 'an unrelated write to a status that already breaks a rule (rules watch the fields they check)',
        old: { ...running, status: { ...complete(), active: 1 } },
        next: { ...complete(), active: 1, ready: 0 },
      },
      { name: 'a suspended Job of zero completions finishing without startTime', old: makeJob('j', { suspend: true, completions: 0 }), next: complete({ startTime: undefined, completionTime: toTimestamp(5_000) }) },
    ];
    for (const tc of valid) {
      it(`accepts ${tc.name}`, () => {
        assert.deepEqual(jobStatusViolations(tc.old, tc.next), []);
      });
    }

    it('runs on every Job status write the store takes', () => {
      const { cluster, at } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      at(2_000);
      assert.throws(
        () => cluster.writeJobStatus(NS, 'js-workers-0', { active: 1, conditions: [{ type: 'Complete', status: 'True' }] }, 2_000),
        (error: unknown) =>
          error instanceof InvalidObjectError &&
          error.code === ErrorCode.INVALID_OBJECT &&
          error.causes.length >= 2 &&
          error.message.startsWith(`job ${NS}/js-workers-0 status: Job.batch "js-workers-0" is invalid: [`),
      );
    });
  });

  describe('writes the API server refuses', () => {
    it('refuses a create of a Job whose name is taken (AlreadyExists, not a conflict)', () => {
      const { cluster, apply } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      assert.throws(
        () => apply({ kind: 'CreateJob', job: makeJob('js-workers-0'), replicatedJob: 'workers' }),
        (error: unknown) => error instanceof AlreadyExistsError && error.code === ErrorCode.ALREADY_EXISTS && !(error instanceof ConflictError),
      );
    });

    it('takes a create of a Service whose name is taken as done, without a write (as the real gateway does)', () => {
      const { cluster, apply } = setup();
      const service = { metadata: { name: JS, namespace: NS }, spec: { clusterIP: 'None' } };
      apply({ kind: 'CreateService', service });
      const stored = cluster.getService(NS, JS);
      const writes = cluster.writes();
      apply({ kind: 'CreateService', service: { ...service, spec: { clusterIP: 'None', selector: { other: 'x' } } } });
      assert.equal(cluster.getService(NS, JS), stored);
      assert.equal(cluster.writes(), writes);
    });

    const stale: { name: string; action: (rv: string) => Action; target: 'job' | 'jobset' }[] = [
      { name: 'ResumeJob', target: 'job', action: (rv) => resume('js-workers-0', rv) },
      { name: 'SuspendJob', target: 'job', action: (rv) => ({ kind: 'SuspendJob', name: 'js-workers-0', replicatedJob: 'workers', resourceVersion: rv }) },
      { name: 'RemoveJobFinalizer', target: 'job', action: (rv) => ({ kind: 'RemoveJobFinalizer', name: 'js-workers-0', resourceVersion: rv, finalizer: LineupKey.FinishedRecordFinalizer }) },
      { name: 'PatchJobSetAnnotations', target: 'jobset', action: (rv) => ({ kind: 'PatchJobSetAnnotations', resourceVersion: rv, annotations: { a: 'b' } }) },
      { name: 'UpdateJobSetStatus', target: 'jobset', action: (rv) => ({ kind: 'UpdateJobSetStatus', resourceVersion: rv, status: { restarts: 0 } }) },
    ];
    for (const tc of stale) {
      it(`refuses ${tc.name} computed from a stale resourceVersion, and takes it from the current one`, () => {
        // Prepare: a Job and JobSet that changed after they were read.
        const { cluster, at, apply } = setup();
        cluster.createJob(makeJob('js-workers-0', { suspend: true, finalizers: [LineupKey.FinishedRecordFinalizer] }), 0);
        const read = () => (tc.target === 'job' ? cluster.getJob(NS, 'js-workers-0') : cluster.getJobSet(NS, JS))?.metadata.resourceVersion ?? '';
        const staleVersion = read();
        at(0); // the Job controller writes the Suspended condition
        if (tc.target === 'jobset') apply({ kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { touched: 'yes' } });
        // Act / Assess
        assert.notEqual(read(), staleVersion);
        assert.throws(() => apply(tc.action(staleVersion)), ConflictError);
        apply(tc.action(read()));
      });
    }

    it('refuses a delete whose uid precondition names another incarnation of the Job', () => {
      const { cluster, apply } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      assert.throws(() => apply({ kind: 'DeleteJob', name: 'js-workers-0', uid: 'someone-else', propagation: 'Background', reason: 'test' }), ConflictError);
    });

    it('answers NotFound for a write to a missing Job, and treats a delete of one, or a finalizer removal from one, as done', () => {
      const { apply } = setup();
      assert.throws(() => apply(resume('js-nothing-0')), NotFoundError);
      apply({ kind: 'DeleteJob', name: 'js-nothing-0', uid: undefined, propagation: 'Foreground', reason: 'test' });
      apply({ kind: 'RemoveJobFinalizer', name: 'js-nothing-0', resourceVersion: '1', finalizer: LineupKey.FinishedRecordFinalizer });
    });
  });

  describe('deletion', () => {
    it('keeps a Job deleted in the foreground until its pods are gone, then removes it', () => {
      // Prepare
      const { cluster, at, job, apply, types } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      at(2_000);
      // Act
      apply({ kind: 'DeleteJob', name: 'js-workers-0', uid: job('js-workers-0').metadata.uid, propagation: 'Foreground', reason: 'previous restart attempt' });
      // Assess
      const deleting = job('js-workers-0');
      assert.equal(deleting.metadata.deletionTimestamp, toTimestamp(2_000));
      assert.deepEqual(deleting.metadata.finalizers, [FOREGROUND_FINALIZER]);
      at(2_000 + POD_TERMINATION_MS - 1);
      assert.ok(cluster.getJob(NS, 'js-workers-0'));
      at(2_000 + POD_TERMINATION_MS);
      assert.equal(cluster.getJob(NS, 'js-workers-0'), undefined);
      assert.deepEqual(types('js-workers-0'), ['0 JobCreated', '1000 JobReady', `${2_000 + POD_TERMINATION_MS} JobDeleted`]);
      assert.equal(cluster.timeline(NS, JS).at(-1)?.message, 'previous restart attempt');
    });

    it('removes a foreground-deleted Job without pods at once', () => {
      const { cluster, at, apply } = setup();
      cluster.createJob(makeJob('js-workers-0', { suspend: true }), 0);
      at(1_000);
      apply({ kind: 'DeleteJob', name: 'js-workers-0', uid: undefined, propagation: 'Foreground', reason: 'test' });
      at(1_000);
      assert.equal(cluster.getJob(NS, 'js-workers-0'), undefined);
    });

    it('holds a foreground-deleted Job with another finalizer, pods gone, until that finalizer is removed', () => {
      const { cluster, at, job, apply } = setup();
      cluster.createJob(makeJob('js-workers-0', { finalizers: [LineupKey.FinishedRecordFinalizer] }), 0);
      at(2_000);
      apply({ kind: 'DeleteJob', name: 'js-workers-0', uid: undefined, propagation: 'Foreground', reason: 'test' });
      at(10_000);
      const held = job('js-workers-0');
      assert.deepEqual(held.metadata.finalizers, [LineupKey.FinishedRecordFinalizer]);
      assert.equal(held.status?.active, 0);
      apply({ kind: 'RemoveJobFinalizer', name: 'js-workers-0', resourceVersion: held.metadata.resourceVersion, finalizer: LineupKey.FinishedRecordFinalizer });
      assert.equal(cluster.getJob(NS, 'js-workers-0'), undefined);
    });

    it('removes a Job deleted in the background at once', () => {
      const { cluster, at, apply } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      at(2_000);
      apply({ kind: 'DeleteJob', name: 'js-workers-0', uid: undefined, propagation: 'Background', reason: 'test' });
      assert.equal(cluster.getJob(NS, 'js-workers-0'), undefined);
    });

    it('garbage-collects the Jobs and Service of a deleted JobSet, then removes the JobSet', () => {
      const { cluster, at, apply } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      cluster.createJob(makeJob('js-workers-1', { suspend: true }), 0);
      apply({ kind: 'CreateService', service: { metadata: { name: JS, namespace: NS, ownerReferences: [{ apiVersion: JOBSET_API_VERSION, kind: 'JobSet', name: JS, uid: `uid-${JS}`, controller: true }] } } });
      at(2_000);
      apply({ kind: 'DeleteJobSet', uid: `uid-${JS}`, propagation: 'Foreground' });
      assert.ok(cluster.getJobSet(NS, JS)?.metadata.deletionTimestamp);
      assert.equal(cluster.getService(NS, JS), undefined);
      at(2_000 + POD_TERMINATION_MS);
      assert.deepEqual(cluster.jobsOf(NS, JS), []);
      assert.equal(cluster.getJobSet(NS, JS), undefined);
    });
  });

  describe('volume claims', () => {
    const claim = (name: string, owned: boolean) => ({
      metadata: {
        name,
        namespace: NS,
        labels: { [Label.JobSetName]: JS },
        ...(owned ? { ownerReferences: [{ apiVersion: JOBSET_API_VERSION, kind: 'JobSet', name: JS, uid: `uid-${JS}`, controller: true, blockOwnerDeletion: true }] } : {}),
      },
      spec: { accessModes: ['ReadWriteOnce'] },
    });

    it('stores a created claim with a uid and resourceVersion, and records it on the timeline', () => {
      const { cluster, apply } = setup();
      apply({ kind: 'CreatePersistentVolumeClaim', claim: claim('model-js', true) });
      const stored = cluster.getPersistentVolumeClaim(NS, 'model-js');
      assert.ok(stored?.metadata.uid && stored.metadata.resourceVersion);
      assert.deepEqual(stored.spec, { accessModes: ['ReadWriteOnce'] });
      assert.deepEqual(
        cluster.timeline(NS, JS).map((entry) => [entry.type, entry.message]),
        [['VolumeClaimCreated', 'model-js (owned by the jobset)']],
      );
    });

    it('keeps the claim that exists when asked to create it again (upstream: PVC already exists and should not be created again)', () => {
      const { cluster, apply } = setup();
      apply({ kind: 'CreatePersistentVolumeClaim', claim: claim('model-js', true) });
      const first = cluster.getPersistentVolumeClaim(NS, 'model-js');
      apply({ kind: 'CreatePersistentVolumeClaim', claim: { ...claim('model-js', true), spec: { accessModes: ['ReadWriteMany'] } } });
      assert.equal(cluster.getPersistentVolumeClaim(NS, 'model-js'), first);
      assert.equal(cluster.timeline(NS, JS).length, 1, 'no second timeline entry');
    });

    it('garbage-collects the owned claims of a deleted JobSet and keeps the retained ones', () => {
      const { cluster, apply } = setup();
      apply({ kind: 'CreatePersistentVolumeClaim', claim: claim('model-js', true) });
      apply({ kind: 'CreatePersistentVolumeClaim', claim: claim('checkpoints-js', false) });
      apply({ kind: 'DeleteJobSet', uid: `uid-${JS}`, propagation: 'Foreground' });
      assert.equal(cluster.getPersistentVolumeClaim(NS, 'model-js'), undefined);
      assert.ok(cluster.getPersistentVolumeClaim(NS, 'checkpoints-js'));
    });
  });

  describe('ttlSecondsAfterFinished on a Job', () => {
    it('deletes a Job ttl seconds after it finished', () => {
      const { cluster, at, types } = setup();
      cluster.createJob(makeJob('js-workers-0', { ttl: 10 }), 0);
      at(14_999);
      assert.ok(cluster.getJob(NS, 'js-workers-0'));
      at(15_000);
      assert.equal(cluster.getJob(NS, 'js-workers-0'), undefined);
      assert.deepEqual(types('js-workers-0'), ['0 JobCreated', '1000 JobReady', '5000 JobSucceeded', '15000 JobDeleted']);
    });

    it('deletes a Job with ttl 0 as soon as it finished', () => {
      const { cluster, at } = setup();
      cluster.createJob(makeJob('js-workers-0', { ttl: 0 }), 0);
      at(5_000);
      assert.equal(cluster.getJob(NS, 'js-workers-0'), undefined);
    });

    it('leaves a Job whose finalizer is held marked for deletion until the finalizer goes', () => {
      const { cluster, at, job, apply } = setup();
      cluster.createJob(makeJob('js-workers-0', { ttl: 0, finalizers: [LineupKey.FinishedRecordFinalizer] }), 0);
      at(60_000);
      const held = job('js-workers-0');
      assert.equal(held.metadata.deletionTimestamp, toTimestamp(5_000));
      assert.deepEqual(held.metadata.finalizers, [LineupKey.FinishedRecordFinalizer]);
      apply({ kind: 'RemoveJobFinalizer', name: 'js-workers-0', resourceVersion: undefined, finalizer: LineupKey.FinishedRecordFinalizer });
      assert.equal(cluster.getJob(NS, 'js-workers-0'), undefined);
    });

    it('does not delete a re-created Job of the same name on the old Job\'s TTL', () => {
      const { cluster, at, apply } = setup('default: {readyAfter: 1s, succeedAfter: 5s}\njobs: {js-workers-0: {succeedAfter: 1m}}');
      cluster.createJob(makeJob('js-workers-0', { ttl: 100, suspend: false }), 0);
      at(1_000);
      apply({ kind: 'DeleteJob', name: 'js-workers-0', uid: undefined, propagation: 'Background', reason: 'test' });
      cluster.createJob(makeJob('js-workers-0', { suspend: true }), 1_000);
      at(200_000);
      assert.ok(cluster.getJob(NS, 'js-workers-0'));
    });
  });

  describe('observe and the JobSet', () => {
    it('observes the JobSet, the Jobs labelled with its name and the Service named after its subdomain', () => {
      const { cluster, apply, queue } = setup();
      cluster.createJob(makeJob('js-workers-0'), 0);
      cluster.createJob({ ...makeJob('other-0'), metadata: { name: 'other-0', namespace: NS, labels: { [Label.JobSetName]: 'other' } } }, 0);
      apply({ kind: 'CreateService', service: { metadata: { name: JS, namespace: NS } } });
      const observed = cluster.observe(NS, JS, queue.now());
      assert.ok(observed);
      assert.equal(observed.jobSet.metadata.name, JS);
      assert.deepEqual(observed.jobs.map((job) => job.metadata.name), ['js-workers-0']);
      assert.equal(observed.service?.metadata.name, JS);
      assert.equal(observed.now, Date.parse(toTimestamp(0)));
      assert.equal(cluster.observe(NS, 'missing', 0), undefined);
    });

    it('stamps objects and observes on the epoch it was given (the demo starts its at the wall clock), seconds precision', () => {
      // Prepare
      const queue = new EventQueue();
      const epochMs = Date.UTC(2031, 5, 15, 8, 30, 0);
      const cluster = new SimCluster({ queue, epochMs });
      // Act
      const created = cluster.createJobSet(makeJobSet(JS, NS).replicatedJob('workers', 1).obj(), 2_500);
      cluster.createJob(makeJob('js-workers-0'), 2_500);
      queue.runUntil(2_500);
      // Assess
      assert.equal(cluster.epochMs, epochMs);
      assert.equal(created.metadata.creationTimestamp, '2031-06-15T08:30:02Z');
      assert.equal(cluster.getJob(NS, 'js-workers-0')?.status?.startTime, toTimestamp(2_500, epochMs));
      assert.equal(cluster.observe(NS, JS, 2_500)?.now, epochMs + 2_500);
      assert.equal(new SimCluster({ queue: new EventQueue() }).epochMs, SIM_EPOCH_MS, 'simulate keeps the fixed epoch');
    });

    it('bumps the resourceVersion on every write and tells the listener which JobSet changed', () => {
      const { cluster, apply, changes } = setup();
      const before = cluster.writes();
      apply({ kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { a: '1', b: '2' } });
      apply({ kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { a: null } });
      assert.deepEqual(cluster.getJobSet(NS, JS)?.metadata.annotations, { b: '2' });
      assert.equal(cluster.writes(), before + 2);
      assert.equal(cluster.getJobSet(NS, JS)?.metadata.resourceVersion, String(before + 2));
      assert.deepEqual(changes, [`${NS}/${JS}`, `${NS}/${JS}`, `${NS}/${JS}`]);
    });

    it('records a ConditionChanged entry per changed condition and Rejected when Rejected turns True', () => {
      const { apply, cluster } = setup();
      const rejected = { type: 'Rejected', status: 'True' as const, reason: 'InvalidJobSet', message: 'spec.replicatedJobs[0].dependsOn: not allowed', lastTransitionTime: toTimestamp(0) };
      apply({ kind: 'UpdateJobSetStatus', resourceVersion: undefined, status: { conditions: [rejected] } });
      apply({ kind: 'UpdateJobSetStatus', resourceVersion: undefined, status: { conditions: [{ ...rejected, lastTransitionTime: toTimestamp(5_000) }] } });
      assert.deepEqual(cluster.timeline(NS, JS), [
        { at: 0, type: 'ConditionChanged', condition: { type: 'Rejected', status: 'True', reason: 'InvalidJobSet', message: rejected.message } },
        { at: 0, type: 'Rejected', message: rejected.message },
      ]);
    });

    // The paths, in order, are what kube-apiserver 1.36 with the JobSet CRD lists for the same status.
    const badStatuses: { name: string; status: NonNullable<JobSet['status']>; paths: string[] }[] = [
      {
        name: 'a condition status outside True/False/Unknown',
        status: { conditions: [{ type: 'Completed', status: 'Yes', reason: 'Done', message: '', lastTransitionTime: toTimestamp(0) }] } as unknown as NonNullable<JobSet['status']>,
        paths: ['status.conditions[0].status'],
      },
      { name: 'a condition without reason, message and lastTransitionTime', status: { conditions: [{ type: 'Completed', status: 'True' }] }, paths: ['status.conditions[0].lastTransitionTime', 'status.conditions[0].message', 'status.conditions[0].reason'] },
      { name: 'a reason that is not CamelCase', status: { conditions: [{ type: 'Completed', status: 'True', reason: 'all done', message: '', lastTransitionTime: toTimestamp(0) }] }, paths: ['status.conditions[0].reason'] },
      {
        name: 'two conditions of one type',
        status: { conditions: [0, 1].map(() => ({ type: 'Completed', status: 'True' as const, reason: 'Done', message: '', lastTransitionTime: toTimestamp(0) })) },
        paths: ['status.conditions[1]'],
      },
      {
        name: 'two replicatedJobsStatus entries of one name',
        status: { replicatedJobsStatus: [0, 1].map(() => ({ name: 'workers', ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0 })) },
        paths: ['status.replicatedJobsStatus[1]'],
      },
    ];
    for (const tc of badStatuses) {
      it(`refuses a JobSet status the CRD's schema refuses: ${tc.name}`, () => {
        const { apply, cluster } = setup();
        const before = cluster.getJobSet(NS, JS);
        assert.throws(
          () => apply({ kind: 'UpdateJobSetStatus', resourceVersion: undefined, status: tc.status }),
          (error: unknown) => error instanceof InvalidObjectError && assert.deepEqual(error.causes.map((cause) => cause.path), tc.paths) === undefined,
        );
        assert.equal(cluster.getJobSet(NS, JS), before, 'nothing written');
      });
    }
  });
});
