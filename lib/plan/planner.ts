/**
 * The planner: observed {JobSet, its Jobs, its Service, now} → the actions one reconcile pass
 * takes. Pure and deterministic: the same input gives the same plan; no I/O, no clock.
 *
 * Order of a pass follows upstream's reconcile, one named step each (`plan`, at the end, reads
 * as the list): validation (rejectIfInvalid) → counters (countJobs) → finished/TTL
 * (finishedJobSet) → delete previous attempt (deletePreviousAttempt) → failure policy
 * (failOrRestart) → success policy (completeIfSucceeded) → headless Service → gates → create →
 * suspend/resume (runJobSet) → one status write → events (finish). Lineup's deliberate
 * differences are written beside the code that makes them, marked DEVIATION.
 *
 * Upstream's status write is skipped when a step fails; here that holds by construction: actions are ordered so the
 * status write and its events come after every Job write, and executors stop at the first
 * failure. A Job of the generated name that this JobSet does not own is treated as
 * upstream: no adoption — the CreateJob fails with AlreadyExists on every pass and the
 * executor reports JobCreationFailed, because taking over someone else's Job is worse.
 */
import { isDeepStrictEqual } from 'node:util';
import { ConditionType, EventReason, LineupKey, Message, Reason, creatingJobsMessage } from '../jobset/api.ts';
import { applyDefaults } from '../jobset/defaults.ts';
import { jobName } from '../jobset/keys.ts';
import { isManagedByLineup, DEFAULT_CONTROLLER_NAME } from '../jobset/managedBy.ts';
import type { Condition, Job, JobSet, JobSetStatus, ReplicatedJob, ReplicatedJobStatus } from '../jobset/schema.ts';
import { validateJobSet } from '../jobset/validation.ts';
import { decideFailure, type FailedJobRef } from '../policy/failurePolicy.ts';
import { evaluateStartup } from '../policy/startupPolicy.ts';
import { successPolicyMet, type FinishedJobRef } from '../policy/successPolicy.ts';
import type { StartupEvaluation, StartupForm } from '../policy/types.ts';
import {
  bucketJobs,
  countReplicatedJobs,
  isSuspended,
  jobIndexOf,
  replicatedJobOf,
  type ChildJobs,
  type ReplicatedJobCounters,
} from './childJobs.ts';
import { conditionIsTrue, findCondition, setCondition, type DesiredCondition } from './conditions.ts';
import { constructJob, dnsHostnamesEnabled, headlessService, replicaLayout } from './constructJob.ts';
import { formatRecord, parseRecord, recordHas, withRecorded, type FinishedJobsRecord } from './finishedJobs.ts';
import { ActionReasonCode, failureRuleMessage, gateOpenedMessage, heldMessage, successPolicyMessage, type ActionReason } from './reasons.ts';
import { podTemplateMerge } from './resume.ts';
import { startupPolicySpecOf } from './startupSpec.ts';
import type { Action, Observed, Plan, PlanOptions } from './types.ts';
import { volumeClaims } from './volumeClaims.ts';

/**
 * MAX_CREATES_PER_PASS: the most Jobs one pass creates. The planner creates the first missing
 * ones in the order it always has (replicatedJobs in spec order, index ascending), and the passes
 * after it the rest: the reconcile loop runs the next pass at once, since its re-plan on this
 * pass's writes finds Jobs still missing (lib/reconcile/reconcileJobSet.ts), and the created Jobs'
 * watch events wake the JobSet too. Gates are unaffected: a gate reads the replicatedJob's replicas
 * from the spec, so a Job not yet created keeps the gates after it closed.
 * Why 500: a pass must end well within the reconciler's timeout (60 s, FunctionSizing) with its
 * reads, its status write and its journal entry, a conflict's re-plan included. At upstream's
 * client rate of 500 requests a second (its --kube-api-qps), 500 creates take 1 s; at a tenth of
 * that — an API server under load, or the share its priority and fairness gives one client —
 * 10 s, a sixth of the timeout. One pass's plan is then about 1.4 MB of actions, not the 299 MB
 * a JobSet of 100,001 Jobs planned in one pass.
 */
export const MAX_CREATES_PER_PASS = 500;

/** DEFAULT_PLAN_OPTIONS: Lineup's controller name, unmanaged JobSets left alone. */
export const DEFAULT_PLAN_OPTIONS: PlanOptions = { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false };

