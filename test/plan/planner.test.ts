import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventReason } from '../../lib/jobset/api.ts';
import { MAX_CREATES_PER_PASS } from '../../lib/plan/creation.ts';
import type { Action, Plan } from '../../lib/plan/types.ts';
import { fatalThenRestartJobSet, makeJobSet } from '../builders.ts';
import { lineupOptions, TestCluster } from './harness.ts';

/** upstream test/integration/controller fixture testJobSet: replicated-job-a (1) and replicated-job-b (3). */
const testJobSet = () =>
  makeJobSet('test-js', 'ns')
    .replicatedJob('replicated-job-a', 1)
    .replicatedJob('replicated-job-b', 3)
    .spec({ network: { enableDNSHostnames: true } });

const kinds = (actions: readonly Action[]): string[] => actions.map((a) => a.kind);
const a0 = 'test-js-replicated-job-a-0';
const bNames = ['test-js-replicated-job-b-0', 'test-js-replicated-job-b-1', 'test-js-replicated-job-b-2'];
const rjobStatus = (cluster: TestCluster, name: string) => cluster.jobSet?.status?.replicatedJobsStatus?.find((s) => s.name === name);

describe('jobset_controller_test.go (integration entries)', () => {
  it('startupPolicy with InOrder; suspend should keep jobs suspended', () => {
    const cluster = new TestCluster(testJobSet().inOrder().suspend().obj());
    cluster.settle();
    assert.deepEqual(cluster.suspendedNames(), [a0, ...bNames]);
    assert.equal(rjobStatus(cluster, 'replicated-job-a')?.suspended, 1);
    assert.equal(rjobStatus(cluster, 'replicated-job-b')?.suspended, 3);
    // upstream: no startup conditions while suspended.
    assert.equal(cluster.condition('StartupPolicyInProgress'), undefined);
    assert.equal(cluster.condition('Suspended')?.status, 'True');
  });

  it('startupPolicy with AnyOrder; suspend should keep jobs suspended', () => {
    const cluster = new TestCluster(testJobSet().anyOrder().suspend().obj());
    cluster.settle();
    assert.deepEqual(cluster.suspendedNames(), [a0, ...bNames]);
  });

  it('startupPolicy with AnyOrder; resume suspended JobSet', () => {
    const cluster = new TestCluster(testJobSet().anyOrder().suspend().obj());
    cluster.settle();
    cluster.setSuspend(false);
    cluster.settle();
    assert.deepEqual(cluster.suspendedNames(), []);
    assert.equal(rjobStatus(cluster, 'replicated-job-b')?.suspended, 0);
    assert.equal(cluster.condition('Suspended')?.status, 'False');
    assert.equal(cluster.condition('Suspended')?.reason, 'ResumeJobs');
  });

  it('startupPolicy with InOrder; resume suspended JobSet', () => {
    const cluster = new TestCluster(testJobSet().inOrder().suspend().obj());
    cluster.settle();
    cluster.setSuspend(false);
    cluster.settle();
    // only a resumed; b stays suspended.
    assert.deepEqual(cluster.runningNames(), [a0]);
    assert.equal(rjobStatus(cluster, 'replicated-job-b')?.suspended, 3);
    assert.equal(cluster.condition('StartupPolicyInProgress')?.status, 'True');
    cluster.ready(a0);
    cluster.settle();
    assert.deepEqual(cluster.suspendedNames(), []);
    assert.equal(cluster.condition('StartupPolicyInProgress')?.status, 'True');
    cluster.readyAll('replicated-job-b');
    cluster.settle();
    assert.equal(rjobStatus(cluster, 'replicated-job-b')?.ready, 3);
    assert.equal(rjobStatus(cluster, 'replicated-job-b')?.active, 3);
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status, 'True');
    assert.equal(cluster.condition('StartupPolicyInProgress')?.status, 'False');
  });

  it('startupPolicy InOrder; replicated-job-a not ready then replicated-job-b should not run', () => {
    const cluster = new TestCluster(testJobSet().inOrder().obj());
    cluster.settle();
    // DEVIATION: all 4 Jobs exist from the start; b's are suspended (upstream: not created yet).
    assert.deepEqual(cluster.runningNames(), [a0]);
    assert.deepEqual(cluster.suspendedNames(), bNames);
    const inProgress = cluster.condition('StartupPolicyInProgress');
    assert.equal(inProgress?.status, 'True');
    assert.equal(inProgress?.reason, 'InOrderStartupPolicyInProgress');
    assert.match(inProgress?.message ?? '', /^in order startup policy is in progress: waiting for replicated-job-a to be Ready: 0\/1 jobs ready$/);
    cluster.ready(a0);
    cluster.settle();
    assert.deepEqual(cluster.suspendedNames(), []);
    // b active but not ready keeps InProgress.
    for (const name of bNames) {
      const job = cluster.job(name);
      cluster.jobs.set(name, { ...job, status: { active: 1, ready: 0 } });
    }
    cluster.settle();
    assert.equal(cluster.condition('StartupPolicyInProgress')?.status, 'True');
    cluster.readyAll('replicated-job-b');
    cluster.settle();
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status, 'True');
    assert.equal(cluster.condition('StartupPolicyCompleted')?.reason, 'InOrderStartupPolicyCompleted');
    // Once complete, InProgress reads exactly as upstream's: no stale "waiting for …".
    assert.deepEqual(
      { status: cluster.condition('StartupPolicyInProgress')?.status, message: cluster.condition('StartupPolicyInProgress')?.message },
      { status: 'False', message: 'in order startup policy is in progress' },
    );
  });

  it('startupPolicy with InOrder; success policy restart; replicated-job-a ready than replicated-job-b should run', () => {
    const cluster = new TestCluster(testJobSet().inOrder().spec({ failurePolicy: { maxRestarts: 1 } }).obj());
    cluster.settle();
    cluster.ready(a0);
    cluster.settle();
    cluster.readyAll('replicated-job-b');
    cluster.settle();
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status, 'True');
    // Prepare: one Job fails ⇒ restart.
    cluster.fail(bNames[0] ?? '');
    cluster.pass();
    assert.equal(cluster.jobSet?.status?.restarts, 1);
    assert.equal(cluster.condition('RestartingJobSet')?.status, 'True');
    // Act: the next passes delete the old attempt and re-run the sequence from the first step.
    cluster.settle();
    assert.deepEqual(cluster.runningNames(), [a0]);
    assert.deepEqual(cluster.suspendedNames(), bNames);
    assert.equal(cluster.condition('StartupPolicyInProgress')?.status, 'True');
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status, 'False');
    cluster.ready(a0);
    cluster.settle();
    cluster.readyAll('replicated-job-b');
    cluster.settle();
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status, 'True');
    assert.deepEqual(
      [...cluster.jobs.values()].map((job) => [job.metadata.name, job.metadata.labels?.['jobset.sigs.k8s.io/restart-attempt']]),
      [a0, ...bNames].map((name) => [name, '1']),
      'every Job is of the second attempt',
    );
  });

  it('DependsOn: rjob-b depends on ready status of rjob-a', () => {
    const cluster = new TestCluster(
      makeJobSet('js').replicatedJob('rjob-a', 1).replicatedJob('rjob-b', 3, { dependsOn: [{ name: 'rjob-a', status: 'Ready' }] }).obj(),
    );
    cluster.settle();
    assert.equal(cluster.runningNames().length, 1);
    cluster.readyAll('rjob-a');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 4);
    cluster.ready('js-rjob-b-0');
    cluster.settle();
    assert.equal(rjobStatus(cluster, 'rjob-a')?.ready, 1);
    assert.equal(rjobStatus(cluster, 'rjob-b')?.ready, 1);
    assert.equal(cluster.condition('StartupPolicyInProgress')?.reason, 'DependsOnStartupInProgress');
  });

  it('DependsOn: rjob-b depends on complete status of rjob-a, and rjob-c depends on ready status of rjob-b', () => {
    const cluster = new TestCluster(
      makeJobSet('js')
        .replicatedJob('rjob-a', 1)
        .replicatedJob('rjob-b', 1, { dependsOn: [{ name: 'rjob-a', status: 'Complete' }] })
        .replicatedJob('rjob-c', 3, { dependsOn: [{ name: 'rjob-b', status: 'Ready' }] })
        .obj(),
    );
    cluster.settle();
    assert.equal(cluster.runningNames().length, 1);
    cluster.readyAll('rjob-a');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 1, 'Ready is not Complete');
    cluster.completeAll('rjob-a');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 2);
    cluster.readyAll('rjob-b');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 5);
    cluster.completeAll('rjob-b');
    cluster.completeAll('rjob-c');
    cluster.settle();
    assert.deepEqual(
      ['rjob-a', 'rjob-b', 'rjob-c'].map((name) => rjobStatus(cluster, name)?.succeeded),
      [1, 1, 3],
    );
    assert.equal(cluster.jobSet?.status?.terminalState, 'Completed');
  });

  it('DependsOn: rjob-c depends on complete status of rjob-a and rjob-b', () => {
    const cluster = new TestCluster(
      makeJobSet('js')
        .replicatedJob('rjob-a', 1)
        .replicatedJob('rjob-b', 1)
        .replicatedJob('rjob-c', 3, { dependsOn: [{ name: 'rjob-a', status: 'Complete' }, { name: 'rjob-b', status: 'Complete' }] })
        .obj(),
    );
    cluster.settle();
    assert.equal(cluster.runningNames().length, 2);
    cluster.completeAll('rjob-a');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 2);
    cluster.completeAll('rjob-b');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 5);
  });

  it('DependsOn: rjob-c depends on ready status of rjob-a and complete status of rjob-b', () => {
    const cluster = new TestCluster(
      makeJobSet('js')
        .replicatedJob('rjob-a', 1)
        .replicatedJob('rjob-b', 1)
        .replicatedJob('rjob-c', 3, { dependsOn: [{ name: 'rjob-a', status: 'Ready' }, { name: 'rjob-b', status: 'Complete' }] })
        .obj(),
    );
    cluster.settle();
    assert.equal(cluster.runningNames().length, 2);
    cluster.readyAll('rjob-a');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 2);
    cluster.completeAll('rjob-b');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 5);
  });

  it('DependsOn: resume suspended JobSet when rjob-b depends on ready status of rjob-a', () => {
    const cluster = new TestCluster(
      makeJobSet('js').replicatedJob('rjob-a', 1).replicatedJob('rjob-b', 3, { dependsOn: [{ name: 'rjob-a', status: 'Ready' }] }).suspend().obj(),
    );
    cluster.settle();
    // DEVIATION: b's Jobs exist (suspended) while the JobSet is suspended; upstream creates only a.
    assert.equal(cluster.suspendedNames().length, 4);
    cluster.setSuspend(false);
    cluster.settle();
    assert.deepEqual(cluster.runningNames(), ['js-rjob-a-0']);
    cluster.readyAll('rjob-a');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 4);
  });

  it('resume a suspended jobset', () => {
    // Prepare: suspended JobSet, Jobs created; then the pod template is changed while suspended (Kueue).
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('rjob', 2).suspend().obj());
    cluster.settle();
    const jobSet = cluster.jobSet;
    assert.ok(jobSet?.spec.replicatedJobs?.[0]);
    const podTemplate = jobSet.spec.replicatedJobs[0].template.spec.template;
    podTemplate.metadata = { labels: { queue: 'gold' }, annotations: { note: 'admitted' } };
    podTemplate.spec = { ...podTemplate.spec, nodeSelector: { zone: 'a' }, tolerations: [{ key: 'gpu', operator: 'Exists' }], schedulingGates: [{ name: 'kueue' }] };
    cluster.jobSet = jobSet;
    // The Job already ran once: it has a startTime, which Kubernetes requires cleared before the template changes.
    const job0 = cluster.job('js-rjob-0');
    cluster.jobs.set('js-rjob-0', { ...job0, status: { startTime: '2026-01-01T00:00:00Z' } });
    // Act
    cluster.setSuspend(false);
    const resumed = cluster.pass().actions.filter((a) => a.kind === 'ResumeJob');
    // Assess
    assert.equal(resumed.length, 2);
    const first = resumed.find((a) => a.kind === 'ResumeJob' && a.name === 'js-rjob-0');
    assert.ok(first && first.kind === 'ResumeJob');
    assert.equal(first.clearStartTime, true);
    assert.equal(first.podTemplate?.labels['queue'], 'gold');
    assert.equal(first.podTemplate?.labels['jobset.sigs.k8s.io/jobset-name'], 'js', 'merge keeps the JobSet keys');
    assert.equal(first.podTemplate?.annotations['note'], 'admitted');
    assert.deepEqual(first.podTemplate?.nodeSelector, { zone: 'a' });
    assert.deepEqual(first.podTemplate?.tolerations, [{ key: 'gpu', operator: 'Exists' }]);
    assert.deepEqual(first.podTemplate?.schedulingGates, [{ name: 'kueue' }]);
    assert.equal(cluster.condition('Suspended')?.status, 'False');
  });

  it('resume after Kueue admits the JobSet again on another flavor: the Job takes the new node labels and tolerations, not the old ones beside them', () => {
    // Prepare: admitted on flavor a, the Job created with a's labels; evicted (Kueue restores the
    // template) and admitted again on flavor b.
    const flavored = (selector: Record<string, string>, toleration: string) => {
      const jobSet = makeJobSet('js').replicatedJob('rjob', 1).suspend().obj();
      const template = jobSet.spec.replicatedJobs?.[0]?.template.spec.template;
      assert.ok(template);
      template.spec = { ...template.spec, nodeSelector: selector, tolerations: [{ key: toleration, operator: 'Exists' }] };
      return jobSet;
    };
    const cluster = new TestCluster(flavored({ pool: 'a', zone: 'east' }, 'flavor-a'));
    cluster.settle();
    cluster.jobSet = flavored({ pool: 'b' }, 'flavor-b');
    // Act
    cluster.setSuspend(false);
    const resumed = cluster.pass().actions.find((a) => a.kind === 'ResumeJob');
    // Assess
    assert.ok(resumed && resumed.kind === 'ResumeJob');
    assert.deepEqual(resumed.podTemplate?.nodeSelector, { pool: 'b' });
    assert.deepEqual(resumed.podTemplate?.nodeSelectorRemoved, ['zone'], 'the old flavor-only key goes; pool is overwritten');
    assert.deepEqual(resumed.podTemplate?.tolerations, [{ key: 'flavor-b', operator: 'Exists' }]);
  });

  it('suspend a running jobset', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('rjob', 2).obj());
    cluster.settle();
    cluster.readyAll('rjob');
    cluster.setSuspend(true);
    const actions = cluster.pass().actions;
    assert.deepEqual(kinds(actions).filter((k) => k === 'SuspendJob').length, 2);
    assert.equal(cluster.condition('Suspended')?.status, 'True');
    assert.equal(cluster.condition('Suspended')?.reason, 'SuspendedJobs');
  });

  describe('A JobSet is managed by another controller', () => {
    const external = () => testJobSet().managedBy('other-controller').status({ restarts: 7, conditions: [{ type: 'Completed', status: 'True', reason: 'X', message: 'theirs' }] });
    it('Should not create any jobs for it, while suspended', () => {
      const cluster = new TestCluster(external().suspend().obj());
      const result = cluster.pass();
      assert.equal(result.skipped, 'NotManaged');
      assert.equal(cluster.jobs.size, 0);
    });
    it('Should not create any jobs for it, when unsuspended', () => {
      const cluster = new TestCluster(external().obj());
      cluster.pass();
      assert.equal(cluster.jobs.size, 0);
      assert.equal(cluster.service, undefined);
    });
    it('Updates to its status are preserved', () => {
      const before = external().obj();
      const cluster = new TestCluster(before);
      cluster.pass();
      assert.deepEqual(cluster.jobSet?.status, before.status);
    });
    it("leaves a JobSet carrying upstream's reserved managedBy to upstream", () => {
      const cluster = new TestCluster(testJobSet().managedBy('jobset.sigs.k8s.io/jobset-controller').obj());
      assert.equal(cluster.pass().skipped, 'NotManaged');
    });
    it('takes a JobSet without managedBy only when claimUnmanaged is set', () => {
      const unmanaged = testJobSet().managedBy(undefined).obj();
      assert.equal(new TestCluster(unmanaged).pass().skipped, 'NotManaged');
      const claimed = new TestCluster(unmanaged, { controllerName: 'lineup.dev/controller', claimUnmanaged: true });
      claimed.settle();
      assert.equal(claimed.jobs.size, 4);
    });
  });

  it('service deleted', () => {
    const cluster = new TestCluster(testJobSet().obj());
    cluster.settle();
    assert.equal(cluster.service?.metadata.name, 'test-js');
    cluster.service = undefined;
    const actions = cluster.pass().actions;
    assert.deepEqual(kinds(actions), ['CreateService']);
  });
});

