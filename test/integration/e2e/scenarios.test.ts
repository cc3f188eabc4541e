/**
 * End-to-end scenarios through the whole pipeline — kube-apiserver watch → forwarder →
 * EventBridge (moto) → rule → SQS → reconciler batch handler → kube-apiserver, leases in
 * DynamoDB (dynalite) — as Lineup's own user bound to the shipped ClusterRoles, on the real
 * control plane minus kubelet: the Job controller writes every Job status from Pods kwok runs as
 * the test's JobDriver steers them, the TTL-after-finished controller and the garbage collector
 * delete what they delete. Each scenario has a namespace of its own; one cluster serves the file.
 * Order is read from the Jobs' suspend flags (R running, S suspended, D being deleted, one
 * letter per Job) and the JobSet's conditions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConditionType, LineupKey, Reason } from '../../../lib/jobset/api.ts';
import type { JobSet } from '../../../lib/jobset/schema.ts';
import { syncEntry } from '../../../lib/reconcile/resync.ts';
import { recordingOf } from '../../../lib/replay/recording.ts';
import { perturb } from '../../../lib/replay/perturb.ts';
import { recordedRunOf } from '../../../lib/replay/recordedRun.ts';
import { replayRecording } from '../../../lib/replay/replay.ts';
import { makeJobSet } from '../../builders.ts';
import { startDynalite, startMoto, type DynaliteServer, type MotoServer } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS, eventually } from '../k8s/support.ts';
import { conditionOf, exampleJobSet, jobConditionIsTrue, startE2eCluster, type E2eCluster } from './cluster.ts';
import { Pipeline, synthesizedRule, type RuleSource } from './pipeline.ts';
import { Scenario, STEP_TIMEOUT_MS } from './scenario.ts';

const CLUSTER_ID = 'e2e-scenarios';
/** RETRY_TIMEOUT_MS: the Job controller replaces a failed pod after its backoff (10 s, then 20 s, …), more on a loaded machine. */
const RETRY_TIMEOUT_MS = 90_000;
/** PERTURB_SEEDS: perturbed re-enactments of each recording (lineup replay --perturb 20). */
const PERTURB_SEEDS = 20;

