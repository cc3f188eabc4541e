/**
 * What a cluster fills in when a JobSet is created, applied in memory for clusters (and CLI
 * runs) without the upstream webhook: the mutating webhook's defaults (upstream
 * `pkg/webhooks/jobset_webhook.go` Default), the CRD's schema defaults and the batch/v1 Job
 * defaults Lineup relies on. Values live in JobSetDefault, below.
 *
 * Not defaulted, as upstream: managedBy, suspend, ttlSecondsAfterFinished, coordinator,
 * network.subdomain (the controller falls back to the JobSet name at use time, because a
 * generateName JobSet has no name at admission).
 */
import type { FailurePolicy, JobSet, JobSpec, Network, ReplicatedJob, VolumeClaimPolicy } from './schema.ts';

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

/**
 * defaultJobSpec: the Job template's webhook and Job API defaults. Both parallelism and
 * completions unset means one pod that must succeed once (Job API); parallelism alone unset
 * means 1, and completions then stays unset (a work queue).
 */
const defaultJobSpec = (spec: JobSpec): void => {
  spec.completionMode ??= JobSetDefault.completionMode;
  const podSpec = (spec.template.spec ??= {});
  // Upstream tests for the empty string, not only for absence.
  if (!podSpec.restartPolicy) podSpec.restartPolicy = JobSetDefault.restartPolicy;
  if (spec.parallelism === undefined && spec.completions === undefined) spec.completions = JobSetDefault.completions;
  spec.parallelism ??= JobSetDefault.parallelism;
};

/** defaultReplicatedJob: CRD defaults (replicas, groupName), then the Job template's. */
const defaultReplicatedJob = (rjob: ReplicatedJob): void => {
  rjob.replicas ??= JobSetDefault.replicas;
  rjob.groupName ??= JobSetDefault.groupName;
  defaultJobSpec(rjob.template.spec);
};

/** defaultNetwork: DNS hostnames on and not-ready addresses published unless said otherwise. */
const defaultNetwork = (network: Network): Network => ({
  ...network,
  enableDNSHostnames: network.enableDNSHostnames ?? JobSetDefault.enableDNSHostnames,
  publishNotReadyAddresses: network.publishNotReadyAddresses ?? JobSetDefault.publishNotReadyAddresses,
});

/** defaultFailurePolicy: CRD restartStrategy, and `failurePolicyRule<i>` for unnamed rules (webhook). */
const defaultFailurePolicy = (policy: FailurePolicy): void => {
  policy.restartStrategy ??= JobSetDefault.restartStrategy;
  policy.rules?.forEach((rule, index) => {
    // Upstream tests len(name) == 0, so an empty name is defaulted too.
    if (!rule.name) rule.name = defaultFailurePolicyRuleName(index);
  });
};

/**
 * defaultVolumeClaimPolicy: the webhook's retentionPolicy `{whenDeleted: Delete}` when absent, and
 * the CRD's default whenDeleted Delete when a retentionPolicy is written without it.
 */
const defaultVolumeClaimPolicy = (policy: VolumeClaimPolicy): void => {
  policy.retentionPolicy ??= {};
  policy.retentionPolicy.whenDeleted ??= JobSetDefault.volumeRetention;
};

/**
 * applyDefaults: a copy of `jobSet` with everything a cluster would default on create filled
 * in. Pure (the input is never touched) and idempotent. startupPolicy becomes AnyOrder when
 * absent even when dependsOn or the startup-rules annotation is used: AnyOrder with dependsOn
 * is upstream's normal case, and validation reads the other forms from where they are written.
 * @example applyDefaults(makeJobSet('js').replicatedJob('workers', 2).obj()).spec.startupPolicy // {startupPolicyOrder: 'AnyOrder'}
 */
export const applyDefaults = (jobSet: JobSet): JobSet => {
  // Cloning first keeps the defaulting code shaped like upstream's (fill in place) while the
  // caller's object stays untouched and shares nothing with the result.
  const copy = structuredClone(jobSet);
  const spec = copy.spec;
  spec.successPolicy ??= { operator: JobSetDefault.successPolicyOperator };
  spec.startupPolicy ??= { startupPolicyOrder: JobSetDefault.startupPolicyOrder };
  spec.replicatedJobs?.forEach(defaultReplicatedJob);
  spec.network = defaultNetwork(spec.network ?? {});
  if (spec.failurePolicy) defaultFailurePolicy(spec.failurePolicy);
  spec.volumeClaimPolicies?.forEach(defaultVolumeClaimPolicy);
  return copy;
};