/** Condition reasons and messages of the startup conditions, per gated form. */
const startupText: Record<Exclude<StartupForm, 'AnyOrder'>, { progress: [string, string]; completed: [string, string] }> = {
  // upstream's InOrder strings kept exactly.
  InOrder: {
    progress: [Reason.InOrderStartupPolicyInProgress, Message.InOrderStartupPolicyInProgress],
    completed: [Reason.InOrderStartupPolicyCompleted, Message.InOrderStartupPolicyCompleted],
  },
  DependsOn: {
    progress: [Reason.DependsOnStartupInProgress, Message.DependsOnStartupInProgress],
    completed: [Reason.DependsOnStartupCompleted, Message.DependsOnStartupCompleted],
  },
  Rules: {
    progress: [Reason.StartupRulesInProgress, Message.StartupRulesInProgress],
    completed: [Reason.StartupRulesCompleted, Message.StartupRulesCompleted],
  },
};

/** eventTypeOf: Warning for conditions that report trouble, Normal otherwise (upstream). */
const eventTypeOf = (condition: DesiredCondition): 'Normal' | 'Warning' =>
  condition.status === 'True' &&
  (condition.type === ConditionType.Failed || condition.type === ConditionType.RestartingJobSet || condition.type === ConditionType.Rejected)
    ? 'Warning'
    : 'Normal';

/** waitSubject: a startup message without its live counts, so a count change alone emits no event. */
const waitSubject = (message: string | undefined): string => (message ?? '').replace(/: \d+\/\d+ jobs (ready|succeeded)$/, '');

/** isDeleting: the object carries a deletionTimestamp. */
const isDeleting = (job: Job): boolean => job.metadata.deletionTimestamp !== undefined;

/** holdsRecordFinalizer: the Job carries Lineup's finished-record finalizer. */
const holdsRecordFinalizer = (job: Job): boolean => (job.metadata.finalizers ?? []).includes(LineupKey.FinishedRecordFinalizer);

/** jobSetFinished: a Completed or Failed condition is True (upstream jobSetFinished). */
const jobSetFinished = (conditions: readonly Condition[]): boolean =>
  conditionIsTrue(conditions, ConditionType.Completed) || conditionIsTrue(conditions, ConditionType.Failed);

/** The mutable draft of one pass; lives only inside plan(). */
interface Draft {
  conditions: Condition[];
  restarts: number;
  restartsCountTowardsMax: number;
  terminalState: string | undefined;
  readonly events: Action[];
  readonly now: number;
}

/** applyCondition: set a condition on the draft and queue its event when it changed. */
const applyCondition = (draft: Draft, desired: DesiredCondition, quietTextChange = false): void => {
  const before = findCondition(draft.conditions, desired.type);
  const { conditions, change } = setCondition(draft.conditions, desired, draft.now);
  draft.conditions = conditions;
  if (change === 'none') return;
  // A startup message whose counts moved but whose subject did not is written, not announced.
  if (change === 'text' && quietTextChange && waitSubject(before?.message) === waitSubject(desired.message)) return;
  draft.events.push({ kind: 'EmitEvent', eventType: eventTypeOf(desired), reason: desired.reason, message: desired.message });
};

/** defaultReason: the reason of an action no step tagged: bookkeeping whose kind says why. */
const defaultReason = (action: Action, passReason: string): ActionReason => {
  switch (action.kind) {
    case 'EmitEvent':
      return { code: ActionReasonCode.ConditionChanged, message: `${action.reason}: ${action.message}` };
    case 'RemoveJobFinalizer':
      return { code: ActionReasonCode.FinalizerReleased, message: `${action.name}: outcome recorded or job going away` };
    case 'PatchJobSetAnnotations':
      return { code: ActionReasonCode.FinishedJobRecorded, message: 'finished jobs recorded before their finalizers are released' };
    case 'CreateService':
      return { code: ActionReasonCode.ServiceMissing, message: `service ${action.service.metadata.name ?? ''} does not exist` };
    default:
      return { code: ActionReasonCode.StatusChanged, message: passReason };
  }
};

/** statusOf: the status the draft describes; restarts always present, like upstream. */
const statusOf = (base: JobSetStatus | undefined, draft: Draft, replicatedJobsStatus: JobSetStatus['replicatedJobsStatus']): JobSetStatus => {
  const status: JobSetStatus = { ...base, conditions: draft.conditions, restarts: draft.restarts, replicatedJobsStatus };
  if (draft.restartsCountTowardsMax > 0) status.restartsCountTowardsMax = draft.restartsCountTowardsMax;
  else delete status.restartsCountTowardsMax;
  if (draft.terminalState !== undefined) status.terminalState = draft.terminalState;
  return status;
};

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

/** recordedRefs: recorded successful Jobs that are gone from the cluster (deleted by their TTL). */
const recordedGoneRefs = (record: FinishedJobsRecord, children: ChildJobs, jobSetName: string): FinishedJobRef[] => {
  const refs: FinishedJobRef[] = [];
  for (const [rjob, indices] of record.succeeded) {
    for (const index of indices) {
      const name = jobName(jobSetName, rjob, index);
      if (!children.byName.has(name)) refs.push({ name, replicatedJob: rjob });
    }
  }
  return refs;
};

