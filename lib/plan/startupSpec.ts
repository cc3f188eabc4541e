/**
 * startupPolicySpecOf: the JobSet's startup policy in the one normalised shape lib/policy
 * evaluates. Validation has already made the forms mutually exclusive.
 */
import type { JobSet } from '../jobset/schema.ts';
import { startupRulesOf } from '../jobset/startupRules.ts';
import type { StartupPolicySpec, StartupForm } from '../policy/types.ts';

/** startupPolicySpecOf: which form applies and what it needs. */
export const startupPolicySpecOf = (jobSet: JobSet): StartupPolicySpec => {
  const replicatedJobs = (jobSet.spec.replicatedJobs ?? []).map((rjob) => ({
    name: rjob.name,
    replicas: rjob.replicas ?? 1,
    dependsOn: rjob.dependsOn,
  }));
  const rules = startupRulesOf(jobSet);
  if (rules?.ok) return { form: 'Rules', replicatedJobs, rules: rules.rules };
  let form: StartupForm = 'AnyOrder';
  if (jobSet.spec.startupPolicy?.startupPolicyOrder === 'InOrder') form = 'InOrder';
  else if (replicatedJobs.some((rjob) => (rjob.dependsOn ?? []).length > 0)) form = 'DependsOn';
  return { form, replicatedJobs };
};
