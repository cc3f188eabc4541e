import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineupKey } from '../../lib/jobset/api.ts';
import { slimJob } from '../../lib/events/slim.ts';
import { jobProgressOf, jobSetFactsOf, ProgressIndex, progressWaits, type JobProgress, type ProgressCounts } from '../../lib/forwarder/progress.ts';
import type { Job } from '../../lib/jobset/schema.ts';
import { makeJobSet } from '../builders.ts';
import { makeJob } from './builders.ts';

type JobStatus = NonNullable<Job['status']>;
const running: JobStatus = { active: 1 };
const ready: JobStatus = { active: 1, ready: 1 };
const complete: JobStatus = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
const failed: JobStatus = { failed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] };

const progressOf = (status: NonNullable<Job['status']>, suspend = false, replicatedJob = 'workers'): JobProgress => {
  const job = makeJob('train-workers-0', 'train').suspend(suspend).status(status).obj();
  job.metadata.labels = { ...job.metadata.labels, 'jobset.sigs.k8s.io/replicatedjob-name': replicatedJob };
  const progress = jobProgressOf(slimJob(job));
  assert.ok(progress !== undefined);
  return progress;
};

/** counts: the index's counts, one entry per replicatedJob named. */
const counts =
  (byReplicatedJob: Record<string, Partial<ProgressCounts>>) =>
  (replicatedJob: string): ProgressCounts => ({ started: 0, complete: 0, ...byReplicatedJob[replicatedJob] });