/** Bookkeeping for Jobs that hold Lineup's finalizer: what to record, which finalizers to release. */
interface RecordWork {
  readonly patch: Action | undefined;
  /** Releases after the record is written: a Job's outcome is recorded before its finalizer goes. */
  readonly releases: Action[];
  /** Releases from Jobs of an earlier attempt, ahead of the pass's deletes (nothing to record). */
  readonly previousReleases: Action[];
}

/**
 * recordFinishedJobs: record the outcome of finished Jobs that carry the finalizer, then release
 * it; release it at once from Jobs of an earlier attempt and from Jobs being deleted unfinished.
 */
const recordFinishedJobs = (children: ChildJobs, record: FinishedJobsRecord): RecordWork => {
  const additions: { outcome: 'succeeded' | 'failed'; replicatedJob: string; index: number }[] = [];
  const releases: Action[] = [];
  const previousReleases: Action[] = [];
  const releaseOf = (job: Job): Action => ({
    kind: 'RemoveJobFinalizer',
    name: job.metadata.name ?? '',
    resourceVersion: job.metadata.resourceVersion,
    finalizer: LineupKey.FinishedRecordFinalizer,
  });
  const release = (job: Job): void => {
    releases.push(releaseOf(job));
  };
  for (const [jobs, outcome] of [
    [children.successful, 'succeeded'],
    [children.failed, 'failed'],
  ] as const) {
    for (const job of jobs) {
      if (!holdsRecordFinalizer(job)) continue;
      const replicatedJob = replicatedJobOf(job);
      const index = jobIndexOf(job);
      if (replicatedJob !== undefined && index !== undefined && !recordHas(record, outcome, replicatedJob, index)) {
        additions.push({ outcome, replicatedJob, index });
      }
      release(job);
    }
  }
  // Before the pass deletes them: a delete writes the Job (deletionTimestamp), so a release
  // conditional on the resourceVersion observed would come after it and be refused (409).
  for (const job of children.previous) if (holdsRecordFinalizer(job)) previousReleases.push(releaseOf(job));
  for (const job of children.active) if (holdsRecordFinalizer(job) && isDeleting(job)) release(job);
  const patch: Action | undefined =
    additions.length > 0
      ? {
          kind: 'PatchJobSetAnnotations',
          // Written after the status update of the same pass, which changes the resourceVersion;
          // the per-JobSet lease (not a precondition) keeps this read-modify-write single-writer.
          resourceVersion: undefined,
          annotations: { [LineupKey.FinishedJobsAnnotation]: formatRecord(withRecorded(record, additions)) },
        }
      : undefined;
  return { patch, releases, previousReleases };
};

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

/** The plan's identity fields, as observed. */
type PlanBase = Pick<Plan, 'namespace' | 'name' | 'uid'>;

/** Pass: one pass's inputs and its bookkeeping; lives only inside plan(). */
interface Pass {
  readonly observed: Observed;
  /** The JobSet as observed: its status and resourceVersion are what the status write compares with. */
  readonly raw: JobSet;
  /** The JobSet with upstream's webhook defaults applied: what every step decides from. */
  readonly jobSet: JobSet;
  readonly base: PlanBase;
  readonly children: ChildJobs;
  readonly draft: Draft;
  /** Why each action is taken: tagged where it is decided; the rest get their kind's reason. */
  readonly because: Map<Action, ActionReason>;
}

/** CountedPass: a valid JobSet's pass once its Jobs are counted and its finished Jobs' record read. */
interface CountedPass extends Pass {
  readonly replicatedJobs: readonly ReplicatedJob[];
  /** The Jobs the spec asks for, over all replicatedJobs. */
  readonly totalReplicas: number;
  readonly record: FinishedJobsRecord;
  readonly counters: ReplicatedJobCounters;
  readonly recordWork: RecordWork;
  /** Problems worth a word in the pass's reason (an unreadable record). */
  readonly notes: readonly string[];
  /** The pass's Job deletes, which go before everything else it writes. */
  readonly deletes: Action[];
  /** The counts the status write carries: as observed, or as the pass's own Job writes leave them (countAfterWrites). */
  statusCounts: ReplicatedJobStatus[];
}

/** tag: record why an action is taken, where that is decided. */
const tag = <A extends Action>(pass: Pass, action: A, code: ActionReasonCode, message: string): A => {
  pass.because.set(action, { code, message });
  return action;
};