/** conditionsOf: the JobSet's conditions as [type, status, reason, message], in status order. */
const conditionsOf = (cluster: TestCluster): (string | undefined)[][] =>
  (cluster.jobSet?.status?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message]);

describe('condition reasons and messages, as literal strings', () => {
  // Upstream's are copied from pkg/constants/constants.go and pkg/controllers (v0.12.0): a test
  // reading lib/jobset/api.ts back would pass with a wrong constant.
  it("upstream's: suspended, resumed, InOrder in progress and completed, JobSet completed", () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 2).inOrder().suspend().obj());
    cluster.settle();
    assert.deepEqual(conditionsOf(cluster), [['Suspended', 'True', 'SuspendedJobs', 'jobset is suspended']]);
    cluster.setSuspend(false);
    cluster.settle();
    cluster.readyAll('a');
    cluster.settle();
    cluster.readyAll('b');
    cluster.settle();
    cluster.completeAll('a');
    cluster.completeAll('b');
    cluster.settle();
    assert.deepEqual(conditionsOf(cluster), [
      ['Suspended', 'False', 'ResumeJobs', 'jobset is resumed'],
      ['StartupPolicyInProgress', 'False', 'InOrderStartupPolicyInProgress', 'in order startup policy is in progress'],
      ['StartupPolicyCompleted', 'True', 'InOrderStartupPolicyCompleted', 'in order startup policy has completed'],
      ['Completed', 'True', 'AllJobsCompleted', 'jobset completed successfully'],
    ]);
  });

  it("upstream's: restarting by the default failure policy, all jobs ready, then failed at the restart limit", () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 2).spec({ failurePolicy: { maxRestarts: 1 } }).obj());
    cluster.settle();
    cluster.fail('js-a-1');
    cluster.settle();
    assert.deepEqual(conditionsOf(cluster), [['RestartingJobSet', 'True', 'DefaultFailurePolicy', 'applying RestartJobSet failure policy action (first failed job: js-a-1)']]);
    assert.deepEqual(cluster.events.at(-1), {
      reason: 'RestartJobSetFailurePolicyAction',
      message: 'applying RestartJobSet failure policy action (first failed job: js-a-1)',
      eventType: 'Warning',
    });
    cluster.readyAll('a');
    cluster.settle();
    assert.deepEqual(conditionsOf(cluster), [['RestartingJobSet', 'False', 'JobsReady', 'all jobs are ready']]);
    cluster.fail('js-a-0');
    cluster.settle();
    assert.deepEqual(conditionsOf(cluster), [
      ['RestartingJobSet', 'False', 'JobSetFailed', 'jobset failed'],
      ['Failed', 'True', 'ReachedMaxRestarts', 'jobset failed due to reaching max number of restarts (first failed job: js-a-0)'],
    ]);
  });

  it("upstream's: a named RestartJobSetAndIgnoreMaxRestarts rule, then a FailJobSet rule", () => {
    const cluster = new TestCluster(
      fatalThenRestartJobSet(),
    );
    cluster.settle();
    cluster.fail('js-a-0');
    cluster.settle();
    assert.deepEqual(conditionsOf(cluster), [
      ['RestartingJobSet', 'True', 'FailurePolicy_again', 'applying RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: js-a-0)'],
    ]);
    assert.equal(cluster.events.at(-1)?.reason, 'RestartJobSetAndIgnoreMaxRestartsFailurePolicyAction');
    cluster.fail('js-a-0', 'PodFailurePolicy');
    cluster.settle();
    assert.deepEqual(conditionsOf(cluster), [
      ['RestartingJobSet', 'False', 'JobSetFailed', 'jobset failed'],
      ['Failed', 'True', 'FailJobSetFailurePolicyAction', 'applying FailJobSet failure policy action (first failed job: js-a-0)'],
    ]);
  });

  it("Lineup's own: dependsOn and startup rules in progress and completed", () => {
    const dependsOn = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [{ name: 'a', status: 'Ready' }] }).obj());
    const rules = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1).annotation('lineup.dev/startup-rules', '[{name: a, status: Ready}]').obj());
    for (const cluster of [dependsOn, rules]) cluster.settle();
    assert.deepEqual(conditionsOf(dependsOn), [
      ['StartupPolicyInProgress', 'True', 'DependsOnStartupInProgress', 'dependsOn startup is in progress: waiting for a to be Ready: 0/1 jobs ready'],
    ]);
    assert.deepEqual(conditionsOf(rules), [['StartupPolicyInProgress', 'True', 'StartupRulesInProgress', 'startup rules are in progress: waiting for a to be Ready: 0/1 jobs ready']]);
    for (const cluster of [dependsOn, rules]) {
      cluster.readyAll('a');
      cluster.settle();
      cluster.readyAll('b');
      cluster.settle();
    }
    assert.deepEqual(conditionsOf(dependsOn), [
      ['StartupPolicyInProgress', 'False', 'DependsOnStartupInProgress', 'dependsOn startup is in progress'],
      ['StartupPolicyCompleted', 'True', 'DependsOnStartupCompleted', 'dependsOn startup has completed'],
    ]);
    assert.deepEqual(conditionsOf(rules), [
      ['StartupPolicyInProgress', 'False', 'StartupRulesInProgress', 'startup rules are in progress'],
      ['StartupPolicyCompleted', 'True', 'StartupRulesCompleted', 'startup rules have completed'],
    ]);
  });

  it("Lineup's own: an invalid JobSet is Rejected with the error, as a condition and a Warning event", () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [{ name: 'b', status: 'Ready' }] }).obj());
    cluster.settle();
    const message = 'spec.replicatedJobs[1].dependsOn[0].name: replicatedJob: b cannot depend on itself (upstream admits this and the replicatedJob never starts; Lineup rejects it)';
    assert.deepEqual(conditionsOf(cluster), [['Rejected', 'True', 'InvalidJobSet', message]]);
    assert.deepEqual(cluster.events, [{ reason: 'InvalidJobSet', message, eventType: 'Warning' }]);
  });
});

