/**
 * Failure policy: upstream failure_policy_test.go ported to decideFailure, ruleMatchesJob and
 * earliestFailure.
 *
 * Not ported from TestApplyFailurePolicyRuleAction — they need the RestartJob feature gate
 * (per-Job restarts, jobRestarts/jobRestartsCountTowardsMax), which Lineup does not implement
 * and its validation rejects: "RestartJob action when combined restarts < maxRestarts increments
 * jobRestart count and counts towards max", "RestartJob action when combined restarts >=
 * maxRestarts fails the jobset", "RestartJobSet action when combined restarts >= maxRestarts and
 * a previous individual restart fails the jobset", "RestartJobAndIgnoreMaxRestarts action does
 * not count toward max restarts".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FailurePolicy, FailurePolicyRule } from '../../lib/jobset/schema.ts';
import { decideFailure, earliestFailure, ruleMatchesJob, type FailedJobRef, type FailureOutcome } from '../../lib/policy/failurePolicy.ts';

/** failedJob: a failed Job as the policy sees it; failedAt is its Failed condition's lastTransitionTime. */
const failedJob = (name: string, failedAt: string, extra: Partial<FailedJobRef> = {}): FailedJobRef => ({
  name,
  replicatedJob: 'test-replicatedJob',
  failedAt,
  ...extra,
});

