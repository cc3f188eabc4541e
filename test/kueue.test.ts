/** lib/kueue.ts: the queue a JobSet names, and when Kueue would count a simulated JobSet all ready. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JobSet } from '../lib/jobset/schema.ts';
import { allReadyAt, describeQueue, KUEUE_PRIORITY_LABEL, KUEUE_QUEUE_LABEL, kueueQueueOf } from '../lib/kueue.ts';
import type { TimelineEntry } from '../lib/sim/timeline.ts';

const jobSet = (labels: Record<string, string> | undefined): JobSet => ({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js', ...(labels === undefined ? {} : { labels }) }, spec: { replicatedJobs: [] } }) as JobSet;
const entry = (at: number, type: TimelineEntry['type'], job: string): TimelineEntry => ({ at, type, job });

describe('kueueQueueOf', () => {
  it('reads the queue and the priority class from the labels', () => {
    assert.deepEqual(kueueQueueOf(jobSet({ [KUEUE_QUEUE_LABEL]: 'team-a', [KUEUE_PRIORITY_LABEL]: 'high' })), { queue: 'team-a', priorityClass: 'high' });
    assert.equal(describeQueue({ queue: 'team-a', priorityClass: undefined }), 'queue team-a');
  });

  it('is undefined without labels, or with an empty queue name', () => {
    assert.equal(kueueQueueOf(jobSet(undefined)), undefined);
    assert.equal(kueueQueueOf(jobSet({ [KUEUE_QUEUE_LABEL]: '' })), undefined);
    assert.equal(kueueQueueOf(jobSet({ [KUEUE_PRIORITY_LABEL]: 'high' })), undefined);
  });
});

describe('allReadyAt', () => {
  it('is the first time every Job is ready or has succeeded', () => {
    const timeline = [entry(1_000, 'JobReady', 'mq-0'), entry(2_000, 'JobSucceeded', 'mq-0'), entry(3_000, 'JobReady', 'driver-0'), entry(5_000, 'JobReady', 'workers-0')];
    assert.equal(allReadyAt(timeline, 3), 5_000);
  });

  it('stops counting a Job that failed, was deleted or suspended, until it is ready again', () => {
    const timeline = [entry(1_000, 'JobReady', 'a-0'), entry(2_000, 'JobFailed', 'a-0'), entry(3_000, 'JobReady', 'b-0'), entry(4_000, 'JobSuspended', 'b-0'), entry(6_000, 'JobReady', 'a-0'), entry(7_000, 'JobReady', 'b-0')];
    assert.equal(allReadyAt(timeline, 2), 7_000);
  });

  it('is undefined when some Job is never ready', () => {
    assert.equal(allReadyAt([entry(1_000, 'JobReady', 'a-0')], 2), undefined);
    assert.equal(allReadyAt([], 0), undefined);
  });
});
