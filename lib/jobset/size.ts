/**
 * How big a JobSet is: how many child Jobs it makes and how many Pods those run, read from the
 * spec as written (defaults filled in the way a cluster would: replicas 1, parallelism 1), so
 * callers can size a JobSet before anything is built for it.
 */
import { JobSetDefault } from './defaults.ts';
import { InvalidInputError } from '../errors.ts';
import type { JobSet, JobSpec } from './schema.ts';

/**
 * DEFAULT_MAX_JOBS_PER_JOBSET / DEFAULT_MAX_PODS_PER_JOBSET: the largest JobSet the controller
 * accepts — beyond either, validation rejects it (Rejected, as any invalid JobSet) instead of one
 * tenant's JobSet holding the reconciler for minutes and the cluster's API server for 10,000s of
 * creates. 10,000 Jobs is 20 passes of MAX_CREATES_PER_PASS (lib/plan/planner.ts), and as many as
 * `lineup simulate` runs (SIMULATOR_MAX_JOBS); 100,000 Pods is about what one Kubernetes cluster
 * schedules at all (its documented limit is 150,000 Pods). A deployment sets its own through
 * JobSetLimitEnv (infra/config.ts `maxJobsPerJobSet`, `maxPodsPerJobSet`).
 */
export const DEFAULT_MAX_JOBS_PER_JOBSET = 10_000;
export const DEFAULT_MAX_PODS_PER_JOBSET = 100_000;
/** JobSetLimitEnv: the reconciler's environment variables that set the bounds above (lib/hosts/lambdaConfig.ts reads them; rejections name them). */
export const JobSetLimitEnv = {
  maxJobs: 'LINEUP_MAX_JOBS_PER_JOBSET',
  maxPods: 'LINEUP_MAX_PODS_PER_JOBSET',
} as const;

/** SizeOverBound: a count of a JobSet's Jobs or Pods past the bound the controller accepts, and the variable that sets that bound. */
export interface SizeOverBound {
  readonly count: number;
  readonly unit: 'Jobs' | 'Pods';
  readonly max: number;
  readonly variable: string;
}

/** counted: `1 Job`, `3 Jobs`: a count with its word, plural unless it is one. */
export const counted = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** JobSetSize: the counts of one JobSet. */
export interface JobSetSize {
  readonly replicatedJobs: number;
  /** Child Jobs: the sum of every replicatedJob's replicas. */
  readonly jobs: number;
  /** Pods that run at once: the sum of replicas × podsPerJob. */
  readonly pods: number;
}

/**
 * podsPerJob: the pods one Job runs at once. The Job controller keeps min(parallelism,
 * completions still wanted) pods active, so a fresh Job runs parallelism pods (default 1),
 * bounded by completions where set; a Job of completions 5 and parallelism 1 runs its 5 pods
 * one after another and counts 1. Upstream JobSet bounds the same number (its webhook's
 * replicas × parallelism), and the simulator reports that many pods ready per Job.
 * A negative count (which validation rejects) makes no pods rather than minus some.
 */
export const podsPerJob = (spec: JobSpec): number => {
  const parallelism = spec.parallelism ?? JobSetDefault.parallelism;
  const pods = spec.completions === undefined ? parallelism : Math.min(parallelism, spec.completions);
  return Math.max(0, pods);
};

/**
 * jobSetSize: the Jobs and Pods `jobSet` makes. Counts are plain numbers: int32 replicas times
 * int32 parallelism can pass 2^53 and lose its last digits, which no use of the count minds.
 * @example jobSetSize(js) // { replicatedJobs: 2, jobs: 3, pods: 7 }
 */
export const jobSetSize = (jobSet: JobSet): JobSetSize => {
  const rjobs = jobSet.spec.replicatedJobs ?? [];
  let jobs = 0;
  let pods = 0;
  for (const rjob of rjobs) {
    const replicas = Math.max(0, rjob.replicas ?? JobSetDefault.replicas);
    jobs += replicas;
    pods += replicas * podsPerJob(rjob.template.spec);
  }
  return { replicatedJobs: rjobs.length, jobs, pods };
};

/** JobSetLimits: the most Jobs and Pods one JobSet may make for the controller to accept it. */
export interface JobSetLimits {
  readonly maxJobs: number;
  readonly maxPods: number;
}

/** DEFAULT_JOBSET_LIMITS: the bounds a controller, `lineup validate` and `lineup plan` apply unless told others. */
export const DEFAULT_JOBSET_LIMITS: JobSetLimits = { maxJobs: DEFAULT_MAX_JOBS_PER_JOBSET, maxPods: DEFAULT_MAX_PODS_PER_JOBSET };

/**
 * readJobSetLimits: the bounds `env` sets with JobSetLimitEnv's variables (the deployed
 * reconciler's, so `lineup run` accepts what the deployment would), the defaults for those unset.
 * Throws InvalidInputError naming the variable when one is not a whole number above 0.
 * @example readJobSetLimits({ LINEUP_MAX_JOBS_PER_JOBSET: '20000' }) // { maxJobs: 20000, maxPods: 100000 }
 */
export const readJobSetLimits = (env: Readonly<Record<string, string | undefined>>): JobSetLimits => {
  const read = (variable: string, fallback: number): number => {
    const text = env[variable];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) {
      throw new InvalidInputError(`${variable} must be a whole number above 0, got ${JSON.stringify(text)}`);
    }
    return value;
  };
  return { maxJobs: read(JobSetLimitEnv.maxJobs, DEFAULT_MAX_JOBS_PER_JOBSET), maxPods: read(JobSetLimitEnv.maxPods, DEFAULT_MAX_PODS_PER_JOBSET) };
};

/**
 * sizeOverLimits: the counts of `size` past `limits` (Jobs first), each with the variable that
 * sets its bound; empty when the JobSet is within both.
 * @example sizeOverLimits({ replicatedJobs: 1, jobs: 100_001, pods: 100_001 }, DEFAULT_JOBSET_LIMITS) // Jobs and Pods
 */
export const sizeOverLimits = (size: JobSetSize, limits: JobSetLimits): SizeOverBound[] => [
  ...(size.jobs > limits.maxJobs ? [{ count: size.jobs, unit: 'Jobs' as const, max: limits.maxJobs, variable: JobSetLimitEnv.maxJobs }] : []),
  ...(size.pods > limits.maxPods ? [{ count: size.pods, unit: 'Pods' as const, max: limits.maxPods, variable: JobSetLimitEnv.maxPods }] : []),
];
