/**
 * The oracle of the planner's properties: what the JobSet API says should happen, written from
 * the upstream definitions and Lineup's README, independently of lib/policy and lib/plan (it
 * imports neither, so a mistake there cannot hide by being made twice). It reads Job objects
 * directly and answers: which restart attempt a Job belongs to, whether it is ready, whether a
 * replicatedJob's startup gate is open, and what the failure and success policies imply.
 */
import { JobConditionType, Label } from '../../lib/jobset/api.ts';
import type { Job } from '../../lib/jobset/schema.ts';

/** What a dependency or a rule waits for. */
export type Awaited = 'Ready' | 'Complete';

/** The startup forms a generated JobSet can take. */
export type Form = 'AnyOrder' | 'InOrder' | 'DependsOn' | 'Rules';

/** A failure reason a generated failure policy may name in a FailJobSet rule. */
export const FATAL_REASON = 'PodFailurePolicy';
/** The reason of an ordinary Job failure. */
export const ORDINARY_REASON = 'BackoffLimitExceeded';

/** ShapeReplicatedJob: one replicatedJob `r<i>` of a generated JobSet. */
export interface ShapeReplicatedJob {
  readonly replicas: number;
  readonly parallelism: number;
  readonly completions: number;
  /** The Job template sets ttlSecondsAfterFinished: a finished Job may be deleted by its TTL. */
  readonly ttl: boolean;
  /** dependsOn items (indices of earlier replicatedJobs), each with its own status. */
  readonly dependsOn: readonly { readonly name: number; readonly status: Awaited }[];
}

/** Shape: a generated JobSet, as plain data the oracle reads and jobSetOf turns into a JobSet. */
export interface Shape {
  readonly replicatedJobs: readonly ShapeReplicatedJob[];
  readonly form: Form;
  /** Ordered rules (form Rules): targets by index. */
  readonly rules: readonly { readonly targets: readonly number[]; readonly status: Awaited }[];
  /** How the rules annotation spells Complete (both mean succeeded ≥ replicas). */
  readonly completeSpelling: 'Succeeded' | 'Complete';
  /** spec.successPolicy: targets by index, empty meaning every replicatedJob. */
  readonly success: { readonly operator: 'All' | 'Any'; readonly targets: readonly number[] };
  /** spec.failurePolicy, absent meaning the first failure fails the JobSet. */
  readonly failure:
    | {
        readonly maxRestarts: number;
        readonly restartStrategy: 'Recreate' | 'BlockingRecreate';
        /** A rule {action: FailJobSet, onJobFailureReasons: [FATAL_REASON]} comes first. */
        readonly fatalRule: boolean;
      }
    | undefined;
  readonly startSuspended: boolean;
}

/** rjobName: the name of replicatedJob i. */
export const rjobName = (i: number): string => `r${i}`;

/** rjobIndexOf: the replicatedJob index of a Job, from its replicatedjob-name label (-1 when absent). */
export const rjobIndexOf = (job: Job): number => {
  const name = job.metadata.labels?.[Label.ReplicatedJobName] ?? '';
  return /^r\d+$/.test(name) ? Number(name.slice(1)) : -1;
};

/** attemptOf: the restart attempt a Job was built for, from its restart-attempt label (-1 when absent). */
export const attemptOf = (job: Job): number => {
  const value = Number(job.metadata.labels?.[Label.RestartAttempt]);
  return Number.isInteger(value) ? value : -1;
};

/** finishedAs: Complete or Failed when the Job carries that condition with status True. */
export const finishedAs = (job: Job): 'Complete' | 'Failed' | undefined => {
  const conditions = job.status?.conditions ?? [];
  if (conditions.some((c) => c.type === JobConditionType.Complete && c.status === 'True')) return 'Complete';
  if (conditions.some((c) => c.type === JobConditionType.Failed && c.status === 'True')) return 'Failed';
  return undefined;
};

/** isSuspendedJob: spec.suspend is true. */
export const isSuspendedJob = (job: Job): boolean => job.spec.suspend === true;

/** isRunning: an unfinished Job that is not suspended. */
export const isRunning = (job: Job): boolean => !isSuspendedJob(job) && finishedAs(job) === undefined;

/** isDeleting: the API server is deleting the Job (deletionTimestamp set); it lingers until its pods are gone. */
export const isDeleting = (job: Job): boolean => job.metadata.deletionTimestamp !== undefined;

/** isRunningOn: a running Job that is not being deleted, so its replicatedJob counts as started and stays released. */
export const isRunningOn = (job: Job): boolean => isRunning(job) && !isDeleting(job);

/**
 * isReadyJob: a running Job whose ready and succeeded pods reach min(parallelism, completions)
 * (upstream's "ready" Job). A suspended Job is never ready, whatever its status still says
 * (Lineup's README: no early start after suspend). A Job being deleted still counts, as every
 * owned Job does in upstream's status counters.
 */
export const isReadyJob = (job: Job): boolean => {
  if (!isRunning(job)) return false;
  const parallelism = job.spec.parallelism ?? 1;
  const needed = Math.min(parallelism, job.spec.completions ?? parallelism);
  return (job.status?.ready ?? 0) + (job.status?.succeeded ?? 0) >= needed;
};

/** Progress of one replicatedJob: its ready, succeeded and failed Jobs. */
interface Progress {
  readonly ready: number;
  readonly succeeded: number;
  readonly failed: number;
}

