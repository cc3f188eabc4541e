/**
 * Failure policy. Pairs with upstream `pkg/controllers/failure_policy.go`: the first rule (in
 * order) that matches a failed Job decides; no match, or rules absent, means RestartJobSet
 * (the Configurable Failure Policy KEP's default action); no failure policy at all fails the
 * JobSet at the first failure.
 */
import {
  failedJobsMessage,
  failJobSetActionMessage,
  FAILURE_POLICY_RULE_REASON_PREFIX,
  EventReason,
  Reason,
  reachedMaxRestartsMessage,
  restartActionMessage,
} from '../jobset/api.ts';
import type { FailurePolicy, FailurePolicyAction, FailurePolicyRule } from '../jobset/schema.ts';
import type { FinishedJobRef } from './successPolicy.ts';

/** A failed Job with what its Failed condition says. */
export interface FailedJobRef extends FinishedJobRef {
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
  /** lastTransitionTime of the Job's Failed condition (RFC 3339), for "first failed job". */
  readonly failedAt?: string | undefined;
}

/** What the failure policy decided. */
export type FailureOutcome =
  | { readonly kind: 'Fail'; readonly reason: string; readonly message: string }
  | {
      readonly kind: 'Restart';
      /** Whether this restart spends one of maxRestarts. */
      readonly countsTowardsMax: boolean;
      /** Reason of the RestartingJobSet condition. */
      readonly reason: string;
      readonly message: string;
      /** Reason of the Warning event upstream records with the restart. */
      readonly eventReason: string;
    };

/** earliestFailure: the Job whose Failed condition came first (name breaks ties, for determinism). */
export const earliestFailure = (failed: readonly FailedJobRef[]): FailedJobRef | undefined =>
  [...failed].sort((a, b) => (a.failedAt ?? '').localeCompare(b.failedAt ?? '') || a.name.localeCompare(b.name))[0];

/** matchesPattern: RE2-style unanchored match; an invalid pattern matches nothing (upstream ignores it). */
const matchesPattern = (pattern: string, message: string): boolean => {
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern);
  } catch {
    // upstream failure_policy.go: a pattern that does not compile is skipped, not an error.
    return false;
  }
  return compiled.test(message);
};

/** ruleMatchesJob: reasons, message patterns and targets all admit the Job (empty = any). */
export const ruleMatchesJob = (rule: FailurePolicyRule, job: FailedJobRef): boolean => {
  const reasons = rule.onJobFailureReasons ?? [];
  const patterns = rule.onJobFailureMessagePatterns ?? [];
  const targets = rule.targetReplicatedJobs ?? [];
  // upstream ruleIsApplicable: a Job that does not say which replicatedJob it belongs to matches no rule.
  if (job.replicatedJob === '') return false;
  if (reasons.length > 0 && !reasons.includes(job.reason ?? '')) return false;
  if (patterns.length > 0 && !patterns.some((pattern) => matchesPattern(pattern, job.message ?? ''))) return false;
  if (targets.length > 0 && !targets.includes(job.replicatedJob)) return false;
  return true;
};

/** Context an action applier needs. */
interface ApplierInput {
  readonly policy: FailurePolicy;
  readonly restartsCountTowardsMax: number;
  readonly firstFailedJob: string;
  /** Reason of RestartingJobSet: FailurePolicy_<rule> when a rule matched, DefaultFailurePolicy otherwise. */
  readonly restartReason: string;
}

const restartOrFail = (input: ApplierInput, action: 'RestartJobSet' | 'RestartJobSetAndIgnoreMaxRestarts'): FailureOutcome => {
  const countsTowardsMax = action === 'RestartJobSet';
  if (countsTowardsMax && input.restartsCountTowardsMax >= (input.policy.maxRestarts ?? 0)) {
    return { kind: 'Fail', reason: Reason.ReachedMaxRestarts, message: reachedMaxRestartsMessage(input.firstFailedJob) };
  }
  return {
    kind: 'Restart',
    countsTowardsMax,
    reason: input.restartReason,
    message: restartActionMessage(action, input.firstFailedJob),
    eventReason: countsTowardsMax
      ? EventReason.RestartJobSetFailurePolicyAction
      : EventReason.RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction,
  };
};

/**
 * appliers: one function per failure-policy action. RestartJob and RestartJobAndIgnoreMaxRestarts
 * need upstream's RestartJob feature gate, which is off; validation rejects them, so they never
 * reach here — were they to, the JobSet-wide restart is the safe superset of a single-Job restart.
 */
const appliers: Record<FailurePolicyAction, (input: ApplierInput) => FailureOutcome> = {
  FailJobSet: (input) => ({ kind: 'Fail', reason: Reason.FailJobSetFailurePolicyAction, message: failJobSetActionMessage(input.firstFailedJob) }),
  RestartJobSet: (input) => restartOrFail(input, 'RestartJobSet'),
  RestartJobSetAndIgnoreMaxRestarts: (input) => restartOrFail(input, 'RestartJobSetAndIgnoreMaxRestarts'),
  RestartJob: (input) => restartOrFail(input, 'RestartJobSet'),
  RestartJobAndIgnoreMaxRestarts: (input) => restartOrFail(input, 'RestartJobSetAndIgnoreMaxRestarts'),
};

/**
 * decideFailure: what to do about the failed Jobs of the current attempt (non-empty).
 * `restartsCountTowardsMax` is status.restartsCountTowardsMax.
 */
export const decideFailure = (
  policy: FailurePolicy | undefined,
  failed: readonly FailedJobRef[],
  restartsCountTowardsMax: number,
): FailureOutcome => {
  const first = earliestFailure(failed);
  const firstName = first?.name ?? '';
  if (!policy) return { kind: 'Fail', reason: Reason.FailedJobs, message: failedJobsMessage(firstName) };
  for (const rule of policy.rules ?? []) {
    const matched = earliestFailure(failed.filter((job) => ruleMatchesJob(rule, job)));
    if (matched) {
      return appliers[rule.action]({
        policy,
        restartsCountTowardsMax,
        firstFailedJob: matched.name,
        restartReason: `${FAILURE_POLICY_RULE_REASON_PREFIX}${rule.name ?? ''}`,
      });
    }
  }
  return appliers.RestartJobSet({ policy, restartsCountTowardsMax, firstFailedJob: firstName, restartReason: Reason.DefaultFailurePolicy });
};
