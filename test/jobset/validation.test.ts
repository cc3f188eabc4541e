import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { FieldError } from '../../lib/errors.ts';
import { applyDefaults } from '../../lib/jobset/defaults.ts';
import { zodIssuesToFieldErrors } from '../../lib/jobset/issues.ts';
import { JobSetSchema } from '../../lib/jobset/schema.ts';
import type { Coordinator, DependsOn, FailurePolicy, JobSet, JobSpec, Network, ObjectMeta, ReplicatedJob } from '../../lib/jobset/schema.ts';
import { validateJobSet } from '../../lib/jobset/validation.ts';
import { makeJobSet } from '../builders.ts';

// Expected messages are literal strings: upstream's copied from pkg/webhooks/jobset_webhook.go
// and its test (and k8s.io/apimachinery validation), Lineup's own as they read. A message read
// back from lib/jobset/admission.ts would pass however wrong the constant is.

const MAX_INT32 = 2147483647;
const MIN_INT32 = -2147483648;
/** STARTUP_RULES_PATH: where errors in the startup-rules annotation point. */
const STARTUP_RULES_PATH = 'metadata.annotations[lineup.dev/startup-rules]';

/**
 * admit: what creating `input` on a cluster with the upstream CRD and webhook does, in
 * Lineup's terms: the schema first (JobSetSchema), then defaults, then validation.
 */
const admit = (input: unknown): FieldError[] => {
  const parsed = JobSetSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) return zodIssuesToFieldErrors(parsed.error.issues);
  return validateJobSet(applyDefaults(parsed.data));
};

/** rendered: each error as Go's field.Error renders it ("path: message"), the text upstream's test searches. */
const rendered = (errors: readonly FieldError[]): string[] => errors.map((e) => `${e.path}: ${e.message}`);

// ----- Upstream-shaped objects (pkg/webhooks/jobset_webhook_test.go). -----

const validPodTemplateSpec = () => ({ spec: { containers: [{ name: 'test', image: 'bash:latest' }] } });
const indexed = (n: number): Partial<JobSpec> => ({ completionMode: 'Indexed', completions: n, parallelism: n });

interface UpstreamRJob {
  readonly replicas?: number;
  readonly groupName?: string;
  readonly dependsOn?: DependsOn[];
  readonly jobSpec?: Partial<JobSpec>;
}

/** upstreamRJob: a replicatedJob as upstream's TestValidateCreate writes it (groupName default, replicas 1). */
const upstreamRJob = (name: string, options: UpstreamRJob = {}): ReplicatedJob => ({
  name,
  groupName: options.groupName ?? 'default',
  replicas: options.replicas ?? 1,
  ...(options.dependsOn ? { dependsOn: options.dependsOn } : {}),
  template: { spec: { template: validPodTemplateSpec(), ...options.jobSpec } },
});

interface UpstreamSpec {
  readonly replicatedJobs?: ReplicatedJob[];
  readonly managedBy?: string;
  readonly network?: Network;
  readonly failurePolicy?: FailurePolicy;
  readonly coordinator?: Coordinator;
  readonly successTargets?: string[];
}

/** upstreamJobSet: upstream's test JobSet (validObjectMeta is {name: "js"}); upstream's empty SuccessPolicy{} becomes operator All. */
const upstreamJobSet = (spec: UpstreamSpec, metadata: ObjectMeta = { name: 'js' }): JobSet => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata,
  spec: {
    successPolicy: { operator: 'All', ...(spec.successTargets ? { targetReplicatedJobs: spec.successTargets } : {}) },
    replicatedJobs: spec.replicatedJobs ?? [],
    ...(spec.managedBy === undefined ? {} : { managedBy: spec.managedBy }),
    ...(spec.network ? { network: spec.network } : {}),
    ...(spec.failurePolicy ? { failurePolicy: spec.failurePolicy } : {}),
    ...(spec.coordinator ? { coordinator: spec.coordinator } : {}),
  },
});

const complete = (name: string): DependsOn => ({ name, status: 'Complete' });
const ready = (name: string): DependsOn => ({ name, status: 'Ready' });
const rjA = (name: string): ReplicatedJob => upstreamRJob(name, { replicas: 2, jobSpec: indexed(2) });