describe('end to end: forwarder → EventBridge → SQS → reconciler → kube-apiserver', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let cluster: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let pipeline: Pipeline | undefined;

  /** start: a scenario of `jobSet` in namespace `namespace`. */
  const start = (namespace: string, jobSet: JobSet): Promise<Scenario> => {
    assert.ok(cluster && pipeline, 'the servers and the pipeline started (see the before hook)');
    return Scenario.start(cluster, pipeline, namespace, jobSet);
  };

  before(async (t) => {
    let rule: RuleSource;
    [cluster, moto, dynamo, rule] = await Promise.all([startE2eCluster(), startMoto(), startDynalite(), synthesizedRule()]);
    pipeline = await Pipeline.start({ kube: cluster.kube, moto, dynamo, clusterId: CLUSTER_ID, rule });
    t.diagnostic(`rbac: ${JSON.stringify(cluster.rbac)}; rule: ${rule.from}`);
  });

  after(async () => {
    await pipeline?.stop();
    await Promise.all([cluster?.stop(), moto?.stop(), dynamo?.stop()]);
  });

  it('story 1: the workers start once the driver is Ready; StartupPolicyCompleted at the end', async () => {
    const s = await start('story1', exampleJobSet('story1-driver-ready-worker-start.yaml', 'driver-ready'));
    await s.expectFlags('every Job created, only the driver running', { driver: 'R', workers: 'S' });
    await s.expectCondition(ConditionType.StartupPolicyInProgress, { status: 'True', reason: Reason.InOrderStartupPolicyInProgress, message: /waiting for driver/ });
    await s.expectHeld('the workers wait for the driver', { driver: 'R', workers: 'S' });

    await s.markReady('driver');
    await s.expectFlags('the workers released', { driver: 'R', workers: 'R' });
    await s.markReady('workers');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
    s.expectNoProblems();
  });

  it('story 2: message queue, then the drivers, then the workers; StartupPolicyCompleted at the end', async () => {
    const s = await start('story2', exampleJobSet('story2-messagequeue-driver-worker.yaml', 'mq-driver-worker'));
    await s.expectFlags('every Job created, only the message queue running', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    await s.expectHeld('drivers and workers wait for the message queue', { messagequeue: 'R', driver: 'SS', worker: 'SS' });

    await s.markReady('messagequeue');
    await s.expectFlags('the drivers released', { messagequeue: 'R', driver: 'RR', worker: 'SS' });
    await s.expectCondition(ConditionType.StartupPolicyInProgress, { status: 'True', reason: Reason.InOrderStartupPolicyInProgress, message: /waiting for driver/ });
    await s.expectHeld('the workers wait for the drivers', { messagequeue: 'R', driver: 'RR', worker: 'SS' });

    await s.markReady('driver');
    await s.expectFlags('the workers released', { messagequeue: 'R', driver: 'RR', worker: 'RR' });
    await s.markReady('worker');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
    s.expectNoProblems();
  });

  it('dependsOn Ready: the workers start once the driver is Ready', async () => {
    const s = await start('depends-ready', exampleJobSet('seed-per-job-dependency.yaml', 'driver-then-workers'));
    await s.expectFlags('only the driver running', { driver: 'R', workers: 'S' });
    await s.expectCondition(ConditionType.StartupPolicyInProgress, { status: 'True', reason: Reason.DependsOnStartupInProgress, message: /driver/ });
    await s.expectHeld('the workers wait for the driver', { driver: 'R', workers: 'S' });

    await s.markReady('driver');
    await s.expectFlags('the workers released', { driver: 'R', workers: 'R' });
    await s.markReady('workers');
    await s.expectStartupCompleted(Reason.DependsOnStartupCompleted);
    s.expectNoProblems();
  });

  it('dependsOn chain: the launcher waits for the initializer to Complete (Ready is not enough), the workers for the launcher to be Ready', async () => {
    const s = await start('depends-chain', exampleJobSet('depends-on.yaml', 'init-launch-work'));
    await s.expectFlags('only the initializer running', { initializer: 'R', launcher: 'S', worker: 'S' });

    await s.markReady('initializer');
    await s.expectHeld('a Ready initializer does not release the launcher (it needs Complete)', { initializer: 'R', launcher: 'S', worker: 'S' });
    await s.markComplete('initializer');
    await s.expectFlags('the launcher released once the initializer completed', { initializer: 'R', launcher: 'R', worker: 'S' });
    await s.expectHeld('the workers wait for the launcher to be Ready', { initializer: 'R', launcher: 'R', worker: 'S' });

    await s.markReady('launcher');
    await s.expectFlags('the workers released', { initializer: 'R', launcher: 'R', worker: 'R' });
    await s.markReady('worker');
    await s.expectStartupCompleted(Reason.DependsOnStartupCompleted);
    s.expectNoProblems();
  });

  it('dependsOn two dependencies: the workers wait until both initializers are Complete', async () => {
    const s = await start('depends-two', exampleJobSet('multiple-depends-on.yaml', 'two-inits'));
    await s.expectFlags('both initializers running, the workers held', { 'dataset-initializer': 'R', 'model-initializer': 'R', worker: 'S' });

    await s.markComplete('dataset-initializer');
    await s.expectHeld('one of two dependencies Complete is not enough', { 'dataset-initializer': 'R', 'model-initializer': 'R', worker: 'S' });
    await s.markComplete('model-initializer');
    await s.expectFlags('the workers released once both completed', { 'dataset-initializer': 'R', 'model-initializer': 'R', worker: 'R' });
    await s.markReady('worker');
    await s.expectStartupCompleted(Reason.DependsOnStartupCompleted);
    s.expectNoProblems();
  });

  it('ordered rules (the KEP draft): dataset Succeeded, then driver Ready, then the replicatedJobs no rule names', async () => {
    const s = await start('draft-rules', exampleJobSet('seed-draft-rules.yaml', 'prepare-then-train'));
    await s.expectFlags('only the datasets running', { dataset: 'RR', driver: 'S', workers: 'SSSS' });
    await s.expectCondition(ConditionType.StartupPolicyInProgress, { status: 'True', reason: Reason.StartupRulesInProgress, message: /dataset/ });

    await s.cluster.jobs.markComplete(s.namespace, s.job('dataset', 0));
    await s.expectHeld('one of two datasets succeeded is not enough', { dataset: 'RR', driver: 'S', workers: 'SSSS' });
    await s.cluster.jobs.markComplete(s.namespace, s.job('dataset', 1));
    await s.expectFlags('the driver released once every dataset succeeded', { dataset: 'RR', driver: 'R', workers: 'SSSS' });
    await s.expectHeld('the workers wait for the driver to be Ready', { dataset: 'RR', driver: 'R', workers: 'SSSS' });

    await s.markReady('driver');
    await s.expectFlags('the workers released after the last rule', { dataset: 'RR', driver: 'R', workers: 'RRRR' });
    await s.markReady('workers');
    await s.expectStartupCompleted(Reason.StartupRulesCompleted);
    s.expectNoProblems();
  });

  it('suspended while starting, then resumed: the Jobs are suspended, and the sequence starts again from the first replicatedJob', async () => {
    const s = await start('suspend-resume', exampleJobSet('story2-messagequeue-driver-worker.yaml', 'suspend-me'));
    await s.expectFlags('only the message queue running', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    await s.markReady('messagequeue');
    await s.expectFlags('the drivers released', { messagequeue: 'R', driver: 'RR', worker: 'SS' });

    // Act: the user suspends the JobSet after the first step.
    await s.cluster.jobs.setJobSetSuspend(s.namespace, s.name, true);
    await s.expectFlags('every Job suspended', { messagequeue: 'S', driver: 'SS', worker: 'SS' });
    await s.expectCondition(ConditionType.Suspended, { status: 'True', reason: Reason.SuspendedJobs });
    // The Job controller's part: the pods of the suspended Jobs are deleted.
    for (const name of [s.job('messagequeue'), s.job('driver', 0), s.job('driver', 1)]) await s.cluster.jobs.suspendedByJobController(s.namespace, name);

    // Act: resumed.
    await s.cluster.jobs.setJobSetSuspend(s.namespace, s.name, false);
    await s.expectFlags('the sequence starts again from the message queue', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    await s.expectCondition(ConditionType.Suspended, { status: 'False', reason: Reason.ResumeJobs });
    await s.expectHeld('the drivers wait for the message queue again (it was Ready before the suspend)', { messagequeue: 'R', driver: 'SS', worker: 'SS' });

    await s.markReady('messagequeue');
    await s.expectFlags('the drivers released again', { messagequeue: 'R', driver: 'RR', worker: 'SS' });
    await s.markReady('driver');
    await s.expectFlags('the workers released', { messagequeue: 'R', driver: 'RR', worker: 'RR' });
    await s.markReady('worker');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
    s.expectNoProblems();
  });

  it('a failure restarts the JobSet: the old Jobs are deleted and the sequence re-runs from the first replicatedJob with restart-attempt 1', async () => {
    const jobSet = makeJobSet('restart-me')
      .inOrder()
      .replicatedJob('driver', 1, { jobSpec: { backoffLimit: 0 } })
      .replicatedJob('workers', 2, { jobSpec: { backoffLimit: 0 } })
      .spec({ failurePolicy: { maxRestarts: 1 } })
      .obj();
    const s = await start('failure-restart', jobSet);
    await s.expectFlags('only the driver running', { driver: 'R', workers: 'SS' });
    await s.markReady('driver');
    await s.expectFlags('the workers released', { driver: 'R', workers: 'RR' });
    const firstAttempt = await s.uids();

    // Act: a worker fails.
    await s.cluster.jobs.markFailed(s.namespace, s.job('workers', 0));
    await eventually('restarts = 1', async () => assert.equal((await s.jobSet()).status?.restarts, 1), STEP_TIMEOUT_MS);
    await s.expectCondition(ConditionType.RestartingJobSet, { status: 'True', reason: Reason.DefaultFailurePolicy });
    // The garbage collector deletes attempt 0's Pods, then its Jobs (foreground propagation).

    // Assess: attempt 1 starts from the first replicatedJob again.
    await s.expectFlags('attempt 1 created, only the driver running', { driver: 'R', workers: 'SS' });
    assert.deepEqual(await s.restartAttempts(), { [s.job('driver')]: '1', [s.job('workers', 0)]: '1', [s.job('workers', 1)]: '1' });
    const secondAttempt = await s.uids();
    for (const [name, uid] of Object.entries(firstAttempt)) assert.notEqual(secondAttempt[name], uid, `${name} was re-created`);
    await s.expectHeld('the workers of attempt 1 wait for its driver', { driver: 'R', workers: 'SS' });

    await s.markReady('driver');
    await s.expectFlags('the workers of attempt 1 released', { driver: 'R', workers: 'RR' });
    await s.markReady('workers');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
    await s.expectCondition(ConditionType.RestartingJobSet, { status: 'False', reason: Reason.JobsReady });
  });

  it('a JobSet managed by another controller is left alone: no Jobs, status untouched', async () => {
    const jobSet = makeJobSet('theirs').managedBy('example.com/other').inOrder().replicatedJob('driver', 1).replicatedJob('workers', 1).obj();
    const s = await start('other-manager', jobSet);
    // The forwarder drops its events; a Sync put straight on the bus makes sure the reconciler sees it too.
    const key = { cluster: CLUSTER_ID, namespace: s.namespace, name: s.name };
    await s.pipeline.putEntries([syncEntry(key)]);
    await eventually(
      'the reconciler made a pass over it',
      async () => {
        const state = await s.pipeline.store.getState(key);
        assert.ok(state !== undefined && state.dirty > 0 && state.reconciled === state.dirty && state.lease === undefined, JSON.stringify(state));
      },
      STEP_TIMEOUT_MS,
    );
    await s.pipeline.settle('another controller’s JobSet');

    assert.deepEqual(await s.flags(), {}, 'no Jobs');
    assert.equal((await s.jobSet()).status, undefined, 'status untouched');
    assert.deepEqual(s.pipeline.passesOf(s.namespace, s.name), [], 'a pass that changes nothing writes no journal entry');
    assert.deepEqual(await s.cluster.admin.eventsOf(s.namespace, s.name), [], 'no Events');
  });

  it('an invalid JobSet (a self-dependency, which the CRD admits) starts nothing: Rejected condition and a Warning Event', async () => {
    const jobSet = makeJobSet('self-dependent').replicatedJob('driver', 1).replicatedJob('workers', 1, { dependsOn: [{ name: 'workers', status: 'Ready' }] }).obj();
    const s = await start('invalid', jobSet);
    await s.expectCondition(ConditionType.Rejected, { status: 'True', reason: Reason.InvalidJobSet, message: /workers cannot depend on itself/ });
    await eventually('a Warning Event', async () => {
      const warnings = await s.cluster.jobs.warningEvents(s.namespace, s.name);
      assert.ok(warnings.some((w) => w.reason === Reason.InvalidJobSet && /cannot depend on itself/.test(w.message ?? '')), JSON.stringify(warnings));
    }, STEP_TIMEOUT_MS);
    await s.expectHeld('nothing starts', {});
  });

  // What only a real Job controller, TTL controller and garbage collector show: none of it is
  // written by the test, which only steers Pods (JobDriver).
  describe('on the real Job controller, TTL controller and garbage collector', () => {
    it('suspending a running gated replicatedJob: the Job controller deletes its pods and resets startTime, no failure is counted, and the sequence starts again on resume', async () => {
      const s = await start('real-suspend', exampleJobSet('story1-driver-ready-worker-start.yaml', 'suspend-running'));
      await s.expectFlags('only the driver running', { driver: 'R', workers: 'S' });
      await s.markReady('driver');
      await s.expectFlags('the workers released', { driver: 'R', workers: 'R' });
      const worker = await s.cluster.jobs.markReady(s.namespace, s.job('workers'));
      assert.ok(worker.status?.startTime !== undefined, 'the running worker has a startTime');
      const podsBefore = (await s.cluster.jobs.podsOf(s.namespace, s.job('workers'))).map((pod) => pod.metadata?.uid);
      assert.equal(podsBefore.length, worker.spec.parallelism, 'the worker runs its parallelism of pods');

      // Act: the user suspends the JobSet while the gated workers run.
      await s.cluster.jobs.setJobSetSuspend(s.namespace, s.name, true);
      await s.expectFlags('every Job suspended', { driver: 'S', workers: 'S' });

      // Assess: the Job controller deleted the pods and reset startTime; Lineup counted no failure.
      const suspended = await s.cluster.jobs.suspendedByJobController(s.namespace, s.job('workers'));
      assert.equal(suspended.status?.failed ?? 0, 0, 'a pod deleted by the suspension is no failure');
      await s.cluster.jobs.suspendedByJobController(s.namespace, s.job('driver'));
      await s.expectCondition(ConditionType.Suspended, { status: 'True', reason: Reason.SuspendedJobs });
      await s.expectHeld('still suspended', { driver: 'S', workers: 'S' });
      assert.equal((await s.jobSet()).status?.restarts ?? 0, 0, 'no restart');

      // Resumed: the driver again first, with new pods; the workers wait for it to be Ready again.
      await s.cluster.jobs.setJobSetSuspend(s.namespace, s.name, false);
      await s.expectFlags('the sequence starts again from the driver', { driver: 'R', workers: 'S' });
      await s.expectHeld('the workers wait for the new driver pod', { driver: 'R', workers: 'S' });
      await s.markReady('driver');
      await s.expectFlags('the workers released again', { driver: 'R', workers: 'R' });
      const podsAfter = (await s.cluster.jobs.runningPods(s.namespace, s.job('workers'))).map((pod) => pod.metadata?.uid);
      assert.ok(podsAfter.every((uid) => !podsBefore.includes(uid)), 'the resumed worker runs new pods');
      await s.markReady('workers');
      await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
      s.expectNoProblems();
    });

    it('a pod failing with backoffLimit 2 is retried by the Job controller; Lineup’s failure policy acts only once the Job fails', { timeout: 5 * 60_000 }, async () => {
      const jobSet = makeJobSet('retry-twice').replicatedJob('trainer', 1, { jobSpec: { backoffLimit: 2 } }).spec({ failurePolicy: { maxRestarts: 1 } }).obj();
      const s = await start('real-backoff', jobSet);
      await s.expectFlags('the trainer running', { trainer: 'R' });
      const attempt0 = await s.uids();

      for (const failures of [1, 2]) {
        // Act: the trainer's pod fails; the Job controller replaces it after its pod-failure backoff.
        const job = await s.cluster.jobs.failPods(s.namespace, s.job('trainer'), failures);
        assert.equal(jobConditionIsTrue(job, 'Failed'), false, `${failures} of 3 allowed failures: the job is not failed (${JSON.stringify(job?.status)})`);
        const retried = await s.cluster.jobs.runningPods(s.namespace, s.job('trainer'), RETRY_TIMEOUT_MS);
        assert.equal(retried.length, 1, 'a new pod replaces the failed one');
        // Assess: Lineup leaves a retrying Job alone.
        await s.expectHeld(`after failure ${failures}: same Job, no restart`, { trainer: 'R' });
        assert.deepEqual(await s.uids(), attempt0, 'the Job is the one of attempt 0');
        assert.equal((await s.jobSet()).status?.restarts ?? 0, 0, 'no restart while the Job retries');
      }

      // Act: the third failure exceeds backoffLimit 2; the Job controller fails the Job.
      await s.cluster.jobs.failPods(s.namespace, s.job('trainer'), 3);

      // Assess: only now does the failure policy restart the JobSet.
      await eventually('restarts = 1', async () => assert.equal((await s.jobSet()).status?.restarts, 1), STEP_TIMEOUT_MS);
      await s.expectCondition(ConditionType.RestartingJobSet, { status: 'True', reason: Reason.DefaultFailurePolicy });
      await eventually('attempt 1 created', async () => {
        assert.deepEqual(await s.restartAttempts(), { [s.job('trainer')]: '1' });
        assert.notEqual((await s.uids())[s.job('trainer')], attempt0[s.job('trainer')]);
      }, STEP_TIMEOUT_MS);
      await s.expectFlags('attempt 1 running', { trainer: 'R' });
      await s.markReady('trainer');
      await s.expectCondition(ConditionType.RestartingJobSet, { status: 'False', reason: Reason.JobsReady });
    });

    it('a JobSet deleted mid-startup: the garbage collector deletes its Jobs and their pods, and Lineup creates none again', async () => {
      assert.ok(cluster);
      const s = await start('real-gc', exampleJobSet('story2-messagequeue-driver-worker.yaml', 'deleted-early'));
      await s.expectFlags('only the message queue running', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
      await s.markReady('messagequeue');
      await s.expectFlags('the drivers released', { messagequeue: 'R', driver: 'RR', worker: 'SS' });
      await s.cluster.jobs.runningPods(s.namespace, s.job('driver', 0));
      const jobs = Object.keys(await s.uids());

      // Act: the user deletes the JobSet (background propagation, kubectl's default).
      const response = await cluster.kube.request('DELETE', `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${s.namespace}/jobsets/${s.name}`);
      assert.equal(response.status, 200, response.body.slice(0, 300));

      // Assess: the JobSet, its Jobs (owned through ownerReferences) and their pods are gone.
      await eventually(
        'the garbage collector deleted every Job and pod',
        async () => {
          assert.equal(await cluster?.admin.getJobSet(s.namespace, s.name), undefined, 'the jobset is gone');
          assert.deepEqual(await s.flags(), {}, 'no job left');
          const pods = (await Promise.all(jobs.map((job) => s.cluster.jobs.allPodsOf(s.namespace, job)))).flat();
          assert.deepEqual(pods.map((pod) => pod.metadata?.name), [], 'no pod left');
        },
        STEP_TIMEOUT_MS,
        250,
      );
      await s.pipeline.settle(`${s.namespace}/${s.name}: after the deletion`);
      assert.deepEqual(await s.flags(), {}, 'Lineup created no Job for the deleted JobSet');
      s.expectNoProblems();
    });

    // upstream #360: a Job deleted by its own ttlSecondsAfterFinished must not make the JobSet
    // re-create it or restart (upstream counts it from the JobSet's status; Lineup records it).
    it('a Job deleted by its own TTL (the real TTL controller) is recorded, not re-created, no restart, and the replicatedJob depending on it still runs', async () => {
      const jobSet = makeJobSet('ttl-prepare')
        .replicatedJob('prepare', 1, { jobSpec: { ttlSecondsAfterFinished: 0 } })
        .replicatedJob('train', 1, { dependsOn: [{ name: 'prepare', status: 'Complete' }] })
        .spec({ failurePolicy: { maxRestarts: 1 } })
        .obj();
      const s = await start('job-ttl', jobSet);
      await s.expectFlags('only prepare running', { prepare: 'R', train: 'S' });
      const prepare = await s.cluster.admin.job(s.namespace, s.job('prepare'));
      assert.deepEqual(prepare.metadata.finalizers, [LineupKey.FinishedRecordFinalizer], 'a Job with a TTL holds the finished-record finalizer');

      // Act: prepare's pod succeeds; the Job controller completes it and its TTL (0 s) has the TTL controller delete it.
      await s.cluster.jobs.markComplete(s.namespace, s.job('prepare'));

      // Assess: the outcome is recorded, the Job is gone for good, and train runs.
      await eventually('prepare recorded in lineup.dev/finished-jobs', async () => {
        const record = (await s.jobSet()).metadata.annotations?.[LineupKey.FinishedJobsAnnotation];
        assert.ok(record !== undefined, 'no finished-jobs annotation yet');
        assert.deepEqual(JSON.parse(record), { restartAttempt: 0, succeeded: { prepare: '0' }, failed: {} });
      }, STEP_TIMEOUT_MS);
      await eventually('the TTL controller deleted prepare (Lineup released its finalizer)', async () => {
        assert.equal(await s.cluster.admin.getJob(s.namespace, s.job('prepare')), undefined);
      }, STEP_TIMEOUT_MS);
      await s.expectFlags('prepare gone, train released', { train: 'R' });
      await s.expectHeld('prepare is not re-created', { train: 'R' });
      const stored = await s.jobSet();
      assert.equal(stored.status?.replicatedJobsStatus?.find((r) => r.name === 'prepare')?.succeeded, 1, 'the recorded Job keeps counting as succeeded');
      assert.equal(stored.status?.restarts ?? 0, 0, 'a missing finished Job restarts nothing');
      assert.equal(conditionOf(stored, ConditionType.RestartingJobSet), undefined, 'no RestartingJobSet condition');

      await s.cluster.jobs.markComplete(s.namespace, s.job('train'));
      await s.expectCondition(ConditionType.Completed, { status: 'True', reason: Reason.AllJobsCompleted });
      s.expectNoProblems();
    });
  });

  it('left nothing behind: the queue and its DLQ are empty, and no record failed for good', async () => {
    assert.ok(pipeline);
    await pipeline.settle('all scenarios');
    assert.equal(await pipeline.queueDepth(pipeline.dlqUrl), 0, 'messages in the DLQ');
    assert.deepEqual(pipeline.logs.filter((line) => line.level === 'error'), [], 'error lines');
  });

  it("the journal the real pipeline wrote replays with no difference: today's planner on every recorded pass of every scenario", async () => {
    assert.ok(pipeline);
    const states = await pipeline.store.listJobSets(CLUSTER_ID);
    assert.ok(states.length >= 10, `JobSets recorded: ${states.length}`);
    let passes = 0;
    let forwarded = 0;
    for (const state of states) {
      const entries = await pipeline.store.listJournal(state.key);
      const report = replayRecording(recordingOf(state.key, entries));
      const key = `${state.key.namespace}/${state.key.name}`;
      assert.deepEqual(report.passes.filter((outcome) => outcome.result !== 'same'), [], `${key}: passes that differ or cannot be replayed`);
      passes += entries.length;
      // A pass triggered by a forwarded change knows every hop from the forwarder on.
      for (const entry of entries) {
        if (entry.triggers.length === 0 || entry.timings.seenAt === undefined) continue;
        forwarded += 1;
        const { seenAt, eventAt, receivedAt, passStartedAt, writesDoneAt } = entry.timings;
        assert.ok(eventAt !== undefined && receivedAt !== undefined, `${key}: hops of a forwarded event`);
        assert.ok(seenAt <= receivedAt && receivedAt <= passStartedAt && passStartedAt <= writesDoneAt, `${key}: ${JSON.stringify(entry.timings)}`);
      }
    }
    assert.ok(passes > 0 && forwarded > 0, `${passes} passes, ${forwarded} triggered by forwarded changes`);
  });

  it('the journal the real pipeline wrote re-enacts under perturbed events: every recording of the real controllers keeps its startup order and final state over 20 seeds', async (t) => {
    assert.ok(pipeline);
    const seeds = Array.from({ length: PERTURB_SEEDS }, (_, index) => index + 1);
    const results: string[] = [];
    for (const state of await pipeline.store.listJobSets(CLUSTER_ID)) {
      const entries = await pipeline.store.listJournal(state.key);
      if (entries.length === 0) continue;
      const key = `${state.key.namespace}/${state.key.name}`;
      const report = perturb(recordedRunOf(recordingOf(state.key, entries), key), seeds);
      assert.equal(report.failure, undefined, `${key}: seed ${report.failure?.seed ?? ''} failed: ${report.failure?.problem ?? ''}`);
      results.push(`${key} ${report.passed}/${seeds.length}`);
    }
    t.diagnostic(`re-enacted: ${results.join(', ')}`);
    assert.ok(results.length >= 10, `recordings re-enacted: ${results.length}`);
  });

  // Runs last in its describe: were the bug it once showed back (lib/jobset/schema.ts refusing a
  // null lastProbeTime, and the forwarder's watch re-reading the event it cannot parse forever),
  // the stalled forwarder would fail every scenario after it. Bounded at 10 s once the Job
  // controller counts the driver Ready: a healthy pipeline takes < 1 s.
  it('a Job condition written without lastProbeTime (the API then serves "lastProbeTime": null) does not stall the pipeline', async () => {
    assert.ok(cluster && pipeline);
    const s = await start('null-probe-time', exampleJobSet('story1-driver-ready-worker-start.yaml', 'null-probe'));
    await s.expectFlags('only the driver running', { driver: 'R', workers: 'S' });
    const bystander = await start('null-probe-bystander', exampleJobSet('story1-driver-ready-worker-start.yaml', 'bystander'));
    await bystander.expectFlags('only the driver running', { driver: 'R', workers: 'S' });

    // Act: the admin adds a condition without lastProbeTime to the driver's status — valid
    // Kubernetes (JobCondition.lastProbeTime is optional; a zero metav1.Time is served as null),
    // as clients that set only type, status and lastTransitionTime write it. The Job controller
    // never writes one, so this one status write is the admin's, on top of the Job controller's
    // counts (kept as they are); then the driver's Pod turns Ready and the Job controller writes
    // its status again, keeping the condition.
    const at = new Date().toISOString().slice(0, 19) + 'Z';
    await eventually(
      'the condition without lastProbeTime written (409 while the Job controller writes: try again)',
      async () => {
        const driver = await cluster?.admin.job(s.namespace, s.job('driver'));
        const response = await cluster?.kube.request('PUT', `/apis/batch/v1/namespaces/${s.namespace}/jobs/${s.job('driver')}/status`, {
          ...driver,
          status: { ...driver?.status, conditions: [...(driver?.status?.conditions ?? []), { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed', lastTransitionTime: at }] },
        });
        assert.equal(response?.status, 200, response?.body.slice(0, 300));
        assert.match(response?.body ?? '', /"lastProbeTime":null/, 'the API server serves the missing lastProbeTime as null');
      },
      STEP_TIMEOUT_MS,
    );
    await Promise.all([s.markReady('driver'), bystander.markReady('driver')]);
    const driver = await cluster.admin.job(s.namespace, s.job('driver'));
    assert.deepEqual(
      driver.status?.conditions?.map((c) => ({ type: c.type, status: c.status, lastProbeTime: c.lastProbeTime })),
      [{ type: 'Suspended', status: 'False', lastProbeTime: undefined }],
      'the Job controller kept the condition without lastProbeTime',
    );

    // Assess: both JobSets go on — the one whose Job carries the condition, and one that has nothing to do with it.
    await eventually(
      'both JobSets release their workers',
      async () => assert.deepEqual({ poisoned: await s.flags(), bystander: await bystander.flags() }, { poisoned: { driver: 'R', workers: 'R' }, bystander: { driver: 'R', workers: 'R' } }),
      10_000,
      200,
    );
  });
});
