/**
 * Startup gates: for each replicatedJob, released or waiting — and when waiting, on what.
 * Pairs with upstream `pkg/controllers/startup_policy.go` (InOrder) and evaluates every form
 * Lineup speaks through one function, so the planner never branches on the form.
 */
import { dependencyWait } from './dependsOn.ts';
import { allReplicasStarted, NO_PROGRESS, waitFor } from './progress.ts';
import { ruleGates } from './startupRules.ts';
import type {
  Gate,
  GatedReplicatedJob,
  ReplicatedJobProgress,
  StartupEvaluation,
  StartupPolicySpec,
  Wait,
} from './types.ts';

/** inOrderGates: replicatedJob k is released once every earlier one has all replicas started (upstream InOrder). */
const inOrderGates = (
  replicatedJobs: readonly GatedReplicatedJob[],
  progressOf: (name: string) => ReplicatedJobProgress,
): Gate[] => {
  const gates: Gate[] = [];
  let blocker: Wait | undefined;
  for (const rjob of replicatedJobs) {
    gates.push(blocker ? { replicatedJob: rjob.name, released: false, waitingOn: blocker } : { replicatedJob: rjob.name, released: true });
    const progress = progressOf(rjob.name);
    // upstream startup_policy.go: the walk stops at the first replicatedJob not yet started.
    if (!blocker && !allReplicasStarted(rjob.replicas, progress)) blocker = waitFor(rjob.name, 'Ready', rjob.replicas, progress);
  }
  return gates;
};

/** dependsOnGates: each replicatedJob is released when all of its dependencies reached their status (AND). */
const dependsOnGates = (
  replicatedJobs: readonly GatedReplicatedJob[],
  progressOf: (name: string) => ReplicatedJobProgress,
): Gate[] => {
  const replicas = new Map(replicatedJobs.map((rjob) => [rjob.name, rjob.replicas]));
  return replicatedJobs.map((rjob): Gate => {
    const wait = dependencyWait(rjob, replicas, progressOf);
    return wait ? { replicatedJob: rjob.name, released: false, waitingOn: wait } : { replicatedJob: rjob.name, released: true };
  });
};

/**
 * evaluateStartup: the gate of every replicatedJob under the JobSet's startup policy, and whether
 * startup is complete (every replicatedJob released with all replicas started).
 * `progress` holds the counters gating sees; a name missing from it has made no progress.
 */
export const evaluateStartup = (
  policy: StartupPolicySpec,
  progress: ReadonlyMap<string, ReplicatedJobProgress>,
): StartupEvaluation => {
  const progressOf = (name: string): ReplicatedJobProgress => progress.get(name) ?? NO_PROGRESS;
  const gateBuilders: Record<StartupPolicySpec['form'], () => Gate[]> = {
    AnyOrder: () => policy.replicatedJobs.map((rjob) => ({ replicatedJob: rjob.name, released: true })),
    InOrder: () => inOrderGates(policy.replicatedJobs, progressOf),
    DependsOn: () => dependsOnGates(policy.replicatedJobs, progressOf),
    Rules: () => ruleGates(policy.replicatedJobs, policy.rules ?? [], progressOf),
  };
  const gates = gateBuilders[policy.form]();
  const firstClosed = gates.find((gate) => !gate.released);
  const notStarted = policy.replicatedJobs.find((rjob) => !allReplicasStarted(rjob.replicas, progressOf(rjob.name)));
  const waitingOn =
    firstClosed && !firstClosed.released
      ? firstClosed.waitingOn
      : notStarted
        ? waitFor(notStarted.name, 'Ready', notStarted.replicas, progressOf(notStarted.name))
        : undefined;
  return { form: policy.form, gates, complete: waitingOn === undefined, waitingOn };
};
