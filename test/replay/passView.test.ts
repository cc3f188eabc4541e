import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import { applyDefaults } from '../../lib/jobset/defaults.ts';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../lib/plan/planner.ts';
import { startupPolicySpecOf } from '../../lib/plan/startupSpec.ts';
import type { Observed } from '../../lib/plan/types.ts';
import type { ReplicatedJobProgress, StartupPolicySpec } from '../../lib/policy/types.ts';
import { journalActionsOf } from '../../lib/reconcile/journal.ts';
import { gateOf, passViewOf, statusWriteOf, statusWriteText } from '../../lib/replay/passView.ts';
import { makeJobSet, withJobStatus } from '../builders.ts';

const NOW = Date.UTC(2026, 0, 1);

/** jobsOf: the Jobs the planner creates for `jobSet` (suspended where a gate holds them), by short name. */
const jobsOf = (jobSet: JobSet): Map<string, Job> => {
  const created = plan({ jobSet, jobs: [], service: undefined, now: NOW }, DEFAULT_PLAN_OPTIONS).actions.flatMap((action) => (action.kind === 'CreateJob' ? [action.job] : []));
  return new Map(created.map((job) => [(job.metadata.name ?? '').slice(`${jobSet.metadata.name ?? ''}-`.length), job]));
};

const progress = (entries: Record<string, Partial<ReplicatedJobProgress>>): Map<string, ReplicatedJobProgress> =>
  new Map(Object.entries(entries).map(([name, counts]) => [name, { ready: 0, succeeded: 0, failed: 0, ...counts }]));