/** explained: the plan with a reason for each of its actions, tagged or by the action's kind. */
const explained = <P extends Plan>(pass: Pass, result: P): P => ({
  ...result,
  reasons: result.actions.map((action) => pass.because.get(action) ?? defaultReason(action, result.reason)),
});

/** statusWrite: the status update the draft calls for, none when it equals the status observed. */
const statusWrite = (pass: Pass, replicatedJobsStatus: JobSetStatus['replicatedJobsStatus']): Action[] => {
  const status = statusOf(pass.raw.status, pass.draft, replicatedJobsStatus);
  return isDeepStrictEqual(status, pass.raw.status) ? [] : [{ kind: 'UpdateJobSetStatus', resourceVersion: pass.raw.metadata.resourceVersion, status }];
};

/**
 * finish: the pass's plan, in the order the executor must write it; `cause`, when given, is the
 * reason of its status write and events.
 */
const finish = (pass: CountedPass, extra: Action[], reason: string, requeueAfterMs?: number, cause?: ActionReason): Plan => {
  const statusAndEvents = [...statusWrite(pass, pass.statusCounts), ...pass.draft.events];
  if (cause !== undefined) for (const action of statusAndEvents) if (!pass.because.has(action)) tag(pass, action, cause.code, cause.message);
  const { recordWork } = pass;
  return explained(pass, {
    ...pass.base,
    // An earlier attempt's finalizers go before its Jobs are deleted: the delete writes the Job,
    // and a release conditional on the resourceVersion observed would then be refused (409).
    actions: [...recordWork.previousReleases, ...pass.deletes, ...extra, ...statusAndEvents, ...(recordWork.patch ? [recordWork.patch] : []), ...recordWork.releases],
    reasons: [],
    requeueAfterMs,
    reason: [reason, ...pass.notes].join('; '),
  });
};

/** notManaged: the plan that leaves another controller's JobSet alone, or undefined for Lineup's own. */
const notManaged = (raw: JobSet, base: PlanBase, options: PlanOptions): Plan | undefined =>
  isManagedByLineup(raw, options)
    ? undefined
    : { ...base, skipped: 'NotManaged', actions: [], reasons: [], reason: `managed by ${raw.spec.managedBy ?? 'no controller'}, not ${options.controllerName}` };

/** beginPass: the JobSet with upstream's defaults, its Jobs bucketed, a draft of its status as observed. */
const beginPass = (observed: Observed, base: PlanBase): Pass => {
  const raw = observed.jobSet;
  // DEVIATION: Lineup applies upstream's webhook defaults in memory on every pass,
  // so a JobSet behaves as if admitted through the webhook whether or not the cluster has one.
  const jobSet = applyDefaults(raw);
  const draft: Draft = {
    conditions: [...(raw.status?.conditions ?? [])],
    restarts: raw.status?.restarts ?? 0,
    restartsCountTowardsMax: raw.status?.restartsCountTowardsMax ?? 0,
    terminalState: raw.status?.terminalState || undefined,
    events: [],
    now: observed.now,
  };
  return { observed, raw, jobSet, base, children: bucketJobs(jobSet, observed.jobs), draft, because: new Map() };
};

