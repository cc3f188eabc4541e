import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobSetSize, podsPerJob } from '../../lib/jobset/size.ts';
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
});