describe('planner: Lineup behaviour', () => {
  it('creates every Job at once and holds gated ones suspended (docs/design.md#how-gating-works)', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 2).replicatedJob('b', 2).inOrder().obj());
    const first = cluster.pass();
    assert.deepEqual(kinds(first.actions), ['CreateService', 'CreateJob', 'CreateJob', 'CreateJob', 'CreateJob', 'UpdateJobSetStatus', 'EmitEvent']);
    assert.deepEqual(first.startup?.gates, [
      { replicatedJob: 'a', released: true },
      { replicatedJob: 'b', released: false, waitingOn: { replicatedJob: 'a', status: 'Ready', have: 0, need: 2, message: 'waiting for a to be Ready: 0/2 jobs ready' } },
    ]);
  });

  it('is deterministic: the same observation gives the same plan', () => {
    const jobSet = makeJobSet('js').replicatedJob('a', 3).replicatedJob('b', 2, { dependsOn: [{ name: 'a', status: 'Ready' }] }).obj();
    const one = new TestCluster(jobSet).pass();
    const two = new TestCluster(jobSet).pass();
    assert.deepEqual(one, two);
  });

  it('rejects an invalid JobSet with a condition and a Warning event, and starts nothing', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [{ name: 'b', status: 'Ready' }] }).obj());
    cluster.settle();
    assert.equal(cluster.jobs.size, 0);
    const rejected = cluster.condition('Rejected');
    assert.equal(rejected?.status, 'True');
    assert.match(rejected?.message ?? '', /spec\.replicatedJobs\[1\]\.dependsOn\[0\]/);
    assert.equal(cluster.events.at(-1)?.eventType, 'Warning');
  });

  it('orders by the startup-rules annotation and reports its own condition reasons', () => {
    const rules = '- targetReplicatedJobs: [dataset]\n  status: Succeeded\n- {name: driver, status: Ready}\n';
    const cluster = new TestCluster(
      makeJobSet('js').replicatedJob('dataset', 2).replicatedJob('driver', 1).replicatedJob('workers', 2).annotation('lineup.dev/startup-rules', rules).obj(),
    );
    cluster.settle();
    assert.deepEqual(cluster.runningNames(), ['js-dataset-0', 'js-dataset-1']);
    assert.equal(cluster.condition('StartupPolicyInProgress')?.reason, 'StartupRulesInProgress');
    cluster.readyAll('dataset');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 2, 'Ready is not Succeeded');
    cluster.completeAll('dataset');
    cluster.settle();
    assert.deepEqual(cluster.runningNames(), ['js-dataset-0', 'js-dataset-1', 'js-driver-0']);
    cluster.readyAll('driver');
    cluster.settle();
    assert.equal(cluster.runningNames().length, 5);
    cluster.readyAll('workers');
    cluster.settle();
    assert.equal(cluster.condition('StartupPolicyCompleted')?.reason, 'StartupRulesCompleted');
  });

  it('does not re-create or re-run a Job that succeeded and was deleted by its own TTL (kubernetes-sigs/jobset#360)', () => {
    const cluster = new TestCluster(
      makeJobSet('js')
        .replicatedJob('init', 1, { jobSpec: { ttlSecondsAfterFinished: 0 } })
        .replicatedJob('main', 2, { dependsOn: [{ name: 'init', status: 'Complete' }] })
        .obj(),
    );
    cluster.settle();
    const init = cluster.job('js-init-0');
    assert.deepEqual(init.metadata.finalizers, ['lineup.dev/finished-record']);
    cluster.complete('js-init-0');
    // The Job's TTL fires at once: deletion waits on Lineup's finalizer.
    cluster.deleteJob('js-init-0');
    cluster.settle();
    assert.equal(cluster.jobs.has('js-init-0'), false, 'recorded, then the finalizer was released');
    assert.match(cluster.jobSet?.metadata.annotations?.['lineup.dev/finished-jobs'] ?? '', /"init":"0"/);
    assert.equal(rjobStatus(cluster, 'init')?.succeeded, 1, 'the recorded Job still counts');
    assert.deepEqual(cluster.runningNames(), ['js-main-0', 'js-main-1'], 'the gate it opened stays open and it is not re-created');
    cluster.completeAll('main');
    cluster.settle();
    assert.equal(cluster.jobSet?.status?.terminalState, 'Completed');
  });

  it('keeps a released replicatedJob running when its gate closes again (a ready pod restarting)', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1).inOrder().obj());
    cluster.settle();
    cluster.readyAll('a');
    cluster.settle();
    cluster.readyAll('b');
    cluster.settle();
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status, 'True');
    // a's pod restarts: not ready any more.
    const job = cluster.job('js-a-0');
    cluster.jobs.set('js-a-0', { ...job, status: { ...job.status, ready: 0 } });
    const actions = cluster.settle().flatMap((p) => p.actions);
    assert.equal(actions.filter((a) => a.kind === 'SuspendJob').length, 0);
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status, 'True', 'startup stays completed');
  });

  it('re-applies the order when a JobSet suspended mid-startup is resumed', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1).replicatedJob('c', 1).inOrder().obj());
    cluster.settle();
    cluster.readyAll('a');
    cluster.settle();
    assert.deepEqual(cluster.runningNames(), ['js-a-0', 'js-b-0']);
    cluster.setSuspend(true);
    cluster.settle();
    assert.deepEqual(cluster.runningNames(), []);
    cluster.setSuspend(false);
    cluster.settle();
    // a suspended Job is not ready (its pods are gone), so only a starts again.
    assert.deepEqual(cluster.runningNames(), ['js-a-0']);
  });

  it('fails the JobSet at the first failure when it has no failure policy', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 2).obj());
    cluster.settle();
    cluster.fail('js-a-1');
    cluster.settle();
    const failed = cluster.condition('Failed');
    assert.equal(failed?.reason, 'FailedJobs');
    assert.equal(failed?.message, 'jobset failed due to one or more job failures (first failed job: js-a-1)');
    assert.equal(cluster.jobSet?.status?.terminalState, 'Failed');
    assert.equal(cluster.jobs.has('js-a-0'), false, 'active Jobs of a finished JobSet are deleted');
  });

  it('fails with ReachedMaxRestarts when the restart budget is spent', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).spec({ failurePolicy: { maxRestarts: 0 } }).obj());
    cluster.settle();
    cluster.fail('js-a-0');
    cluster.settle();
    assert.equal(cluster.condition('Failed')?.reason, 'ReachedMaxRestarts');
  });

  it('applies the first matching failure-policy rule', () => {
    const cluster = new TestCluster(
      makeJobSet('js')
        .replicatedJob('a', 1)
        .spec({ failurePolicy: { maxRestarts: 3, rules: [{ name: 'fatal', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy'] }] } })
        .obj(),
    );
    cluster.settle();
    cluster.fail('js-a-0', 'PodFailurePolicy', 'container exited with 42');
    cluster.settle();
    assert.equal(cluster.condition('Failed')?.reason, 'FailJobSetFailurePolicyAction');
  });

  it('completes with success policy Any as soon as one targeted Job succeeds', () => {
    const cluster = new TestCluster(
      makeJobSet('js').replicatedJob('leader', 1).replicatedJob('workers', 2).spec({ successPolicy: { operator: 'Any', targetReplicatedJobs: ['leader'] } }).obj(),
    );
    cluster.settle();
    cluster.complete('js-workers-0');
    cluster.settle();
    assert.equal(cluster.jobSet?.status?.terminalState, undefined);
    cluster.complete('js-leader-0');
    cluster.settle();
    assert.equal(cluster.jobSet?.status?.terminalState, 'Completed');
  });

  it('deletes a finished JobSet once ttlSecondsAfterFinished has passed, and asks to come back before', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).spec({ ttlSecondsAfterFinished: 60 }).obj());
    cluster.settle();
    cluster.completeAll('a');
    const plans = cluster.settle();
    assert.equal(plans.at(-1)?.requeueAfterMs, 60_000);
    cluster.now += 60_000;
    const last = cluster.pass();
    assert.deepEqual(kinds(last.actions), ['DeleteJobSet']);
    assert.equal(cluster.jobSet, undefined);
  });

  it('builds nothing while Jobs of an earlier attempt exist under BlockingRecreate', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 2).spec({ failurePolicy: { maxRestarts: 2, restartStrategy: 'BlockingRecreate' } }).obj());
    cluster.settle();
    cluster.fail('js-a-0');
    cluster.pass();
    // The old Jobs are still there (foreground deletion in flight): mark them deleting, keep them.
    for (const name of ['js-a-0', 'js-a-1']) {
      const job = cluster.job(name);
      cluster.jobs.set(name, { ...job, metadata: { ...job.metadata, deletionTimestamp: '2026-01-01T00:00:01Z', finalizers: ['foregroundDeletion'] } });
    }
    const blocked = cluster.pass();
    assert.equal(kinds(blocked.actions).includes('CreateJob'), false);
    cluster.jobs.delete('js-a-0');
    const stillBlocked = cluster.pass();
    assert.equal(kinds(stillBlocked.actions).includes('CreateJob'), false, 'one previous Job still exists');
    cluster.jobs.delete('js-a-1');
    assert.equal(kinds(cluster.pass().actions).filter((k) => k === 'CreateJob').length, 2);
  });

  it('releases the finished-record finalizer of an earlier attempt’s running Job before deleting it, so the restart is not refused', () => {
    // Found by the planner properties: with a Job-level TTL every Job holds Lineup's finalizer,
    // and releasing it after the delete (which writes the Job) used a stale resourceVersion: 409.
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 2, { jobSpec: { ttlSecondsAfterFinished: 60 } }).spec({ failurePolicy: { maxRestarts: 1 } }).obj());
    cluster.settle();
    cluster.fail('js-a-0');
    assert.equal(cluster.pass().reason.startsWith('restarting (attempt 1)'), true);
    const deletion = cluster.pass();
    const forA1 = deletion.actions.flatMap((action) => ((action.kind === 'RemoveJobFinalizer' || action.kind === 'DeleteJob') && action.name === 'js-a-1' ? [action.kind] : []));
    assert.deepEqual(forA1, ['RemoveJobFinalizer', 'DeleteJob']);
    cluster.settle();
    assert.deepEqual(
      [...cluster.jobs.values()].map((job) => [job.metadata.name, job.metadata.labels?.['jobset.sigs.k8s.io/restart-attempt'], job.metadata.deletionTimestamp]),
      [
        ['js-a-0', '1', undefined],
        ['js-a-1', '1', undefined],
      ],
    );
  });

  it('releases its finalizers when the JobSet is being deleted', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1, { jobSpec: { ttlSecondsAfterFinished: 30 } }).obj());
    cluster.settle();
    const jobSet = cluster.jobSet;
    assert.ok(jobSet);
    cluster.jobSet = { ...jobSet, metadata: { ...jobSet.metadata, deletionTimestamp: '2026-01-01T00:00:05Z' } };
    const result = cluster.pass();
    assert.equal(result.skipped, 'Deleting');
    assert.deepEqual(kinds(result.actions), ['RemoveJobFinalizer']);
  });
});

