/**
 * The conformance scenarios: a deterministic, hand-listed matrix of JobSets, each with how its
 * Pods behave on the kwok node (lineup.test/* annotations, test/integration/harness/kwokStages.yaml)
 * and what a user does to it while it starts (suspend, resume). Pure: the same list every call.
 *
 * Used by the differential conformance run against upstream JobSet (the integration tier's
 * test/integration/conformance/differential.test.ts runs a subset, bench/differential.ts all of
 * them) and by the simulator conformance test (simulator.test.ts: the same scenario through
 * `lineup simulate` and through the real pipeline on the real control plane).
 *
 * The matrix is FORMS × VARIANTS: every startup form upstream knows (none, AnyOrder, InOrder,
 * dependsOn Ready, Complete and both), times: all succeed, success policy Any with a target,
 * success policy All with a target, a Job failure, a failure policy with restarts (or a
 * FailJobSet rule), suspend and resume mid-startup, and a JobSet TTL. Replica counts run
 * through 1–5 and every third JobSet has a replicatedJob of parallelism = completions = 2.
 * Every spec carries the fields upstream's mutating webhook would default, so upstream runs
 * without its webhooks and both twins read the same spec.
 */
import { podAnnotations } from '../integration/harness/controlPlane.ts';

import type { JsonObject } from '../../lib/json.ts';

export type { JsonObject };

/** POD_READY_AFTER_MS: from scheduled to Ready. Longer than a controller's reaction, so stages start apart (STAGE_GAP_MS). */
export const POD_READY_AFTER_MS = 1_500;
/** POD_FINISH_AFTER_MS: from Ready to Succeeded or Failed. Long enough that a controller sees the last stage ready before it ends. */
export const POD_FINISH_AFTER_MS = 3_000;
/** POD_FINISH_FAST_MS: the success-policy target's Pods, which end the JobSet before the others finish. */
const POD_FINISH_FAST_MS = 1_000;
/** POD_TARGET_EXTRA_MS: how much longer the success-targets variant's target runs than the others. */
const POD_TARGET_EXTRA_MS = 1_500;
/** SUSPEND_AT_MS, RESUME_AT_MS: when the suspend-resume variant suspends and resumes the JobSet, from its creation. */
export const SUSPEND_AT_MS = 800;
export const RESUME_AT_MS = 3_500;
/** TTL_SECONDS: the ttl variant's ttlSecondsAfterFinished. */
export const TTL_SECONDS = 3;
/** POD_IMAGE: never pulled (kwok runs no containers). */
const POD_IMAGE = 'registry.invalid/lineup-test:not-pulled';

/** PodPlan: how every Pod of a replicatedJob behaves on the kwok node. */
export interface PodPlan {
  readonly readyAfterMs: number;
  readonly finishAfterMs: number;
  readonly outcome: 'Succeeded' | 'Failed';
}

/** UserAction: what a user does to the JobSet, `atMs` after creating it. */
export interface UserAction {
  readonly atMs: number;
  readonly suspend: boolean;
}

/** ConformanceCase: one scenario. `spec` names no manager: each run adds its own managedBy. */
export interface ConformanceCase {
  readonly name: string;
  readonly form: FormName;
  readonly variant: VariantName;
  readonly spec: JsonObject;
  /** By replicatedJob name. */
  readonly pods: Readonly<Record<string, PodPlan>>;
  readonly actions: readonly UserAction[];
}

/** ReplicatedJobShape: a replicatedJob before it becomes spec. */
interface ReplicatedJobShape {
  readonly name: string;
  readonly replicas: number;
  readonly parallelism: number;
  readonly dependsOn?: readonly { readonly name: string; readonly status: 'Ready' | 'Complete' }[];
}

/** Form: a startup form and the replicatedJobs it orders (`wide` replicas, `parallel` parallelism). */
interface Form {
  readonly startupPolicy: JsonObject | undefined;
  readonly replicatedJobs: (wide: number, parallel: number) => ReplicatedJobShape[];
}

