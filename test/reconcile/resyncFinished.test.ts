/**
 * The resync as the safety net for a dropped event, and its skipping of finished JobSets, through
 * the real reconciler handler on a simulated cluster with the DynamoDB store on dynalite (started
 * in this process on loopback; if it cannot start, the `before` hook fails and so does every test).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConditionType } from '../../lib/jobset/api.ts';
import { Counters, CounterName } from '../../lib/counters.ts';
import { LineupEventDetailSchema } from '../../lib/events/schema.ts';
import type { EventSink, PutResult } from '../../lib/forwarder/types.ts';
import type { JobSet } from '../../lib/jobset/schema.ts';
import { collectingLog } from '../../lib/log.ts';
import { conditionIsTrue } from '../../lib/plan/conditions.ts';
import { handleEvent, settledFinished } from '../../lib/reconcile/reconcileJobSet.ts';
import { FINISHED_RECHECK_MS, fullResyncWants, resync, type ResyncResult } from '../../lib/reconcile/resync.ts';
import { ensureCheckpointTable, startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import type { JobSetKey, JobSetState } from '../../lib/store/types.ts';
import type { PutEventsEntry } from '../../lib/events/envelope.ts';
import { CLUSTER, detailFor, reconcileDeps, simWorld, story2 } from './fixtures.ts';
import { TestDynamoStore } from '../store/support/testStores.ts';

let dynamo: EmbeddedDynamo | undefined;
let tables = 0;

before(async () => {
  dynamo = await startEmbeddedDynamo();
});
after(async () => {
  await dynamo?.stop();
});

/** freshStore: a DynamoDB store on a new, empty table with the test cluster registered (the full resync lists registered clusters). */
const freshStore = async (): Promise<TestDynamoStore> => {
  assert.ok(dynamo, 'dynalite did not start');
  tables += 1;
  const tableName = `resync-test-${tables}`;
  await ensureCheckpointTable(dynamo.client, tableName);
  const store = new TestDynamoStore({ client: dynamo.client, tableName });
  await store.putCluster({ id: CLUSTER, endpoint: 'https://cluster.example', auth: { type: 'token', token: 't' } });
  return store;
};

/** collectingSink: keeps every entry put on the bus. */
const collectingSink = (): EventSink & { entries: PutEventsEntry[] } => {
  const entries: PutEventsEntry[] = [];
  return { entries, put: async (batch): Promise<PutResult> => (entries.push(...batch), { failed: [] }) };
};

const NAME = 'messagequeue-driver-worker';
const key: JobSetKey = { cluster: CLUSTER, namespace: 'default', name: NAME };
/** FAST: Jobs ready 1 s after they run, done 10 s after; story 2's JobSet has no TTL. */
const FAST = { default: { readyAfter: 1_000, succeedAfter: 10_000 }, replicatedJobs: new Map(), jobs: new Map(), actions: [] };

/** world: story 2 on a simulated cluster, its reconciler deps on `store`, and a resync that hands its Sync events to the reconciler. */
const world = (store: TestDynamoStore, jobSet: JobSet = story2()) => {
  const sim = simWorld([jobSet], FAST);
  const { deps } = reconcileDeps(store, sim.gateway, sim.now);
  const counters = new Counters();
  /**
   * resyncAt: the simulated cluster run on to `at` (virtual epoch ms; by default now), then one
   * resync, every Sync event it put handled by the reconciler; its result and the JobSets synced.
   */
  const resyncAt = async (full: boolean, at = sim.now()): Promise<ResyncResult & { names: string[] }> => {
    sim.queue.runUntil(sim.queue.now() + Math.max(0, at - sim.now()));
    // The cluster's forwarder is alive (only its events are lost): without a fresh checkpoint the resync would poll it as unwatched.
    await store.putBookmark(CLUSTER, 'jobsets', '1', sim.now());
    const sink = collectingSink();
    const result = await resync({ store, sink, now: sim.now, counters, log: collectingLog().log }, { full });
    const names: string[] = [];
    for (const entry of sink.entries) {
      const detail = LineupEventDetailSchema.parse(JSON.parse(entry.Detail));
      names.push(detail.jobSet);
      await handleEvent({ source: entry.Source, detail }, deps);
    }
    return { ...result, names };
  };
  const suspendedOf = (replicatedJob: string): boolean[] =>
    sim.cluster
      .jobsOf('default', NAME)
      .filter((job) => job.metadata.labels?.['jobset.sigs.k8s.io/replicatedjob-name'] === replicatedJob)
      .map((job) => job.spec.suspend === true);
  const finished = (): boolean => conditionIsTrue(sim.cluster.getJobSet('default', NAME)?.status?.conditions, ConditionType.Completed);
  return { sim, deps, counters, resyncAt, suspendedOf, finished };
};


