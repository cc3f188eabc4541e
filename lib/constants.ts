/**
 * One home for every string a user can see, every label and annotation key, and every
 * default. Where Lineup copies upstream JobSet behaviour the strings are upstream's exactly
 * (upstream `api/jobset/v1alpha2/jobset_types.go`, `pkg/constants/constants.go`).
 */
import type { RetryPolicy } from './retry.ts';

/** API group/version of the JobSet resource Lineup reconciles. */
export const JOBSET_API_VERSION = 'jobset.x-k8s.io/v1alpha2';
/** Kind of the JobSet resource. */
export const JOBSET_KIND = 'JobSet';

/** managedBy value reserved by the upstream controller; a JobSet carrying it is upstream's. */
export const UPSTREAM_CONTROLLER_NAME = 'jobset.sigs.k8s.io/jobset-controller';
/** Default managedBy value that makes a JobSet Lineup's (configurable). */
export const DEFAULT_CONTROLLER_NAME = 'lineup.dev/controller';
/** DEFAULT_STACK_NAME: the CloudFormation stack name `infra/app.ts` synthesizes (`lineup replay --archive` finds the rule by it). */
export const DEFAULT_STACK_NAME = 'Lineup';
/** Upstream webhook limit on the length of spec.managedBy. */
export const MAX_MANAGED_BY_LENGTH = 63;
/** CRD maxItems on replicatedJobs[].dependsOn. */
export const MAX_DEPENDS_ON = 5;
/** CRD maxItems of spec.volumeClaimPolicies and of each policy's templates. */
export const MAX_VOLUME_CLAIM_ITEMS = 50;
/** Upstream maxVolumeClaimLength: the longest name of a claim created from a template. */
export const MAX_VOLUME_CLAIM_NAME_LENGTH = 63;

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
/** Reporting component name of Lineup's Kubernetes Events. */
export const EVENT_REPORTER = 'lineup';

/** Job condition types the planner reads (batch/v1). */
export const JobConditionType = {
  Complete: 'Complete',
  Failed: 'Failed',
  Suspended: 'Suspended',
  FailureTarget: 'FailureTarget',
  SuccessCriteriaMet: 'SuccessCriteriaMet',
} as const;

/** Failure reasons a failure-policy rule may name (upstream webhook's allow-list). */
export const JOB_FAILURE_REASONS = [
  'BackoffLimitExceeded',
  'DeadlineExceeded',
  'FailedIndexes',
  'MaxFailedIndexesExceeded',
  'PodFailurePolicy',
] as const;

/** Concurrency limit upstream uses when creating or deleting many Jobs at once. */
export const MAX_PARALLELISM = 50;

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

// ---------------------------------------------------------------------------------------------
// Admission: defaults and validation (lib/jobset/defaults.ts, validation.ts, startupRules.ts).
// ---------------------------------------------------------------------------------------------

/**
 * JobSetDefault: what a cluster fills in on create, applied in memory by applyDefaults.
 * Upstream webhook (`jobset_webhook.go` Default): successPolicy, startupPolicy, completionMode,
 * restartPolicy, network. CRD schema: replicas, groupName, restartStrategy. Job API:
 * parallelism, completions (completions only when parallelism is unset too).
 */
export const JobSetDefault = {
  successPolicyOperator: 'All',
  startupPolicyOrder: 'AnyOrder',
  completionMode: 'Indexed',
  restartPolicy: 'OnFailure',
  enableDNSHostnames: true,
  publishNotReadyAddresses: true,
  replicas: 1,
  groupName: 'default',
  restartStrategy: 'Recreate',
  parallelism: 1,
  completions: 1,
  volumeRetention: 'Delete',
} as const;

/** defaultFailurePolicyRuleName: the name the webhook gives an unnamed failure-policy rule (upstream defaultRuleNameFmt). */
export const defaultFailurePolicyRuleName = (index: number): string => `failurePolicyRule${index}`;

/** Largest int32: upstream's bound on parallelism × replicas. */
export const MAX_INT32 = 2147483647;
/** Length limit of a DNS-1035 label and of a label value (Kubernetes validation). */
export const DNS1035_LABEL_MAX_LENGTH = 63;
/** Length limit of a DNS-1123 subdomain (Kubernetes validation). */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Length limit of a label value (Kubernetes validation). */
export const LABEL_VALUE_MAX_LENGTH = 63;
/** Failure-policy rule names: length bounds and pattern (upstream `jobset_webhook.go`). */
export const FailurePolicyRuleName = {
  minLength: 1,
  maxLength: 128,
  pattern: /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/,
} as const;
/** Stand-in for the 5 random characters the API server appends to generateName (upstream validates with one). */
export const GENERATED_NAME_SUFFIX = 'xxxxx';
/** Suffix upstream appends to the longest pod name it validates (the pod's random part). */
export const POD_NAME_RANDOM_SUFFIX = 'abcde';

