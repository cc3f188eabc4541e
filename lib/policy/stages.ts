/**
 * startupStages: the startup order as stages a person can read — which replicatedJobs start
 * together, and what each stage waits for. Pure; `lineup plan` prints it.
 */
import type { AwaitedStatus, StartupPolicySpec } from './types.ts';

/** One awaited fact: a replicatedJob reaching a status. */
export interface StageCondition {
  readonly replicatedJob: string;
  readonly status: AwaitedStatus;
}

/** A replicatedJob within a stage, with what it waits for (empty: starts at once). */
export interface StagedReplicatedJob {
  readonly name: string;
  readonly replicas: number;
  readonly after: readonly StageCondition[];
}

/** Stage: replicatedJobs that may start at the same time. */
export interface Stage {
  readonly replicatedJobs: readonly StagedReplicatedJob[];
}

/** startupStages: stages in start order. */
export const startupStages = (policy: StartupPolicySpec): Stage[] => {
  const rjobs = policy.replicatedJobs;
  switch (policy.form) {
    case 'AnyOrder':
      return rjobs.length === 0 ? [] : [{ replicatedJobs: rjobs.map((rjob) => ({ name: rjob.name, replicas: rjob.replicas, after: [] })) }];
    case 'InOrder':
      // Each waits on the one before it, which in turn waited on all earlier ones.
      return rjobs.map((rjob, index) => {
        const previous = rjobs[index - 1];
        return { replicatedJobs: [{ name: rjob.name, replicas: rjob.replicas, after: previous ? [{ replicatedJob: previous.name, status: 'Ready' }] : [] }] };
      });
    case 'DependsOn': {
      // Stage of a replicatedJob: one past the latest stage among its dependencies (all earlier in the list).
      const depth = new Map<string, number>();
      for (const rjob of rjobs) {
        const deps = rjob.dependsOn ?? [];
        depth.set(rjob.name, deps.length === 0 ? 0 : 1 + Math.max(...deps.map((dep) => depth.get(dep.name) ?? 0)));
      }
      const stages: StagedReplicatedJob[][] = [];
      for (const rjob of rjobs) {
        const level = depth.get(rjob.name) ?? 0;
        (stages[level] ??= []).push({
          name: rjob.name,
          replicas: rjob.replicas,
          after: (rjob.dependsOn ?? []).map((dep) => ({ replicatedJob: dep.name, status: dep.status })),
        });
      }
      return stages.filter((stage) => stage !== undefined).map((replicatedJobs) => ({ replicatedJobs }));
    }
    case 'Rules': {
      const rules = policy.rules ?? [];
      const replicas = new Map(rjobs.map((rjob) => [rjob.name, rjob.replicas]));
      const named = new Set(rules.flatMap((rule) => rule.targetReplicatedJobs));
      const stages: Stage[] = rules.map((rule, index) => {
        const previous = rules[index - 1];
        const after = previous ? previous.targetReplicatedJobs.map((name) => ({ replicatedJob: name, status: previous.status })) : [];
        return { replicatedJobs: rule.targetReplicatedJobs.map((name) => ({ name, replicas: replicas.get(name) ?? 0, after })) };
      });
      const last = rules.at(-1);
      const rest = rjobs.filter((rjob) => !named.has(rjob.name));
      if (rest.length > 0) {
        const after = last ? last.targetReplicatedJobs.map((name) => ({ replicatedJob: name, status: last.status })) : [];
        stages.push({ replicatedJobs: rest.map((rjob) => ({ name: rjob.name, replicas: rjob.replicas, after })) });
      }
      return stages;
    }
  }
};
