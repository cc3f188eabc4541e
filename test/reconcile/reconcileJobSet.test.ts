import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CounterName } from '../../lib/counters.ts';
import { ConflictError, UnavailableError } from '../../lib/errors.ts';
import type { Action } from '../../lib/plan/types.ts';
import { handleEvent } from '../../lib/reconcile/reconcileJobSet.ts';
import type { ClusterGateway } from '../../lib/reconcile/types.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { CLUSTER, detailFor, reconcileDeps, simWorld, story2 } from './fixtures.ts';

const key = { cluster: CLUSTER, namespace: 'default', name: 'messagequeue-driver-worker' };
const NAME = key.name;

describe('reconcile/reconcileJobSet', () => {
  it('bumps the dirty counter, takes the lease, runs passes until nothing changes, and releases', async () => {
    // Prepare
    const world = simWorld([story2()]);
    const store = new MemoryCheckpointStore();
    const { deps, counters } = reconcileDeps(store, world.gateway, world.now);
    // Act
    const outcome = await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps);
    // Assess
    assert.equal(outcome, 'reconciled');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 5, 'every Job created at once');
    const state = await store.getState(key);
    assert.equal(state?.dirty, 1);
    assert.equal(state?.reconciled, 1);
    assert.equal(state?.lease, undefined, 'lease released');
    assert.equal(counters.get(CounterName.Passes), 1);
    const decisions = await store.listJournal(key);
    assert.equal(decisions.length, 1);
    assert.equal(decisions[0]?.applied, true);
    assert.equal(decisions[0]?.actions.filter((action) => action.kind === 'CreateJob').length, 5);
    assert.ok(decisions[0]?.inputs, 'inputs recorded for replay');
    assert.equal(decisions[0]?.inputsKept, 'stored');
  });

  it('drops an event whose source names another cluster, and one for an unregistered cluster', async () => {
    const world = simWorld([story2()]);
    const store = new MemoryCheckpointStore();
    const { deps, lines } = reconcileDeps(store, world.gateway, world.now);
    assert.equal(await handleEvent({ source: 'lineup.other', detail: detailFor(NAME) }, deps), 'dropped');
    assert.equal(await handleEvent({ source: 'lineup.unknown', detail: detailFor(NAME, { cluster: 'unknown' }) }, deps), 'dropped');
    assert.deepEqual(lines.map((line) => line.message), ['event dropped: its source does not match its cluster', 'event dropped: cluster is not registered']);
    assert.equal(world.cluster.jobsOf('default', NAME).length, 0);
    assert.equal(await store.getState(key), undefined, 'nothing recorded for a dropped event');
  });

  it('records a replayed event as a decision and applies nothing', async () => {
    const world = simWorld([story2()]);
    const store = new MemoryCheckpointStore();
    const { deps } = reconcileDeps(store, world.gateway, world.now);
    const outcome = await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), replayName: 'debug-run' }, deps);
    assert.equal(outcome, 'replay-recorded');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 0);
    const [decision] = await store.listJournal(key);
    assert.equal(decision?.applied, false);
    assert.equal(decision?.replayName, 'debug-run');
    assert.equal(decision?.actions.filter((action) => action.kind === 'CreateJob').length, 5, 'what it would have done');
  });

  it('applies a replayed event when configured to', async () => {
    const world = simWorld([story2()]);
    const { deps } = reconcileDeps(new MemoryCheckpointStore(), world.gateway, world.now, 'owner', { applyReplays: true });
    assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), replayName: 'r' }, deps), 'reconciled');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 5);
  });

  it('defers to the lease holder: concurrent events for one JobSet run one pass loop', async () => {
    const world = simWorld([story2()]);
    const store = new MemoryCheckpointStore();
    const one = reconcileDeps(store, world.gateway, world.now, 'one');
    const two = reconcileDeps(store, world.gateway, world.now, 'two');
    const outcomes = await Promise.all([
      handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, one.deps),
      handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, two.deps),
    ]);
    assert.deepEqual([...outcomes].sort(), ['deferred', 'reconciled']);
    const state = await store.getState(key);
    assert.equal(state?.reconciled, state?.dirty, 'the holder reconciled the deferred bump too');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 5);
  });

  it('re-reads and re-plans after a conflict', async () => {
    const world = simWorld([story2()]);
    let conflicts = 0;
    const flaky: ClusterGateway = {
      observe: (namespace, name, now) => world.gateway.observe(namespace, name, now),
      apply: async (namespace, name, action: Action, now) => {
        if (action.kind === 'UpdateJobSetStatus' && conflicts === 0) {
          conflicts += 1;
          throw new ConflictError('the object has been modified', action.resourceVersion);
        }
        return world.gateway.apply(namespace, name, action, now);
      },
    };
    const store = new MemoryCheckpointStore();
    const { deps, counters } = reconcileDeps(store, flaky, world.now);
    assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps), 'reconciled');
    assert.equal(counters.get(CounterName.Passes), 2, 'one pass failed on the conflict, the re-plan succeeded');
    assert.ok(world.cluster.getJobSet('default', NAME)?.status?.conditions?.length, 'status written on the second pass');
  });

  it('re-reads and re-plans after a create finds its Job already there (AlreadyExists from the simulated cluster)', async () => {
    // Prepare: just before the pass creates its first Job, another writer creates that Job (as an
    // earlier attempt whose answer was lost would have), so the cluster itself refuses the create.
    const world = simWorld([story2()]);
    let raced: string | undefined;
    const racing: ClusterGateway = {
      observe: (namespace, name, now) => world.gateway.observe(namespace, name, now),
      apply: async (namespace, name, action: Action, now) => {
        if (action.kind === 'CreateJob' && raced === undefined) {
          raced = action.job.metadata.name;
          world.cluster.createJob({ ...action.job, metadata: { ...action.job.metadata, namespace } }, world.queue.now());
        }
        return world.gateway.apply(namespace, name, action, now);
      },
    };
    const store = new MemoryCheckpointStore();
    const { deps, counters } = reconcileDeps(store, racing, world.now);
    // Act
    const outcome = await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps);
    // Assess: the refused pass is recorded with the cluster's answer; the re-plan creates the rest.
    assert.equal(outcome, 'reconciled');
    assert.equal(counters.get(CounterName.Passes), 2, 'one pass stopped at AlreadyExists, the re-plan succeeded');
    const [refused, replanned] = await store.listJournal(key);
    assert.match(refused?.error ?? '', new RegExp(`jobs\\.batch "${raced}" already exists`));
    assert.equal(replanned?.error, undefined);
    const names = world.cluster.jobsOf('default', NAME).map((job) => job.metadata.name);
    assert.equal(names.length, 5, 'every Job exists once');
    assert.equal(new Set(names).size, 5);
    assert.ok(world.cluster.getJobSet('default', NAME)?.status?.conditions?.length, 'status written by the re-plan');
  });

  it('records the error and gives the lease up when the cluster keeps failing, so the event is retried', async () => {
    const world = simWorld([story2()]);
    const broken: ClusterGateway = {
      observe: () => Promise.reject(new UnavailableError('cluster answered 503 five times')),
      apply: () => Promise.reject(new Error('unreachable')),
    };
    const store = new MemoryCheckpointStore();
    const { deps } = reconcileDeps(store, broken, world.now);
    await assert.rejects(handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps), /503 five times/);
    const state = await store.getState(key);
    assert.equal(state?.lease, undefined);
    assert.match(state?.lastError ?? '', /503/);
    const stale = await store.listNeedingResync(world.now());
    assert.deepEqual(stale.map((s) => s.key.name), [NAME], 'the resync will pick it up');
  });

  it('reports a JobSet that no longer exists and forgets its state', async () => {
    const world = simWorld([]);
    const store = new MemoryCheckpointStore();
    const { deps } = reconcileDeps(store, world.gateway, world.now);
    assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor('gone') }, deps), 'gone');
    assert.equal(await store.getState({ cluster: CLUSTER, namespace: 'default', name: 'gone' }), undefined);
  });
});