/**
 * finishThroughFullResyncs: the JobSet's first event, then every later event dropped — each
 * 30 s step moves it on only through a full resync — until it finished (at most 10 steps).
 */
const finishThroughFullResyncs = async (w: ReturnType<typeof world>): Promise<void> => {
  await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, w.deps);
  for (let step = 0; step < 10 && !w.finished(); step += 1) {
    w.sim.queue.runUntil(w.sim.queue.now() + 30_000);
    await w.resyncAt(true);
  }
};
describe('reconcile/resync: the safety net, and finished JobSets', () => {
  it('recovers a dropped event on the full resync: the gate it would have opened opens', async () => {
    // Prepare: the first event creates the Jobs, messagequeue running, drivers and workers held.
    const store = await freshStore();
    const w = world(store);
    assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, w.deps), 'reconciled');
    assert.deepEqual(w.suspendedOf('driver'), [true, true], 'drivers wait for messagequeue');
    // messagequeue becomes ready; the event saying so is dropped (never delivered).
    w.sim.queue.runUntil(w.sim.queue.now() + 2_000);
    // Act: the frequent resync has nothing to do (the item is settled); the full resync re-queues it.
    const frequent = await w.resyncAt(false);
    const full = await w.resyncAt(true);
    // Assess
    assert.deepEqual(frequent.names, [], 'a settled JobSet is not the frequent resync’s business');
    assert.deepEqual(full.names, [NAME]);
    assert.deepEqual(w.suspendedOf('driver'), [false, false], 'the Sync pass saw messagequeue ready and resumed the drivers');
  });

  it('marks a JobSet finished on the pass that sees it Completed, then leaves it be until FINISHED_RECHECK_MS', async () => {
    // Prepare: story 2 runs to completion with every event dropped; full resyncs alone move it on.
    const store = await freshStore();
    const w = world(store);
    await finishThroughFullResyncs(w);
    assert.ok(w.finished(), 'Completed through full resyncs alone');
    const state = await store.getState(key);
    assert.equal(state?.finished, true, 'the state item says finished');
    assert.equal(state?.wakeAt, undefined, 'no TTL pending');
    // Act
    const nextDay = await w.resyncAt(true, w.sim.now() + 24 * 3600_000);
    const week = await w.resyncAt(true, (state?.updatedAt ?? 0) + FINISHED_RECHECK_MS);
    const afterRecheck = await w.resyncAt(true, (state?.updatedAt ?? 0) + FINISHED_RECHECK_MS + 24 * 3600_000);
    // Assess
    assert.deepEqual(nextDay, { synced: 0, finishedSkipped: 1, unwatched: [], alarmed: 0, names: [] }, 'the next full resync skips it');
    assert.deepEqual(week.names, [NAME], 'after FINISHED_RECHECK_MS one pass checks it still exists');
    assert.equal((await store.getState(key))?.finished, true, 'still finished after the check');
    assert.equal(afterRecheck.synced, 0, 'and it is left be again: the check rewrote its item');
    assert.equal(w.counters.get(CounterName.ResyncFinishedSkipped), 2);
  });

  it('forgets a finished JobSet whose deletion event was lost, on its recheck', async () => {
    const store = await freshStore();
    const w = world(store);
    await finishThroughFullResyncs(w);
    const finishedAt = (await store.getState(key))?.updatedAt ?? 0;
    // The JobSet is deleted; the event is lost.
    const uid = w.sim.cluster.getJobSet('default', NAME)?.metadata.uid;
    w.sim.cluster.apply('default', NAME, { kind: 'DeleteJobSet', uid, propagation: 'Foreground' }, w.sim.queue.now());
    w.sim.queue.runUntil(w.sim.queue.now() + 60_000);
    assert.equal(w.sim.cluster.getJobSet('default', NAME), undefined, 'deleted from the cluster');
    // Act
    const recheck = await w.resyncAt(true, finishedAt + FINISHED_RECHECK_MS);
    // Assess
    assert.deepEqual(recheck.names, [NAME]);
    assert.equal(await store.getState(key), undefined, 'its state item is forgotten');
    assert.deepEqual(await store.listJobSets(CLUSTER), []);
  });

  it('keeps re-queueing a finished JobSet with ttlSecondsAfterFinished on every full resync', async () => {
    const store = await freshStore();
    const withTtl: JobSet = { ...story2(), spec: { ...story2().spec, ttlSecondsAfterFinished: 3600 } };
    const w = world(store, withTtl);
    await finishThroughFullResyncs(w);
    assert.ok(w.finished());
    const state = await store.getState(key);
    assert.notEqual(state?.finished, true, 'a TTL is to come: not settled');
    const full = await w.resyncAt(true, w.sim.now() + 60_000);
    assert.deepEqual(full.names, [NAME]);
    assert.ok((await store.getState(key))?.wakeAt !== undefined, 'the Sync pass planned the TTL wake-up');
    const again = await w.resyncAt(true, w.sim.now() + 60_000);
    assert.deepEqual(again.names, [NAME], 'still re-queued until the TTL deletes it');
  });

  it('clears the finished mark when a pass finds the JobSet not finished (a re-created namesake)', async () => {
    const store = await freshStore();
    const owner = 'me';
    await store.markDirty(key, 1_000);
    const lease = await store.tryAcquireLease(key, owner, 1_000, 60_000);
    assert.equal((await store.releaseLease(key, { owner, reconciledDirty: lease?.dirty ?? 0, now: 1_000, ttlMs: 60_000, loop: { finished: true } })).outcome, 'released');
    assert.equal((await store.getState(key))?.finished, true);
    await store.markDirty(key, 2_000);
    const again = await store.tryAcquireLease(key, owner, 2_000, 60_000);
    await store.releaseLease(key, { owner, reconciledDirty: again?.dirty ?? 0, now: 2_000, ttlMs: 60_000, loop: { finished: false } });
    assert.equal((await store.getState(key))?.finished, undefined);
  });
});

