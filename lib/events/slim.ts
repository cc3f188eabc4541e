/**
 * The slim projection of JobSets and Jobs carried in events: no managedFields, no pod
 * template, only what a decision depends on. Its stable JSON is also the forwarder's
 * change digest — an update that leaves the projection equal is not forwarded.
 */
import { ConditionType, JobConditionType, Label } from '../jobset/api.ts';
import { jobReady } from '../plan/childJobs.ts';
import type { Job, JobSet } from '../jobset/schema.ts';
import type { SlimJob, SlimJobSet } from './schema.ts';

const slimConditions = (conditions: readonly { type: string; status: string; reason?: string | undefined }[] | undefined) =>
  (conditions ?? []).map((c) => (c.reason === undefined ? { type: c.type, status: c.status } : { type: c.type, status: c.status, reason: c.reason }));

/** slimJobSet: the decision-relevant part of a JobSet. */
export const slimJobSet = (jobSet: JobSet): SlimJobSet => {
  const slim: SlimJobSet = {
    kind: 'JobSet',
    deleting: jobSet.metadata.deletionTimestamp !== undefined,
    suspend: jobSet.spec.suspend === true,
    restarts: jobSet.status?.restarts ?? 0,
    conditions: slimConditions(jobSet.status?.conditions),
  };
  if (jobSet.metadata.generation !== undefined) slim.generation = jobSet.metadata.generation;
  if (jobSet.spec.managedBy !== undefined) slim.managedBy = jobSet.spec.managedBy;
  if (jobSet.status?.terminalState) slim.terminalState = jobSet.status.terminalState;
  return slim;
};

/** slimJob: the decision-relevant part of a child Job. */
export const slimJob = (job: Job): SlimJob => {
  const slim: SlimJob = {
    kind: 'Job',
    deleting: job.metadata.deletionTimestamp !== undefined,
    suspend: job.spec.suspend === true,
    active: job.status?.active ?? 0,
    ready: job.status?.ready ?? 0,
    succeeded: job.status?.succeeded ?? 0,
    failed: job.status?.failed ?? 0,
    jobReady: jobReady(job),
    finalizers: job.metadata.finalizers?.length ?? 0,
    conditions: slimConditions(job.status?.conditions),
  };
  const replicatedJob = job.metadata.labels?.[Label.ReplicatedJobName];
  const restartAttempt = job.metadata.labels?.[Label.RestartAttempt];
  if (replicatedJob !== undefined) slim.replicatedJob = replicatedJob;
  if (restartAttempt !== undefined) slim.restartAttempt = restartAttempt;
  return slim;
};

/**
 * Conditions of a JobSet a later pass decides on: a finished JobSet (Completed or Failed True)
 * deletes its remaining Jobs and applies its TTL in the pass after the one that wrote them.
 */
const DECISIVE_JOBSET_CONDITIONS: ReadonlySet<string> = new Set([ConditionType.Completed, ConditionType.Failed]);

/**
 * changeDigest: a string equal for two objects exactly when a decision could not tell them
 * apart.
 *
 * For a Job that is not its pod counts but what the planner derives from them — ready
 * (succeeded + ready pods reach min(parallelism, completions)), active (any pod), finished
 * (its conditions) — so the 99 pods of a 100-pod Job turning ready one by one are not forwarded,
 * the 100th is. The event still carries the counts, for people reading it.
 *
 * For a JobSet it is what someone else changes (spec: suspend, manager, generation; deletion)
 * and the part of Lineup's own status write that a later pass acts on: restarts and the
 * terminal state with its Completed/Failed condition (a JobSet seen for the first time with
 * them is forwarded; after that, a change in them alone is Lineup's own write, which the pass
 * that wrote it acts on: see decisionDigest). The other conditions (StartupPolicyInProgress and
 * the like) and the counters are only ever written by Lineup's pass from what it read.
 */
export const changeDigest = (slim: SlimJobSet | SlimJob): string => digestsOf(slim).digest;

/**
 * othersDigest: changeDigest without the fields of a Job only its JobSet's controller writes
 * (spec.suspend): equal for a Job before and after Lineup suspended or resumed it. With
 * managedFields naming Lineup as the writer of that field, such a change is Lineup's own write.
 */
export const othersDigest = (slim: SlimJobSet | SlimJob): string => digestsOf(slim).othersDigest;

/**
 * The Job conditions a decision reads (jobFinishedType): the Suspended condition and the interim
 * SuccessCriteriaMet and FailureTarget the Job controller writes before Complete and Failed are
 * read by no gate or policy.
 */
const FINISHED_JOB_CONDITIONS: ReadonlySet<string> = new Set([JobConditionType.Complete, JobConditionType.Failed]);

/**
 * decisionDigest: what a decision reads, without what only the status counters report — for a
 * Job its changeDigest without `active` and with only its Complete and Failed conditions (the
 * Job controller's answers to a start or a resume, and its interim conditions, are read by no
 * gate or policy); for a JobSet what
 * someone else changes (spec, generation, manager, deletion), not the status Lineup writes. A
 * change that leaves it equal is forwarded late, with the JobSet's next change (or dropped, for a
 * JobSet's status: Lineup wrote it, and the pass that did goes on to act on it).
 */
export const decisionDigest = (slim: SlimJobSet | SlimJob): string => digestsOf(slim).decisionDigest;

/** Digests: changeDigest, othersDigest and decisionDigest of one projection. */
export interface Digests {
  readonly digest: string;
  readonly othersDigest: string;
  readonly decisionDigest: string;
}

/** digestsOf: the three digests at the cost of a few JSON.stringify calls (the forwarder computes them for every watch event). */
export const digestsOf = (slim: SlimJobSet | SlimJob): Digests => {
  if (slim.kind === 'JobSet') {
    const { conditions, restarts, terminalState, ...others } = slim;
    const decisionDigest = JSON.stringify(others);
    const digest = JSON.stringify({ ...others, restarts, terminalState, conditions: conditions.filter((c) => DECISIVE_JOBSET_CONDITIONS.has(c.type)).map((c) => `${c.type}=${c.status}`) });
    return { digest, othersDigest: digest, decisionDigest };
  }
  const { active, ready: _ready, succeeded: _succeeded, failed: _failed, suspend, ...decisive } = slim;
  const othersDigest = JSON.stringify({ ...decisive, active: active > 0 });
  const decisionDigest = JSON.stringify({ ...decisive, conditions: decisive.conditions.filter((c) => FINISHED_JOB_CONDITIONS.has(c.type)), suspend });
  return { digest: `${othersDigest} suspend=${String(suspend)}`, othersDigest, decisionDigest };
};