/**
 * KubeMessage: Kubernetes validation strings upstream's webhook passes through
 * (`k8s.io/apimachinery/pkg/util/validation`, `.../validation/field`), exactly, so users can
 * search for them. Field errors are rendered like kubectl does, without the path.
 */
export const KubeMessage = {
  dns1035Label:
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  dns1123Subdomain:
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  labelValue:
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
  domainPrefixedPath: 'must be a domain-prefixed path (such as "acme.io/foo")',
  httpPath: "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
  maxLength: (max: number): string => `must be no more than ${max} characters`,
  invalidValue: (value: unknown, detail: string): string => `Invalid value: ${JSON.stringify(value)}: ${detail}`,
  requiredValue: (detail: string): string => `Required value: ${detail}`,
  tooLong: (max: number): string => `Too long: may not be more than ${max} bytes`,
  /** batch/v1 Job validation: an Indexed Job needs completions. */
  indexedNeedsCompletions: 'Required value: when completion mode is Indexed',
  /** ObjectMeta validation on create. */
  nameRequired: 'Required value: name or generateName is required',
} as const;

/**
 * AdmissionMessage: upstream's create-time admission strings (webhook `jobset_webhook.go`
 * ValidateCreate and the CRD's CEL rules), exactly.
 */
export const AdmissionMessage = {
  firstReplicatedJobDependsOn: "DependsOn can't be set for the first ReplicatedJob",
  cannotDependOn: (replicatedJob: string, dependency: string): string =>
    `replicatedJob: ${replicatedJob} cannot depend on replicatedJob: ${dependency}`,
  startupPolicyAndDependsOn: 'StartupPolicy and DependsOn APIs are mutually exclusive',
  inPlaceRestartGateDisabled: 'InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled',
  restartJobGateDisabled:
    'RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature gate is disabled',
  groupNameTooLong: '.spec.replicatedJob[].groupName is too long, must be less than 63 characters',
  jobNameTooLong: 'JobSet name is too long, job names generated for this JobSet will exceed 63 characters',
  podNameTooLong: 'JobSet name is too long, pod names generated for this JobSet will exceed 63 characters',
  subdomainTooLong: '.spec.network.subdomain is too long, must be less than 63 characters',
  replicasTimesParallelism: (replicatedJob: string): string =>
    `the product of replicas and parallelism must not exceed ${MAX_INT32} for replicatedJob '${replicatedJob}'`,
  successPolicyUnknownTarget: (name: string): string => `invalid replicatedJob name '${name}' does not appear in .spec.ReplicatedJobs`,
  failurePolicyUnknownTarget: (name: string): string =>
    `invalid replicatedJob name '${name}' in failure policy does not appear in .spec.ReplicatedJobs`,
  failurePolicyRuleNameLength: (length: number): string =>
    `invalid failure policy rule name of length ${length}, the rule name must be at least ${FailurePolicyRuleName.minLength} characters long and at most ${FailurePolicyRuleName.maxLength} characters long`,
  failurePolicyRuleNamePattern: (name: string): string =>
    `invalid failure policy rule name '${name}', a failure policy rule name must start with an alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'`,
  failurePolicyReason: (reason: string): string =>
    `invalid job failure reason '${reason}' in failure policy is not a recognized job failure reason`,
  // Go prints the []int of indices as "[0 2]".
  failurePolicyRuleNamesNotUnique: (indices: readonly number[], name: string): string =>
    `rule names are not unique, rules with indices [${indices.join(' ')}] all have the same name '${name}'`,
  volumeClaimNameNotUnique: 'names must be unique for VolumeClaimPolicies template',
  volumeClaimNameTooLong: 'VolumeClaimPolicies template name is too long',
  volumeClaimNoMatchingMount: (claim: string): string =>
    `replicatedJob containers don't have a matching volumeMount: ${claim} from VolumeClaimPolicies`,
  volumeClaimVolumeConflict: (claim: string): string => `volume name conflicts with VolumeClaimPolicy template name: ${claim}`,
  // CRD rules (CEL and schema) on spec.volumeClaimPolicies.
  volumeClaimNamespace: 'namespace cannot be set for VolumeClaimPolicies templates',
  coordinatorUnknownReplicatedJob: (name: string): string => `coordinator replicatedJob ${name} does not exist`,
  coordinatorJobIndex: (jobIndex: number, replicatedJob: string): string =>
    `coordinator job index ${jobIndex} is invalid for replicatedJob ${replicatedJob}`,
  coordinatorNotIndexed: 'job for coordinator pod must be indexed completion mode, and completions number must be set',
  coordinatorPodIndex: (podIndex: number, replicatedJob: string, jobIndex: number): string =>
    `coordinator pod index ${podIndex} is invalid for replicatedJob ${replicatedJob} job index ${jobIndex}`,
  coordinatorLabelValue: (value: string, errors: readonly string[]): string =>
    `spec will lead to invalid label value ${JSON.stringify(value)} for coordinator label ${JSON.stringify(Label.Coordinator)} (long JobSet / ReplicatedJob / SubDomain name?): ${errors.join(', ')}`,
} as const;