describe('planner: a bounded number of creates a pass (MAX_CREATES_PER_PASS)', () => {
  const createdNames = (result: Plan): string[] => result.actions.flatMap((action) => (action.kind === 'CreateJob' ? [action.job.metadata.name ?? ''] : []));
  const creatingEvents = (result: Plan): string[] => result.actions.flatMap((action) => (action.kind === 'EmitEvent' && action.reason === EventReason.CreatingJobs ? [action.message] : []));
  const names = (rjob: string, from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `big-${rjob}-${from + i}`);

  it('is 500, the figure its comment reasons about', () => {
    assert.equal(MAX_CREATES_PER_PASS, 500);
  });

  it('creates a JobSet of 1,200 Jobs in 3 passes of 500 + 500 + 200, in spec order and index order, the gates holding', () => {
    // InOrder: leader (1) before workers (1,199). The first pass creates the leader running and
    // the first 499 workers suspended behind its gate; the next two create the other workers, suspended.
    const cluster = new TestCluster(makeJobSet('big').replicatedJob('leader', 1).replicatedJob('workers', 1_199).inOrder().obj());
    const first = cluster.pass();
    assert.deepEqual(createdNames(first), ['big-leader-0', ...names('workers', 0, 499)]);
    assert.deepEqual(creatingEvents(first), ['created 500 of 1200 jobs; continuing']);
    assert.match(first.reason, /^created 500 jobs \(499 suspended\); 700 more jobs in the next passes \(at most 500 a pass\)/);
    const eventReason = first.reasons[first.actions.findIndex((action) => action.kind === 'EmitEvent' && action.reason === EventReason.CreatingJobs)];
    assert.deepEqual(eventReason, { code: 'CreationContinues', message: 'a pass creates at most 500 jobs: 700 more in the next passes' });
    // The status counts what exists after the pass: 1 leader, 499 suspended workers.
    assert.deepEqual(
      cluster.jobSet?.status?.replicatedJobsStatus?.map((s) => [s.name, s.suspended]),
      [
        ['workers', 499],
        ['leader', 0],
      ],
    );
    assert.match(cluster.condition('StartupPolicyInProgress')?.message ?? '', /waiting for leader to be Ready: 0\/1 jobs ready$/);

    const second = cluster.pass();
    assert.deepEqual(createdNames(second), names('workers', 499, 999));
    assert.deepEqual(creatingEvents(second), ['created 1000 of 1200 jobs; continuing']);
    const third = cluster.pass();
    assert.deepEqual(createdNames(third), names('workers', 999, 1_199));
    assert.deepEqual(creatingEvents(third), []);
    assert.equal(third.reason.includes('more jobs in the next passes'), false);

    // Every Job exists once; the leader runs, every worker waits behind the leader's gate.
    assert.equal(cluster.jobs.size, 1_200);
    assert.deepEqual(cluster.runningNames(), ['big-leader-0']);
    assert.equal(cluster.suspendedNames().length, 1_199);
    assert.deepEqual(cluster.settle().at(-1)?.actions, []);

    // The gate opens as it always did: the leader Ready resumes every worker in one pass.
    cluster.ready('big-leader-0');
    const released = cluster.pass();
    assert.equal(released.actions.filter((action) => action.kind === 'ResumeJob').length, 1_199);
    cluster.readyAll('workers');
    cluster.settle();
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status, 'True');
  });

  it('keeps a later replicatedJob closed while an earlier one is not all created: its gate counts the spec’s replicas', () => {
    // a (600) must be all Ready before b starts: after the first pass a has 500 Jobs, all ready,
    // which must not open b's gate.
    const cluster = new TestCluster(makeJobSet('big').replicatedJob('a', 600).replicatedJob('b', 2).inOrder().obj());
    cluster.pass();
    cluster.readyAll('a');
    const second = cluster.pass();
    assert.deepEqual(createdNames(second), [...names('a', 500, 600), 'big-b-0', 'big-b-1']);
    assert.deepEqual(cluster.suspendedNames(), ['big-b-0', 'big-b-1']);
    assert.equal(second.actions.some((action) => action.kind === 'ResumeJob'), false);
    assert.equal(cluster.condition('StartupPolicyCompleted')?.status ?? 'absent', 'absent');
  });

  it('creates a JobSet of exactly 500 Jobs in one pass and says nothing of continuing', () => {
    const cluster = new TestCluster(makeJobSet('big').replicatedJob('a', 500).obj());
    const first = cluster.pass();
    assert.equal(createdNames(first).length, 500);
    assert.deepEqual(creatingEvents(first), []);
    assert.equal(cluster.events.some((event) => event.reason === EventReason.CreatingJobs), false);
  });

  it('counts Jobs that exist and finished Jobs recorded as gone toward "created N of M"', () => {
    const cluster = new TestCluster(makeJobSet('big').replicatedJob('a', 1_100).obj());
    cluster.pass();
    // A user deletes 10 of the first 500 before the second pass: they are missing again, created first.
    for (let i = 0; i < 10; i += 1) cluster.jobs.delete(`big-a-${i}`);
    const second = cluster.pass();
    assert.deepEqual(createdNames(second), [...names('a', 0, 10), ...names('a', 500, 990)]);
    assert.deepEqual(creatingEvents(second), ['created 990 of 1100 jobs; continuing']);
  });

  it('creates suspended Jobs of a suspended JobSet in bounded passes too', () => {
    const cluster = new TestCluster(makeJobSet('big').replicatedJob('a', 700).suspend().obj());
    assert.equal(createdNames(cluster.pass()).length, 500);
    assert.equal(createdNames(cluster.pass()).length, 200);
    assert.equal(cluster.suspendedNames().length, 700);
  });
});