/**
 * progressOf: the progress of replicatedJob i among `jobs` (one attempt's Jobs, including those
 * that finished and were then deleted by their TTL: Lineup's README says they keep counting).
 */
const progressOf = (jobs: readonly Job[], i: number): Progress => {
  const mine = jobs.filter((job) => rjobIndexOf(job) === i);
  return {
    ready: mine.filter(isReadyJob).length,
    succeeded: mine.filter((job) => finishedAs(job) === 'Complete').length,
    failed: mine.filter((job) => finishedAs(job) === 'Failed').length,
  };
};

/** reached: Ready is ready+succeeded+failed ≥ replicas; Complete is succeeded ≥ replicas. */
export const reached = (shape: Shape, jobs: readonly Job[], i: number, status: Awaited): boolean => {
  const replicas = shape.replicatedJobs[i]?.replicas ?? 0;
  const progress = progressOf(jobs, i);
  return status === 'Complete' ? progress.succeeded >= replicas : progress.ready + progress.succeeded + progress.failed >= replicas;
};

/**
 * gateOpen: whether replicatedJob i may start, judged on `jobs` (the current attempt's Jobs).
 * InOrder: every earlier replicatedJob is Ready. dependsOn: every item reached its status.
 * Rules: every rule before i's own (all rules, for one named by none) holds for all its targets.
 */
export const gateOpen = (shape: Shape, jobs: readonly Job[], i: number): boolean => {
  switch (shape.form) {
    case 'AnyOrder':
      return true;
    case 'InOrder':
      return shape.replicatedJobs.slice(0, i).every((_, j) => reached(shape, jobs, j, 'Ready'));
    case 'DependsOn':
      return (shape.replicatedJobs[i]?.dependsOn ?? []).every((d) => reached(shape, jobs, d.name, d.status));
    case 'Rules': {
      const own = shape.rules.findIndex((rule) => rule.targets.includes(i));
      const earlier = own === -1 ? shape.rules : shape.rules.slice(0, own);
      return earlier.every((rule) => rule.targets.every((t) => reached(shape, jobs, t, rule.status)));
    }
  }
};

/** awaitedComplete: replicatedJobs some dependency or rule waits on to Complete (they must succeed, not just run). */
export const awaitedComplete = (shape: Shape): Set<number> =>
  new Set([
    ...shape.replicatedJobs.flatMap((rjob) => rjob.dependsOn.filter((d) => d.status === 'Complete').map((d) => d.name)),
    ...shape.rules.filter((rule) => rule.status === 'Complete').flatMap((rule) => rule.targets),
  ]);

/** totalReplicas: how many Jobs one attempt has. */
export const totalReplicas = (shape: Shape): number => shape.replicatedJobs.reduce((sum, rjob) => sum + rjob.replicas, 0);

/**
 * successHolds: the success policy over the current attempt's Jobs. Any: one targeted Job
 * succeeded; All: every targeted replica succeeded. Upstream evaluates it only once some Job
 * succeeded (jobset_controller.go: `if len(ownedJobs.successful) > 0`), so All over targets
 * without replicas does not hold on its own.
 */
export const successHolds = (shape: Shape, jobs: readonly Job[]): boolean => {
  const succeeded = jobs.filter((job) => finishedAs(job) === 'Complete');
  if (succeeded.length === 0) return false;
  const targets = shape.success.targets.length > 0 ? shape.success.targets : shape.replicatedJobs.map((_, i) => i);
  const targeted = succeeded.filter((job) => targets.includes(rjobIndexOf(job))).length;
  if (shape.success.operator === 'Any') return targeted > 0;
  return targeted >= targets.reduce((sum, i) => sum + (shape.replicatedJobs[i]?.replicas ?? 0), 0);
};

/** Why a JobSet failed, as the oracle expects it. */
export type FailureCause = 'NoFailurePolicy' | 'FailJobSetRule' | 'MaxRestartsReached';

/** What one settled round of passes must do, given what the planner observes before it. */
export type Outcome =
  | { readonly kind: 'Nothing' }
  | { readonly kind: 'Restart' }
  | { readonly kind: 'Failed'; readonly cause: FailureCause }
  | { readonly kind: 'Completed' };

/**
 * expectedOutcome: failures are judged before success (upstream's reconcile order). A failed
 * Job of the current attempt fails the JobSet without a failure policy, or when it matches the
 * FailJobSet rule, or when `restarts` already reached maxRestarts; otherwise the JobSet restarts.
 */
export const expectedOutcome = (shape: Shape, current: readonly Job[], restarts: number): Outcome => {
  const failed = current.filter((job) => finishedAs(job) === 'Failed');
  if (failed.length > 0) {
    const policy = shape.failure;
    if (policy === undefined) return { kind: 'Failed', cause: 'NoFailurePolicy' };
    const reasonOf = (job: Job): string | undefined => job.status?.conditions?.find((c) => c.type === JobConditionType.Failed)?.reason;
    if (policy.fatalRule && failed.some((job) => reasonOf(job) === FATAL_REASON)) return { kind: 'Failed', cause: 'FailJobSetRule' };
    return restarts >= policy.maxRestarts ? { kind: 'Failed', cause: 'MaxRestartsReached' } : { kind: 'Restart' };
  }
  return successHolds(shape, current) ? { kind: 'Completed' } : { kind: 'Nothing' };
};
