/**
 * Create-time validation of a JobSet, as a cluster with the upstream CRD and webhook would do
 * it (upstream `pkg/webhooks/jobset_webhook.go` ValidateCreate, the CRD's schema and CEL
 * rules, the Job API rules Lineup depends on), plus Lineup's own rules: the startup-rules
 * annotation, and a self-dependency, which upstream admits and then dead-locks on.
 *
 * Every error is collected, not only the first. Strings that are upstream's are kept exactly
 * (AdmissionMessage, KubeMessage in lib/jobset/admission.ts); upstream errors that carry no field
 * path get the path of the field they are about.
 */
import {
  AdmissionMessage,
  DNS1035_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  FailurePolicyRuleName,
  GENERATED_NAME_SUFFIX,
  JOB_FAILURE_REASONS,
  KubeMessage,
  LABEL_VALUE_MAX_LENGTH,
  MAX_DEPENDS_ON,
  MAX_INT32,
  MAX_MANAGED_BY_LENGTH,
  MAX_VOLUME_CLAIM_ITEMS,
  MAX_VOLUME_CLAIM_NAME_LENGTH,
  POD_NAME_RANDOM_SUFFIX,
  ValidationMessage,
} from './admission.ts';
import { JobSetDefault } from './defaults.ts';
import type { FieldError } from '../errors.ts';
import type { Container, FailurePolicyAction, FailurePolicyRule, JobSet, ReplicatedJob } from './schema.ts';
import { DependsOnStatusSchema, JobSetSpecSchema } from './schema.ts';
import { coordinatorEndpoint, jobName, volumeClaimName } from './keys.ts';
import { DEFAULT_JOBSET_LIMITS, jobSetSize, sizeOverLimits, type JobSetLimits } from './size.ts';
import { STARTUP_RULES_PATH, startupRulesOf, StartupRulesMessage } from './startupRules.ts';

// Feature gates as they stand upstream at the snapshot Lineup follows (pkg/features/features.go):
// both alpha and off, so what they guard is rejected.
const FeatureGate = { InPlaceRestart: false, RestartJob: false } as const;

// Actions that need the RestartJob gate.
const RESTART_JOB_ACTIONS: ReadonlySet<FailurePolicyAction> = new Set(['RestartJob', 'RestartJobAndIgnoreMaxRestarts']);

// ----- Kubernetes name checks (k8s.io/apimachinery/pkg/util/validation), same messages. -----

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** dns1035LabelErrors: why `value` is not a DNS-1035 label (IsDNS1035Label); empty when it is one. */
const dns1035LabelErrors = (value: string): string[] => [
  ...(value.length > DNS1035_LABEL_MAX_LENGTH ? [KubeMessage.maxLength(DNS1035_LABEL_MAX_LENGTH)] : []),
  ...(DNS1035_LABEL.test(value) ? [] : [KubeMessage.dns1035Label]),
];

/** dns1123SubdomainErrors: why `value` is not a DNS-1123 subdomain (IsDNS1123Subdomain); empty when it is one. */
const dns1123SubdomainErrors = (value: string): string[] => [
  ...(value.length > DNS1123_SUBDOMAIN_MAX_LENGTH ? [KubeMessage.maxLength(DNS1123_SUBDOMAIN_MAX_LENGTH)] : []),
  ...(DNS1123_SUBDOMAIN.test(value) ? [] : [KubeMessage.dns1123Subdomain]),
];

/** labelValueErrors: why `value` is not a valid label value (IsValidLabelValue); empty when it is one. */
const labelValueErrors = (value: string): string[] => [
  ...(value.length > LABEL_VALUE_MAX_LENGTH ? [KubeMessage.maxLength(LABEL_VALUE_MAX_LENGTH)] : []),
  ...(LABEL_VALUE.test(value) ? [] : [KubeMessage.labelValue]),
];

