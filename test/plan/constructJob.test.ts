/**
 * Child Job and headless Service construction (upstream constructJobsFromTemplate, constructJob,
 * labelAndAnnotateObject, createHeadlessSvcIfNecessary and the global/group index helpers).
 *
 * Jobs are taken from the CreateJob actions of one plan() pass over an observed state, so the
 * name-based skip, BlockingRecreate and spec.suspend are exercised as the planner runs them.
 * plan() applies the webhook defaults first, so every fixture is written fully defaulted
 * (completionMode Indexed, groupName, network) and the expected Job differs from its template
 * only by what construction adds.
 *
 * Not ported from TestConstructJobsFromTemplate: "volume-claim-policies" (Lineup does not
 * implement spec.volumeClaimPolicies), "JobRestartAttempt based on ReplicatedJobsStatus" and
 * "JobRestartAttempt not added when RestartJob feature is disabled" (the RestartJob feature gate
 * and its job-restart-attempt key; Lineup behaves as upstream with the gate off, so no Job here
 * carries that key).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Job, JobSet, OwnerReference, ReplicatedJob, Service } from '../../lib/jobset/schema.ts';
import { constructJob, dnsHostnamesEnabled, headlessService, replicaLayout } from '../../lib/plan/constructJob.ts';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../lib/plan/planner.ts';
import type { Action, Plan } from '../../lib/plan/types.ts';
import { makeJobSet } from '../builders.ts';

const jobSetName = 'test-jobset';
const ns = 'default';
const topologyDomain = 'test-topology-domain';
const now = Date.parse('2026-01-01T00:00:00Z');

const ownerReference: OwnerReference = {
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  name: jobSetName,
  uid: `uid-${jobSetName}`,
  controller: true,
  blockOwnerDeletion: true,
};

const jobAnnotations = { 'job-annotation-key1': 'job-annotation-value1', 'job-annotation-key2': 'job-annotation-value2' };
const jobLabels = { 'job-label-key1': 'job-label-value1', 'job-label-key2': 'job-label-value2' };
const podAnnotations = { 'pod-annotation-key1': 'pod-annotation-value1', 'pod-annotation-key2': 'pod-annotation-value2' };
const podLabels = { 'pod-label-key1': 'pod-label-value1', 'pod-label-key2': 'pod-label-value2' };

/** The pod spec every template starts from. */
const basePodSpec = (): NonNullable<Job['spec']['template']['spec']> => ({
  restartPolicy: 'Never',
  containers: [{ name: 'test-container', image: 'busybox:latest' }],
});

interface TemplateArgs {
  readonly replicas: number;
  readonly groupName?: string;
  readonly jobLabels?: Record<string, string>;
  readonly jobAnnotations?: Record<string, string>;
  readonly podLabels?: Record<string, string>;
  readonly podAnnotations?: Record<string, string>;
  readonly ttlSecondsAfterFinished?: number;
}

/** replicatedJob: upstream MakeReplicatedJob(name).Job(MakeJobTemplate(...)…), already defaulted. */
const replicatedJob = (name: string, args: TemplateArgs): ReplicatedJob => {
  const rjob: ReplicatedJob = {
    name,
    replicas: args.replicas,
    groupName: args.groupName ?? 'default',
    template: {
      spec: { parallelism: 1, completions: 1, completionMode: 'Indexed', template: { spec: basePodSpec() } },
    },
  };
  if (args.jobLabels || args.jobAnnotations) {
    rjob.template.metadata = {};
    if (args.jobLabels) rjob.template.metadata.labels = { ...args.jobLabels };
    if (args.jobAnnotations) rjob.template.metadata.annotations = { ...args.jobAnnotations };
  }
  if (args.podLabels || args.podAnnotations) {
    rjob.template.spec.template.metadata = {};
    if (args.podLabels) rjob.template.spec.template.metadata.labels = { ...args.podLabels };
    if (args.podAnnotations) rjob.template.spec.template.metadata.annotations = { ...args.podAnnotations };
  }
  if (args.ttlSecondsAfterFinished !== undefined) rjob.template.spec.ttlSecondsAfterFinished = args.ttlSecondsAfterFinished;
  return rjob;
};

/** sha1: the job-key value, computed here independently of lib/jobset/keys.ts. */
const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

interface WantArgs {
  readonly replicatedJob: string;
  readonly index: number;
  readonly replicas: number;
  readonly globalReplicas: number;
  readonly globalIndex: number;
  readonly groupName?: string;
  readonly groupReplicas: number;
  readonly groupIndex: number;
  readonly restarts?: number;
  readonly suspend: boolean;
  readonly subdomain?: string;
  readonly jobLabels?: Record<string, string>;
  readonly jobAnnotations?: Record<string, string>;
  readonly podLabels?: Record<string, string>;
  readonly podAnnotations?: Record<string, string>;
  readonly topology?: string;
  readonly nodeSelectorStrategy?: boolean;
  readonly coordinator?: string;
}

