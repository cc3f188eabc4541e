import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDefaults } from '../../lib/jobset/defaults.ts';
import type { Container, JobSet, VolumeClaimPolicy } from '../../lib/jobset/schema.ts';
import { constructJob, replicaLayout } from '../../lib/plan/constructJob.ts';
import type { Action } from '../../lib/plan/types.ts';
import { claimVolumes, volumeClaims } from '../../lib/plan/volumeClaims.ts';
import { makeJobSet } from '../builders.ts';
import { TestCluster } from './harness.ts';

// upstream pkg/controllers/volume_claim_policy_test.go: jobSetName "test-jobset", namespace "default", testPVCSpec.
const testPVCSpec = () => ({ accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } });
const owner = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'test-jobset', uid: 'uid-test-jobset', controller: true, blockOwnerDeletion: true };

/** withPolicies: upstream's MakeJobSet("test-jobset", "default").VolumeClaimPolicies(policies), defaulted as the webhook would. */
const withPolicies = (policies: VolumeClaimPolicy[], containers: Container[] = [], initContainers: Container[] = []): JobSet => {
  const jobSet = makeJobSet('test-jobset', 'default').replicatedJob('rjob', 1).spec({ volumeClaimPolicies: policies }).obj();
  const podSpec = jobSet.spec.replicatedJobs?.[0]?.template.spec.template.spec;
  if (podSpec) {
    podSpec.containers = containers.length > 0 ? containers : (podSpec.containers ?? []);
    if (initContainers.length > 0) podSpec.initContainers = initContainers;
  }
  return applyDefaults(jobSet);
};
const container = (name: string, ...mounts: string[]): Container => ({ name, image: 'busybox:latest', volumeMounts: mounts.map((mount, i) => ({ name: mount, mountPath: `/data${i + 1}` })) });
const claimVolume = (name: string) => ({ name, persistentVolumeClaim: { claimName: `${name}-test-jobset` } });

