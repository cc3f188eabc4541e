/**
 * Child Jobs: finished detection (upstream JobFinished), bucketing (getChildJobs) and counters
 * (calculateReplicatedJobStatuses), as upstream's jobset_controller.go computes them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job, JobCondition, JobSet, ReplicatedJobStatus } from '../../lib/jobset/schema.ts';
import { bucketJobs, countReplicatedJobs, jobFinishedType, type ChildJobs } from '../../lib/plan/childJobs.ts';
import { emptyRecord, type FinishedJobsRecord } from '../../lib/plan/finishedJobs.ts';
import type { ReplicatedJobProgress } from '../../lib/policy/types.ts';
import { makeJobSet } from '../builders.ts';

interface JobArgs {
  readonly replicatedJob?: string;
  readonly index?: number;
  readonly restartAttempt?: string;
  readonly parallelism?: number;
  readonly completions?: number;
  readonly ready?: number;
  readonly succeeded?: number;
  readonly active?: number;
  readonly suspend?: boolean;
  readonly conditions?: JobCondition[];
  readonly owner?: { name: string; uid: string; controller?: boolean; kind?: string };
}

/** job: a child Job with only the fields a case sets (upstream makeJob + JobWrapper setters). */
const job = (name: string, args: JobArgs = {}): Job => {
  const labels: Record<string, string> = {};
  if (args.replicatedJob !== undefined) labels['jobset.sigs.k8s.io/replicatedjob-name'] = args.replicatedJob;
  if (args.index !== undefined) labels['jobset.sigs.k8s.io/job-index'] = String(args.index);
  if (args.restartAttempt !== undefined) labels['jobset.sigs.k8s.io/restart-attempt'] = args.restartAttempt;
  const owner = args.owner ?? { name: 'test-jobset', uid: 'uid-test-jobset' };
  const result: Job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: 'default',
      labels,
      ownerReferences: [
        { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: owner.kind ?? 'JobSet', name: owner.name, uid: owner.uid, controller: owner.controller ?? true, blockOwnerDeletion: true },
      ],
    },
    spec: { template: {} },
    status: {},
  };
  if (args.parallelism !== undefined) result.spec.parallelism = args.parallelism;
  if (args.completions !== undefined) result.spec.completions = args.completions;
  if (args.suspend !== undefined) result.spec.suspend = args.suspend;
  const status = result.status ?? {};
  if (args.ready !== undefined) status.ready = args.ready;
  if (args.succeeded !== undefined) status.succeeded = args.succeeded;
  if (args.active !== undefined) status.active = args.active;
  if (args.conditions !== undefined) status.conditions = args.conditions;
  return result;
};

const complete: JobCondition[] = [{ type: 'Complete', status: 'True' }];
const failed: JobCondition[] = [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }];

/** children: buckets given directly, as upstream's test passes a childJobs value. */
const children = (buckets: Partial<Pick<ChildJobs, 'active' | 'successful' | 'failed' | 'previous'>>): ChildJobs => {
  const all = [...(buckets.active ?? []), ...(buckets.successful ?? []), ...(buckets.failed ?? []), ...(buckets.previous ?? [])];
  return {
    active: buckets.active ?? [],
    successful: buckets.successful ?? [],
    failed: buckets.failed ?? [],
    previous: buckets.previous ?? [],
    byName: new Map(all.map((j) => [j.metadata.name ?? '', j])),
  };
};

const rjobStatus = (name: string, counts: Partial<Omit<ReplicatedJobStatus, 'name'>> = {}): ReplicatedJobStatus => ({
  name,
  ready: 0,
  succeeded: 0,
  failed: 0,
  active: 0,
  suspended: 0,
  ...counts,
});

const jobNameOf = (rjob: string, index: number): string => `test-jobset-${rjob}-${index}`;
const twoReplicatedJobs = ['replicated-job-1', 'replicated-job-2'];

