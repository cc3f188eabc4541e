/**
 * dependsOn gate. Pairs with upstream `pkg/controllers/depends_on.go`: a replicatedJob starts
 * when every named dependency reached its status (Ready or Complete); several items are ANDed
 * (upstream PR #878).
 */
import type { GatedReplicatedJob, ReplicatedJobProgress, Wait } from './types.ts';
import { NO_PROGRESS, reachedStatus, waitFor } from './progress.ts';

/**
 * dependencyWait: the first dependency of `rjob` that has not reached its status, or undefined
 * when all have (no dependsOn ⇒ undefined). `replicas` maps every replicatedJob to its replicas.
 */
export const dependencyWait = (
  rjob: GatedReplicatedJob,
  replicas: ReadonlyMap<string, number>,
  progressOf: (name: string) => ReplicatedJobProgress,
): Wait | undefined => {
  for (const dependency of rjob.dependsOn ?? []) {
    const dependencyReplicas = replicas.get(dependency.name);
    // A dependency naming no replicatedJob never opens (validation rejects it before this runs;
    // upstream's "status for ReplicatedJob is nil" case is false too).
    if (dependencyReplicas === undefined) {
      return { replicatedJob: dependency.name, status: dependency.status, have: 0, need: 0, message: `waiting for unknown replicatedJob ${dependency.name}` };
    }
    const progress = progressOf(dependency.name);
    if (!reachedStatus(dependency.status, dependencyReplicas, progress)) {
      return waitFor(dependency.name, dependency.status, dependencyReplicas, progress);
    }
  }
  return undefined;
};

/**
 * dependencyReachedStatus: true when every dependency of `rjob` reached its status.
 * `statuses` undefined (no counters at all) is false when there are dependencies, as upstream.
 */
export const dependencyReachedStatus = (
  rjob: GatedReplicatedJob,
  replicas: ReadonlyMap<string, number>,
  statuses: ReadonlyMap<string, ReplicatedJobProgress> | undefined,
): boolean => {
  if (!rjob.dependsOn || rjob.dependsOn.length === 0) return true;
  if (!statuses) return false;
  // upstream depends_on.go: a dependency without a status entry has not been reached.
  if (rjob.dependsOn.some((dependency) => !statuses.has(dependency.name))) return false;
  return dependencyWait(rjob, replicas, (name) => statuses.get(name) ?? NO_PROGRESS) === undefined;
};
