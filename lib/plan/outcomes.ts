/**
 * The steps of a pass that decide a JobSet's outcome rather than run it: deletion, validation,
 * a finished JobSet and its TTL, an earlier attempt's Jobs, the failure policy and the success
 * policy. Each is one step of plan() (lib/plan/planner.ts), in upstream's reconcile order.
 */
import { ConditionType, Message, Reason } from '../jobset/api.ts';
import type { Condition, Job, JobSet } from '../jobset/schema.ts';
import { validateJobSet } from '../jobset/validation.ts';
import { decideFailure, type FailedJobRef } from '../policy/failurePolicy.ts';
import { successPolicyMet } from '../policy/successPolicy.ts';
import { isDeleting, replicatedJobOf } from './childJobs.ts';
import { conditionIsTrue } from './conditions.ts';
import { applyCondition, explained, finish, statusWrite, tag, type CountedPass, type Pass } from './pass.ts';
import { ActionReasonCode, failureRuleMessage, successPolicyMessage, type ActionReason } from './reasons.ts';
import { holdsRecordFinalizer, recordedGoneRefs, releaseOf } from './recordFinalizer.ts';
import type { Action, Plan, PlanOptions } from './types.ts';

/** jobSetFinished: a Completed or Failed condition is True (upstream jobSetFinished). */
export const jobSetFinished = (conditions: readonly Condition[]): boolean =>
  conditionIsTrue(conditions, ConditionType.Completed) || conditionIsTrue(conditions, ConditionType.Failed);

/** finishedRefs: the Jobs of a bucket as the policies see them. */
const finishedRefs = (jobs: readonly Job[]): FailedJobRef[] =>
  jobs.map((job) => {
    const failedCondition = (job.status?.conditions ?? []).find((c) => c.type === 'Failed' && c.status === 'True');
    return {
      name: job.metadata.name ?? '',
      replicatedJob: replicatedJobOf(job) ?? '',
      reason: failedCondition?.reason,
      message: failedCondition?.message,
      failedAt: failedCondition?.lastTransitionTime,
    };
  });

/** ttlOutcome: delete the finished JobSet once ttlSecondsAfterFinished has passed, else come back then. */
const ttlOutcome = (jobSet: JobSet, conditions: readonly Condition[], now: number): { expired: boolean; requeueAfterMs?: number } => {
  const ttl = jobSet.spec.ttlSecondsAfterFinished;
  if (ttl === undefined) return { expired: false };
  const finished = conditions.find((c) => (c.type === ConditionType.Completed || c.type === ConditionType.Failed) && c.status === 'True');
  const finishedAt = Date.parse(finished?.lastTransitionTime ?? '');
  if (Number.isNaN(finishedAt)) return { expired: false };
  const expiry = finishedAt + ttl * 1000;
  return now >= expiry ? { expired: true } : { expired: false, requeueAfterMs: expiry - now };
};

/** releaseForDeletion: the JobSet is going away: let garbage collection take Jobs that wait on Lineup's finalizer. */
export const releaseForDeletion = (pass: Pass): Plan => {
  const releases: Action[] = [...pass.children.byName.values()]
    .filter(holdsRecordFinalizer)
    .map(releaseOf);
  return {
    ...pass.base,
    skipped: 'Deleting',
    actions: releases,
    reasons: releases.map(() => ({ code: ActionReasonCode.FinalizerReleased, message: 'jobset is being deleted' })),
    reason: `jobset is being deleted; released ${releases.length} finalizers`,
  };
};

/**
 * rejectIfInvalid: Lineup's validation. An invalid JobSet starts nothing and says why, in a
 * condition and an Event; a valid one gets Rejected=False and undefined here.
 */
export const rejectIfInvalid = (pass: Pass, options: PlanOptions): Plan | undefined => {
  const errors = validateJobSet(pass.jobSet, options.limits);
  if (errors.length === 0) {
    applyCondition(pass.draft, { type: ConditionType.Rejected, status: 'False', reason: Reason.ValidJobSet, message: Message.ValidJobSet });
    return undefined;
  }
  const message = errors.map((error) => `${error.path}: ${error.message}`).join('; ');
  applyCondition(pass.draft, { type: ConditionType.Rejected, status: 'True', reason: Reason.InvalidJobSet, message });
  const actions = [...statusWrite(pass, pass.raw.status?.replicatedJobsStatus), ...pass.draft.events];
  for (const action of actions) tag(pass, action, ActionReasonCode.JobSetInvalid, message);
  return explained(pass, { ...pass.base, actions, reasons: [], reason: `rejected: ${message}` });
};

