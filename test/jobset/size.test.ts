import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_JOBSET_LIMITS, jobSetSize, podsPerJob, readJobSetLimits, sizeOverLimits } from '../../lib/jobset/size.ts';
import { InvalidInputError } from '../../lib/errors.ts';
import type { JobSpec } from '../../lib/jobset/schema.ts';
import { makeJobSet } from '../builders.ts';

const spec = (counts: Pick<JobSpec, 'parallelism' | 'completions'>): JobSpec => ({ ...counts, template: {} });

describe('jobset/size', () => {
  describe('podsPerJob', () => {
    const cases: { name: string; counts: Pick<JobSpec, 'parallelism' | 'completions'>; want: number }[] = [
      { name: 'neither set: one pod (the Job API default)', counts: {}, want: 1 },
      { name: 'parallelism alone: a work queue runs parallelism pods', counts: { parallelism: 4 }, want: 4 },
      { name: 'completions alone: parallelism defaults to 1, so one pod at a time', counts: { completions: 5 }, want: 1 },
      { name: 'both, parallelism smaller: parallelism', counts: { parallelism: 2, completions: 5 }, want: 2 },
      { name: 'both, completions smaller: completions bound it', counts: { parallelism: 8, completions: 3 }, want: 3 },
      { name: 'parallelism 0: no pods', counts: { parallelism: 0, completions: 3 }, want: 0 },
      { name: 'a negative count (validation refuses it): no pods', counts: { parallelism: -2 }, want: 0 },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        assert.equal(podsPerJob(spec(tc.counts)), tc.want);
      });
    }
  });

  describe('jobSetSize', () => {
    it('sums replicas into Jobs and replicas × pods per Job into Pods over every replicatedJob', () => {
      const jobSet = makeJobSet('js')
        .replicatedJob('driver', 1)
        .replicatedJob('workers', 3, { parallelism: 2, completions: 2 })
        .replicatedJob('ps', 2, { jobSpec: { parallelism: 4, completions: 3 } })
        .obj();
      assert.deepEqual(jobSetSize(jobSet), { replicatedJobs: 3, jobs: 6, pods: 1 + 6 + 6 });
    });

    it('reads absent replicas as 1 (the CRD default)', () => {
      const jobSet = makeJobSet('js').spec({ replicatedJobs: [{ name: 'a', template: { spec: spec({ parallelism: 2 }) } }] }).obj();
      assert.deepEqual(jobSetSize(jobSet), { replicatedJobs: 1, jobs: 1, pods: 2 });
    });

    it('counts nothing for a JobSet without replicatedJobs', () => {
      assert.deepEqual(jobSetSize(makeJobSet('empty').obj()), { replicatedJobs: 0, jobs: 0, pods: 0 });
    });

    it('counts a huge JobSet without building anything', () => {
      const jobSet = makeJobSet('huge').replicatedJob('a', 100_000_000, { parallelism: 8, completions: 8 }).obj();
      assert.deepEqual(jobSetSize(jobSet), { replicatedJobs: 1, jobs: 100_000_000, pods: 800_000_000 });
    });
  });

  describe('sizeOverLimits', () => {
    const size = (jobs: number, pods: number) => ({ replicatedJobs: 1, jobs, pods });

    it('defaults to 10,000 Jobs and 100,000 Pods', () => {
      assert.deepEqual(DEFAULT_JOBSET_LIMITS, { maxJobs: 10_000, maxPods: 100_000 });
    });

    it('finds nothing at the bounds themselves', () => {
      assert.deepEqual(sizeOverLimits(size(10_000, 100_000), DEFAULT_JOBSET_LIMITS), []);
    });

    it('names each count past its bound, Jobs first, with the variable that sets the bound', () => {
      assert.deepEqual(sizeOverLimits(size(10_001, 10_001), DEFAULT_JOBSET_LIMITS), [{ count: 10_001, unit: 'Jobs', max: 10_000, variable: 'LINEUP_MAX_JOBS_PER_JOBSET' }]);
      assert.deepEqual(sizeOverLimits(size(100, 100_001), DEFAULT_JOBSET_LIMITS), [{ count: 100_001, unit: 'Pods', max: 100_000, variable: 'LINEUP_MAX_PODS_PER_JOBSET' }]);
      assert.deepEqual(sizeOverLimits(size(3, 9), { maxJobs: 2, maxPods: 8 }), [
        { count: 3, unit: 'Jobs', max: 2, variable: 'LINEUP_MAX_JOBS_PER_JOBSET' },
        { count: 9, unit: 'Pods', max: 8, variable: 'LINEUP_MAX_PODS_PER_JOBSET' },
      ]);
    });
  });

  describe('readJobSetLimits', () => {
    it('reads the deployed reconciler\'s variables, the defaults where unset or empty', () => {
      assert.deepEqual(readJobSetLimits({}), DEFAULT_JOBSET_LIMITS);
      assert.deepEqual(readJobSetLimits({ LINEUP_MAX_JOBS_PER_JOBSET: '20000', LINEUP_MAX_PODS_PER_JOBSET: '' }), { maxJobs: 20_000, maxPods: DEFAULT_JOBSET_LIMITS.maxPods });
      assert.deepEqual(readJobSetLimits({ LINEUP_MAX_PODS_PER_JOBSET: '250000' }), { maxJobs: DEFAULT_JOBSET_LIMITS.maxJobs, maxPods: 250_000 });
    });

    for (const value of ['0', '-1', '1.5', '1e5', 'many', ' ', '99999999999999999999']) {
      it(`refuses ${JSON.stringify(value)}, naming the variable`, () => {
        assert.throws(() => readJobSetLimits({ LINEUP_MAX_JOBS_PER_JOBSET: value }), (error: unknown) => error instanceof InvalidInputError && error.message === `LINEUP_MAX_JOBS_PER_JOBSET must be a whole number above 0, got ${JSON.stringify(value)}`);
      });
    }
  });
});

