export { dependencyReachedStatus, dependencyWait } from './dependsOn.ts';
export { decideFailure, earliestFailure, ruleMatchesJob, type FailedJobRef, type FailureOutcome } from './failurePolicy.ts';
export { allReplicasStarted, allReplicasSucceeded, NO_PROGRESS, reachedStatus, waitFor } from './progress.ts';
export { evaluateStartup } from './startupPolicy.ts';
export { startupStages, type Stage, type StageCondition, type StagedReplicatedJob } from './stages.ts';
export { ruleGates } from './startupRules.ts';
export { successPolicyMet, type FinishedJobRef } from './successPolicy.ts';
export type {
  AwaitedStatus,
  Gate,
  GatedReplicatedJob,
  ReplicatedJobProgress,
  StartupEvaluation,
  StartupForm,
  StartupPolicySpec,
  StartupRule,
  Wait,
} from './types.ts';