/** SizeOverBound: a count of a JobSet's Jobs or Pods past the bound the controller accepts, and the variable that sets that bound. */
export interface SizeOverBound {
  readonly count: number;
  readonly unit: 'Jobs' | 'Pods';
  readonly max: number;
  readonly variable: string;
}

/**
 * ValidationMessage: Lineup's own create-time messages, for rules the API server enforces
 * with generic text (CRD schema, list-map keys) and for Lineup's deviations from upstream.
 */
export const ValidationMessage = {
  // Deviation: upstream admits a self-dependency on a non-first replicatedJob, which then never starts.
  selfDependency: (replicatedJob: string): string =>
    `replicatedJob: ${replicatedJob} cannot depend on itself (upstream admits this and the replicatedJob never starts; Lineup rejects it)`,
  // Upstream says `replicatedJob: X cannot depend on replicatedJob: Y` for all three; Lineup names the cause.
  unknownDependsOn: (dependency: string, replicatedJobs: readonly string[]): string =>
    `dependsOn names ${dependency}, which is not a replicatedJob of this JobSet; the replicatedJobs are ${replicatedJobs.join(', ')}`,
  forwardDependsOn: (replicatedJob: string, dependency: string, dependencyIndex: number): string =>
    `dependsOn names ${dependency}, which is declared after ${replicatedJob} (spec.replicatedJobs[${dependencyIndex}]): a replicatedJob may depend only on one declared before it`,
  /** `cycle` from the replicatedJob whose dependsOn closes it, back to it: [c, d, c]. */
  dependsOnCycle: (cycle: readonly string[]): string =>
    `dependsOn names ${cycle[1] ?? ''}, which leads back to ${cycle[0] ?? ''}: a cycle ${cycle.join(' → ')}, whose replicatedJobs would wait for each other forever (a replicatedJob may depend only on one declared before it)`,
  tooManyDependsOn: (count: number): string => `dependsOn has ${count} items, expected at most ${MAX_DEPENDS_ON}`,
  duplicateDependsOn: (name: string, firstIndex: number): string =>
    `duplicate dependsOn name ${JSON.stringify(name)}, already listed at dependsOn[${firstIndex}]`,
  dependsOnStatus: (status: string): string => `unsupported dependsOn status ${JSON.stringify(status)}, expected one of: Ready, Complete`,
  duplicateReplicatedJob: (name: string, firstIndex: number): string =>
    `duplicate replicatedJob name ${JSON.stringify(name)}, already used by spec.replicatedJobs[${firstIndex}]`,
  negative: (value: number): string => `must be 0 or more, got ${value}`,
  tooManyItems: (count: number, max: number): string => `Too many: ${count}: must have at most ${max} items`,
  // A spec field the CRD Lineup ships does not declare: the API server would drop it without a word.
  unknownSpecField: (field: string): string =>
    `field not supported: spec.${field} is not in the JobSet v1alpha2 CRD Lineup ships (upstream v0.12.0), so Lineup cannot honour it; remove it or use a Lineup that supports it`,
  managedByEmpty: 'managedBy is an empty string, expected a domain-prefixed path (such as "acme.io/foo") or no managedBy at all',
  /**
   * Lineup: the JobSet makes more Jobs or Pods than the controller accepts (DEFAULT_MAX_JOBS_PER_JOBSET,
   * DEFAULT_MAX_PODS_PER_JOBSET), one message naming every bound it passes and the variable that sets it.
   */
  tooBig: (first: SizeOverBound, second?: SizeOverBound): string =>
    second === undefined
      ? `JobSet makes ${first.count} ${first.unit}, more than the ${first.max} this controller accepts (${first.variable})`
      : `JobSet makes ${first.count} ${first.unit} and ${second.count} ${second.unit}, more than the ${first.max} ${first.unit} (${first.variable}) and ${second.max} ${second.unit} (${second.variable}) this controller accepts`,
} as const;

/** The statuses a startup rule may wait for, as written in the annotation (Complete = Succeeded). */
export const STARTUP_RULE_STATUSES = ['Ready', 'Succeeded', 'Complete'] as const;

