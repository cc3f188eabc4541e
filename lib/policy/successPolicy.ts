/**
 * Success policy. Pairs with upstream `pkg/controllers/success_policy.go`: `Any` needs one
 * successful Job of a targeted replicatedJob; `All` needs as many successful targeted Jobs as
 * the targeted replicatedJobs have replicas. Empty targets mean every replicatedJob.
 */
import type { SuccessPolicy } from '../jobset/schema.ts';

/** A finished Job as the policies see it. */
export interface FinishedJobRef {
  readonly name: string;
  readonly replicatedJob: string;
}

/**
 * successPolicyMet: whether the JobSet's success policy holds. A missing policy is `All`
 * (upstream dereferences it unconditionally; Lineup defaults it).
 */
export const successPolicyMet = (
  policy: SuccessPolicy | undefined,
  replicatedJobs: readonly { readonly name: string; readonly replicas: number }[],
  successful: readonly FinishedJobRef[],
): boolean => {
  const operator = policy?.operator ?? 'All';
  const targets = policy?.targetReplicatedJobs?.length ? new Set(policy.targetReplicatedJobs) : undefined;
  const targeted = (name: string): boolean => targets === undefined || targets.has(name);
  const matching = successful.filter((job) => targeted(job.replicatedJob)).length;
  if (operator === 'Any') return matching > 0;
  const needed = replicatedJobs.filter((rjob) => targeted(rjob.name)).reduce((sum, rjob) => sum + rjob.replicas, 0);
  return matching >= needed;
};
