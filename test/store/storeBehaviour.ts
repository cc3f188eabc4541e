/**
 * The checkpoint store's behaviour, written once and run against every implementation
 * (dynamoStore.test.ts on a real DynamoDB-API server, memoryStore.test.ts in memory), so the
 * in-memory stand-in used above the store cannot drift from the real one.
 */
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_PENDING_TRIGGERS, MAX_JOURNAL_ITEM_CHARS } from '../../lib/store/rules.ts';
import type { ClusterRecord, JournalEntry, JournalEvent, JobSetKey, Lease } from '../../lib/store/types.ts';
import type { TestStore } from './support/testStores.ts';

/** StoreFactory: a fresh, empty store for one test. */
export type StoreFactory = () => Promise<TestStore>;

/** Options of describeStoreBehaviour. */
export interface StoreBehaviourOptions {
  /** Runs of the fast-check lease property (fewer against a server, where each run is tens of requests). */
  readonly propertyRuns: number;
}

/** Epoch ms the tests start at; every `now` is injected. */
export const T0 = 1_700_000_000_000;
/** Lease TTL of the tests. */
export const TTL = 30_000;

/** jobSet: the key of JobSet `name` in namespace `ns` of cluster `cluster`. */
export const jobSet = (name: string, ns = 'default', cluster = 'c1'): JobSetKey => ({ cluster, namespace: ns, name });

/** makeJournalEntry: a journal entry of `key` at `at`, with only what a case varies given. */
export const makeJournalEntry = (key: JobSetKey, at: number, overrides: Partial<JournalEntry> = {}): JournalEntry => ({
  key,
  at,
  plannerVersion: '0.1.0+0123456789ab',
  // With the JobSet bounds a Lambda host sets: they must come back as written.
  planOptions: { controllerName: 'lineup.dev/controller', claimUnmanaged: false, limits: { maxJobs: 20_000, maxPods: 250_000 } },
  triggers: [{ detailType: 'Job Changed', kind: 'Job', name: `${key.name}-a-0`, resourceVersion: String(at), watchType: 'MODIFIED' }],
  timings: { receivedAt: at - 5, passStartedAt: at, writesDoneAt: at + 20 },
  inputsDigest: `digest-${at}`,
  inputsKept: 'unchanged',
  actions: [
    { kind: 'CreateJob', target: `${key.name}-a-0`, code: 'GateOpened', message: 'AnyOrder: no gate', digest: 'aaaaaaaaaaaa' },
    { kind: 'UpdateJobSetStatus', target: '', code: 'StatusChanged', message: 'created 1 jobs', digest: 'bbbbbbbbbbbb' },
  ],
  reason: `pass at ${at}`,
  applied: true,
  ...overrides,
});

/** sleep: wait `ms` of real time (the racing reconcilers interleave on real I/O). */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A pass interval in logical time (a shared tick counter, so two passes can never tie). */
interface PassInterval {
  readonly owner: string;
  readonly start: number;
  readonly end: number;
}

/**
 * handleEvent: what one reconciler invocation does for one event — bump the counter, try the
 * lease, and while it holds it run passes until a release succeeds or the lease is lost.
 * Returns the number of passes run (0 when the lease was held elsewhere: deferred).
 */
export const handleEvent = async (
  store: TestStore,
  key: JobSetKey,
  owner: string,
  now: () => number,
  pass: () => Promise<void>,
): Promise<number> => {
  await store.markDirty(key, now());
  let lease: Lease | undefined = await store.tryAcquireLease(key, owner, now(), TTL);
  let passes = 0;
  while (lease !== undefined) {
    await pass();
    passes += 1;
    const { outcome, lease: renewed } = await store.releaseLease(key, { owner, reconciledDirty: lease.dirty, now: now(), ttlMs: TTL });
    lease = outcome === 'dirty' ? renewed : undefined;
  }
  return passes;
};

