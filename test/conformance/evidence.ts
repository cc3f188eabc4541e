/**
 * What the differential run records of one controller's handling of one JobSet, for the checks
 * that back each verdict (verdictChecks.ts): per Job its run request, ready time, conditions,
 * deletion and Pods' ends; per JobSet every condition change; the controller's status writes
 * and Job deletes from the API server's audit log; Lineup's passes. Plain JSON, so a recorded
 * pair can be fed to the comparison as it is. Pure: the derivations below read only the record.
 *
 * Times are epoch milliseconds on the one machine's clock. A write's time is the API server's:
 * `receivedAt` when it received the request (what the controller had decided by then), `at` when
 * the response was complete; a watch's sighting is later than both and is used only when no
 * write matches it.
 */

/** JobCondition: one change of a Job condition, as the Job controller wrote it. */
export interface JobCondition {
  readonly type: string;
  readonly status: string;
  /** The condition's lastTransitionTime (RFC 3339, whole seconds): what both controllers read as a failure time. */
  readonly lastTransitionTime?: string | undefined;
  /** When the API server received the Job controller's status write carrying it: no controller can have read it before. */
  readonly receivedAt: number;
  /** When that write's response was complete: every reader can have seen it by then. */
  readonly at: number;
  /** When the run's watch saw it. */
  readonly seenAt?: number | undefined;
}

/** JobHistory: one Job (one uid: a restart re-creates a Job under the same name). */
export interface JobHistory {
  readonly name: string;
  readonly replicatedJob: string;
  /** The restart attempt the Job belongs to (its jobset.sigs.k8s.io/restart-attempt label). */
  readonly attempt: number;
  /** When the controller's request that made it run was received: a create unsuspended, or the write that un-suspended it. */
  readonly runRequestedAt?: number | undefined;
  /** When the Job controller's write that made it ready (ready + succeeded ≥ parallelism, not suspended) completed. */
  readonly readyAt?: number | undefined;
  /** Every change of its conditions, oldest first: interim ones (FailureTarget, SuccessCriteriaMet) and final ones (Complete, Failed). */
  readonly conditions: readonly JobCondition[];
  /** When its deletion began (the first delete request received, else the first sighting of a deletionTimestamp). */
  readonly deletionAt?: number | undefined;
  /** When the controller that deleted it decided to (what it had read by then): Lineup's pass start; upstream's last status write before the delete. */
  readonly deletionDecidedAt?: number | undefined;
  /** Who deleted it: lineup, upstream, jobController, system (the garbage collector). */
  readonly deletedBy?: string | undefined;
  /** When the watch saw it gone. */
  readonly goneAt?: number | undefined;
  /** When each of its Pods was first seen Succeeded or Failed. */
  readonly podsEndedAt: readonly number[];
}

/** JobSetSighting: the JobSet's status as the watch saw it change. */
export interface JobSetSighting {
  readonly at: number;
  readonly restarts: number;
  readonly conditions: readonly { readonly type: string; readonly status: string; readonly reason?: string | undefined }[];
}

/** Write: one request of the controller (or the user) in the audit log. */
export interface Write {
  readonly receivedAt: number;
  readonly at: number;
  readonly code: number;
}

/** LineupPass: one of Lineup's passes over the JobSet: what it decided to write and whether writing failed. */
export interface LineupPass {
  readonly startedAt: number;
  readonly writesDoneAt: number;
  /** The conditions of the status it wrote (absent: no status write). */
  readonly statusConditions?: readonly { readonly type: string; readonly status: string }[] | undefined;
  /** The Jobs it deleted. */
  readonly deletes: readonly string[];
  /** Why carrying out the plan failed (e.g. a status write refused with 409). */
  readonly error?: string | undefined;
}

/** StageShape: a replicatedJob of the startup's last stage and how many Jobs it makes. */
export interface StageShape {
  readonly name: string;
  readonly replicas: number;
}

/** Evidence: one controller's record of one JobSet. */
export interface Evidence {
  /** When the API server received the JobSet's create: the zero of the times a verdict prints. */
  readonly createdAt: number;
  readonly jobs: readonly JobHistory[];
  readonly jobSet: readonly JobSetSighting[];
  /** When the watch first saw the JobSet being deleted (its TTL); absent when it never was. */
  readonly deletedAt?: number | undefined;
  /** The controller's writes to the JobSet's status, refused ones (code ≥ 300) too. */
  readonly statusWrites: readonly Write[];
  /** The controller's delete requests of the JobSet's Jobs. */
  readonly jobDeletes: readonly (Write & { readonly name: string })[];
  /** The user's suspend and resume writes, in order. */
  readonly userActions: readonly (Write & { readonly suspend: boolean })[];
  /** The replicatedJobs of the last stage of the startup (InOrder: the last one). */
  readonly lastStage: readonly StageShape[];
  /** Lineup's passes (absent for upstream: its reconciles leave only their writes). */
  readonly passes?: readonly LineupPass[] | undefined;
}