/** domainPrefixedPathErrors: why `value` is not a domain-prefixed path such as acme.io/foo (IsDomainPrefixedPath). */
const domainPrefixedPathErrors = (value: string): string[] => {
  if (value === '') return [KubeMessage.requiredValue(ValidationMessage.managedByEmpty)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? '' : value.slice(0, slash);
  const path = slash < 0 ? '' : value.slice(slash + 1);
  if (host === '' || path === '') return [KubeMessage.invalidValue(value, KubeMessage.domainPrefixedPath)];
  return [
    ...dns1123SubdomainErrors(host).map((detail) => KubeMessage.invalidValue(host, detail)),
    ...(HTTP_PATH.test(path) ? [] : [KubeMessage.invalidValue(path, KubeMessage.httpPath)]),
  ];
};

/** replaceTooLong: upstream swaps Kubernetes' generic length message for one naming the field. */
const replaceTooLong = (details: readonly string[], replacement: string): string[] =>
  details.map((detail) => (detail === KubeMessage.maxLength(DNS1035_LABEL_MAX_LENGTH) ? replacement : detail));

// ----- Small predicates. -----

/**
 * hasDependsOn: true when the replicatedJob writes dependsOn at all, even as an empty list:
 * upstream's `DependsOn != nil` and CEL's `has(x.dependsOn)` both see an empty list.
 */
const hasDependsOn = (rjob: ReplicatedJob): boolean => rjob.dependsOn !== undefined;

/** inOrder: true when startupPolicy asks for InOrder. */
const inOrder = (jobSet: JobSet): boolean => jobSet.spec.startupPolicy?.startupPolicyOrder === 'InOrder';

/** isIndexed: true when the Job template uses Indexed completion mode. */
const isIndexed = (rjob: ReplicatedJob): boolean => rjob.template.spec.completionMode === 'Indexed';

/** replicasOf: replicas as the webhook reads them (the CRD defaults absent replicas to 1). */
const replicasOf = (rjob: ReplicatedJob): number => rjob.replicas ?? JobSetDefault.replicas;

/**
 * jobSetNameForValidation: the name child Job names start with: metadata.name, else
 * generateName plus a stand-in for the API server's 5 random characters (upstream
 * getJobSetNameForValidation), else undefined.
 */
const jobSetNameForValidation = (jobSet: JobSet): string | undefined =>
  jobSet.metadata.name || (jobSet.metadata.generateName ? `${jobSet.metadata.generateName}${GENERATED_NAME_SUFFIX}` : undefined);

/** genPodName: upstream placement.GenPodName (without the random suffix). */
const genPodName = (jobSetName: string, rjobName: string, jobIndex: number, podIndex: number): string =>
  `${jobSetName}-${rjobName}-${jobIndex}-${podIndex}`;

/** firstIndexByName: where each name first appears in the list. */
const firstIndexByName = (names: readonly string[]): Map<string, number> => {
  const first = new Map<string, number>();
  names.forEach((name, index) => {
    if (!first.has(name)) first.set(name, index);
  });
  return first;
};

const rjobPath = (index: number): string => `spec.replicatedJobs[${index}]`;

/** negativeCount: an error when a count that the schema (CRD or Job API) bounds at 0 is below it. */
const negativeCount = (value: number | undefined, path: string): FieldError[] =>
  value !== undefined && value < 0 ? [{ path, message: ValidationMessage.negative(value) }] : [];

// ----- Rules, one function per concern, each returning its errors. -----

/** validateMetadata: the API server requires a name or generateName. */
const validateMetadata = (jobSet: JobSet): FieldError[] =>
  jobSetNameForValidation(jobSet) === undefined ? [{ path: 'metadata.name', message: KubeMessage.nameRequired }] : [];

/** validateInPlaceRestartGate: the InPlaceRestart strategy needs a feature gate that is off. */
const validateInPlaceRestartGate = (jobSet: JobSet): FieldError[] =>
  !FeatureGate.InPlaceRestart && jobSet.spec.failurePolicy?.restartStrategy === 'InPlaceRestart'
    ? [{ path: 'spec.failurePolicy.restartStrategy', message: AdmissionMessage.inPlaceRestartGateDisabled }]
    : [];

/** validateFirstReplicatedJob: the first replicatedJob has nothing earlier to depend on. */
const validateFirstReplicatedJob = (rjobs: readonly ReplicatedJob[]): FieldError[] => {
  const first = rjobs[0];
  return first && hasDependsOn(first) ? [{ path: `${rjobPath(0)}.dependsOn`, message: AdmissionMessage.firstReplicatedJobDependsOn }] : [];
};

/** validateSubdomain: a given subdomain names the headless Service, so it must be a DNS-1123 subdomain and a DNS-1035 label. */
const validateSubdomain = (jobSet: JobSet): FieldError[] => {
  const subdomain = jobSet.spec.network?.subdomain;
  if (!subdomain) return [];
  const details = [...dns1123SubdomainErrors(subdomain), ...replaceTooLong(dns1035LabelErrors(subdomain), AdmissionMessage.subdomainTooLong)];
  return details.map((detail) => ({ path: 'spec.network.subdomain', message: KubeMessage.invalidValue(subdomain, detail) }));
};

/** validateManagedBy: a domain-prefixed path of at most 63 characters; absent is fine, empty is not. */
const validateManagedBy = (jobSet: JobSet): FieldError[] => {
  const managedBy = jobSet.spec.managedBy;
  if (managedBy === undefined) return [];
  const path = 'spec.managedBy';
  return [
    ...domainPrefixedPathErrors(managedBy).map((message) => ({ path, message })),
    ...(managedBy.length > MAX_MANAGED_BY_LENGTH ? [{ path, message: KubeMessage.tooLong(MAX_MANAGED_BY_LENGTH) }] : []),
  ];
};

/** validateTtl: CRD minimum 0 on ttlSecondsAfterFinished. */
const validateTtl = (jobSet: JobSet): FieldError[] => negativeCount(jobSet.spec.ttlSecondsAfterFinished, 'spec.ttlSecondsAfterFinished');

/** validateReplicatedJobNames: replicatedJobs is a list-map keyed by name, so names are unique. */
const validateReplicatedJobNames = (rjobs: readonly ReplicatedJob[]): FieldError[] => {
  const first = firstIndexByName(rjobs.map((rjob) => rjob.name));
  return rjobs.flatMap((rjob, index) => {
    const firstIndex = first.get(rjob.name) ?? index;
    return firstIndex < index ? [{ path: `${rjobPath(index)}.name`, message: ValidationMessage.duplicateReplicatedJob(rjob.name, firstIndex) }] : [];
  });
};

/**
 * validateCounts: replicas (minimum 0: upstream's CRD adds it after v0.12.0, whose CRD this
 * repository ships without it, and a negative count can make no Jobs), parallelism and
 * completions (Job API minimum 0), and upstream's bound on the pods one replicatedJob may ask for.
 */
const validateCounts = (rjob: ReplicatedJob, index: number): FieldError[] => {
  const replicas = replicasOf(rjob);
  const jobSpec = rjob.template.spec;
  const parallelism = jobSpec.parallelism ?? JobSetDefault.parallelism;
  return [
    ...negativeCount(replicas, `${rjobPath(index)}.replicas`),
    ...negativeCount(jobSpec.parallelism, `${rjobPath(index)}.template.spec.parallelism`),
    ...negativeCount(jobSpec.completions, `${rjobPath(index)}.template.spec.completions`),
    ...(parallelism * replicas > MAX_INT32 ? [{ path: `${rjobPath(index)}.replicas`, message: AdmissionMessage.replicasTimesParallelism(rjob.name) }] : []),
  ];
};

/** validateGroupName: the group name becomes a label, and upstream requires a DNS-1035 label. */
const validateGroupName = (rjob: ReplicatedJob, index: number): FieldError[] => {
  // The CRD defaults an absent groupName; only a written one can be wrong.
  const groupName = rjob.groupName ?? JobSetDefault.groupName;
  return replaceTooLong(dns1035LabelErrors(groupName), AdmissionMessage.groupNameTooLong).map((detail) => ({
    path: `${rjobPath(index)}.groupName`,
    message: KubeMessage.invalidValue(groupName, detail),
  }));
};

/** validateGeneratedNames: the longest child Job name, and for Indexed Jobs the longest pod name, must be DNS-1035 labels. */
const validateGeneratedNames = (jobSetName: string, rjob: ReplicatedJob, index: number): FieldError[] => {
  const path = `${rjobPath(index)}.name`;
  const lastJob = replicasOf(rjob) - 1;
  const longestJobName = jobName(jobSetName, rjob.name, lastJob);
  const jobErrors = replaceTooLong(dns1035LabelErrors(longestJobName), AdmissionMessage.jobNameTooLong);
  const completions = rjob.template.spec.completions;
  const podErrors =
    isIndexed(rjob) && completions !== undefined
      ? replaceTooLong(
          dns1035LabelErrors(`${genPodName(jobSetName, rjob.name, lastJob, completions - 1)}-${POD_NAME_RANDOM_SUFFIX}`),
          AdmissionMessage.podNameTooLong,
        )
      : [];
  // Upstream reports both with the Job name as the value.
  return [...jobErrors, ...podErrors].map((detail) => ({ path, message: KubeMessage.invalidValue(longestJobName, detail) }));
};

/** validateIndexedCompletions: the Job API rejects an Indexed Job without completions (after its own defaults). */
const validateIndexedCompletions = (rjob: ReplicatedJob, index: number): FieldError[] =>
  isIndexed(rjob) && rjob.template.spec.completions === undefined
    ? [{ path: `${rjobPath(index)}.template.spec.completions`, message: KubeMessage.indexedNeedsCompletions }]
    : [];

/**
 * dependsOnPath: the shortest chain of dependsOn from `from` to `to` (both ends included), or
 * undefined when there is none. Breadth first over names, so a cycle is named by its fewest
 * replicatedJobs and a cycle elsewhere in the JobSet cannot keep the walk going.
 */
const dependsOnPath = (rjobs: readonly ReplicatedJob[], from: string, to: string): string[] | undefined => {
  const edges = new Map<string, string[]>();
  for (const rjob of rjobs) edges.set(rjob.name, [...(edges.get(rjob.name) ?? []), ...(rjob.dependsOn ?? []).map((dep) => dep.name)]);
  const cameFrom = new Map<string, string>([[from, from]]);
  const queue = [from];
  // for…of visits what the loop pushes, so this walks the queue to its end.
  for (const name of queue) {
    if (name === to) {
      const path = [to];
      for (let step = to; step !== from; ) {
        step = cameFrom.get(step) ?? from;
        path.unshift(step);
      }
      return path;
    }
    for (const next of edges.get(name) ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, name);
      queue.push(next);
    }
  }
  return undefined;
};