/** releaseForDeletion: the JobSet is going away: let garbage collection take Jobs that wait on Lineup's finalizer. */
const releaseForDeletion = (pass: Pass): Plan => {
  const releases: Action[] = [...pass.children.byName.values()]
    .filter(holdsRecordFinalizer)
    .map((job) => ({ kind: 'RemoveJobFinalizer', name: job.metadata.name ?? '', resourceVersion: job.metadata.resourceVersion, finalizer: LineupKey.FinishedRecordFinalizer }));
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
const rejectIfInvalid = (pass: Pass, options: PlanOptions): Plan | undefined => {
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

/** countJobs: upstream's counters with the finished-Jobs record read, and the record's bookkeeping for this pass. */
const countJobs = (pass: Pass): CountedPass => {
  const replicatedJobs = pass.jobSet.spec.replicatedJobs ?? [];
  const parsed = parseRecord(pass.raw.metadata.annotations?.[LineupKey.FinishedJobsAnnotation], pass.draft.restarts);
  const counters = countReplicatedJobs(
    replicatedJobs.map((rjob) => rjob.name),
    pass.children,
    parsed.record,
    (rjob, index) => jobName(pass.base.name, rjob, index),
  );
  return {
    ...pass,
    replicatedJobs,
    totalReplicas: replicatedJobs.reduce((sum, rjob) => sum + (rjob.replicas ?? 1), 0),
    record: parsed.record,
    counters,
    recordWork: recordFinishedJobs(pass.children, parsed.record),
    notes: parsed.problem ? [parsed.problem] : [],
    deletes: [],
    statusCounts: counters.status,
  };
};

/** finishedJobSet: a finished JobSet deletes its remaining active Jobs and applies its TTL. */
const finishedJobSet = (pass: CountedPass): Plan => {
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
const deletePreviousAttempt = (pass: CountedPass): void => {
  for (const job of pass.children.previous) {
    if (!isDeleting(job)) {
      pass.deletes.push(tag(pass, { kind: 'DeleteJob', name: job.metadata.name ?? '', uid: job.metadata.uid, propagation: 'Foreground', reason: 'previous restart attempt' }, ActionReasonCode.PreviousAttempt, `${job.metadata.name ?? ''} belongs to an earlier restart attempt (now ${pass.draft.restarts})`));
    }
  }
};

/** noteJobsReady: a running JobSet whose every Job is ready or succeeded is no longer restarting. */
const noteJobsReady = (pass: CountedPass): void => {
  const readyOrSucceeded = pass.counters.status.reduce((sum, s) => sum + s.ready + s.succeeded, 0);
  if (pass.jobSet.spec.suspend !== true && pass.totalReplicas === readyOrSucceeded) {
    applyCondition(pass.draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobsReady, message: Message.JobsReady });
  }
};

/** failOrRestart: the failure policy's answer to failed Jobs; either ends the pass before anything is created or resumed. */
const failOrRestart = (pass: CountedPass): Plan => {
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
const completeIfSucceeded = (pass: CountedPass): Plan | undefined => {
  const { draft, jobSet } = pass;
  const successful = [...finishedRefs(pass.children.successful), ...recordedGoneRefs(pass.record, pass.children, pass.base.name)];
  const replicaCounts = pass.replicatedJobs.map((r) => ({ name: r.name, replicas: r.replicas ?? 1 }));
  if (successful.length === 0 || !successPolicyMet(jobSet.spec.successPolicy, replicaCounts, successful)) return undefined;
  applyCondition(draft, { type: ConditionType.Completed, status: 'True', reason: Reason.AllJobsCompleted, message: Message.AllJobsCompleted });
  applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobSetCompleted, message: Message.AllJobsCompleted });
  draft.terminalState = 'Completed';
  return finish(pass, [], 'jobset completed', undefined, { code: ActionReasonCode.SuccessPolicyMet, message: successPolicyMessage(jobSet.spec.successPolicy, replicaCounts, successful) });
};

/** headlessServiceIfMissing: the headless Service, (re)created whenever it is missing. */
const headlessServiceIfMissing = (pass: Pass): Action[] =>
  dnsHostnamesEnabled(pass.jobSet) && pass.observed.service === undefined ? [{ kind: 'CreateService', service: headlessService(pass.jobSet) }] : [];

/** Gates: the startup policy's answer for this pass, per replicatedJob. */
interface Gates {
  readonly evaluation: StartupEvaluation;
  /** released: the replicatedJob's Jobs may run (its gate is open, or it already runs). */
  readonly released: (rjob: string) => boolean;
  /** reasonFor: why a replicatedJob's Jobs start now or are held back. */
  readonly reasonFor: (rjob: string) => ActionReason;
}

/** decideGates: evaluate the startup policy on the gating counters. */
const decideGates = (pass: CountedPass): Gates => {
  const suspended = pass.jobSet.spec.suspend === true;
  const policy = startupPolicySpecOf(pass.jobSet);
  const gating = pass.counters.gating;
  const evaluation = evaluateStartup(policy, gating);
  const gateByName = new Map(evaluation.gates.map((gate) => [gate.replicatedJob, gate]));
  // A replicatedJob with a running Job stays released even if its gate closes again (a ready
  // pod restarting): Lineup never suspends running work because of a gate, only on JobSet suspend.
  const running = new Set<string>();
  for (const job of pass.children.active) {
    const rjob = replicatedJobOf(job);
    if (rjob !== undefined && !isSuspended(job) && !isDeleting(job)) running.add(rjob);
  }
  const released = (rjob: string): boolean => gateByName.get(rjob)?.released === true || running.has(rjob);
  const reasonFor = (rjob: string): ActionReason => {
    if (suspended) return { code: ActionReasonCode.JobSetSuspended, message: 'spec.suspend is true' };
    const gate = gateByName.get(rjob);
    if (gate?.released === true) return { code: ActionReasonCode.GateOpened, message: gateOpenedMessage(policy, gating, rjob) };
    if (running.has(rjob)) return { code: ActionReasonCode.AlreadyRunning, message: `${rjob} already has running jobs; its gate closed again` };
    return { code: ActionReasonCode.StartupRuleHeld, message: gate === undefined ? `${rjob}: no gate` : heldMessage(policy, gate) };
  };
  return { evaluation, released, reasonFor };
};

/** Creation: the Jobs this pass creates, and those it leaves to the next passes. */
interface Creation {
  readonly creates: Action[];
  /** Created suspended because a gate holds them back (or the JobSet is suspended). */
  readonly createdGated: number;
  /** Missing Jobs left to the next passes (MAX_CREATES_PER_PASS), and how many of them a gate holds back. */
  readonly deferred: number;
  readonly deferredGated: number;
}

/**
 * createMissingJobs: every missing Job of the current attempt, up to MAX_CREATES_PER_PASS a pass,
 * in spec order and index ascending; a held-back one is created suspended.
 */
const createMissingJobs = (pass: CountedPass, gates: Gates): Creation => {
  const { jobSet, children, record, replicatedJobs } = pass;
  const suspended = jobSet.spec.suspend === true;
  const creation = { creates: [] as Action[], createdGated: 0, deferred: 0, deferredGated: 0 };
  // upstream: with BlockingRecreate nothing is built while any Job of an older attempt exists.
  if (jobSet.spec.failurePolicy?.restartStrategy === 'BlockingRecreate' && children.previous.length > 0) return creation;
  const layout = replicaLayout(replicatedJobs);
  for (const rjob of replicatedJobs) {
    const holdBack = suspended || !gates.released(rjob.name);
    for (let index = 0; index < (rjob.replicas ?? 1); index += 1) {
      const name = jobName(pass.base.name, rjob.name, index);
      // upstream: skip any name an owned Job already has, whatever its bucket.
      if (children.byName.has(name)) continue;
      // DEVIATION (kubernetes-sigs/jobset#360): a Job that finished and was deleted by its own TTL
      // is recorded, not re-created — its work is done and the gates it opened stay open.
      if (recordHas(record, 'succeeded', rjob.name, index) || recordHas(record, 'failed', rjob.name, index)) continue;
      if (creation.creates.length >= MAX_CREATES_PER_PASS) {
        creation.deferred += 1;
        if (holdBack) creation.deferredGated += 1;
        continue;
      }
      // DEVIATION: every Job is created at once — also while the JobSet is
      // suspended, for dependsOn as for InOrder — and a gated one is created suspended.
      const reason = gates.reasonFor(rjob.name);
      creation.creates.push(tag(pass, { kind: 'CreateJob', job: constructJob(jobSet, rjob, index, holdBack, layout), replicatedJob: rjob.name }, reason.code, reason.message));
      if (holdBack) creation.createdGated += 1;
    }
  }
  return creation;
};

/**
 * createVolumeClaims: upstream reconcileVolumeClaimPolicies: the claims exist before any Job that
 * mounts them. A pass that creates Jobs (the first, and each after a restart) creates them; one
 * that exists is kept.
 */
const createVolumeClaims = (pass: Pass, creation: Creation): Action[] =>
  creation.creates.length === 0
    ? []
    : volumeClaims(pass.jobSet).map((claim) =>
        tag(
          pass,
          { kind: 'CreatePersistentVolumeClaim', claim },
          ActionReasonCode.VolumeClaimPolicy,
          `${claim.metadata.name ?? ''}: created before the jobs that mount it (${claim.metadata.ownerReferences === undefined ? 'Retain: kept when the jobset is deleted' : 'Delete: owned by the jobset'})`,
        ),
      );

/** suspendJobs: a suspended JobSet suspends its running Jobs and says so in its conditions. */
const suspendJobs = (pass: CountedPass): Action[] => {
  const transitions: Action[] = [];
  for (const job of pass.children.active) {
    if (isSuspended(job) || isDeleting(job)) continue;
    transitions.push(
      tag(pass, { kind: 'SuspendJob', name: job.metadata.name ?? '', replicatedJob: replicatedJobOf(job) ?? '', resourceVersion: job.metadata.resourceVersion }, ActionReasonCode.JobSetSuspended, 'spec.suspend is true'),
    );
  }
  applyCondition(pass.draft, { type: ConditionType.Suspended, status: 'True', reason: Reason.SuspendedJobs, message: Message.SuspendedJobs });
  applyCondition(pass.draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobSetSuspended, message: Message.JobSetSuspended });
  return transitions;
};