/** StartupRulesMessage: problems with the `lineup.dev/startup-rules` annotation. */
export const StartupRulesMessage = {
  notYaml: (detail: string): string => `not valid YAML or JSON: ${detail}`,
  notAList: (seen: string): string =>
    `expected a list of rules ({targetReplicatedJobs: [names], status} or {name, status}), got ${seen}`,
  emptyList: 'expected at least one rule, got an empty list',
  notARule: (seen: string): string => `expected a rule ({targetReplicatedJobs: [names], status} or {name, status}), got ${seen}`,
  unknownKeys: (keys: readonly string[]): string =>
    `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => JSON.stringify(k)).join(', ')} in a rule, expected targetReplicatedJobs or name, and status`,
  neitherForm: 'a rule names no replicatedJob: expected targetReplicatedJobs (a list of names) or name (one name), got neither',
  bothForms: 'a rule has both targetReplicatedJobs and name, expected only one of them',
  targetsNotAList: (seen: string): string => `targetReplicatedJobs must be a list of replicatedJob names, got ${seen}`,
  emptyTargets: 'targetReplicatedJobs must name at least one replicatedJob, got an empty list',
  badName: (seen: string): string => `expected a replicatedJob name (a non-empty string), got ${seen}`,
  badStatus: (seen: string): string => `status is ${seen}, expected one of: ${STARTUP_RULE_STATUSES.join(', ')}`,
  unknownTarget: (name: string, known: readonly string[]): string =>
    `replicatedJob ${JSON.stringify(name)} is not in spec.replicatedJobs, expected one of: ${known.length > 0 ? known.join(', ') : '(none)'}`,
  namedTwice: (name: string, firstPath: string): string =>
    `replicatedJob ${JSON.stringify(name)} is already named at ${firstPath}, expected each replicatedJob in at most one rule, once`,
  twoForms: (other: string): string =>
    `two startup forms at once: the ${LineupKey.StartupRulesAnnotation} annotation and ${other}, expected only one`,
} as const;

/** LoadMessage: why a file given to the CLI holds no usable JobSet (exit 2). */
export const LoadMessage = {
  unreadable: (detail: string): string => `cannot read file: ${detail}`,
  noDocument: 'no JobSet found: the file holds no YAML document',
  notYaml: (detail: string): string => `not valid YAML: ${detail}`,
  tooDeep: (limit: number, line: number, column: number): string =>
    `document nested too deeply: more than ${limit} levels of lists and mappings at line ${line}, column ${column}, expected at most ${limit}`,
  notAMapping: (seen: string): string => `not a JobSet: the document is ${seen}, expected a mapping with kind: ${JOBSET_KIND}`,
  wrongKind: (seen: string): string => `not a JobSet: kind is ${seen}, expected ${JOBSET_KIND}`,
  skipped: (label: string, apiVersion: string): string => `skipped ${label} (${apiVersion}): not a ${JOBSET_KIND}`,
  onlyOtherKinds: (skipped: readonly string[]): string =>
    `no JobSet found: the file holds only ${skipped.join(', ')}, expected at least one document with kind: ${JOBSET_KIND}`,
  wrongApiVersion: (seen: string): string => `not a JobSet: apiVersion is ${seen}, expected ${JOBSET_API_VERSION}`,
} as const;

/** KubeconfigMessage: why a kubeconfig file (`--kubeconfig`, $KUBECONFIG, ~/.kube/config) gives no cluster to talk to (exit 2). */
export const KubeconfigMessage = {
  missing: (path: string): string => `kubeconfig ${path}: no such file, expected a kubeconfig (--kubeconfig, $KUBECONFIG or ~/.kube/config)`,
  unreadable: (path: string, detail: string): string => `kubeconfig ${path}: cannot read it: ${detail}`,
  notYaml: (path: string, detail: string): string => `kubeconfig ${path}: not valid YAML: ${detail}`,
  invalid: (path: string, detail: string): string => `kubeconfig ${path}: not a valid kubeconfig: ${detail}`,
  noSuchContext: (path: string, context: string, known: readonly string[]): string =>
    `kubeconfig ${path}: no context ${JSON.stringify(context)}, expected one of: ${known.length > 0 ? known.join(', ') : '(the file defines none)'}`,
  noCurrentContext: (path: string, known: readonly string[]): string =>
    `kubeconfig ${path}: no current-context set and no --context given, expected one of: ${known.length > 0 ? known.join(', ') : '(the file defines none)'}`,
  noCluster: (path: string, context: string, cluster: string): string =>
    `kubeconfig ${path}: context ${JSON.stringify(context)} names cluster ${JSON.stringify(cluster)}, which the file does not define`,
  noUser: (path: string, context: string, user: string): string =>
    `kubeconfig ${path}: context ${JSON.stringify(context)} names user ${JSON.stringify(user)}, which the file does not define`,
  /** The forwarder image reads static credentials only (its bundle carries no exec or auth-provider support). */
  unsupportedAuth: (path: string, user: string, method: string): string =>
    `kubeconfig ${path}: user ${JSON.stringify(user)} authenticates by ${method}, which the forwarder image does not run, expected a token, token file or client certificate (or run lineup forward from the CLI)`,
} as const;

/** RunFix: the fix `lineup run` names for each way its first contact with the API server fails. */
export const RunFix = {
  /** A server that cannot be reached or does not accept the credentials. */
  checkConnection: 'check the kubeconfig context / credentials / that the server is reachable',
  /** A user without Lineup's verbs. */
  grantAccess: 'apply infra/manifests/clusterrole.yaml (and its binding) for this user',
  /** A server without JobSets. */
  installCrd: 'install the JobSet CRD (https://github.com/kubernetes-sigs/jobset/releases)',
} as const;

/**
 * RunMessage: why `lineup run` could not start (exit 2): what the API server at `server` answered
 * its first list (`detail`), and the fix.
 */