describe('reconcile/resync: the rules', () => {
  const state = (over: Partial<JobSetState>): JobSetState => ({ key, dirty: 1, reconciled: 1, updatedAt: 0, ...over });

  it('fullResyncWants every unfinished JobSet, and a finished one only once its item is FINISHED_RECHECK_MS old', () => {
    assert.equal(fullResyncWants(state({}), 1), true);
    assert.equal(fullResyncWants(state({ finished: true }), FINISHED_RECHECK_MS - 1), false);
    assert.equal(fullResyncWants(state({ finished: true }), FINISHED_RECHECK_MS), true);
  });

  it('settledFinished: Completed or Failed as written by the pass or observed, no TTL wake-up, no deletion', () => {
    const jobSet = story2();
    const completed = { type: ConditionType.Completed, status: 'True' as const, reason: 'AllJobsCompleted', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const observed = { jobSet, jobs: [], service: undefined, now: 0 };
    const finishedJobSet = { ...observed, jobSet: { ...jobSet, status: { conditions: [completed] } } };
    const plan = { namespace: 'default', name: NAME, uid: undefined, actions: [], reasons: [], reason: '' };
    assert.equal(settledFinished(observed, plan), false, 'running');
    assert.equal(settledFinished(finishedJobSet, plan), true, 'observed Completed');
    assert.equal(settledFinished(observed, { ...plan, actions: [{ kind: 'UpdateJobSetStatus', resourceVersion: '1', status: { conditions: [completed] } }] }), true, 'this pass wrote Completed');
    assert.equal(settledFinished(finishedJobSet, { ...plan, requeueAfterMs: 1_000 }), false, 'TTL pending');
    const withTtl = { ...finishedJobSet, jobSet: { ...finishedJobSet.jobSet, spec: { ...jobSet.spec, ttlSecondsAfterFinished: 60 } } };
    assert.equal(settledFinished(withTtl, plan), false, 'a TTL not yet planned');
    assert.equal(settledFinished(finishedJobSet, { ...plan, actions: [{ kind: 'DeleteJobSet', uid: undefined, propagation: 'Foreground' }] }), false, 'being deleted');
  });
});