/**
 * orderingError: why `rjob` may not name `dependency`, which is not an earlier replicatedJob.
 * Upstream says one thing for every case (AdmissionMessage.cannotDependOn, which the admission
 * policy keeps); Lineup says which it is, since each has its own fix: a name that is not in the
 * JobSet (a typo: the names are listed), one declared later (move it up), or a cycle (break it;
 * one of its replicatedJobs always waits for itself).
 */
const orderingError = (rjobs: readonly ReplicatedJob[], rjob: ReplicatedJob, dependency: string): string => {
  const names = [...new Set(rjobs.map((r) => r.name))];
  const later = rjobs.findIndex((r) => r.name === dependency);
  if (later < 0) return ValidationMessage.unknownDependsOn(dependency, names);
  const back = dependsOnPath(rjobs, dependency, rjob.name);
  return back === undefined ? ValidationMessage.forwardDependsOn(rjob.name, dependency, later) : ValidationMessage.dependsOnCycle([rjob.name, ...back]);
};

/**
 * validateDependsOn: the CRD's limits (at most 5 items, names unique, status Ready or
 * Complete) and upstream's ordering rule: only a replicatedJob seen earlier in the list may be
 * named (orderingError says why another is refused). Deviation: upstream inserts the
 * replicatedJob's own name before checking, so it admits a self-dependency that can never be
 * satisfied; Lineup rejects it.
 */
