/**
 * readClusterFacts: what status is computed from — the bookmarks (the newest is the heartbeat), every JobSet of
 * the cluster and the journals worth reading: a finished JobSet quiet for longer than the stats
 * window is counted without its journal. (The in-memory store: this tests the code above the store.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readClusterFacts } from '../../lib/fleet/facts.ts';
import { HEARTBEAT_INTERVAL_MS } from '../../lib/forwarder/heartbeat.ts';
import { STATS_WINDOW_MS } from '../../lib/fleet/status.ts';
import type { JobSetKey } from '../../lib/store/types.ts';
import { makeJournalEntry } from '../store/storeBehaviour.ts';
import { TestMemoryStore } from '../store/support/testStores.ts';

const T = Date.parse('2026-03-01T12:00:00Z');

/** settle: a JobSet's item written at `at`, released finished or not, with one journal entry. */
const settle = async (store: TestMemoryStore, key: JobSetKey, at: number, finished: boolean): Promise<void> => {
  await store.markDirty(key, at);
  const lease = await store.tryAcquireLease(key, 'me', at, 60_000);
  await store.releaseLease(key, { owner: 'me', reconciledDirty: lease?.dirty ?? 0, now: at, ttlMs: 60_000, loop: { finished } });
  await store.appendJournal(makeJournalEntry(key, at));
};

describe('fleet/facts', () => {
  it("reads the cluster's bookmarks (the newest its heartbeat) and JobSets, skipping only the journals of finished JobSets quiet for longer than the window", async () => {
    const store = new TestMemoryStore();
    const now = T + 3 * STATS_WINDOW_MS;
    const key = (name: string): JobSetKey => ({ cluster: 'c1', namespace: 'ns', name });
    await settle(store, key('finished-long-ago'), T, true);
    await settle(store, key('finished-lately'), now - 1_000, true);
    await settle(store, key('running-long'), T, false);
    await settle(store, { cluster: 'c2', namespace: 'ns', name: 'elsewhere' }, now, false);
    await store.putBookmark('c1', 'jobs', '42', now - 7);
    await store.putBookmark('c1', 'jobsets', '40', now - 90_000);
    const record = { id: 'c1', endpoint: 'https://k8s.example', auth: { type: 'token' as const, token: 't' } };
    const facts = await readClusterFacts(store, 'c1', record, now);
    assert.equal(facts.record, record);
    assert.deepEqual(facts.heartbeat, { cluster: 'c1', sentAt: now - 7, receivedAt: now - 7, intervalMs: HEARTBEAT_INTERVAL_MS }, 'the newest checkpoint is the heartbeat');
    assert.deepEqual(facts.bookmarks, [
      { resource: 'jobs', resourceVersion: '42', updatedAt: now - 7 },
      { resource: 'jobsets', resourceVersion: '40', updatedAt: now - 90_000 },
    ]);
    assert.deepEqual(
      facts.jobSets.map(({ state, journal }) => [state.key.name, journal.length]),
      [
        ['finished-lately', 1],
        ['finished-long-ago', 0],
        ['running-long', 1],
      ],
    );
  });
});