/** describeStoreBehaviour: every role of CheckpointStore (lib/store/types.ts) as tests, against stores from `makeStore`. */
export const describeStoreBehaviour = (makeStore: StoreFactory, options: StoreBehaviourOptions): void => {
  describe('markDirty', () => {
    it('creates the JobSet at dirty 1, reconciled 0, without a lease, and counts up from there', async () => {
      // Prepare
      const store = await makeStore();
      const key = jobSet('js');
      // Act
      const first = await store.markDirty(key, T0);
      const second = await store.markDirty(key, T0 + 1);
      // Assess
      assert.equal(first, 1);
      assert.equal(second, 2);
      assert.deepEqual(await store.getState(key), { key, dirty: 2, reconciled: 0, updatedAt: T0 + 1 });
    });

    it('keeps JobSets of the same name in other namespaces and clusters apart', async () => {
      const store = await makeStore();
      await store.markDirty(jobSet('js', 'a'), T0);
      await store.markDirty(jobSet('js', 'b'), T0);
      await store.markDirty(jobSet('js', 'a', 'c2'), T0);
      assert.equal(await store.markDirty(jobSet('js', 'a'), T0), 2);
      assert.equal((await store.getState(jobSet('js', 'b')))?.dirty, 1);
      assert.equal((await store.getState(jobSet('js', 'a', 'c2')))?.dirty, 1);
    });
  });

  describe('noteEvent', () => {
    const trigger = (name: string, resourceVersion: string, kind: 'Job' | 'JobSet' = 'Job'): JournalEvent => ({
      id: `event-${name}-${resourceVersion}`,
      detailType: kind === 'Job' ? 'Job Changed' : 'JobSet Changed',
      kind,
      name,
      resourceVersion,
      watchType: 'MODIFIED',
      time: T0,
    });

    it('counts the event, queues its trigger and takes a free lease in one write', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      const note = await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r1', now: T0, ttlMs: TTL });
      assert.deepEqual(note, { outcome: 'leased', lease: { owner: 'r1', expiresAt: T0 + TTL, dirty: 1, pending: [trigger('js-a-0', '7')], carried: [], checkpoint: {} } });
      assert.deepEqual(await store.getState(key), { key, dirty: 1, reconciled: 0, lease: { owner: 'r1', expiresAt: T0 + TTL }, updatedAt: T0 });
    });

    it('defers to a live holder, and the holder finds the deferred trigger when it cannot release', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      const first = await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r1', now: T0, ttlMs: TTL });
      assert.equal(first.outcome, 'leased');
      assert.deepEqual(await store.noteEvent(key, { triggers: [trigger('js-a-1', '8')], owner: 'r2', now: T0 + TTL - 1, ttlMs: TTL }), { outcome: 'deferred' });
      const released = await store.releaseLease(key, { owner: 'r1', reconciledDirty: 1, now: T0 + 10, ttlMs: TTL });
      assert.equal(released.outcome, 'dirty');
      assert.deepEqual(released.lease?.pending, [trigger('js-a-0', '7'), trigger('js-a-1', '8')]);
      assert.equal(released.lease?.dirty, 2);
      assert.deepEqual(await store.releaseLease(key, { owner: 'r1', reconciledDirty: 2, now: T0 + 20, ttlMs: TTL }), { outcome: 'released' });
    });

    it("takes over a lease its holder let lapse", async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r1', now: T0, ttlMs: TTL });
      const note = await store.noteEvent(key, { triggers: [trigger('js-a-0', '9')], owner: 'r2', now: T0 + TTL, ttlMs: TTL });
      assert.equal(note.outcome, 'leased');
      assert.deepEqual(note.outcome === 'leased' ? [note.lease.owner, note.lease.dirty, note.lease.pending.length] : [], ['r2', 2, 2]);
      assert.equal((await store.getState(key))?.lease?.owner, 'r2');
    });

    it('drops an event whose object the last release knew at that resourceVersion, writing nothing', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.noteEvent(key, { triggers: [trigger('js', '3', 'JobSet')], owner: 'r1', now: T0, ttlMs: TTL });
      const known = { 'JobSet/js': '5', 'Job/js-a-0': '7' };
      assert.deepEqual(await store.releaseLease(key, { owner: 'r1', reconciledDirty: 1, now: T0 + 10, ttlMs: TTL, loop: { known, snapshot: 'token-1', inputsDigest: 'digest-1' } }), { outcome: 'released' });
      const before = await store.getState(key);
      assert.deepEqual(await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r2', now: T0 + 20, ttlMs: TTL }), { outcome: 'echo' });
      assert.deepEqual(await store.noteEvent(key, { triggers: [trigger('js', '5', 'JobSet')], owner: 'r2', now: T0 + 20, ttlMs: TTL }), { outcome: 'echo' });
      assert.deepEqual(await store.getState(key), before);
      const note = await store.noteEvent(key, { triggers: [trigger('js-a-0', '8')], owner: 'r2', now: T0 + 30, ttlMs: TTL });
      assert.deepEqual(note, {
        outcome: 'leased',
        lease: { owner: 'r2', expiresAt: T0 + 30 + TTL, dirty: 2, pending: [trigger('js-a-0', '8')], carried: [], checkpoint: { known, snapshot: 'token-1', inputsDigest: 'digest-1' } },
      });
    });

    it('an event naming several objects is an echo only when the item knows every one of them at its version, and queues them all', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r1', now: T0, ttlMs: TTL });
      const known = { 'JobSet/js': '5', 'Job/js-a-0': '7', 'Job/js-a-1': '8' };
      await store.releaseLease(key, { owner: 'r1', reconciledDirty: 1, now: T0 + 10, ttlMs: TTL, loop: { known } });
      const before = await store.getState(key);
      assert.deepEqual(await store.noteEvent(key, { triggers: [trigger('js-a-1', '8'), trigger('js-a-0', '7'), trigger('js', '5', 'JobSet')], owner: 'r2', now: T0 + 20, ttlMs: TTL }), { outcome: 'echo' });
      assert.deepEqual(await store.getState(key), before, 'an echo writes nothing');
      // One object at a newer version: the event counts, with every trigger queued.
      const both = [trigger('js-a-1', '9'), trigger('js-a-0', '7')];
      const note = await store.noteEvent(key, { triggers: both, owner: 'r2', now: T0 + 30, ttlMs: TTL });
      assert.deepEqual(note.outcome === 'leased' ? [note.lease.dirty, note.lease.pending] : note, [2, both]);
      await store.releaseLease(key, { owner: 'r2', reconciledDirty: 2, now: T0 + 40, ttlMs: TTL, loop: { known } });
      // A deletion among them: never an echo, whatever the item knows.
      const withDeletion = [trigger('js-a-1', '8'), { ...trigger('js-a-0', '7'), watchType: 'DELETED' as const }];
      assert.equal((await store.noteEvent(key, { triggers: withDeletion, owner: 'r3', now: T0 + 50, ttlMs: TTL })).outcome, 'leased');
    });

    it('never takes a Sync (no resourceVersion), a deletion or another object for an echo', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r1', now: T0, ttlMs: TTL });
      await store.releaseLease(key, { owner: 'r1', reconciledDirty: 1, now: T0 + 10, ttlMs: TTL, loop: { known: { 'Job/js-a-0': '7', 'JobSet/js': '' } } });
      const sync: JournalEvent = { detailType: 'JobSet Sync', kind: 'JobSet', name: 'js', resourceVersion: '', watchType: 'SYNC' };
      assert.equal((await store.noteEvent(key, { triggers: [sync], owner: 'r2', now: T0 + 20, ttlMs: TTL })).outcome, 'leased');
      assert.equal((await store.noteEvent(key, { triggers: [trigger('js-a-1', '7')], owner: 'r3', now: T0 + 20, ttlMs: TTL })).outcome, 'deferred');
      assert.equal((await store.noteEvent(key, { triggers: [{ ...trigger('js-a-0', '7'), watchType: 'DELETED' }], owner: 'r3', now: T0 + 20, ttlMs: TTL })).outcome, 'deferred');
      assert.equal((await store.getState(key))?.dirty, 4);
    });

    it('carries the triggers a release hands over, forgets known and snapshot not given again, keeps the last inputs digest', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r1', now: T0, ttlMs: TTL });
      await store.releaseLease(key, { owner: 'r1', reconciledDirty: 1, now: T0 + 10, ttlMs: TTL, loop: { carry: [trigger('js-a-0', '7')], known: { 'Job/js-a-0': '7' }, snapshot: 's1', inputsDigest: 'd1' } });
      const second = await store.noteEvent(key, { triggers: [trigger('js-a-1', '2')], owner: 'r2', now: T0 + 20, ttlMs: TTL });
      assert.deepEqual(second.outcome === 'leased' ? [second.lease.pending, second.lease.carried] : [], [[trigger('js-a-1', '2')], [trigger('js-a-0', '7')]]);
      await store.releaseLease(key, { owner: 'r2', reconciledDirty: 2, now: T0 + 30, ttlMs: TTL });
      const third = await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r3', now: T0 + 40, ttlMs: TTL });
      assert.deepEqual(third.outcome === 'leased' ? [third.lease.pending, third.lease.carried, third.lease.checkpoint] : [], [[trigger('js-a-0', '7')], [], { inputsDigest: 'd1' }]);
    });

    it('after failLease takes no event for an echo: the failed loop\'s view is not trusted', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r1', now: T0, ttlMs: TTL });
      await store.releaseLease(key, { owner: 'r1', reconciledDirty: 1, now: T0 + 10, ttlMs: TTL, loop: { known: { 'Job/js-a-0': '7' }, snapshot: 's1' } });
      await store.noteEvent(key, { triggers: [trigger('js-a-0', '8')], owner: 'r2', now: T0 + 20, ttlMs: TTL });
      await store.failLease(key, { owner: 'r2', error: 'boom', now: T0 + 30, inputsDigest: 'digest-of-the-failed-pass' });
      const note = await store.noteEvent(key, { triggers: [trigger('js-a-0', '7')], owner: 'r3', now: T0 + 40, ttlMs: TTL });
      assert.equal(note.outcome, 'leased');
      assert.deepEqual(note.outcome === 'leased' ? note.lease.checkpoint : undefined, { inputsDigest: 'digest-of-the-failed-pass' });
    });
  });

  describe('pending triggers', () => {
    const change = (name: string, resourceVersion: string, watchType = 'MODIFIED'): JournalEvent => ({
      id: `event-${name}-${resourceVersion}-${watchType}`,
      detailType: 'Job Changed',
      kind: 'Job',
      name,
      resourceVersion,
      watchType,
      time: T0,
    });
    const sync = (id: string): JournalEvent => ({ id, detailType: 'JobSet Sync', kind: 'JobSet', name: 'js', resourceVersion: '', watchType: 'SYNC' });
    const names = (pending: readonly JournalEvent[]): string[] => pending.map((trigger) => `${trigger.name}@${trigger.resourceVersion}${trigger.watchType === 'MODIFIED' ? '' : ` ${trigger.watchType}`}`);

    it(`keeps at most ${MAX_PENDING_TRIGGERS}, the newest trigger of each object where it stands, then drops the oldest objects and counts them until a release`, async () => {
      // Prepare: r1 holds the lease and never looks; the list fills with one trigger per Job.
      const store = await makeStore();
      const key = jobSet('js');
      assert.equal((await store.noteEvent(key, { triggers: [change('js-a-0', '1')], owner: 'r1', now: T0, ttlMs: TTL })).outcome, 'leased');
      for (let index = 1; index < MAX_PENDING_TRIGGERS; index += 1) {
        assert.deepEqual(await store.noteEvent(key, { triggers: [change(`js-a-${index}`, '1')], owner: 'r2', now: T0 + 1, ttlMs: TTL }), { outcome: 'deferred' }, 'a list that fits is not trimmed');
      }
      // Act: a newer version of a queued Job, then a Job not queued yet, then two Syncs and a deletion.
      const newer = await store.noteEvent(key, { triggers: [change('js-a-5', '2')], owner: 'r2', now: T0 + 2, ttlMs: TTL });
      const another = await store.noteEvent(key, { triggers: [change('js-b-0', '1')], owner: 'r2', now: T0 + 3, ttlMs: TTL });
      const syncs = [await store.noteEvent(key, { triggers: [sync('s1')], owner: 'r2', now: T0 + 4, ttlMs: TTL }), await store.noteEvent(key, { triggers: [sync('s2')], owner: 'r2', now: T0 + 5, ttlMs: TTL })];
      const deletion = await store.noteEvent(key, { triggers: [change('js-a-7', '3', 'DELETED')], owner: 'r2', now: T0 + 6, ttlMs: TTL });
      const renewed = await store.releaseLease(key, { owner: 'r1', reconciledDirty: 1, now: T0 + 7, ttlMs: TTL });
      // Assess
      assert.deepEqual(newer, { outcome: 'deferred', trimmed: { coalesced: 1, dropped: 0 } }, 'the older version of js-a-5 goes: the newer says it changed');
      assert.deepEqual(another, { outcome: 'deferred', trimmed: { coalesced: 0, dropped: 1 } }, 'one object too many: the oldest goes, counted');
      assert.deepEqual(syncs[0], { outcome: 'deferred', trimmed: { coalesced: 0, dropped: 1 } });
      assert.deepEqual(syncs[1], { outcome: 'deferred', trimmed: { coalesced: 1, dropped: 0 } }, 'a Sync stands for every earlier one');
      assert.deepEqual(deletion, { outcome: 'deferred', trimmed: { coalesced: 0, dropped: 1 } }, 'a deletion is not folded into a change of its object');
      assert.equal(renewed.outcome, 'dirty');
      const pending = renewed.lease?.pending ?? [];
      assert.equal(pending.length, MAX_PENDING_TRIGGERS);
      assert.deepEqual(names(pending).slice(-4), ['js-a-5@2', 'js-b-0@1', 'js@ SYNC', 'js-a-7@3 DELETED']);
      assert.deepEqual(names(pending).slice(0, 2), ['js-a-3@1', 'js-a-4@1'], 'js-a-0, js-a-1 and js-a-2 were dropped, oldest first');
      assert.equal(pending.find((trigger) => trigger.watchType === 'SYNC')?.id, 's2');
      assert.ok(pending.some((trigger) => trigger.name === 'js-a-7' && trigger.watchType === 'MODIFIED'), 'the change before the deletion stays beside it');
      assert.equal(renewed.lease?.pendingDropped, 3);
      assert.equal((await store.getState(key))?.dirty, MAX_PENDING_TRIGGERS + 5);
    });

    it('keeps the trimmed list and its count through a failed loop, and a release clears both', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.noteEvent(key, { triggers: [change('js-a-0', '1')], owner: 'r1', now: T0, ttlMs: TTL });
      for (let index = 1; index <= MAX_PENDING_TRIGGERS + 1; index += 1) await store.noteEvent(key, { triggers: [change(`js-a-${index}`, '1')], owner: 'r2', now: T0 + 1, ttlMs: TTL });
      await store.failLease(key, { owner: 'r1', error: 'boom', now: T0 + 2 });
      const next = await store.noteEvent(key, { triggers: [change('js-a-0', '2')], owner: 'r3', now: T0 + 3, ttlMs: TTL });
      assert.equal(next.outcome, 'leased');
      const lease = next.outcome === 'leased' ? next.lease : undefined;
      assert.equal(lease?.pending.length, MAX_PENDING_TRIGGERS);
      assert.equal(lease?.pendingDropped, 3, 'two dropped before the failure, one by this note');
      assert.deepEqual(next.outcome === 'leased' ? next.trimmed : undefined, { coalesced: 0, dropped: 1 });
      assert.deepEqual(await store.releaseLease(key, { owner: 'r3', reconciledDirty: lease?.dirty ?? 0, now: T0 + 4, ttlMs: TTL }), { outcome: 'released' });
      const after = await store.noteEvent(key, { triggers: [change('js-a-9', '2')], owner: 'r4', now: T0 + 5, ttlMs: TTL });
      assert.deepEqual(after.outcome === 'leased' ? [names(after.lease.pending), after.lease.pendingDropped, after.trimmed] : after, [['js-a-9@2'], undefined, undefined]);
    });
  });

  describe('tryAcquireLease', () => {
    it('takes a free lease and returns the dirty value to reconcile to', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      await store.markDirty(key, T0);
      const lease = await store.tryAcquireLease(key, 'r1', T0 + 5, TTL);
      assert.deepEqual(lease, { owner: 'r1', expiresAt: T0 + 5 + TTL, dirty: 2, pending: [], carried: [], checkpoint: {} });
      assert.deepEqual((await store.getState(key))?.lease, { owner: 'r1', expiresAt: T0 + 5 + TTL });
    });

    it('refuses a lease another owner holds until the moment it expires, without error', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      await store.tryAcquireLease(key, 'r1', T0, TTL);
      assert.equal(await store.tryAcquireLease(key, 'r2', T0 + TTL - 1, TTL), undefined);
      assert.deepEqual(await store.tryAcquireLease(key, 'r2', T0 + TTL, TTL), { owner: 'r2', expiresAt: T0 + 2 * TTL, dirty: 1, pending: [], carried: [], checkpoint: {} });
      assert.equal((await store.getState(key))?.lease?.owner, 'r2');
    });

    it('gives the holder its own lease again, renewed', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      await store.tryAcquireLease(key, 'r1', T0, TTL);
      assert.deepEqual(await store.tryAcquireLease(key, 'r1', T0 + 10, TTL), { owner: 'r1', expiresAt: T0 + 10 + TTL, dirty: 1, pending: [], carried: [], checkpoint: {} });
    });

    it('takes the lease of a JobSet never marked dirty, at dirty 0', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      assert.deepEqual(await store.tryAcquireLease(key, 'r1', T0, TTL), { owner: 'r1', expiresAt: T0 + TTL, dirty: 0, pending: [], carried: [], checkpoint: {} });
      assert.deepEqual(await store.getState(key), {
        key,
        dirty: 0,
        reconciled: 0,
        lease: { owner: 'r1', expiresAt: T0 + TTL },
        updatedAt: T0,
      });
    });
  });

  describe('releaseLease', () => {
    it("returns 'released' when nothing happened during the pass, recording what was reconciled", async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      const lease = await store.tryAcquireLease(key, 'r1', T0, TTL);
      assert.ok(lease);
      assert.deepEqual(await store.releaseLease(key, { owner: 'r1', reconciledDirty: lease.dirty, now: T0 + 100, ttlMs: TTL }), { outcome: 'released' });
      assert.deepEqual(await store.getState(key), { key, dirty: 1, reconciled: 1, updatedAt: T0 + 100 });
    });

    it("returns 'dirty' with a renewed lease at the new counter when markDirty happened during the pass", async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      const lease = await store.tryAcquireLease(key, 'r1', T0, TTL);
      assert.ok(lease);
      await store.markDirty(key, T0 + 50); // an event arrives mid-pass
      assert.equal(await store.tryAcquireLease(key, 'r2', T0 + 50, TTL), undefined); // its invocation defers
      const released = await store.releaseLease(key, { owner: 'r1', reconciledDirty: lease.dirty, now: T0 + 100, ttlMs: TTL });
      assert.deepEqual(released, { outcome: 'dirty', lease: { owner: 'r1', expiresAt: T0 + 100 + TTL, dirty: 2, pending: [], carried: [], checkpoint: {} } });
      const state = await store.getState(key);
      assert.equal(state?.reconciled, 0);
      assert.deepEqual(state?.lease, { owner: 'r1', expiresAt: T0 + 100 + TTL });
      assert.deepEqual(await store.releaseLease(key, { owner: 'r1', reconciledDirty: 2, now: T0 + 200, ttlMs: TTL }), { outcome: 'released' });
      assert.deepEqual(await store.getState(key), { key, dirty: 2, reconciled: 2, updatedAt: T0 + 200 });
    });

    it("returns 'lost' once the lease expired and another reconciler took it, leaving the new holder's lease alone", async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      const lease = await store.tryAcquireLease(key, 'r1', T0, TTL);
      assert.ok(lease);
      await store.markDirty(key, T0 + TTL);
      assert.ok(await store.tryAcquireLease(key, 'r2', T0 + TTL, TTL));
      assert.deepEqual(await store.releaseLease(key, { owner: 'r1', reconciledDirty: lease.dirty, now: T0 + TTL + 1, ttlMs: TTL }), { outcome: 'lost' });
      const state = await store.getState(key);
      assert.deepEqual(state?.lease, { owner: 'r2', expiresAt: T0 + 2 * TTL });
      assert.equal(state?.reconciled, 0);
    });

    it("returns 'lost' to a reconciler that never held the lease, and for a JobSet without state", async () => {
      const store = await makeStore();
      const key = jobSet('js');
      assert.deepEqual(await store.releaseLease(key, { owner: 'r1', reconciledDirty: 0, now: T0, ttlMs: TTL }), { outcome: 'lost' });
      assert.equal(await store.getState(key), undefined);
      await store.markDirty(key, T0);
      await store.tryAcquireLease(key, 'r1', T0, TTL);
      assert.deepEqual(await store.releaseLease(key, { owner: 'stranger', reconciledDirty: 1, now: T0, ttlMs: TTL }), { outcome: 'lost' });
    });

    it('lets a holder whose lease lapsed but was not taken still release', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      await store.tryAcquireLease(key, 'r1', T0, TTL);
      assert.deepEqual(await store.releaseLease(key, { owner: 'r1', reconciledDirty: 1, now: T0 + 2 * TTL, ttlMs: TTL }), { outcome: 'released' });
    });

    it('sets wakeAt when given and removes an earlier one when not', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await handleOnce(store, key, 'r1', T0, T0 + 60_000);
      assert.equal((await store.getState(key))?.wakeAt, T0 + 60_000);
      await handleOnce(store, key, 'r1', T0 + 10);
      assert.equal((await store.getState(key))?.wakeAt, undefined);
    });
  });

  describe('failLease', () => {
    it('gives the lease up, keeps the JobSet unreconciled and records the error until a release clears it', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      await store.tryAcquireLease(key, 'r1', T0, TTL);
      await store.failLease(key, { owner: 'r1', error: 'patch failed: 500', now: T0 + 10 });
      assert.deepEqual(await store.getState(key), {
        key,
        dirty: 1,
        reconciled: 0,
        lastError: 'patch failed: 500',
        updatedAt: T0 + 10,
      });
      // The next holder takes over at once (no lease to wait out) and its release clears the error.
      const lease = await store.tryAcquireLease(key, 'r2', T0 + 20, TTL);
      assert.equal(lease?.dirty, 1);
      assert.equal((await store.getState(key))?.lastError, 'patch failed: 500');
      assert.deepEqual(await store.releaseLease(key, { owner: 'r2', reconciledDirty: 1, now: T0 + 30, ttlMs: TTL }), { outcome: 'released' });
      assert.deepEqual(await store.getState(key), { key, dirty: 1, reconciled: 1, updatedAt: T0 + 30 });
    });

    it('writes nothing when the reconciler no longer holds the lease', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      await store.markDirty(key, T0);
      await store.tryAcquireLease(key, 'r1', T0, TTL);
      await store.tryAcquireLease(key, 'r2', T0 + TTL, TTL);
      await store.failLease(key, { owner: 'r1', error: 'too late', now: T0 + TTL + 1 });
      const state = await store.getState(key);
      assert.equal(state?.lastError, undefined);
      assert.equal(state?.lease?.owner, 'r2');
      await store.failLease(jobSet('never-seen'), { owner: 'r1', error: 'nothing here', now: T0 });
      assert.equal(await store.getState(jobSet('never-seen')), undefined);
    });
  });

  describe('forgetJobSet', () => {
    it('deletes the state of a JobSet that is gone when the caller holds its lease, and only then', async () => {
      const store = await makeStore();
      const key = jobSet('gone');
      await store.markDirty(key, T0);
      await store.tryAcquireLease(key, 'holder', T0, TTL);
      assert.equal(await store.forgetJobSet(key, 'someone-else'), false);
      assert.ok(await store.getState(key), 'kept: the caller did not hold the lease');
      assert.equal(await store.forgetJobSet(key, 'holder'), true);
      assert.equal(await store.getState(key), undefined);
      assert.deepEqual(await store.listJobSets(key.cluster), [], 'a full resync no longer re-queues it');
    });
  });

  describe('getState', () => {
    it('returns undefined for a JobSet the store never saw', async () => {
      const store = await makeStore();
      assert.equal(await store.getState(jobSet('nope')), undefined);
    });
  });

  describe('listNeedingResync', () => {
    it('finds expired leases, failed passes, unreconciled dirty counters and due wakeAts, and nothing else', async () => {
      // Prepare: one JobSet per situation, everything at T0, listed at T0 + TTL.
      const store = await makeStore();
      const now = T0 + TTL;
      // Needs a resync:
      await store.markDirty(jobSet('expired-lease'), T0);
      await store.tryAcquireLease(jobSet('expired-lease'), 'crashed', T0, TTL);
      await store.markDirty(jobSet('failed-pass'), T0);
      await store.tryAcquireLease(jobSet('failed-pass'), 'r1', T0, TTL);
      await store.failLease(jobSet('failed-pass'), { owner: 'r1', error: 'boom', now: T0 });
      await store.markDirty(jobSet('dirty-no-lease'), T0);
      await handleOnce(store, jobSet('dirty-after-wake-set'), 'r1', T0, now + 60_000);
      await store.markDirty(jobSet('dirty-after-wake-set'), T0 + 1); // its invocation died before the lease
      await store.markDirty(jobSet('failed-pass-retaken'), T0);
      await store.tryAcquireLease(jobSet('failed-pass-retaken'), 'r1', T0, TTL);
      await store.failLease(jobSet('failed-pass-retaken'), { owner: 'r1', error: 'boom', now: T0 });
      await store.tryAcquireLease(jobSet('failed-pass-retaken'), 'r2', T0 + 1, TTL); // lastError stays until r2 releases
      await handleOnce(store, jobSet('wake-due'), 'r1', T0, now);
      await store.markDirty(jobSet('expired-lease-other-cluster', 'default', 'c2'), T0);
      await store.tryAcquireLease(jobSet('expired-lease-other-cluster', 'default', 'c2'), 'crashed', T0, 10);
      // Does not:
      await store.markDirty(jobSet('held-lease'), T0);
      await store.tryAcquireLease(jobSet('held-lease'), 'r1', T0 + 1, TTL);
      await store.markDirty(jobSet('held-lease'), T0 + 2); // dirty, but its holder will see it
      await handleOnce(store, jobSet('quiescent'), 'r1', T0);
      await handleOnce(store, jobSet('wake-later'), 'r1', T0, now + 1);
      // Act
      const listed = await store.listNeedingResync(now);
      // Assess
      assert.deepEqual(
        listed.map((state) => `${state.key.cluster}/${state.key.name}`),
        [
          'c1/dirty-after-wake-set',
          'c1/dirty-no-lease',
          'c1/expired-lease',
          'c1/failed-pass',
          'c1/failed-pass-retaken',
          'c1/wake-due',
          'c2/expired-lease-other-cluster',
        ],
      );
      assert.deepEqual(
        listed.find((state) => state.key.name === 'failed-pass'),
        { key: jobSet('failed-pass'), dirty: 1, reconciled: 0, lastError: 'boom', updatedAt: T0 },
      );
    });

    it('finds a JobSet once its wakeAt comes, and no more after the woken pass releases it', async () => {
      const store = await makeStore();
      const key = jobSet('ttl-after-finished');
      await handleOnce(store, key, 'r1', T0, T0 + 1_000);
      assert.deepEqual(await store.listNeedingResync(T0 + 999), []);
      assert.deepEqual((await store.listNeedingResync(T0 + 1_000)).map((s) => s.key), [key]);
      await handleOnce(store, key, 'r1', T0 + 1_000);
      assert.deepEqual(await store.listNeedingResync(T0 + 5_000), []);
    });

    it('finds JobSets spread over many partitions of the store', async () => {
      const store = await makeStore();
      const keys = Array.from({ length: 40 }, (_, i) => jobSet(`js-${String(i).padStart(2, '0')}`));
      await Promise.all(keys.map((key) => store.markDirty(key, T0)));
      assert.deepEqual((await store.listNeedingResync(T0)).map((s) => s.key), keys);
    });
  });

  describe('listJobSets', () => {
    it("lists every JobSet of one cluster, ordered by namespace and name, and no other cluster's", async () => {
      const store = await makeStore();
      await store.markDirty(jobSet('b', 'ns1'), T0);
      await store.markDirty(jobSet('a', 'ns2'), T0);
      await store.markDirty(jobSet('a', 'ns1'), T0);
      await store.tryAcquireLease(jobSet('leased-only', 'ns1'), 'r1', T0, TTL);
      await store.markDirty(jobSet('x', 'ns1', 'c2'), T0);
      await store.appendJournal(makeJournalEntry(jobSet('a', 'ns1'), T0));
      const listed = await store.listJobSets('c1');
      assert.deepEqual(
        listed.map((s) => `${s.key.namespace}/${s.key.name}`),
        ['ns1/a', 'ns1/b', 'ns1/leased-only', 'ns2/a'],
      );
      assert.deepEqual(await store.listJobSets('unknown'), []);
    });
  });

  describe('journal entries', () => {
    it('come back oldest first whatever order they were recorded in, only for their JobSet', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      for (const at of [T0 + 3_000, T0 + 1_000, T0 + 2_000]) await store.appendJournal(makeJournalEntry(key, at));
      await store.appendJournal(makeJournalEntry(jobSet('other'), T0));
      assert.deepEqual(
        (await store.listJournal(key)).map((d) => d.at),
        [T0 + 1_000, T0 + 2_000, T0 + 3_000],
      );
    });

    it('keep the order they were recorded in within one millisecond', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      for (const reason of ['first', 'second', 'third']) await store.appendJournal(makeJournalEntry(key, T0, { reason }));
      assert.deepEqual((await store.listJournal(key)).map((d) => d.reason), ['first', 'second', 'third']);
    });

    it('returns at most `limit`, the oldest ones', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      for (let i = 0; i < 5; i += 1) await store.appendJournal(makeJournalEntry(key, T0 + i));
      assert.deepEqual((await store.listJournal(key, 2)).map((d) => d.at), [T0, T0 + 1]);
      assert.equal((await store.listJournal(key, 10)).length, 5);
      assert.deepEqual(await store.listJournal(key, 0), []);
      assert.deepEqual(await store.listJournal(jobSet('none')), []);
    });

    it('round-trip every field, optional ones included and absent ones absent', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      const full = makeJournalEntry(key, T0, {
        applied: false,
        replayName: 'replay-1',
        error: 'apply failed',
        inputsKept: 'stored',
        inputs: 'H4sIAAAAAAAAA6tWSs7PS8tMBwA=',
        triggers: [
          { id: 'ev-1', detailType: 'JobSet Changed', kind: 'JobSet', name: 'js', resourceVersion: '7', watchType: 'ADDED', time: T0 - 1_000, replayName: 'replay-1' },
          { detailType: 'Job Changed', kind: 'Job', name: 'js-a-0', resourceVersion: '8', watchType: 'MODIFIED' },
        ],
        timings: { seenAt: T0 - 1_200, eventAt: T0 - 1_000, receivedAt: T0 - 10, passStartedAt: T0, writesDoneAt: T0 + 30 },
        actionsOmitted: 3,
      });
      const bare = makeJournalEntry(key, T0 + 1, { replayName: undefined, triggers: [], actions: [], timings: { passStartedAt: T0 + 1, writesDoneAt: T0 + 2 } });
      await store.appendJournal(full);
      await store.appendJournal(bare);
      const { replayName: _absent, ...bareAsStored } = bare;
      assert.deepEqual(await store.listJournal(key), [full, bareAsStored]);
    });

    it('keep an entry whose inputs are too large for an item without them, saying so', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      // Random base64 does not compress: it stands for inputs too large to keep.
      const entry = makeJournalEntry(key, T0, { inputsKept: 'stored', inputs: randomBytes(MAX_JOURNAL_ITEM_CHARS).toString('base64') });
      await store.appendJournal(entry);
      const { inputs: _dropped, ...withoutInputs } = entry;
      assert.deepEqual(await store.listJournal(key), [{ ...withoutInputs, inputsKept: 'too-large' }]);
    });

    it('round-trip a delta entry as written, and keep one too large without its delta, saying so', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      const delta = makeJournalEntry(key, T0, { inputsKept: 'delta', inputsDigest: 'bbbb', inputs: 'H4sIAAAAAAAAA6tWSkosUrJSSkxKVqoFAGD7WaQRAAAA' });
      const huge = makeJournalEntry(key, T0 + 1, { inputsKept: 'delta', inputsDigest: 'cccc', inputs: randomBytes(MAX_JOURNAL_ITEM_CHARS).toString('base64') });
      await store.appendJournal(delta);
      await store.appendJournal(huge);
      const { inputs: _dropped, ...withoutInputs } = huge;
      assert.deepEqual(await store.listJournal(key), [delta, { ...withoutInputs, inputsKept: 'too-large' }]);
    });

    it('keep an entry whose actions alone are too large by leaving out the last ones and counting them', async () => {
      const store = await makeStore();
      const key = jobSet('js');
      // Each action's message is random, so the packed actions stay large: 4,000 × ~1 KB.
      const actions = Array.from({ length: 4_000 }, (_, index) => ({
        kind: 'CreateJob',
        target: `js-a-${index}`,
        code: 'GateOpened',
        message: randomBytes(768).toString('base64'),
        digest: 'cccccccccccc',
      }));
      await store.appendJournal(makeJournalEntry(key, T0, { actions }));
      const [kept] = await store.listJournal(key);
      assert.ok(kept);
      assert.ok(kept.actions.length > 0 && kept.actions.length < actions.length, `kept ${kept.actions.length} of ${actions.length} actions`);
      assert.equal(kept.actionsOmitted, actions.length - kept.actions.length);
      assert.deepEqual(kept.actions, actions.slice(0, kept.actions.length), 'the first actions, in order');
    });
  });

  describe('bookmarks', () => {
    it('round-trip per cluster and resource, the last put winning', async () => {
      const store = await makeStore();
      assert.equal(await store.getBookmark('c1', 'jobsets'), undefined);
      await store.putBookmark('c1', 'jobsets', '100', T0);
      await store.putBookmark('c1', 'jobs', '200', T0);
      await store.putBookmark('c2', 'jobsets', '300', T0);
      await store.putBookmark('c1', 'jobsets', '150', T0 + 1);
      assert.equal(await store.getBookmark('c1', 'jobsets'), '150');
      assert.equal(await store.getBookmark('c1', 'jobs'), '200');
      assert.equal(await store.getBookmark('c2', 'jobsets'), '300');
      assert.equal(await store.getBookmark('c2', 'jobs'), undefined);
    });

    it("lists a cluster's bookmarks with their write times, and no other cluster's", async () => {
      const store = await makeStore();
      assert.deepEqual(await store.listBookmarks('c1'), []);
      await store.putBookmark('c1', 'jobsets', '100', T0);
      await store.putBookmark('c1', 'jobs', '200', T0 + 5);
      await store.putBookmark('c10', 'jobs', '900', T0 + 9);
      await store.putBookmark('c1', 'jobsets', '150', T0 + 7);
      assert.deepEqual(await store.listBookmarks('c1'), [
        { resource: 'jobs', resourceVersion: '200', updatedAt: T0 + 5 },
        { resource: 'jobsets', resourceVersion: '150', updatedAt: T0 + 7 },
      ]);
    });

    it("keeps a forwarder's bookmarks apart from its cluster's registry entry", async () => {
      const store = await makeStore();
      const record: ClusterRecord = { id: 'c1', endpoint: 'https://k8s.example.com', auth: { type: 'eks', clusterName: 'c1', region: 'eu-west-1' } };
      await store.putCluster(record);
      await store.putBookmark('c1', 'jobsets', '100', T0 + 20);
      await store.putBookmark('c1', 'registry', '200', T0 + 30);
      await store.putBookmark('c1', 'heartbeat', '300', T0 + 40);
      assert.deepEqual(await store.getCluster('c1'), record, 'no bookmark, whatever its resource, touches the registry entry');
      assert.deepEqual(await store.listClusters(), [record]);
      assert.deepEqual((await store.listBookmarks('c1')).map((bookmark) => bookmark.resource), ['heartbeat', 'jobsets', 'registry'], 'nor is it a bookmark');
      await store.deleteCluster('c1');
      assert.equal(await store.getBookmark('c1', 'jobsets'), '100');
    });
  });

  describe('cluster registry', () => {
    const clusters: ClusterRecord[] = [
      { id: 'eks-prod', endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', caData: 'LS0tLS1CRUdJTg==', auth: { type: 'eks', clusterName: 'prod', region: 'us-east-1', roleArn: 'arn:aws:iam::123456789012:role/lineup' } },
      { id: 'bare', endpoint: 'https://10.0.0.1:6443', auth: { type: 'token', tokenSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:bare' } },
      { id: 'kind', endpoint: 'https://127.0.0.1:6443', auth: { type: 'kubeconfig', path: 'kubeconfigs/kind.yaml', context: 'kind-kind' } },
    ];

    it('round-trips every auth type and lists the clusters by id', async () => {
      const store = await makeStore();
      for (const record of clusters) await store.putCluster(record);
      assert.deepEqual(await store.getCluster('eks-prod'), clusters[0]);
      assert.deepEqual(await store.getCluster('missing'), undefined);
      assert.deepEqual(await store.listClusters(), [clusters[1], clusters[0], clusters[2]]);
    });

    it('replaces an entry on put, drops undefined fields, and forgets it on delete', async () => {
      const store = await makeStore();
      await store.putCluster({ id: 'c', endpoint: 'https://old', caData: 'old', auth: { type: 'token', token: 't' } });
      await store.putCluster({ id: 'c', endpoint: 'https://new', caData: undefined, auth: { type: 'eks', clusterName: 'c', region: 'eu-west-1', roleArn: undefined } });
      assert.deepEqual(await store.getCluster('c'), { id: 'c', endpoint: 'https://new', auth: { type: 'eks', clusterName: 'c', region: 'eu-west-1' } });
      await store.putBookmark('c', 'jobsets', '1', T0);
      await store.deleteCluster('c');
      await store.deleteCluster('never-there');
      assert.equal(await store.getCluster('c'), undefined);
      assert.deepEqual(await store.listClusters(), []);
      assert.equal(await store.getBookmark('c', 'jobsets'), '1');
    });

    it('adds an entry only when its id is not registered yet', async () => {
      const store = await makeStore();
      assert.equal(await store.addCluster(clusters[1]!), true);
      assert.equal(await store.addCluster({ ...clusters[1]!, endpoint: 'https://other' }), false);
      assert.deepEqual(await store.getCluster('bare'), clusters[1]);
      assert.deepEqual(await store.listClusters(), [clusters[1]]);
      await store.deleteCluster('bare');
      assert.equal(await store.addCluster(clusters[1]!), true);
    });
  });

  describe('lease and dirty counter', () => {
    it('never lets two racing reconcilers run passes at once, and reconciles every event', async () => {
      // Prepare: two reconcilers (two Lambda invocations at a time) share 60 events of one JobSet.
      const store = await makeStore();
      const key = jobSet('raced');
      const intervals: PassInterval[] = [];
      let tick = 0;
      let running = 0;
      const reconciler = async (owner: string, events: number): Promise<number> => {
        let passes = 0;
        for (let event = 0; event < events; event += 1) {
          await sleep(Math.random() * 3);
          passes += await handleEvent(store, key, owner, () => T0, async () => {
            running += 1;
            assert.equal(running, 1, `${owner} started a pass while another was running`);
            const start = tick++;
            await sleep(Math.random() * 4);
            intervals.push({ owner, start, end: tick++ });
            running -= 1;
          });
        }
        return passes;
      };
      // Act
      const passes = await Promise.all([reconciler('r1', 30), reconciler('r2', 30)]);
      // Assess
      const sorted = [...intervals].sort((a, b) => a.start - b.start);
      for (let i = 1; i < sorted.length; i += 1) {
        const [previous, current] = [sorted[i - 1], sorted[i]];
        assert.ok(previous && current && previous.end < current.start, `passes overlap: ${JSON.stringify([previous, current])}`);
      }
      const state = await store.getState(key);
      assert.equal(state?.dirty, 60);
      assert.equal(state?.reconciled, 60);
      assert.equal(state?.lease, undefined);
      assert.equal(intervals.length, passes.reduce((sum, n) => sum + n, 0));
      assert.ok(intervals.length <= 60, `bursts collapse into at most one pass per event, got ${intervals.length}`);
    });

    it("lets another reconciler take over a crashed holder's JobSet once the lease expires, and converge", async () => {
      const store = await makeStore();
      const key = jobSet('crashed');
      // r1 takes the lease and dies mid-pass; an event arrives meanwhile and its invocation defers.
      await store.markDirty(key, T0);
      const zombie = await store.tryAcquireLease(key, 'r1', T0, TTL);
      assert.ok(zombie);
      assert.equal(await handleEvent(store, key, 'r2', () => T0 + 10, async () => {}), 0);
      assert.deepEqual(await store.listNeedingResync(T0 + TTL - 1), []);
      // The resync finds it when the lease lapses and re-queues it; that event's invocation converges.
      assert.deepEqual((await store.listNeedingResync(T0 + TTL)).map((s) => s.key), [key]);
      assert.equal(await handleEvent(store, key, 'r3', () => T0 + TTL, async () => {}), 1);
      assert.deepEqual(await store.getState(key), { key, dirty: 3, reconciled: 3, updatedAt: T0 + TTL });
      assert.deepEqual(await store.listNeedingResync(T0 + TTL), []);
      // The crashed holder, if it ever comes back, learns it lost the lease and writes nothing.
      assert.deepEqual(await store.releaseLease(key, { owner: 'r1', reconciledDirty: zombie.dirty, now: T0 + TTL + 1, ttlMs: TTL }), { outcome: 'lost' });
      assert.equal((await store.getState(key))?.reconciled, 3);
    });

    it('reconciles every bump and never has two live leases, for any interleaving of events, passes, stalls and crashes', async () => {
      const store = await makeStore();
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(commandArbitrary, { minLength: 1, maxLength: 40 }), async (commands) => {
          run += 1;
          await checkInterleaving(store, jobSet(`prop-${run}`), commands);
        }),
        { numRuns: options.propertyRuns },
      );
    });
  });
};

