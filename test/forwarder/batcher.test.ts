import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { CounterName, Counters } from '../../lib/counters.ts';
import { entrySize, type PutEventsEntry } from '../../lib/events/envelope.ts';
import { MAX_EVENT_BYTES } from '../../lib/events/schema.ts';
import { Batcher, PUT_EVENTS_MAX_BYTES, PUT_RETRY } from '../../lib/forwarder/batcher.ts';
import type { LogLevel } from '../../lib/log.ts';
import type { EventSink, PutResult } from '../../lib/forwarder/types.ts';
import { propertyParameters } from '../propertyRuns.ts';

/** One scripted answer of the sink: success, these indices failed, or the call threw. */
type Answer = 'ok' | { readonly fail: readonly number[] } | 'throw';

/**
 * ScriptedSink: an in-memory EventSink answering each call from a script (then 'ok'), recording
 * the entries of every call. It stands in for EventBridge only to test the code above the sink.
 */
class ScriptedSink implements EventSink {
  readonly calls: PutEventsEntry[][] = [];
  private readonly script: Answer[];
  /** When set, every put waits for it first. */
  gate: Promise<void> | undefined;
  constructor(script: Answer[] = []) {
    this.script = [...script];
  }
  async put(entries: readonly PutEventsEntry[]): Promise<PutResult> {
    this.calls.push([...entries]);
    if (this.gate) await this.gate;
    const answer = this.script.shift() ?? 'ok';
    if (answer === 'throw') throw new Error('socket hang up');
    if (answer === 'ok') return { failed: [] };
    return { failed: answer.fail.map((index) => ({ index, code: 'ThrottlingException', message: 'rate exceeded' })) };
  }
  /** numbers: the `n` of each entry of each call. */
  numbers(): number[][] {
    return this.calls.map((call) => call.map((entry) => (JSON.parse(entry.Detail) as { n: number }).n));
  }
}

const entry = (n: number, padBytes = 0): PutEventsEntry => ({
  Source: 'lineup.dev',
  DetailType: 'Job Changed',
  Detail: JSON.stringify({ n, pad: 'x'.repeat(padBytes) }),
});

const setup = (sink: EventSink, windowMs = 5, merge?: (waiting: PutEventsEntry, incoming: PutEventsEntry) => PutEventsEntry | undefined) => {
  const counters = new Counters();
  const logs: { level: LogLevel; message: string; fields?: Record<string, unknown> | undefined }[] = [];
  const sleeps: number[] = [];
  const batcher = new Batcher({
    sink,
    counters,
    log: (level, message, fields) => logs.push({ level, message, fields }),
    windowMs,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    // The fixed half of PUT_RETRY's equal jitter: the schedule is exact.
    random: () => 0,
    merge,
  });
  return { batcher, counters, logs, sleeps };
};

const range = (count: number): number[] => Array.from({ length: count }, (_, i) => i);

