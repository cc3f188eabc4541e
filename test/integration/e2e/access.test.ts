/**
 * The whole pipeline with exactly what infra ships: Lineup's user bound only to the ClusterRoles
 * of infra/manifests/clusterrole.yaml, and the ValidatingAdmissionPolicy of
 * infra/manifests/validating-admission-policy.yaml in force.
 * - One JobSet is driven through every action the reconciler has (create, suspend, resume,
 *   delete on restart, finalizer release and finished-jobs record after a Job's TTL, status,
 *   Events, the Service, a volume claim, and the JobSet's own TTL), so a verb missing from the
 *   shipped role fails here, not in a customer's cluster. The real control plane runs: the Job
 *   controller, the TTL-after-finished controller, the garbage collector, and the volume binder
 *   that binds the claim to a volume the test provides, so the scheduler places its Pods.
 * - Writes outside the role are refused with 403.
 * - With the policy refusing at admission what CEL can check (every rule is tested in
 *   test/integration/admission/policy.test.ts), what it cannot — the startup-rules annotation's
 *   YAML — is rejected by the reconciler with a condition and an Event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConditionType, Label, LineupKey, Reason } from '../../../lib/jobset/api.ts';
import { PersistentVolumeClaimSchema } from '../../../lib/jobset/schema.ts';
import type { JobSet } from '../../../lib/jobset/schema.ts';
import { actionVerbs } from '../../../lib/k8s/gateway.ts';
import type { ActionKind } from '../../../lib/plan/types.ts';
import { makeJobSet } from '../../builders.ts';
import { LINEUP_USER, startDynalite, startMoto, type DynaliteServer, type MotoServer } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS, eventually } from '../k8s/support.ts';
import { ADMISSION_POLICY_FILE, asCreated, exampleJobSet, startE2eCluster, type E2eCluster } from './cluster.ts';
import { Pipeline, synthesizedRule, type RuleSource } from './pipeline.ts';
import { Scenario, STEP_TIMEOUT_MS } from './scenario.ts';

/** What an RBAC refusal looks like in an error or a log line: the reason word or the status code standing alone. */
const REFUSED = /forbidden|\b403\b/i;

const PROBE_NS = 'rbac-probe';

/** CLAIM_SPEC: the smallest claim spec the API server accepts. */
const CLAIM_SPEC = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

/** mountingClaim: `jobSet` with every replicatedJob's container mounting the claim `claim`. */
const mountingClaim = (jobSet: JobSet, claim: string): JobSet => {
  for (const rjob of jobSet.spec.replicatedJobs ?? []) {
    const podSpec = rjob.template.spec.template.spec;
    if (podSpec) podSpec.containers = (podSpec.containers ?? []).map((container) => ({ ...container, volumeMounts: [{ name: claim, mountPath: `/${claim}` }] }));
  }
  return jobSet;
};

/** claimOf: the API server's answer to a GET of a claim, as the cluster admin. */
const claimOf = (cluster: E2eCluster, namespace: string, name: string) => cluster.kube.request('GET', `/api/v1/namespaces/${namespace}/persistentvolumeclaims/${name}`);

