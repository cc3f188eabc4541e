import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { applyDefaults } from '../../lib/jobset/defaults.ts';
import { loadedJobSets, loadJobSets } from '../../lib/jobset/load.ts';
import type { JobSet, JobSetSpec, JobSpec, PodTemplateSpec, ReplicatedJob } from '../../lib/jobset/schema.ts';
import { makeJobSet } from '../builders.ts';
import { exampleFiles } from '../repoFiles.ts';

// Upstream's defaulting cases build bare JobSets; Lineup's type needs apiVersion, kind and a name.
const jobSet = (spec: JobSetSpec): JobSet => ({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js' }, spec });

// upstream TestPodTemplate (pkg/webhooks/jobset_webhook_test.go).
const testPodTemplate = (): PodTemplateSpec => ({
  spec: { restartPolicy: 'Never', containers: [{ name: 'test-container', image: 'busybox:latest' }] },
});

/** rjob: a replicatedJob as upstream's defaulting cases write it: only the Job template. */
const rjob = (jobSpec: Partial<JobSpec> = {}, template: PodTemplateSpec = testPodTemplate()): ReplicatedJob => ({
  name: 'rjob',
  template: { spec: { template, ...jobSpec } },
});

/**
 * withCrdAndJobApiDefaults: what applyDefaults adds beyond upstream's webhook, because a
 * cluster's CRD (replicas, groupName) and Job API (parallelism, completions) would.
 */
const withCrdAndJobApiDefaults = (r: ReplicatedJob): ReplicatedJob => ({
  ...r,
  replicas: 1,
  groupName: 'default',
  template: { ...r.template, spec: { ...r.template.spec, parallelism: 1, completions: 1 } },
});

const defaultSuccessPolicy = { operator: 'All' } as const;
const defaultStartupPolicy = { startupPolicyOrder: 'AnyOrder' } as const;
const defaultNetwork = { enableDNSHostnames: true, publishNotReadyAddresses: true };

describe('jobset/defaults', () => {
  describe('jobset_webhook_test.go', () => {
    const cases: { name: string; input: JobSet; want: JobSet }[] = [
      {
        name: 'TestJobSetDefaulting: job completion mode is unset',
        input: jobSet({ successPolicy: defaultSuccessPolicy, startupPolicy: defaultStartupPolicy, network: defaultNetwork, replicatedJobs: [rjob()] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: job completion mode is set to non-indexed',
        input: jobSet({ successPolicy: defaultSuccessPolicy, network: defaultNetwork, replicatedJobs: [rjob({ completionMode: 'NonIndexed' })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'NonIndexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: enableDNSHostnames is unset',
        input: jobSet({ successPolicy: defaultSuccessPolicy, replicatedJobs: [rjob({ completionMode: 'Indexed' })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: enableDNSHostnames is false',
        input: jobSet({ successPolicy: defaultSuccessPolicy, network: { enableDNSHostnames: false }, replicatedJobs: [rjob({ completionMode: 'Indexed' })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: { enableDNSHostnames: false, publishNotReadyAddresses: true },
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: PublishNotReadyNetworkAddresess is false',
        input: jobSet({ successPolicy: defaultSuccessPolicy, network: { publishNotReadyAddresses: false }, replicatedJobs: [rjob({ completionMode: 'Indexed' })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: { enableDNSHostnames: true, publishNotReadyAddresses: false },
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: PublishNotReadyNetworkAddresess is true',
        input: jobSet({
          successPolicy: defaultSuccessPolicy,
          network: { enableDNSHostnames: false, publishNotReadyAddresses: true },
          replicatedJobs: [rjob({ completionMode: 'Indexed' })],
        }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: { enableDNSHostnames: false, publishNotReadyAddresses: true },
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: pod restart policy unset',
        input: jobSet({ successPolicy: defaultSuccessPolicy, network: defaultNetwork, replicatedJobs: [rjob({ completionMode: 'Indexed' }, { spec: {} })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }, { spec: { restartPolicy: 'OnFailure' } }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: pod restart policy set',
        input: jobSet({ successPolicy: defaultSuccessPolicy, network: defaultNetwork, replicatedJobs: [rjob({ completionMode: 'Indexed' }, { spec: { restartPolicy: 'Always' } })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }, { spec: { restartPolicy: 'Always' } }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: success policy unset',
        input: jobSet({ network: defaultNetwork, replicatedJobs: [rjob({ completionMode: 'Indexed' })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: success policy operator set, replicatedJobNames unset',
        input: jobSet({ successPolicy: { operator: 'Any' }, network: defaultNetwork, replicatedJobs: [rjob({ completionMode: 'Indexed' })] }),
        want: jobSet({
          successPolicy: { operator: 'Any' },
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: startup policy order InOrder set',
        input: jobSet({
          successPolicy: { operator: 'Any' },
          network: defaultNetwork,
          startupPolicy: { startupPolicyOrder: 'InOrder' },
          replicatedJobs: [rjob({ completionMode: 'Indexed' }, { spec: { restartPolicy: 'Always' } })],
          managedBy: 'jobset.sigs.k8s.io/jobset-controller',
        }),
        want: jobSet({
          successPolicy: { operator: 'Any' },
          startupPolicy: { startupPolicyOrder: 'InOrder' },
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }, { spec: { restartPolicy: 'Always' } }))],
          managedBy: 'jobset.sigs.k8s.io/jobset-controller',
        }),
      },
      {
        name: 'TestJobSetDefaulting: managedBy field is left nil',
        input: jobSet({ successPolicy: defaultSuccessPolicy, network: defaultNetwork, replicatedJobs: [rjob({ completionMode: 'Indexed' })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
        }),
      },
      {
        name: 'TestJobSetDefaulting: when provided, managedBy field is preserved',
        input: jobSet({ successPolicy: defaultSuccessPolicy, network: defaultNetwork, replicatedJobs: [rjob({ completionMode: 'Indexed' })], managedBy: 'other-controller' }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
          managedBy: 'other-controller',
        }),
      },
      {
        name: 'TestJobSetDefaulting: failure policy rule name is defaulted when: there is one rule and it does not have a name',
        input: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [rjob({ completionMode: 'Indexed' })],
          failurePolicy: { rules: [{ action: 'FailJobSet' }] },
        }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
          // restartStrategy: the CRD's default, applied by the API server.
          failurePolicy: { restartStrategy: 'Recreate', rules: [{ action: 'FailJobSet', name: 'failurePolicyRule0' }] },
        }),
      },
      {
        name: 'TestJobSetDefaulting: failure policy rule name is defaulted when: there are two rules, the first rule has a name, the second rule does not have a name',
        input: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [rjob({ completionMode: 'Indexed' })],
          failurePolicy: { rules: [{ action: 'FailJobSet', name: 'ruleWithAName' }, { action: 'FailJobSet' }] },
        }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
          failurePolicy: {
            restartStrategy: 'Recreate',
            rules: [
              { action: 'FailJobSet', name: 'ruleWithAName' },
              { action: 'FailJobSet', name: 'failurePolicyRule1' },
            ],
          },
        }),
      },
      {
        name: 'TestJobSetDefaulting: volumeClaimPolicy retentionPolicy is defaulted to Delete when nil',
        input: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          volumeClaimPolicies: [{ templates: [{ metadata: { name: 'test-volume' } }] }],
          replicatedJobs: [rjob({ completionMode: 'Indexed' })],
          managedBy: 'jobset.sigs.k8s.io/jobset-controller',
        }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          volumeClaimPolicies: [{ templates: [{ metadata: { name: 'test-volume' } }], retentionPolicy: { whenDeleted: 'Delete' } }],
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }))],
          managedBy: 'jobset.sigs.k8s.io/jobset-controller',
        }),
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        assert.deepEqual(applyDefaults(tc.input), tc.want);
      });
    }
  });

  describe('Lineup defaults', () => {
    const cases: { name: string; input: JobSet; want: JobSet }[] = [
      {
        name: 'an empty spec gets successPolicy All, startupPolicy AnyOrder and DNS hostnames',
        input: jobSet({}),
        want: jobSet({ successPolicy: defaultSuccessPolicy, startupPolicy: defaultStartupPolicy, network: defaultNetwork }),
      },
      {
        name: 'replicas and groupName written in the spec are kept',
        input: jobSet({ replicatedJobs: [{ ...rjob({ completionMode: 'Indexed' }), replicas: 0, groupName: 'workers' }] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [{ ...withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' })), replicas: 0, groupName: 'workers' }],
        }),
      },
      {
        name: 'parallelism without completions leaves completions unset (a work queue)',
        input: jobSet({ replicatedJobs: [rjob({ completionMode: 'NonIndexed', parallelism: 3 })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [{ ...rjob({ completionMode: 'NonIndexed', parallelism: 3 }), replicas: 1, groupName: 'default' }],
        }),
      },
      {
        name: 'completions without parallelism gets parallelism 1',
        input: jobSet({ replicatedJobs: [rjob({ completions: 4 })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [{ ...rjob({ completionMode: 'Indexed', completions: 4, parallelism: 1 }), replicas: 1, groupName: 'default' }],
        }),
      },
      {
        name: 'an empty restartPolicy string is defaulted like an absent one',
        input: jobSet({ replicatedJobs: [rjob({ completionMode: 'Indexed' }, { spec: { restartPolicy: '' } })] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }, { spec: { restartPolicy: 'OnFailure' } }))],
        }),
      },
      {
        name: 'a pod template without spec gets one with restartPolicy OnFailure',
        input: jobSet({ replicatedJobs: [rjob({ completionMode: 'Indexed' }, {})] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' }, { spec: { restartPolicy: 'OnFailure' } }))],
        }),
      },
      {
        name: 'a restartStrategy written in the failure policy is kept',
        input: jobSet({ failurePolicy: { maxRestarts: 2, restartStrategy: 'BlockingRecreate' } }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          failurePolicy: { maxRestarts: 2, restartStrategy: 'BlockingRecreate' },
        }),
      },
      {
        name: 'managedBy, suspend, ttlSecondsAfterFinished, coordinator and subdomain are not defaulted',
        input: jobSet({ network: { subdomain: 'svc' } }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: { subdomain: 'svc', enableDNSHostnames: true, publishNotReadyAddresses: true },
        }),
      },
      {
        name: 'dependsOn still gets startupPolicy AnyOrder (the normal dependsOn case upstream)',
        input: jobSet({ replicatedJobs: [rjob({ completionMode: 'Indexed' }), { ...rjob({ completionMode: 'Indexed' }), name: 'b', dependsOn: [{ name: 'rjob', status: 'Ready' }] }] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          replicatedJobs: [
            withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' })),
            { ...withCrdAndJobApiDefaults(rjob({ completionMode: 'Indexed' })), name: 'b', dependsOn: [{ name: 'rjob', status: 'Ready' }] },
          ],
        }),
      },
      {
        name: 'test/integration/webhook/jobset_webhook_test.go: VolumeClaimPolicies defaults are applied when empty (a retentionPolicy written without whenDeleted gets the CRD default Delete; Retain is kept)',
        input: jobSet({ volumeClaimPolicies: [{ templates: [{ metadata: { name: 'a' } }], retentionPolicy: {} }, { templates: [{ metadata: { name: 'b' } }], retentionPolicy: { whenDeleted: 'Retain' } }] }),
        want: jobSet({
          successPolicy: defaultSuccessPolicy,
          startupPolicy: defaultStartupPolicy,
          network: defaultNetwork,
          volumeClaimPolicies: [
            { templates: [{ metadata: { name: 'a' } }], retentionPolicy: { whenDeleted: 'Delete' } },
            { templates: [{ metadata: { name: 'b' } }], retentionPolicy: { whenDeleted: 'Retain' } },
          ],
        }),
      },
      {
        name: 'the startup-rules annotation still gets startupPolicy AnyOrder',
        input: { ...jobSet({}), metadata: { name: 'js', annotations: { ['lineup.dev/startup-rules']: '[{name: rjob, status: Ready}]' } } },
        want: {
          ...jobSet({ successPolicy: defaultSuccessPolicy, startupPolicy: defaultStartupPolicy, network: defaultNetwork }),
          metadata: { name: 'js', annotations: { ['lineup.dev/startup-rules']: '[{name: rjob, status: Ready}]' } },
        },
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        assert.deepEqual(applyDefaults(tc.input), tc.want);
      });
    }

    it('leaves fields Lineup does not know untouched', () => {
      // Prepare: loose objects keep unknown fields, and defaulting must too.
      const input = loadedJobSets(
        loadJobSets(
          'apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\nspec:\n  futureField: {templates: []}\n  replicatedJobs:\n  - name: a\n    template: {spec: {activeDeadlineSeconds: 30, template: {spec: {containers: [{name: c, image: busybox}]}}}}\n',
          'inline.yaml',
        ),
      )[0];
      assert.ok(input);
      // Act
      const out = applyDefaults(input);
      // Assess
      assert.deepEqual(out.spec['futureField'], { templates: [] });
      assert.equal(out.spec.replicatedJobs?.[0]?.template.spec['activeDeadlineSeconds'], 30);
      assert.deepEqual(out.spec.replicatedJobs?.[0]?.template.spec.template.spec?.containers, [{ name: 'c', image: 'busybox' }]);
    });

    it('does not touch its input and shares no object with it', () => {
      // Prepare
      const input = makeJobSet('js').replicatedJob('a', 2).spec({ network: { subdomain: 'svc' } }).obj();
      const before = structuredClone(input);
      // Act
      const out = applyDefaults(input);
      const { network } = out.spec;
      const firstRjob = out.spec.replicatedJobs?.[0];
      assert.ok(network && firstRjob, 'defaulting kept the network and the replicatedJob');
      network.subdomain = 'changed';
      firstRjob.template.spec.parallelism = 99;
      // Assess
      assert.deepEqual(input, before);
    });

    it('is idempotent on every reference example and on builder JobSets', () => {
      const inputs: JobSet[] = [
        ...exampleFiles().flatMap((file) => loadedJobSets(loadJobSets(readFileSync(file, 'utf8'), file))),
        makeJobSet('js').replicatedJob('driver', 1).replicatedJob('workers', 3, { parallelism: 4 }).inOrder().obj(),
        makeJobSet('js').managedBy(undefined).spec({ failurePolicy: { rules: [{ action: 'RestartJobSet' }, { action: 'FailJobSet' }] } }).obj(),
        jobSet({ managedBy: 'lineup.dev/controller' }),
      ];
      assert.ok(inputs.length >= 7);
      for (const input of inputs) {
        const once = applyDefaults(input);
        assert.deepEqual(applyDefaults(once), once, input.metadata.name);
      }
    });
  });
});
