/**
 * Child Job discovery, bucketing and counters (upstream getChildJobs and
 * calculateReplicatedJobStatuses).
 */
import { JOBSET_API_VERSION, JOBSET_KIND, JobConditionType, Label } from '../jobset/api.ts';
import type { Job, JobSet, ReplicatedJobStatus } from '../jobset/schema.ts';
import type { ReplicatedJobProgress } from '../policy/types.ts';
import type { FinishedJobsRecord } from './finishedJobs.ts';

/** ChildJobs: the JobSet's Jobs sorted into upstream's four buckets, plus a by-name index. */
export interface ChildJobs {
  readonly active: readonly Job[];
  readonly successful: readonly Job[];
  readonly failed: readonly Job[];
  /** Jobs of an earlier restart attempt: deleted, never counted. */
  readonly previous: readonly Job[];
  readonly byName: ReadonlyMap<string, Job>;
}

/** isControlledBy: the Job's controller ownerReference is this JobSet (same uid, not just the name). */
export const isControlledBy = (job: Job, jobSetUid: string | undefined): boolean =>
  (job.metadata.ownerReferences ?? []).some(
    (ref) => ref.controller === true && ref.apiVersion === JOBSET_API_VERSION && ref.kind === JOBSET_KIND && ref.uid === jobSetUid,
  );

/** jobFinishedType: Complete or Failed when that Job condition is True, else undefined (still active). */
export const jobFinishedType = (job: Job): 'Complete' | 'Failed' | undefined => {
  for (const condition of job.status?.conditions ?? []) {
    if (condition.status !== 'True') continue;
    if (condition.type === JobConditionType.Complete) return 'Complete';
    if (condition.type === JobConditionType.Failed) return 'Failed';
  }
  return undefined;
};

/**
 * restartAttemptOf: the Job's restart-attempt label. A missing or unparseable label makes the
 * Job count as an earlier attempt (-1), so it is replaced rather than failing every pass as
 * upstream does — a Job Lineup owns but cannot place is safest rebuilt.
 */
export const restartAttemptOf = (job: Job): number => {
  const value = Number.parseInt(job.metadata.labels?.[Label.RestartAttempt] ?? '', 10);
  return Number.isNaN(value) ? -1 : value;
};

/** replicatedJobOf: the replicatedJob a Job belongs to, from its label. */
export const replicatedJobOf = (job: Job): string | undefined => job.metadata.labels?.[Label.ReplicatedJobName] || undefined;

/** jobIndexOf: the Job's index within its replicatedJob, from its label. */
export const jobIndexOf = (job: Job): number | undefined => {
  const value = Number.parseInt(job.metadata.labels?.[Label.JobIndex] ?? '', 10);
  return Number.isNaN(value) ? undefined : value;
};

/** podsNeededForReady: min(parallelism, completions) — upstream's pod count for a ready Job. */
const podsNeededForReady = (job: Job): number => {
  const parallelism = job.spec.parallelism ?? 1;
  const completions = job.spec.completions;
  return completions !== undefined && completions < parallelism ? completions : parallelism;
};

/** jobReady: succeeded + ready pods reach min(parallelism, completions). */
export const jobReady = (job: Job): boolean => (job.status?.succeeded ?? 0) + (job.status?.ready ?? 0) >= podsNeededForReady(job);

/** isDeleting: the object carries a deletionTimestamp. */
export const isDeleting = (job: Job): boolean => job.metadata.deletionTimestamp !== undefined;

/** isSuspended: spec.suspend is true. */
export const isSuspended = (job: Job): boolean => job.spec.suspend === true;

/** bucketJobs: keep the Jobs this JobSet controls and sort them into buckets. */
export const bucketJobs = (jobSet: JobSet, jobs: readonly Job[]): ChildJobs => {
  const restarts = jobSet.status?.restarts ?? 0;
  const active: Job[] = [];
  const successful: Job[] = [];
  const failed: Job[] = [];
  const previous: Job[] = [];
  const byName = new Map<string, Job>();
  for (const job of jobs) {
    if (!isControlledBy(job, jobSet.metadata.uid)) continue;
    byName.set(job.metadata.name ?? '', job);
    if (restartAttemptOf(job) < restarts) previous.push(job);
    else {
      const finished = jobFinishedType(job);
      if (finished === 'Complete') successful.push(job);
      else if (finished === 'Failed') failed.push(job);
      else active.push(job);
    }
  }
  return { active, successful, failed, previous, byName };
};

interface Counters {
  ready: number;
  succeeded: number;
  failed: number;
  active: number;
  suspended: number;
}

const zeroCounters = (): Counters => ({ ready: 0, succeeded: 0, failed: 0, active: 0, suspended: 0 });

/** Per-replicatedJob counters: `status` as upstream writes it, `gating` as Lineup's gates read it. */
export interface ReplicatedJobCounters {
  /** status.replicatedJobsStatus, name descending as upstream writes it. */
  readonly status: ReplicatedJobStatus[];
  /** Progress for startup gates: a suspended Job is never ready. */
  readonly gating: ReadonlyMap<string, ReplicatedJobProgress>;
}

/**
 * countReplicatedJobs: upstream's counters for status, and the progress gates decide on.
 * Jobs recorded as finished in `record` but gone from the cluster (deleted by their own TTL,
 * kubernetes-sigs/jobset#360) still count as succeeded/failed, so the gates they opened stay open.
 */
export const countReplicatedJobs = (
  replicatedJobNames: readonly string[],
  children: ChildJobs,
  record: FinishedJobsRecord,
  jobNameOf: (replicatedJob: string, index: number) => string,
): ReplicatedJobCounters => {
  // every replicatedJob has an entry, zeros before any Job exists, so gates always resolve.
  const status = new Map<string, Counters>(replicatedJobNames.map((name) => [name, zeroCounters()]));
  const gatingReady = new Map<string, number>(replicatedJobNames.map((name) => [name, 0]));
  for (const job of children.active) {
    const rjob = replicatedJobOf(job);
    const counters = rjob === undefined ? undefined : status.get(rjob);
    if (!counters || rjob === undefined) continue;
    const ready = jobReady(job);
    if (ready) counters.ready += 1;
    if ((job.status?.active ?? 0) > 0) counters.active += 1;
    if (isSuspended(job)) counters.suspended += 1;
    else if (ready) gatingReady.set(rjob, (gatingReady.get(rjob) ?? 0) + 1);
  }
  const countFinished = (jobs: readonly Job[], field: 'succeeded' | 'failed'): void => {
    for (const job of jobs) {
      const rjob = replicatedJobOf(job);
      const counters = rjob === undefined ? undefined : status.get(rjob);
      if (counters) counters[field] += 1;
    }
  };
  countFinished(children.successful, 'succeeded');
  countFinished(children.failed, 'failed');
  for (const [field, byReplicatedJob] of [
    ['succeeded', record.succeeded],
    ['failed', record.failed],
  ] as const) {
    for (const [rjob, indices] of byReplicatedJob) {
      const counters = status.get(rjob);
      if (!counters) continue;
      for (const index of indices) if (!children.byName.has(jobNameOf(rjob, index))) counters[field] += 1;
    }
  }
  const gating = new Map<string, ReplicatedJobProgress>();
  for (const [name, counters] of status) {
    gating.set(name, { ready: gatingReady.get(name) ?? 0, succeeded: counters.succeeded, failed: counters.failed });
  }
  // the list is rewritten whole, name descending, as upstream writes it.
  const statusList = [...status.entries()]
    .map(([name, counters]): ReplicatedJobStatus => ({ name, ...counters }))
    .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  return { status: statusList, gating };
};
