import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Plan } from '../../lib/plan/types.ts';
import { fatalThenRestartJobSet, makeJobSet } from '../builders.ts';
import { TestCluster } from './harness.ts';

/** reasonsOf: [kind, target, code, message] per action of one plan, in action order. */
const reasonsOf = (result: Plan, kinds: readonly string[] = ['CreateJob', 'ResumeJob', 'SuspendJob', 'DeleteJob', 'DeleteJobSet']): string[][] => {
  assert.equal(result.reasons.length, result.actions.length, 'one reason per action');
  return result.actions.flatMap((action, index) => {
    if (!kinds.includes(action.kind)) return [];
    const reason = result.reasons[index];
    assert.ok(reason);
    const target = action.kind === 'CreateJob' ? (action.job.metadata.name ?? '') : 'name' in action ? action.name : '';
    return [[action.kind, target, reason.code, reason.message]];
  });
};

/** reasonOfKind: the reason of the first action of `kind`. */
const reasonOfKind = (result: Plan, kind: string): { code: string; message: string } | undefined => {
  const index = result.actions.findIndex((action) => action.kind === kind);
  return index === -1 ? undefined : result.reasons[index];
};

describe('plan/reasons: each action carries a reason code and message', () => {
  it('InOrder: created jobs say which gate held them, resumed jobs the counts that opened it', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('driver', 2).replicatedJob('worker', 1).inOrder().obj());
    const first = cluster.pass();
    assert.deepEqual(reasonsOf(first), [
      ['CreateJob', 'js-driver-0', 'GateOpened', 'InOrder: first replicatedJob'],
      ['CreateJob', 'js-driver-1', 'GateOpened', 'InOrder: first replicatedJob'],
      ['CreateJob', 'js-worker-0', 'StartupRuleHeld', 'InOrder: waiting for driver to be Ready: 0/2 jobs ready'],
    ]);
    cluster.settle();
    cluster.readyAll('driver');
    const resume = cluster.pass();
    assert.deepEqual(reasonsOf(resume), [['ResumeJob', 'js-worker-0', 'GateOpened', 'InOrder: driver Ready 2/2']]);
    assert.deepEqual(reasonOfKind(resume, 'EmitEvent'), { code: 'GateOpened', message: 'InOrder: driver Ready 2/2' });
  });

  it('every action of every pass has a reason, and status writes name what changed', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1).inOrder().obj());
    const plans = cluster.settle();
    for (const result of plans) assert.equal(result.reasons.length, result.actions.length);
    const status = reasonOfKind(plans[0] as Plan, 'UpdateJobSetStatus');
    assert.equal(status?.code, 'StatusChanged');
    assert.match(status?.message ?? '', /^created 2 jobs/);
    assert.deepEqual(reasonOfKind(plans[0] as Plan, 'EmitEvent'), {
      code: 'ConditionChanged',
      message: 'InOrderStartupPolicyInProgress: in order startup policy is in progress: waiting for a to be Ready: 0/1 jobs ready',
    });
  });

  it('dependsOn: the message names every dependency with its counts', () => {
    const cluster = new TestCluster(
      makeJobSet('js')
        .replicatedJob('a', 1)
        .replicatedJob('b', 2)
        .replicatedJob('c', 1, { dependsOn: [{ name: 'a', status: 'Ready' }, { name: 'b', status: 'Complete' }] })
        .obj(),
    );
    assert.deepEqual(reasonsOf(cluster.pass()).at(-1), ['CreateJob', 'js-c-0', 'StartupRuleHeld', 'DependsOn: waiting for a to be Ready: 0/1 jobs ready']);
    cluster.settle();
    cluster.readyAll('a');
    cluster.completeAll('b');
    assert.deepEqual(reasonsOf(cluster.pass()), [['ResumeJob', 'js-c-0', 'GateOpened', 'dependsOn: a Ready 1/1, b Complete 2/2']]);
  });

  it('ordered startup rules: which rule holds and which rules opened', () => {
    const cluster = new TestCluster(
      makeJobSet('js')
        .replicatedJob('a', 1)
        .replicatedJob('b', 1)
        .replicatedJob('c', 1)
        .annotation('lineup.dev/startup-rules', '[{name: a, status: Ready}, {name: b, status: Ready}]')
        .obj(),
    );
    assert.deepEqual(reasonsOf(cluster.pass()), [
      ['CreateJob', 'js-a-0', 'GateOpened', 'startup rules: rule 1, first rule'],
      ['CreateJob', 'js-b-0', 'StartupRuleHeld', 'startup rules: rule 1 waiting for a to be Ready: 0/1 jobs ready'],
      ['CreateJob', 'js-c-0', 'StartupRuleHeld', 'startup rules: rule 1 waiting for a to be Ready: 0/1 jobs ready'],
    ]);
    cluster.settle();
    cluster.readyAll('a');
    assert.deepEqual(reasonsOf(cluster.pass()), [['ResumeJob', 'js-b-0', 'GateOpened', 'startup rules: rule 2, rule 1 a Ready 1/1']]);
    cluster.settle();
    cluster.readyAll('b');
    assert.deepEqual(reasonsOf(cluster.pass()), [['ResumeJob', 'js-c-0', 'GateOpened', 'startup rules: after the last rule, rule 1 a Ready 1/1; rule 2 b Ready 1/1']]);
  });

  it('a suspended JobSet: created suspended and suspended Jobs say JobSetSuspended', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).suspend().obj());
    assert.deepEqual(reasonsOf(cluster.pass()), [['CreateJob', 'js-a-0', 'JobSetSuspended', 'spec.suspend is true']]);
    cluster.setSuspend(false);
    assert.deepEqual(reasonsOf(cluster.pass()), [['ResumeJob', 'js-a-0', 'GateOpened', 'AnyOrder: no gate']]);
    cluster.settle();
    cluster.setSuspend(true);
    assert.deepEqual(reasonsOf(cluster.pass()), [['SuspendJob', 'js-a-0', 'JobSetSuspended', 'spec.suspend is true']]);
  });

  it('failure policy: the rule that matched, its action and the failed Job', () => {
    const cluster = new TestCluster(
      fatalThenRestartJobSet(),
    );
    cluster.settle();
    cluster.fail('js-a-0');
    const restart = cluster.pass();
    assert.deepEqual(reasonOfKind(restart, 'UpdateJobSetStatus'), {
      code: 'FailurePolicyRule',
      message:
        'failure policy rule 2 (again, RestartJobSetAndIgnoreMaxRestarts) matched js-a-0: applying RestartJobSetAndIgnoreMaxRestarts failure policy action (first failed job: js-a-0)',
    });
    assert.ok(restart.actions.some((action) => action.kind === 'EmitEvent'));
    for (const [index, action] of restart.actions.entries()) {
      if (action.kind === 'EmitEvent') assert.equal(restart.reasons[index]?.code, 'FailurePolicyRule');
    }
    cluster.settle();
    cluster.fail('js-a-0', 'PodFailurePolicy');
    assert.deepEqual(reasonOfKind(cluster.pass(), 'UpdateJobSetStatus'), {
      code: 'FailurePolicyRule',
      message: 'failure policy rule 1 (fatal, FailJobSet) matched js-a-0: applying FailJobSet failure policy action (first failed job: js-a-0)',
    });
  });

  it('a restart deletes the earlier attempt with PreviousAttempt', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).spec({ failurePolicy: { maxRestarts: 1 } }).obj());
    cluster.settle();
    cluster.fail('js-a-0');
    assert.equal(reasonOfKind(cluster.pass(), 'UpdateJobSetStatus')?.message, 'no failure-policy rule matched, default RestartJobSet (maxRestarts 1): applying RestartJobSet failure policy action (first failed job: js-a-0)');
    assert.deepEqual(reasonsOf(cluster.pass(), ['DeleteJob']), [['DeleteJob', 'js-a-0', 'PreviousAttempt', 'js-a-0 belongs to an earlier restart attempt (now 1)']]);
  });

  it('success policy: the operator, the targets and the count', () => {
    const cluster = new TestCluster(
      makeJobSet('js')
        .replicatedJob('leader', 1)
        .replicatedJob('workers', 2)
        .spec({ successPolicy: { operator: 'Any', targetReplicatedJobs: ['leader'] } })
        .obj(),
    );
    cluster.settle();
    cluster.completeAll('leader');
    const done = cluster.pass();
    assert.deepEqual(reasonOfKind(done, 'UpdateJobSetStatus'), { code: 'SuccessPolicyMet', message: 'success policy Any of leader: 1/1 jobs succeeded' });
    assert.deepEqual(reasonsOf(cluster.pass(), ['DeleteJob']), [
      ['DeleteJob', 'js-workers-0', 'JobSetFinished', 'jobset Completed: js-workers-0 still active'],
      ['DeleteJob', 'js-workers-1', 'JobSetFinished', 'jobset Completed: js-workers-1 still active'],
    ]);
  });

  it('an invalid JobSet: its status write and event say JobSetInvalid with the validation message', () => {
    const cluster = new TestCluster(makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [{ name: 'b', status: 'Ready' }] }).obj());
    const result = cluster.pass();
    assert.ok(result.actions.length > 0);
    for (const reason of result.reasons) assert.equal(reason.code, 'JobSetInvalid');
    assert.match(result.reasons[0]?.message ?? '', /dependsOn/);
  });
});
