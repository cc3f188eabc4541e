/**
 * Whether a cluster is watched comes from its forwarder's newest watch checkpoint (the forwarder
 * rewrites one at least every HEARTBEAT_INTERVAL_MS: its heartbeat), judged the same way by the
 * resync and `lineup clusters status`, on a state directory's store: watched while the newest
 * bookmark is younger than the missing time; a bookmark stamped more than HEARTBEAT_CLOCK_SKEW_MS
 * ahead of the judging clock is not believed (the cluster is unwatched and polled), so a forged
 * or broken clock buys a stopped forwarder at most that skew; the next genuine checkpoint
 * replaces it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Counters } from '../../lib/counters.ts';
import { LineupEventDetailSchema } from '../../lib/events/schema.ts';
import type { EventSink } from '../../lib/forwarder/types.ts';
import { openStateDirForWriting } from '../../lib/hosts/stateDir.ts';
import { collectingLog } from '../../lib/log.ts';
import { resync } from '../../lib/reconcile/resync.ts';
import { HEARTBEAT_CLOCK_SKEW_MS } from '../../lib/store/rules.ts';
import type { JobSetKey } from '../../lib/store/types.ts';
import { TestSqliteStore, type TestStore } from '../store/support/testStores.ts';
import { runCli } from '../cli/inProcess.ts';

const T = Date.UTC(2026, 2, 1, 12, 0, 0);
const MISSING_MS = 5 * 60_000;
const YEAR_MS = 365 * 24 * 3_600_000;

/** polled: the JobSets a plain (not full) resync at `now` re-queues, and the clusters it calls unwatched. */
const polled = async (store: TestStore, now: number): Promise<{ synced: string[]; unwatched: readonly string[] }> => {
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
const settle = async (store: TestStore, cluster: string): Promise<JobSetKey> => {
  await store.putCluster({ id: cluster, endpoint: `https://${cluster}.example.com`, auth: { type: 'token', token: 't' } });
  const key = { cluster, namespace: 'ns', name: 'js' };
  await store.markDirty(key, T - 60_000);
  const lease = await store.tryAcquireLease(key, 'me', T - 60_000, 30_000);
  assert.ok(lease);
  assert.equal((await store.releaseLease(key, { owner: 'me', reconciledDirty: lease.dirty, now: T - 60_000, ttlMs: 30_000 })).outcome, 'released');
  return key;
};

describe('fleet liveness from the forwarder checkpoints', () => {
  let scratch = '';
  let stateDir = '';
  /** withStore: the state directory's store, as its one writer, for `work`. */
  const withStore = async <R>(work: (store: TestStore) => Promise<R>): Promise<R> => {
    const open = openStateDirForWriting(stateDir, { command: 'test' });
    try {
      return await work(new TestSqliteStore(open.database));
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

  it('calls a cluster watched while its newest checkpoint is younger than the missing time, and unwatched (polled) after', async () => {
    stateDir = join(scratch, 'dies');
    await withStore(async (store) => {
      await settle(store, 'dies');
      assert.deepEqual(await polled(store, T), { synced: ['dies/ns/js'], unwatched: ['dies'] }, 'no checkpoint yet: never watched');
      await store.putBookmark('dies', 'jobs', '10', T - 3_600_000);
      await store.putBookmark('dies', 'jobsets', '11', T);
      assert.deepEqual(await polled(store, T + MISSING_MS), { synced: [], unwatched: [] }, 'the newest of its bookmarks counts');
      // The forwarder stops: no more checkpoints.
      assert.deepEqual(await polled(store, T + MISSING_MS + 1), { synced: ['dies/ns/js'], unwatched: ['dies'] });
    });
    const watched = await status('dies', T + 60_000);
    assert.equal(watched.code, 0);
    assert.equal(watched.cluster['watch'], 'watched');
    assert.match(watched.text, /^dies {2}token {2}watched: heartbeat 1m ago \(a checkpoint at least every 2m\); lag 1m/m);
    const late = await status('dies', T + MISSING_MS + 1);
    assert.equal(late.code, 1);
    assert.equal(late.cluster['watch'], 'unwatched');
    assert.match(late.text, /^dies {2}token {2}UNWATCHED: no heartbeat for 5m \(missing after 5m\), the last checkpoint written 2026-03-01T12:00:00\.000Z; the resync polls its jobsets/m);
  });

  it('believes no checkpoint stamped beyond the skew ahead of its clock; one within it buys a stopped forwarder at most the skew; the next genuine checkpoint replaces it', async () => {
    stateDir = join(scratch, 'forged');
    await withStore(async (store) => {
      await settle(store, 'forged');
      // A forwarder's clock a year ahead (broken, or forged by whoever holds its role).
      await store.putBookmark('forged', 'jobsets', '5', T + YEAR_MS);
      assert.deepEqual(await polled(store, T), { synced: ['forged/ns/js'], unwatched: ['forged'] });
    });
    const forged = await status('forged', T);
    assert.equal(forged.code, 1);
    assert.equal(forged.cluster['watch'], 'unwatched');
    assert.equal((forged.cluster['heartbeat'] as Record<string, unknown>)['aheadOfClock'], true);
    assert.match(forged.text, /^forged {2}token {2}UNWATCHED: the newest checkpoint claims a time ahead of this clock \(2027-03-01T12:00:00\.000Z\), not believed; the resync polls its jobsets/m);

    await withStore(async (store) => {
      // Within the allowance: believed, and the forwarder then stops.
      await store.putBookmark('forged', 'jobsets', '6', T + HEARTBEAT_CLOCK_SKEW_MS);
      assert.deepEqual(await polled(store, T), { synced: [], unwatched: [] });
      assert.deepEqual(await polled(store, T + HEARTBEAT_CLOCK_SKEW_MS + MISSING_MS), { synced: [], unwatched: [] });
      assert.deepEqual(await polled(store, T + HEARTBEAT_CLOCK_SKEW_MS + MISSING_MS + 1), { synced: ['forged/ns/js'], unwatched: ['forged'] }, 'at most the skew past the missing time');
      // A genuine forwarder's next checkpoint (its PutItem replaces the item) is believed at once.
      await store.putBookmark('forged', 'jobsets', '7', T + YEAR_MS + 1);
      await store.putBookmark('forged', 'jobsets', '8', T + 10 * MISSING_MS);
      assert.deepEqual(await polled(store, T + 10 * MISSING_MS + 1_000), { synced: [], unwatched: [] });
    });
    const genuine = await status('forged', T + 10 * MISSING_MS + 1_000);
    assert.equal(genuine.code, 0);
    assert.equal(genuine.cluster['watch'], 'watched');
    assert.equal((genuine.cluster['heartbeat'] as Record<string, unknown>)['aheadOfClock'], undefined);
  });
});