export const RunMessage = {
  unreachable: (server: string, detail: string): string => `cannot reach the API server ${server} (${detail}): ${RunFix.checkConnection}`,
  unauthenticated: (server: string, detail: string): string => `the API server ${server} did not accept the credentials (${detail}): ${RunFix.checkConnection}`,
  forbidden: (server: string, detail: string): string =>
    `the API server ${server} does not let this user list and watch jobsets and jobs (${detail}): ${RunFix.grantAccess}`,
  noJobSetCrd: (server: string, detail: string): string => `the API server ${server} does not serve ${JOBSET_API_VERSION} jobsets (${detail}): ${RunFix.installCrd}`,
  failed: (server: string, detail: string): string => `the API server ${server} refused the first list (${detail}): ${RunFix.checkConnection}`,
} as const;

/** counted: `1 Job`, `3 Jobs`: a count with its word, plural unless it is one. */
const counted = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** ValidateOutput: the fixed words `lineup validate` prints around FieldErrors. */
export const ValidateOutput = {
  /** After `FILE: ` (and `NAME: ` in a file of several JobSets) when a JobSet has no error: what it makes (lib/jobset/size.ts). */
  valid: (replicatedJobs: number, jobs: number, pods: number): string =>
    `valid: ${counted(replicatedJobs, 'replicatedJob')}, ${counted(jobs, 'Job')}, ${counted(pods, 'Pod')}`,
  /** Usage error: the command was given no file. */
  noFiles: 'lineup validate: expected at least one FILE',
  /** Names a document without metadata.name in a file of several. */
  unnamedDocument: (document: number, line: number | undefined): string => `document ${document} (line ${line ?? '?'})`,
} as const;

/** HistoryMessage: what `lineup history` says instead of a decision log. */
export const HistoryMessage = {
  /** The state directory holds no `lineup run` state (a typo, or run never ran there); nothing is created. */
  noState: (stateDir: string): string => JournalSourceMessage.noState('lineup history', stateDir),
} as const;

/** DemoMessage: what `lineup demo --state-dir` says about the journal it kept. */
export const DemoMessage = {
  /** The demo's simulated cluster starts anew each run: an earlier run's bookmarks and journal would confuse it and its history. */
  stateDirInUse: (stateDir: string): string =>
    `${stateDir} already holds state: expected a new or empty --state-dir (each demo starts a new simulated cluster)`,
  journalKept: (stateDir: string, cluster: string, namespace: string, name: string): string =>
    `Journal kept in ${stateDir} under cluster ${cluster}: lineup history ${cluster}/${namespace}/${name} --state-dir ${stateDir}; lineup replay --all --state-dir ${stateDir}`,
} as const;

/** JournalSourceMessage: the one line history, export and replay print when the journal's source is unusable (exit 2). */
export const JournalSourceMessage = {
  noState: (command: string, stateDir: string): string => `${command}: no state in ${stateDir}: expected the --state-dir of a lineup run or lineup demo`,
  bothSources: (command: string, stateDir: string, table: string): string =>
    `${command}: --state-dir ${stateDir} and --table ${table} both given: expected one (a local state directory or the deployed table)`,
  noRegion: (command: string, table: string): string => `${command}: --table ${table} without --region: expected the table's AWS region`,
  regionWithoutTable: (command: string, region: string): string => `${command}: --region ${region} without --table: expected --table NAME (stack output TableName) with it`,
  tableWhere: (table: string, region: string): string => `table ${table} (${region})`,
  tableFailed: (command: string, where: string, detail: string): string => `${command}: reading ${where} failed: ${detail}`,
} as const;

/** ClustersMessage: the lines `lineup clusters` prints about the registry. */
export const ClustersMessage = {
  alreadyRegistered: (id: string, where: string): string => `lineup clusters add: cluster ${id} is already registered in ${where}: expected a new id (lineup clusters remove ${id} first to replace it)`,
  notRegistered: (id: string, where: string): string => `lineup clusters remove: cluster ${id} is not registered in ${where}: expected one of lineup clusters list`,
  removed: (id: string, where: string): string =>
    `removed cluster ${id} from ${where}: its events are dropped from now on (a warm reconciler that already connected to it serves it until it restarts); its JobSets' state, bookmarks and journal stay (the journal until its TTL). A cluster of the stack's configuration is removed there, then deployed. Uninstall its forwarder (docs/deploy.md, Remove).`,
  unknown: (id: string, where: string): string => `lineup clusters status: cluster ${id} is unknown in ${where}: not registered, and no heartbeat, bookmark or JobSet recorded`,
} as const;

