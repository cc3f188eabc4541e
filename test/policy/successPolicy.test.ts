/**
 * Success policy: upstream success_policy_test.go ported to successPolicyMet
 * Upstream tests four helpers; Lineup has one predicate, so each
 * case asks it the question the helper answers:
 *  - jobMatchesSuccessPolicy(job): does one success of that Job satisfy operator Any?
 *  - replicatedJobMatchesSuccessPolicy(rjob): does a replicatedJob of 1 replica with no success
 *    leave operator All unmet (its replica is required)?
 *  - numJobsMatchingSuccessPolicy(jobs): the largest count of required replicas the Jobs still meet.
 *  - numJobsExpectedToSucceed(js): the fewest successes of a targeted replicatedJob that meet it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SuccessPolicy } from '../../lib/jobset/schema.ts';
import { successPolicyMet, type FinishedJobRef } from '../../lib/policy/successPolicy.ts';

const succeeded = (replicatedJob: string, count = 1): FinishedJobRef[] =>
  Array.from({ length: count }, (_, index) => ({ name: `test-jobset-${replicatedJob}-${index}`, replicatedJob }));

const targets = ['test-replicated-job-1', 'test-replicated-job-2'];

/** matchingCount: the largest k for which k required replicas are met by `jobs` (upstream's count). */
const matchingCount = (policy: SuccessPolicy, jobs: readonly FinishedJobRef[]): number => {
  // With targets, the required replicas must belong to a targeted replicatedJob; any will do.
  const requiring = policy.targetReplicatedJobs?.[0] ?? 'any-replicated-job';
  let k = 0;
  while (k <= jobs.length && successPolicyMet(policy, [{ name: requiring, replicas: k + 1 }], jobs)) k += 1;
  return k;
};

/** expectedToSucceed: the fewest successes of the first targeted replicatedJob that meet the policy. */
const expectedToSucceed = (policy: SuccessPolicy, replicatedJobs: readonly { name: string; replicas: number }[]): number => {
  const target = policy.targetReplicatedJobs?.[0] ?? replicatedJobs[0]?.name ?? 'any-replicated-job';
  const total = replicatedJobs.reduce((sum, rjob) => sum + rjob.replicas, 0);
  for (let n = 0; n <= total + 1; n += 1) if (successPolicyMet(policy, replicatedJobs, succeeded(target, n))) return n;
  return Number.POSITIVE_INFINITY;
};