/**
 * wantJob: the Job upstream builds (its test helper makeJob plus the global/group keys), with
 * the controller ownerReference upstream's createJobs adds before creating it.
 */
const wantJob = (a: WantArgs): Job => {
  const name = `${jobSetName}-${a.replicatedJob}-${a.index}`;
  const keys: Record<string, string> = {
    'jobset.sigs.k8s.io/jobset-name': jobSetName,
    'jobset.sigs.k8s.io/jobset-uid': `uid-${jobSetName}`,
    'jobset.sigs.k8s.io/replicatedjob-name': a.replicatedJob,
    'jobset.sigs.k8s.io/restart-attempt': String(a.restarts ?? 0),
    'jobset.sigs.k8s.io/replicatedjob-replicas': String(a.replicas),
    'jobset.sigs.k8s.io/global-replicas': String(a.globalReplicas),
    'jobset.sigs.k8s.io/job-index': String(a.index),
    'jobset.sigs.k8s.io/job-key': sha1(`${ns}/${name}`),
    'jobset.sigs.k8s.io/job-global-index': String(a.globalIndex),
    'jobset.sigs.k8s.io/group-name': a.groupName ?? 'default',
    'jobset.sigs.k8s.io/group-replicas': String(a.groupReplicas),
    'jobset.sigs.k8s.io/job-group-index': String(a.groupIndex),
  };
  if (a.coordinator !== undefined) keys['jobset.sigs.k8s.io/coordinator'] = a.coordinator;
  // Annotation only, on the Job and its pods.
  const exclusive: Record<string, string> = {};
  if (a.topology !== undefined) {
    exclusive['alpha.jobset.sigs.k8s.io/exclusive-topology'] = a.topology;
    if (a.nodeSelectorStrategy) exclusive['alpha.jobset.sigs.k8s.io/node-selector'] = 'true';
  }
  const podSpec = basePodSpec();
  if (a.subdomain !== undefined) podSpec.subdomain = a.subdomain;
  if (a.nodeSelectorStrategy) {
    podSpec.nodeSelector = { 'alpha.jobset.sigs.k8s.io/namespaced-job': `${ns}_${name}` };
    podSpec.tolerations = [{ key: 'alpha.jobset.sigs.k8s.io/no-schedule', operator: 'Exists', effect: 'NoSchedule' }];
  }
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: ns,
      labels: { ...a.jobLabels, ...keys },
      annotations: { ...a.jobAnnotations, ...keys, ...exclusive },
      ownerReferences: [ownerReference],
    },
    spec: {
      parallelism: 1,
      completions: 1,
      completionMode: 'Indexed',
      suspend: a.suspend,
      template: {
        metadata: { labels: { ...a.podLabels, ...keys }, annotations: { ...a.podAnnotations, ...keys, ...exclusive } },
        spec: podSpec,
      },
    },
  };
};

type JobState = 'active' | 'succeeded' | 'failed' | 'previous';

/** ownedJob: a Job this JobSet already owns, in the bucket a case needs. */
const ownedJob = (replicatedJobName: string, index: number, state: JobState): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: `${jobSetName}-${replicatedJobName}-${index}`,
    namespace: ns,
    uid: `uid-${replicatedJobName}-${index}`,
    labels: {
      'jobset.sigs.k8s.io/jobset-name': jobSetName,
      'jobset.sigs.k8s.io/replicatedjob-name': replicatedJobName,
      'jobset.sigs.k8s.io/job-index': String(index),
      // Previous-attempt Jobs carry attempt 0 while the JobSet is at attempt 1.
      'jobset.sigs.k8s.io/restart-attempt': state === 'previous' ? '0' : '1',
    },
    ownerReferences: [ownerReference],
  },
  spec: { parallelism: 1, completions: 1, completionMode: 'Indexed', suspend: false, template: { spec: basePodSpec() } },
  status:
    state === 'succeeded'
      ? { succeeded: 1, conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: '2025-12-31T23:00:00Z' }] }
      : state === 'failed'
        ? { failed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', lastTransitionTime: '2025-12-31T23:00:00Z' }] }
        : { active: 1 },
});

/** jobSetWith: the fixture JobSet; upstream's JobSets without network get DNS hostnames off explicitly. */
const jobSetWith = (replicatedJobs: ReplicatedJob[], patch: Partial<JobSet['spec']> = {}, restarts = 1): JobSet =>
  makeJobSet(jobSetName, ns)
    .spec({ replicatedJobs, network: { enableDNSHostnames: false }, ...patch })
    .status({ restarts })
    .obj();