/** ReplayMessage: the one line `lineup export` and `lineup replay` print for unusable input (exit 2). */
export const ReplayMessage = {
  noState: (command: string, stateDir: string): string => JournalSourceMessage.noState(command, stateDir),
  /** A recording that fails its check (lib/replay/verify.ts): replaying it would judge the file, not the planner. */
  unsound: (source: string, pass: number, problem: string): string => `${source}: pass ${pass}: ${problem}; not replayed`,
  /** --perturb re-enacts runs whose events differ from the recording's; the drawing is of recorded passes. */
  perturbHtml: '--output html draws recorded passes, not perturbed runs: with --perturb or --seed, use --output text or json',
  /** Passes whose inputs were not kept: the replay cannot vouch for them, so it does not pass. */
  unreplayable: (count: number): string =>
    `${count} pass${count === 1 ? '' : 'es'} could not be replayed (inputs not kept: too large, or expired from the journal): this replay vouches only for the others`,
  badTarget: (command: string, target: string): string =>
    `${command}: expected ${command === 'lineup replay' ? 'a recording file or ' : ''}CLUSTER/NAMESPACE/NAME, got ${JSON.stringify(target)}`,
  unknownJobSet: (command: string, target: string, where: string): string => `${command}: no passes recorded for ${target} in ${where}`,
  nothingRecorded: (clusters: readonly string[], where: string, since?: string): string =>
    `lineup replay: no passes recorded for any JobSet of cluster ${clusters.join(' or ')} in ${where}${since === undefined ? '' : ` in the last ${since}`}`,
  sinceWithoutAll: (since: string): string => `lineup replay: --since ${since} without --all: expected --all with it`,
  badSince: (since: string, detail: string): string => `lineup replay: --since ${JSON.stringify(since)}: ${detail}`,
  noTarget: 'lineup replay: expected a recording file, CLUSTER/NAMESPACE/NAME or --all',
  noSuchFile: (target: string): string => `lineup replay: ${target} does not exist: expected a recording file (lineup export) or CLUSTER/NAMESPACE/NAME`,
  unreadable: (target: string, detail: string): string => `lineup replay: ${target}: cannot read the recording: ${detail}`,
  badInteger: (flag: string, min: number, got: string | undefined): string => `lineup replay: ${flag} expects an integer ≥ ${min}, got ${JSON.stringify(got ?? null)}`,
} as const;

/** ArchiveReplayMessage: what `lineup replay --archive` prints: progress and the one line of an exit 2. */
export const ArchiveReplayMessage = {
  missingFlag: (flag: string): string => `${flag} is required with --archive`,
  badTime: (flag: string, value: string): string => `${flag} ${JSON.stringify(value)} is not a time: expected ISO 8601, e.g. 2026-01-01T12:00:00Z`,
  emptyRange: (from: string, to: string): string => `--from ${from} is not before --to ${to}: expected a range that holds events`,
  badJobSet: (target: string): string => `--jobset ${JSON.stringify(target)}: expected CLUSTER/NAMESPACE/NAME`,
  badName: (name: string): string => `replay name ${JSON.stringify(name)}: expected at most 64 of A-Z a-z 0-9 . - _`,
  badOutput: (output: string): string => `--output ${output} is not available with --archive: expected text or json`,
  callFailed: (call: string, detail: string): string => `${call} failed: ${detail}`,
  noArns: (archive: string): string => `archive ${archive}: DescribeArchive returned no ArchiveArn or EventSourceArn: expected both`,
  ruleNotFound: (bus: string, prefix: string, found: readonly string[]): string =>
    `bus ${bus}: ${found.length === 0 ? 'no rule' : `${found.length} rules (${found.join(', ')})`} named ${prefix}*: expected exactly one; name the reconciler's rule with --rule NAME|ARN (stack output ReconcilerRuleArn) or the stack with --stack`,
  description: 'lineup replay --archive: replayed events are recorded in the journal, not applied',
  started: (replay: string, archive: string, rule: string): string => `lineup replay: replay ${replay} of archive ${archive} started, limited to rule ${rule}`,
  progress: (replay: string, state: string, lastReplayed: string | undefined, percent: number): string =>
    `lineup replay: ${replay} ${state}${lastReplayed === undefined ? '' : `, replayed up to ${lastReplayed} (${percent}% of the range)`}`,
  timedOut: (replay: string, state: string, timeout: string): string =>
    `replay ${replay} still ${state} after --timeout ${timeout}: expected it to end; it keeps running in EventBridge (aws events cancel-replay --replay-name ${replay} stops it)`,
  ended: (replay: string, state: string, reason: string): string => `replay ${replay} ended ${state}${reason ? `: ${reason}` : ''}: expected COMPLETED`,
  heading: (replay: string, from: string, to: string): string =>
    `replay ${replay}, events ${from} to ${to}: each replayed event's decision (against the cluster as it is now, not applied) beside the original pass's`,
} as const;

/** UntilNeverText: what `--until never` (simulate, demo) means, and what a run it cut off says. */
export const UntilNeverText = {
  /** The `--until` help's addition; `limit` is UNTIL_NEVER_LIMIT_MS formatted. */
  help: (limit: string): string => `never: until nothing more is scheduled (at most ${limit} of virtual time)`,
  stoppedAtLimit: (limit: string): string => `stopped at ${limit}, the limit of --until never, with events still scheduled`,
} as const;