/**
 * resumeReleasedJobs: a running JobSet resumes the suspended Jobs whose gate is open, announces
 * each released replicatedJob once, and reports how far startup has come in its conditions.
 */
const resumeReleasedJobs = (pass: CountedPass, gates: Gates, creation: Creation): Action[] => {
  const transitions: Action[] = [];
  const rjobByName = new Map<string, ReplicatedJob>(pass.replicatedJobs.map((rjob) => [rjob.name, rjob]));
  const resumedBy = new Map<string, number>();
  let remainingSuspended = 0;
  for (const job of pass.children.active) {
    if (!isSuspended(job) || isDeleting(job)) continue;
    const rjobName = replicatedJobOf(job);
    const rjob = rjobName === undefined ? undefined : rjobByName.get(rjobName);
    if (!rjob || !gates.released(rjob.name)) {
      remainingSuspended += 1;
      continue;
    }
    const reason = gates.reasonFor(rjob.name);
    transitions.push(
      tag(
        pass,
        {
          kind: 'ResumeJob',
          name: job.metadata.name ?? '',
          replicatedJob: rjob.name,
          resourceVersion: job.metadata.resourceVersion,
          clearStartTime: job.status?.startTime !== undefined,
          podTemplate: podTemplateMerge(job, rjob),
        },
        reason.code,
        reason.message,
      ),
    );
    resumedBy.set(rjob.name, (resumedBy.get(rjob.name) ?? 0) + 1);
  }
  for (const rjob of pass.replicatedJobs) {
    const count = resumedBy.get(rjob.name);
    if (count === undefined) continue;
    const reason = gates.reasonFor(rjob.name);
    pass.draft.events.push(
      tag(pass, { kind: 'EmitEvent', eventType: 'Normal', reason: EventReason.ReplicatedJobReleased, message: `released ${rjob.name}: resumed ${count} ${count === 1 ? 'job' : 'jobs'}` }, reason.code, reason.message),
    );
  }
  // DEVIATION: Suspended turns False as soon as the JobSet is resumed; the startup
  // conditions, not Suspended, show how far an in-order resume has come.
  applyCondition(pass.draft, { type: ConditionType.Suspended, status: 'False', reason: Reason.ResumeJobs, message: Message.ResumeJobs });
  applyStartupConditions(pass.draft, gates.evaluation, {
    stillComplete: creation.createdGated === 0 && creation.deferredGated === 0 && remainingSuspended === 0 && pass.children.previous.length === 0,
  });
  return transitions;
};

