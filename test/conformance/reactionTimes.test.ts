/** Reaction times and the Job controller's lag from recorded twins. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evidence, JobHistory } from './evidence.ts';
import { jobControllerLagsMs, reactionMs, spreadOf } from './reactionTimes.ts';

const T0 = 1_000_000;
const job = (name: string, finishedAt: number | undefined, podsEndedAt: number[]): JobHistory => ({
  name,
  replicatedJob: 'workers',
  attempt: 0,
  conditions: finishedAt === undefined ? [] : [{ type: 'Complete', status: 'True', receivedAt: finishedAt, at: finishedAt }],
  podsEndedAt,
});
const recorded = (jobs: JobHistory[]): Evidence => ({
  createdAt: T0,
  jobs,
  jobSet: [{ at: T0 + 9_100, restarts: 0, conditions: [{ type: 'Completed', status: 'True' }] }],
  statusWrites: [{ receivedAt: T0 + 9_070, at: T0 + 9_080, code: 200 }],
  jobDeletes: [],
  userActions: [],
  lastStage: [],
});

describe('reactionMs', () => {
  it('is from the last Job finished before the terminal write to that write', () => {
    assert.equal(reactionMs(recorded([job('a', T0 + 5_000, []), job('b', T0 + 9_000, []), job('c', T0 + 9_500, [])])), 70);
    assert.equal(reactionMs(recorded([job('a', undefined, [])])), undefined);
  });
});

describe('jobControllerLagsMs', () => {
  it('is from a finished Job\'s last Pod end to its finishing write', () => {
    assert.deepEqual(jobControllerLagsMs(recorded([job('a', T0 + 30_000, [T0 + 2_000, T0 + 4_000]), job('b', undefined, [T0 + 1_000]), job('c', T0 + 5_000, [])])), [26_000]);
  });
});

describe('spreadOf', () => {
  it('gives the count, median and maximum', () => {
    assert.deepEqual(spreadOf([10, 30, 20]), { count: 3, medianMs: 20, maxMs: 30 });
    assert.equal(spreadOf([]).count, 0);
  });
});