/** BehaviourMessage: why a behaviour file (`--behaviour B`) cannot be used (exit 2). */
export const BehaviourMessage = {
  unreadable: (file: string, detail: string): string => `cannot read behaviour file ${file}: ${detail}`,
  /** One kind of unknown name: `jobs: a-x-0, a-y-0 (expected one of a-driver-0, a-workers-0..2)`. */
  unknownNames: (where: string, unknown: readonly string[], known: readonly string[]): string =>
    `${where}: ${unknown.join(', ')} (expected one of ${known.length > 0 ? known.join(', ') : '(none)'})`,
  namesWhatIsNotThere: (file: string, jobSets: number, problems: readonly string[]): string =>
    `${file}: the behaviour file names what ${jobSets === 1 ? 'the JobSet does not have' : 'none of the JobSets has'}: ${problems.join('; ')}`,
} as const;

/** SimulatorMessage: why `lineup simulate` and `lineup demo` refuse a JobSet before running it (exit 2). */
export const SimulatorMessage = {
  tooBig: (jobSet: string, jobs: number, pods: number, maxJobs: number): string =>
    `JobSet ${jobSet} makes ${counted(jobs, 'Job')} and ${counted(pods, 'Pod')}, more than the ${maxJobs} Jobs the simulator runs: it holds every Job in memory (lower replicas to simulate it)`,
} as const;

/**
 * Most child Jobs the finished-jobs record may list. A hand-edited range beyond it is a
 * malformed record, not a reason to expand billions of indices on every pass.
 */
export const MAX_RECORDED_JOBS = 1_000_000;

// ---------------------------------------------------------------------------------------------
// Forwarder (lib/forwarder): batching, retries, watch sessions and what it logs.
// ---------------------------------------------------------------------------------------------

/** Most entries one PutEvents call takes (EventBridge quota). */
export const PUT_EVENTS_MAX_ENTRIES = 10;
/** Most bytes of entries one PutEvents request carries (EventBridge's request limit, entries sized as entrySize counts them). */
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;
/**
 * How long the batcher waits for more entries before a put (a JobSet's changes within it are one
 * event). Chosen by bench/batchWindow.ts (docs/benchmarks.md): from 10 ms on, story 2 puts 6
 * events per startup whatever the window; longer windows only save PutEvents calls (1.7 per
 * startup at 25 ms in a 100-JobSet burst, 1.0 at 100 ms) for their latency on every stage.
 */
export const FORWARDER_BATCH_WINDOW_MS = 25;
/**
 * PUT_RETRY: the failed entries of a put (or a put that threw) are retried until they succeed,
 * the delay doubling from baseDelayMs up to maxDelayMs. Jittered: every cluster's forwarder puts
 * to one bus, and EventBridge throttles per account, so a throttled fleet must not come back together.
 */
export const PUT_RETRY = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 100, maxDelayMs: 5_000, jitter: 'equal' } as const satisfies RetryPolicy;
/** Puts in flight at once; more calls wait, so a failing sink is not hammered by every new batch. */
export const PUT_MAX_CONCURRENCY = 4;
/** Entries waiting in the batcher above which the forwarder stops taking watch events until puts catch up. */
export const FORWARDER_MAX_PENDING_ENTRIES = 1_000;
/** Pause before reconnecting a watch the server closed (API servers end watches every 5–10 minutes). */
export const WATCH_RECONNECT_DELAY_MS = 100;
/**
 * WATCH_RETRY: after a failed list or a watch that broke, the forwarder tries again until it
 * succeeds, the delay doubling from baseDelayMs up to maxDelayMs; a server's Retry-After replaces
 * the delay. Not jittered: one forwarder per cluster is the API server's only such caller.
 */
export const WATCH_RETRY = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 200, maxDelayMs: 30_000, jitter: 'none' } as const satisfies RetryPolicy;
/**
 * Least time between two checkpoint writes of one watched kind; bounds store writes under a
 * steady event stream (at 1 s they were most of a startup's DynamoDB writes). A forwarder that
 * crashes re-sends at most this much, which costs passes that find nothing to do; far below
 * etcd's 5-minute compaction, so a resume does not meet 410 Gone for it.
 */
export const WATCH_CHECKPOINT_INTERVAL_MS = 10_000;
/**
 * Receives of a reconcile queue record before its redrive policy moves it to the dead-letter
 * queue (a pass that fails 5 times is not a blip). On the last one, a record whose pass failed
 * with the failure recorded on the JobSet's state item is handed to the resync instead
 * (lib/reconcile/sqsBatch.ts).
 */
export const RECONCILE_MAX_RECEIVE_COUNT = 5;
/** Longest Lambda watch session: under Lambda's 15-minute limit, leaving a minute to flush and checkpoint. */
export const WATCH_SESSION_MAX_MS = 14 * 60 * 1000;

/** BookmarkResource: the `resource` under which the forwarder checkpoints each watched kind's resourceVersion. */
export const BookmarkResource = {
  JobSet: 'jobsets',
  Job: 'jobs',
} as const;