describe('jobset/validation', () => {
  describe('pkg/webhooks/jobset_webhook_test.go', () => {
    // Upstream's unit test calls ValidateCreate on objects that were not defaulted, and checks
    // that every wanted string is contained in the error, whose field errors read "path:
    // message"; so do these ports.
    const cases: { name: string; jobSet: JobSet; want: string[] }[] = [
      {
        name: 'TestValidateCreate: generateName that produces overlong child job names is rejected',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('worker')] }, { generateName: `${'a'.repeat(49)}-` }),
        want: ['JobSet name is too long, job names generated for this JobSet will exceed 63 characters'],
      },
      {
        name: 'TestValidateCreate: number of pods exceeds the limit',
        jobSet: upstreamJobSet({
          replicatedJobs: [
            upstreamRJob('test-jobset-replicated-job-0', { replicas: MAX_INT32, jobSpec: { parallelism: MAX_INT32 } }),
            upstreamRJob('test-jobset-replicated-job-1', { replicas: MIN_INT32, jobSpec: { parallelism: MIN_INT32 } }),
          ],
        }),
        want: [
          "the product of replicas and parallelism must not exceed 2147483647 for replicatedJob 'test-jobset-replicated-job-0'",
          "the product of replicas and parallelism must not exceed 2147483647 for replicatedJob 'test-jobset-replicated-job-1'",
        ],
      },
      {
        name: 'TestValidateCreate: number of pods within the limit',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('test-jobset-replicated-job-0')] }),
        want: [],
      },
      {
        name: 'TestValidateCreate: success policy has non matching replicated job',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('test-jobset-replicated-job-0')], successTargets: ['does not exist'] }),
        want: ["invalid replicatedJob name 'does not exist' does not appear in .spec.ReplicatedJobs"],
      },
      {
        name: 'TestValidateCreate: network has invalid dns name',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('test-jobset-replicated-job-0')], network: { enableDNSHostnames: true, subdomain: 'a'.repeat(64) } }),
        want: ['.spec.network.subdomain is too long, must be less than 63 characters'],
      },
      {
        name: 'TestValidateCreate: jobset name with invalid character',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('username.llama65b')] }),
        want: [
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ],
      },
      {
        name: 'TestValidateCreate: group name is not DNS 1035 compliant',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('rj', { groupName: 'a'.repeat(64) })] }),
        want: ['.spec.replicatedJob[].groupName is too long, must be less than 63 characters'],
      },
      {
        name: 'TestValidateCreate: jobset name will result in job name being too long',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('rj', { replicas: 101 })] }, { name: 'a'.repeat(62) }),
        want: ['JobSet name is too long, job names generated for this JobSet will exceed 63 characters'],
      },
      {
        name: 'TestValidateCreate: jobset name will result in a pod name being too long',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })] }, { name: 'a'.repeat(56) }),
        want: ['JobSet name is too long, pod names generated for this JobSet will exceed 63 characters'],
      },
      {
        name: 'TestValidateCreate: jobset controller name is not a domain-prefixed path',
        jobSet: upstreamJobSet({ managedBy: 'notDomainPrefixedPathControllerName', replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })] }),
        want: ['spec.managedBy: Invalid value: "notDomainPrefixedPathControllerName": must be a domain-prefixed path (such as "acme.io/foo")'],
      },
      {
        name: 'TestValidateCreate: jobset controller name is too long',
        jobSet: upstreamJobSet({ managedBy: `foo.bar/${'a'.repeat(63)}`, replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })] }),
        want: ['spec.managedBy: Too long: may not be more than 63 bytes'],
      },
      {
        name: 'TestValidateCreate: jobset controller name is set and valid',
        jobSet: upstreamJobSet({ managedBy: 'jobset.sigs.k8s.io/jobset-controller', replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })] }),
        want: [],
      },
      {
        name: 'TestValidateCreate: jobset controller name is unset',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })] }),
        want: [],
      },
      {
        name: 'TestValidateCreate: failure policy rule name is valid',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: { rules: [{ name: 'superAwesomeFailurePolicyRule', action: 'FailJobSet' }] },
        }),
        want: [],
      },
      {
        name: 'TestValidateCreate: jobset failure policy has an invalid on job failure reason',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: { maxRestarts: 1, rules: [{ name: 'rule', action: 'FailJobSet', onJobFailureReasons: ['fakeReason'] }] },
        }),
        want: ["invalid job failure reason 'fakeReason' in failure policy is not a recognized job failure reason"],
      },
      {
        name: 'TestValidateCreate: jobset failure policy has an invalid replicated job',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: { maxRestarts: 1, rules: [{ name: 'rule', action: 'FailJobSet', targetReplicatedJobs: ['fakeReplicatedJob'] }] },
        }),
        want: ["invalid replicatedJob name 'fakeReplicatedJob' in failure policy does not appear in .spec.ReplicatedJobs"],
      },
      {
        name: 'TestValidateCreate: jobset failure policy rule name is 0 characters long a.k.a unset',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })], failurePolicy: { rules: [{ name: '', action: 'FailJobSet' }] } }),
        want: ['invalid failure policy rule name of length 0, the rule name must be at least 1 characters long and at most 128 characters long'],
      },
      {
        name: 'TestValidateCreate: jobset failure policy rule name is greater than 128 characters long',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: { rules: [{ name: 'a'.repeat(129), action: 'FailJobSet' }] },
        }),
        want: ['invalid failure policy rule name of length 129, the rule name must be at least 1 characters long and at most 128 characters long'],
      },
      {
        name: 'TestValidateCreate: there are two failure policy rules with the same name',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: {
            rules: [
              { name: 'repeatedRuleName', action: 'FailJobSet' },
              { name: 'repeatedRuleName', action: 'FailJobSet' },
            ],
          },
        }),
        want: ["rule names are not unique, rules with indices [0 1] all have the same name 'repeatedRuleName'"],
      },
      {
        name: 'TestValidateCreate: failure policy rule name does not start with an alphabetic character',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: { rules: [{ name: '1ruleToRuleThemAll', action: 'FailJobSet' }] },
        }),
        want: [
          "invalid failure policy rule name '1ruleToRuleThemAll', a failure policy rule name must start with an alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
        ],
      },
      {
        name: "TestValidateCreate: failure policy rule name does not end with an alphanumeric nor '_'",
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: { rules: [{ name: 'ruleToRuleThemAll,', action: 'FailJobSet' }] },
        }),
        want: [
          "invalid failure policy rule name 'ruleToRuleThemAll,', a failure policy rule name must start with an alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
        ],
      },
      {
        name: 'TestValidateCreate: coordinator replicated job does not exist',
        jobSet: upstreamJobSet({ coordinator: { replicatedJob: 'fake-rjob', jobIndex: 0, podIndex: 0 }, replicatedJobs: [rjA('replicatedjob-a'), rjA('replicatedjob-b')] }),
        want: ['coordinator replicatedJob fake-rjob does not exist'],
      },
      {
        name: 'TestValidateCreate: coordinator replicated job missing completions',
        jobSet: upstreamJobSet({
          coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 0, podIndex: 0 },
          replicatedJobs: [upstreamRJob('replicatedjob-a', { replicas: 2, jobSpec: { completionMode: 'Indexed', parallelism: 2 } }), rjA('replicatedjob-b')],
        }),
        want: ['job for coordinator pod must be indexed completion mode, and completions number must be set'],
      },
      {
        name: 'TestValidateCreate: coordinator job index invalid',
        jobSet: upstreamJobSet({ coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 2, podIndex: 0 }, replicatedJobs: [rjA('replicatedjob-a'), rjA('replicatedjob-b')] }),
        want: ['coordinator job index 2 is invalid for replicatedJob replicatedjob-a'],
      },
      {
        name: 'TestValidateCreate: coordinator pod index invalid',
        jobSet: upstreamJobSet({ coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 0, podIndex: 2 }, replicatedJobs: [rjA('replicatedjob-a'), rjA('replicatedjob-b')] }),
        want: ['coordinator pod index 2 is invalid for replicatedJob replicatedjob-a job index 0'],
      },
      {
        name: 'TestValidateCreate: coordinator label value is too long due to long JobSet name',
        jobSet: upstreamJobSet(
          { coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 0, podIndex: 0 }, replicatedJobs: [upstreamRJob('replicatedjob-a', { jobSpec: indexed(1) })] },
          { name: 'a'.repeat(60) },
        ),
        want: ['spec will lead to invalid label value'],
      },
      {
        name: 'TestValidateCreate: coordinator label value is too long due to long ReplicatedJob name',
        jobSet: upstreamJobSet(
          { coordinator: { replicatedJob: 'a'.repeat(60), jobIndex: 0, podIndex: 0 }, replicatedJobs: [upstreamRJob('a'.repeat(60), { jobSpec: indexed(1) })] },
          { name: 'jobset' },
        ),
        want: ['spec will lead to invalid label value'],
      },
      {
        name: 'TestValidateCreate: coordinator label value is too long due to long SubDomain',
        jobSet: upstreamJobSet(
          {
            network: { subdomain: 'a'.repeat(60) },
            coordinator: { replicatedJob: 'replicatedjob-a', jobIndex: 0, podIndex: 0 },
            replicatedJobs: [upstreamRJob('replicatedjob-a', { jobSpec: indexed(1) })],
          },
          { name: 'jobset' },
        ),
        want: ['spec will lead to invalid label value'],
      },
      {
        name: 'TestValidateCreate: jobset failure policy rule has RestartJob action and RestartJob feature gate is disabled',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: { rules: [{ action: 'RestartJob', name: 'restartJobRule' }] },
        }),
        want: ['RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature gate is disabled'],
      },
      {
        name: 'TestValidateCreate: jobset failure policy rule has RestartJobAndIgnoreMaxRestarts action and RestartJob feature gate is disabled',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('rj', { jobSpec: indexed(1) })],
          failurePolicy: { rules: [{ action: 'RestartJobAndIgnoreMaxRestarts', name: 'restartJobAndIgnoreMaxRestartsRule' }] },
        }),
        want: ['RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature gate is disabled'],
      },
      {
        name: 'TestValidateCreate: DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-1',
        jobSet: upstreamJobSet({
          replicatedJobs: [
            upstreamRJob('job-1'),
            upstreamRJob('job-2', { dependsOn: [complete('job-1')] }),
            upstreamRJob('job-3', { dependsOn: [complete('job-1')] }),
          ],
        }),
        want: [],
      },
      {
        name: 'TestValidateCreate: DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-2',
        jobSet: upstreamJobSet({
          replicatedJobs: [
            upstreamRJob('job-1'),
            upstreamRJob('job-2', { dependsOn: [complete('job-1')] }),
            upstreamRJob('job-3', { dependsOn: [complete('job-2')] }),
          ],
        }),
        want: [],
      },
      {
        name: 'TestValidateCreate: DependsOn is valid since job-3 depends on job-1 and job-2',
        jobSet: upstreamJobSet({
          replicatedJobs: [upstreamRJob('job-1'), upstreamRJob('job-2'), upstreamRJob('job-3', { dependsOn: [complete('job-1'), complete('job-2')] })],
        }),
        want: [],
      },
      {
        name: 'TestValidateCreate: DependsOn is invalid since job-2 depends on job-3',
        jobSet: upstreamJobSet({
          replicatedJobs: [
            upstreamRJob('job-1'),
            upstreamRJob('job-2', { dependsOn: [complete('job-3')] }),
            upstreamRJob('job-3', { dependsOn: [complete('job-1')] }),
          ],
        }),
        // Upstream: 'replicatedJob: job-2 cannot depend on replicatedJob: job-3'; Lineup names the cause.
        want: ['dependsOn names job-3, which is declared after job-2 (spec.replicatedJobs[2]): a replicatedJob may depend only on one declared before it'],
      },
      {
        name: 'TestValidateCreate: DependsOn is invalid since job-2 depends on job-3 and job-1',
        jobSet: upstreamJobSet({
          replicatedJobs: [
            upstreamRJob('job-1'),
            upstreamRJob('job-2', { dependsOn: [complete('job-1'), complete('job-3')] }),
            upstreamRJob('job-3', { dependsOn: [complete('job-1')] }),
          ],
        }),
        want: ['dependsOn names job-3, which is declared after job-2 (spec.replicatedJobs[2]): a replicatedJob may depend only on one declared before it'],
      },
      {
        name: 'TestValidateCreate: job-2 depends on invalid ReplicatedJob',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('job-1'), upstreamRJob('job-2', { dependsOn: [complete('invalid')] })] }),
        want: ['dependsOn names invalid, which is not a replicatedJob of this JobSet; the replicatedJobs are job-1, job-2'],
      },
      {
        name: 'TestValidateCreate: dependsOn should not fail if there are no replicated jobs',
        jobSet: upstreamJobSet({ replicatedJobs: [] }),
        want: [],
      },
      {
        name: 'TestValidateCreate: dependsOn cannot be set for first replicated job',
        jobSet: upstreamJobSet({ replicatedJobs: [upstreamRJob('job-1', { dependsOn: [complete('invalid')] })] }),
        want: ["DependsOn can't be set for the first ReplicatedJob"],
      },
      {
        name: 'TestValidateCreate: InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled',
        jobSet: upstreamJobSet({ failurePolicy: { restartStrategy: 'InPlaceRestart' }, replicatedJobs: [upstreamRJob('job-1')] }),
        want: ['InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled'],
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        const got = rendered(validateJobSet(tc.jobSet));
        if (tc.want.length === 0) assert.deepEqual(got, []);
        for (const want of tc.want) assert.ok(got.some((message) => message.includes(want)), `missing ${JSON.stringify(want)} in ${JSON.stringify(got)}`);
      });
    }

    it('TestValidateCreate: dependsOn cannot be set for first replicated job (Lineup reports the unknown name as well, as upstream does)', () => {
      const jobSet = upstreamJobSet({ replicatedJobs: [upstreamRJob('job-1', { dependsOn: [complete('invalid')] })] });
      assert.deepEqual(validateJobSet(jobSet), [
        { path: 'spec.replicatedJobs[0].dependsOn', message: "DependsOn can't be set for the first ReplicatedJob" },
        { path: 'spec.replicatedJobs[0].dependsOn[0].name', message: 'dependsOn names invalid, which is not a replicatedJob of this JobSet; the replicatedJobs are job-1' },
      ]);
    });
  });

  describe('pkg/webhooks/jobset_webhook_test.go: volumeClaimPolicies', () => {
    // upstream's TestValidateCreate volumeClaimPolicy cases: a JobSet "js" whose job-1 container
    // mounts what the case says, and policies with the templates the case names.
    const mount = (name: string, mountPath = '/test/path') => ({ name, mountPath });
    const claimRJob = (name: string, pod: { mounts?: string[]; initMounts?: string[]; volumes?: string[] }): ReplicatedJob => ({
      name,
      groupName: 'default',
      replicas: 1,
      template: {
        spec: {
          template: {
            spec: {
              containers: [{ name: 'test', image: 'bash:latest', ...(pod.mounts ? { volumeMounts: pod.mounts.map((m) => mount(m)) } : {}) }],
              ...(pod.initMounts ? { initContainers: [{ name: 'test-init', image: 'bash:latest', volumeMounts: pod.initMounts.map((m) => mount(m)) }] } : {}),
              ...(pod.volumes ? { volumes: pod.volumes.map((v) => ({ name: v, emptyDir: {} })) } : {}),
            },
          },
        },
      },
    });
    const withClaims = (policies: NonNullable<JobSet['spec']['volumeClaimPolicies']>, rjobs: ReplicatedJob[]): JobSet => {
      const base = upstreamJobSet({ replicatedJobs: rjobs });
      return { ...base, spec: { ...base.spec, volumeClaimPolicies: policies } };
    };
    const template = (name: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    const deleting = (...names: string[]) => ({ templates: names.map(template), retentionPolicy: { whenDeleted: 'Delete' as const } });
    const retaining = (...names: string[]) => ({ templates: names.map(template), retentionPolicy: { whenDeleted: 'Retain' as const } });
    const cases: { name: string; jobSet: JobSet; want: string[] }[] = [
      {
        name: 'TestValidateCreate: volumeClaimPolicy is valid since volume exists in the container',
        jobSet: withClaims([deleting('test-volume')], [claimRJob('job-1', { mounts: ['test-volume'] })]),
        want: [],
      },
      {
        name: 'TestValidateCreate: volumeClaimPolicy is valid since volume exists in the initContainer',
        jobSet: withClaims([deleting('test-volume')], [claimRJob('job-1', {}), claimRJob('job-2', { initMounts: ['test-volume'] })]),
        want: [],
      },
      {
        name: 'TestValidateCreate: volumeClaimPolicy is invalid since template names are not unique',
        jobSet: withClaims([deleting('duplicate-volume'), retaining('duplicate-volume')], [claimRJob('job-1', { mounts: ['duplicate-volume'] })]),
        want: ['spec.volumeClaimPolicies[1].templates[0].metadata.name: Invalid value: "duplicate-volume": names must be unique for VolumeClaimPolicies template'],
      },
      {
        name: 'TestValidateCreate: volumeClaimPolicy is invalid since template name has uppercase letters',
        jobSet: withClaims([deleting('InvalidVolumeName')], [claimRJob('job-1', { mounts: ['InvalidVolumeName'] })]),
        want: ['spec.volumeClaimPolicies[0].templates[0].metadata.name: Invalid value: "InvalidVolumeName": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'],
      },
      {
        name: 'TestValidateCreate: volumeClaimPolicy is invalid since template name is too long',
        jobSet: withClaims([deleting('a'.repeat(64))], [claimRJob('job-1', { mounts: ['a'.repeat(64)] })]),
        want: [`spec.volumeClaimPolicies[0].templates[0].metadata.name: Invalid value: "${'a'.repeat(64)}": VolumeClaimPolicies template name is too long`],
      },
      {
        name: 'TestValidateCreate: volumeClaimPolicy is invalid since no matching volumeMount in containers',
        jobSet: withClaims([deleting('test-volume')], [claimRJob('job-1', {})]),
        want: ["spec.replicatedJobs: replicatedJob containers don't have a matching volumeMount: test-volume from VolumeClaimPolicies"],
      },
      {
        name: 'TestValidateCreate: volumeClaimPolicy is invalid since volume name conflicts with existing volume',
        jobSet: withClaims([deleting('conflicting-volume')], [claimRJob('job-1', { mounts: ['conflicting-volume'], volumes: ['conflicting-volume'] })]),
        want: [
          'spec.replicatedJobs[0].template.spec.template.spec.volumes[0].name: Invalid value: "conflicting-volume": volume name conflicts with VolumeClaimPolicy template name: conflicting-volume',
        ],
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        const got = rendered(validateJobSet(tc.jobSet));
        if (tc.want.length === 0) assert.deepEqual(got, []);
        for (const want of tc.want) assert.ok(got.some((message) => message.includes(want)), `missing ${JSON.stringify(want)} in ${JSON.stringify(got)}`);
      });
    }

    it('the CRD: a template namespace is refused, as are more than 50 policies or templates', () => {
      const names = Array.from({ length: 51 }, (_, i) => `v${i}`);
      const tooMany = withClaims([deleting(...names)], [claimRJob('job-1', { mounts: names })]);
      assert.deepEqual(rendered(validateJobSet(tooMany)), ['spec.volumeClaimPolicies[0].templates: Too many: 51: must have at most 50 items']);
      const policies = withClaims(names.map((name) => deleting(name)), [claimRJob('job-1', { mounts: names })]);
      assert.deepEqual(rendered(validateJobSet(policies)), ['spec.volumeClaimPolicies: Too many: 51: must have at most 50 items']);
      const namespaced = withClaims([{ templates: [{ metadata: { name: 'v', namespace: 'other' } }] }], [claimRJob('job-1', { mounts: ['v'] })]);
      assert.deepEqual(rendered(validateJobSet(namespaced)), ['spec.volumeClaimPolicies[0]: namespace cannot be set for VolumeClaimPolicies templates']);
    });

    it('the CRD: whenDeleted is Delete or Retain', () => {
      const input = withClaims([{ templates: [template('v')], retentionPolicy: { whenDeleted: 'Keep' as 'Retain' } }], [claimRJob('job-1', { mounts: ['v'] })]);
      assert.deepEqual(rendered(admit(input)), ['spec.volumeClaimPolicies[0].retentionPolicy.whenDeleted: unsupported value "Keep", expected one of: "Delete", "Retain"']);
    });
  });

  describe('a spec field the shipped CRD does not declare', () => {
    it('is refused by name, whatever its value (upstream main\'s spec.scheduling here)', () => {
      const base = upstreamJobSet({ replicatedJobs: [upstreamRJob('driver')] });
      const jobSet: JobSet = { ...base, spec: { ...base.spec, scheduling: { policy: { gang: { minCount: 5 } } } } };
      assert.deepEqual(rendered(validateJobSet(jobSet)), [
        'spec.scheduling: field not supported: spec.scheduling is not in the JobSet v1alpha2 CRD Lineup ships (upstream v0.12.0), so Lineup cannot honour it; remove it or use a Lineup that supports it',
      ]);
    });
  });

  describe('test/integration/webhook/jobset_webhook_test.go', () => {
    // The webhook suite creates JobSets against CRD + webhook: schema, defaults, validation.
    const plainRJob = (name: string, dependsOn?: DependsOn[]): ReplicatedJob => ({
      name,
      ...(dependsOn ? { dependsOn } : {}),
      template: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'test-container', image: 'busybox:latest' }] } } } },
    });
    const integrationJobSet = (spec: Partial<JobSet['spec']>): JobSet => ({
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: { name: 'depends-on', namespace: 'test-ns' },
      spec: { replicatedJobs: [], network: {}, ...spec },
    });
    /** withStatus: the JobSet as raw input, every dependsOn item's status replaced (a value the types forbid). */
    const withStatus = (jobSet: JobSet, status: string): unknown => ({
      ...jobSet,
      spec: {
        ...jobSet.spec,
        replicatedJobs: (jobSet.spec.replicatedJobs ?? []).map((r) => (r.dependsOn ? { ...r, dependsOn: r.dependsOn.map((d) => ({ ...d, status })) } : r)),
      },
    });
    const cases: { name: string; input: unknown; want: FieldError[] }[] = [
      {
        name: 'jobset webhook tests: DependsOn and StartupPolicy: AnyOrder can be set together',
        input: integrationJobSet({ startupPolicy: { startupPolicyOrder: 'AnyOrder' }, replicatedJobs: [plainRJob('rjob-1'), plainRJob('rjob-2', [ready('rjob-1')])] }),
        want: [],
      },
      {
        name: "jobset webhook tests: DependsOn and StartupPolicy: InOrder can't be set together",
        input: integrationJobSet({ startupPolicy: { startupPolicyOrder: 'InOrder' }, replicatedJobs: [plainRJob('rjob-1'), plainRJob('rjob-2', [ready('rjob-1')])] }),
        want: [{ path: 'spec', message: 'StartupPolicy and DependsOn APIs are mutually exclusive' }],
      },
      {
        name: "jobset webhook tests: DependsOn can't be set for the first ReplicatedJob",
        input: integrationJobSet({ replicatedJobs: [plainRJob('rjob-1', [ready('rjob-1')])] }),
        want: [
          { path: 'spec.replicatedJobs[0].dependsOn', message: "DependsOn can't be set for the first ReplicatedJob" },
          // Lineup also names the self-dependency (upstream admits it on a later replicatedJob).
          {
            path: 'spec.replicatedJobs[0].dependsOn[0].name',
            message: 'replicatedJob: rjob-1 cannot depend on itself (upstream admits this and the replicatedJob never starts; Lineup rejects it)',
          },
        ],
      },
      {
        name: 'jobset webhook tests: DependsOn list must contain valid ReplicatedJob status',
        input: withStatus(integrationJobSet({ replicatedJobs: [plainRJob('rjob-1'), plainRJob('rjob-2', [ready('rjob-1')])] }), 'Failed'),
        want: [{ path: 'spec.replicatedJobs[1].dependsOn[0].status', message: 'unsupported value "Failed", expected one of: "Ready", "Complete"' }],
      },
      {
        name: 'jobset webhook tests: JobSet can create with no replicated jobs',
        input: integrationJobSet({}),
        want: [],
      },
      {
        name: 'jobset webhook tests: negative replicated job replicas are rejected',
        input: integrationJobSet({ replicatedJobs: [{ ...plainRJob('negative-replicas'), replicas: -1 }] }),
        want: [{ path: 'spec.replicatedJobs[0].replicas', message: 'must be 0 or more, got -1' }],
      },
      {
        name: 'jobset webhook tests: zero replicated job replicas are accepted',
        input: integrationJobSet({ replicatedJobs: [{ ...plainRJob('zero-replicas'), replicas: 0 }] }),
        want: [],
      },
      {
        name: 'jobset webhook tests: success policy with invalid replicatedJob name is rejected',
        input: integrationJobSet({ successPolicy: { operator: 'All', targetReplicatedJobs: ['does-not-exist'] }, replicatedJobs: [plainRJob('rjob')] }),
        want: [{ path: 'spec.successPolicy.targetReplicatedJobs[0]', message: "invalid replicatedJob name 'does-not-exist' does not appear in .spec.ReplicatedJobs" }],
      },
      {
        name: 'jobset webhook tests: VolumeClaimPolicies template with namespace should be rejected',
        input: integrationJobSet({
          volumeClaimPolicies: [{ templates: [{ metadata: { name: 'test-volume', namespace: 'invalid-namespace' }, spec: {} }] }],
          replicatedJobs: [
            { ...plainRJob('rjob'), template: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', volumeMounts: [{ name: 'test-volume', mountPath: '/v' }] }] } } } } },
          ],
        }),
        want: [{ path: 'spec.volumeClaimPolicies[0]', message: 'namespace cannot be set for VolumeClaimPolicies templates' }],
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        assert.deepEqual(admit(tc.input), tc.want);
      });
    }
  });

  describe('Lineup rules', () => {
    const rules = (text: string) => makeJobSet('js').annotation('lineup.dev/startup-rules', text);
    const cases: { name: string; jobSet: JobSet; want: FieldError[] }[] = [
      {
        name: 'a self-dependency is rejected (upstream admits it and the replicatedJob never starts)',
        jobSet: makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [ready('b')] }).obj(),
        want: [{ path: 'spec.replicatedJobs[1].dependsOn[0].name', message: 'replicatedJob: b cannot depend on itself (upstream admits this and the replicatedJob never starts; Lineup rejects it)' }],
      },
      {
        name: 'a forward reference is rejected, naming the replicatedJob declared later and where',
        jobSet: makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [ready('c')] }).replicatedJob('c', 1).obj(),
        want: [
          {
            path: 'spec.replicatedJobs[1].dependsOn[0].name',
            message: 'dependsOn names c, which is declared after b (spec.replicatedJobs[2]): a replicatedJob may depend only on one declared before it',
          },
        ],
      },
      {
        name: 'a name that is no replicatedJob is rejected, listing the replicatedJobs there are',
        jobSet: makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [ready('ghost')] }).obj(),
        want: [{ path: 'spec.replicatedJobs[1].dependsOn[0].name', message: 'dependsOn names ghost, which is not a replicatedJob of this JobSet; the replicatedJobs are a, b' }],
      },
      {
        name: 'a cycle of two is rejected once, where the forward reference closes it, naming both',
        jobSet: makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [ready('c')] }).replicatedJob('c', 1, { dependsOn: [ready('b')] }).obj(),
        want: [
          {
            path: 'spec.replicatedJobs[1].dependsOn[0].name',
            message:
              'dependsOn names c, which leads back to b: a cycle b → c → b, whose replicatedJobs would wait for each other forever (a replicatedJob may depend only on one declared before it)',
          },
        ],
      },
      {
        name: 'a longer cycle is named by its shortest way round, every replicatedJob of it in order',
        jobSet: makeJobSet('js')
          .replicatedJob('a', 1)
          .replicatedJob('b', 1, { dependsOn: [ready('e')] })
          .replicatedJob('c', 1, { dependsOn: [ready('b')] })
          .replicatedJob('d', 1, { dependsOn: [ready('c'), ready('a')] })
          .replicatedJob('e', 1, { dependsOn: [ready('a'), ready('d')] })
          .obj(),
        want: [
          {
            path: 'spec.replicatedJobs[1].dependsOn[0].name',
            message:
              'dependsOn names e, which leads back to b: a cycle b → e → d → c → b, whose replicatedJobs would wait for each other forever (a replicatedJob may depend only on one declared before it)',
          },
        ],
      },
      {
        name: 'a forward reference beside a cycle elsewhere is only a forward reference',
        jobSet: makeJobSet('js')
          .replicatedJob('a', 1, { dependsOn: [ready('b')] })
          .replicatedJob('b', 1, { dependsOn: [ready('a')] })
          .replicatedJob('c', 1, { dependsOn: [ready('d')] })
          .replicatedJob('d', 1, { dependsOn: [ready('b')] })
          .obj(),
        want: [
          { path: 'spec.replicatedJobs[0].dependsOn', message: "DependsOn can't be set for the first ReplicatedJob" },
          {
            path: 'spec.replicatedJobs[0].dependsOn[0].name',
            message:
              'dependsOn names b, which leads back to a: a cycle a → b → a, whose replicatedJobs would wait for each other forever (a replicatedJob may depend only on one declared before it)',
          },
          {
            path: 'spec.replicatedJobs[2].dependsOn[0].name',
            message: 'dependsOn names d, which is declared after c (spec.replicatedJobs[3]): a replicatedJob may depend only on one declared before it',
          },
        ],
      },
      {
        name: 'six dependencies are more than the CRD allows',
        jobSet: ['a', 'b', 'c', 'd', 'e', 'f']
          .reduce((builder, name) => builder.replicatedJob(name, 1), makeJobSet('js'))
          .replicatedJob('g', 1, { dependsOn: ['a', 'b', 'c', 'd', 'e', 'f'].map(ready) })
          .obj(),
        want: [{ path: 'spec.replicatedJobs[6].dependsOn', message: 'dependsOn has 6 items, expected at most 5' }],
      },
      {
        name: 'five dependencies are accepted',
        jobSet: ['a', 'b', 'c', 'd', 'e']
          .reduce((builder, name) => builder.replicatedJob(name, 1), makeJobSet('js'))
          .replicatedJob('g', 1, { dependsOn: ['a', 'b', 'c', 'd', 'e'].map(complete) })
          .obj(),
        want: [],
      },
      {
        name: 'a dependsOn name listed twice is a duplicate list-map key',
        jobSet: makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [ready('a'), complete('a')] }).obj(),
        want: [{ path: 'spec.replicatedJobs[1].dependsOn[1].name', message: 'duplicate dependsOn name "a", already listed at dependsOn[0]' }],
      },
      {
        name: 'two replicatedJobs with one name',
        jobSet: makeJobSet('js').replicatedJob('a', 1).replicatedJob('a', 2).obj(),
        want: [{ path: 'spec.replicatedJobs[1].name', message: 'duplicate replicatedJob name "a", already used by spec.replicatedJobs[0]' }],
      },
      {
        name: 'negative replicas',
        jobSet: makeJobSet('js').replicatedJob('a', -1).obj(),
        want: [{ path: 'spec.replicatedJobs[0].replicas', message: 'must be 0 or more, got -1' }],
      },
      {
        name: 'negative parallelism',
        jobSet: makeJobSet('js').replicatedJob('a', 1, { parallelism: -2, completions: 1 }).obj(),
        want: [{ path: 'spec.replicatedJobs[0].template.spec.parallelism', message: 'must be 0 or more, got -2' }],
      },
      {
        name: 'negative ttlSecondsAfterFinished',
        jobSet: makeJobSet('js').replicatedJob('a', 1).spec({ ttlSecondsAfterFinished: -5 }).obj(),
        want: [{ path: 'spec.ttlSecondsAfterFinished', message: 'must be 0 or more, got -5' }],
      },
      {
        name: 'an empty managedBy is rejected (the upstream controller would treat it as an external manager)',
        jobSet: makeJobSet('js').replicatedJob('a', 1).managedBy('').obj(),
        want: [
          {
            path: 'spec.managedBy',
            message: 'Required value: managedBy is an empty string, expected a domain-prefixed path (such as "acme.io/foo") or no managedBy at all',
          },
        ],
      },
      {
        name: 'a managedBy whose domain is not a DNS subdomain',
        jobSet: makeJobSet('js').replicatedJob('a', 1).managedBy('Lineup_Dev/controller').obj(),
        want: [
          {
            path: 'spec.managedBy',
            message: `Invalid value: "Lineup_Dev": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
          },
        ],
      },
      {
        name: 'a managedBy whose path holds characters a URL path may not',
        jobSet: makeJobSet('js').replicatedJob('a', 1).managedBy('lineup.dev/con troller').obj(),
        want: [{ path: 'spec.managedBy', message: `Invalid value: "con troller": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')` }],
      },
      {
        name: 'a JobSet without name or generateName',
        jobSet: { ...makeJobSet('js').replicatedJob('a', 1).obj(), metadata: { namespace: 'default' } },
        want: [{ path: 'metadata.name', message: 'Required value: name or generateName is required' }],
      },
      {
        name: 'a groupName that is not a DNS-1035 label',
        jobSet: makeJobSet('js').replicatedJob('a', 1, { groupName: 'Group_A' }).obj(),
        want: [{ path: 'spec.replicatedJobs[0].groupName', message: `Invalid value: "Group_A": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')` }],
      },
      {
        name: 'an Indexed Job template with parallelism but no completions (the Job API rejects it)',
        jobSet: makeJobSet('js').replicatedJob('a', 1, { parallelism: 2, jobSpec: { completions: undefined } }).obj(),
        want: [{ path: 'spec.replicatedJobs[0].template.spec.completions', message: 'Required value: when completion mode is Indexed' }],
      },
      {
        name: 'a NonIndexed Job template with parallelism but no completions is a work queue and fine',
        jobSet: makeJobSet('js').replicatedJob('a', 1, { parallelism: 2, jobSpec: { completions: undefined, completionMode: 'NonIndexed' } }).obj(),
        want: [],
      },
      {
        name: 'a subdomain that is neither a DNS-1123 subdomain nor a DNS-1035 label',
        jobSet: makeJobSet('js').replicatedJob('a', 1).spec({ network: { subdomain: 'My_Svc' } }).obj(),
        want: [
          { path: 'spec.network.subdomain', message: `Invalid value: "My_Svc": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` },
          { path: 'spec.network.subdomain', message: `Invalid value: "My_Svc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')` },
        ],
      },
      {
        name: 'failure-policy errors point at the rule field at fault',
        jobSet: makeJobSet('js')
          .replicatedJob('a', 1)
          .spec({ failurePolicy: { rules: [{ action: 'RestartJob', targetReplicatedJobs: ['a', 'b'], onJobFailureReasons: ['OOMKilled'] }] } })
          .obj(),
        want: [
          {
            path: 'spec.failurePolicy.rules[0].action',
            message: 'RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature gate is disabled',
          },
          { path: 'spec.failurePolicy.rules[0].targetReplicatedJobs[1]', message: "invalid replicatedJob name 'b' in failure policy does not appear in .spec.ReplicatedJobs" },
          { path: 'spec.failurePolicy.rules[0].onJobFailureReasons[0]', message: "invalid job failure reason 'OOMKilled' in failure policy is not a recognized job failure reason" },
        ],
      },
      {
        name: 'InPlaceRestart is rejected at the restartStrategy field',
        jobSet: makeJobSet('js').replicatedJob('a', 1).spec({ failurePolicy: { restartStrategy: 'InPlaceRestart' } }).obj(),
        want: [{ path: 'spec.failurePolicy.restartStrategy', message: 'InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled' }],
      },
      {
        name: 'startup rules naming known replicatedJobs once are accepted',
        jobSet: rules('- {targetReplicatedJobs: [a], status: Succeeded}\n- {name: b, status: Ready}').replicatedJob('a', 2).replicatedJob('b', 1).replicatedJob('c', 4).obj(),
        want: [],
      },
      {
        name: 'startup rules with an explicit AnyOrder are accepted',
        jobSet: rules('[{name: a, status: Ready}]').replicatedJob('a', 1).replicatedJob('b', 1).anyOrder().obj(),
        want: [],
      },
      {
        name: 'startup rules that are not a list',
        jobSet: rules('a then b').replicatedJob('a', 1).replicatedJob('b', 1).obj(),
        want: [
          {
            path: STARTUP_RULES_PATH,
            message: 'expected a list of rules ({targetReplicatedJobs: [names], status} or {name, status}), got the string "a then b"',
          },
        ],
      },
      {
        name: 'startup rules naming an unknown replicatedJob',
        jobSet: rules('- {targetReplicatedJobs: [a, x], status: Ready}').replicatedJob('a', 1).replicatedJob('b', 1).obj(),
        want: [{ path: `${STARTUP_RULES_PATH}[0].targetReplicatedJobs[1]`, message: 'replicatedJob "x" is not in spec.replicatedJobs, expected one of: a, b' }],
      },
      {
        name: 'a replicatedJob named by two rules',
        jobSet: rules('- {targetReplicatedJobs: [a], status: Ready}\n- {name: a, status: Succeeded}').replicatedJob('a', 1).replicatedJob('b', 1).obj(),
        want: [
          {
            path: `${STARTUP_RULES_PATH}[1].name`,
            message: `replicatedJob "a" is already named at ${STARTUP_RULES_PATH}[0].targetReplicatedJobs[0], expected each replicatedJob in at most one rule, once`,
          },
        ],
      },
      {
        name: 'a replicatedJob named twice in one rule',
        jobSet: rules('- {targetReplicatedJobs: [a, a], status: Ready}').replicatedJob('a', 1).replicatedJob('b', 1).obj(),
        want: [
          {
            path: `${STARTUP_RULES_PATH}[0].targetReplicatedJobs[1]`,
            message: `replicatedJob "a" is already named at ${STARTUP_RULES_PATH}[0].targetReplicatedJobs[0], expected each replicatedJob in at most one rule, once`,
          },
        ],
      },
      {
        name: 'startup rules together with InOrder are two forms at once',
        jobSet: rules('[{name: a, status: Ready}]').replicatedJob('a', 1).replicatedJob('b', 1).inOrder().obj(),
        want: [{ path: STARTUP_RULES_PATH, message: 'two startup forms at once: the lineup.dev/startup-rules annotation and startupPolicyOrder InOrder, expected only one' }],
      },
      {
        name: 'startup rules together with dependsOn are two forms at once',
        jobSet: rules('[{name: a, status: Ready}]').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [ready('a')] }).obj(),
        want: [{ path: STARTUP_RULES_PATH, message: 'two startup forms at once: the lineup.dev/startup-rules annotation and dependsOn on replicatedJob b, expected only one' }],
      },
      {
        name: 'unparseable startup rules with InOrder report both problems',
        jobSet: rules('[]').replicatedJob('a', 1).inOrder().obj(),
        want: [
          { path: STARTUP_RULES_PATH, message: 'expected at least one rule, got an empty list' },
          { path: STARTUP_RULES_PATH, message: 'two startup forms at once: the lineup.dev/startup-rules annotation and startupPolicyOrder InOrder, expected only one' },
        ],
      },
      {
        name: 'every error is reported, not only the first',
        jobSet: makeJobSet('js')
          .replicatedJob('a', -1, { dependsOn: [ready('z')] })
          .replicatedJob('b', 1, { dependsOn: [ready('b')] })
          .spec({ ttlSecondsAfterFinished: -1 })
          .obj(),
        want: [
          { path: 'spec.replicatedJobs[0].dependsOn', message: "DependsOn can't be set for the first ReplicatedJob" },
          { path: 'spec.ttlSecondsAfterFinished', message: 'must be 0 or more, got -1' },
          { path: 'spec.replicatedJobs[0].replicas', message: 'must be 0 or more, got -1' },
          { path: 'spec.replicatedJobs[0].dependsOn[0].name', message: 'dependsOn names z, which is not a replicatedJob of this JobSet; the replicatedJobs are a, b' },
          { path: 'spec.replicatedJobs[1].dependsOn[0].name', message: 'replicatedJob: b cannot depend on itself (upstream admits this and the replicatedJob never starts; Lineup rejects it)' },
        ],
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        assert.deepEqual(validateJobSet(applyDefaults(tc.jobSet)), tc.want);
      });
    }

    it('guards the dependsOn status of JobSets built in code (the schema guards parsed ones)', () => {
      // Prepare: widen the status field to write a value its type forbids.
      const jobSet = makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [ready('a')] }).obj();
      const dependency: { status: string } | undefined = jobSet.spec.replicatedJobs?.[1]?.dependsOn?.[0];
      assert.ok(dependency);
      dependency.status = 'Failed';
      // Act
      const errors = validateJobSet(applyDefaults(jobSet));
      // Assess
      assert.deepEqual(errors, [{ path: 'spec.replicatedJobs[1].dependsOn[0].status', message: 'unsupported dependsOn status "Failed", expected one of: Ready, Complete' }]);
    });
  });

  describe('dependsOn properties', () => {
    const MAX_RJOBS = 8;
    /** dagArb: for each replicatedJob after the first, up to 5 distinct earlier ones it depends on. */
    const dagArb = (minRJobs: number) =>
      fc.integer({ min: minRJobs, max: MAX_RJOBS }).chain((count) =>
        fc.tuple(
          ...Array.from({ length: count }, (_, i) =>
            fc.uniqueArray(fc.record({ target: fc.nat({ max: Math.max(0, i - 1) }), status: fc.constantFrom('Ready' as const, 'Complete' as const) }), {
              selector: (dep) => dep.target,
              maxLength: i === 0 ? 0 : Math.min(5, i),
            }),
          ),
        ),
      );
    type Dag = readonly (readonly { target: number; status: 'Ready' | 'Complete' }[])[];
    const name = (i: number): string => `rj-${i}`;
    const build = (dag: Dag): JobSet =>
      dag
        .reduce(
          (builder, deps, i) =>
            builder.replicatedJob(name(i), 1, deps.length > 0 ? { dependsOn: deps.map((dep) => ({ name: name(dep.target), status: dep.status })) } : {}),
          makeJobSet('js'),
        )
        .obj();

    it('reports nothing for a random DAG where each replicatedJob depends only on earlier ones', () => {
      fc.assert(
        fc.property(dagArb(1), (dag) => {
          assert.deepEqual(validateJobSet(applyDefaults(build(dag))), []);
        }),
      );
    });

    /** reaches: whether a chain of dependsOn leads from replicatedJob `from` to `to` (the test's own walk, depth first). */
    const reaches = (dag: Dag, from: number, to: number): boolean => {
      const seen = new Set<number>();
      const walk = (at: number): boolean => at === to || (!seen.has(at) && (seen.add(at), (dag[at] ?? []).some((dep) => walk(dep.target))));
      return walk(from);
    };

    it('reports exactly the forward reference added to a random valid DAG, as a cycle when the later one leads back', () => {
      const caseArb = dagArb(3).chain((dag) =>
        fc.record({
          dag: fc.constant(dag),
          from: fc.integer({ min: 1, max: dag.length - 2 }),
          ahead: fc.integer({ min: 1, max: dag.length - 2 }),
          status: fc.constantFrom('Ready' as const, 'Complete' as const),
        }),
      );
      fc.assert(
        fc.property(caseArb, ({ dag, from, ahead, status }) => {
          // Prepare: rj-<from> also depends on a later rj-<to>, keeping at most 5 items.
          const to = Math.min(from + ahead, dag.length - 1);
          const deps = [...(dag[from] ?? [])].slice(0, 4);
          const jobSet = build(dag.map((d, i) => (i === from ? deps : d)));
          const rjob = jobSet.spec.replicatedJobs?.[from];
          assert.ok(rjob);
          rjob.dependsOn = [...(rjob.dependsOn ?? []), { name: name(to), status }];
          const cyclic = reaches(dag, to, from);
          // Act
          const errors = validateJobSet(applyDefaults(jobSet));
          // Assess
          assert.equal(errors.length, 1, JSON.stringify(errors));
          const [error] = errors;
          assert.equal(error?.path, `spec.replicatedJobs[${from}].dependsOn[${deps.length}].name`);
          if (!cyclic) {
            assert.equal(error.message, `dependsOn names ${name(to)}, which is declared after ${name(from)} (spec.replicatedJobs[${to}]): a replicatedJob may depend only on one declared before it`);
            return;
          }
          const cycle = /^dependsOn names (\S+), which leads back to (\S+): a cycle (.+), whose replicatedJobs would wait for each other forever/.exec(error.message);
          assert.ok(cycle, error.message);
          assert.deepEqual([cycle[1], cycle[2]], [name(to), name(from)]);
          // The cycle runs from `from` through `to` back to `from`, each step a dependsOn that is there.
          const steps = (cycle[3] ?? '').split(' → ').map((step) => Number(step.slice('rj-'.length)));
          assert.deepEqual([steps[0], steps[1], steps.at(-1)], [from, to, from]);
          for (let i = 1; i + 1 < steps.length; i++) assert.ok((dag[steps[i] ?? -1] ?? []).some((dep) => dep.target === steps[i + 1]), error.message);
        }),
      );
    });
  });

  describe('size: the most Jobs and Pods the controller accepts (Lineup)', () => {
    it('rejects more Jobs than the default 10,000 in one error naming the bound and its variable', () => {
      const jobSet = makeJobSet('big').replicatedJob('a', 10_001).obj();
      assert.deepEqual(rendered(validateJobSet(applyDefaults(jobSet))), [
        'spec.replicatedJobs: JobSet makes 10001 Jobs, more than the 10000 this controller accepts (LINEUP_MAX_JOBS_PER_JOBSET)',
      ]);
    });

    it('rejects more Pods than the default 100,000, counting parallelism', () => {
      const jobSet = makeJobSet('wide').replicatedJob('a', 2, { parallelism: 50_001, completions: 50_001 }).obj();
      assert.deepEqual(rendered(validateJobSet(applyDefaults(jobSet))), [
        'spec.replicatedJobs: JobSet makes 100002 Pods, more than the 100000 this controller accepts (LINEUP_MAX_PODS_PER_JOBSET)',
      ]);
    });

    it('says both bounds in one line when both are passed', () => {
      const jobSet = makeJobSet('huge').replicatedJob('a', 100_001).obj();
      assert.deepEqual(rendered(validateJobSet(applyDefaults(jobSet))), [
        'spec.replicatedJobs: JobSet makes 100001 Jobs and 100001 Pods, more than the 10000 Jobs (LINEUP_MAX_JOBS_PER_JOBSET) and 100000 Pods (LINEUP_MAX_PODS_PER_JOBSET) this controller accepts',
      ]);
    });

    it('accepts a JobSet at the bounds, and applies the bounds it is given', () => {
      const jobSet = makeJobSet('edge').replicatedJob('a', 9_000).replicatedJob('b', 1_000, { parallelism: 91, completions: 91 }).obj();
      assert.deepEqual(validateJobSet(applyDefaults(jobSet)), []);
      assert.deepEqual(rendered(validateJobSet(applyDefaults(jobSet), { maxJobs: 9_999, maxPods: 1_000_000 })), [
        'spec.replicatedJobs: JobSet makes 10000 Jobs, more than the 9999 this controller accepts (LINEUP_MAX_JOBS_PER_JOBSET)',
      ]);
    });
  });
});