/** announceDeferredCreation: how far creation got, in an Event: upstream's status has no field for it. */
const announceDeferredCreation = (pass: CountedPass, creation: Creation): void => {
  if (creation.deferred === 0) return;
  pass.draft.events.push(
    tag(
      pass,
      { kind: 'EmitEvent', eventType: 'Normal', reason: EventReason.CreatingJobs, message: creatingJobsMessage(pass.totalReplicas - creation.deferred, pass.totalReplicas) },
      ActionReasonCode.CreationContinues,
      `a pass creates at most ${MAX_CREATES_PER_PASS} jobs: ${creation.deferred} more in the next passes`,
    ),
  );
};

/**
 * countAfterWrites: the status counts the Jobs as this pass's writes leave them (created, resumed,
 * suspended), which run before it and stop the pass if one fails: the pass that sees their echoes
 * then finds the status right, and the loop settles on the writes' answers without another status write.
 */
const countAfterWrites = (pass: CountedPass, creation: Creation, transitions: readonly Action[]): void => {
  if (creation.creates.length === 0 && transitions.length === 0) return;
  pass.statusCounts = countReplicatedJobs(
    pass.replicatedJobs.map((rjob) => rjob.name),
    childrenAfter(pass.children, creation.creates, transitions),
    pass.record,
    (rjob, index) => jobName(pass.base.name, rjob, index),
  ).status;
};

/** runningSummary: the reason of a pass that created, resumed or suspended, or found nothing to do. */
const runningSummary = (pass: CountedPass, gates: Gates, creation: Creation, claims: readonly Action[], transitions: readonly Action[]): string => {
  const suspended = pass.jobSet.spec.suspend === true;
  const { creates, createdGated, deferred } = creation;
  const summary = [
    claims.length > 0 ? `created ${claims.length} volume claims` : undefined,
    creates.length > 0 ? `created ${creates.length} jobs (${createdGated + (suspended ? creates.length - createdGated : 0)} suspended)` : undefined,
    deferred > 0 ? `${deferred} more jobs in the next passes (at most ${MAX_CREATES_PER_PASS} a pass)` : undefined,
    transitions.length > 0 ? `${suspended ? 'suspended' : 'resumed'} ${transitions.length} jobs` : undefined,
    gates.evaluation.waitingOn && !suspended ? gates.evaluation.waitingOn.message : undefined,
    suspended ? 'jobset suspended' : undefined,
  ].filter((part): part is string => part !== undefined);
  return summary.length > 0 ? summary.join('; ') : 'nothing to do';
};

/**
 * runJobSet: a running (or suspended) JobSet: its Service, gates, Job creation, suspend or resume,
 * and the status that results.
 */