describe('replay/passView: what a recorded pass judged, read as the planner reads it', () => {
  const inOrder = makeJobSet('js').replicatedJob('a', 1).replicatedJob('b', 2).replicatedJob('c', 2).inOrder().obj();

  it('counts per replicatedJob in spec order: Jobs of the attempt, active, ready, succeeded, failed, suspended', () => {
    // Prepare: a ran and is ready; b's two Jobs are held; one of c's Jobs is not there yet.
    const jobs = jobsOf(inOrder);
    const observed: Observed = {
      jobSet: inOrder,
      jobs: [withJobStatus(jobs.get('a-0')!, { active: 1, ready: 1 }), jobs.get('b-0')!, jobs.get('b-1')!, jobs.get('c-0')!],
      service: undefined,
      now: NOW,
    };
    // Act
    const view = passViewOf(observed, DEFAULT_PLAN_OPTIONS, []);
    // Assess
    assert.deepEqual(view.counts, [
      { replicatedJob: 'a', replicas: 1, jobs: 1, active: 1, ready: 1, succeeded: 0, failed: 0, suspended: 0 },
      { replicatedJob: 'b', replicas: 2, jobs: 2, active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 2 },
      { replicatedJob: 'c', replicas: 2, jobs: 1, active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 1 },
    ]);
    assert.equal(view.gate?.text, 'InOrder: a Ready 1/1 ✓, b Ready 0/2 ✗ → hold c');
    assert.deepEqual(view.gate?.held, ['c']);
    assert.equal(view.ready(['a']), true);
    assert.equal(view.ready(['b']), false);
    assert.equal(view.ran(['a']), true);
    assert.equal(view.ran(['b', 'c']), false);
    assert.equal(view.replicatedJobOfJob('js-c-1'), 'c', 'a Job not created yet is named as the planner names it');
    assert.equal(view.replicatedJobOfJob('other'), undefined);
  });

  it('a suspended Job that is ready counts as ready in the status but not for the gate, as the planner counts it', () => {
    const jobs = jobsOf(inOrder);
    const observed: Observed = { jobSet: inOrder, jobs: [withJobStatus({ ...jobs.get('a-0')!, spec: { ...jobs.get('a-0')!.spec, suspend: true } }, { ready: 1 })], service: undefined, now: NOW };
    const view = passViewOf(observed, DEFAULT_PLAN_OPTIONS, []);
    assert.deepEqual(view.counts[0], { replicatedJob: 'a', replicas: 1, jobs: 1, active: 0, ready: 1, succeeded: 0, failed: 0, suspended: 1 });
    assert.equal(view.gate?.text, 'InOrder: a Ready 0/1 ✗ → hold b, c');
  });

  it('no gate for a pass that never got to it: a finished JobSet', () => {
    const finished = makeJobSet('js')
      .replicatedJob('a', 1)
      .replicatedJob('b', 1)
      .inOrder()
      .status({ conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: '2026-01-01T00:00:00Z' }] })
      .obj();
    const view = passViewOf({ jobSet: finished, jobs: [], service: undefined, now: NOW }, DEFAULT_PLAN_OPTIONS, []);
    assert.equal(view.gate, undefined);
    assert.equal(view.counts.length, 2);
  });

  it('gateOf InOrder: the chain up to the first replicatedJob not Ready, and what it holds', () => {
    const spec = startupPolicySpecOf(applyDefaults(inOrder));
    assert.equal(gateOf(spec, progress({})).text, 'InOrder: a Ready 0/1 ✗ → hold b, c');
    assert.equal(gateOf(spec, progress({ a: { ready: 1 }, b: { ready: 2 } })).text, 'InOrder: a Ready 1/1 ✓, b Ready 2/2 ✓ → release all');
    // Succeeded and failed Jobs count as started, as upstream counts them.
    assert.equal(gateOf(spec, progress({ a: { succeeded: 1 }, b: { ready: 1, failed: 1 } })).text, 'InOrder: a Ready 1/1 ✓, b Ready 2/2 ✓ → release all');
  });

  it('gateOf dependsOn: each replicatedJob with dependencies, every dependency with its numbers', () => {
    const jobSet = makeJobSet('js')
      .replicatedJob('launcher', 2)
      .replicatedJob('initializer', 1)
      .replicatedJob('worker', 2, { dependsOn: [{ name: 'launcher', status: 'Ready' }, { name: 'initializer', status: 'Complete' }] })
      .obj();
    const spec = startupPolicySpecOf(applyDefaults(jobSet));
    const gate = gateOf(spec, progress({ launcher: { ready: 2 }, initializer: { ready: 1 } }));
    assert.equal(gate.text, 'dependsOn: worker needs launcher Ready 2/2 ✓, initializer Complete 0/1 ✗ → hold worker');
    assert.deepEqual(gate.steps, [
      {
        replicatedJobs: ['worker'],
        checks: [
          { replicatedJob: 'launcher', status: 'Ready', have: 2, need: 2, met: true },
          { replicatedJob: 'initializer', status: 'Complete', have: 0, need: 1, met: false },
        ],
        open: false,
      },
    ]);
    assert.equal(gateOf(spec, progress({ launcher: { ready: 2 }, initializer: { succeeded: 1 } })).text, 'dependsOn: worker needs launcher Ready 2/2 ✓, initializer Complete 1/1 ✓ → release worker');
  });

  it('gateOf startup rules: rule by rule up to the first not met; AnyOrder has no gate', () => {
    const spec: StartupPolicySpec = {
      form: 'Rules',
      replicatedJobs: [
        { name: 'a', replicas: 1 },
        { name: 'b', replicas: 1 },
        { name: 'c', replicas: 2 },
        { name: 'd', replicas: 1 },
      ],
      rules: [
        { targetReplicatedJobs: ['a'], status: 'Ready' },
        { targetReplicatedJobs: ['b', 'c'], status: 'Complete' },
      ],
    };
    assert.equal(gateOf(spec, progress({ a: { ready: 1 }, b: { succeeded: 1 } })).text, 'startup rules: rule 1 a Ready 1/1 ✓; rule 2 b Complete 1/1 ✓, c Complete 0/2 ✗ → hold d');
    assert.equal(gateOf(spec, progress({})).text, 'startup rules: rule 1 a Ready 0/1 ✗ → hold b, c, d');
    assert.equal(gateOf({ form: 'AnyOrder', replicatedJobs: spec.replicatedJobs }, progress({})).text, 'AnyOrder: no gate');
  });

  it('statusWriteOf: the conditions whose status or reason changed, the counters that changed, in spec order', () => {
    const before = {
      conditions: [{ type: 'StartupPolicyInProgress', status: 'True' as const, reason: 'InOrderStartupPolicyInProgress', message: 'waiting: 0/2' }],
      replicatedJobsStatus: [{ name: 'worker', ready: 0, succeeded: 0, failed: 0, active: 2, suspended: 0 }],
      restarts: 0,
    };
    const after = {
      conditions: [
        { type: 'StartupPolicyInProgress', status: 'False' as const, reason: 'InOrderStartupPolicyInProgress', message: 'done' },
        { type: 'StartupPolicyCompleted', status: 'True' as const, reason: 'InOrderStartupPolicyCompleted', message: 'done' },
      ],
      replicatedJobsStatus: [
        { name: 'worker', ready: 2, succeeded: 0, failed: 0, active: 2, suspended: 0 },
        { name: 'driver', ready: 2, succeeded: 0, failed: 0, active: 2, suspended: 0 },
      ],
      restarts: 0,
    };
    const write = statusWriteOf(before, after, ['driver', 'worker']);
    assert.equal(
      statusWriteText(write),
      'StartupPolicyInProgress=False (InOrderStartupPolicyInProgress), StartupPolicyCompleted=True (InOrderStartupPolicyCompleted); driver active 0→2, ready 0→2; worker ready 0→2',
    );
    assert.equal(statusWriteText(statusWriteOf(before, { ...before, conditions: [{ ...before.conditions[0]!, message: 'waiting: 1/2' }] }, [])), 'new message for StartupPolicyInProgress');
  });

  it("the status write is described only when today's planner writes the recorded one (its digest)", () => {
    const observed: Observed = { jobSet: inOrder, jobs: [], service: undefined, now: NOW };
    const recorded = journalActionsOf(plan(observed, DEFAULT_PLAN_OPTIONS));
    const view = passViewOf(observed, DEFAULT_PLAN_OPTIONS, recorded);
    assert.deepEqual(view.statusWrite?.conditions.map((condition) => condition.type), ['StartupPolicyInProgress']);
    const other = passViewOf(observed, DEFAULT_PLAN_OPTIONS, recorded.map((action) => ({ ...action, digest: 'not-this-one' })));
    assert.equal(other.statusWrite, undefined);
  });
});