describe('plan/volumeClaims', () => {
  describe('pkg/controllers/volume_claim_policy_test.go TestReconcileVolumeClaimPolicies', () => {
    it('create multiple PVCs with different retention policies and custom labels/annotations', () => {
      // Prepare
      const jobSet = withPolicies([
        {
          templates: [
            { metadata: { name: 'volume-delete' }, spec: testPVCSpec() },
            { metadata: { name: 'volume-custom', labels: { 'custom-label': 'custom-value' }, annotations: { 'custom-annotation': 'custom-value' } }, spec: testPVCSpec() },
          ],
          retentionPolicy: { whenDeleted: 'Delete' },
        },
        { templates: [{ metadata: { name: 'volume-retain' }, spec: testPVCSpec() }], retentionPolicy: { whenDeleted: 'Retain' } },
      ]);
      // Act
      const claims = volumeClaims(jobSet);
      // Assess: upstream's expectedPVCs (Lineup's owner reference carries the JobSet's uid too).
      assert.deepEqual(claims, [
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'volume-delete-test-jobset', namespace: 'default', labels: { 'jobset.sigs.k8s.io/jobset-name': 'test-jobset' }, ownerReferences: [owner] },
          spec: testPVCSpec(),
        },
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {
            name: 'volume-custom-test-jobset',
            namespace: 'default',
            labels: { 'jobset.sigs.k8s.io/jobset-name': 'test-jobset', 'custom-label': 'custom-value' },
            annotations: { 'custom-annotation': 'custom-value' },
            ownerReferences: [owner],
          },
          spec: testPVCSpec(),
        },
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'volume-retain-test-jobset', namespace: 'default', labels: { 'jobset.sigs.k8s.io/jobset-name': 'test-jobset' } },
          spec: testPVCSpec(),
        },
      ]);
    });

    it('PVC already exists and should not be created again', () => {
      // Prepare: a first pass creates the claim; a Job of a later attempt is created again.
      const cluster = new TestCluster(
        makeJobSet('test-jobset', 'default')
          .replicatedJob('rjob', 1)
          .spec({
            failurePolicy: { maxRestarts: 1 },
            volumeClaimPolicies: [{ templates: [{ metadata: { name: 'test-volume' }, spec: testPVCSpec() }], retentionPolicy: { whenDeleted: 'Delete' } }],
          })
          .obj(),
      );
      const podSpec = cluster.jobSet?.spec.replicatedJobs?.[0]?.template.spec.template.spec;
      if (podSpec) podSpec.containers = [container('main', 'test-volume')];
      cluster.pass();
      const stored = cluster.claims.get('test-volume-test-jobset');
      assert.ok(stored, 'the first pass created the claim');
      // Act: a pass that creates Jobs again asks for the claim again; the existing one is kept.
      cluster.fail('test-jobset-rjob-0');
      const passes = cluster.settle();
      // Assess
      const asked = passes.flatMap((pass) => pass.actions).filter((action) => action.kind === 'CreatePersistentVolumeClaim');
      assert.equal(asked.length, 1, 'the restart asked for the claim again');
      assert.equal(cluster.claims.size, 1);
      assert.equal(cluster.claims.get('test-volume-test-jobset'), stored, 'the claim created first is the one kept');
    });
  });

  describe('pkg/controllers/volume_claim_policy_test.go TestAddVolumes', () => {
    const twoVolumes = (): VolumeClaimPolicy[] => [{ templates: [{ metadata: { name: 'volume-1' }, spec: testPVCSpec() }, { metadata: { name: 'volume-2' }, spec: testPVCSpec() }] }];
    const cases: { name: string; jobSet: JobSet; want: unknown }[] = [
      {
        name: 'add volumes for matching volumeMounts',
        jobSet: withPolicies(twoVolumes(), [container('test-container', 'volume-1', 'volume-2')]),
        want: [claimVolume('volume-1'), claimVolume('volume-2')],
      },
      {
        name: 'do not add volumes when volumeMounts are missing',
        jobSet: withPolicies([{ templates: [{ metadata: { name: 'volume-1' }, spec: testPVCSpec() }] }], [container('test-container')]),
        want: undefined,
      },
      {
        name: 'add only matching volumes when some volumeMounts exist',
        jobSet: withPolicies(twoVolumes(), [container('test-container', 'volume-1')]),
        want: [claimVolume('volume-1')],
      },
      {
        name: 'add volumes from multiple VolumeClaimPolicies with initContainer',
        jobSet: withPolicies(
          [
            { templates: [{ metadata: { name: 'volume-delete' }, spec: testPVCSpec() }, { metadata: { name: 'volume-init' }, spec: testPVCSpec() }], retentionPolicy: { whenDeleted: 'Delete' } },
            { templates: [{ metadata: { name: 'volume-retain' }, spec: testPVCSpec() }], retentionPolicy: { whenDeleted: 'Retain' } },
          ],
          [container('test-container', 'volume-delete', 'volume-retain')],
          [container('init-container', 'volume-init')],
        ),
        want: [claimVolume('volume-delete'), claimVolume('volume-init'), claimVolume('volume-retain')],
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        // Act: the Job constructJob builds for the replicatedJob.
        const rjob = tc.jobSet.spec.replicatedJobs?.[0];
        assert.ok(rjob);
        const job = constructJob(tc.jobSet, rjob, 0, false, replicaLayout(tc.jobSet.spec.replicatedJobs ?? []));
        // Assess
        assert.deepEqual(job.spec.template.spec?.volumes, tc.want);
      });
    }

    it('keeps the volumes the template declares, and appends the claims after them', () => {
      const jobSet = withPolicies(twoVolumes(), [container('test-container', 'volume-1', 'scratch')]);
      const podSpec = jobSet.spec.replicatedJobs?.[0]?.template.spec.template.spec;
      assert.ok(podSpec);
      podSpec.volumes = [{ name: 'scratch', emptyDir: {} }];
      const job = constructJob(jobSet, jobSet.spec.replicatedJobs?.[0] ?? assert.fail('no rjob'), 0, false, replicaLayout(jobSet.spec.replicatedJobs ?? []));
      assert.deepEqual(job.spec.template.spec?.volumes, [{ name: 'scratch', emptyDir: {} }, claimVolume('volume-1')]);
      // The replicatedJob's template is not touched.
      assert.deepEqual(podSpec.volumes, [{ name: 'scratch', emptyDir: {} }]);
    });

    it('claimVolumes: none for a JobSet without volumeClaimPolicies', () => {
      assert.deepEqual(claimVolumes(makeJobSet('js').obj(), [container('c', 'x')], undefined), []);
    });
  });

  describe('planner', () => {
    const kinds = (actions: readonly Action[]): string[] => actions.map((action) => action.kind);
    const claimJobSet = (build = makeJobSet('train').replicatedJob('init', 1).replicatedJob('node', 2, { dependsOn: [{ name: 'init', status: 'Complete' }] })): JobSet => {
      const jobSet = build
        .spec({
          volumeClaimPolicies: [
            { templates: [{ metadata: { name: 'model' }, spec: testPVCSpec() }] },
            { templates: [{ metadata: { name: 'checkpoints' }, spec: testPVCSpec() }], retentionPolicy: { whenDeleted: 'Retain' } },
          ],
        })
        .obj();
      for (const rjob of jobSet.spec.replicatedJobs ?? []) {
        const podSpec = rjob.template.spec.template.spec;
        if (podSpec) podSpec.containers = [container('main', 'model', ...(rjob.name === 'node' ? ['checkpoints'] : []))];
      }
      return jobSet;
    };

    it('creates the claims before any Job, in the first pass, each with its reason', () => {
      // Act
      const first = new TestCluster(claimJobSet()).pass();
      // Assess
      assert.deepEqual(kinds(first.actions), [
        'CreateService',
        'CreatePersistentVolumeClaim',
        'CreatePersistentVolumeClaim',
        'CreateJob',
        'CreateJob',
        'CreateJob',
        'UpdateJobSetStatus',
        'EmitEvent',
      ]);
      const claimActions = first.actions.flatMap((action, index) => (action.kind === 'CreatePersistentVolumeClaim' ? [{ name: action.claim.metadata.name, reason: first.reasons[index] }] : []));
      assert.deepEqual(claimActions, [
        { name: 'model-train', reason: { code: 'VolumeClaimPolicy', message: 'model-train: created before the jobs that mount it (Delete: owned by the jobset)' } },
        { name: 'checkpoints-train', reason: { code: 'VolumeClaimPolicy', message: 'checkpoints-train: created before the jobs that mount it (Retain: kept when the jobset is deleted)' } },
      ]);
      assert.match(first.reason, /^created 2 volume claims; created 3 jobs/);
    });

    it('mounts each claim in the Jobs whose containers use it, gated or not', () => {
      const cluster = new TestCluster(claimJobSet());
      cluster.pass();
      assert.deepEqual(cluster.job('train-init-0').spec.template.spec?.volumes, [{ name: 'model', persistentVolumeClaim: { claimName: 'model-train' } }]);
      assert.equal(cluster.job('train-node-1').spec.suspend, true);
      assert.deepEqual(cluster.job('train-node-1').spec.template.spec?.volumes, [
        { name: 'model', persistentVolumeClaim: { claimName: 'model-train' } },
        { name: 'checkpoints', persistentVolumeClaim: { claimName: 'checkpoints-train' } },
      ]);
    });

    it('asks for no claim in a pass that creates no Job', () => {
      const cluster = new TestCluster(claimJobSet());
      cluster.pass();
      const later = cluster.settle();
      assert.ok(later.every((pass) => !pass.actions.some((action) => action.kind === 'CreatePersistentVolumeClaim')), later.map((pass) => kinds(pass.actions).join(',')).join(' | '));
    });

    it('creates the claims again before the Jobs of a restart, and never for a JobSet without policies', () => {
      const cluster = new TestCluster(claimJobSet(makeJobSet('train').replicatedJob('init', 1).replicatedJob('node', 2, { dependsOn: [{ name: 'init', status: 'Complete' }] }).spec({ failurePolicy: { maxRestarts: 1 } })));
      cluster.pass();
      cluster.fail('train-init-0');
      const passes = cluster.settle();
      const recreate = passes.find((pass) => pass.actions.some((action) => action.kind === 'CreateJob'));
      assert.ok(recreate, 'a pass re-creates the Jobs');
      const order = kinds(recreate.actions).filter((kind) => kind === 'CreateJob' || kind === 'CreatePersistentVolumeClaim');
      assert.deepEqual(order.slice(0, 2), ['CreatePersistentVolumeClaim', 'CreatePersistentVolumeClaim']);
      assert.ok(!kinds(new TestCluster(makeJobSet('plain').replicatedJob('a', 2).obj()).pass().actions).includes('CreatePersistentVolumeClaim'));
    });

    it('rejects a JobSet whose claim no container mounts, and creates nothing', () => {
      const jobSet = claimJobSet();
      const podSpec = jobSet.spec.replicatedJobs?.[1]?.template.spec.template.spec;
      if (podSpec) podSpec.containers = [container('main', 'model')];
      const first = new TestCluster(jobSet).pass();
      assert.deepEqual(kinds(first.actions), ['UpdateJobSetStatus', 'EmitEvent']);
      assert.match(first.reason, /spec\.replicatedJobs: replicatedJob containers don't have a matching volumeMount: checkpoints from VolumeClaimPolicies/);
    });
  });
});
