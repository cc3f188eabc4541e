/**
 * The slim projection of JobSets and Jobs carried in events: no managedFields, no pod
 * template, only what a decision depends on. Its stable JSON is also the forwarder's
 * change digest — an update that leaves the projection equal is not forwarded.
 */
import { Label } from '../constants.ts';
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
 * changeDigest: a string equal for two objects exactly when a decision could not tell them
 * apart. For a Job that is not its pod counts but what the planner derives from them — ready
 * (succeeded + ready pods reach min(parallelism, completions)), active (any pod), finished
 * (its conditions) — so the 99 pods of a 100-pod Job turning ready one by one are not forwarded,
 * the 100th is. The event still carries the counts, for people reading it.
 */
export const changeDigest = (slim: SlimJobSet | SlimJob): string => {
  if (slim.kind === 'JobSet') return JSON.stringify(slim);
  const { active, ready: _ready, succeeded: _succeeded, failed: _failed, ...decisive } = slim;
  return JSON.stringify({ ...decisive, active: active > 0 });
};