describe('planner: JobSets bigger than the controller accepts are rejected', () => {
  it('rejects a JobSet of more Jobs than the default bound, naming the bound and its variable, and creates nothing', () => {
    const cluster = new TestCluster(makeJobSet('huge').replicatedJob('a', 100_001).obj());
    const result = cluster.pass();
    assert.equal(result.actions.some((action) => action.kind === 'CreateJob'), false);
    const rejected = cluster.condition('Rejected');
    assert.equal(rejected?.status, 'True');
    assert.equal(rejected?.reason, 'InvalidJobSet');
    assert.equal(
      rejected?.message,
      'spec.replicatedJobs: JobSet makes 100001 Jobs and 100001 Pods, more than the 10000 Jobs (LINEUP_MAX_JOBS_PER_JOBSET) and 100000 Pods (LINEUP_MAX_PODS_PER_JOBSET) this controller accepts',
    );
    assert.deepEqual(cluster.events.map((event) => [event.eventType, event.reason]), [['Warning', 'InvalidJobSet']]);
  });

  it('takes the bound from the plan options: a deployment that accepts more creates it, 500 a pass', () => {
    const jobSet = makeJobSet('huge').replicatedJob('a', 10_001).obj();
    assert.equal(new TestCluster(jobSet).pass().reason.startsWith('rejected: spec.replicatedJobs: JobSet makes 10001 Jobs, more than the 10000 this controller accepts'), true);
    const cluster = new TestCluster(jobSet, { ...lineupOptions, limits: { maxJobs: 20_000, maxPods: 20_000 } });
    assert.equal(cluster.pass().actions.filter((action) => action.kind === 'CreateJob').length, MAX_CREATES_PER_PASS);
    assert.notEqual(cluster.condition('Rejected')?.status, 'True');
  });
});