const onePass = (jobSet: JobSet, jobs: Job[] = [], service: Service | undefined = undefined): Plan => {
  const result = plan({ jobSet, jobs, service, now }, DEFAULT_PLAN_OPTIONS);
  assert.doesNotMatch(result.reason, /^rejected/, 'fixture must pass validation');
  return result;
};

const createdJobs = (actions: readonly Action[]): Job[] => actions.flatMap((action) => (action.kind === 'CreateJob' ? [action.job] : []));
const createdServices = (actions: readonly Action[]): Service[] => actions.flatMap((action) => (action.kind === 'CreateService' ? [action.service] : []));

describe('jobset_controller_test.go', () => {
  const rjobName = 'replicated-job';
  const cases: { name: string; jobSet: JobSet; owned: Job[]; want: Job[] }[] = [
    {
      name: 'no jobs created',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 1 })]),
      owned: [ownedJob(rjobName, 0, 'active')],
      want: [],
    },
    {
      name: 'all jobs created',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 2 })]),
      owned: [],
      want: [0, 1].map((index) =>
        wantJob({ replicatedJob: rjobName, index, replicas: 2, globalReplicas: 2, globalIndex: index, groupReplicas: 2, groupIndex: index, restarts: 1, suspend: false }),
      ),
    },
    {
      name: 'all jobs/pods created with labels and annotations',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 2, jobLabels, jobAnnotations, podLabels, podAnnotations })]),
      owned: [],
      // Job metadata gets the Job template's labels/annotations, pod metadata the pod template's;
      // neither gets the other's (upstream constructJob clones only rjob.Template.Labels/Annotations onto the Job).
      want: [0, 1].map((index) =>
        wantJob({
          replicatedJob: rjobName,
          index,
          replicas: 2,
          globalReplicas: 2,
          globalIndex: index,
          groupReplicas: 2,
          groupIndex: index,
          restarts: 1,
          suspend: false,
          jobLabels,
          jobAnnotations,
          podLabels,
          podAnnotations,
        }),
      ),
    },
    {
      name: 'one job created, one job not created (already active)',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 2 })]),
      owned: [ownedJob(rjobName, 0, 'active')],
      want: [wantJob({ replicatedJob: rjobName, index: 1, replicas: 2, globalReplicas: 2, globalIndex: 1, groupReplicas: 2, groupIndex: 1, restarts: 1, suspend: false })],
    },
    {
      name: 'one job created, one job not created (already succeeded)',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 2 })]),
      owned: [ownedJob(rjobName, 0, 'succeeded')],
      want: [wantJob({ replicatedJob: rjobName, index: 1, replicas: 2, globalReplicas: 2, globalIndex: 1, groupReplicas: 2, groupIndex: 1, restarts: 1, suspend: false })],
    },
    {
      // Upstream calls constructJobsFromTemplate with a failed Job directly. In a reconcile pass
      // (upstream's and Lineup's) a failed Job sends the pass to the failure policy, which ends it
      // before any Job is built — here the JobSet fails (no failurePolicy), so nothing is created.
      name: 'one job created, one job not created (already failed)',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 2 })]),
      owned: [ownedJob(rjobName, 0, 'failed')],
      want: [],
    },
    {
      // Upstream's "marked for deletion" is the previous bucket: a Job of an earlier restart attempt.
      name: 'one job created, one job not created (marked for deletion)',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 2 })]),
      owned: [ownedJob(rjobName, 0, 'previous')],
      want: [wantJob({ replicatedJob: rjobName, index: 1, replicas: 2, globalReplicas: 2, globalIndex: 1, groupReplicas: 2, groupIndex: 1, restarts: 1, suspend: false })],
    },
    {
      name: 'job creation blocked until all previous jobs no longer exist',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 2 })], { failurePolicy: { restartStrategy: 'BlockingRecreate' } }),
      owned: [ownedJob(rjobName, 0, 'previous')],
      want: [],
    },
    {
      // Upstream names these replicatedJobs "replicated-job-A"/"-B"; the Job names built from them
      // are not DNS-1035 labels, which the webhook (and Lineup's validation before any Job is
      // built) rejects, so every port with A/B lowercases them.
      name: 'multiple replicated jobs',
      jobSet: jobSetWith([replicatedJob('replicated-job-a', { replicas: 1 }), replicatedJob('replicated-job-b', { replicas: 2 })]),
      owned: [ownedJob('replicated-job-b', 0, 'active')],
      want: [
        wantJob({ replicatedJob: 'replicated-job-a', index: 0, replicas: 1, globalReplicas: 3, globalIndex: 0, groupReplicas: 3, groupIndex: 0, restarts: 1, suspend: false }),
        wantJob({ replicatedJob: 'replicated-job-b', index: 1, replicas: 2, globalReplicas: 3, globalIndex: 2, groupReplicas: 3, groupIndex: 2, restarts: 1, suspend: false }),
      ],
    },
    {
      name: 'exclusive placement for a ReplicatedJob',
      jobSet: jobSetWith([
        replicatedJob('replicated-job-a', { replicas: 1, jobAnnotations: { 'alpha.jobset.sigs.k8s.io/exclusive-topology': topologyDomain } }),
        replicatedJob('replicated-job-b', { replicas: 1 }),
      ]),
      owned: [],
      want: [
        wantJob({ replicatedJob: 'replicated-job-a', index: 0, replicas: 1, globalReplicas: 2, globalIndex: 0, groupReplicas: 2, groupIndex: 0, restarts: 1, suspend: false, topology: topologyDomain }),
        wantJob({ replicatedJob: 'replicated-job-b', index: 0, replicas: 1, globalReplicas: 2, globalIndex: 1, groupReplicas: 2, groupIndex: 1, restarts: 1, suspend: false }),
      ],
    },
    {
      name: 'exclusive placement using nodeSelectorStrategy for a ReplicatedJob',
      jobSet: jobSetWith([
        replicatedJob('replicated-job-a', {
          replicas: 1,
          jobAnnotations: {
            'alpha.jobset.sigs.k8s.io/exclusive-topology': topologyDomain,
            'alpha.jobset.sigs.k8s.io/node-selector': 'true',
            'jobset.sigs.k8s.io/group-name': 'default',
          },
        }),
        replicatedJob('replicated-job-b', { replicas: 1, jobAnnotations: { 'jobset.sigs.k8s.io/group-name': 'default' } }),
      ]),
      owned: [],
      want: [
        wantJob({
          replicatedJob: 'replicated-job-a',
          index: 0,
          replicas: 1,
          globalReplicas: 2,
          globalIndex: 0,
          groupReplicas: 2,
          groupIndex: 0,
          restarts: 1,
          suspend: false,
          topology: topologyDomain,
          nodeSelectorStrategy: true,
        }),
        wantJob({ replicatedJob: 'replicated-job-b', index: 0, replicas: 1, globalReplicas: 2, globalIndex: 1, groupReplicas: 2, groupIndex: 1, restarts: 1, suspend: false }),
      ],
    },
    {
      name: 'exclusive placement for entire JobSet',
      jobSet: (() => {
        const js = jobSetWith([replicatedJob('replicated-job-a', { replicas: 1 }), replicatedJob('replicated-job-b', { replicas: 1 })]);
        js.metadata.annotations = { 'alpha.jobset.sigs.k8s.io/exclusive-topology': topologyDomain };
        return js;
      })(),
      owned: [],
      want: [
        wantJob({ replicatedJob: 'replicated-job-a', index: 0, replicas: 1, globalReplicas: 2, globalIndex: 0, groupReplicas: 2, groupIndex: 0, restarts: 1, suspend: false, topology: topologyDomain }),
        wantJob({ replicatedJob: 'replicated-job-b', index: 0, replicas: 1, globalReplicas: 2, globalIndex: 1, groupReplicas: 2, groupIndex: 1, restarts: 1, suspend: false, topology: topologyDomain }),
      ],
    },
    {
      // Upstream leaves groupName unset here and expects an empty group-name; the CRD defaults it
      // to "default" on any real cluster, and Lineup applies that default, so "default" is expected.
      name: 'exclusive placement using nodeSelectorStrategy for entire JobSet',
      jobSet: (() => {
        const js = jobSetWith([replicatedJob('replicated-job-a', { replicas: 1 }), replicatedJob('replicated-job-b', { replicas: 1 })]);
        for (const rjob of js.spec.replicatedJobs ?? []) delete rjob.groupName;
        js.metadata.annotations = { 'alpha.jobset.sigs.k8s.io/exclusive-topology': topologyDomain, 'alpha.jobset.sigs.k8s.io/node-selector': 'true' };
        return js;
      })(),
      owned: [],
      want: [
        wantJob({
          replicatedJob: 'replicated-job-a',
          index: 0,
          replicas: 1,
          globalReplicas: 2,
          globalIndex: 0,
          groupReplicas: 2,
          groupIndex: 0,
          restarts: 1,
          suspend: false,
          topology: topologyDomain,
          nodeSelectorStrategy: true,
        }),
        wantJob({
          replicatedJob: 'replicated-job-b',
          index: 0,
          replicas: 1,
          globalReplicas: 2,
          globalIndex: 1,
          groupReplicas: 2,
          groupIndex: 1,
          restarts: 1,
          suspend: false,
          topology: topologyDomain,
          nodeSelectorStrategy: true,
        }),
      ],
    },
    {
      name: 'pod dns hostnames enabled',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 1 })], { network: { enableDNSHostnames: true, subdomain: jobSetName } }),
      owned: [],
      want: [wantJob({ replicatedJob: rjobName, index: 0, replicas: 1, globalReplicas: 1, globalIndex: 0, groupReplicas: 1, groupIndex: 0, restarts: 1, suspend: false, subdomain: jobSetName })],
    },
    {
      name: 'suspend job set',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 1 })], { suspend: true, network: { enableDNSHostnames: true, subdomain: jobSetName } }),
      owned: [],
      want: [wantJob({ replicatedJob: rjobName, index: 0, replicas: 1, globalReplicas: 1, globalIndex: 0, groupReplicas: 1, groupIndex: 0, restarts: 1, suspend: true, subdomain: jobSetName })],
    },
    {
      name: 'resume job set',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 1 })], { suspend: false, network: { enableDNSHostnames: true, subdomain: jobSetName } }),
      owned: [],
      want: [wantJob({ replicatedJob: rjobName, index: 0, replicas: 1, globalReplicas: 1, globalIndex: 0, groupReplicas: 1, groupIndex: 0, restarts: 1, suspend: false, subdomain: jobSetName })],
    },
    {
      name: 'node selector exclusive placement strategy enabled',
      jobSet: jobSetWith(
        [
          replicatedJob(rjobName, {
            replicas: 1,
            jobAnnotations: { 'alpha.jobset.sigs.k8s.io/exclusive-topology': topologyDomain, 'alpha.jobset.sigs.k8s.io/node-selector': 'true' },
          }),
        ],
        { network: { enableDNSHostnames: true, subdomain: jobSetName } },
      ),
      owned: [],
      want: [
        wantJob({
          replicatedJob: rjobName,
          index: 0,
          replicas: 1,
          globalReplicas: 1,
          globalIndex: 0,
          groupReplicas: 1,
          groupIndex: 0,
          restarts: 1,
          suspend: false,
          subdomain: jobSetName,
          topology: topologyDomain,
          nodeSelectorStrategy: true,
        }),
      ],
    },
    {
      name: 'coordinator',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 1 })], {
        coordinator: { replicatedJob: rjobName, jobIndex: 0, podIndex: 0 },
        network: { enableDNSHostnames: true, subdomain: jobSetName },
      }),
      owned: [],
      want: [
        wantJob({
          replicatedJob: rjobName,
          index: 0,
          replicas: 1,
          globalReplicas: 1,
          globalIndex: 0,
          groupReplicas: 1,
          groupIndex: 0,
          restarts: 1,
          suspend: false,
          subdomain: jobSetName,
          coordinator: `${jobSetName}-${rjobName}-0-0.${jobSetName}`,
        }),
      ],
    },
    {
      name: 'startup-policy',
      jobSet: jobSetWith([replicatedJob(rjobName, { replicas: 1 })], {
        startupPolicy: { startupPolicyOrder: 'InOrder' },
        network: { enableDNSHostnames: true, subdomain: jobSetName },
      }),
      owned: [],
      want: [wantJob({ replicatedJob: rjobName, index: 0, replicas: 1, globalReplicas: 1, globalIndex: 0, groupReplicas: 1, groupIndex: 0, restarts: 1, suspend: false, subdomain: jobSetName })],
    },
  ];
  for (const tc of cases) {
    it(`TestConstructJobsFromTemplate: ${tc.name}`, () => {
      const got = createdJobs(onePass(tc.jobSet, tc.owned).actions);
      // Names first, so a wrong set of Jobs reads plainly before the field-by-field diff.
      assert.deepEqual(
        got.map((job) => job.metadata.name),
        tc.want.map((job) => job.metadata.name),
      );
      assert.deepEqual(got, tc.want);
    });
  }

  // "headless service creation fails with unexpected error" is not ported here: the planner only
  // decides to create the Service; the executor reports a failed create (Warning event
  // HeadlessServiceCreationFailed, pass aborted) and is tested against the real API server.
  const serviceCases: { name: string; network: JobSet['spec']['network']; existing: boolean; want: Service | undefined }[] = [
    { name: 'headless service exists and should not be created', network: { enableDNSHostnames: true }, existing: true, want: undefined },
    {
      name: 'service does not exist and should be created, subdomain not set',
      network: { enableDNSHostnames: true },
      existing: false,
      want: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'test-jobset', namespace: ns, ownerReferences: [ownerReference] },
        spec: { clusterIP: 'None', selector: { 'jobset.sigs.k8s.io/jobset-name': jobSetName }, publishNotReadyAddresses: true },
      },
    },
    {
      name: 'service does not exist and should be created, subdomain set',
      network: { enableDNSHostnames: true, subdomain: 'test-subdomain' },
      existing: false,
      want: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'test-subdomain', namespace: ns, ownerReferences: [ownerReference] },
        spec: { clusterIP: 'None', selector: { 'jobset.sigs.k8s.io/jobset-name': jobSetName }, publishNotReadyAddresses: true },
      },
    },
    {
      name: 'service does not exist and should be created, publishNotReadyAddresses is false',
      network: { enableDNSHostnames: true, publishNotReadyAddresses: false },
      existing: false,
      want: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'test-jobset', namespace: ns, ownerReferences: [ownerReference] },
        spec: { clusterIP: 'None', selector: { 'jobset.sigs.k8s.io/jobset-name': jobSetName }, publishNotReadyAddresses: false },
      },
    },
    {
      name: 'service does not exist and should be created, publishNotReadyAddresses is true',
      network: { enableDNSHostnames: true, publishNotReadyAddresses: true },
      existing: false,
      want: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'test-jobset', namespace: ns, ownerReferences: [ownerReference] },
        spec: { clusterIP: 'None', selector: { 'jobset.sigs.k8s.io/jobset-name': jobSetName }, publishNotReadyAddresses: true },
      },
    },
  ];
  for (const tc of serviceCases) {
    it(`TestCreateHeadlessSvcIfNecessary: ${tc.name}`, () => {
      // Prepare: upstream's Service in the "exists" case is not even owned by the JobSet.
      const jobSet = jobSetWith([replicatedJob(rjobName, { replicas: 1 })], { network: tc.network });
      const existing: Service | undefined = tc.existing ? { apiVersion: 'v1', kind: 'Service', metadata: { name: 'test-jobset', namespace: ns } } : undefined;
      // Act
      const got = createdServices(onePass(jobSet, [], existing).actions);
      // Assess
      assert.deepEqual(got, tc.want === undefined ? [] : [tc.want]);
    });
  }

  it('TestCreateHeadlessSvcIfNecessary: jobset created before webhook defaulting should not create headless service', () => {
    // Upstream's controller reads a nil network as DNS hostnames off; dnsHostnamesEnabled does too.
    // plan() applies the webhook defaults first, so such a JobSet gets a Service — see the
    // DEVIATION case under plan/constructJob.
    const jobSet = jobSetWith([replicatedJob(rjobName, { replicas: 1 })]);
    delete jobSet.spec.network;
    assert.equal(dnsHostnamesEnabled(jobSet), false);
    assert.equal(dnsHostnamesEnabled({ ...jobSet, spec: { ...jobSet.spec, network: {} } }), false);
  });

  // Global/group index helpers: upstream's globalJobIndex(js, rjob, idx) and friends are one
  // replicaLayout in Lineup, read by constructJob. Upstream's replicatedJobs without a name get
  // one here (the layout is keyed by name).
  const fixture = (rjobs: { name: string; replicas: number; groupName?: string }[]): ReplicatedJob[] =>
    rjobs.map((r) => replicatedJob(r.name, { replicas: r.replicas, ...(r.groupName === undefined ? {} : { groupName: r.groupName }) }));
  const labelsOf = (replicatedJobs: ReplicatedJob[], rjob: string, index: number): Record<string, string> => {
    const jobSet = jobSetWith(replicatedJobs);
    const target = replicatedJobs.find((r) => r.name === rjob);
    assert.ok(target);
    return constructJob(jobSet, target, index, false, replicaLayout(replicatedJobs)).metadata.labels ?? {};
  };

  const globalIndexCases: { name: string; rjobs: ReplicatedJob[]; replicatedJob: string; jobIdx: number; want: string | undefined }[] = [
    { name: 'single replicated job', rjobs: fixture([{ name: 'rjob', replicas: 3 }]), replicatedJob: 'rjob', jobIdx: 1, want: '1' },
    {
      name: 'multiple replicated jobs',
      rjobs: fixture([
        { name: 'rjob1', replicas: 2 },
        { name: 'rjob2', replicas: 4 },
        { name: 'rjob3', replicas: 1 },
      ]),
      replicatedJob: 'rjob2',
      jobIdx: 3,
      want: '5',
    },
    // Upstream returns "" for an unknown replicatedJob; Lineup's layout has no entry for it and
    // constructJob is only ever called for a replicatedJob of the spec, so no label can be "".
    { name: 'replicated job not found', rjobs: fixture([{ name: 'rjob1', replicas: 2 }]), replicatedJob: 'rjob2', jobIdx: 0, want: undefined },
  ];
  for (const tc of globalIndexCases) {
    it(`TestGlobalJobIndex: ${tc.name}`, () => {
      const offset = replicaLayout(tc.rjobs).globalOffset.get(tc.replicatedJob);
      if (tc.want === undefined) {
        assert.equal(offset, undefined);
        return;
      }
      assert.equal(String((offset ?? Number.NaN) + tc.jobIdx), tc.want);
      assert.equal(labelsOf(tc.rjobs, tc.replicatedJob, tc.jobIdx)['jobset.sigs.k8s.io/job-global-index'], tc.want);
    });
  }

  const globalReplicasCases: { name: string; rjobs: ReplicatedJob[]; want: string }[] = [
    { name: 'empty jobset', rjobs: [], want: '0' },
    { name: 'single replicated job', rjobs: fixture([{ name: 'rjob1', replicas: 3 }]), want: '3' },
    {
      name: 'multiple replicated jobs',
      rjobs: fixture([
        { name: 'rjob1', replicas: 2 },
        { name: 'rjob2', replicas: 5 },
      ]),
      want: '7',
    },
  ];
  for (const tc of globalReplicasCases) {
    it(`TestGlobalReplicas: ${tc.name}`, () => {
      assert.equal(String(replicaLayout(tc.rjobs).globalReplicas), tc.want);
      for (const rjob of tc.rjobs) assert.equal(labelsOf(tc.rjobs, rjob.name, 0)['jobset.sigs.k8s.io/global-replicas'], tc.want);
    });
  }

  // Not ported from TestGroupJobIndex: "replicated job not found in group" and "group doesn't
  // exit" ask for a replicatedJob under a group it is not in. Lineup's layout takes the group
  // from the replicatedJob itself, so that question cannot be asked.
  const groupIndexCases: { name: string; rjobs: ReplicatedJob[]; replicatedJob: string; jobIdx: number; want: string | undefined }[] = [
    { name: 'single replicated job in group', rjobs: fixture([{ name: 'rjob1', groupName: 'groupA', replicas: 3 }]), replicatedJob: 'rjob1', jobIdx: 1, want: '1' },
    {
      name: 'multiple replicated jobs in group',
      rjobs: fixture([
        { name: 'rjob1', groupName: 'groupA', replicas: 1 },
        { name: 'rjob2', groupName: 'groupB', replicas: 2 },
        { name: 'rjob3', groupName: 'groupA', replicas: 3 },
      ]),
      replicatedJob: 'rjob3',
      jobIdx: 1,
      want: '2',
    },
    {
      name: "replicated job doesn't exist",
      rjobs: fixture([
        { name: 'rjob1', groupName: 'groupA', replicas: 2 },
        { name: 'rjob2', groupName: 'groupB', replicas: 4 },
      ]),
      replicatedJob: 'rjob3',
      jobIdx: 0,
      want: undefined,
    },
  ];
  for (const tc of groupIndexCases) {
    it(`TestGroupJobIndex: ${tc.name}`, () => {
      const offset = replicaLayout(tc.rjobs).groupOffset.get(tc.replicatedJob);
      if (tc.want === undefined) {
        assert.equal(offset, undefined);
        return;
      }
      assert.equal(String((offset ?? Number.NaN) + tc.jobIdx), tc.want);
      assert.equal(labelsOf(tc.rjobs, tc.replicatedJob, tc.jobIdx)['jobset.sigs.k8s.io/job-group-index'], tc.want);
    });
  }

  const groupReplicasCases: { name: string; rjobs: ReplicatedJob[]; groupName: string; want: string }[] = [
    { name: 'empty jobset', rjobs: [], groupName: 'groupA', want: '0' },
    { name: 'single replicated job in group', rjobs: fixture([{ name: 'rjob1', groupName: 'groupA', replicas: 1 }]), groupName: 'groupA', want: '1' },
    {
      name: 'multiple replicated jobs in group',
      rjobs: fixture([
        { name: 'rjob1', groupName: 'groupA', replicas: 1 },
        { name: 'rjob2', groupName: 'groupA', replicas: 2 },
      ]),
      groupName: 'groupA',
      want: '3',
    },
    {
      name: 'multiple groups, replicas in target group',
      rjobs: fixture([
        { name: 'rjob1', groupName: 'groupA', replicas: 1 },
        { name: 'rjob2', groupName: 'groupB', replicas: 2 },
      ]),
      groupName: 'groupB',
      want: '2',
    },
    {
      name: 'multiple groups, no replicas in target group',
      rjobs: fixture([
        { name: 'rjob1', groupName: 'groupA', replicas: 1 },
        { name: 'rjob2', groupName: 'groupB', replicas: 2 },
      ]),
      groupName: 'groupC',
      want: '0',
    },
  ];
  for (const tc of groupReplicasCases) {
    it(`TestGroupReplicas: ${tc.name}`, () => {
      // A group no replicatedJob names has no entry: none of its replicas exist.
      assert.equal(String(replicaLayout(tc.rjobs).groupReplicas.get(tc.groupName) ?? 0), tc.want);
      for (const rjob of tc.rjobs.filter((r) => r.groupName === tc.groupName)) {
        assert.equal(labelsOf(tc.rjobs, rjob.name, 0)['jobset.sigs.k8s.io/group-replicas'], tc.want);
      }
    });
  }
});