const validateDependsOn = (rjobs: readonly ReplicatedJob[], rjob: ReplicatedJob, index: number, earlier: ReadonlySet<string>): FieldError[] => {
  const dependsOn = rjob.dependsOn ?? [];
  const path = `${rjobPath(index)}.dependsOn`;
  const first = firstIndexByName(dependsOn.map((dep) => dep.name));
  const allowedStatuses: readonly string[] = DependsOnStatusSchema.options;
  const itemErrors = dependsOn.flatMap((dep, i): FieldError[] => {
    const errors: FieldError[] = [];
    const firstIndex = first.get(dep.name) ?? i;
    if (firstIndex < i) errors.push({ path: `${path}[${i}].name`, message: ValidationMessage.duplicateDependsOn(dep.name, firstIndex) });
    if (dep.name === rjob.name) errors.push({ path: `${path}[${i}].name`, message: ValidationMessage.selfDependency(rjob.name) });
    else if (!earlier.has(dep.name)) errors.push({ path: `${path}[${i}].name`, message: orderingError(rjobs, rjob, dep.name) });
    // The schema already holds status to the enum; this guards JobSets built in code.
    if (!allowedStatuses.includes(dep.status)) errors.push({ path: `${path}[${i}].status`, message: ValidationMessage.dependsOnStatus(dep.status) });
    return errors;
  });
  const countErrors = dependsOn.length > MAX_DEPENDS_ON ? [{ path, message: ValidationMessage.tooManyDependsOn(dependsOn.length) }] : [];
  return [...countErrors, ...itemErrors];
};

