/**
 * lib/jobset: the JobSet as Lineup reads it — zod schemas and types, the defaults a cluster
 * would apply, create-time validation, the startup-rules annotation, and loading from YAML.
 * Every export is listed by name; add a module's exports as a block of its own.
 */

// schema.ts: zod schemas.
export {
  ConditionSchema,
  ContainerSchema,
  CoordinatorSchema,
  DependsOnSchema,
  DependsOnStatusSchema,
  FailurePolicyActionSchema,
  FailurePolicyRuleSchema,
  FailurePolicySchema,
  JobConditionSchema,
  JobSchema,
  JobSetSchema,
  JobSetSpecSchema,
  JobSetStatusSchema,
  JobSpecSchema,
  JobStatusSchema,
  JobTemplateSpecSchema,
  NetworkSchema,
  ObjectMetaSchema,
  OwnerReferenceSchema,
  PersistentVolumeClaimSchema,
  PersistentVolumeClaimTemplateSchema,
  PodTemplateSpecSchema,
  ReplicatedJobSchema,
  ReplicatedJobStatusSchema,
  SchedulingGateSchema,
  ServiceSchema,
  StartupPolicySchema,
  SuccessPolicySchema,
  RetentionPolicyTypeSchema,
  TolerationSchema,
  VolumeClaimPolicySchema,
  VolumeSchema,
} from './schema.ts';

// schema.ts: types.
export type {
  Condition,
  Container,
  Coordinator,
  DependsOn,
  DependsOnStatus,
  FailurePolicy,
  FailurePolicyAction,
  FailurePolicyRule,
  Job,
  JobCondition,
  JobSet,
  JobSetSpec,
  JobSetStatus,
  JobSpec,
  JobStatus,
  JobTemplateSpec,
  Network,
  ObjectMeta,
  OwnerReference,
  PersistentVolumeClaim,
  PersistentVolumeClaimTemplate,
  PodTemplateSpec,
  ReplicatedJob,
  ReplicatedJobStatus,
  SchedulingGate,
  Service,
  StartupPolicy,
  SuccessPolicy,
  RetentionPolicyType,
  Toleration,
  Volume,
  VolumeClaimPolicy,
} from './schema.ts';

// defaults.ts
export { applyDefaults } from './defaults.ts';

// validation.ts
export { validateJobSet } from './validation.ts';

// startupRules.ts
export { STARTUP_RULES_PATH, StartupRulesSchema, parseStartupRules, startupRulesOf } from './startupRules.ts';
export type { StartupRulesParse } from './startupRules.ts';

// load.ts
export { loadJobSets, loadedJobSets, readJobSetFile, skippedLabel, skippedNotes, worstOutcome } from './load.ts';
export type { LoadOutcome, LoadResult, LoadedDocument } from './load.ts';

// nesting.ts
export { MAX_YAML_NESTING, tooDeeplyNested } from './nesting.ts';
export type { NestingPosition } from './nesting.ts';

// size.ts
export { DEFAULT_JOBSET_LIMITS, jobSetSize, podsPerJob, sizeOverLimits } from './size.ts';
export type { JobSetLimits, JobSetSize } from './size.ts';

// issues.ts
export { describeValue, errorDetail, formatFieldPath, zodIssueMessage, zodIssuesToFieldErrors } from './issues.ts';
export type { ZodIssue } from './issues.ts';

// managedBy.ts
export { isManagedByLineup } from './managedBy.ts';
export type { ManagedByOptions } from './managedBy.ts';
