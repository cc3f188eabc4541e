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
 * The steps live by what they decide: the pass record and its ending in pass.ts, the outcome
 * steps in outcomes.ts, a running JobSet in running.ts (with gates.ts, creation.ts and
 * startupConditions.ts), the finished-record finalizer in recordFinalizer.ts.
 *
 * Upstream's status write is skipped when a step fails; here that holds by construction: actions are ordered so the
 * status write and its events come after every Job write, and executors stop at the first
 * failure. A Job of the generated name that this JobSet does not own is treated as
 * upstream: no adoption — the CreateJob fails with AlreadyExists on every pass and the
 * executor reports JobCreationFailed, because taking over someone else's Job is worse.
 */
import { DEFAULT_CONTROLLER_NAME, isManagedByLineup } from '../jobset/managedBy.ts';
import type { JobSet } from '../jobset/schema.ts';
import { completeIfSucceeded, deletePreviousAttempt, failOrRestart, finishedJobSet, jobSetFinished, noteJobsReady, rejectIfInvalid, releaseForDeletion } from './outcomes.ts';
import { beginPass, countJobs, type PlanBase } from './pass.ts';
import { runJobSet } from './running.ts';
import type { Observed, Plan, PlanOptions } from './types.ts';

/** DEFAULT_PLAN_OPTIONS: Lineup's controller name, unmanaged JobSets left alone. */
export const DEFAULT_PLAN_OPTIONS: PlanOptions = { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false };

/** notManaged: the plan that leaves another controller's JobSet alone, or undefined for Lineup's own. */
const notManaged = (raw: JobSet, base: PlanBase, options: PlanOptions): Plan | undefined =>
  isManagedByLineup(raw, options)
    ? undefined
    : { ...base, skipped: 'NotManaged', actions: [], reasons: [], reason: `managed by ${raw.spec.managedBy ?? 'no controller'}, not ${options.controllerName}` };

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