/** validateReplicatedJobs: every per-replicatedJob rule, walking the list in order as upstream does. */
const validateReplicatedJobs = (jobSet: JobSet, rjobs: readonly ReplicatedJob[]): FieldError[] => {
  const jobSetName = jobSetNameForValidation(jobSet);
  const earlier = new Set<string>();
  return rjobs.flatMap((rjob, index) => {
    const errors = [
      ...validateCounts(rjob, index),
      ...validateGroupName(rjob, index),
      // Without any name the generated names are meaningless; validateMetadata already said so.
      ...(jobSetName === undefined ? [] : validateGeneratedNames(jobSetName, rjob, index)),
      ...validateIndexedCompletions(rjob, index),
      ...validateDependsOn(rjobs, rjob, index, earlier),
    ];
    earlier.add(rjob.name);
    return errors;
  });
};

/** validateStartupPolicyExclusive: CEL on spec forbids InOrder together with any dependsOn. */
const validateStartupPolicyExclusive = (jobSet: JobSet, rjobs: readonly ReplicatedJob[]): FieldError[] =>
  inOrder(jobSet) && rjobs.some(hasDependsOn) ? [{ path: 'spec', message: AdmissionMessage.startupPolicyAndDependsOn }] : [];

/**
 * validateStartupRules: the `lineup.dev/startup-rules` annotation parses, names only known
 * replicatedJobs, each at most once across all rules, and is the JobSet's only startup form.
 */
const validateStartupRules = (jobSet: JobSet, rjobs: readonly ReplicatedJob[]): FieldError[] => {
  const parsed = startupRulesOf(jobSet);
  if (parsed === undefined) return [];
  const withDependsOn = rjobs.filter(hasDependsOn).map((rjob) => rjob.name);
  const formErrors: FieldError[] = [
    ...(inOrder(jobSet) ? [{ path: STARTUP_RULES_PATH, message: StartupRulesMessage.twoForms('startupPolicyOrder InOrder') }] : []),
    ...(withDependsOn.length > 0
      ? [{ path: STARTUP_RULES_PATH, message: StartupRulesMessage.twoForms(`dependsOn on replicatedJob ${withDependsOn.join(', ')}`) }]
      : []),
  ];
  if (!parsed.ok) return [...parsed.errors, ...formErrors];
  const known = rjobs.map((rjob) => rjob.name);
  const knownSet = new Set(known);
  const namedAt = new Map<string, string>();
  const targetErrors = parsed.rules.flatMap((rule, i) =>
    rule.targetReplicatedJobs.flatMap((target, j): FieldError[] => {
      const path = parsed.targetPaths[i]?.[j] ?? STARTUP_RULES_PATH;
      if (!knownSet.has(target)) return [{ path, message: StartupRulesMessage.unknownTarget(target, known) }];
      const firstPath = namedAt.get(target);
      if (firstPath !== undefined) return [{ path, message: StartupRulesMessage.namedTwice(target, firstPath) }];
      namedAt.set(target, path);
      return [];
    }),
  );
  return [...targetErrors, ...formErrors];
};

