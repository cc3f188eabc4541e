/**
 * The ordered-rules form of the StartupPolicy KEP's first draft (annotation
 * `lineup.dev/startup-rules`): rules apply one after another; the targets of rule i start once
 * every earlier rule holds; replicatedJobs named by no rule start after the last rule holds.
 */
import { reachedStatus, waitFor } from './progress.ts';
import type { Gate, GatedReplicatedJob, ReplicatedJobProgress, StartupRule, Wait } from './types.ts';

/** firstUnmetTarget: the first target of `rule` that has not reached the rule's status. */
const firstUnmetTarget = (
  rule: StartupRule,
  replicas: ReadonlyMap<string, number>,
  progressOf: (name: string) => ReplicatedJobProgress,
): Wait | undefined => {
  for (const target of rule.targetReplicatedJobs) {
    const targetReplicas = replicas.get(target) ?? 0;
    const progress = progressOf(target);
    if (!reachedStatus(rule.status, targetReplicas, progress)) return waitFor(target, rule.status, targetReplicas, progress);
  }
  return undefined;
};

/** ruleGates: one gate per replicatedJob under ordered rules. */
export const ruleGates = (
  replicatedJobs: readonly GatedReplicatedJob[],
  rules: readonly StartupRule[],
  progressOf: (name: string) => ReplicatedJobProgress,
): Gate[] => {
  const replicas = new Map(replicatedJobs.map((rjob) => [rjob.name, rjob.replicas]));
  const ruleIndex = new Map<string, number>();
  rules.forEach((rule, index) => {
    for (const target of rule.targetReplicatedJobs) if (!ruleIndex.has(target)) ruleIndex.set(target, index);
  });
  // blockers[i]: what stops the targets of rule i (the first unmet earlier rule), undefined when open.
  const blockers: (Wait | undefined)[] = [];
  let blocker: Wait | undefined;
  for (const rule of rules) {
    blockers.push(blocker);
    blocker ??= firstUnmetTarget(rule, replicas, progressOf);
  }
  const afterLastRule = blocker;
  return replicatedJobs.map((rjob): Gate => {
    const index = ruleIndex.get(rjob.name);
    const wait = index === undefined ? afterLastRule : blockers[index];
    return wait ? { replicatedJob: rjob.name, released: false, waitingOn: wait } : { replicatedJob: rjob.name, released: true };
  });
};
