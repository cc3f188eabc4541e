/**
 * The project's one retry policy (lib/retry.ts): the schedule of delays, jitter, Retry-After,
 * final versus retryable failures, the attempt limit, the counter hook and abort. Sleeps are
 * recorded, not waited.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KUBE_RETRY } from '../lib/k8s/gateway.ts';
import { PUT_RETRY } from '../lib/forwarder/batcher.ts';
import { WATCH_RETRY } from '../lib/forwarder/forwarder.ts';
import { Backoff, backoffDelay, retry, sleep, type RetryEvent, type RetryPolicy, type RetryVerdict } from '../lib/retry.ts';

const POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, jitter: 'none' };

/** recorder: a Sleep that records each delay and returns at once. */
const recorder = () => {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms: number) => void sleeps.push(ms) };
};

/** failing: a function that fails `times` times with `error`, then returns 'done'; counts its calls. */
const failing = (times: number, error: unknown = new Error('not now')) => {
  const state = { calls: 0 };
  const fn = async (): Promise<string> => {
    state.calls += 1;
    if (state.calls <= times) throw error;
    return 'done';
  };
  return { fn, state };
};

describe('backoffDelay', () => {
  it('doubles from baseDelayMs per retry and stops at maxDelayMs', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 60].map((retryNumber) => backoffDelay(POLICY, retryNumber, Math.random)), [100, 200, 400, 800, 1_000, 1_000, 1_000]);
  });

  it('with equal jitter keeps half the delay fixed and spreads the other half', () => {
    const jittered: RetryPolicy = { ...POLICY, jitter: 'equal' };
    assert.equal(backoffDelay(jittered, 1, () => 0), 50);
    assert.equal(backoffDelay(jittered, 1, () => 0.5), 75);
    assert.equal(backoffDelay(jittered, 1, () => 0.999999), 100);
    assert.equal(backoffDelay(jittered, 3, () => 0), 200);
    assert.equal(backoffDelay(jittered, 10, () => 0.999999), 1_000);
  });

  it('the shipped policies: Kubernetes requests and puts jittered, the forwarder loop exact', () => {
    assert.deepEqual([KUBE_RETRY.jitter, PUT_RETRY.jitter, WATCH_RETRY.jitter], ['equal', 'equal', 'none']);
    assert.equal(KUBE_RETRY.maxAttempts, 5);
    assert.equal(PUT_RETRY.maxAttempts, Number.POSITIVE_INFINITY, 'an accepted event is never dropped');
    assert.equal(WATCH_RETRY.maxAttempts, Number.POSITIVE_INFINITY, 'the forwarder never gives up');
  });
});

describe('Backoff', () => {
  it('gives the schedule, then undefined once maxAttempts attempts failed', () => {
    const backoff = new Backoff(POLICY);
    assert.deepEqual([backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()], [100, 200, 400, 800, undefined]);
    assert.equal(backoff.failures, 5);
  });

  it('takes a Retry-After instead of the backoff, capped at maxDelayMs', () => {
    const backoff = new Backoff(POLICY);
    assert.deepEqual([backoff.next(3_000), backoff.next(250), backoff.next()], [1_000, 250, 400], 'the third retry is back on the schedule');
  });

  it('starts over after reset', () => {
    const backoff = new Backoff(POLICY);
    backoff.next();
    backoff.next();
    backoff.reset();
    assert.deepEqual([backoff.failures, backoff.next()], [0, 100]);
  });

  it('wait sleeps the delay, and answers false without sleeping when no attempt is left', async () => {
    const { sleeps, sleep: record } = recorder();
    const backoff = new Backoff({ ...POLICY, maxAttempts: 2 }, { sleep: record });
    assert.deepEqual([await backoff.wait(), await backoff.wait()], [true, false]);
    assert.deepEqual(sleeps, [100]);
  });

  it('never runs out with maxAttempts Infinity', () => {
    const backoff = new Backoff({ ...POLICY, maxAttempts: Number.POSITIVE_INFINITY });
    for (let failure = 0; failure < 1_000; failure += 1) assert.equal(typeof backoff.next(), 'number');
  });
});