/** finishedJobSet: a finished JobSet deletes its remaining active Jobs and applies its TTL. */
export const finishedJobSet = (pass: CountedPass): Plan => {
  const { draft, jobSet } = pass;
  for (const job of pass.children.active) {
    if (!isDeleting(job)) {
      pass.deletes.push(tag(pass, { kind: 'DeleteJob', name: job.metadata.name ?? '', uid: job.metadata.uid, propagation: 'Foreground', reason: 'jobset finished' }, ActionReasonCode.JobSetFinished, `jobset ${draft.terminalState ?? 'finished'}: ${job.metadata.name ?? ''} still active`));
    }
  }
  const ttl = ttlOutcome(jobSet, draft.conditions, draft.now);
  const deleteJobSet: Action[] = ttl.expired
    ? [tag(pass, { kind: 'DeleteJobSet', uid: pass.base.uid, propagation: 'Foreground' }, ActionReasonCode.TtlExpired, `ttlSecondsAfterFinished ${jobSet.spec.ttlSecondsAfterFinished ?? 0} passed`)]
    : [];
  const finished = finish(pass, [], ttl.expired ? 'jobset finished; ttl expired, deleting it' : `jobset finished (${draft.terminalState ?? 'terminal'})`, ttl.requeueAfterMs);
  return explained(pass, { ...finished, actions: [...finished.actions, ...deleteJobSet] });
};

/** deletePreviousAttempt: Jobs of an earlier restart attempt go first (foreground, so same-named Jobs wait). */
export const deletePreviousAttempt = (pass: CountedPass): void => {
  for (const job of pass.children.previous) {
    if (!isDeleting(job)) {
      pass.deletes.push(tag(pass, { kind: 'DeleteJob', name: job.metadata.name ?? '', uid: job.metadata.uid, propagation: 'Foreground', reason: 'previous restart attempt' }, ActionReasonCode.PreviousAttempt, `${job.metadata.name ?? ''} belongs to an earlier restart attempt (now ${pass.draft.restarts})`));
    }
  }
};

/** noteJobsReady: a running JobSet whose every Job is ready or succeeded is no longer restarting. */
export const noteJobsReady = (pass: CountedPass): void => {
  const readyOrSucceeded = pass.counters.status.reduce((sum, s) => sum + s.ready + s.succeeded, 0);
  if (pass.jobSet.spec.suspend !== true && pass.totalReplicas === readyOrSucceeded) {
    applyCondition(pass.draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobsReady, message: Message.JobsReady });
  }
};

/** failOrRestart: the failure policy's answer to failed Jobs; either ends the pass before anything is created or resumed. */
export const failOrRestart = (pass: CountedPass): Plan => {
  const { draft, jobSet } = pass;
  const failedRefs = finishedRefs(pass.children.failed);
  const outcome = decideFailure(jobSet.spec.failurePolicy, failedRefs, draft.restartsCountTowardsMax);
  const cause: ActionReason = { code: ActionReasonCode.FailurePolicyRule, message: failureRuleMessage(jobSet.spec.failurePolicy, failedRefs, outcome) };
  if (outcome.kind === 'Fail') {
    applyCondition(draft, { type: ConditionType.Failed, status: 'True', reason: outcome.reason, message: outcome.message });
    applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobSetFailed, message: Message.JobSetFailed });
    draft.terminalState = 'Failed';
    return finish(pass, [], `jobset failed: ${outcome.message}`, undefined, cause);
  }
  draft.restarts += 1;
  if (outcome.countsTowardsMax) draft.restartsCountTowardsMax += 1;
  applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'True', reason: outcome.reason, message: outcome.message });
  draft.events.push(tag(pass, { kind: 'EmitEvent', eventType: 'Warning', reason: outcome.eventReason, message: outcome.message }, cause.code, cause.message));
  return finish(pass, [], `restarting (attempt ${draft.restarts}): ${outcome.message}`, undefined, cause);
};

/**
 * completeIfSucceeded: the success policy, evaluated once any Job succeeded (recorded ones count:
 * kubernetes-sigs/jobset#360); the plan that completes the JobSet, or undefined.
 */
export const completeIfSucceeded = (pass: CountedPass): Plan | undefined => {
  const { draft, jobSet } = pass;
  const successful = [...finishedRefs(pass.children.successful), ...recordedGoneRefs(pass.record, pass.children, pass.base.name)];
  const replicaCounts = pass.replicatedJobs.map((r) => ({ name: r.name, replicas: r.replicas ?? 1 }));
  if (successful.length === 0 || !successPolicyMet(jobSet.spec.successPolicy, replicaCounts, successful)) return undefined;
  applyCondition(draft, { type: ConditionType.Completed, status: 'True', reason: Reason.AllJobsCompleted, message: Message.AllJobsCompleted });
  applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobSetCompleted, message: Message.AllJobsCompleted });
  draft.terminalState = 'Completed';
  return finish(pass, [], 'jobset completed', undefined, { code: ActionReasonCode.SuccessPolicyMet, message: successPolicyMessage(jobSet.spec.successPolicy, replicaCounts, successful) });
};
