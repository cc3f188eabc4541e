/**
 * The planner: observed {JobSet, its Jobs, its Service, now} → the actions one reconcile pass
 * takes. Pure and deterministic: the same input gives the same plan; no I/O, no clock.
 *
 * Order of a pass follows upstream's reconcile: validation → counters →
 * finished/TTL → delete previous attempt → failure policy → success policy → headless Service →
 * create → suspend/resume → one status write → events. Lineup's deliberate differences are
 * written beside the code that makes them, marked DEVIATION.
 *
 * Upstream's status write is skipped when a step fails; here that holds by construction: actions are ordered so the
 * status write and its events come after every Job write, and executors stop at the first
 * failure. A Job of the generated name that this JobSet does not own is treated as
 * upstream: no adoption — the CreateJob fails with AlreadyExists on every pass and the
 * executor reports JobCreationFailed, because taking over someone else's Job is worse.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  ConditionType,
  DEFAULT_CONTROLLER_NAME,
  EventReason,
  LineupKey,
  Message,
  Reason,
  UPSTREAM_CONTROLLER_NAME,
  creatingJobsMessage,
} from '../constants.ts';
import { applyDefaults } from '../jobset/defaults.ts';
import { jobName } from '../jobset/keys.ts';
import type { Condition, Job, JobSet, JobSetStatus, ReplicatedJob } from '../jobset/schema.ts';
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

/**
 * isManagedByLineup: the JobSet names Lineup in spec.managedBy, or names nobody and the
 * deployment claims unmanaged JobSets. Upstream's reserved name is upstream's; an empty string
 * counts as another manager.
 */
export const isManagedByLineup = (jobSet: JobSet, options: PlanOptions): boolean => {
  const managedBy = jobSet.spec.managedBy;
  if (managedBy === undefined) return options.claimUnmanaged;
  return managedBy === options.controllerName && managedBy !== UPSTREAM_CONTROLLER_NAME;
};

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

/**
 * plan: one reconcile pass for one JobSet. Never throws for an ordinary state of the world;
 * "not ready yet" is a plan that waits.
 */