/** validateSuccessPolicy: its targets must be replicatedJobs of this JobSet. */
const validateSuccessPolicy = (jobSet: JobSet, names: ReadonlySet<string>): FieldError[] =>
  (jobSet.spec.successPolicy?.targetReplicatedJobs ?? []).flatMap((name, j) =>
    names.has(name) ? [] : [{ path: `spec.successPolicy.targetReplicatedJobs[${j}]`, message: AdmissionMessage.successPolicyUnknownTarget(name) }],
  );

/** validateFailurePolicyRule: one rule's action, name, targets and reasons. */
const validateFailurePolicyRule = (rule: FailurePolicyRule, index: number, names: ReadonlySet<string>): FieldError[] => {
  const path = `spec.failurePolicy.rules[${index}]`;
  const name = rule.name ?? '';
  const reasons: readonly string[] = JOB_FAILURE_REASONS;
  return [
    // Upstream stops validating the failure policy after this error; Lineup goes on, to report everything at once.
    ...(!FeatureGate.RestartJob && RESTART_JOB_ACTIONS.has(rule.action) ? [{ path: `${path}.action`, message: AdmissionMessage.restartJobGateDisabled }] : []),
    ...(name.length < FailurePolicyRuleName.minLength || name.length > FailurePolicyRuleName.maxLength
      ? [{ path: `${path}.name`, message: AdmissionMessage.failurePolicyRuleNameLength(name.length) }]
      : []),
    ...(FailurePolicyRuleName.pattern.test(name) ? [] : [{ path: `${path}.name`, message: AdmissionMessage.failurePolicyRuleNamePattern(name) }]),
    ...(rule.targetReplicatedJobs ?? []).flatMap((target, j) =>
      names.has(target) ? [] : [{ path: `${path}.targetReplicatedJobs[${j}]`, message: AdmissionMessage.failurePolicyUnknownTarget(target) }],
    ),
    ...(rule.onJobFailureReasons ?? []).flatMap((reason, j) =>
      reasons.includes(reason) ? [] : [{ path: `${path}.onJobFailureReasons[${j}]`, message: AdmissionMessage.failurePolicyReason(reason) }],
    ),
  ];
};

/** validateFailurePolicy: every rule, then rule names unique across rules. */
const validateFailurePolicy = (jobSet: JobSet, names: ReadonlySet<string>): FieldError[] => {
  const rules = jobSet.spec.failurePolicy?.rules ?? [];
  const indicesByName = new Map<string, number[]>();
  rules.forEach((rule, index) => {
    const name = rule.name ?? '';
    indicesByName.set(name, [...(indicesByName.get(name) ?? []), index]);
  });
  const duplicates = [...indicesByName]
    .filter(([, indices]) => indices.length > 1)
    .map(([name, indices]) => ({ path: 'spec.failurePolicy.rules', message: AdmissionMessage.failurePolicyRuleNamesNotUnique(indices, name) }));
  return [...rules.flatMap((rule, index) => validateFailurePolicyRule(rule, index, names)), ...duplicates];
};

/**
 * validateCoordinator: the coordinator names an existing replicatedJob, a Job index below its
 * replicas, an Indexed template with completions and a pod index below them (upstream stops
 * at the first of these), and its endpoint must fit in a label value.
 */
