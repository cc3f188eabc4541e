/**
 * The reconciler's fair share (lib/reconcile/fairShare.ts) over in-memory slots and a put-back
 * that records what it was given; the same over a real queue and table is in
 * test/integration/reconciler/fairShare.test.ts. A cluster whose slots are all held has its
 * records put back (never handled, never failed), the others are handled; records that name no
 * cluster and unreadable ones take no slot; a put-back that fails hands its records back as failures; a
 * slot store that fails holds nobody back; slots are released after the batch.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SQSRecord } from 'aws-lambda';
import { CounterName, Counters } from '../../lib/counters.ts';
import {
  DEFER_BASE_DELAY_SECONDS,
  DEFER_MAX_DELAY_SECONDS,
  DEFERRALS_ATTRIBUTE,
  byCluster,
  deferDelaySeconds,
  peekCluster,
  takeFairShare,
  type FairShare,
  type RecordPutBack,
} from '../../lib/reconcile/fairShare.ts';
import { makeSqsBatchHandler } from '../../lib/reconcile/sqsBatch.ts';
import { MemoryClusterSlots, type ClusterSlots } from '../../lib/store/clusterSlots.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { collectingLog } from '../../lib/log.ts';
import { CLUSTER, detailFor, eventBridgeEvent, reconcileDeps, simWorld, sqsEvent, story2 } from './fixtures.ts';

const NOW = 1_800_000_000_000;
const NAME = 'messagequeue-driver-worker';

/** eventOf: the body of an event about JobSet `name` of `cluster`. */
const eventOf = (cluster: string, name = NAME): string => JSON.stringify(eventBridgeEvent(detailFor(name, { cluster })));

/** NO_CLUSTER: the body of a record whose detail names no cluster (the handler drops it as poison). */
const NO_CLUSTER = JSON.stringify({ version: '0', id: 'nc', 'detail-type': 'Job Changed', source: 'lineup.alpha', detail: { name: 'x' } });

/** withDeferrals: `record` as it comes back after `count` put-backs. */
const withDeferrals = (record: SQSRecord, count: number): SQSRecord => ({
  ...record,
  messageAttributes: { [DEFERRALS_ATTRIBUTE]: { stringValue: String(count), dataType: 'Number', stringListValues: [], binaryListValues: [] } },
});

/** said: whether a log line holds every one of `texts` (message and fields). */
const said = (lines: ReturnType<typeof collectingLog>['lines'], ...texts: string[]): boolean =>
  lines.some((line) => texts.every((text) => `${line.message} ${JSON.stringify(line.fields ?? {})}`.includes(text)));

/** share: a FairShare over `slots`, recording what it puts back. */
const share = (slots: ClusterSlots, slotsPerCluster: number, putBack?: FairShare['putBack']) => {
  const putBacks: RecordPutBack[] = [];
  const { log, lines } = collectingLog();
  const counters = new Counters();
  let holders = 0;
  const fairShare: FairShare = {
    slots,
    slotsPerCluster,
    slotTtlMs: 60_000,
    putBack:
      putBack ??
      (async (records) => {
        putBacks.push(...records);
        return [];
      }),
    holderId: () => `holder-${(holders += 1)}`,
    now: () => NOW,
    counters,
    log,
    random: () => 0.5,
  };
  return { fairShare, putBacks, lines, counters };
};