export const plan = (observed: Observed, options: PlanOptions): Plan => {
  const raw = observed.jobSet;
  const base = { namespace: raw.metadata.namespace ?? 'default', name: raw.metadata.name ?? '', uid: raw.metadata.uid };
  if (!isManagedByLineup(raw, options)) {
    return { ...base, skipped: 'NotManaged', actions: [], reasons: [], reason: `managed by ${raw.spec.managedBy ?? 'no controller'}, not ${options.controllerName}` };
  }
  // DEVIATION: Lineup applies upstream's webhook defaults in memory on every pass,
  // so a JobSet behaves as if admitted through the webhook whether or not the cluster has one.
  const jobSet = applyDefaults(raw);
  const children = bucketJobs(jobSet, observed.jobs);
  // Why each action is taken: tagged where it is decided; the rest get their kind's reason.
  const because = new Map<Action, ActionReason>();
  const tag = <A extends Action>(action: A, code: ActionReasonCode, message: string): A => {
    because.set(action, { code, message });
    return action;
  };
  const explained = <P extends Plan>(result: P): P => ({
    ...result,
    reasons: result.actions.map((action) => because.get(action) ?? defaultReason(action, result.reason)),
  });
  const now = observed.now;

  if (raw.metadata.deletionTimestamp !== undefined) {
    // The JobSet is going away: let garbage collection take Jobs that wait on Lineup's finalizer.
    const releases: Action[] = [...children.byName.values()]
      .filter(holdsRecordFinalizer)
      .map((job) => ({ kind: 'RemoveJobFinalizer', name: job.metadata.name ?? '', resourceVersion: job.metadata.resourceVersion, finalizer: LineupKey.FinishedRecordFinalizer }));
    return {
      ...base,
      skipped: 'Deleting',
      actions: releases,
      reasons: releases.map(() => ({ code: ActionReasonCode.FinalizerReleased, message: 'jobset is being deleted' })),
      reason: `jobset is being deleted; released ${releases.length} finalizers`,
    };
  }

  const draft: Draft = {
    conditions: [...(raw.status?.conditions ?? [])],
    restarts: raw.status?.restarts ?? 0,
    restartsCountTowardsMax: raw.status?.restartsCountTowardsMax ?? 0,
    terminalState: raw.status?.terminalState || undefined,
    events: [],
    now,
  };
  const statusAction = (replicatedJobsStatus: JobSetStatus['replicatedJobsStatus']): Action[] => {
    const status = statusOf(raw.status, draft, replicatedJobsStatus);
    return isDeepStrictEqual(status, raw.status) ? [] : [{ kind: 'UpdateJobSetStatus', resourceVersion: raw.metadata.resourceVersion, status }];
  };

  // Lineup: an invalid JobSet starts nothing and says why, in a condition and an Event.
  const errors = validateJobSet(jobSet, options.limits);
  if (errors.length > 0) {
    const message = errors.map((error) => `${error.path}: ${error.message}`).join('; ');
    applyCondition(draft, { type: ConditionType.Rejected, status: 'True', reason: Reason.InvalidJobSet, message });
    const actions = [...statusAction(raw.status?.replicatedJobsStatus), ...draft.events];
    for (const action of actions) tag(action, ActionReasonCode.JobSetInvalid, message);
    return explained({ ...base, actions, reasons: [], reason: `rejected: ${message}` });
  }
  applyCondition(draft, { type: ConditionType.Rejected, status: 'False', reason: Reason.ValidJobSet, message: Message.ValidJobSet });

  const replicatedJobs = jobSet.spec.replicatedJobs ?? [];
  const jobSetName = base.name;
  const parsedRecord = parseRecord(raw.metadata.annotations?.[LineupKey.FinishedJobsAnnotation], draft.restarts);
  const record = parsedRecord.record;
  const counters = countReplicatedJobs(
    replicatedJobs.map((rjob) => rjob.name),
    children,
    record,
    (rjob, index) => jobName(jobSetName, rjob, index),
  );
  const recordWork = recordFinishedJobs(children, record);
  /** The counts the status write carries: as observed, or as the pass's own Job writes leave them (see the last step). */
  let statusCounts = counters.status;
  const notes: string[] = parsedRecord.problem ? [parsedRecord.problem] : [];
  const deletes: Action[] = [];
  /** finish: the pass's plan; `cause`, when given, is the reason of its status write and events. */
  const finish = (extra: Action[], reason: string, requeueAfterMs?: number, cause?: ActionReason): Plan => {
    const statusAndEvents = [...statusAction(statusCounts), ...draft.events];
    if (cause !== undefined) for (const action of statusAndEvents) if (!because.has(action)) tag(action, cause.code, cause.message);
    return explained({
      ...base,
      // An earlier attempt's finalizers go before its Jobs are deleted: the delete writes the Job,
      // and a release conditional on the resourceVersion observed would then be refused (409).
      actions: [...recordWork.previousReleases, ...deletes, ...extra, ...statusAndEvents, ...(recordWork.patch ? [recordWork.patch] : []), ...recordWork.releases],
      reasons: [],
      requeueAfterMs,
      reason: [reason, ...notes].join('; '),
    });
  };

  // Step 5: a finished JobSet deletes its remaining active Jobs and applies its TTL.
  if (jobSetFinished(draft.conditions)) {
    for (const job of children.active) {
      if (!isDeleting(job)) {
        deletes.push(tag({ kind: 'DeleteJob', name: job.metadata.name ?? '', uid: job.metadata.uid, propagation: 'Foreground', reason: 'jobset finished' }, ActionReasonCode.JobSetFinished, `jobset ${draft.terminalState ?? 'finished'}: ${job.metadata.name ?? ''} still active`));
      }
    }
    const ttl = ttlOutcome(jobSet, draft.conditions, now);
    const deleteJobSet: Action[] = ttl.expired
      ? [tag({ kind: 'DeleteJobSet', uid: base.uid, propagation: 'Foreground' }, ActionReasonCode.TtlExpired, `ttlSecondsAfterFinished ${jobSet.spec.ttlSecondsAfterFinished ?? 0} passed`)]
      : [];
    const plan = finish([], ttl.expired ? 'jobset finished; ttl expired, deleting it' : `jobset finished (${draft.terminalState ?? 'terminal'})`, ttl.requeueAfterMs);
    return explained({ ...plan, actions: [...plan.actions, ...deleteJobSet] });
  }

  // Step 6: Jobs of an earlier restart attempt go first (foreground, so same-named Jobs wait).
  for (const job of children.previous) {
    if (!isDeleting(job)) {
      deletes.push(tag({ kind: 'DeleteJob', name: job.metadata.name ?? '', uid: job.metadata.uid, propagation: 'Foreground', reason: 'previous restart attempt' }, ActionReasonCode.PreviousAttempt, `${job.metadata.name ?? ''} belongs to an earlier restart attempt (now ${draft.restarts})`));
    }
  }
  const suspended = jobSet.spec.suspend === true;
  const totalReplicas = replicatedJobs.reduce((sum, rjob) => sum + (rjob.replicas ?? 1), 0);
  const readyOrSucceeded = counters.status.reduce((sum, s) => sum + s.ready + s.succeeded, 0);
  if (!suspended && totalReplicas === readyOrSucceeded) {
    applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobsReady, message: Message.JobsReady });
  }

  // Step 8: failure policy; a failure ends the pass before anything is created or resumed.
  if (children.failed.length > 0) {
    const failedRefs = finishedRefs(children.failed);
    const outcome = decideFailure(jobSet.spec.failurePolicy, failedRefs, draft.restartsCountTowardsMax);
    const cause: ActionReason = { code: ActionReasonCode.FailurePolicyRule, message: failureRuleMessage(jobSet.spec.failurePolicy, failedRefs, outcome) };
    if (outcome.kind === 'Fail') {
      applyCondition(draft, { type: ConditionType.Failed, status: 'True', reason: outcome.reason, message: outcome.message });
      applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobSetFailed, message: Message.JobSetFailed });
      draft.terminalState = 'Failed';
      return finish([], `jobset failed: ${outcome.message}`, undefined, cause);
    }
    draft.restarts += 1;
    if (outcome.countsTowardsMax) draft.restartsCountTowardsMax += 1;
    applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'True', reason: outcome.reason, message: outcome.message });
    draft.events.push(tag({ kind: 'EmitEvent', eventType: 'Warning', reason: outcome.eventReason, message: outcome.message }, cause.code, cause.message));
    return finish([], `restarting (attempt ${draft.restarts}): ${outcome.message}`, undefined, cause);
  }

  // Step 9: success policy, evaluated once any Job succeeded (recorded ones count: kubernetes-sigs/jobset#360).
  const successful = [...finishedRefs(children.successful), ...recordedGoneRefs(record, children, jobSetName)];
  const replicaCounts = replicatedJobs.map((r) => ({ name: r.name, replicas: r.replicas ?? 1 }));
  if (successful.length > 0 && successPolicyMet(jobSet.spec.successPolicy, replicaCounts, successful)) {
    applyCondition(draft, { type: ConditionType.Completed, status: 'True', reason: Reason.AllJobsCompleted, message: Message.AllJobsCompleted });
    applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobSetCompleted, message: Message.AllJobsCompleted });
    draft.terminalState = 'Completed';
    return finish([], 'jobset completed', undefined, { code: ActionReasonCode.SuccessPolicyMet, message: successPolicyMessage(jobSet.spec.successPolicy, replicaCounts, successful) });
  }

  // Step 10: the headless Service, (re)created whenever it is missing.
  const serviceActions: Action[] = dnsHostnamesEnabled(jobSet) && observed.service === undefined ? [{ kind: 'CreateService', service: headlessService(jobSet) }] : [];

  // Steps 11–12: startup gates, creation, suspend/resume.
  const policy = startupPolicySpecOf(jobSet);
  const evaluation = evaluateStartup(policy, counters.gating);
  const gateOpen = new Map(evaluation.gates.map((gate) => [gate.replicatedJob, gate.released]));
  // A replicatedJob with a running Job stays released even if its gate closes again (a ready
  // pod restarting): Lineup never suspends running work because of a gate, only on JobSet suspend.
  const running = new Set<string>();
  for (const job of children.active) {
    const rjob = replicatedJobOf(job);
    if (rjob !== undefined && !isSuspended(job) && !isDeleting(job)) running.add(rjob);
  }
  const released = (rjob: string): boolean => (gateOpen.get(rjob) ?? false) || running.has(rjob);
  const gateByName = new Map(evaluation.gates.map((gate) => [gate.replicatedJob, gate]));
  /** gateReason: why a replicatedJob's Jobs start now or are held back. */
  const gateReason = (rjob: string): ActionReason => {
    if (suspended) return { code: ActionReasonCode.JobSetSuspended, message: 'spec.suspend is true' };
    const gate = gateByName.get(rjob);
    if (gate?.released === true) return { code: ActionReasonCode.GateOpened, message: gateOpenedMessage(policy, counters.gating, rjob) };
    if (running.has(rjob)) return { code: ActionReasonCode.AlreadyRunning, message: `${rjob} already has running jobs; its gate closed again` };
    return { code: ActionReasonCode.StartupRuleHeld, message: gate === undefined ? `${rjob}: no gate` : heldMessage(policy, gate) };
  };

  const creates: Action[] = [];
  let createdGated = 0;
  // Missing Jobs left to the next passes (MAX_CREATES_PER_PASS), and how many of them a gate holds back.
  let deferred = 0;
  let deferredGated = 0;
  // upstream: with BlockingRecreate nothing is built while any Job of an older attempt exists.
  const blocked = jobSet.spec.failurePolicy?.restartStrategy === 'BlockingRecreate' && children.previous.length > 0;
  if (!blocked) {
    const layout = replicaLayout(replicatedJobs);
    for (const rjob of replicatedJobs) {
      const holdBack = suspended || !released(rjob.name);
      for (let index = 0; index < (rjob.replicas ?? 1); index += 1) {
        const name = jobName(jobSetName, rjob.name, index);
        // upstream: skip any name an owned Job already has, whatever its bucket.
        if (children.byName.has(name)) continue;
        // DEVIATION (kubernetes-sigs/jobset#360): a Job that finished and was deleted by its own TTL
        // is recorded, not re-created — its work is done and the gates it opened stay open.
        if (recordHas(record, 'succeeded', rjob.name, index) || recordHas(record, 'failed', rjob.name, index)) continue;
        if (creates.length >= MAX_CREATES_PER_PASS) {
          deferred += 1;
          if (holdBack) deferredGated += 1;
          continue;
        }
        // DEVIATION: every Job is created at once — also while the JobSet is
        // suspended, for dependsOn as for InOrder — and a gated one is created suspended.
        const reason = gateReason(rjob.name);
        creates.push(tag({ kind: 'CreateJob', job: constructJob(jobSet, rjob, index, holdBack, layout), replicatedJob: rjob.name }, reason.code, reason.message));
        if (holdBack) createdGated += 1;
      }
    }
  }

  // upstream reconcileVolumeClaimPolicies: the claims exist before any Job that mounts them. A
  // pass that creates Jobs (the first, and each after a restart) creates them; one that exists is kept.
  const claims: Action[] =
    creates.length === 0
      ? []
      : volumeClaims(jobSet).map((claim) =>
          tag(
            { kind: 'CreatePersistentVolumeClaim', claim },
            ActionReasonCode.VolumeClaimPolicy,
            `${claim.metadata.name ?? ''}: created before the jobs that mount it (${claim.metadata.ownerReferences === undefined ? 'Retain: kept when the jobset is deleted' : 'Delete: owned by the jobset'})`,
          ),
        );

  const transitions: Action[] = [];
  const rjobByName = new Map<string, ReplicatedJob>(replicatedJobs.map((rjob) => [rjob.name, rjob]));
  let remainingSuspended = 0;
  if (suspended) {
    for (const job of children.active) {
      if (isSuspended(job) || isDeleting(job)) continue;
      transitions.push(
        tag({ kind: 'SuspendJob', name: job.metadata.name ?? '', replicatedJob: replicatedJobOf(job) ?? '', resourceVersion: job.metadata.resourceVersion }, ActionReasonCode.JobSetSuspended, 'spec.suspend is true'),
      );
    }
    applyCondition(draft, { type: ConditionType.Suspended, status: 'True', reason: Reason.SuspendedJobs, message: Message.SuspendedJobs });
    applyCondition(draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobSetSuspended, message: Message.JobSetSuspended });
  } else {
    const resumedBy = new Map<string, number>();
    for (const job of children.active) {
      if (!isSuspended(job) || isDeleting(job)) continue;
      const rjobName = replicatedJobOf(job);
      const rjob = rjobName === undefined ? undefined : rjobByName.get(rjobName);
      if (!rjob || !released(rjob.name)) {
        remainingSuspended += 1;
        continue;
      }
      const reason = gateReason(rjob.name);
      transitions.push(
        tag(
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
    for (const rjob of replicatedJobs) {
      const count = resumedBy.get(rjob.name);
      if (count !== undefined) {
        const reason = gateReason(rjob.name);
        draft.events.push(
          tag({ kind: 'EmitEvent', eventType: 'Normal', reason: EventReason.ReplicatedJobReleased, message: `released ${rjob.name}: resumed ${count} ${count === 1 ? 'job' : 'jobs'}` }, reason.code, reason.message),
        );
      }
    }
    // DEVIATION: Suspended turns False as soon as the JobSet is resumed; the startup
    // conditions, not Suspended, show how far an in-order resume has come.
    applyCondition(draft, { type: ConditionType.Suspended, status: 'False', reason: Reason.ResumeJobs, message: Message.ResumeJobs });
    applyStartupConditions(draft, evaluation, {
      stillComplete: createdGated === 0 && deferredGated === 0 && remainingSuspended === 0 && children.previous.length === 0,
    });
  }
  if (deferred > 0) {
    // How far creation got, in an Event: upstream's status has no field for it.
    draft.events.push(
      tag(
        { kind: 'EmitEvent', eventType: 'Normal', reason: EventReason.CreatingJobs, message: creatingJobsMessage(totalReplicas - deferred, totalReplicas) },
        ActionReasonCode.CreationContinues,
        `a pass creates at most ${MAX_CREATES_PER_PASS} jobs: ${deferred} more in the next passes`,
      ),
    );
  }

  const summary = [
    claims.length > 0 ? `created ${claims.length} volume claims` : undefined,
    creates.length > 0 ? `created ${creates.length} jobs (${createdGated + (suspended ? creates.length - createdGated : 0)} suspended)` : undefined,
    deferred > 0 ? `${deferred} more jobs in the next passes (at most ${MAX_CREATES_PER_PASS} a pass)` : undefined,
    transitions.length > 0 ? `${suspended ? 'suspended' : 'resumed'} ${transitions.length} jobs` : undefined,
    evaluation.waitingOn && !suspended ? evaluation.waitingOn.message : undefined,
    suspended ? 'jobset suspended' : undefined,
  ].filter((part): part is string => part !== undefined);
  // The status counts the Jobs as this pass's writes leave them (created, resumed, suspended),
  // which run before it and stop the pass if one fails: the pass that sees their echoes then finds
  // the status right, and the loop settles on the writes' answers without another status write.
  if (creates.length > 0 || transitions.length > 0) {
    statusCounts = countReplicatedJobs(
      replicatedJobs.map((rjob) => rjob.name),
      childrenAfter(children, creates, transitions),
      record,
      (rjob, index) => jobName(jobSetName, rjob, index),
    ).status;
  }
  const result = finish([...serviceActions, ...claims, ...creates, ...transitions], summary.length > 0 ? summary.join('; ') : 'nothing to do');
  return { ...result, startup: { form: evaluation.form, gates: evaluation.gates } };
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