/** FORMS: every startup form of upstream v0.12.0; `none` leaves startupPolicy out (upstream's controller reads a missing one as AnyOrder). */
export const FORMS = {
  none: {
    startupPolicy: undefined,
    replicatedJobs: (wide, parallel) => [
      { name: 'leader', replicas: 1, parallelism: parallel },
      { name: 'workers', replicas: wide, parallelism: 1 },
    ],
  },
  any: {
    startupPolicy: { startupPolicyOrder: 'AnyOrder' },
    replicatedJobs: (wide, parallel) => [
      { name: 'leader', replicas: 1, parallelism: 1 },
      { name: 'workers', replicas: wide, parallelism: parallel },
      { name: 'tail', replicas: 1, parallelism: 1 },
    ],
  },
  inorder: {
    startupPolicy: { startupPolicyOrder: 'InOrder' },
    replicatedJobs: (wide, parallel) => [
      { name: 'mq', replicas: 1, parallelism: 1 },
      { name: 'driver', replicas: 1, parallelism: parallel },
      { name: 'workers', replicas: wide, parallelism: 1 },
    ],
  },
  ready: {
    startupPolicy: { startupPolicyOrder: 'AnyOrder' },
    replicatedJobs: (wide, parallel) => [
      { name: 'leader', replicas: 1, parallelism: parallel },
      { name: 'workers', replicas: wide, parallelism: 1, dependsOn: [{ name: 'leader', status: 'Ready' }] },
    ],
  },
  complete: {
    startupPolicy: { startupPolicyOrder: 'AnyOrder' },
    replicatedJobs: (wide, parallel) => [
      { name: 'init', replicas: 1, parallelism: parallel },
      { name: 'workers', replicas: wide, parallelism: 1, dependsOn: [{ name: 'init', status: 'Complete' }] },
    ],
  },
  mixed: {
    startupPolicy: { startupPolicyOrder: 'AnyOrder' },
    replicatedJobs: (wide, parallel) => [
      { name: 'init', replicas: 1, parallelism: 1 },
      { name: 'leader', replicas: 1, parallelism: parallel },
      {
        name: 'workers',
        replicas: wide,
        parallelism: 1,
        dependsOn: [
          { name: 'init', status: 'Complete' },
          { name: 'leader', status: 'Ready' },
        ],
      },
    ],
  },
} as const satisfies Record<string, Form>;
export type FormName = keyof typeof FORMS;

/** VARIANTS: what happens to a JobSet of any form. */
export const VARIANTS = ['succeed', 'success-any', 'success-targets', 'job-fails', 'restarts', 'suspend-resume', 'ttl'] as const;
export type VariantName = (typeof VARIANTS)[number];

const succeeding: PodPlan = { readyAfterMs: POD_READY_AFTER_MS, finishAfterMs: POD_FINISH_AFTER_MS, outcome: 'Succeeded' };

/** jobTemplate: a Job of `parallelism` Pods (completions the same), Indexed, no retries, its Pods annotated with `pods`. */
const jobTemplate = (shape: ReplicatedJobShape, pods: PodPlan): JsonObject => ({
  spec: {
    parallelism: shape.parallelism,
    completions: shape.parallelism,
    backoffLimit: 0,
    completionMode: 'Indexed',
    template: {
      metadata: { annotations: podAnnotations(pods) },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: POD_IMAGE }] },
    },
  },
});

/** caseOf: the scenario of one form and variant; `index` (its place in the matrix) picks the replica count and parallelism. */
const caseOf = (formName: FormName, variant: VariantName, index: number, formIndex: number): ConformanceCase => {
  const form: Form = FORMS[formName];
  const wide = (index % 5) + 1;
  const parallel = index % 3 === 0 ? 2 : 1;
  const shapes = form.replicatedJobs(wide, parallel);
  const first = shapes[0]?.name ?? '';
  const last = shapes.at(-1)?.name ?? '';
  const pods: Record<string, PodPlan> = Object.fromEntries(shapes.map((shape) => [shape.name, succeeding]));
  let successPolicy: JsonObject = { operator: 'All' };
  let failurePolicy: JsonObject | undefined;
  let ttlSecondsAfterFinished: number | undefined;
  const actions: UserAction[] = [];
  switch (variant) {
    case 'succeed':
      break;
    case 'success-any':
      successPolicy = { operator: 'Any', targetReplicatedJobs: [last] };
      pods[last] = { ...succeeding, finishAfterMs: POD_FINISH_FAST_MS };
      break;
    case 'success-targets':
      // The target ends the JobSet; it runs longer, so that the later stages have started by then.
      successPolicy = { operator: 'All', targetReplicatedJobs: [first] };
      pods[first] = { ...succeeding, finishAfterMs: POD_FINISH_AFTER_MS + POD_TARGET_EXTRA_MS };
      break;
    case 'job-fails':
      pods[last] = { ...succeeding, outcome: 'Failed' };
      break;
    case 'restarts':
      pods[last] = { ...succeeding, outcome: 'Failed' };
      // Every other form restarts once then fails; the others fail at once through a rule.
      failurePolicy =
        formIndex % 2 === 0
          ? { maxRestarts: 1 }
          : { maxRestarts: 3, rules: [{ name: 'failFast', action: 'FailJobSet', onJobFailureReasons: ['BackoffLimitExceeded'], targetReplicatedJobs: [last] }] };
      break;
    case 'suspend-resume':
      actions.push({ atMs: SUSPEND_AT_MS, suspend: true }, { atMs: RESUME_AT_MS, suspend: false });
      break;
    case 'ttl':
      ttlSecondsAfterFinished = TTL_SECONDS;
      break;
  }
  const spec: JsonObject = {
    ...(form.startupPolicy === undefined ? {} : { startupPolicy: form.startupPolicy }),
    successPolicy,
    ...(failurePolicy === undefined ? {} : { failurePolicy }),
    ...(ttlSecondsAfterFinished === undefined ? {} : { ttlSecondsAfterFinished }),
    // What upstream's mutating webhook would add (pkg/webhooks/jobset_webhook.go Default).
    network: { enableDNSHostnames: true, publishNotReadyAddresses: true },
    replicatedJobs: shapes.map((shape) => ({
      name: shape.name,
      replicas: shape.replicas,
      ...(shape.dependsOn === undefined ? {} : { dependsOn: shape.dependsOn.map((d) => ({ ...d })) }),
      template: jobTemplate(shape, pods[shape.name] ?? succeeding),
    })),
  };
  return { name: `${formName}-${variant}`, form: formName, variant, spec, pods, actions };
};

