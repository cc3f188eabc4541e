/** The derivations every check reads from a recorded twin. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attemptStartedAt, finalAttempt, finishOf, firstDeleteAfter, jobsOfAttempt, leftAt, relative, sightingWith, terminalWriteAt, type Evidence, type JobHistory } from './evidence.ts';

const T0 = 1_000_000;
const job = (name: string, fields: Partial<JobHistory> = {}): JobHistory => ({ name, replicatedJob: 'workers', attempt: 0, conditions: [], podsEndedAt: [], ...fields });
const recorded: Evidence = {
  createdAt: T0,
  jobs: [
    job('js-workers-0', { conditions: [{ type: 'FailureTarget', status: 'True', receivedAt: T0 + 4_000, at: T0 + 4_000 }, { type: 'Failed', status: 'True', receivedAt: T0 + 4_010, at: T0 + 4_010 }], deletionAt: T0 + 4_500 }),
    job('js-workers-0', { attempt: 1, conditions: [{ type: 'Complete', status: 'True', receivedAt: T0 + 9_000, at: T0 + 9_000 }] }),
  ],
  jobSet: [
    { at: T0 + 100, restarts: 0, conditions: [] },
    { at: T0 + 4_300, restarts: 1, conditions: [{ type: 'StartupPolicyCompleted', status: 'False' }] },
    { at: T0 + 9_100, restarts: 1, conditions: [{ type: 'Completed', status: 'True' }] },
  ],
  statusWrites: [
    { receivedAt: T0 + 4_200, at: T0 + 4_210, code: 200 },
    { receivedAt: T0 + 9_020, at: T0 + 9_030, code: 200 },
    { receivedAt: T0 + 9_040, at: T0 + 9_041, code: 409 },
  ],
  jobDeletes: [{ name: 'js-workers-0', receivedAt: T0 + 4_500, at: T0 + 4_510, code: 200 }],
  userActions: [],
  lastStage: [{ name: 'workers', replicas: 1 }],
};

describe('evidence derivations', () => {
  it('reads the final attempt, its start, and the terminal write as the last accepted status write before the sighting', () => {
    assert.equal(finalAttempt(recorded), 1);
    assert.equal(attemptStartedAt(recorded), T0 + 4_300);
    assert.equal(terminalWriteAt(recorded), T0 + 9_020);
    assert.equal(terminalWriteAt({ ...recorded, statusWrites: [] }), T0 + 9_100, 'no matching write: the sighting');
    assert.equal(terminalWriteAt({ ...recorded, jobSet: recorded.jobSet.slice(0, 2) }), undefined);
  });

  it('finds a Job\'s final condition, the Jobs of an attempt and those left at a time', () => {
    assert.equal(finishOf(recorded.jobs[0] as JobHistory)?.type, 'Failed');
    assert.equal(finishOf(job('running')), undefined);
    assert.equal(jobsOfAttempt(recorded, 'workers').get('js-workers-0')?.attempt, 1);
    assert.equal(leftAt(recorded, T0 + 4_400).length, 2);
    assert.equal(leftAt(recorded, T0 + 4_500).length, 1);
  });

  it('finds deletes and sightings after a time, and prints times from the creation', () => {
    assert.equal(firstDeleteAfter(recorded, T0 + 4_000), T0 + 4_500);
    assert.equal(firstDeleteAfter(recorded, T0 + 5_000), undefined);
    assert.equal(sightingWith(recorded, 'StartupPolicyCompleted', 'False')?.at, T0 + 4_300);
    assert.equal(sightingWith(recorded, 'StartupPolicyCompleted', 'True'), undefined);
    assert.equal(relative(T0 + 1_234, T0), '+1.23 s');
  });
});