/** handleOnce: one event, one pass, release (optionally with a wakeAt) — a JobSet left quiescent. */
const handleOnce = async (store: TestStore, key: JobSetKey, owner: string, now: number, wakeAt?: number): Promise<void> => {
  await store.markDirty(key, now);
  const lease = await store.tryAcquireLease(key, owner, now, TTL);
  assert.ok(lease, `${owner} expected the lease of ${key.name}`);
  assert.deepEqual(await store.releaseLease(key, { owner, reconciledDirty: lease.dirty, now, ttlMs: TTL, wakeAt }), { outcome: 'released' });
};

/** Reconcilers in the property. */
const ACTORS = 3;

/** One scheduling decision: advance a reconciler one store request, crash it, or let time pass. */
type Command = { readonly kind: 'step'; readonly actor: number } | { readonly kind: 'crash'; readonly actor: number } | { readonly kind: 'wait'; readonly ms: number };

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('step' as const), actor: fc.nat(ACTORS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), actor: fc.nat(ACTORS - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 2 * TTL }) }) },
);

/** A reconciler of the property: between events, after markDirty, holding a lease (mid-pass), or dead. */
type Actor =
  | { readonly phase: 'idle' }
  | { readonly phase: 'marked' }
  | { readonly phase: 'holding'; readonly lease: Lease }
  | { readonly phase: 'crashed' };