describe('plan/constructJob', () => {
  const rjobName = 'replicated-job';

  it('job-key is the lowercase hex SHA-1 of "<namespace>/<job name>" (upstream jobHashKey; its API comment says SHA256)', () => {
    const [got] = createdJobs(onePass(jobSetWith([replicatedJob(rjobName, { replicas: 1 })])).actions);
    assert.equal(got?.metadata.labels?.['jobset.sigs.k8s.io/job-key'], '027791c2c0a79daacbc05ab1512c28988581229f');
  });

  it('a gated replicatedJob is created suspended, the released one is not (DEVIATION: upstream delays creation instead)', () => {
    const jobSet = jobSetWith([replicatedJob('a', { replicas: 1 }), replicatedJob('b', { replicas: 1 })], { startupPolicy: { startupPolicyOrder: 'InOrder' } });
    const got = createdJobs(onePass(jobSet).actions);
    assert.deepEqual(
      got.map((job) => [job.metadata.name, job.spec.suspend]),
      [
        ['test-jobset-a-0', false],
        ['test-jobset-b-0', true],
      ],
    );
  });

  it('a Job with its own ttlSecondsAfterFinished carries the finished-record finalizer; others carry none', () => {
    const jobSet = jobSetWith([replicatedJob('a', { replicas: 1, ttlSecondsAfterFinished: 30 }), replicatedJob('b', { replicas: 1 })]);
    const got = createdJobs(onePass(jobSet).actions);
    assert.deepEqual(
      got.map((job) => job.metadata.finalizers),
      [['lineup.dev/finished-record'], undefined],
    );
  });

  it('JobSet keys win over template labels and annotations of the same key', () => {
    const jobSet = jobSetWith([
      replicatedJob(rjobName, {
        replicas: 1,
        jobLabels: { 'jobset.sigs.k8s.io/job-index': '7' },
        podAnnotations: { 'jobset.sigs.k8s.io/replicatedjob-name': 'spoofed' },
      }),
    ]);
    const [got] = createdJobs(onePass(jobSet).actions);
    assert.equal(got?.metadata.labels?.['jobset.sigs.k8s.io/job-index'], '0');
    assert.equal(got?.spec.template.metadata?.annotations?.['jobset.sigs.k8s.io/replicatedjob-name'], rjobName);
  });

  it('the node-selector annotation of the JobSet travels only with the JobSet’s own exclusive-topology (upstream labelAndAnnotateObject)', () => {
    // Prepare: the replicatedJob asks for exclusive placement; the JobSet carries only the
    // node-selector strategy annotation. Upstream copies a JobSet's node-selector inside the
    // "JobSet has exclusive-topology" branch only, so the Job gets no nodeSelector/toleration.
    const jobSet = jobSetWith([replicatedJob(rjobName, { replicas: 1, jobAnnotations: { 'alpha.jobset.sigs.k8s.io/exclusive-topology': topologyDomain } })]);
    jobSet.metadata.annotations = { 'alpha.jobset.sigs.k8s.io/node-selector': 'true' };
    // Act
    const got = createdJobs(onePass(jobSet).actions);
    // Assess
    assert.deepEqual(got, [
      wantJob({ replicatedJob: rjobName, index: 0, replicas: 1, globalReplicas: 1, globalIndex: 0, groupReplicas: 1, groupIndex: 0, restarts: 1, suspend: false, topology: topologyDomain }),
    ]);
  });

  it('plan() gives a JobSet created without the webhook (no network) the headless Service and pod subdomain the webhook would have defaulted', () => {
    const jobSet = jobSetWith([replicatedJob(rjobName, { replicas: 1 })]);
    delete jobSet.spec.network;
    const result = onePass(jobSet);
    assert.deepEqual(createdServices(result.actions), [headlessService({ ...jobSet, spec: { ...jobSet.spec, network: { enableDNSHostnames: true } } })]);
    assert.equal(createdJobs(result.actions)[0]?.spec.template.spec?.subdomain, jobSetName);
  });

  it('constructJob leaves the replicatedJob template untouched', () => {
    const rjob = replicatedJob(rjobName, { replicas: 1, jobLabels, podAnnotations });
    const before = structuredClone(rjob);
    const jobSet = jobSetWith([rjob], { network: { enableDNSHostnames: true } });
    constructJob(jobSet, rjob, 0, true, replicaLayout([rjob]));
    assert.deepEqual(rjob, before);
  });
});
