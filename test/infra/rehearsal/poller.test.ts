/**
 * The rehearsal's event source mapping (infra/rehearsal/poller.ts): Lambda's documented verdicts
 * on a batch's response, with and without ReportBatchItemFailures, and the loop against a queue
 * held in memory — the failed records stay, the rest are deleted, the batch is gathered up to its
 * size within the window.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SQSRecord } from 'aws-lambda';
import { EventSourcePoller, gather, settleBatch, type Invocation, type PollerIo, type ReceivedMessage } from '../../../infra/rehearsal/poller.ts';

const IDS = ['m1', 'm2', 'm3'];
const ok = (payload: unknown): Invocation => ({ ok: true, payload });

describe('settleBatch', () => {
  it('deletes the records the response does not name and keeps those it names', () => {
    assert.deepEqual(settleBatch(IDS, ok({ batchItemFailures: [{ itemIdentifier: 'm2' }] }), true), { deleted: ['m1', 'm3'], kept: ['m2'], reason: 'partial: 1 of 3 failed', ignoredFailures: 0 });
  });

  it('treats an empty, null or failure-free response as all succeeded', () => {
    for (const payload of [null, undefined, '', {}, { batchItemFailures: [] }, { batchItemFailures: null }]) {
      assert.deepEqual(settleBatch(IDS, ok(payload), true).deleted, IDS, JSON.stringify(payload));
    }
  });

  it('keeps the whole batch for an invocation error or a response Lambda cannot read', () => {
    const whole: Invocation[] = [
      { ok: false, error: 'Task timed out' },
      ok('not an object'),
      ok([1]),
      ok({ batchItemFailures: 'm1' }),
      ok({ batchItemFailures: [{ itemIdentifier: '' }] }),
      ok({ batchItemFailures: [{ itemIdentifier: 'm9' }] }),
      ok({ batchItemFailures: [{ id: 'm1' }] }),
    ];
    for (const invocation of whole) assert.deepEqual(settleBatch(IDS, invocation, true).kept, IDS, JSON.stringify(invocation));
  });

  it('without ReportBatchItemFailures deletes the batch on any response, and counts the failures it named as lost', () => {
    const settled = settleBatch(IDS, ok({ batchItemFailures: [{ itemIdentifier: 'm2' }] }), false);
    assert.deepEqual(settled.deleted, IDS);
    assert.equal(settled.ignoredFailures, 1);
    assert.equal(settleBatch(IDS, ok({ batchItemFailures: [] }), false).ignoredFailures, 0);
    assert.deepEqual(settleBatch(IDS, { ok: false, error: 'boom' }, false).kept, IDS);
  });
});

/** MemoryQueue: a queue in memory — received messages are invisible until deleted or the test looks. */
class MemoryQueue implements PollerIo {
  visible: string[];
  readonly deleted: string[] = [];
  readonly invocations: string[][] = [];
  readonly receives: number[] = [];
  private readonly answer: (ids: string[]) => Invocation;
  private readonly arrivals: string[][];
  constructor(ids: string[], answer: (ids: string[]) => Invocation, arrivals: string[][] = []) {
    this.visible = ids;
    this.answer = answer;
    this.arrivals = arrivals;
  }
  async receive(max: number, waitSeconds: number): Promise<ReceivedMessage[]> {
    this.receives.push(waitSeconds);
    if (this.visible.length === 0) this.visible.push(...(this.arrivals.shift() ?? []));
    const taken = this.visible.splice(0, max);
    return taken.map((id) => ({ messageId: id, receiptHandle: `r-${id}`, record: { messageId: id } as SQSRecord }));
  }
  async delete(messages: readonly ReceivedMessage[]): Promise<void> {
    this.deleted.push(...messages.map((message) => message.messageId));
  }
  async invoke(event: { readonly Records: readonly SQSRecord[] }): Promise<Invocation> {
    const ids = event.Records.map((record) => record.messageId);
    this.invocations.push(ids);
    return this.answer(ids);
  }
}

describe('EventSourcePoller', () => {
  it('invokes with up to BatchSize records and deletes all but the failed ones', async () => {
    const queue = new MemoryQueue(['a', 'b', 'c', 'd', 'e'], (ids) => ok({ batchItemFailures: ids.includes('b') ? [{ itemIdentifier: 'b' }] : [] }));
    const abort = new AbortController();
    const settled: string[] = [];
    const poller = new EventSourcePoller(queue, {
      batchSize: 3,
      batchingWindowSeconds: 0,
      reportBatchItemFailures: true,
      onBatch: ({ settlement }) => {
        settled.push(settlement.reason);
        if (settled.length === 2) abort.abort();
      },
    });
    await poller.run(abort.signal);
    assert.deepEqual(queue.invocations, [['a', 'b', 'c'], ['d', 'e']]);
    assert.deepEqual(queue.deleted, ['a', 'c', 'd', 'e']);
    assert.deepEqual(settled, ['partial: 1 of 3 failed', 'all succeeded']);
  });

  it('gathers records arriving within the batching window into one batch', async () => {
    const queue = new MemoryQueue(['a'], () => ok(null), [['b'], ['c']]);
    let clock = 0;
    const batch = await gather(queue, { batchSize: 10, batchingWindowSeconds: 1, reportBatchItemFailures: true }, new AbortController().signal, () => (clock += 300));
    assert.deepEqual(batch.map((message) => message.messageId), ['a', 'b', 'c']);
  });

  it('with no window sends what the first receive brought', async () => {
    const queue = new MemoryQueue(['a'], () => ok(null), [['b']]);
    const batch = await gather(queue, { batchSize: 10, batchingWindowSeconds: 0, reportBatchItemFailures: true }, new AbortController().signal);
    assert.deepEqual(batch.map((message) => message.messageId), ['a']);
  });
});