const validateCoordinator = (jobSet: JobSet, rjobs: readonly ReplicatedJob[]): FieldError[] => {
  const coordinator = jobSet.spec.coordinator;
  if (!coordinator) return [];
  const jobIndex = coordinator.jobIndex ?? 0;
  const podIndex = coordinator.podIndex ?? 0;
  const placementError = ((): FieldError | undefined => {
    const rjob = rjobs.find((candidate) => candidate.name === coordinator.replicatedJob);
    if (!rjob) return { path: 'spec.coordinator.replicatedJob', message: AdmissionMessage.coordinatorUnknownReplicatedJob(coordinator.replicatedJob) };
    if (jobIndex < 0 || jobIndex >= replicasOf(rjob)) return { path: 'spec.coordinator.jobIndex', message: AdmissionMessage.coordinatorJobIndex(jobIndex, rjob.name) };
    const completions = rjob.template.spec.completions;
    if (!isIndexed(rjob) || completions === undefined) return { path: 'spec.coordinator.replicatedJob', message: AdmissionMessage.coordinatorNotIndexed };
    if (podIndex < 0 || podIndex >= completions) {
      return { path: 'spec.coordinator.podIndex', message: AdmissionMessage.coordinatorPodIndex(podIndex, coordinator.replicatedJob, jobIndex) };
    }
    return undefined;
  })();
  // As upstream, the endpoint is computed with the name the JobSet will have (generateName included).
  const named: JobSet = { ...jobSet, metadata: { ...jobSet.metadata, name: jobSetNameForValidation(jobSet) ?? '' } };
  const endpoint = coordinatorEndpoint(named) ?? '';
  const labelErrors = labelValueErrors(endpoint);
  return [
    ...(placementError ? [placementError] : []),
    ...(labelErrors.length > 0 ? [{ path: 'spec.coordinator', message: AdmissionMessage.coordinatorLabelValue(endpoint, labelErrors) }] : []),
  ];
};

/**
 * validateSpecFields: a spec field the shipped CRD does not declare (a newer upstream's, or a
 * misspelling) is refused by name. On a cluster the API server prunes it silently; Lineup's
 * own checks (the CLI, a JobSet built in code) say so instead of ignoring it.
 */
const validateSpecFields = (jobSet: JobSet): FieldError[] => {
  const known = new Set(Object.keys(JobSetSpecSchema.shape));
  return Object.keys(jobSet.spec)
    .filter((field) => !known.has(field))
    .map((field) => ({ path: `spec.${field}`, message: ValidationMessage.unknownSpecField(field) }));
};

/** mountsClaim: a container or initContainer of the pod template mounts a volume of this name (upstream hasVolumeMount). */
const mountsClaim = (containers: readonly Container[] | undefined, claim: string): boolean =>
  (containers ?? []).some((container) => (container.volumeMounts ?? []).some((mount) => mount.name === claim));

/**
 * validateReplicatedJobsVolumeClaims: upstream validateReplicatedJobsVolumeClaims — no pod
 * template declares a volume of the claim's name, and at least one mounts it.
 */
const validateReplicatedJobsVolumeClaims = (rjobs: readonly ReplicatedJob[], claim: string): FieldError[] => {
  const conflicts = rjobs.flatMap((rjob, index) =>
    (rjob.template.spec.template.spec?.volumes ?? []).flatMap((volume, v) =>
      volume.name === claim
        ? [{ path: `${rjobPath(index)}.template.spec.template.spec.volumes[${v}].name`, message: KubeMessage.invalidValue(volume.name, AdmissionMessage.volumeClaimVolumeConflict(claim)) }]
        : [],
    ),
  );
  const mounted = rjobs.some((rjob) => mountsClaim(rjob.template.spec.template.spec?.initContainers, claim) || mountsClaim(rjob.template.spec.template.spec?.containers, claim));
  // Upstream's value here is the whole replicatedJobs list; the message names the claim instead.
  return [...conflicts, ...(mounted ? [] : [{ path: 'spec.replicatedJobs', message: AdmissionMessage.volumeClaimNoMatchingMount(claim) }])];
};

/**
 * validateVolumeClaimPolicies: the CRD's limits (at most 50 policies and 50 templates each, no
 * template namespace) and upstream's webhook (validateVolumeClaimPolicies): template names
 * unique across policies, DNS-1123 subdomains, claim names of at most 63 characters, each
 * mounted somewhere and clashing with no volume. Upstream reports template errors at
 * `…template[j].name`; Lineup gives the path of the field itself, `…templates[j].metadata.name`.
 * Not checked here: upstream's webhook also reads an existing claim of the same name (its spec
 * must match, and the policy must be Retain); Lineup's checks are pure, and creating over an
 * existing claim keeps the stored one, as upstream's controller does.
 */
