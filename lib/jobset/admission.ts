/**
 * Create-time validation's limits and messages, read by lib/jobset/validation.ts and by the
 * ValidatingAdmissionPolicy of infra/k8s/admissionPolicy.ts so a user sees the same words from
 * kubectl and from `lineup validate`. Kubernetes' and upstream's strings are theirs exactly
 * (upstream `jobset_webhook.go` and the CRD's rules), so users can search for them; Lineup's own
 * cover the rules the API server enforces with generic text and Lineup's deviations.
 */
import { Label } from './api.ts';
import type { SizeOverBound } from './size.ts';

/** Upstream webhook limit on the length of spec.managedBy. */
export const MAX_MANAGED_BY_LENGTH = 63;
/** CRD maxItems on replicatedJobs[].dependsOn. */
export const MAX_DEPENDS_ON = 5;
/** CRD maxItems of spec.volumeClaimPolicies and of each policy's templates. */
export const MAX_VOLUME_CLAIM_ITEMS = 50;
/** Upstream maxVolumeClaimLength: the longest name of a claim created from a template. */
export const MAX_VOLUME_CLAIM_NAME_LENGTH = 63;

/** Failure reasons a failure-policy rule may name (upstream webhook's allow-list). */
export const JOB_FAILURE_REASONS = [
  'BackoffLimitExceeded',
  'DeadlineExceeded',
  'FailedIndexes',
  'MaxFailedIndexesExceeded',
  'PodFailurePolicy',
] as const;

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