const runJobSet = (pass: CountedPass): Plan => {
  const service = headlessServiceIfMissing(pass);
  const gates = decideGates(pass);
  const creation = createMissingJobs(pass, gates);
  const claims = createVolumeClaims(pass, creation);
  const transitions = pass.jobSet.spec.suspend === true ? suspendJobs(pass) : resumeReleasedJobs(pass, gates, creation);
  announceDeferredCreation(pass, creation);
  const reason = runningSummary(pass, gates, creation, claims, transitions);
  countAfterWrites(pass, creation, transitions);
  const result = finish(pass, [...service, ...claims, ...creation.creates, ...transitions], reason);
  return { ...result, startup: { form: gates.evaluation.form, gates: gates.evaluation.gates } };
};

/**
 * plan: one reconcile pass for one JobSet, as a sequence of named steps in upstream's reconcile
 * order. Never throws for an ordinary state of the world; "not ready yet" is a plan that waits.
 */
export const plan = (observed: Observed, options: PlanOptions): Plan => {
  const raw = observed.jobSet;
  const base: PlanBase = { namespace: raw.metadata.namespace ?? 'default', name: raw.metadata.name ?? '', uid: raw.metadata.uid };
  const skipped = notManaged(raw, base, options);
  if (skipped !== undefined) return skipped;
  const pass = beginPass(observed, base);
  if (raw.metadata.deletionTimestamp !== undefined) return releaseForDeletion(pass);
  const rejected = rejectIfInvalid(pass, options);
  if (rejected !== undefined) return rejected;
  const counted = countJobs(pass);
  if (jobSetFinished(counted.draft.conditions)) return finishedJobSet(counted);
  deletePreviousAttempt(counted);
  noteJobsReady(counted);
  if (counted.children.failed.length > 0) return failOrRestart(counted);
  return completeIfSucceeded(counted) ?? runJobSet(counted);
};

/**
 * childrenAfter: the JobSet's Jobs as `creates` and `transitions` (ResumeJob, SuspendJob) leave
 * them — a created Job as constructed, a resumed or suspended one with its new spec.suspend.
 */
const childrenAfter = (children: ChildJobs, creates: readonly Action[], transitions: readonly Action[]): ChildJobs => {
  const suspendAfter = new Map<string, boolean>();
  for (const action of transitions) {
    if (action.kind === 'ResumeJob') suspendAfter.set(action.name, false);
    else if (action.kind === 'SuspendJob') suspendAfter.set(action.name, true);
  }
  const created = creates.flatMap((action) => (action.kind === 'CreateJob' ? [action.job] : []));
  const active = [
    ...children.active.map((job) => {
      const suspend = suspendAfter.get(job.metadata.name ?? '');
      return suspend === undefined ? job : { ...job, spec: { ...job.spec, suspend } };
    }),
    ...created,
  ];
  const byName = new Map(children.byName);
  for (const job of created) byName.set(job.metadata.name ?? '', job);
  return { ...children, active, byName };
};

/**
 * applyStartupConditions: StartupPolicyInProgress / StartupPolicyCompleted for every gated form.
 * Once Completed in this attempt it stays so while nothing is held back (a pod restarting after
 * startup does not re-open startup); a restart or a resume holds Jobs back and re-opens it.
 */
const applyStartupConditions = (draft: Draft, evaluation: StartupEvaluation, facts: { stillComplete: boolean }): void => {
  // AnyOrder holds nothing back, so it reports no startup conditions (as upstream).
  if (evaluation.form === 'AnyOrder') return;
  const text = startupText[evaluation.form];
  const complete = evaluation.complete || (facts.stillComplete && conditionIsTrue(draft.conditions, ConditionType.StartupPolicyCompleted));
  if (complete) {
    applyCondition(draft, { type: ConditionType.StartupPolicyCompleted, status: 'True', reason: text.completed[0], message: text.completed[1] });
    // The exclusive flip keeps InProgress's text (upstream), but Lineup's text names what was
    // awaited ("0/2 jobs ready"), stale once startup completed: put back the plain progress message,
    // which is upstream's own, so a finished JobSet reads exactly as upstream's does.
    draft.conditions = draft.conditions.map((condition) =>
      condition.type === ConditionType.StartupPolicyInProgress && condition.status === 'False' && condition.message !== text.progress[1]
        ? { ...condition, message: text.progress[1] }
        : condition,
    );
    return;
  }
  const waiting = evaluation.waitingOn ? `: ${evaluation.waitingOn.message}` : '';
  applyCondition(
    draft,
    { type: ConditionType.StartupPolicyInProgress, status: 'True', reason: text.progress[0], message: `${text.progress[1]}${waiting}` },
    true,
  );
};
