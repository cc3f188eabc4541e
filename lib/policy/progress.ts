/**
 * Progress predicates shared by every startup form: small, pure, named for the question they
 * answer (upstream `startup_policy.go` allReplicasStarted, `depends_on.go` status checks).
 */
import type { AwaitedStatus, ReplicatedJobProgress, Wait } from './types.ts';

/** NO_PROGRESS: the counters of a replicatedJob none of whose Jobs exist yet. */
export const NO_PROGRESS: ReplicatedJobProgress = { ready: 0, succeeded: 0, failed: 0 };

/**
 * allReplicasStarted: upstream's definition of "started" (and of dependsOn Ready):
 * every replica is ready, succeeded or failed. Upstream compares with ==; Lineup uses >= so a
 * replicatedJob that briefly has more Jobs than replicas (a scale-down in flight) is not
 * stuck forever — equal for every count upstream's tests use.
 */
export const allReplicasStarted = (replicas: number, progress: ReplicatedJobProgress): boolean =>
  progress.ready + progress.succeeded + progress.failed >= replicas;

/** allReplicasSucceeded: dependsOn Complete — every replica succeeded. */
export const allReplicasSucceeded = (replicas: number, progress: ReplicatedJobProgress): boolean =>
  progress.succeeded >= replicas;

/** reachedStatus: whether a replicatedJob reached the awaited status. */
export const reachedStatus = (status: AwaitedStatus, replicas: number, progress: ReplicatedJobProgress): boolean =>
  status === 'Ready' ? allReplicasStarted(replicas, progress) : allReplicasSucceeded(replicas, progress);

/** waitFor: describe what a closed gate waits on, e.g. "waiting for driver to be Ready: 0/1 jobs ready". */
export const waitFor = (name: string, status: AwaitedStatus, replicas: number, progress: ReplicatedJobProgress): Wait => {
  const have = Math.min(
    replicas,
    status === 'Ready' ? progress.ready + progress.succeeded + progress.failed : progress.succeeded,
  );
  const unit = status === 'Ready' ? 'jobs ready' : 'jobs succeeded';
  return { replicatedJob: name, status, have, need: replicas, message: `waiting for ${name} to be ${status}: ${have}/${replicas} ${unit}` };
};

