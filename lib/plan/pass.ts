/**
 * One reconcile pass's record and how a pass ends. A pass carries the JobSet as observed and with
 * upstream's defaults, its Jobs bucketed, a draft of its status, and why each action is taken;
 * `finish` turns it into the plan, its actions in the order the executor must write them. Lives
 * only inside plan() (lib/plan/planner.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import { ConditionType, LineupKey } from '../jobset/api.ts';
import { applyDefaults } from '../jobset/defaults.ts';
import { jobName } from '../jobset/keys.ts';
import type { Condition, JobSet, JobSetStatus, ReplicatedJob, ReplicatedJobStatus } from '../jobset/schema.ts';
import { bucketJobs, countReplicatedJobs, type ChildJobs, type ReplicatedJobCounters } from './childJobs.ts';
import { findCondition, setCondition, type DesiredCondition } from './conditions.ts';
import { parseRecord, type FinishedJobsRecord } from './finishedJobs.ts';
import { ActionReasonCode, type ActionReason } from './reasons.ts';
import { recordFinishedJobs, type RecordWork } from './recordFinalizer.ts';
import type { Action, Observed, Plan } from './types.ts';

/** eventTypeOf: Warning for conditions that report trouble, Normal otherwise (upstream). */
const eventTypeOf = (condition: DesiredCondition): 'Normal' | 'Warning' =>
  condition.status === 'True' &&
  (condition.type === ConditionType.Failed || condition.type === ConditionType.RestartingJobSet || condition.type === ConditionType.Rejected)
    ? 'Warning'
    : 'Normal';

/** waitSubject: a startup message without its live counts, so a count change alone emits no event. */
const waitSubject = (message: string | undefined): string => (message ?? '').replace(/: \d+\/\d+ jobs (ready|succeeded)$/, '');

/** The mutable draft of one pass; lives only inside plan(). */
export interface Draft {
  conditions: Condition[];
  restarts: number;
  restartsCountTowardsMax: number;
  terminalState: string | undefined;
  readonly events: Action[];
  readonly now: number;
}

/** applyCondition: set a condition on the draft and queue its event when it changed. */
export const applyCondition = (draft: Draft, desired: DesiredCondition, quietTextChange = false): void => {
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

/** The plan's identity fields, as observed. */
export type PlanBase = Pick<Plan, 'namespace' | 'name' | 'uid'>;

/** Pass: one pass's inputs and its bookkeeping; lives only inside plan(). */
export interface Pass {
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
export interface CountedPass extends Pass {
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
export const tag = <A extends Action>(pass: Pass, action: A, code: ActionReasonCode, message: string): A => {
  pass.because.set(action, { code, message });
  return action;
};

/** explained: the plan with a reason for each of its actions, tagged or by the action's kind. */
export const explained = <P extends Plan>(pass: Pass, result: P): P => ({
  ...result,
  reasons: result.actions.map((action) => pass.because.get(action) ?? defaultReason(action, result.reason)),
});

/** statusWrite: the status update the draft calls for, none when it equals the status observed. */
export const statusWrite = (pass: Pass, replicatedJobsStatus: JobSetStatus['replicatedJobsStatus']): Action[] => {
  const status = statusOf(pass.raw.status, pass.draft, replicatedJobsStatus);
  return isDeepStrictEqual(status, pass.raw.status) ? [] : [{ kind: 'UpdateJobSetStatus', resourceVersion: pass.raw.metadata.resourceVersion, status }];
};

/**
 * finish: the pass's plan, in the order the executor must write it; `cause`, when given, is the
 * reason of its status write and events.
 */
export const finish = (pass: CountedPass, extra: Action[], reason: string, requeueAfterMs?: number, cause?: ActionReason): Plan => {
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

/** beginPass: the JobSet with upstream's defaults, its Jobs bucketed, a draft of its status as observed. */
export const beginPass = (observed: Observed, base: PlanBase): Pass => {
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

/** countJobs: upstream's counters with the finished-Jobs record read, and the record's bookkeeping for this pass. */
export const countJobs = (pass: Pass): CountedPass => {
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
