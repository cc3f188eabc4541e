/**
 * Conditions: upstream updateCondition/setCondition (jobset_controller.go) ported to
 * setCondition, plus Lineup cases for upstream's rules of lastTransitionTime and two of its quirks:
 * Completed True flips InProgress to False keeping the rest, and a False condition is never created from scratch.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../lib/jobset/schema.ts';
import { rfc3339Seconds, setCondition, type ConditionChange, type DesiredCondition } from '../../lib/plan/conditions.ts';

// A pass at 00:00:00.750: metav1.Time keeps whole seconds, so a new condition carries 00:00:00Z.
const now = Date.parse('2026-01-01T00:00:00.750Z');
const nowText = '2026-01-01T00:00:00Z';
// Upstream's existing conditions carry the zero time; a fixed earlier time stands in for it so
// that "kept" and "set to now" can be told apart.
const earlier = '2025-12-31T23:00:00Z';

describe('jobset_controller_test.go', () => {
  const cases: {
    name: string;
    existing: Condition[];
    desired: DesiredCondition;
    want: Condition[];
    wantChange: ConditionChange;
    /** What upstream's updateCondition does to lastTransitionTime of the condition of `desired.type`. */
    time: 'set to now' | 'kept' | 'no condition';
  }[] = [
    {
      // Upstream passes conditionOpts{} (no condition at all). setCondition always takes a
      // condition; the nearest input that likewise adds nothing is a False condition, which upstream never adds where none is.
      name: 'no existing conditions, not adding conditions',
      existing: [],
      desired: { type: 'Completed', status: 'False', reason: 'AllJobsCompleted', message: 'jobset completed successfully' },
      want: [],
      wantChange: 'none',
      time: 'no condition',
    },
    {
      name: 'no existing conditions, add a condition',
      existing: [],
      desired: { type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully' },
      want: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully', lastTransitionTime: nowText }],
      wantChange: 'added',
      time: 'set to now',
    },
    {
      name: 'suspended',
      existing: [],
      desired: { type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended' },
      want: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended', lastTransitionTime: nowText }],
      wantChange: 'added',
      time: 'set to now',
    },
    {
      name: 'resume (update suspended condition type in-place)',
      existing: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended', lastTransitionTime: earlier }],
      desired: { type: 'Suspended', status: 'False', reason: 'ResumeJobs', message: 'jobset is resumed' },
      want: [{ type: 'Suspended', status: 'False', reason: 'ResumeJobs', message: 'jobset is resumed', lastTransitionTime: nowText }],
      wantChange: 'status',
      time: 'set to now',
    },
    {
      name: 'existing conditions, attempt to add duplicate',
      existing: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully', lastTransitionTime: earlier }],
      desired: { type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully' },
      want: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully', lastTransitionTime: earlier }],
      wantChange: 'none',
      time: 'kept',
    },
    {
      name: 'existing conditions, update reason/message but keep status same',
      existing: [{ type: 'RestartingJobSet', status: 'True', reason: 'DefaultFailurePolicy', message: 'old message', lastTransitionTime: earlier }],
      desired: { type: 'RestartingJobSet', status: 'True', reason: 'NewReason', message: 'new message' },
      want: [{ type: 'RestartingJobSet', status: 'True', reason: 'NewReason', message: 'new message', lastTransitionTime: earlier }],
      wantChange: 'text',
      time: 'kept',
    },
  ];
  for (const tc of cases) {
    it(`TestUpdateConditions: ${tc.name}`, () => {
      const before = structuredClone(tc.existing);
      const got = setCondition(tc.existing, tc.desired, now);
      // Whole lists, lastTransitionTime included (upstream only checks it is kept on a same-status change).
      assert.deepEqual(got.conditions, tc.want);
      // upstream expectedUpdate is true exactly when something changed.
      assert.equal(got.change, tc.wantChange);
      const condition = got.conditions.find((c) => c.type === tc.desired.type);
      const previous = tc.existing.find((c) => c.type === tc.desired.type);
      if (tc.time === 'set to now') assert.equal(condition?.lastTransitionTime, nowText);
      if (tc.time === 'kept') assert.equal(condition?.lastTransitionTime, previous?.lastTransitionTime);
      if (tc.time === 'no condition') assert.equal(condition, undefined);
      assert.deepEqual(tc.existing, before, 'setCondition never mutates its input');
    });
  }
});

describe('plan/conditions', () => {
  const inProgress: Condition = {
    type: 'StartupPolicyInProgress',
    status: 'True',
    reason: 'InOrderStartupPolicyInProgress',
    message: 'in order startup policy is in progress',
    lastTransitionTime: earlier,
  };
  const completed: Condition = {
    type: 'StartupPolicyCompleted',
    status: 'True',
    reason: 'InOrderStartupPolicyCompleted',
    message: 'in order startup policy has completed',
    lastTransitionTime: earlier,
  };
  const completedDesired: DesiredCondition = {
    type: 'StartupPolicyCompleted',
    status: 'True',
    reason: 'InOrderStartupPolicyCompleted',
    message: 'in order startup policy has completed',
  };
  const inProgressDesired: DesiredCondition = {
    type: 'StartupPolicyInProgress',
    status: 'True',
    reason: 'InOrderStartupPolicyInProgress',
    message: 'in order startup policy is in progress',
  };

  const cases: { name: string; existing: Condition[]; desired: DesiredCondition; want: Condition[]; wantChange: ConditionChange }[] = [
    {
      name: 'StartupPolicyCompleted True flips InProgress to False, keeping its reason, message and lastTransitionTime (a quirk of upstream)',
      existing: [inProgress],
      desired: completedDesired,
      want: [{ ...inProgress, status: 'False' }, { ...completedDesired, lastTransitionTime: nowText }],
      wantChange: 'added',
    },
    {
      name: 'StartupPolicyInProgress True again flips Completed to False and only Completed’s status changes (a quirk of upstream)',
      existing: [{ ...inProgress, status: 'False' }, completed],
      desired: { ...inProgressDesired, message: 'in order startup policy is in progress: waiting for a' },
      want: [
        { ...inProgressDesired, message: 'in order startup policy is in progress: waiting for a', lastTransitionTime: nowText },
        { ...completed, status: 'False' },
      ],
      wantChange: 'status',
    },
    {
      name: 'the exclusive flip needs both conditions True: a False partner is left alone',
      existing: [{ ...inProgress, status: 'False' }],
      desired: completedDesired,
      want: [{ ...inProgress, status: 'False' }, { ...completedDesired, lastTransitionTime: nowText }],
      wantChange: 'added',
    },
    {
      name: 'setting a startup condition False does not touch its True partner',
      existing: [completed, { ...inProgress, status: 'True' }],
      desired: { ...inProgressDesired, status: 'False' },
      want: [completed, { ...inProgressDesired, status: 'False', lastTransitionTime: nowText }],
      wantChange: 'status',
    },
    {
      name: 'only the two startup conditions exclude each other: other True conditions stay True',
      existing: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended', lastTransitionTime: earlier }],
      desired: completedDesired,
      want: [
        { type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended', lastTransitionTime: earlier },
        { ...completedDesired, lastTransitionTime: nowText },
      ],
      wantChange: 'added',
    },
    {
      name: 'False is never created from scratch, even beside other conditions',
      existing: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended', lastTransitionTime: earlier }],
      desired: { type: 'RestartingJobSet', status: 'False', reason: 'JobsReady', message: 'all jobs are ready' },
      want: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended', lastTransitionTime: earlier }],
      wantChange: 'none',
    },
    {
      name: 'False is never created from scratch: Suspended False on a JobSet that was never suspended',
      existing: [],
      desired: { type: 'Suspended', status: 'False', reason: 'ResumeJobs', message: 'jobset is resumed' },
      want: [],
      wantChange: 'none',
    },
    {
      name: 'an existing False condition turning True gets a new lastTransitionTime',
      existing: [{ type: 'RestartingJobSet', status: 'False', reason: 'JobsReady', message: 'all jobs are ready', lastTransitionTime: earlier }],
      desired: { type: 'RestartingJobSet', status: 'True', reason: 'DefaultFailurePolicy', message: 'applying RestartJobSet failure policy action (first failed job: js-a-0)' },
      want: [
        {
          type: 'RestartingJobSet',
          status: 'True',
          reason: 'DefaultFailurePolicy',
          message: 'applying RestartJobSet failure policy action (first failed job: js-a-0)',
          lastTransitionTime: nowText,
        },
      ],
      wantChange: 'status',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const before = structuredClone(tc.existing);
      const got = setCondition(tc.existing, tc.desired, now);
      assert.deepEqual(got.conditions, tc.want);
      assert.equal(got.change, tc.wantChange);
      assert.deepEqual(tc.existing, before, 'setCondition never mutates its input');
    });
  }

  it('reports a change when only the exclusive flip changed the list (upstream updateCondition returns true)', () => {
    // Prepare: both startup conditions True (written by someone else); Completed is set again unchanged.
    const existing = [inProgress, completed];
    // Act
    const got = setCondition(existing, completedDesired, now);
    // Assess: upstream sets shouldUpdate when it flips the partner, so the pass writes status and
    // queues the condition's event; the list did change here.
    assert.deepEqual(got.conditions, [{ ...inProgress, status: 'False' }, completed]);
    assert.notEqual(got.change, 'none');
  });

  it('rfc3339Seconds drops the milliseconds, as metav1.Time serialises', () => {
    assert.equal(rfc3339Seconds(now), nowText);
    assert.equal(rfc3339Seconds(Date.parse('2026-03-04T05:06:07.999Z')), '2026-03-04T05:06:07Z');
  });
});