describe('forwarder batcher', () => {
  it('puts 25 entries in 3 calls of at most 10', async () => {
    // Prepare
    const sink = new ScriptedSink();
    const { batcher, counters } = setup(sink);
    // Act
    await Promise.all(range(25).map((n) => batcher.add(entry(n))));
    // Assess
    assert.deepEqual(sink.calls.map((call) => call.length), [10, 10, 5]);
    assert.deepEqual(sink.numbers().flat(), range(25));
    assert.deepEqual(
      { calls: counters.get(CounterName.PutEventsCalls), put: counters.get(CounterName.EventsPut), retried: counters.get(CounterName.EventsRetried) },
      { calls: 3, put: 25, retried: 0 },
    );
  });

  it('holds even a full call until the window closes, then puts everything waiting', async () => {
    // Prepare
    const sink = new ScriptedSink();
    const { batcher } = setup(sink, 60_000);
    // Act
    const all = range(25).map((n) => batcher.add(entry(n)));
    await new Promise((resolve) => setImmediate(resolve));
    const callsInWindow = sink.calls.length;
    await batcher.flush();
    await Promise.all(all);
    // Assess
    assert.equal(callsInWindow, 0, 'nothing goes before the window closes, so each JobSet’s changes can coalesce over all of it');
    assert.deepEqual(sink.numbers(), [range(10), range(10).map((n) => n + 10), range(5).map((n) => n + 20)]);
  });

  it('coalesces a key’s entries waiting in one window into the newest, in the first one’s place, and resolves every add on its delivery', async () => {
    // Prepare
    const sink = new ScriptedSink();
    const { batcher, counters } = setup(sink, 60_000);
    const resolved: number[] = [];
    const add = (n: number, key?: string) => batcher.add(entry(n), key).then(() => void resolved.push(n));
    // Act
    const adds = [add(0, 'ml/a'), add(1, 'ml/b'), add(2, 'ml/a'), add(3), add(4), add(5, 'ml/a'), add(6, 'other/a')];
    const pendingBefore = batcher.pending;
    await batcher.flush();
    await Promise.all(adds);
    // Assess
    assert.deepEqual(sink.numbers(), [[5, 1, 3, 4, 6]], 'ml/a is one entry (its newest, 5) where its first (0) waited; entries without a key never coalesce');
    assert.equal(pendingBefore, 5);
    assert.deepEqual(resolved.toSorted((x, y) => x - y), range(7));
    assert.deepEqual({ coalesced: counters.get(CounterName.EventsCoalesced), put: counters.get(CounterName.EventsPut), calls: counters.get(CounterName.PutEventsCalls) }, { coalesced: 2, put: 5, calls: 1 });
  });

  it('folds a key’s entries with the merge given, and keeps them apart from the entry on where the merge refuses', async () => {
    // Prepare: the merge sums n, and refuses once the sum would pass 10.
    const sink = new ScriptedSink();
    const sum = (waiting: PutEventsEntry, incoming: PutEventsEntry): PutEventsEntry | undefined => {
      const total = (JSON.parse(waiting.Detail) as { n: number }).n + (JSON.parse(incoming.Detail) as { n: number }).n;
      return total > 10 ? undefined : entry(total);
    };
    const { batcher, counters } = setup(sink, 60_000, sum);
    const resolved: number[] = [];
    const add = (n: number, key?: string) => batcher.add(entry(n), key).then(() => void resolved.push(n));
    // Act: ml/a gets 1 + 2 + 3 (= 6), then 7 (6 + 7 > 10: apart), then 1 (7 + 1); ml/b its own.
    const adds = [add(1, 'ml/a'), add(2, 'ml/a'), add(5, 'ml/b'), add(3, 'ml/a'), add(7, 'ml/a'), add(1, 'ml/a')];
    await batcher.flush();
    await Promise.all(adds);
    // Assess
    assert.deepEqual(sink.numbers(), [[6, 5, 8]], 'the merged entry waits in the first one’s place; the one the merge refused starts a new entry of the key');
    assert.equal(resolved.length, 6, 'every add resolves on its delivery');
    assert.deepEqual({ coalesced: counters.get(CounterName.EventsCoalesced), put: counters.get(CounterName.EventsPut) }, { coalesced: 3, put: 3 });
  });

  it('folds a held entry of another key into a later entry that absorbs it, resolving its add with that one’s delivery', async () => {
    // Prepare: a JobSet's held changes (summed by the merge) wait for a minute under their own key.
    const sink = new ScriptedSink();
    const sum = (waiting: PutEventsEntry, incoming: PutEventsEntry): PutEventsEntry => entry((JSON.parse(waiting.Detail) as { n: number }).n + (JSON.parse(incoming.Detail) as { n: number }).n);
    const { batcher, counters } = setup(sink, 10, sum);
    const heldA = batcher.add(entry(1), 'ml/train#held', 60_000);
    const heldB = batcher.add(entry(2), 'ml/train#held', 60_000);
    const heldOther = batcher.add(entry(100), 'ml/other#held', 60_000);
    // Act: train's next change goes under the JobSet's key and takes its held changes along.
    const change = batcher.add(entry(10), 'ml/train', undefined, 'ml/train#held');
    await Promise.all([heldA, heldB, change]);
    // Assess
    assert.deepEqual(sink.numbers(), [[13]], 'one entry: the change with the held ones folded in, in its window; other’s still held');
    assert.equal(batcher.pending, 1);
    assert.equal(counters.get(CounterName.EventsCoalesced), 2);
    await batcher.flush();
    await heldOther;
    assert.deepEqual(sink.numbers(), [[13], [100]]);
  });

  it('holds an entry added with a hold past the window, until its key’s next entry takes it along or its hold ends', async () => {
    // Prepare
    const sink = new ScriptedSink();
    const { batcher } = setup(sink, 10);
    // Act: a held entry of ml/a and one of ml/b (its hold far past the window, so a slow machine keeps the two puts apart); ml/a's next change comes while they wait.
    const held = [batcher.add(entry(0), 'ml/a', 60_000), batcher.add(entry(1), 'ml/b', 1_000)];
    await new Promise((resolve) => setTimeout(resolve, 20));
    const callsWhileHeld = sink.calls.length;
    const next = batcher.add(entry(2), 'ml/a');
    await Promise.all([...held, next]);
    // Assess: ml/a went at its change's window, folded; ml/b alone when its hold ended.
    assert.equal(callsWhileHeld, 0, 'a held entry does not go at the window');
    assert.deepEqual(sink.numbers().flat().toSorted(), [1, 2]);
    assert.equal(sink.calls.length, 2);
  });

  it('does not fold an entry into a put already under way: it waits for the next window', async () => {
    // Prepare
    let release = () => {};
    const sink = new ScriptedSink();
    sink.gate = new Promise<void>((resolve) => (release = resolve));
    const { batcher } = setup(sink, 60_000);
    const first = batcher.add(entry(0), 'ml/a');
    void batcher.flush();
    // Act: the first put is in flight, held by the gate.
    const second = batcher.add(entry(1), 'ml/a');
    sink.gate = undefined;
    release();
    await first;
    await batcher.flush();
    await second;
    // Assess
    assert.deepEqual(sink.numbers(), [[0], [1]]);
  });

  it('property: every add is covered by a delivered entry of its key added no earlier, put after it, whatever fails', async () => {
    // Each op adds an entry of key k (its n is the add's index) and maybe lets time pass; the
    // sink fails a random subset of each call, or throws.
    const op = fc.record({ key: fc.integer({ min: 0, max: 3 }), hold: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), pause: fc.boolean(), answer: fc.constantFrom<Answer>('ok', 'ok', 'ok', { fail: [0] }, { fail: [1, 2] }, 'throw') });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        // Prepare
        let clock = 0;
        const delivered: { key: number; n: number; at: number }[] = [];
        const calls: number[][] = [];
        const answers = ops.map((o) => o.answer);
        const sink: EventSink = {
          put: async (entries) => {
            const at = (clock += 1);
            const parsed = entries.map((e) => JSON.parse(e.Detail) as { key: number; n: number });
            calls.push(parsed.map((p) => p.key));
            const answer = answers.shift() ?? 'ok';
            if (answer === 'throw') throw new Error('socket hang up');
            const failed = answer === 'ok' ? [] : answer.fail.filter((i) => i < entries.length);
            parsed.forEach((p, i) => (failed.includes(i) ? undefined : delivered.push({ ...p, at })));
            return { failed: failed.map((index) => ({ index, code: 'ThrottlingException', message: 'rate exceeded' })) };
          },
        };
        const { batcher } = setup(sink, 0);
        const added: { key: number; n: number; at: number }[] = [];
        const adds: Promise<void>[] = [];
        // Act
        for (const [n, o] of ops.entries()) {
          added.push({ key: o.key, n, at: (clock += 1) });
          adds.push(batcher.add({ Source: 'lineup.dev', DetailType: 'Job Changed', Detail: JSON.stringify({ key: o.key, n }) }, `k${o.key}`, o.hold));
          if (o.pause) await new Promise((resolve) => setTimeout(resolve, 0));
        }
        await Promise.all(adds);
        await batcher.flush();
        // Assess
        for (const a of added) {
          assert.ok(
            delivered.some((d) => d.key === a.key && d.n >= a.n && d.at > a.at),
            `add ${a.n} of key ${a.key} is covered by a delivery after it: ${JSON.stringify(delivered)}`,
          );
        }
        for (const call of calls) assert.equal(new Set(call).size, call.length, `one entry per key per call: ${JSON.stringify(call)}`);
        assert.ok(new Set(delivered.map((d) => d.n)).size <= ops.length);
        assert.equal(batcher.pending, 0);
      }),
      propertyParameters(),
    );
  });

  it('retries exactly the failed entries of a partial failure, with growing backoff, until they succeed', async () => {
    // Prepare: entries 1 and 3 fail; then the first of those (1) fails again.
    const sink = new ScriptedSink([{ fail: [1, 3] }, { fail: [0] }, 'ok']);
    const { batcher, counters, logs, sleeps } = setup(sink);
    // Act
    await Promise.all(range(5).map((n) => batcher.add(entry(n))));
    // Assess
    assert.deepEqual(sink.numbers(), [[0, 1, 2, 3, 4], [1, 3], [1]]);
    assert.deepEqual(sleeps, [PUT_RETRY.baseDelayMs / 2, PUT_RETRY.baseDelayMs]);
    assert.deepEqual(
      { calls: counters.get(CounterName.PutEventsCalls), put: counters.get(CounterName.EventsPut), retried: counters.get(CounterName.EventsRetried) },
      { calls: 3, put: 5, retried: 3 },
    );
    assert.deepEqual(logs.map((l) => [l.level, l.fields?.failed, l.fields?.codes]), [['warn', 2, ['ThrottlingException']], ['warn', 1, ['ThrottlingException']]]);
  });

  it('never drops an entry however often it fails', async () => {
    const sink = new ScriptedSink(range(12).map(() => ({ fail: [0] })));
    const { batcher, counters, sleeps } = setup(sink);
    await batcher.add(entry(7));
    assert.equal(sink.calls.length, 13);
    assert.equal(counters.get(CounterName.EventsPut), 1);
    assert.equal(Math.max(...sleeps), PUT_RETRY.maxDelayMs / 2, 'backoff is bounded by PUT_RETRY.maxDelayMs (its fixed half here)');
  });

  it('retries a put that throws with the whole call', async () => {
    const sink = new ScriptedSink(['throw', 'throw', 'ok']);
    const { batcher, counters, logs } = setup(sink);
    await Promise.all(range(4).map((n) => batcher.add(entry(n))));
    assert.deepEqual(sink.numbers(), [range(4), range(4), range(4)]);
    assert.equal(counters.get(CounterName.EventsRetried), 8);
    assert.equal(counters.get(CounterName.EventsPut), 4);
    assert.deepEqual(logs.map((l) => l.fields?.error), ['Error: socket hang up', 'Error: socket hang up']);
  });

  it('flush on shutdown waits for puts in flight and their retries', async () => {
    // Prepare: the first put hangs until released, then fails one entry.
    let release = () => {};
    const sink = new ScriptedSink([{ fail: [2] }]);
    sink.gate = new Promise<void>((resolve) => (release = resolve));
    const { batcher, counters } = setup(sink, 60_000);
    for (const n of range(3)) void batcher.add(entry(n));
    // Act
    let flushed = false;
    const flushing = batcher.flush().then(() => (flushed = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Assess
    assert.equal(flushed, false, 'flush waits while the put is in flight');
    assert.equal(batcher.pending, 3);
    sink.gate = undefined;
    release();
    await flushing;
    assert.equal(batcher.pending, 0);
    assert.deepEqual(sink.numbers(), [[0, 1, 2], [2]]);
    assert.equal(counters.get(CounterName.EventsPut), 3);
  });

  it('flush with nothing waiting resolves at once: no put, no wait, before the next turn of the event loop', async () => {
    // Prepare
    const sink = new ScriptedSink();
    const { batcher, sleeps, counters } = setup(sink);
    let flushed = false;
    const nextTurn = new Promise<boolean>((resolve) => setImmediate(() => resolve(flushed)));
    // Act
    await batcher.flush().then(() => {
      flushed = true;
    });
    // Assess
    assert.equal(await nextTurn, true, 'flush waited past the next turn of the event loop');
    assert.deepEqual(sink.calls, []);
    assert.deepEqual(sleeps, []);
    assert.equal(counters.get(CounterName.EventsPut), 0);
  });

  it('splits calls by size: never over the request limit, an entry above it alone, never cut', async () => {
    // Prepare: 100 KB entries fit two to a 256 KB call; a 300 KB entry goes alone.
    const sink = new ScriptedSink();
    const { batcher } = setup(sink);
    const big = (n: number) => entry(n, 100 * 1024);
    const entries = [big(0), big(1), big(2), entry(3, 300 * 1024), big(4), entry(5), entry(6)];
    // Act
    await Promise.all(entries.map((e) => batcher.add(e)));
    // Assess
    assert.deepEqual(sink.numbers(), [[0, 1], [2], [3], [4, 5, 6]]);
    for (const call of sink.calls.filter((c) => c.length > 1)) {
      assert.ok(call.reduce((sum, e) => sum + entrySize(e), 0) <= PUT_EVENTS_MAX_BYTES);
    }
    assert.deepEqual(sink.calls.flat(), entries, 'entries reach the sink unchanged');
  });

  it('logs an entry over the 1 MB entry limit as an error with its size and counts it dropped, never cut', async () => {
    const sink = new ScriptedSink();
    const { batcher, counters, logs } = setup(sink);
    const huge = entry(0, MAX_EVENT_BYTES);
    await Promise.all([batcher.add(huge), batcher.add(entry(1))]);
    assert.deepEqual(sink.numbers(), [[1]]);
    assert.equal(counters.get(CounterName.EventsDroppedOversize), 1);
    assert.deepEqual(logs, [
      { level: 'error', message: 'event too large for EventBridge, dropped', fields: { bytes: entrySize(huge), limit: MAX_EVENT_BYTES, what: 'Job Changed' } },
    ]);
  });

  it('keeps at most 4 puts in flight', async () => {
    let release = () => {};
    const sink = new ScriptedSink();
    sink.gate = new Promise<void>((resolve) => (release = resolve));
    const { batcher } = setup(sink);
    const all = range(80).map((n) => batcher.add(entry(n)));
    // A flush makes every entry due at once, so the calls are full whatever the clock did while
    // the 80 were added (on a loaded machine they can straddle two 5 ms windows).
    const flushed = batcher.flush();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sink.calls.length, 4);
    sink.gate = undefined;
    release();
    await Promise.all([...all, flushed]);
    assert.deepEqual(sink.calls.map((call) => call.length), [10, 10, 10, 10, 10, 10, 10, 10]);
  });
});