/** ForwarderLog: what the forwarder logs, each under a note of when. */
export const ForwarderLog = {
  /** A heartbeat could not be put; the next interval's one tries again. */
  heartbeatFailed: 'heartbeat could not be put on the bus; the next one follows after the interval',
  /** An entry alone is over the entry limit: it is dropped whole (never cut) and counted. */
  entryTooLarge: 'event too large for EventBridge, dropped',
  /** Some entries of a put failed; exactly those are retried. */
  putPartiallyFailed: 'put events partially failed, retrying the failed entries',
  /** A put threw (network, throttling, credentials); the whole call is retried. */
  putFailed: 'put events failed, retrying the whole call',
  /** A watch ended with a transport error; it reconnects after a backoff. */
  watchFailed: 'watch failed, reconnecting after backoff',
  /** A list failed (initial or after 410); it is retried after a backoff. */
  listFailed: 'list failed, retrying after backoff',
  /** Reading the checkpointed resourceVersion failed; the kind is re-listed instead. */
  bookmarkReadFailed: 'reading the watch checkpoint failed, listing instead',
  /** Writing a checkpoint failed; the next flush writes a later one (events may be sent again after a crash). */
  bookmarkWriteFailed: 'writing the watch checkpoint failed',
  /** The watch's resourceVersion was compacted (410 Gone): re-list and sync every JobSet. */
  watchExpired: 'watch expired (410 Gone), re-listing',
  /** A watch started from the checkpointed resourceVersion, without a list. */
  resumed: 'resuming watch from checkpoint',
  /** A list finished and the watch starts from its resourceVersion. */
  listed: 'listed, watching from the list resourceVersion',
  /** A watch event could not be turned into a Lineup event (a detail the shared schema refuses); it is dropped and counted. */
  eventFailed: 'watch event not forwarded: it makes no valid event',
  /** The forwarder stopped (abort or end of the watch session) after flushing. */
  stopped: 'forwarder stopped',
} as const;

// ---------------------------------------------------------------------------------------------
// Kubernetes adapter (lib/k8s): retries, lists, EKS tokens, Events.
// ---------------------------------------------------------------------------------------------

/**
 * KUBE_RETRY: every Kubernetes request is tried up to maxAttempts times on 429, 5xx and dropped
 * connections, waiting baseDelayMs doubled per attempt (with jitter), at most maxDelayMs — also
 * the most a Retry-After is honoured, since a reconcile pass has a deadline and the resync
 * picks up what it leaves.
 */
export const KUBE_RETRY = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 10_000, jitter: 'equal' } as const satisfies RetryPolicy;
/** Items per page of the forwarder's list requests (limit/continue), so a large cluster is not read in one response. */
export const KUBE_LIST_PAGE_SIZE = 500;
/**
 * KUBE_RMW_ATTEMPTS: attempts of an operation Lineup restarts itself after losing a race the
 * caller did not ask to guard — an unconditional read-modify-write (finalizer removal, status
 * replace), a paged list whose continue token expired.
 */
export const KUBE_RMW_ATTEMPTS = 3;
/** fieldManager Lineup's writes record in managedFields. */
export const KUBE_FIELD_MANAGER = 'lineup';

/**
 * EksToken: the EKS bearer token (aws-iam-authenticator's format): `k8s-aws-v1.` + base64url of
 * a presigned STS GetCallerIdentity URL that signs the cluster name in `x-k8s-aws-id`. EKS
 * accepts it for 15 minutes after signing; like aws-iam-authenticator, Lineup uses it for 14
 * and re-signs refreshMarginMs before that, so no request carries a token about to expire.
 */
export const EksToken = {
  prefix: 'k8s-aws-v1.',
  clusterIdHeader: 'x-k8s-aws-id',
  stsVersion: '2011-06-15',
  presignExpiresSeconds: 60,
  usableMs: 14 * 60 * 1000,
  refreshMarginMs: 60 * 1000,
  /** Name of the kubeconfig auth provider Lineup's EKS authenticator claims. */
  authProvider: 'lineup-eks',
} as const;

/** Most bytes of an Event message the API server accepts once eventTime is set (NoteLengthLimit). */
export const EVENT_NOTE_MAX_BYTES = 1024;

// ---------------------------------------------------------------------------------------------
// Checkpoint store (lib/store): retention and item limits.
// ---------------------------------------------------------------------------------------------

/** How long decision-log items are kept (their TTL) unless the store is configured otherwise: 14 days. */
export const DEFAULT_DECISION_RETENTION_MS = 14 * 24 * 60 * 60 * 1000;
/**
 * Largest journal item (characters of its stored attributes) the store writes: DynamoDB items stop
 * at 400 KB, and attribute names and key overhead need the rest. An entry over it drops its inputs
 * (inputsKept `too-large`), then, if still over, its last actions (actionsOmitted counts them).
 */
export const MAX_JOURNAL_ITEM_CHARS = 380 * 1024;

/** CloudWatch namespace of the functions' metrics (Powertools Metrics), read by the dashboard and alarms. */
export const METRICS_NAMESPACE = 'Lineup';
