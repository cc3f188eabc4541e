/**
 * Why the planner took each action: a reason code from one table and a message a person reads
 * ("driver Ready 2/2", which startup rule, which failure-policy rule). Pure: the messages are
 * built from the same spec and counters the planner decided with, so a replay recomputes them.
 */
import type { FailurePolicy, SuccessPolicy } from '../jobset/schema.ts';
import { earliestFailure, ruleMatchesJob, type FailedJobRef } from '../policy/failurePolicy.ts';
import { NO_PROGRESS } from '../policy/progress.ts';
import type { FinishedJobRef } from '../policy/successPolicy.ts';
import type { AwaitedStatus, Gate, ReplicatedJobProgress, StartupPolicySpec, Wait } from '../policy/types.ts';

/** Every reason an action can have. */
export const ActionReasonCode = {
  /** A replicatedJob's gate is open: its Jobs are created running or resumed. */
  GateOpened: 'GateOpened',
  /** A closed startup gate (InOrder, dependsOn or an ordered rule) holds a Job back: created suspended. */
  StartupRuleHeld: 'StartupRuleHeld',
  /** The gate closed again, but the replicatedJob already runs: it stays released. */
  AlreadyRunning: 'AlreadyRunning',
  /** spec.suspend is true: Jobs are created suspended or suspended. */
  JobSetSuspended: 'JobSetSuspended',
  /** A failure-policy rule (or the default policy) decided to restart or fail. */
  FailurePolicyRule: 'FailurePolicyRule',
  /** The success policy holds: the JobSet completes. */
  SuccessPolicyMet: 'SuccessPolicyMet',
  /** The JobSet fails validation. */
  JobSetInvalid: 'JobSetInvalid',
  /** The JobSet finished: its still-active Jobs are deleted. */
  JobSetFinished: 'JobSetFinished',
  /** ttlSecondsAfterFinished passed: the JobSet is deleted. */
  TtlExpired: 'TtlExpired',
  /** A Job of an earlier restart attempt is deleted. */
  PreviousAttempt: 'PreviousAttempt',
  /** The headless Service is missing. */
  ServiceMissing: 'ServiceMissing',
  /** A pass created as many Jobs as one pass may (MAX_CREATES_PER_PASS): the next passes create the rest. */
  CreationContinues: 'CreationContinues',
  /** Jobs are created that mount volumeClaimPolicies claims: the claims are created first. */
  VolumeClaimPolicy: 'VolumeClaimPolicy',
  /** The observed status differs from the one this pass computes. */
  StatusChanged: 'StatusChanged',
  /** A condition changed (its Event). */
  ConditionChanged: 'ConditionChanged',
  /** Finished Jobs' outcomes are written to the JobSet's record annotation. */
  FinishedJobRecorded: 'FinishedJobRecorded',
  /** Lineup's finalizer is released from a Job whose outcome is recorded or no longer needed. */
  FinalizerReleased: 'FinalizerReleased',
} as const;

export type ActionReasonCode = (typeof ActionReasonCode)[keyof typeof ActionReasonCode];

/** The reason of one action: a code from ActionReasonCode and a message. */
export interface ActionReason {
  readonly code: ActionReasonCode;
  readonly message: string;
}

/** countOf: "driver Ready 2/2", counting as the gate does (ready+succeeded+failed, or succeeded). */
const countOf = (name: string, status: AwaitedStatus, replicas: number, progress: ReplicatedJobProgress): string => {
  const have = status === 'Ready' ? progress.ready + progress.succeeded + progress.failed : progress.succeeded;
  return `${name} ${status} ${Math.min(have, replicas)}/${replicas}`;
};

/**
 * gateOpenedMessage: what opened the gate of `replicatedJob` — the counts of what it waited for
 * ("driver Ready 2/2"), or why it has no gate.
 */