describe('failure_policy_test.go', () => {
  const firstFailedCases: { name: string; failed: FailedJobRef[]; want: string | undefined }[] = [
    { name: 'No failed jobs', failed: [], want: undefined },
    { name: 'Single failed job', failed: [failedJob('job1', '2025-12-31T23:00:00Z')], want: 'job1' },
    {
      name: 'Multiple failed jobs, earliest first',
      failed: [failedJob('job1', '2025-12-31T21:00:00Z'), failedJob('job2', '2025-12-31T19:00:00Z')],
      want: 'job2',
    },
    // Not ported: "Jobs without failed condition". A FailedJobRef is made only for a Job in the
    // failed bucket (a Failed=True condition), so Lineup has no ref for a Job that did not fail.
  ];
  for (const tc of firstFailedCases) {
    it(`TestFindFirstFailedJob: ${tc.name}`, () => {
      assert.equal(earliestFailure(tc.failed)?.name, tc.want);
    });
  }

  const rjob1 = 'test-replicated-job-1';
  const rjob2 = 'test-replicated-job-2';
  const reason1 = 'BackoffLimitExceeded';
  const reason2 = 'DeadlineExceeded';
  // Upstream's rules carry no action in this test; ruleMatchesJob does not read it.
  const rule = (fields: Omit<FailurePolicyRule, 'action'>): FailurePolicyRule => ({ action: 'RestartJobSet', ...fields });
  const applicableCases: { name: string; rule: FailurePolicyRule; job: FailedJobRef; want: boolean }[] = [
    {
      name: 'a job has failed and the failure policy rule matches all possible parent replicated jobs and matches all possible job failure reasons',
      rule: rule({ onJobFailureReasons: [], targetReplicatedJobs: [] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: reason1 },
      want: true,
    },
    {
      name: 'a job has failed and the failure policy rule matches all possible parent replicated jobs and matches the job failure reason',
      rule: rule({ onJobFailureReasons: [reason1], targetReplicatedJobs: [] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: reason1 },
      want: true,
    },
    {
      name: 'a job has failed and the failure policy rule matches all possible parent replicated jobs and does not match the job failure reason',
      rule: rule({ onJobFailureReasons: [reason1], targetReplicatedJobs: [] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: reason2 },
      want: false,
    },
    {
      name: 'a job has failed and the failure policy rule matches the parent replicatedJob and matches all possible job failure reasons',
      rule: rule({ onJobFailureReasons: [], targetReplicatedJobs: [rjob1] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: reason1 },
      want: true,
    },
    {
      name: 'a job has failed and the failure policy rule matches the parent replicatedJob and matches the job failure reason',
      rule: rule({ onJobFailureReasons: [reason1], targetReplicatedJobs: [rjob1] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: reason1 },
      want: true,
    },
    {
      name: 'a job has failed and the failure policy rule matches the parent replicatedJob and does not match the job failure reason',
      rule: rule({ onJobFailureReasons: [reason1], targetReplicatedJobs: [rjob1] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: reason2 },
      want: false,
    },
    {
      name: 'a job has failed and the failure policy rule does not match the parent replicatedJob and matches all possible job failure reasons',
      rule: rule({ onJobFailureReasons: [], targetReplicatedJobs: [rjob1] }),
      job: { name: 'test-job', replicatedJob: rjob2, reason: reason1 },
      want: false,
    },
    {
      name: 'a job has failed and the failure policy rule does not match the parent replicatedJob and matches the job failure reason',
      rule: rule({ onJobFailureReasons: [reason1], targetReplicatedJobs: [rjob1] }),
      job: { name: 'test-job', replicatedJob: rjob2, reason: reason1 },
      want: false,
    },
    {
      name: 'a job has failed and the failure policy rule does not match the parent replicatedJob and does not match the job failure reason',
      rule: rule({ onJobFailureReasons: [reason1], targetReplicatedJobs: [rjob1] }),
      job: { name: 'test-job', replicatedJob: rjob2, reason: reason2 },
      want: false,
    },
    {
      name: 'a job has failed and the failure policy rule matches the job failure message pattern',
      rule: rule({ onJobFailureMessagePatterns: ['^job failed because.*'] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: '', message: 'job failed because of a bug' },
      want: true,
    },
    {
      name: 'a job has failed and the failure policy rule does not match the job failure message pattern',
      rule: rule({ onJobFailureMessagePatterns: ['^job failed because.*'] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: '', message: 'another error message' },
      want: false,
    },
    {
      name: 'a job has failed and the failure policy rule matches both the job failure reason and message pattern',
      rule: rule({ onJobFailureReasons: [reason1], onJobFailureMessagePatterns: ['.*bug.*'] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: reason1, message: 'job failed because of a bug' },
      want: true,
    },
    {
      name: 'a job has failed and the failure policy rule matches the job failure reason but not the message pattern',
      rule: rule({ onJobFailureReasons: [reason1], onJobFailureMessagePatterns: ['.*bug.*'] }),
      job: { name: 'test-job', replicatedJob: rjob1, reason: reason1, message: 'job failed due to something else' },
      want: false,
    },
  ];
  for (const tc of applicableCases) {
    it(`TestFailurePolicyRuleIsApplicable: ${tc.name}`, () => {
      assert.equal(ruleMatchesJob(tc.rule, tc.job), tc.want);
    });
  }

  // Upstream's findFirstFailedPolicyRuleAndJob returns (rule, job). decideFailure folds it into
  // the outcome: a matched rule names itself in the reason (FailurePolicy_<name>) and its
  // earliest matching Job in the message; "nil, nil" is the default action (DefaultFailurePolicy).
  // Upstream's rules are unnamed; they are named here so the reason tells them apart.
  const failedJob1 = failedJob('job1', '2025-12-31T18:00:00Z', { reason: 'BackoffLimitExceeded' });
  const failedJob1DupEarlierFailure = failedJob('job1DupEarlierFailure', '2025-12-31T12:00:00Z', { reason: 'BackoffLimitExceeded' });
  const failedJob2 = failedJob('job2', '2025-12-31T21:00:00Z', { reason: 'DeadlineExceeded' });
  const failedJob3 = failedJob('job3', '2025-12-31T23:00:00Z', { reason: 'FailedIndexes' });
  const failurePolicyRule1: FailurePolicyRule = { name: 'failurePolicyRule1', action: 'RestartJobSet', onJobFailureReasons: ['BackoffLimitExceeded'] };
  const failurePolicyRule2: FailurePolicyRule = { name: 'failurePolicyRule2', action: 'RestartJobSet', onJobFailureReasons: ['DeadlineExceeded'] };
  const failurePolicyRule3: FailurePolicyRule = { name: 'failurePolicyRule3', action: 'RestartJobSet', onJobFailureReasons: ['FailedIndexes'] };
  const unmatchedFailurePolicyRule: FailurePolicyRule = { name: 'unmatchedFailurePolicyRule', action: 'RestartJobSet', targetReplicatedJobs: ['fakeReplicatedJobName'] };

  const firstRuleCases: { name: string; rules: FailurePolicyRule[]; failed: FailedJobRef[]; wantRule: FailurePolicyRule | undefined; wantJob: FailedJobRef | undefined }[] = [
    {
      // The planner never decides on zero failed Jobs; with none, no rule can match.
      name: 'There are 0 failed jobs and there are 0 failure policy rules, therefore nil is returned for both the rule and job.',
      rules: [],
      failed: [],
      wantRule: undefined,
      wantJob: undefined,
    },
    {
      name: 'There is 1 failed job and there are 0 failure policy rules, therefore nil is returned for both the rule and job.',
      rules: [],
      failed: [failedJob1],
      wantRule: undefined,
      wantJob: undefined,
    },
    {
      name: 'There is 1 failed job, there is 1 failure policy rule, and the failure policy rule does not match the job, therefore nil is returned for both the rule and job.',
      rules: [failurePolicyRule2],
      failed: [failedJob1],
      wantRule: undefined,
      wantJob: undefined,
    },
    {
      name: 'There is 1 failed job, there are 3 failure policy rules, and the failed job matches the first failure policy rule, therefore the job and first failure policy rule are returned.',
      rules: [failurePolicyRule1, failurePolicyRule2, failurePolicyRule3],
      failed: [failedJob1],
      wantRule: failurePolicyRule1,
      wantJob: failedJob1,
    },
    {
      name: 'There is 1 failed job, there are 3 failure policy rules, the failed job does not match the first failure policy rule, and the failed job matches the second failure policy rule, therefore the job and second failure policy rule are returned.',
      rules: [failurePolicyRule1, failurePolicyRule2, failurePolicyRule3],
      failed: [failedJob2],
      wantRule: failurePolicyRule2,
      wantJob: failedJob2,
    },
    {
      name: 'There is 1 failed job, there are 3 failure policy rules, the failed job does not match the first nor second failure policy rules, and the failed job matches the third failure policy rule, therefore the job and the the third failure policy rule are returned.',
      rules: [failurePolicyRule1, failurePolicyRule2, failurePolicyRule3],
      failed: [failedJob3],
      wantRule: failurePolicyRule3,
      wantJob: failedJob3,
    },
    {
      name: 'There are 2 failed jobs and there are 0 failure policy rules, therefore nil is returned for both the rule and job.',
      rules: [],
      failed: [failedJob1, failedJob2],
      wantRule: undefined,
      wantJob: undefined,
    },
    {
      name: 'There are 2 failed jobs, the second job failed before the first job, there is 1 failure policy rule, and the failure policy rule does not match any of the jobs, therefore nil is returned for both the rule and job.',
      rules: [failurePolicyRule2],
      failed: [failedJob1, failedJob1DupEarlierFailure],
      wantRule: undefined,
      wantJob: undefined,
    },
    {
      name: 'There are 2 failed jobs, the second job failed before the first job, there is 1 failure policy rule, and the failure policy rule matches both jobs, therefore the second job and the failure policy rule are returned.',
      rules: [failurePolicyRule1],
      failed: [failedJob1, failedJob1DupEarlierFailure],
      wantRule: failurePolicyRule1,
      wantJob: failedJob1DupEarlierFailure,
    },
    {
      name: 'There are 2 failed jobs, the second job failed before the first job, there are 2 failure policy rules, the first failure policy does not match any of the jobs, and the second failure policy rule matches both jobs, therefore the second job and the second failure policy rule are returned.',
      rules: [unmatchedFailurePolicyRule, failurePolicyRule1],
      failed: [failedJob1, failedJob1DupEarlierFailure],
      wantRule: failurePolicyRule1,
      wantJob: failedJob1DupEarlierFailure,
    },
  ];
  for (const tc of firstRuleCases) {
    it(`TestFindFirstFailedPolicyRuleAndJob: ${tc.name}`, () => {
      const outcome = decideFailure({ maxRestarts: 10, rules: tc.rules }, tc.failed, 0);
      assert.equal(outcome.kind, 'Restart');
      if (tc.wantRule === undefined) {
        assert.equal(outcome.reason, 'DefaultFailurePolicy');
        return;
      }
      assert.equal(outcome.reason, `FailurePolicy_${tc.wantRule.name ?? ''}`);
      assert.equal(outcome.message, `applying RestartJobSet failure policy action (first failed job: ${tc.wantJob?.name ?? ''})`);
    });
  }

  // Upstream calls the action's applier directly and compares the JobSet status (ignoring
  // message and lastTransitionTime). decideFailure returns what the planner writes: Fail ⇒
  // Failed=True with reason/message and terminalState Failed; Restart ⇒ restarts + 1,
  // restartsCountTowardsMax + 1 when countsTowardsMax, RestartingJobSet=True with reason/message.
  const failedJobRef = failedJob('failed-job', '2026-01-01T00:00:00Z');
  const actionCases: { name: string; policy: FailurePolicy; restartsCountTowardsMax: number; want: FailureOutcome }[] = [
    {
      // Upstream applies FailJobSet with no rule; in Lineup only a matching rule selects it.
      name: 'FailJobSet action',
      policy: { rules: [{ name: 'failurePolicyRule0', action: 'FailJobSet' }] },
      restartsCountTowardsMax: 0,
      want: { kind: 'Fail', reason: 'FailJobSetFailurePolicyAction', message: 'applying FailJobSet failure policy action (first failed job: failed-job)' },
    },
    {
      name: 'RestartJobSet when restarts < maxRestarts increments restarts count and counts towards max',
      policy: { maxRestarts: 5 },
      restartsCountTowardsMax: 1,
      want: {
        kind: 'Restart',
        countsTowardsMax: true,
        reason: 'DefaultFailurePolicy',
        message: 'applying RestartJobSet failure policy action (first failed job: failed-job)',
        eventReason: 'RestartJobSetFailurePolicyAction',
      },
    },
    {
      name: 'RestartJobSet when restarts < maxRestarts with matching rule sets FailurePolicy_{RuleName} reason',
      policy: { maxRestarts: 5, rules: [{ name: 'Rule1', action: 'RestartJobSet' }] },
      restartsCountTowardsMax: 1,
      want: {
        kind: 'Restart',
        countsTowardsMax: true,
        reason: 'FailurePolicy_Rule1',
        message: 'applying RestartJobSet failure policy action (first failed job: failed-job)',
        eventReason: 'RestartJobSetFailurePolicyAction',
      },
    },
    {
      name: 'RestartJobSet action when restarts >= maxRestarts fails the jobset',
      policy: { maxRestarts: 2 },
      restartsCountTowardsMax: 2,
      want: { kind: 'Fail', reason: 'ReachedMaxRestarts', message: 'jobset failed due to reaching max number of restarts (first failed job: failed-job)' },
    },
    {
      // Upstream applies this action with no rule (reason DefaultFailurePolicy); in Lineup only a
      // matching rule selects it, so the reason names that rule.
      name: 'RestartJobSetAndIgnoreMaxRestarts action does not count toward max restarts',
      policy: { maxRestarts: 1, rules: [{ name: 'failurePolicyRule0', action: 'RestartJobSetAndIgnoreMaxRestarts' }] },
      restartsCountTowardsMax: 1,
      want: {
        kind: 'Restart',
        countsTowardsMax: false,
        reason: 'FailurePolicy_failurePolicyRule0',
        message: 'applying RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: failed-job)',
        eventReason: 'RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction',
      },
    },
  ];
  for (const tc of actionCases) {
    it(`TestApplyFailurePolicyRuleAction: ${tc.name}`, () => {
      assert.deepEqual(decideFailure(tc.policy, [failedJobRef], tc.restartsCountTowardsMax), tc.want);
    });
  }
});

describe('policy/failurePolicy', () => {
  it('without a failure policy the JobSet fails, naming the earliest failed Job (upstream executeFailurePolicy)', () => {
    const failed = [failedJob('js-b-0', '2026-01-01T00:00:05Z'), failedJob('js-a-0', '2026-01-01T00:00:01Z')];
    assert.deepEqual(decideFailure(undefined, failed, 0), {
      kind: 'Fail',
      reason: 'FailedJobs',
      message: 'jobset failed due to one or more job failures (first failed job: js-a-0)',
    });
  });

  it('with no matching rule the default RestartJobSet names the earliest failed Job of all', () => {
    const failed = [failedJob('js-b-0', '2026-01-01T00:00:05Z', { reason: 'DeadlineExceeded' }), failedJob('js-a-0', '2026-01-01T00:00:01Z')];
    const outcome = decideFailure({ maxRestarts: 3, rules: [{ name: 'never', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy'] }] }, failed, 0);
    assert.equal(outcome.kind, 'Restart');
    assert.equal(outcome.reason, 'DefaultFailurePolicy');
    assert.equal(outcome.message, 'applying RestartJobSet failure policy action (first failed job: js-a-0)');
  });

  it('the first rule in order wins, even when a later rule matches an earlier failure', () => {
    const failed = [failedJob('js-a-0', '2026-01-01T00:00:01Z', { reason: 'BackoffLimitExceeded' }), failedJob('js-b-0', '2026-01-01T00:00:05Z', { reason: 'DeadlineExceeded' })];
    const outcome = decideFailure(
      {
        rules: [
          { name: 'deadline', action: 'FailJobSet', onJobFailureReasons: ['DeadlineExceeded'] },
          { name: 'backoff', action: 'RestartJobSet', onJobFailureReasons: ['BackoffLimitExceeded'] },
        ],
      },
      failed,
      0,
    );
    assert.deepEqual(outcome, { kind: 'Fail', reason: 'FailJobSetFailurePolicyAction', message: 'applying FailJobSet failure policy action (first failed job: js-b-0)' });
  });

  it('an absent maxRestarts means no restart that counts is allowed', () => {
    const outcome = decideFailure({}, [failedJob('js-a-0', '2026-01-01T00:00:01Z')], 0);
    assert.equal(outcome.kind, 'Fail');
    assert.equal(outcome.reason, 'ReachedMaxRestarts');
  });

  it('a message pattern that does not compile is skipped; the rule still matches through another pattern (upstream anyMatchFound)', () => {
    const job: FailedJobRef = { name: 'js-a-0', replicatedJob: 'a', reason: 'PodFailurePolicy', message: 'container exited with code 137' };
    assert.equal(ruleMatchesJob({ action: 'FailJobSet', onJobFailureMessagePatterns: ['('] }, job), false);
    assert.equal(ruleMatchesJob({ action: 'FailJobSet', onJobFailureMessagePatterns: ['(', 'code 13[0-9]'] }, job), true);
  });

  it('a failed Job without a replicatedjob-name label matches no rule, even one without targets (upstream ruleIsApplicable)', () => {
    // upstream failure_policy.go ruleIsApplicable: parentReplicatedJobName missing or "" ⇒ the rule does not apply.
    const unlabelled: FailedJobRef = { name: 'js-a-0', replicatedJob: '', reason: 'BackoffLimitExceeded', failedAt: '2026-01-01T00:00:01Z' };
    assert.equal(ruleMatchesJob({ action: 'FailJobSet' }, unlabelled), false);
  });

  it('earliestFailure breaks a tie on failure time by name, so the choice does not depend on list order', () => {
    const a = failedJob('js-a-0', '2026-01-01T00:00:01Z');
    const b = failedJob('js-b-0', '2026-01-01T00:00:01Z');
    assert.equal(earliestFailure([b, a])?.name, 'js-a-0');
    assert.equal(earliestFailure([a, b])?.name, 'js-a-0');
  });
});