describe('reconcile/fairShare', () => {
  it('reads the cluster of an event, and none of a record naming none or an unreadable one', () => {
    const [event, noCluster, notJson, noDetail] = sqsEvent([eventOf('alpha'), NO_CLUSTER, '{"not json', '{"detail-type":"Job Changed"}']).Records;
    assert.equal(peekCluster(event as SQSRecord), 'alpha');
    assert.equal(peekCluster(noCluster as SQSRecord), undefined);
    assert.equal(peekCluster(notJson as SQSRecord), undefined);
    assert.equal(peekCluster(noDetail as SQSRecord), undefined);
    const { clusters, free } = byCluster(sqsEvent([eventOf('alpha'), eventOf('beta'), eventOf('alpha'), NO_CLUSTER]).Records);
    assert.deepEqual([...clusters].map(([cluster, records]) => [cluster, records.map((record) => record.messageId)]), [['alpha', ['m0', 'm2']], ['beta', ['m1']]]);
    assert.deepEqual(free.map((record) => record.messageId), ['m3']);
  });

  it('delays a record put back more each time, within its bounds', () => {
    assert.equal(deferDelaySeconds(1, () => 0), DEFER_BASE_DELAY_SECONDS);
    assert.equal(deferDelaySeconds(1, () => 0.999), DEFER_BASE_DELAY_SECONDS);
    assert.equal(deferDelaySeconds(4, () => 0), 4 * DEFER_BASE_DELAY_SECONDS);
    assert.equal(deferDelaySeconds(4, () => 0.999), 8 * DEFER_BASE_DELAY_SECONDS);
    assert.equal(deferDelaySeconds(50, () => 0.999), DEFER_MAX_DELAY_SECONDS);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (deferrals, random) => {
        const delay = deferDelaySeconds(deferrals, () => random);
        return Number.isInteger(delay) && delay >= DEFER_BASE_DELAY_SECONDS && delay <= DEFER_MAX_DELAY_SECONDS && delay >= Math.min(DEFER_MAX_DELAY_SECONDS, DEFER_BASE_DELAY_SECONDS * 2 ** Math.max(0, deferrals - 1)) / 2;
      }),
    );
  });

  it('puts back the records of a cluster whose slots are all held and handles the rest in their order', async () => {
    const slots = new MemoryClusterSlots();
    assert.equal(await slots.tryAcquire({ cluster: 'alpha', holder: 'elsewhere', limit: 1, now: NOW, expiresAt: NOW + 60_000 }), true);
    const { fairShare, putBacks, counters, lines } = share(slots, 1);
    const records = sqsEvent([eventOf('alpha'), eventOf('beta'), NO_CLUSTER, eventOf('alpha', 'other'), '{"not json']).Records;
    const taken = await takeFairShare(records, fairShare);
    assert.deepEqual(taken.handle.map((record) => record.messageId), ['m1', 'm2', 'm4']);
    assert.deepEqual(await taken.failed, []);
    assert.deepEqual(putBacks.map((putBack) => [putBack.messageId, putBack.deferrals, putBack.delaySeconds]), [['m0', 1, DEFER_BASE_DELAY_SECONDS], ['m3', 1, DEFER_BASE_DELAY_SECONDS]]);
    assert.equal(putBacks[0]?.body, records[0]?.body, 'a record goes back as it came');
    assert.equal(counters.get(CounterName.RecordsPutBack), 2);
    assert.ok(said(lines, 'records put back', 'alpha'), JSON.stringify(lines));
    assert.deepEqual(slots.holders('beta', NOW), ['holder-1'], 'the invocation holds beta until it releases');
    await taken.release();
    assert.deepEqual(slots.holders('beta', NOW), []);
    assert.deepEqual(slots.holders('alpha', NOW), ['elsewhere'], 'a slot held elsewhere stays held');
  });

  it("releases a cluster's slot as soon as its last record of the batch is done, not when the batch is", async () => {
    const slots = new MemoryClusterSlots();
    const { fairShare } = share(slots, 2);
    const records = sqsEvent([eventOf('alpha'), eventOf('beta'), eventOf('alpha', 'other')]).Records;
    const taken = await takeFairShare(records, fairShare);
    const [alpha1, , alpha2] = records as [SQSRecord, SQSRecord, SQSRecord];
    taken.finished(alpha1);
    await Promise.resolve();
    assert.deepEqual(slots.holders('alpha', NOW), ['holder-1'], 'one of its records still runs');
    taken.finished(alpha2);
    taken.finished(alpha2); // a record reported twice changes nothing
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(slots.holders('alpha', NOW), [], 'released while beta still runs');
    assert.deepEqual(slots.holders('beta', NOW), ['holder-1']);
    await taken.release();
    assert.deepEqual(slots.holders('beta', NOW), [], 'the rest released with the batch');
  });

  it('counts the put-backs of a record that comes back and delays it longer', async () => {
    const slots = new MemoryClusterSlots();
    await slots.tryAcquire({ cluster: 'alpha', holder: 'elsewhere', limit: 1, now: NOW, expiresAt: NOW + 60_000 });
    const { fairShare, putBacks } = share(slots, 1);
    const [record] = sqsEvent([eventOf('alpha')]).Records;
    await takeFairShare([withDeferrals(record as SQSRecord, 3)], fairShare);
    assert.deepEqual(putBacks.map((putBack) => [putBack.deferrals, putBack.delaySeconds]), [[4, 6 * DEFER_BASE_DELAY_SECONDS]]);
  });

  it('hands back as failures the records it could not put back', async () => {
    const slots = new MemoryClusterSlots();
    await slots.tryAcquire({ cluster: 'alpha', holder: 'elsewhere', limit: 1, now: NOW, expiresAt: NOW + 60_000 });
    const refusing = share(slots, 1, async (records) => records.filter((record) => record.messageId === 'm1').map((record) => record.messageId));
    const records = sqsEvent([eventOf('alpha'), eventOf('alpha', 'b')]).Records;
    assert.deepEqual(await (await takeFairShare(records, refusing.fairShare)).failed, ['m1']);
    const throwing = share(slots, 1, async () => {
      throw new Error('SQS answered 500');
    });
    const taken = await takeFairShare(records, throwing.fairShare);
    assert.deepEqual(await taken.failed, ['m0', 'm1']);
    assert.ok(said(throwing.lines, 'could not put records back', 'SQS answered 500'), JSON.stringify(throwing.lines));
  });

  it('holds nobody back when the slot store fails, and says so', async () => {
    const failing: ClusterSlots = {
      tryAcquire: async () => {
        throw new Error('table throttled');
      },
      release: async () => undefined,
    };
    const { fairShare, putBacks, lines } = share(failing, 1);
    const taken = await takeFairShare(sqsEvent([eventOf('alpha'), eventOf('beta')]).Records, fairShare);
    assert.deepEqual(taken.handle.map((record) => record.messageId), ['m0', 'm1']);
    assert.deepEqual(putBacks, []);
    assert.ok(said(lines, 'could not take a cluster slot', 'table throttled'), JSON.stringify(lines));
  });

  it('in the batch handler: a record put back gets no pass and no failure, a failed put-back is a batch item failure', async () => {
    const world = simWorld([story2()]);
    const store = new MemoryCheckpointStore();
    const { deps, counters } = reconcileDeps(store, world.gateway, world.now);
    const slots = new MemoryClusterSlots();
    await slots.tryAcquire({ cluster: CLUSTER, holder: 'elsewhere', limit: 1, now: NOW, expiresAt: NOW + 60_000 });
    const held = share(slots, 1, async (records) => records.slice(1).map((record) => record.messageId));
    const response = await makeSqsBatchHandler(deps, { fairShare: held.fairShare })(sqsEvent([eventOf(CLUSTER), eventOf(CLUSTER)]));
    assert.deepEqual(response.batchItemFailures, [{ itemIdentifier: 'm1' }]);
    assert.equal(counters.get(CounterName.Passes), 0, 'no pass for a cluster over its share');
    await slots.release(CLUSTER, 'elsewhere');
    const free = share(slots, 1);
    const handled = await makeSqsBatchHandler(deps, { fairShare: free.fairShare })(sqsEvent([eventOf(CLUSTER)]));
    assert.deepEqual(handled.batchItemFailures, []);
    assert.ok(counters.get(CounterName.Passes) > 0, 'its slot free, the cluster gets its pass');
    assert.deepEqual(free.putBacks, []);
    assert.deepEqual(slots.holders(CLUSTER, NOW), [], 'released after the batch');
  });
});