/**
 * checkInterleaving: run `commands` against one JobSet — a step moves a reconciler through
 * handleEvent one store request at a time (idle → markDirty → tryAcquireLease → pass + releaseLease
 * …), a crash kills it wherever it is (its lease stays until it expires), a wait moves the clock
 * (stalling holders past their TTL). Then every live reconciler finishes, the resync picks up what
 * crashed holders left, and the counter must be fully reconciled with no lease left.
 */
const checkInterleaving = async (store: TestStore, key: JobSetKey, commands: readonly Command[]): Promise<void> => {
  const actors: Actor[] = Array.from({ length: ACTORS }, () => ({ phase: 'idle' }));
  let now = T0;
  let events = 0;

  const step = async (index: number): Promise<void> => {
    const actor = actors[index];
    const owner = `r${index}`;
    if (actor === undefined || actor.phase === 'crashed') return;
    if (actor.phase === 'idle') {
      await store.markDirty(key, now);
      events += 1;
      actors[index] = { phase: 'marked' };
    } else if (actor.phase === 'marked') {
      const lease = await store.tryAcquireLease(key, owner, now, TTL);
      if (lease !== undefined) {
        // No two live leases: every other holder's lease has lapsed by now (a stalled holder).
        for (const [other, state] of actors.entries()) {
          if (other !== index && state.phase === 'holding') {
            assert.ok(state.lease.expiresAt <= now, `r${index} took the lease while r${other} held it until ${state.lease.expiresAt} (now ${now})`);
          }
        }
      }
      actors[index] = lease === undefined ? { phase: 'idle' } : { phase: 'holding', lease };
    } else {
      const { outcome, lease } = await store.releaseLease(key, { owner, reconciledDirty: actor.lease.dirty, now, ttlMs: TTL });
      if (outcome === 'dirty') assert.ok(lease && lease.dirty > actor.lease.dirty);
      actors[index] = outcome === 'dirty' && lease !== undefined ? { phase: 'holding', lease } : { phase: 'idle' };
    }
  };

  for (const command of commands) {
    if (command.kind === 'step') await step(command.actor);
    else if (command.kind === 'crash') actors[command.actor] = { phase: 'crashed' };
    else now += command.ms;
  }
  // Every live reconciler finishes what it was doing (no new events).
  for (let rounds = 0; actors.some((a) => a.phase === 'marked' || a.phase === 'holding'); rounds += 1) {
    assert.ok(rounds < 100, 'live reconcilers did not finish');
    for (let index = 0; index < ACTORS; index += 1) if (actors[index]?.phase !== 'idle') await step(index);
  }
  // Without a crash the live reconcilers alone reconciled every bump: deferring to the holder loses nothing.
  if (!commands.some((command) => command.kind === 'crash')) {
    const settled = await store.getState(key);
    assert.equal(settled?.reconciled ?? 0, settled?.dirty ?? 0, 'a deferred bump was left for the resync without any crash');
  }
  // The resync re-queues whatever crashed holders (and the events deferred to them) left behind, after their leases lapse.
  now += TTL;
  if ((await store.listNeedingResync(now)).some((state) => state.key.name === key.name)) {
    await handleEvent(store, key, 'resync', () => now, async () => {});
    events += 1;
  }
  const state = await store.getState(key);
  assert.equal(state?.dirty ?? 0, events, 'every event bumped the counter once');
  assert.equal(state?.reconciled ?? 0, events, 'every bump was reconciled');
  assert.equal(state?.lease, undefined);
  assert.ok(!(await store.listNeedingResync(now)).some((s) => s.key.name === key.name));
};
