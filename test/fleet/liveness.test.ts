/**
 * Whether a cluster is watched comes from a time the reconciler sets (`receivedAt`, its
 * own clock when it recorded the heartbeat), never from the time a forwarder claims. Through the
 * reconciler's SQS batch handler, the resync and `lineup clusters status`, on a state directory's
 * store: a heartbeat sent in the future is dropped and keeps nothing watched; a heartbeat item
 * holding future times (as a forwarder could write it before this change) leaves its cluster
 * unwatched and polled, and the next genuine heartbeat replaces it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Counters } from '../../lib/counters.ts';
import { heartbeatEntry } from '../../lib/events/heartbeat.ts';
import { LineupEventDetailSchema } from '../../lib/events/schema.ts';
import type { EventSink } from '../../lib/forwarder/types.ts';
import { openStateDirForWriting } from '../../lib/hosts/stateDir.ts';
import { collectingLog } from '../../lib/log.ts';
import { resync } from '../../lib/reconcile/resync.ts';
import { makeSqsBatchHandler } from '../../lib/reconcile/sqsBatch.ts';
import { HEARTBEAT_CLOCK_SKEW_MS } from '../../lib/store/rules.ts';
import type { CheckpointStore, JobSetKey } from '../../lib/store/types.ts';
import { runCli } from '../cli/inProcess.ts';
import { reconcileDeps, simWorld, sqsEvent } from '../reconcile/fixtures.ts';

const T = Date.UTC(2026, 2, 1, 12, 0, 0);
const MISSING_MS = 5 * 60_000;
const YEAR_MS = 365 * 24 * 3_600_000;

/** heartbeatBody: the SQS body EventBridge delivers for a heartbeat of `cluster` sent at `sentAt`. */
const heartbeatBody = (cluster: string, sentAt: number): string => {
  const entry = heartbeatEntry({ cluster, sentAt, intervalMs: 60_000 });
  return JSON.stringify({ version: '0', id: `hb-${cluster}-${sentAt}`, 'detail-type': entry.DetailType, source: entry.Source, time: '2026-03-01T12:00:00Z', region: 'us-east-1', resources: [], detail: JSON.parse(entry.Detail) as unknown });
};

/** receive: the reconciler's batch handler taking one heartbeat at `now` (its clock); the record's outcome. */
const receive = async (store: CheckpointStore, now: number, body: string): Promise<string> => {
  const { deps } = reconcileDeps(store, simWorld([]).gateway, () => now);
  let outcome = '';
  await makeSqsBatchHandler(deps, {
    onOutcome: (_record, result) => {
      outcome = result instanceof Error ? `error: ${result.message}` : result;
    },
  })(sqsEvent([body]));
  return outcome;
};

/** polled: the JobSets a plain (not full) resync at `now` re-queues, and the clusters it calls unwatched. */
const polled = async (store: CheckpointStore, now: number): Promise<{ synced: string[]; unwatched: readonly string[] }> => {
  const entries: string[] = [];
  const sink: EventSink = {
    put: async (batch) => {
      for (const entry of batch) {
        const detail = LineupEventDetailSchema.parse(JSON.parse(entry.Detail));
        entries.push(`${detail.cluster}/${detail.namespace}/${detail.jobSet}`);
      }
      return { failed: [] };
    },
  };
  const result = await resync({ store, sink, now: () => now, counters: new Counters(), log: collectingLog().log, heartbeatMissingMs: MISSING_MS }, { full: false });
  return { synced: entries.sort(), unwatched: result.unwatched };
};

/** settle: register `cluster` and give it one settled JobSet (no resync wants it while the cluster is watched). */
const settle = async (store: CheckpointStore, cluster: string): Promise<JobSetKey> => {
  await store.putCluster({ id: cluster, endpoint: `https://${cluster}.example.com`, auth: { type: 'token', token: 't' } });
  const key = { cluster, namespace: 'ns', name: 'js' };
  await store.markDirty(key, T - 60_000);
  const lease = await store.tryAcquireLease(key, 'me', T - 60_000, 30_000);
  assert.ok(lease);
  assert.equal((await store.releaseLease(key, 'me', lease.dirty, T - 60_000, 30_000)).outcome, 'released');
  return key;
};