const validateVolumeClaimPolicies = (jobSet: JobSet, rjobs: readonly ReplicatedJob[]): FieldError[] => {
  const policies = jobSet.spec.volumeClaimPolicies ?? [];
  const jobSetName = jobSetNameForValidation(jobSet) ?? '';
  const seen = new Set<string>();
  const countErrors =
    policies.length > MAX_VOLUME_CLAIM_ITEMS ? [{ path: 'spec.volumeClaimPolicies', message: ValidationMessage.tooManyItems(policies.length, MAX_VOLUME_CLAIM_ITEMS) }] : [];
  const policyErrors = policies.flatMap((policy, i): FieldError[] => {
    const path = `spec.volumeClaimPolicies[${i}]`;
    const templates = policy.templates ?? [];
    const errors: FieldError[] = [];
    if (templates.length > MAX_VOLUME_CLAIM_ITEMS) errors.push({ path: `${path}.templates`, message: ValidationMessage.tooManyItems(templates.length, MAX_VOLUME_CLAIM_ITEMS) });
    if (templates.some((template) => (template.metadata.namespace ?? '') !== '')) errors.push({ path, message: AdmissionMessage.volumeClaimNamespace });
    templates.forEach((template, j) => {
      const name = template.metadata.name;
      const namePath = `${path}.templates[${j}].metadata.name`;
      if (seen.has(name)) errors.push({ path: namePath, message: KubeMessage.invalidValue(name, AdmissionMessage.volumeClaimNameNotUnique) });
      for (const detail of dns1123SubdomainErrors(name)) errors.push({ path: namePath, message: KubeMessage.invalidValue(name, detail) });
      if (volumeClaimName(jobSetName, name).length > MAX_VOLUME_CLAIM_NAME_LENGTH) {
        errors.push({ path: namePath, message: KubeMessage.invalidValue(name, AdmissionMessage.volumeClaimNameTooLong) });
      }
      errors.push(...validateReplicatedJobsVolumeClaims(rjobs, name));
      seen.add(name);
    });
    return errors;
  });
  return [...countErrors, ...policyErrors];
};

/**
 * validateSize: Lineup's bound on how big one JobSet may be (DEFAULT_MAX_JOBS_PER_JOBSET,
 * DEFAULT_MAX_PODS_PER_JOBSET, or the deployment's own): beyond it one JobSet would hold the
 * reconciler and the cluster's API server for minutes of creates. Upstream has no such bound.
 * One error naming every bound passed, so `lineup validate` says it in one line.
 */
const validateSize = (jobSet: JobSet, limits: JobSetLimits): FieldError[] => {
  const [first, second] = sizeOverLimits(jobSetSize(jobSet), limits);
  return first === undefined ? [] : [{ path: 'spec.replicatedJobs', message: ValidationMessage.tooBig(first, second) }];
};

/**
 * validateJobSet: every create-time error of a JobSet, empty when it is valid. Pass it a
 * JobSet that has been through applyDefaults, as upstream validates after its webhook has
 * defaulted: some rules read defaulted fields (an Indexed Job's completions, for one).
 * `limits`: the most Jobs and Pods the controller accepts (the reconciler's are configurable).
 * @example validateJobSet(applyDefaults(jobSet)).map((e) => `${e.path}: ${e.message}`)
 */
export const validateJobSet = (jobSet: JobSet, limits: JobSetLimits = DEFAULT_JOBSET_LIMITS): FieldError[] => {
  const rjobs = jobSet.spec.replicatedJobs ?? [];
  const names = new Set(rjobs.map((rjob) => rjob.name));
  return [
    ...validateMetadata(jobSet),
    ...validateInPlaceRestartGate(jobSet),
    ...validateFirstReplicatedJob(rjobs),
    ...validateSubdomain(jobSet),
    ...validateManagedBy(jobSet),
    ...validateTtl(jobSet),
    ...validateReplicatedJobNames(rjobs),
    ...validateReplicatedJobs(jobSet, rjobs),
    ...validateStartupPolicyExclusive(jobSet, rjobs),
    ...validateStartupRules(jobSet, rjobs),
    ...validateSuccessPolicy(jobSet, names),
    ...validateFailurePolicy(jobSet, names),
    ...validateCoordinator(jobSet, rjobs),
    ...validateVolumeClaimPolicies(jobSet, rjobs),
    ...validateSpecFields(jobSet),
    ...validateSize(jobSet, limits),
  ];
};