describe('retry', () => {
  it('retries until success, waiting the schedule and telling the hook each retry', async () => {
    // Prepare
    const { sleeps, sleep: record } = recorder();
    const { fn, state } = failing(3);
    const events: RetryEvent[] = [];
    // Act
    const result = await retry(fn, { policy: POLICY, sleep: record, onRetry: (event) => events.push(event) });
    // Assess
    assert.equal(result, 'done');
    assert.equal(state.calls, 4);
    assert.deepEqual(sleeps, [100, 200, 400]);
    assert.deepEqual(events.map((event) => [event.attempt, event.delayMs]), [[1, 100], [2, 200], [3, 400]]);
  });

  it('makes exactly maxAttempts attempts, then throws what `exhausted` makes of the last failure', async () => {
    const { sleeps, sleep: record } = recorder();
    const last = new Error('still not now');
    const { fn, state } = failing(Number.POSITIVE_INFINITY, last);
    const thrown = await retry(fn, { policy: POLICY, sleep: record, exhausted: (error, attempts) => new Error(`gave up after ${attempts}`, { cause: error }) }).catch(
      (error: unknown) => error,
    );
    assert.ok(thrown instanceof Error);
    assert.equal(thrown.message, 'gave up after 5');
    assert.equal(thrown.cause, last);
    assert.equal(state.calls, POLICY.maxAttempts);
    assert.equal(sleeps.length, POLICY.maxAttempts - 1);
  });

  it('rethrows the last failure as it is when no `exhausted` is given', async () => {
    const last = new Error('down');
    const { fn } = failing(Number.POSITIVE_INFINITY, last);
    await assert.rejects(retry(fn, { policy: { ...POLICY, maxAttempts: 2 }, sleep: async () => undefined }), (error: unknown) => error === last);
  });

  it('does not retry a final failure: one attempt, no sleep, the error untouched', async () => {
    const { sleeps, sleep: record } = recorder();
    const final = new Error('forbidden');
    const { fn, state } = failing(1, final);
    const classify = (error: unknown): RetryVerdict => ({ retry: error !== final });
    await assert.rejects(retry(fn, { policy: POLICY, sleep: record, classify }), (error: unknown) => error === final);
    assert.equal(state.calls, 1);
    assert.deepEqual(sleeps, []);
  });

  it('honours the wait a failure asks for (Retry-After), capped at maxDelayMs', async () => {
    const { sleeps, sleep: record } = recorder();
    const asks = [700, 60_000];
    let calls = 0;
    const result = await retry(
      async () => {
        calls += 1;
        if (calls <= asks.length) throw new Error(`busy ${calls}`);
        return calls;
      },
      { policy: POLICY, sleep: record, classify: () => ({ retry: true, afterMs: asks[calls - 1] }) },
    );
    assert.equal(result, 3);
    assert.deepEqual(sleeps, [700, 1_000]);
  });

  it('jitters with the injected random', async () => {
    const { sleeps, sleep: record } = recorder();
    const { fn } = failing(2);
    await retry(fn, { policy: { ...POLICY, jitter: 'equal' }, sleep: record, random: () => 0 });
    assert.deepEqual(sleeps, [50, 100]);
  });

  it('stops retrying once its signal aborts, throwing the last failure', async () => {
    const abort = new AbortController();
    const failure = new Error('down');
    let calls = 0;
    const pending = retry(
      async () => {
        calls += 1;
        throw failure;
      },
      { policy: { ...POLICY, maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 60_000, maxDelayMs: 60_000 }, signal: abort.signal },
    );
    // The real sleep is waiting its 60 s; the abort ends it at once.
    setImmediate(() => abort.abort());
    await assert.rejects(pending, (error: unknown) => error === failure);
    assert.equal(calls, 1);
  });
});

/** settledBy: 'settled' when `promise` settles within the current turn's microtasks, else 'pending' (decided at the next setImmediate, never by a clock). */
const settledBy = (promise: Promise<unknown>): Promise<'settled' | 'pending'> =>
  Promise.race([promise.then(() => 'settled' as const), new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);

/** timers: how many timers the process holds, so a test can see a sleep's timer set and cleared. */
const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('sleep', () => {
  it('waits while its signal has not aborted, then resolves at once when it does and clears its timer', async () => {
    const abort = new AbortController();
    const before = timers();
    const waiting = sleep(60_000, abort.signal);
    assert.equal(timers(), before + 1, 'a 60 s timer is set');
    assert.equal(await settledBy(waiting), 'pending', 'a 60 s sleep has not ended by the next turn');
    abort.abort();
    assert.equal(await settledBy(waiting), 'settled', 'the abort ends the wait');
    assert.equal(timers(), before, 'the timer is cleared, so nothing keeps the process alive for 60 s');
  });

  it('resolves at once without setting a timer when its signal has already aborted', async () => {
    const abort = new AbortController();
    abort.abort();
    const before = timers();
    const waiting = sleep(60_000, abort.signal);
    assert.equal(timers(), before);
    assert.equal(await settledBy(waiting), 'settled');
  });

  it('without a signal resolves once its time has passed, its timer gone', async () => {
    const before = timers();
    await sleep(1);
    assert.equal(timers(), before);
  });
});