describe('end to end with exactly the shipped ClusterRoles and admission policy', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let cluster: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let pipeline: Pipeline | undefined;

  const ready = (): { cluster: E2eCluster; pipeline: Pipeline } => {
    assert.ok(cluster && pipeline, 'the servers and the pipeline started (see the before hook)');
    return { cluster, pipeline };
  };

  before(async (t) => {
    let rule: RuleSource;
    [cluster, moto, dynamo, rule] = await Promise.all([startE2eCluster(), startMoto(), startDynalite(), synthesizedRule()]);
    await cluster.kube.applyYamlFile(ADMISSION_POLICY_FILE);
    // The API server loads a new policy asynchronously: wait until it refuses what it must.
    const probe = asCreated(makeJobSet('vap-probe').replicatedJob('driver', 1, { dependsOn: [{ name: 'worker', status: 'Ready' }] }).replicatedJob('worker', 1).obj());
    await eventually(
      'the admission policy refuses dependsOn on the first replicatedJob',
      async () => {
        const response = await cluster?.kube.request('POST', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets', probe);
        if (response !== undefined && response.status < 300) await cluster?.kube.request('DELETE', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/vap-probe');
        assert.equal(response?.status, 422, response?.body.slice(0, 300));
        assert.ok(response?.body.includes("DependsOn can't be set for the first ReplicatedJob"), response?.body.slice(0, 300));
      },
      30_000,
      250,
    );
    pipeline = await Pipeline.start({ kube: cluster.kube, moto, dynamo, clusterId: 'e2e-access', rule });
    t.diagnostic(`rbac: ${JSON.stringify(cluster.rbac)}; rule: ${rule.from}`);
  });

  after(async () => {
    await pipeline?.stop();
    await Promise.all([cluster?.stop(), moto?.stop(), dynamo?.stop()]);
  });

  it('Lineup’s user is bound to the shipped ClusterRoles and nothing else', () => {
    const { cluster } = ready();
    assert.equal(cluster.rbac.from, 'shipped', 'infra/manifests/clusterrole.yaml is applied and bound (not the role support.ts generates)');
  });

  it('the reconciler carries out every kind of action with the shipped role: no request refused', async () => {
    const { cluster, pipeline } = ready();
    // prep holds a Job-level TTL (finalizer, record); the JobSet restarts once and has a TTL of its
    // own; both mount a volumeClaimPolicies claim.
    const jobSet = mountingClaim(
      makeJobSet('every-verb')
        .replicatedJob('prep', 1, { jobSpec: { ttlSecondsAfterFinished: 0, backoffLimit: 0 } })
        .replicatedJob('work', 1, { dependsOn: [{ name: 'prep', status: 'Complete' }] })
        .spec({ failurePolicy: { maxRestarts: 1 }, ttlSecondsAfterFinished: 1, volumeClaimPolicies: [{ templates: [{ metadata: { name: 'scratch' }, spec: CLAIM_SPEC }] }] })
        .obj(),
      'scratch',
    );
    // A volume for the claim, bound to it alone (a Pod mounting an unbound claim is not scheduled).
    const volume = await cluster.kube.request('POST', '/api/v1/persistentvolumes', {
      metadata: { name: 'scratch-every-verb' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/mnt/lineup-e2e-scratch' }, claimRef: { namespace: 'every-verb', name: 'scratch-every-verb' } },
    });
    assert.equal(volume.status, 201, volume.body.slice(0, 300));
    const s = await Scenario.start(cluster, pipeline, 'every-verb', jobSet);
    // CreatePersistentVolumeClaim, CreateJob, CreateService, UpdateJobSetStatus, EmitEvent.
    await s.expectFlags('prep running, work held', { prep: 'R', work: 'S' });
    assert.ok(await cluster.admin.serviceExists(s.namespace, s.name), 'the headless Service');
    assert.equal((await claimOf(cluster, s.namespace, 'scratch-every-verb')).status, 200, 'the volume claim');

    // SuspendJob; then ResumeJob of a Job that ran (the Job controller reset its startTime on suspension).
    await cluster.jobs.markReady(s.namespace, s.job('prep'));
    await cluster.jobs.setJobSetSuspend(s.namespace, s.name, true);
    await s.expectFlags('suspended', { prep: 'S', work: 'S' });
    await cluster.jobs.suspendedByJobController(s.namespace, s.job('prep'));
    await cluster.jobs.setJobSetSuspend(s.namespace, s.name, false);
    await s.expectFlags('resumed', { prep: 'R', work: 'S' });

    // A failure: restart; DeleteJob of attempt 0 (and RemoveJobFinalizer of the failed one's record finalizer).
    await cluster.jobs.markFailed(s.namespace, s.job('prep'));
    await eventually('restarts = 1', async () => assert.equal((await s.jobSet()).status?.restarts, 1), STEP_TIMEOUT_MS);
    // The garbage collector deletes attempt 0's Pods, then its Jobs (foreground propagation).
    await eventually('attempt 1 created', async () => assert.deepEqual(Object.values(await s.restartAttempts()), ['1', '1']), STEP_TIMEOUT_MS);
    await s.expectFlags('attempt 1: prep running, work held', { prep: 'R', work: 'S' });

    // prep completes and its TTL has the TTL controller delete it: PatchJobSetAnnotations (the record), RemoveJobFinalizer.
    await cluster.jobs.markComplete(s.namespace, s.job('prep'));
    await s.expectFlags('prep recorded and gone, work released', { work: 'R' });
    assert.deepEqual(JSON.parse((await s.jobSet()).metadata.annotations?.[LineupKey.FinishedJobsAnnotation] ?? '{}'), { restartAttempt: 1, succeeded: { prep: '0' }, failed: {} });

    // work completes: Completed; after the JobSet's TTL (1 s) the resync wakes it and DeleteJobSet follows.
    await cluster.jobs.markComplete(s.namespace, s.job('work'));
    await s.expectCondition(ConditionType.Completed, { status: 'True', reason: Reason.AllJobsCompleted });
    await eventually(
      'the JobSet deleted once its TTL passed (the resync wakes it)',
      async () => {
        await pipeline.resync();
        // Foreground deletion: the garbage collector deletes the Jobs, their Pods and the claim, then the JobSet.
        assert.equal(await cluster.admin.getJobSet(s.namespace, s.name), undefined, 'not deleted yet');
      },
      STEP_TIMEOUT_MS,
      500,
    );

    // Assess: every kind of action ran, and no request was refused.
    const kinds = new Set(pipeline.passesOf(s.namespace, s.name).flatMap((pass) => pass.plan.actions.map((action) => action.kind)));
    assert.deepEqual([...kinds].sort(), (Object.keys(actionVerbs) as ActionKind[]).sort(), 'the scenario exercised every ActionKind');
    assert.deepEqual(
      pipeline.passesOf(s.namespace, s.name).flatMap((pass) => (pass.decision.error === undefined ? [] : [pass.decision.error])).filter((error) => REFUSED.test(error)),
      [],
      'no pass was refused by RBAC',
    );
    // The line's message and fields only: its timestamp (`at`) can hold the digits 403 by chance.
    assert.deepEqual(
      pipeline.logs.filter((line) => REFUSED.test(JSON.stringify({ message: line.message, fields: line.fields }))),
      [],
      'no request was refused by RBAC',
    );
  });

  // upstream test/integration/controller: "jobset with VolumeClaimPolicies should create two PVC with Delete and
  // Retain policies"; test/integration/webhook: "VolumeClaimPolicies must be immutable" — here on the shipped role.
  it('jobset with VolumeClaimPolicies should create two PVC with Delete and Retain policies (upstream\'s single-pvc example): before any Job, named, labelled and owned per retention policy, every pod template mounting them; VolumeClaimPolicies must be immutable', async () => {
    const { cluster, pipeline } = ready();
    const s = await Scenario.start(cluster, pipeline, 'single-pvc', exampleJobSet('single-pvc.yaml', 'trainjob'));
    await s.expectFlags('initializer running, node held', { initializer: 'R', node: 'S' });
    // Assess: the claims, as upstream names, labels and owns them.
    const jobSet = await s.jobSet();
    const claims = await Promise.all(['initializer-trainjob', 'checkpoints-trainjob'].map((name) => claimOf(cluster, s.namespace, name)));
    for (const claim of claims) assert.equal(claim.status, 200, claim.body.slice(0, 300));
    const [initializer, checkpoints] = claims.map((claim) => PersistentVolumeClaimSchema.parse(JSON.parse(claim.body)));
    assert.ok(initializer && checkpoints);
    assert.deepEqual(initializer.metadata.labels, { [Label.JobSetName]: 'trainjob' });
    assert.deepEqual(
      initializer.metadata.ownerReferences?.map((ref) => ({ kind: ref.kind, name: ref.name, uid: ref.uid, controller: ref.controller, blockOwnerDeletion: ref.blockOwnerDeletion })),
      [{ kind: 'JobSet', name: 'trainjob', uid: jobSet.metadata.uid, controller: true, blockOwnerDeletion: true }],
      'whenDeleted Delete (the default): owned by the JobSet',
    );
    assert.deepEqual(checkpoints.metadata.labels, { [Label.JobSetName]: 'trainjob' });
    assert.equal(checkpoints.metadata.ownerReferences, undefined, 'whenDeleted Retain: no owner');
    // Before any Job: the server's creation order (resourceVersions grow) and the plan's order agree.
    const firstJob = await cluster.admin.job(s.namespace, s.job('initializer'));
    for (const claim of [initializer, checkpoints]) assert.ok(BigInt(claim.metadata.resourceVersion ?? '0') < BigInt(firstJob.metadata.resourceVersion ?? '0'), 'claim created before the first Job');
    // Every Job's pod template carries the volumes of the claims its containers mount.
    assert.deepEqual(firstJob.spec.template.spec?.volumes, [{ name: 'initializer', persistentVolumeClaim: { claimName: 'initializer-trainjob' } }]);
    assert.deepEqual((await cluster.admin.job(s.namespace, s.job('node'))).spec.template.spec?.volumes, [
      { name: 'initializer', persistentVolumeClaim: { claimName: 'initializer-trainjob' } },
      { name: 'checkpoints', persistentVolumeClaim: { claimName: 'checkpoints-trainjob' } },
    ]);
    // Immutable (the CRD's rule self == oldSelf): a change of volumeClaimPolicies is refused.
    const change = await cluster.kube.request(
      'PATCH',
      `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${s.namespace}/jobsets/trainjob`,
      { spec: { volumeClaimPolicies: [{ templates: [{ metadata: { name: 'other' }, spec: CLAIM_SPEC }] }] } },
      { contentType: 'application/merge-patch+json' },
    );
    assert.equal(change.status, 422, change.body.slice(0, 300));
    assert.match(change.body, /spec\.volumeClaimPolicies: Invalid value: .{0,20}Value is immutable/);
  });

  const denied: { name: string; method: string; path: string; body?: unknown; contentType?: string }[] = [
    { name: 'delete a Namespace', method: 'DELETE', path: `/api/v1/namespaces/${PROBE_NS}` },
    { name: 'create a Secret', method: 'POST', path: `/api/v1/namespaces/${PROBE_NS}/secrets`, body: { metadata: { name: 'stolen' }, stringData: { a: 'b' } } },
    { name: 'list Secrets in every namespace', method: 'GET', path: '/api/v1/secrets' },
    {
      name: 'create a JobSet (Lineup only reconciles them)',
      method: 'POST',
      path: `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${PROBE_NS}/jobsets`,
      body: asCreated(makeJobSet('not-mine', PROBE_NS).replicatedJob('driver', 1).obj()),
    },
    { name: 'delete a Service (Lineup only creates and reads them)', method: 'DELETE', path: `/api/v1/namespaces/${PROBE_NS}/services/anything` },
    {
      name: 'patch a Job’s status (the role grants update of jobs/status, not patch)',
      method: 'PATCH',
      path: `/apis/batch/v1/namespaces/${PROBE_NS}/jobs/anything/status`,
      body: { status: { active: 1 } },
      contentType: 'application/merge-patch+json',
    },
  ];
  for (const tc of denied) {
    it(`refuses Lineup’s token to ${tc.name} (403)`, async () => {
      const { cluster } = ready();
      await cluster.admin.createNamespace(PROBE_NS);
      const response = await cluster.kube.request(tc.method, tc.path, tc.body, { as: 'lineup', ...(tc.contentType === undefined ? {} : { contentType: tc.contentType }) });
      assert.equal(response.status, 403, response.body.slice(0, 300));
      assert.match(response.body, new RegExp(`User \\\\?"${LINEUP_USER}\\\\?" cannot`));
    });
  }

  it('with the admission policy in force, a startup-rules annotation naming an unknown replicatedJob (YAML, which CEL cannot read) is rejected by the reconciler', async () => {
    const { cluster, pipeline } = ready();
    const jobSet = makeJobSet('bad-rules').annotation(LineupKey.StartupRulesAnnotation, '[{name: nobody, status: Ready}]').replicatedJob('driver', 1).replicatedJob('workers', 1).obj();
    const s = await Scenario.start(cluster, pipeline, 'bad-rules', jobSet);
    await s.expectCondition(ConditionType.Rejected, { status: 'True', reason: Reason.InvalidJobSet, message: /nobody/ });
    await eventually('a Warning Event', async () => {
      const warnings = await cluster.jobs.warningEvents(s.namespace, s.name);
      assert.ok(warnings.some((w) => w.reason === Reason.InvalidJobSet && /nobody/.test(w.message ?? '')), JSON.stringify(warnings));
    }, STEP_TIMEOUT_MS);
    await s.expectHeld('nothing starts', {});
  });
});