/** FINAL_JOB_CONDITIONS: the conditions that end a Job. */
const FINAL_JOB_CONDITIONS = ['Complete', 'Failed'];

/** finishOf: the Job's final condition (Complete or Failed True) and when it was written; undefined while it runs. */
export const finishOf = (job: JobHistory): JobCondition | undefined => job.conditions.find((c) => FINAL_JOB_CONDITIONS.includes(c.type) && c.status === 'True');

/** finalAttempt: the restart attempt the JobSet ended in. */
export const finalAttempt = (evidence: Evidence): number => evidence.jobSet.at(-1)?.restarts ?? 0;

/** attemptStartedAt: when the watch first saw the JobSet in its final attempt. */
export const attemptStartedAt = (evidence: Evidence): number => {
  const attempt = finalAttempt(evidence);
  return evidence.jobSet.find((s) => s.restarts === attempt)?.at ?? 0;
};

/** isTerminalSighting: Completed or Failed True. */
const isTerminalSighting = (sighting: JobSetSighting): boolean => sighting.conditions.some((c) => (c.type === 'Completed' || c.type === 'Failed') && c.status === 'True');

/**
 * terminalWriteAt: when the API server received the controller's status write that ended the
 * JobSet: its last accepted status write received before the watch first saw Completed or Failed
 * True (the sighting's own time when no write matches); undefined when it never ended.
 */
export const terminalWriteAt = (evidence: Evidence): number | undefined => {
  const seen = evidence.jobSet.find(isTerminalSighting)?.at;
  if (seen === undefined) return undefined;
  return evidence.statusWrites.filter((w) => w.code < 300 && w.receivedAt <= seen).at(-1)?.receivedAt ?? seen;
};

/** firstDeleteAfter: the controller's first Job delete request received at or after `from`. */
export const firstDeleteAfter = (evidence: Evidence, from: number): number | undefined => evidence.jobDeletes.find((d) => d.receivedAt >= from && d.code < 300)?.receivedAt;

/**
 * nextWriteAfter: the controller's first accepted write after `from` (a Job delete, or a status
 * write received later): what it did after reading again — a Job still active then would have
 * been deleted.
 */
export const nextWriteAfter = (evidence: Evidence, from: number): number | undefined => {
  const times = [firstDeleteAfter(evidence, from), evidence.statusWrites.find((w) => w.code < 300 && w.receivedAt > from)?.receivedAt].filter((t): t is number => t !== undefined);
  return times.length === 0 ? undefined : Math.min(...times);
};

/** finalConditionStatus: the condition's status in the last sighting; undefined when absent. */
export const finalConditionStatus = (evidence: Evidence, type: string): string | undefined => evidence.jobSet.at(-1)?.conditions.find((c) => c.type === type)?.status;

/** wroteCondition: the first sighting at or after `from` with the condition at `status`; undefined when none. */
export const sightingWith = (evidence: Evidence, type: string, status: string, from = 0): JobSetSighting | undefined =>
  evidence.jobSet.find((s) => s.at >= from && s.conditions.some((c) => c.type === type && c.status === status));

/** leftAt: the Jobs whose deletion had not begun by `at`. */
export const leftAt = (evidence: Evidence, at: number): JobHistory[] => evidence.jobs.filter((job) => job.deletionAt === undefined || job.deletionAt > at);

/**
 * jobsLeft: the Jobs the final status counts — those left at the end of the run (which waits
 * until no Job is being deleted), or, for a JobSet deleted by its TTL, when its deletion began
 * (its Jobs go with it, its status as it was).
 */
export const jobsLeft = (evidence: Evidence): JobHistory[] => leftAt(evidence, evidence.deletedAt ?? Number.POSITIVE_INFINITY);

/**
 * jobsOfAttempt: the final attempt's Jobs of `replicatedJob`, by name (a name's last Job of the
 * attempt, should one have been made twice).
 */
export const jobsOfAttempt = (evidence: Evidence, replicatedJob: string, attempt = finalAttempt(evidence)): Map<string, JobHistory> =>
  new Map(evidence.jobs.filter((job) => job.replicatedJob === replicatedJob && job.attempt === attempt).map((job) => [job.name, job]));

/** relative: `at` as seconds after `zero`, "+12.34 s". */
export const relative = (at: number, zero: number): string => `+${((at - zero) / 1000).toFixed(2)} s`;
