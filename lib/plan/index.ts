export { bucketJobs, countReplicatedJobs, isControlledBy, jobFinishedType, jobReady, type ChildJobs } from './childJobs.ts';
export { conditionIsTrue, findCondition, rfc3339Seconds, setCondition, type ConditionChange, type DesiredCondition } from './conditions.ts';
export { constructJob, controllerReference, headlessService, replicaLayout } from './constructJob.ts';
export { formatRecord, parseRecord, type FinishedJobsRecord } from './finishedJobs.ts';
export { DEFAULT_PLAN_OPTIONS, isManagedByLineup, plan } from './planner.ts';
export { startupPolicySpecOf } from './startupSpec.ts';
export type { Action, ActionKind, Observed, Plan, PlanOptions, PodTemplateMerge, SkipReason } from './types.ts';
export { ActionReasonCode, type ActionReason } from './reasons.ts';
