/**
 * The JobSet API's strings as they appear on a cluster: the resource's group, version and kind,
 * the labels and annotations of child Jobs, condition types, reasons and messages, the Job
 * conditions the planner reads, and the reasons of Kubernetes Events. Where Lineup copies
 * upstream JobSet behaviour the strings are upstream's exactly (upstream
 * `api/jobset/v1alpha2/jobset_types.go`, `pkg/constants/constants.go`); Lineup's own keys,
 * conditions and reasons say so.
 */

/** API group/version of the JobSet resource Lineup reconciles. */
export const JOBSET_API_VERSION = 'jobset.x-k8s.io/v1alpha2';
/** Kind of the JobSet resource. */
export const JOBSET_KIND = 'JobSet';

/** managedBy value reserved by the upstream controller; a JobSet carrying it is upstream's. */
export const UPSTREAM_CONTROLLER_NAME = 'jobset.sigs.k8s.io/jobset-controller';

/** Labels and annotations upstream writes on every child Job and its pod template. */
export const Label = {
  JobSetName: 'jobset.sigs.k8s.io/jobset-name',
  JobSetUid: 'jobset.sigs.k8s.io/jobset-uid',
  ReplicatedJobName: 'jobset.sigs.k8s.io/replicatedjob-name',
  ReplicatedJobReplicas: 'jobset.sigs.k8s.io/replicatedjob-replicas',
  GlobalReplicas: 'jobset.sigs.k8s.io/global-replicas',
  JobIndex: 'jobset.sigs.k8s.io/job-index',
  JobKey: 'jobset.sigs.k8s.io/job-key',
  JobGlobalIndex: 'jobset.sigs.k8s.io/job-global-index',
  GroupName: 'jobset.sigs.k8s.io/group-name',
  GroupReplicas: 'jobset.sigs.k8s.io/group-replicas',
  JobGroupIndex: 'jobset.sigs.k8s.io/job-group-index',
  RestartAttempt: 'jobset.sigs.k8s.io/restart-attempt',
  Coordinator: 'jobset.sigs.k8s.io/coordinator',
} as const;

/** Annotations upstream copies from the JobSet for exclusive placement (annotation only). */
export const ExclusivePlacement = {
  TopologyAnnotation: 'alpha.jobset.sigs.k8s.io/exclusive-topology',
  NodeSelectorStrategyAnnotation: 'alpha.jobset.sigs.k8s.io/node-selector',
  NamespacedJobLabel: 'alpha.jobset.sigs.k8s.io/namespaced-job',
  NoScheduleTaintKey: 'alpha.jobset.sigs.k8s.io/no-schedule',
} as const;

/** Lineup's own annotations and finalizers. */
export const LineupKey = {
  /** The ordered-rules form of the startup policy (the StartupPolicy KEP's first draft). */
  StartupRulesAnnotation: 'lineup.dev/startup-rules',
  /** Finished child Jobs recorded so that a Job deleted by its own TTL keeps counting. */
  FinishedJobsAnnotation: 'lineup.dev/finished-jobs',
  /** Held on child Jobs that have a Job-level TTL until the JobSet recorded their outcome. */
  FinishedRecordFinalizer: 'lineup.dev/finished-record',
} as const;

/** JobSet condition types (upstream plus Lineup's Rejected). */
export const ConditionType = {
  Completed: 'Completed',
  Failed: 'Failed',
  Suspended: 'Suspended',
  RestartingJobSet: 'RestartingJobSet',
  StartupPolicyInProgress: 'StartupPolicyInProgress',
  StartupPolicyCompleted: 'StartupPolicyCompleted',
  /** Lineup: the JobSet failed validation; nothing is started until it is fixed. */
  Rejected: 'Rejected',
} as const;
export type ConditionTypeName = (typeof ConditionType)[keyof typeof ConditionType];