describe('fleet liveness from the reconciler clock', () => {
  let scratch = '';
  let stateDir = '';
  /** withStore: the state directory's store, as its one writer, for `work`. */
  const withStore = async <R>(work: (store: CheckpointStore) => Promise<R>): Promise<R> => {
    const open = openStateDirForWriting(stateDir, { command: 'test' });
    try {
      return await work(open.store);
    } finally {
      open.close();
    }
  };
  /** status: `lineup clusters status <id> --output json` at `at`: its exit code and the cluster's status. */
  const status = async (id: string, at: number): Promise<{ code: number; text: string; cluster: Record<string, unknown> }> => {
    const json = await runCli(['clusters', 'status', id, '--state-dir', stateDir, '--at', new Date(at).toISOString(), '--missing-after', '5m', '--output', 'json']);
    const text = await runCli(['clusters', 'status', id, '--state-dir', stateDir, '--at', new Date(at).toISOString(), '--missing-after', '5m']);
    assert.equal(text.code, json.code, text.stderr);
    const [cluster] = (JSON.parse(json.stdout) as { clusters: Record<string, unknown>[] }).clusters;
    assert.ok(cluster, json.stdout);
    return { code: json.code, text: text.stdout, cluster };
  };

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-liveness-'));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('drops a heartbeat sent beyond the allowed skew ahead of the reconciler clock; the cluster is watched only as long as the reconciler last heard it', async () => {
    stateDir = join(scratch, 'dies');
    await withStore(async (store) => {
      await settle(store, 'dies');
      // A heartbeat claiming a send time a year ahead is not recorded: it would say nothing true about now.
      assert.equal(await receive(store, T, heartbeatBody('dies', T + YEAR_MS)), 'heartbeat-dropped');
      assert.equal(await store.getHeartbeat('dies'), undefined);
      assert.deepEqual(await polled(store, T + 1), { synced: ['dies/ns/js'], unwatched: ['dies'] }, 'a dropped heartbeat keeps nothing watched');
      // One a little ahead (within the allowance) is recorded at the reconciler's own time.
      assert.equal(await receive(store, T, heartbeatBody('dies', T + HEARTBEAT_CLOCK_SKEW_MS / 2)), 'heartbeat-recorded');
      assert.deepEqual(await store.getHeartbeat('dies'), { cluster: 'dies', sentAt: T + HEARTBEAT_CLOCK_SKEW_MS / 2, receivedAt: T, intervalMs: 60_000 });
      assert.deepEqual(await polled(store, T + MISSING_MS), { synced: [], unwatched: [] }, 'watched: heard within the missing time');
      // The forwarder dies: no more heartbeats. Its send time (ahead of the reconciler's) buys nothing.
      assert.deepEqual(await polled(store, T + MISSING_MS + 1), { synced: ['dies/ns/js'], unwatched: ['dies'] });
    });
    const late = await status('dies', T + MISSING_MS + 1);
    assert.equal(late.code, 1);
    assert.equal(late.cluster['watch'], 'unwatched');
    assert.match(late.text, /^dies {2}token {2}UNWATCHED: no heartbeat for 5m/m);
  });

  it("leaves a cluster whose heartbeat item holds future times (a forwarder could write it before) unwatched and polled, and keeps the next genuine heartbeat", async () => {
    stateDir = join(scratch, 'forged');
    await withStore(async (store) => {
      await settle(store, 'forged');
      // What a forwarder could PutItem under CLUSTER#<id> when its bookmarks shared the registry's partition: sent and received a year ahead.
      assert.equal(await store.putHeartbeat({ cluster: 'forged', sentAt: T + YEAR_MS, receivedAt: T + YEAR_MS, intervalMs: 60_000 }), true);
      assert.deepEqual(await polled(store, T), { synced: ['forged/ns/js'], unwatched: ['forged'] });
    });
    const forged = await status('forged', T);
    assert.equal(forged.code, 1);
    assert.equal(forged.cluster['watch'], 'unwatched');
    assert.equal((forged.cluster['heartbeat'] as Record<string, unknown>)['aheadOfClock'], true);
    assert.match(forged.text, /^forged {2}token {2}UNWATCHED: the last heartbeat claims a time ahead of this clock \(sent 2027-03-01T12:00:00\.000Z, received 2027-03-01T12:00:00\.000Z\), not believed; the resync polls its jobsets/m);

    await withStore(async (store) => {
      // The genuine forwarder's next heartbeat, sent before the forged time, is not refused by it.
      assert.equal(await receive(store, T + 60_000, heartbeatBody('forged', T + 59_000)), 'heartbeat-recorded');
      assert.deepEqual(await store.getHeartbeat('forged'), { cluster: 'forged', sentAt: T + 59_000, receivedAt: T + 60_000, intervalMs: 60_000 });
      assert.deepEqual(await polled(store, T + 120_000), { synced: [], unwatched: [] });
      // And when it dies, nothing keeps the cluster watched past the missing time.
      assert.deepEqual(await polled(store, T + 60_000 + MISSING_MS + 1), { synced: ['forged/ns/js'], unwatched: ['forged'] });
    });
    const genuine = await status('forged', T + 120_000);
    assert.equal(genuine.code, 0);
    assert.equal(genuine.cluster['watch'], 'watched');
    assert.equal((genuine.cluster['heartbeat'] as Record<string, unknown>)['aheadOfClock'], undefined);
  });
});