describe('jobset_controller_test.go', () => {
  const finishedCases: { name: string; conditions: JobCondition[]; finished: boolean; want: 'Complete' | 'Failed' | undefined }[] = [
    { name: 'succeeded', conditions: [{ type: 'Complete', status: 'True' }], finished: true, want: 'Complete' },
    { name: 'failed', conditions: [{ type: 'Failed', status: 'True' }], finished: true, want: 'Failed' },
    { name: 'active', conditions: [{ type: '', status: 'True' }], finished: false, want: undefined },
    { name: 'suspended', conditions: [{ type: 'Suspended', status: 'True' }], finished: false, want: undefined },
    { name: 'failure target', conditions: [{ type: 'FailureTarget', status: 'True' }], finished: false, want: undefined },
  ];
  for (const tc of finishedCases) {
    it(`TestIsJobFinished: ${tc.name}`, () => {
      const got = jobFinishedType(job('test-job', { conditions: tc.conditions }));
      assert.equal(got !== undefined, tc.finished);
      assert.equal(got, tc.want);
    });
  }

  // Jobs named as upstream names them in this test (the names are not derived from labels).
  const statusCases: { name: string; children: ChildJobs; want: ReplicatedJobStatus[] }[] = [
    {
      name: 'partial jobs are ready, no succeeded jobs',
      children: children({
        active: [
          job('test-jobset-replicated-job-1-test-job-0', { replicatedJob: 'replicated-job-1', parallelism: 1, completions: 2, ready: 1, succeeded: 1 }),
          job('test-jobset-replicated-job-2-test-job-0', { replicatedJob: 'replicated-job-2', parallelism: 5, ready: 2, succeeded: 3 }),
          job('test-jobset-replicated-job-2-test-job-1', { replicatedJob: 'replicated-job-2', parallelism: 3, completions: 2, ready: 1, succeeded: 1 }),
          job('test-jobset-replicated-job-2-test-job-2', { replicatedJob: 'replicated-job-2', parallelism: 2, completions: 3, ready: 2, succeeded: 1 }),
          // min(4, 5) = 4 pods needed, 2 + 1 = 3: not ready.
          job('test-jobset-replicated-job-2-test-job-3', { replicatedJob: 'replicated-job-2', parallelism: 4, completions: 5, ready: 2, succeeded: 1 }),
        ],
      }),
      want: [rjobStatus('replicated-job-2', { ready: 3 }), rjobStatus('replicated-job-1', { ready: 1 })],
    },
    {
      name: 'no jobs created',
      children: children({}),
      want: [rjobStatus('replicated-job-2'), rjobStatus('replicated-job-1')],
    },
    {
      name: 'partial jobs created',
      children: children({
        active: [job('test-jobset-replicated-job-2-test-job-0', { replicatedJob: 'replicated-job-2', parallelism: 5, ready: 2, succeeded: 3 })],
      }),
      want: [rjobStatus('replicated-job-2', { ready: 1 }), rjobStatus('replicated-job-1')],
    },
    {
      name: 'no ready jobs, only succeeded jobs',
      children: children({
        successful: [
          job('test-jobset-replicated-job-2-test-job-0', { replicatedJob: 'replicated-job-2', conditions: complete }),
          job('test-jobset-replicated-job-1-test-job-0', { replicatedJob: 'replicated-job-1', conditions: complete }),
        ],
      }),
      want: [rjobStatus('replicated-job-2', { succeeded: 1 }), rjobStatus('replicated-job-1', { succeeded: 1 })],
    },
    {
      name: 'no ready jobs, only failed jobs',
      children: children({
        failed: [
          job('test-jobset-replicated-job-2-test-job-0', { replicatedJob: 'replicated-job-2', conditions: failed }),
          job('test-jobset-replicated-job-1-test-job-0', { replicatedJob: 'replicated-job-1', conditions: failed }),
          job('test-jobset-replicated-job-1-test-job-1', { replicatedJob: 'replicated-job-1', conditions: failed }),
          job('test-jobset-replicated-job-1-test-job-2', { replicatedJob: 'replicated-job-1', conditions: failed }),
        ],
      }),
      want: [rjobStatus('replicated-job-2', { failed: 1 }), rjobStatus('replicated-job-1', { failed: 3 })],
    },
    {
      name: 'active jobs',
      children: children({
        active: [
          job('test-jobset-replicated-job-2-test-job-0', { replicatedJob: 'replicated-job-1', parallelism: 5, active: 1 }),
          job('test-jobset-replicated-job-2-test-job-0', { replicatedJob: 'replicated-job-2', parallelism: 5 }),
          job('test-jobset-replicated-job-2-test-job-1', { replicatedJob: 'replicated-job-2', parallelism: 1, active: 1 }),
        ],
      }),
      want: [rjobStatus('replicated-job-2', { active: 1 }), rjobStatus('replicated-job-1', { active: 1 })],
    },
    {
      name: 'suspended jobs',
      children: children({
        active: [
          job('test-jobset-replicated-job-2-test-job-0', { replicatedJob: 'replicated-job-1', parallelism: 5, suspend: true }),
          job('test-jobset-replicated-job-2-test-job-0', { replicatedJob: 'replicated-job-2', parallelism: 5 }),
          job('test-jobset-replicated-job-2-test-job-1', { replicatedJob: 'replicated-job-2', parallelism: 1, suspend: true }),
        ],
      }),
      want: [rjobStatus('replicated-job-2', { suspended: 1 }), rjobStatus('replicated-job-1', { suspended: 1 })],
    },
  ];
  for (const tc of statusCases) {
    it(`TestCalculateReplicatedJobStatuses: ${tc.name}`, () => {
      const got = countReplicatedJobs(twoReplicatedJobs, tc.children, emptyRecord(0), jobNameOf);
      // Upstream compares ignoring order; Lineup always writes the list name-descending, so the same status is the same bytes.
      assert.deepEqual(got.status, tc.want);
    });
  }
});