/** Condition reasons and messages, in pairs, each under a note of when it is written. */
export const Reason = {
  // InOrder startup in progress / completed: upstream's strings exactly.
  InOrderStartupPolicyInProgress: 'InOrderStartupPolicyInProgress',
  InOrderStartupPolicyCompleted: 'InOrderStartupPolicyCompleted',
  // dependsOn startup in progress / completed (upstream sets no condition for dependsOn).
  DependsOnStartupInProgress: 'DependsOnStartupInProgress',
  DependsOnStartupCompleted: 'DependsOnStartupCompleted',
  // Ordered startup rules in progress / completed.
  StartupRulesInProgress: 'StartupRulesInProgress',
  StartupRulesCompleted: 'StartupRulesCompleted',
  // JobSet suspended / resumed.
  SuspendedJobs: 'SuspendedJobs',
  ResumeJobs: 'ResumeJobs',
  // Terminal states.
  AllJobsCompleted: 'AllJobsCompleted',
  FailedJobs: 'FailedJobs',
  FailJobSetFailurePolicyAction: 'FailJobSetFailurePolicyAction',
  ReachedMaxRestarts: 'ReachedMaxRestarts',
  // RestartingJobSet True (global restart) and its False transitions.
  DefaultFailurePolicy: 'DefaultFailurePolicy',
  JobsReady: 'JobsReady',
  JobSetFailed: 'JobSetFailed',
  JobSetCompleted: 'JobSetCompleted',
  JobSetSuspended: 'JobSetSuspended',
  // Lineup: validation failed / passed again after a fix.
  InvalidJobSet: 'InvalidJobSet',
  ValidJobSet: 'ValidJobSet',
} as const;

/** Messages paired with the reasons above. */
export const Message = {
  InOrderStartupPolicyInProgress: 'in order startup policy is in progress',
  InOrderStartupPolicyCompleted: 'in order startup policy has completed',
  DependsOnStartupInProgress: 'dependsOn startup is in progress',
  DependsOnStartupCompleted: 'dependsOn startup has completed',
  StartupRulesInProgress: 'startup rules are in progress',
  StartupRulesCompleted: 'startup rules have completed',
  SuspendedJobs: 'jobset is suspended',
  ResumeJobs: 'jobset is resumed',
  AllJobsCompleted: 'jobset completed successfully',
  JobsReady: 'all jobs are ready',
  JobSetFailed: 'jobset failed',
  JobSetSuspended: 'jobset is suspended',
  ValidJobSet: 'jobset is valid',
} as const;

/** Reason prefix of RestartingJobSet when a named failure-policy rule matched (upstream). */
export const FAILURE_POLICY_RULE_REASON_PREFIX = 'FailurePolicy_';

/** Kubernetes Event reasons that are not condition reasons. */
export const EventReason = {
  RestartJobSetFailurePolicyAction: 'RestartJobSetFailurePolicyAction',
  RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction: 'RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction',
  JobCreationFailed: 'JobCreationFailed',
  HeadlessServiceCreationFailed: 'HeadlessServiceCreationFailed',
  PVCCreationFailed: 'PVCCreationFailed',
  /** Lineup: the Jobs of a replicatedJob were released (un-suspended) because its gate opened. */
  ReplicatedJobReleased: 'ReplicatedJobReleased',
  /** Lineup: a pass created as many Jobs as one pass may (MAX_CREATES_PER_PASS); the next passes create the rest. */
  CreatingJobs: 'CreatingJobs',
} as const;

/** CreatingJobs message: `created` of the JobSet's `total` Jobs exist (or finished) after this pass. */
export const creatingJobsMessage = (created: number, total: number): string => `created ${created} of ${total} jobs; continuing`;

/** Event action string upstream records with every event. */
export const EVENT_ACTION = 'Reconciling';

/** Job condition types the planner reads (batch/v1). */
export const JobConditionType = {
  Complete: 'Complete',
  Failed: 'Failed',
  Suspended: 'Suspended',
  FailureTarget: 'FailureTarget',
  SuccessCriteriaMet: 'SuccessCriteriaMet',
} as const;

/** Failed/FailedJobs message: a Job failed and the JobSet has no failure policy. */
export const failedJobsMessage = (firstFailedJob: string): string =>
  `jobset failed due to one or more job failures (first failed job: ${firstFailedJob})`;
/** Failed/FailJobSetFailurePolicyAction message: a FailJobSet rule matched. */
export const failJobSetActionMessage = (firstFailedJob: string): string =>
  `applying FailJobSet failure policy action (first failed job: ${firstFailedJob})`;
/** Failed/ReachedMaxRestarts message: a restart was due but the budget is spent. */
export const reachedMaxRestartsMessage = (firstFailedJob: string): string =>
  `jobset failed due to reaching max number of restarts (first failed job: ${firstFailedJob})`;
/** RestartingJobSet message for RestartJobSet and RestartJobSetAndIgnoreMaxRestarts. */
export const restartActionMessage = (action: string, firstFailedJob: string): string =>
  `applying ${action} failure policy action (first failed job: ${firstFailedJob})`;
