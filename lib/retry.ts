/**
 * The one retry and backoff policy of the project. Every loop that waits before trying again —
 * Kubernetes requests (lib/k8s), the forwarder's list and watch loops and its PutEvents retries
 * (lib/forwarder), DynamoDB's unprocessed keys (lib/store) — takes a RetryPolicy and waits through
 * a Backoff, so all of them share one schedule: a doubling delay from baseDelayMs, capped at
 * maxDelayMs, optionally jittered, replaced by the wait a server asked for (Retry-After, capped
 * too), for at most maxAttempts attempts.
 *
 * Each failure class is retried at exactly one layer, named in a comment where the loop is: a
 * retrying request never sits inside another retrying loop, so one failing call costs
 * maxAttempts requests, not a product of two policies.
 *
 * Written here rather than taken from npm: p-retry, cockatiel and exponential-backoff all sleep
 * on their own timers (no injectable clock, so tests would wait or mock globals), none honours a
 * per-error Retry-After, and none fits the batcher's loop, which retries only the entries that
 * failed. What is needed is about a hundred lines.
 */

/**
 * Sleep: waits `ms`, resolving early (never rejecting) when `signal` aborts. Injectable so tests
 * record backoffs instead of waiting them.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** sleep: the project's one timer-based wait; an aborted signal ends it at once. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Jitter: how a delay is spread.
 * - 'equal': half fixed, half random — callers that are one of a fleet (Lambdas throttled
 *   together) do not come back together, yet none retries at once;
 * - 'none': the delay itself — a single caller, and schedules tests can state exactly.
 */
export type Jitter = 'equal' | 'none';

/** RetryPolicy: how often and how long to retry. */
export interface RetryPolicy {
  /** Attempts in all, the first included; Infinity retries until success (or abort). */
  readonly maxAttempts: number;
  /** Delay before the first retry; doubles per retry. */
  readonly baseDelayMs: number;
  /** Longest delay, and the longest Retry-After honoured. */
  readonly maxDelayMs: number;
  readonly jitter: Jitter;
}

/** RetrySeams: what tests replace. */
export interface RetrySeams {
  /** @default sleep */
  readonly sleep?: Sleep | undefined;
  /** Source of jitter in [0, 1). @default Math.random */
  readonly random?: (() => number) | undefined;
}

/**
 * backoffDelay: the delay before retry number `retry` (1 for the first): baseDelayMs doubled per
 * retry, capped at maxDelayMs, then jittered.
 *
 * @example
 * backoffDelay({ maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, jitter: 'none' }, 3, Math.random); // 400
 */
export const backoffDelay = (policy: RetryPolicy, retry: number, random: () => number): number => {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(Math.max(retry, 1) - 1, 52));
  return policy.jitter === 'none' ? ceiling : Math.round(ceiling / 2 + (ceiling / 2) * random());
};

/**
 * Backoff: the retry state of one loop — how many attempts failed, and how long to wait before
 * the next. A loop that succeeds resets it, so its next failure waits the shortest delay again.
 *
 * @example
 * const backoff = new Backoff(policy);
 * for (;;) {
 *   try { return await attempt(); } catch (error) { if (!(await backoff.wait(signal))) throw error; }
 * }
 */
export class Backoff {
  private readonly policy: RetryPolicy;
  private readonly sleepFor: Sleep;
  private readonly random: () => number;
  private failed = 0;

  constructor(policy: RetryPolicy, seams: RetrySeams = {}) {
    this.policy = policy;
    this.sleepFor = seams.sleep ?? sleep;
    this.random = seams.random ?? Math.random;
  }

  /** failures: attempts that failed since the last reset. */
  get failures(): number {
    return this.failed;
  }

  /**
   * next: count a failed attempt and return the delay before the next one — `afterMs` (a server's
   * Retry-After) capped at maxDelayMs when given, else the backoff — or undefined when the policy
   * allows no further attempt.
   */
  next(afterMs?: number): number | undefined {
    this.failed += 1;
    if (this.failed >= Math.max(1, this.policy.maxAttempts)) return undefined;
    return afterMs === undefined ? backoffDelay(this.policy, this.failed, this.random) : Math.min(Math.max(0, afterMs), this.policy.maxDelayMs);
  }

  /** wait: count a failed attempt and wait the delay next() gives; false (at once) when no attempt is left. */
  async wait(signal?: AbortSignal, afterMs?: number): Promise<boolean> {
    const delay = this.next(afterMs);
    if (delay === undefined) return false;
    await this.sleepFor(delay, signal);
    return true;
  }

  /** reset: the loop succeeded; the next failure starts the schedule over. */
  reset(): void {
    this.failed = 0;
  }
}

/** RetryVerdict: a failure is final, or may be retried — after the wait the server asked for, when it did. */
export type RetryVerdict = { readonly retry: false } | { readonly retry: true; readonly afterMs?: number | undefined };

/** RetryEvent: a failed attempt about to be retried (what a counter hook sees). */
export interface RetryEvent {
  /** The attempt that failed, from 1. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: unknown;
}

/** RetryOptions: the policy, how failures are judged, and the hooks. */
export interface RetryOptions extends RetrySeams {
  readonly policy: RetryPolicy;
  /** Judges each failure. @default every failure is retryable */
  readonly classify?: ((error: unknown) => RetryVerdict) | undefined;
  /** Called before each wait: counters and logs hook in here. */
  readonly onRetry?: ((event: RetryEvent) => void) | undefined;
  /** Ends the retries: once aborted, the last failure is thrown instead of waiting again. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The error thrown when the policy is used up, given the last failure and the attempts made.
   * @default the last failure, as it is
   */
  readonly exhausted?: ((error: unknown, attempts: number) => unknown) | undefined;
}

/** RETRY_ANY: the default classification — every failure may be retried. */
const RETRY_ANY = (): RetryVerdict => ({ retry: true });

/**
 * retry: run `fn` (told its attempt number, from 1) until it succeeds, fails finally (that error
 * is rethrown as it is), or has used up the policy (options.exhausted's error, by default the
 * last failure).
 *
 * @example
 * const page = await retry(() => api.list(request), { policy: KUBE_RETRY, classify: kubeVerdict, onRetry: () => counters.add('k8s.retries') });
 */
export const retry = async <T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> => {
  const backoff = new Backoff(options.policy, options);
  const classify = options.classify ?? RETRY_ANY;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn(attempt);
    } catch (error) {
      const verdict = classify(error);
      if (!verdict.retry) throw error;
      const delayMs = backoff.next(verdict.afterMs);
      if (delayMs === undefined) throw options.exhausted ? options.exhausted(error, attempt) : error;
      if (options.signal?.aborted) throw error;
      options.onRetry?.({ attempt, delayMs, error });
      await (options.sleep ?? sleep)(delayMs, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
};