export const gateOpenedMessage = (
  policy: StartupPolicySpec,
  progress: ReadonlyMap<string, ReplicatedJobProgress>,
  replicatedJob: string,
): string => {
  const progressOf = (name: string): ReplicatedJobProgress => progress.get(name) ?? NO_PROGRESS;
  const replicas = new Map(policy.replicatedJobs.map((rjob) => [rjob.name, rjob.replicas]));
  const count = (name: string, status: AwaitedStatus): string => countOf(name, status, replicas.get(name) ?? 0, progressOf(name));
  switch (policy.form) {
    case 'AnyOrder':
      return 'AnyOrder: no gate';
    case 'InOrder': {
      const index = policy.replicatedJobs.findIndex((rjob) => rjob.name === replicatedJob);
      const previous = policy.replicatedJobs[index - 1];
      return previous === undefined ? 'InOrder: first replicatedJob' : `InOrder: ${count(previous.name, 'Ready')}`;
    }
    case 'DependsOn': {
      const dependsOn = policy.replicatedJobs.find((rjob) => rjob.name === replicatedJob)?.dependsOn ?? [];
      return dependsOn.length === 0 ? 'dependsOn: no dependencies' : `dependsOn: ${dependsOn.map((dep) => count(dep.name, dep.status)).join(', ')}`;
    }
    case 'Rules': {
      const rules = policy.rules ?? [];
      const own = rules.findIndex((rule) => rule.targetReplicatedJobs.includes(replicatedJob));
      const earlier = own === -1 ? rules : rules.slice(0, own);
      const ruleName = own === -1 ? 'after the last rule' : `rule ${own + 1}`;
      if (earlier.length === 0) return `startup rules: ${ruleName}, first rule`;
      return `startup rules: ${ruleName}, ${earlier.map((rule, index) => `rule ${index + 1} ${rule.targetReplicatedJobs.map((name) => count(name, rule.status)).join(', ')}`).join('; ')}`;
    }
  }
};

/** heldMessage: which startup rule holds a gate closed, and on what it waits. */
export const heldMessage = (policy: StartupPolicySpec, gate: Gate): string => {
  if (gate.released) return `${policy.form}: released`;
  const wait: Wait = gate.waitingOn;
  if (policy.form === 'Rules') {
    const rules = policy.rules ?? [];
    const waitingRule = rules.findIndex((rule) => rule.targetReplicatedJobs.includes(wait.replicatedJob) && rule.status === wait.status);
    return `startup rules: rule ${waitingRule + 1} ${wait.message}`;
  }
  return `${policy.form}: ${wait.message}`;
};

/** failureRuleMessage: which failure-policy rule decided, on which Job, and with what outcome. */
export const failureRuleMessage = (policy: FailurePolicy | undefined, failed: readonly FailedJobRef[], outcome: { readonly kind: string; readonly message: string }): string => {
  if (!policy) return `no failure policy: ${outcome.message}`;
  const rules = policy.rules ?? [];
  for (const [index, rule] of rules.entries()) {
    const matched = earliestFailure(failed.filter((job) => ruleMatchesJob(rule, job)));
    if (matched) return `failure policy rule ${index + 1} (${rule.name ?? 'unnamed'}, ${rule.action}) matched ${matched.name}: ${outcome.message}`;
  }
  return `no failure-policy rule matched, default RestartJobSet (maxRestarts ${policy.maxRestarts ?? 0}): ${outcome.message}`;
};

/** successPolicyMessage: the success policy that held, with the targeted successful Jobs counted. */
export const successPolicyMessage = (
  policy: SuccessPolicy | undefined,
  replicatedJobs: readonly { readonly name: string; readonly replicas: number }[],
  successful: readonly FinishedJobRef[],
): string => {
  const operator = policy?.operator ?? 'All';
  const targets = policy?.targetReplicatedJobs?.length ? policy.targetReplicatedJobs : undefined;
  const targeted = (name: string): boolean => targets === undefined || targets.includes(name);
  const matching = successful.filter((job) => targeted(job.replicatedJob)).length;
  const needed = operator === 'Any' ? 1 : replicatedJobs.filter((rjob) => targeted(rjob.name)).reduce((sum, rjob) => sum + rjob.replicas, 0);
  return `success policy ${operator} of ${targets ? targets.join(', ') : 'every replicatedJob'}: ${matching}/${needed} jobs succeeded`;
};