describe('forwarder progress', () => {
  describe('jobSetFactsOf', () => {
    it('reads replicas, the completions a dependsOn awaits, and success targets (every replicatedJob without targets)', () => {
      const facts = jobSetFactsOf(
        makeJobSet('train')
          .replicatedJob('driver', 1)
          .replicatedJob('workers', 3, { dependsOn: [{ name: 'driver', status: 'Complete' }] })
          .replicatedJob('eval', 2, { dependsOn: [{ name: 'workers', status: 'Ready' }] })
          .obj(),
      );
      assert.deepEqual(Object.fromEntries(facts.replicas), { driver: 1, workers: 3, eval: 2 });
      assert.deepEqual([...facts.awaitedComplete], ['driver']);
      assert.deepEqual(facts.successTargets, ['driver', 'workers', 'eval']);
      assert.equal(facts.everyCompletionDecides, false);
    });

    it('says every completion decides under success policy Any and under the ordered-rules form', () => {
      const any = makeJobSet('train').replicatedJob('workers', 2).spec({ successPolicy: { operator: 'Any' } }).obj();
      const rules = makeJobSet('train').replicatedJob('workers', 2).obj();
      rules.metadata.annotations = { [LineupKey.StartupRulesAnnotation]: '- {name: workers, status: Ready}' };
      assert.equal(jobSetFactsOf(any).everyCompletionDecides, true);
      assert.equal(jobSetFactsOf(rules).everyCompletionDecides, true);
      const targeted = makeJobSet('train').replicatedJob('driver', 1).replicatedJob('workers', 2).spec({ successPolicy: { operator: 'All', targetReplicatedJobs: ['driver'] } }).obj();
      assert.deepEqual(jobSetFactsOf(targeted).successTargets, ['driver']);
    });
  });

  describe('jobProgressOf', () => {
    it('counts a Job started when ready, complete or failed, never while suspended', () => {
      assert.equal(progressOf(running).started, false);
      assert.equal(progressOf(ready).started, true);
      assert.equal(progressOf(complete).started, true);
      assert.equal(progressOf(failed).started, true);
      assert.equal(progressOf(ready, true).started, false);
      assert.equal(progressOf(complete).complete, true);
    });

    it('keeps what else a decision reads apart: a failure or a suspension changes it, pod counts do not', () => {
      assert.equal(progressOf(running).rest, progressOf(ready).rest);
      assert.equal(progressOf(running).rest, progressOf(complete).rest);
      assert.notEqual(progressOf(running).rest, progressOf(failed).rest);
      assert.notEqual(progressOf(running).rest, progressOf(running, true).rest);
    });

    it('is undefined for a Job without a replicatedJob label', () => {
      const job = makeJob('x', 'train').labels({}).obj();
      assert.equal(jobProgressOf(slimJob(job)), undefined);
    });
  });

  describe('ProgressIndex', () => {
    const entry = (status: NonNullable<Job['status']>, attempt = '0') => ({ namespace: 'ml', jobSet: 'train', progress: { ...progressOf(status), attempt } });

    it('counts started and complete Jobs per replicatedJob and attempt through set, replace, delete and clear', () => {
      const index = new ProgressIndex<ReturnType<typeof entry>>();
      index.set('a', entry(running));
      index.set('b', entry(ready));
      index.set('c', entry(complete));
      index.set('d', entry(ready, '1'));
      assert.deepEqual(index.countsOf('ml', 'train', '0', 'workers'), { started: 2, complete: 1 });
      index.set('a', entry(ready));
      assert.deepEqual(index.countsOf('ml', 'train', '0', 'workers'), { started: 3, complete: 1 });
      index.delete('c');
      index.delete('missing');
      assert.deepEqual(index.countsOf('ml', 'train', '0', 'workers'), { started: 2, complete: 0 });
      assert.deepEqual(index.countsOf('ml', 'train', '1', 'workers'), { started: 1, complete: 0 });
      index.clear();
      assert.deepEqual(index.countsOf('ml', 'train', '0', 'workers'), { started: 0, complete: 0 });
    });

    it('counts the entries it is constructed with', () => {
      const index = new ProgressIndex([['a', entry(complete)]]);
      assert.deepEqual(index.countsOf('ml', 'train', '0', 'workers'), { started: 1, complete: 1 });
    });
  });

  describe('progressWaits', () => {
    const facts = jobSetFactsOf(makeJobSet('train').replicatedJob('driver', 1).replicatedJob('workers', 3).obj());

    it('lets a Job turning ready wait while others of its replicatedJob have not; the last goes', () => {
      assert.equal(progressWaits(progressOf(running), progressOf(ready), facts, counts({ workers: { started: 1 } })), true);
      assert.equal(progressWaits(progressOf(running), progressOf(ready), facts, counts({ workers: { started: 2 } })), false);
      assert.equal(progressWaits(progressOf(running, false, 'driver'), progressOf(ready, false, 'driver'), facts, counts({})), false);
    });

    it('lets a Job completing wait while others the success policy waits on have not; the last goes', () => {
      const readyWorker = progressOf(ready);
      assert.equal(progressWaits(readyWorker, progressOf(complete), facts, counts({ workers: { complete: 1 }, driver: { complete: 1 } })), true);
      assert.equal(progressWaits(readyWorker, progressOf(complete), facts, counts({ workers: { complete: 2 }, driver: { complete: 1 } })), false);
    });

    it('lets a Job outside the success targets complete without hurry; a target goes by the targets alone', () => {
      const targeted = jobSetFactsOf(makeJobSet('train').replicatedJob('driver', 1).replicatedJob('workers', 3).spec({ successPolicy: { operator: 'All', targetReplicatedJobs: ['driver'] } }).obj());
      assert.equal(progressWaits(progressOf(ready), progressOf(complete), targeted, counts({})), true);
      assert.equal(progressWaits(progressOf(ready, false, 'driver'), progressOf(complete, false, 'driver'), targeted, counts({})), false);
    });

    it('sends at once what it cannot tell or what decides alone', () => {
      const any = jobSetFactsOf(makeJobSet('train').replicatedJob('workers', 3).spec({ successPolicy: { operator: 'Any' } }).obj());
      const awaited = jobSetFactsOf(makeJobSet('train').replicatedJob('workers', 3).replicatedJob('eval', 1, { dependsOn: [{ name: 'workers', status: 'Complete' }] }).obj());
      const none = counts({});
      assert.equal(progressWaits(progressOf(ready), progressOf(complete), undefined, none), false, 'the JobSet not seen');
      assert.equal(progressWaits(progressOf(ready), progressOf(complete), any, none), false, 'success policy Any');
      assert.equal(progressWaits(progressOf(ready), progressOf(complete), awaited, none), false, 'a dependsOn awaits its completion');
      assert.equal(progressWaits(progressOf(ready), progressOf(failed), facts, none), false, 'a failure');
      assert.equal(progressWaits(progressOf(ready), progressOf(running), facts, none), false, 'a step back');
      assert.equal(progressWaits(progressOf(running), progressOf(running), facts, none), false, 'no step');
      assert.equal(progressWaits(progressOf(running, false, 'other'), progressOf(ready, false, 'other'), facts, none), false, 'a replicatedJob the spec does not name');
      assert.equal(progressWaits(progressOf(running), { ...progressOf(ready), attempt: '1' }, facts, none), false, 'another attempt');
    });
  });
});
