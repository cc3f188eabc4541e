import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counters } from '../../lib/counters.ts';
import type { PutEventsEntry } from '../../lib/events/envelope.ts';
import { LineupEventDetailSchema } from '../../lib/events/schema.ts';
import type { EventSink, PutResult } from '../../lib/forwarder/types.ts';
import { collectingLog } from '../../lib/log.ts';
import { resync } from '../../lib/reconcile/resync.ts';
import { TestMemoryStore } from '../store/support/testStores.ts';

/** A sink that records entries and fails the first put of chosen indexes once. */
const recordingSink = (failFirst: readonly number[] = []): EventSink & { entries: PutEventsEntry[]; calls: number } => {
  const sink = {
    entries: [] as PutEventsEntry[],
    calls: 0,
    put: async (entries: readonly PutEventsEntry[]): Promise<PutResult> => {
      sink.calls += 1;
      const failing = sink.calls === 1 ? failFirst.filter((index) => index < entries.length) : [];
      entries.forEach((entry, index) => {
        if (!failing.includes(index)) sink.entries.push(entry);
      });
      return { failed: failing.map((index) => ({ index, code: 'ThrottlingException', message: 'slow down' })) };
    },
  };
  return sink;
};

const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('reconcile/resync', () => {
  it('queues a Sync for each JobSet left behind: expired lease, failed pass, unreconciled dirt, due wake-up', async () => {
    // Prepare
    const store = new TestMemoryStore();
    const key = (name: string) => ({ cluster: 'c1', namespace: 'ns', name });
    await store.markDirty(key('expired'), T0);
    await store.tryAcquireLease(key('expired'), 'crashed', T0, 1_000);
    await store.markDirty(key('failed'), T0);
    await store.tryAcquireLease(key('failed'), 'me', T0, 60_000);
    await store.failLease(key('failed'), { owner: 'me', error: 'boom', now: T0 });
    await store.markDirty(key('settled'), T0);
    const lease = await store.tryAcquireLease(key('settled'), 'me', T0, 60_000);
    await store.releaseLease(key('settled'), { owner: 'me', reconciledDirty: lease?.dirty ?? 0, now: T0, ttlMs: 60_000 });
    const sink = recordingSink([0]);
    // Act
    const result = await resync({ store, sink, now: () => T0 + 5_000, counters: new Counters(), log: collectingLog().log }, { full: false });
    // Assess
    assert.equal(result.synced, 2);
    const details = sink.entries.map((entry) => LineupEventDetailSchema.parse(JSON.parse(entry.Detail)));
    assert.deepEqual(details.map((d) => d.jobSet).sort(), ['expired', 'failed'], 'the failed entry was retried, nothing lost');
    assert.ok(sink.entries.every((entry) => entry.DetailType === 'JobSet Sync' && entry.Source === 'lineup.c1'));
  });

  it('re-queues every known JobSet of every registered cluster on a full resync', async () => {
    const store = new TestMemoryStore();
    await store.putCluster({ id: 'c1', endpoint: 'https://c1.example', auth: { type: 'token', token: 't' } });
    for (const name of ['a', 'b', 'c']) {
      const k = { cluster: 'c1', namespace: 'ns', name };
      await store.markDirty(k, T0);
      const lease = await store.tryAcquireLease(k, 'me', T0, 60_000);
      await store.releaseLease(k, { owner: 'me', reconciledDirty: lease?.dirty ?? 0, now: T0, ttlMs: 60_000 });
    }
    const sink = recordingSink();
    const result = await resync({ store, sink, now: () => T0, counters: new Counters(), log: collectingLog().log }, { full: true });
    assert.equal(result.synced, 3);
    assert.equal(sink.calls, 1, 'one PutEvents call for up to ten entries');
  });

  it('treats a registered cluster without a recent forwarder checkpoint as unwatched: every run re-queues its JobSets that may still change, says so and counts it', async () => {
    // Prepare: `heard` checkpointed a minute ago, `silent` ten minutes ago, `new` never; each has one settled JobSet, `silent` a finished one too.
    const store = new TestMemoryStore();
    for (const id of ['heard', 'silent', 'new']) {
      await store.putCluster({ id, endpoint: `https://${id}.example`, auth: { type: 'token', token: 't' } });
      const k = { cluster: id, namespace: 'ns', name: 'settled' };
      await store.markDirty(k, T0);
      const lease = await store.tryAcquireLease(k, 'me', T0, 60_000);
      await store.releaseLease(k, { owner: 'me', reconciledDirty: lease?.dirty ?? 0, now: T0, ttlMs: 60_000 });
    }
    const done = { cluster: 'silent', namespace: 'ns', name: 'done' };
    await store.markDirty(done, T0);
    const lease = await store.tryAcquireLease(done, 'me', T0, 60_000);
    await store.releaseLease(done, { owner: 'me', reconciledDirty: lease?.dirty ?? 0, now: T0, ttlMs: 60_000, loop: { finished: true } });
    const now = T0 + 20 * 60_000;
    await store.putBookmark('heard', 'jobsets', '7', now - 60_000);
    await store.putBookmark('heard', 'jobs', '5', now - 900_000);
    await store.putBookmark('silent', 'jobsets', '9', now - 600_000);
    const sink = recordingSink();
    const { log, lines } = collectingLog();
    // Act: a plain (not full) run, with a five-minute missing time.
    const result = await resync({ store, sink, now: () => now, counters: new Counters(), log, heartbeatMissingMs: 5 * 60_000 }, { full: false });
    // Assess
    assert.deepEqual(result.unwatched, ['new', 'silent']);
    assert.equal(result.alarmed, 2, 'both counted in UnwatchedClusters');
    const synced = sink.entries.map((entry) => LineupEventDetailSchema.parse(JSON.parse(entry.Detail))).map((d) => `${d.cluster}/${d.jobSet}`).sort();
    assert.deepEqual(synced, ['new/settled', 'silent/settled'], "the watched cluster's settled JobSet waits for events; a finished one is not polled");
    const warned = lines.filter((line) => line.level === 'warn' && line.message.startsWith('cluster unwatched'));
    assert.deepEqual(warned.map((line) => [line.fields?.['cluster'], line.fields?.['lastHeartbeatAt']]), [
      ['new', 'never'],
      ['silent', new Date(now - 600_000).toISOString()],
    ]);
  });

  it('leaves the clusters no forwarder watches out of the alarmed count, and polls them all the same', async () => {
    const store = new TestMemoryStore();
    for (const id of ['polled', 'lost']) {
      await store.putCluster({ id, endpoint: `https://${id}.example`, auth: { type: 'token', token: 't' } });
      await store.markDirty({ cluster: id, namespace: 'ns', name: 'x' }, T0);
    }
    const sink = recordingSink();
    const result = await resync({ store, sink, now: () => T0, counters: new Counters(), log: collectingLog().log, unalarmedClusters: new Set(['polled']) }, { full: false });
    assert.deepEqual(result.unwatched, ['lost', 'polled']);
    assert.equal(result.alarmed, 1, 'only the cluster a forwarder should watch is alarmed on');
    assert.deepEqual(sink.entries.map((entry) => entry.Source).sort(), ['lineup.lost', 'lineup.polled']);
  });

  it('fails (so the scheduler retries) when the bus keeps refusing entries', async () => {
    const store = new TestMemoryStore();
    await store.markDirty({ cluster: 'c1', namespace: 'ns', name: 'x' }, T0);
    const refusing: EventSink = { put: async (entries) => ({ failed: entries.map((_, index) => ({ index, code: 'InternalFailure', message: 'down' })) }) };
    await assert.rejects(resync({ store, sink: refusing, now: () => T0, counters: new Counters(), log: collectingLog().log }, { full: false }), /could not put 1 sync events: InternalFailure: down/);
  });
});