describe('jobset_controller_test.go (integration entries)', () => {
  it('jobset should ignore jobs with same owner name but different owner UID', () => {
    // Prepare: a Job whose controller is a JobSet of the same name that was deleted and re-created.
    const jobSet = makeJobSet('test-jobset').replicatedJob('replicated-job', 1).obj();
    const stranger = job('test-jobset-replicated-job-0', {
      replicatedJob: 'replicated-job',
      index: 0,
      restartAttempt: '0',
      owner: { name: 'test-jobset', uid: 'uid-of-an-older-test-jobset' },
    });
    // Act
    const got = bucketJobs(jobSet, [stranger]);
    // Assess
    assert.deepEqual(got, { active: [], successful: [], failed: [], previous: [], byName: new Map() });
  });
});

describe('plan/childJobs', () => {
  describe('bucketJobs', () => {
    const jobSetAtAttempt = (restarts: number): JobSet => makeJobSet('test-jobset').replicatedJob('a', 3).status({ restarts }).obj();

    it('sorts Jobs of the current attempt by their Complete/Failed conditions and keeps earlier attempts apart', () => {
      // Prepare: restart attempt 2; Jobs of attempts 1 and 2, one finished of each kind.
      const running = job('test-jobset-a-0', { replicatedJob: 'a', index: 0, restartAttempt: '2' });
      const succeeded = job('test-jobset-a-1', { replicatedJob: 'a', index: 1, restartAttempt: '2', conditions: complete });
      const failedNow = job('test-jobset-a-2', { replicatedJob: 'a', index: 2, restartAttempt: '2', conditions: failed });
      const oldRunning = job('test-jobset-a-0-old', { replicatedJob: 'a', index: 0, restartAttempt: '1' });
      const oldFailed = job('test-jobset-a-1-old', { replicatedJob: 'a', index: 1, restartAttempt: '1', conditions: failed });
      const oldSucceeded = job('test-jobset-a-2-old', { replicatedJob: 'a', index: 2, restartAttempt: '0', conditions: complete });
      const all = [running, succeeded, failedNow, oldRunning, oldFailed, oldSucceeded];
      // Act
      const got = bucketJobs(jobSetAtAttempt(2), all);
      // Assess: a finished Job of an earlier attempt is previous, not successful/failed.
      assert.deepEqual(got.active, [running]);
      assert.deepEqual(got.successful, [succeeded]);
      assert.deepEqual(got.failed, [failedNow]);
      assert.deepEqual(got.previous, [oldRunning, oldFailed, oldSucceeded]);
      assert.deepEqual([...got.byName.keys()], all.map((j) => j.metadata.name));
    });

    it('counts a Job of a later attempt label as current (only a lower attempt is previous)', () => {
      const ahead = job('test-jobset-a-0', { replicatedJob: 'a', index: 0, restartAttempt: '3' });
      const got = bucketJobs(jobSetAtAttempt(2), [ahead]);
      assert.deepEqual(got.active, [ahead]);
      assert.deepEqual(got.previous, []);
    });

    it('treats a missing or unparseable restart-attempt label as an earlier attempt (upstream fails the pass instead)', () => {
      const unlabelled = job('test-jobset-a-0', { replicatedJob: 'a', index: 0 });
      const garbled = job('test-jobset-a-1', { replicatedJob: 'a', index: 1, restartAttempt: 'two' });
      const got = bucketJobs(jobSetAtAttempt(0), [unlabelled, garbled]);
      assert.deepEqual(got.previous, [unlabelled, garbled]);
      assert.deepEqual(got.active, []);
    });

    it('a FailureTarget or SuccessCriteriaMet condition alone leaves a Job active', () => {
      const failing = job('test-jobset-a-0', { replicatedJob: 'a', restartAttempt: '0', conditions: [{ type: 'FailureTarget', status: 'True' }] });
      const succeeding = job('test-jobset-a-1', { replicatedJob: 'a', restartAttempt: '0', conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }] });
      const notComplete = job('test-jobset-a-2', { replicatedJob: 'a', restartAttempt: '0', conditions: [{ type: 'Complete', status: 'False' }] });
      const got = bucketJobs(jobSetAtAttempt(0), [failing, succeeding, notComplete]);
      assert.deepEqual(got.active, [failing, succeeding, notComplete]);
    });

    const ignoredOwners: { name: string; owner: NonNullable<JobArgs['owner']> }[] = [
      { name: 'an owner reference that is not the controller', owner: { name: 'test-jobset', uid: 'uid-test-jobset', controller: false } },
      { name: 'a controller of another kind with the same uid', owner: { name: 'test-jobset', uid: 'uid-test-jobset', kind: 'JobSetLookalike' } },
    ];
    for (const tc of ignoredOwners) {
      it(`ignores a Job with ${tc.name}`, () => {
        const got = bucketJobs(jobSetAtAttempt(0), [job('test-jobset-a-0', { replicatedJob: 'a', restartAttempt: '0', owner: tc.owner })]);
        assert.equal(got.byName.size, 0);
        assert.deepEqual([...got.active, ...got.successful, ...got.failed, ...got.previous], []);
      });
    }
  });

  describe('countReplicatedJobs', () => {
    const record = (succeeded: Record<string, number[]>, failedIndices: Record<string, number[]>): FinishedJobsRecord => ({
      restartAttempt: 0,
      succeeded: new Map(Object.entries(succeeded).map(([name, indices]) => [name, new Set(indices)])),
      failed: new Map(Object.entries(failedIndices).map(([name, indices]) => [name, new Set(indices)])),
    });
    const progress = (entries: Record<string, Partial<ReplicatedJobProgress>>): Map<string, ReplicatedJobProgress> =>
      new Map(Object.entries(entries).map(([name, p]) => [name, { ready: 0, succeeded: 0, failed: 0, ...p }]));

    const cases: { name: string; children: ChildJobs; record: FinishedJobsRecord; wantStatus: ReplicatedJobStatus[]; wantGating: Map<string, ReplicatedJobProgress> }[] = [
      {
        name: 'a suspended Job that still reports ready pods is ready in status but never ready for gating (no early start after a suspend)',
        children: children({
          active: [
            job('test-jobset-replicated-job-1-0', { replicatedJob: 'replicated-job-1', parallelism: 1, ready: 1, active: 1, suspend: true }),
            job('test-jobset-replicated-job-2-0', { replicatedJob: 'replicated-job-2', parallelism: 1, ready: 1, active: 1, suspend: false }),
          ],
        }),
        record: emptyRecord(0),
        wantStatus: [rjobStatus('replicated-job-2', { ready: 1, active: 1 }), rjobStatus('replicated-job-1', { ready: 1, active: 1, suspended: 1 })],
        wantGating: progress({ 'replicated-job-1': { ready: 0 }, 'replicated-job-2': { ready: 1 } }),
      },
      {
        name: 'gating carries succeeded and failed as status counts them',
        children: children({
          successful: [job('test-jobset-replicated-job-1-0', { replicatedJob: 'replicated-job-1', conditions: complete })],
          failed: [job('test-jobset-replicated-job-2-0', { replicatedJob: 'replicated-job-2', conditions: failed })],
        }),
        record: emptyRecord(0),
        wantStatus: [rjobStatus('replicated-job-2', { failed: 1 }), rjobStatus('replicated-job-1', { succeeded: 1 })],
        wantGating: progress({ 'replicated-job-1': { succeeded: 1 }, 'replicated-job-2': { failed: 1 } }),
      },
      {
        name: 'recorded finished Jobs that are gone (deleted by their own TTL) still count as succeeded or failed',
        children: children({}),
        record: record({ 'replicated-job-1': [0], 'replicated-job-2': [0, 2] }, { 'replicated-job-2': [1] }),
        wantStatus: [rjobStatus('replicated-job-2', { succeeded: 2, failed: 1 }), rjobStatus('replicated-job-1', { succeeded: 1 })],
        wantGating: progress({ 'replicated-job-1': { succeeded: 1 }, 'replicated-job-2': { succeeded: 2, failed: 1 } }),
      },
      {
        name: 'a recorded Job that still exists is counted once, from the cluster',
        children: children({
          successful: [job('test-jobset-replicated-job-1-0', { replicatedJob: 'replicated-job-1', conditions: complete })],
        }),
        record: record({ 'replicated-job-1': [0] }, {}),
        wantStatus: [rjobStatus('replicated-job-2'), rjobStatus('replicated-job-1', { succeeded: 1 })],
        wantGating: progress({ 'replicated-job-1': { succeeded: 1 }, 'replicated-job-2': {} }),
      },
      {
        name: 'Jobs and records naming no known replicatedJob are skipped',
        children: children({
          active: [
            job('test-jobset-unknown-0', { replicatedJob: 'unknown', parallelism: 1, ready: 1, active: 1 }),
            job('test-jobset-unlabelled-0', { parallelism: 1, ready: 1, active: 1 }),
            job('test-jobset-empty-0', { replicatedJob: '', parallelism: 1, ready: 1, active: 1 }),
          ],
        }),
        record: record({ unknown: [0, 1] }, {}),
        wantStatus: [rjobStatus('replicated-job-2'), rjobStatus('replicated-job-1')],
        wantGating: progress({ 'replicated-job-1': {}, 'replicated-job-2': {} }),
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        const got = countReplicatedJobs(twoReplicatedJobs, tc.children, tc.record, jobNameOf);
        assert.deepEqual(got.status, tc.wantStatus);
        assert.deepEqual(got.gating, tc.wantGating);
      });
    }
  });
});