describe('success_policy_test.go', () => {
  const jobCases: { name: string; policy: SuccessPolicy; replicatedJob: string; want: boolean }[] = [
    { name: "jobset's TargetReplicatedJobs is empty", policy: { operator: 'Any', targetReplicatedJobs: [] }, replicatedJob: 'test-replicated-job-1', want: true },
    { name: 'job matches one of the TargetReplicatedJobs', policy: { operator: 'Any', targetReplicatedJobs: targets }, replicatedJob: 'test-replicated-job-1', want: true },
    { name: 'job does not match any of the TargetReplicatedJobs', policy: { operator: 'Any', targetReplicatedJobs: targets }, replicatedJob: 'test-replicated-job-3', want: false },
  ];
  for (const tc of jobCases) {
    it(`TestJobMatchesSuccessPolicy: ${tc.name}`, () => {
      assert.equal(successPolicyMet(tc.policy, [{ name: tc.replicatedJob, replicas: 1 }], succeeded(tc.replicatedJob)), tc.want);
    });
  }

  const rjobCases: { name: string; policy: SuccessPolicy; replicatedJob: string; want: boolean }[] = [
    { name: "jobset's TargetReplicatedJobs is empty", policy: { operator: 'All', targetReplicatedJobs: [] }, replicatedJob: 'test-replicated-job-1', want: true },
    { name: 'matching case', policy: { operator: 'All', targetReplicatedJobs: targets }, replicatedJob: 'test-replicated-job-1', want: true },
    { name: 'non-matching case', policy: { operator: 'All', targetReplicatedJobs: targets }, replicatedJob: 'test-replicated-job-3', want: false },
  ];
  for (const tc of rjobCases) {
    it(`TestReplicatedJobMatchesSuccessPolicy: ${tc.name}`, () => {
      const required = !successPolicyMet(tc.policy, [{ name: tc.replicatedJob, replicas: 1 }], []);
      assert.equal(required, tc.want);
    });
  }

  const countCases: { name: string; policy: SuccessPolicy; jobs: FinishedJobRef[]; want: number }[] = [
    {
      name: 'one job matches the success policy',
      policy: { operator: 'All', targetReplicatedJobs: targets },
      jobs: [...succeeded('test-replicated-job-1'), ...succeeded('test-replicated-job-3')],
      want: 1,
    },
    {
      name: 'all jobs matches the success policy',
      policy: { operator: 'All', targetReplicatedJobs: targets },
      jobs: [...succeeded('test-replicated-job-1'), ...succeeded('test-replicated-job-2')],
      want: 2,
    },
    {
      name: 'no jobs match the success policy',
      policy: { operator: 'All', targetReplicatedJobs: targets },
      jobs: [...succeeded('test-replicated-job-3'), ...succeeded('test-replicated-job-4')],
      want: 0,
    },
    {
      name: 'empty target replicated jobs, all job matches the success policy',
      policy: { operator: 'All', targetReplicatedJobs: [] },
      jobs: [...succeeded('test-replicated-job-1'), ...succeeded('test-replicated-job-2')],
      want: 2,
    },
  ];
  for (const tc of countCases) {
    it(`TestNumJobsMatchingSuccessPolicy: ${tc.name}`, () => {
      assert.equal(matchingCount(tc.policy, tc.jobs), tc.want);
    });
  }

  const expectedCases: { name: string; policy: SuccessPolicy; replicatedJobs: { name: string; replicas: number }[]; want: number }[] = [
    { name: 'any job completion fulfills success policy', policy: { operator: 'Any' }, replicatedJobs: [], want: 1 },
    {
      name: 'all replicated jobs match success policy',
      policy: { operator: 'All', targetReplicatedJobs: targets },
      replicatedJobs: [
        { name: 'test-replicated-job-1', replicas: 1 },
        { name: 'test-replicated-job-2', replicas: 2 },
      ],
      want: 3,
    },
    {
      name: "some replicated jobs don't match success policy",
      policy: { operator: 'All', targetReplicatedJobs: ['test-replicated-job-1', 'test-replicated-job-3'] },
      replicatedJobs: [
        { name: 'test-replicated-job-1', replicas: 1 },
        { name: 'test-replicated-job-2', replicas: 2 },
        { name: 'test-replicated-job-3', replicas: 3 },
      ],
      want: 4,
    },
  ];
  for (const tc of expectedCases) {
    it(`TestNumJobsExpectedToSucceed: ${tc.name}`, () => {
      assert.equal(expectedToSucceed(tc.policy, tc.replicatedJobs), tc.want);
    });
  }
});

describe('policy/successPolicy', () => {
  const replicatedJobs = [
    { name: 'driver', replicas: 1 },
    { name: 'workers', replicas: 3 },
  ];
  const cases: { name: string; policy: SuccessPolicy | undefined; successful: FinishedJobRef[]; want: boolean }[] = [
    { name: 'a missing success policy is All over every replicatedJob: not met while one Job is missing', policy: undefined, successful: [...succeeded('driver'), ...succeeded('workers', 2)], want: false },
    { name: 'a missing success policy is All over every replicatedJob: met when every Job succeeded', policy: undefined, successful: [...succeeded('driver'), ...succeeded('workers', 3)], want: true },
    { name: 'All with targets ignores the untargeted replicatedJobs', policy: { operator: 'All', targetReplicatedJobs: ['workers'] }, successful: succeeded('workers', 3), want: true },
    { name: 'All does not count successes of untargeted replicatedJobs', policy: { operator: 'All', targetReplicatedJobs: ['driver'] }, successful: succeeded('workers', 3), want: false },
    { name: 'Any is met by one success of a targeted replicatedJob', policy: { operator: 'Any', targetReplicatedJobs: ['driver'] }, successful: succeeded('driver'), want: true },
    { name: 'Any is not met by successes of untargeted replicatedJobs only', policy: { operator: 'Any', targetReplicatedJobs: ['driver'] }, successful: succeeded('workers', 3), want: false },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      assert.equal(successPolicyMet(tc.policy, replicatedJobs, tc.successful), tc.want);
    });
  }
});