/** conformanceCases: the whole matrix, FORMS × VARIANTS (42 JobSets), in a fixed order. */
export const conformanceCases = (): ConformanceCase[] =>
  (Object.keys(FORMS) as FormName[]).flatMap((form, formIndex) => VARIANTS.map((variant, variantIndex) => caseOf(form, variant, formIndex * VARIANTS.length + variantIndex, formIndex)));

/**
 * integrationCases: the integration tier's share — per form two variants, `i` and `i + 3`
 * (mod 7) for the i-th form, so every form and every variant runs (12 JobSets).
 */
export const integrationCases = (): ConformanceCase[] => {
  const forms = Object.keys(FORMS) as FormName[];
  const picked = new Set(forms.flatMap((form, index) => [`${form}-${VARIANTS[index % VARIANTS.length]}`, `${form}-${VARIANTS[(index + 3) % VARIANTS.length]}`]));
  return conformanceCases().filter((c) => picked.has(c.name));
};

/**
 * SIMULATOR_FAILURE_AFTER_MS: from Ready to Failed for the simulator share's failing Pods. A
 * failure ends the JobSet (or restarts it); the real pipeline must have seen the failing stage
 * Ready before that, or it writes no StartupPolicyCompleted where the simulator, which reacts at
 * once, does — and on a loaded 2-core machine a pipeline hop was seen to take more than 3 s.
 */
export const SIMULATOR_FAILURE_AFTER_MS = 9_000;

/** withPods: the case with `pods` for some of its replicatedJobs, the spec's pod annotations to match. */
const withPods = (c: ConformanceCase, pods: Readonly<Record<string, PodPlan>>): ConformanceCase => {
  const replicatedJobs = (Array.isArray(c.spec.replicatedJobs) ? (c.spec.replicatedJobs as JsonObject[]) : []).map((rjob) => {
    const plan = pods[String(rjob.name)];
    if (plan === undefined) return rjob;
    const template = rjob.template as { spec: { template: JsonObject } & JsonObject };
    return { ...rjob, template: { ...template, spec: { ...template.spec, template: { ...template.spec.template, metadata: { annotations: podAnnotations(plan) } } } } };
  });
  return { ...c, pods: { ...c.pods, ...pods }, spec: { ...c.spec, replicatedJobs } };
};

/**
 * simulatorCases: the simulator conformance share — every form run to success, InOrder with
 * restarts, dependsOn with a Job failure, and a success policy ending early (9 JobSets), failing
 * Pods failing SIMULATOR_FAILURE_AFTER_MS after Ready. Not a gated form's success-any: its target
 * ends 1 s after it is ready, so whether the real pipeline sees it ready first (and writes
 * StartupPolicyCompleted) is its speed, not the simulator's rules.
 */
export const simulatorCases = (): ConformanceCase[] => {
  const names = new Set([...(Object.keys(FORMS) as FormName[]).map((form) => `${form}-succeed`), 'inorder-restarts', 'mixed-job-fails', 'any-success-any']);
  return conformanceCases()
    .filter((c) => names.has(c.name))
    .map((c) => withPods(c, Object.fromEntries(Object.entries(c.pods).filter(([, plan]) => plan.outcome === 'Failed').map(([name, plan]) => [name, { ...plan, finishAfterMs: SIMULATOR_FAILURE_AFTER_MS }]))));
};

/** manifestOf: the case as a JobSet in `namespace`, managed by `managedBy` (none: upstream's). */
export const manifestOf = (c: ConformanceCase, namespace: string, managedBy: string | undefined): JsonObject => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: c.name, namespace },
  spec: { ...c.spec, ...(managedBy === undefined ? {} : { managedBy }) },
});

/**
 * behaviourFileOf: the case as a `lineup simulate` behaviour file: a Job is ready when its Pods
 * are (readyAfter, counted from being un-suspended as kwok's from being scheduled) and ends
 * finishAfter later, as the Pods do; the user's actions at the same times.
 */
export const behaviourFileOf = (c: ConformanceCase): JsonObject => ({
  replicatedJobs: Object.fromEntries(
    Object.entries(c.pods).map(([name, pods]) => [
      name,
      pods.outcome === 'Succeeded'
        ? { readyAfter: `${pods.readyAfterMs}ms`, succeedAfter: `${pods.readyAfterMs + pods.finishAfterMs}ms` }
        : { readyAfter: `${pods.readyAfterMs}ms`, succeedAfter: 'never', failAfter: `${pods.readyAfterMs + pods.finishAfterMs}ms` },
    ]),
  ),
  actions: c.actions.map((action) => ({ at: `${action.atMs}ms`, suspend: action.suspend })),
});
