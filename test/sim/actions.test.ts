/**
 * The behaviour file's outside actions on a simulated cluster (lib/sim/actions.ts), the piece
 * `lineup simulate` and `lineup demo` share: each at its time, before that instant's passes, to
 * every JobSet given, and nothing to a JobSet that is gone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JOBSET_API_VERSION, Label } from '../../lib/jobset/api.ts';
import type { Job } from '../../lib/jobset/schema.ts';
import { applyBehaviourAction, scheduleBehaviourActions } from '../../lib/sim/actions.ts';
import { loadBehaviour } from '../../lib/sim/behaviour.ts';
import { SimCluster } from '../../lib/sim/cluster.ts';
import { EventQueue, Phase } from '../../lib/sim/queue.ts';
import { makeJobSet } from '../builders.ts';

const NS = 'default';

/** jobOf: a running child Job of JobSet `jobSet`, labelled and owned as the planner makes one. */
const jobOf = (jobSet: string, name: string): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name,
    namespace: NS,
    labels: { [Label.JobSetName]: jobSet, [Label.ReplicatedJobName]: 'workers', [Label.RestartAttempt]: '0' },
    ownerReferences: [{ apiVersion: JOBSET_API_VERSION, kind: 'JobSet', name: jobSet, uid: `uid-${jobSet}`, controller: true, blockOwnerDeletion: true }],
  },
  spec: { parallelism: 1, completions: 1, suspend: false, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main' }] } } },
});

/** setup: a cluster holding JobSets `a` and `b`, one running Job each. */
const setup = () => {
  const queue = new EventQueue();
  const cluster = new SimCluster({ queue });
  for (const name of ['a', 'b']) {
    cluster.createJobSet(makeJobSet(name, NS).replicatedJob('workers', 1).obj(), 0);
    cluster.createJob(jobOf(name, `${name}-workers-0`), 0);
  }
  const suspended = (name: string): boolean | undefined => cluster.getJobSet(NS, name)?.spec.suspend;
  return { queue, cluster, suspended };
};

describe('sim/actions', () => {
  it('applies each action at its time to every JobSet given: suspend, then resume', () => {
    // Prepare
    const { queue, cluster, suspended } = setup();
    const behaviour = loadBehaviour('actions: [{at: 5s, suspend: true}, {at: 20s, suspend: false}]', 'b.yaml');
    // Act
    scheduleBehaviourActions(queue, cluster, [{ namespace: NS, name: 'a' }, { namespace: NS, name: 'b' }], behaviour.actions);
    queue.runUntil(4_999);
    const before = [suspended('a'), suspended('b')];
    queue.runUntil(5_000);
    const during = [suspended('a'), suspended('b')];
    queue.runUntil(20_000);
    // Assess
    assert.deepEqual(before, [undefined, undefined]);
    assert.deepEqual(during, [true, true]);
    assert.deepEqual([suspended('a'), suspended('b')], [false, false]);
  });

  it('runs an action before the reconcile pass of its instant, as any outside change', () => {
    const { queue, cluster, suspended } = setup();
    const seen: (boolean | undefined)[] = [];
    queue.schedule(5_000, Phase.Reconcile, () => seen.push(suspended('a')));
    scheduleBehaviourActions(queue, cluster, [{ namespace: NS, name: 'a' }], loadBehaviour('actions: [{at: 5s, suspend: true}]', 'b.yaml').actions);
    queue.runUntil(5_000);
    assert.deepEqual(seen, [true]);
  });

  it('deletes the named Job once however many JobSets of its namespace are given, and only that Job', () => {
    const { queue, cluster } = setup();
    scheduleBehaviourActions(queue, cluster, [{ namespace: NS, name: 'a' }, { namespace: NS, name: 'b' }], loadBehaviour('actions: [{at: 2s, deleteJob: a-workers-0}]', 'b.yaml').actions);
    queue.runUntil(2_000);
    assert.equal(cluster.getJob(NS, 'a-workers-0'), undefined);
    assert.ok(cluster.getJob(NS, 'b-workers-0'), 'the other JobSet keeps its Job');
    const deleted = cluster.timeline(NS, 'a').filter((entry) => entry.type === 'JobDeleted');
    assert.deepEqual(deleted.map((entry) => [entry.at, entry.job, entry.message]), [[2_000, 'a-workers-0', 'deleted by a behaviour action']]);
  });

  it('does nothing to a JobSet that is gone (the run after its deletion is only cleanup)', () => {
    const { queue, cluster } = setup();
    applyBehaviourAction(cluster, { namespace: NS, name: 'a' }, { at: 0, kind: 'deleteJobSet' }, 0);
    queue.runUntil(60_000);
    assert.equal(cluster.getJobSet(NS, 'a'), undefined);
    const writes = cluster.writes();
    applyBehaviourAction(cluster, { namespace: NS, name: 'a' }, { at: 61_000, kind: 'suspend', suspend: true }, 61_000);
    assert.equal(cluster.writes(), writes);
  });
});
