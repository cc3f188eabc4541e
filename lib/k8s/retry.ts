/**
 * Retries of Kubernetes requests: the answers that mean "not now" — 429 Too Many Requests (API
 * Priority and Fairness), 5xx, a connection refused or dropped — are retried with exponential
 * backoff and jitter, honouring the server's Retry-After; every other answer is final and goes
 * back to the caller at once.
 */
import { CounterName } from '../counters.ts';
import { LineupError, UnavailableError } from '../errors.ts';
import { describeError, headerOf, httpStatusOf } from './errors.ts';

/** CounterSink: the part of Counters the Kubernetes adapter uses. */
export interface CounterSink {
  add(name: string, by?: number): void;
}

/** Sleep: waits `ms`; injectable so tests run backoffs without waiting. */
export type Sleep = (ms: number) => Promise<void>;

/** realSleep: a timer-based Sleep. */
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** RetryOptions: how often and how long to retry (defaults in KUBE_RETRY), and the seams tests replace. */
export interface RetryOptions {
  readonly counters: CounterSink;
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** Delay before the first retry; doubles per attempt. */
  readonly baseDelayMs: number;
  /** Longest delay, also the longest Retry-After honoured. */
  readonly maxDelayMs: number;
  /** @default realSleep */
  readonly sleep?: Sleep | undefined;
  /** Source of jitter in [0, 1). @default Math.random */
  readonly random?: (() => number) | undefined;
  /** Wall clock, for a Retry-After given as an HTTP date. @default Date.now */
  readonly now?: (() => number) | undefined;
  /** Names the request in the UnavailableError message ("get jobset ns/name"). @default 'kubernetes request' */
  readonly what?: string | undefined;
}

/**
 * Error codes of a connection that failed or broke before an answer came: Node's socket errors
 * and undici's (client-node sends through undici's fetch, which wraps them as `cause`).
 */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);
/** Messages of a dropped connection that come without a code (Node's http "socket hang up", undici's "other side closed"). */
const CONNECTION_ERROR_MESSAGES = ['socket hang up', 'other side closed'];

/** causesOf: the error, its `cause` chain and the members of an AggregateError (Node's happy-eyeballs connect), depth-bounded. */
const causesOf = (error: unknown): unknown[] => {
  const found: unknown[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (value === undefined || value === null || depth > 5 || found.includes(value)) return;
    found.push(value);
    if (value instanceof AggregateError) for (const member of value.errors) visit(member, depth + 1);
    if (value instanceof Error) visit(value.cause, depth + 1);
  };
  visit(error, 0);
  return found;
};

/** isConnectionError: the request never got an answer because the connection failed or broke. */
export const isConnectionError = (error: unknown): boolean =>
  causesOf(error).some((item) => {
    if (!(item instanceof Error)) return false;
    const code = 'code' in item && typeof item.code === 'string' ? item.code : undefined;
    if (code !== undefined && CONNECTION_ERROR_CODES.has(code)) return true;
    return CONNECTION_ERROR_MESSAGES.some((message) => item.message.includes(message));
  });

/**
 * isRetryable: 429, any 5xx, or a broken connection; never another 4xx, which the same request
 * would get again, and never a Lineup error, which is an outcome already decided (a watch that
 * broke after delivering events, a response that does not parse).
 */
export const isRetryable = (error: unknown): boolean => {
  if (error instanceof LineupError) return false;
  const code = httpStatusOf(error);
  if (code !== undefined) return code === 429 || (code >= 500 && code <= 599);
  return isConnectionError(error);
};

/**
 * retryAfterMs: the wait a Retry-After header asks for — delay-seconds or an HTTP date (RFC 9110
 * §10.2.3) — or undefined when there is none or it does not parse.
 */
export const retryAfterMs = (error: unknown, now: number): number | undefined => {
  const value = headerOf(error, 'retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

/**
 * backoffMs: the delay before retry number `retry` (1 for the first): baseDelayMs doubled per
 * retry, capped at maxDelayMs, with "equal jitter" — half fixed, half random — so a fleet of
 * Lambdas throttled together does not come back together, yet none retries at once.
 */
export const backoffMs = (retry: number, options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number => {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
};

/**
 * withRetry: run `fn` (told its attempt number, from 1) until it succeeds, fails with an error
 * that is not retryable (rethrown as it is, for the caller to map), or has failed maxAttempts
 * times (UnavailableError with the attempt count, the last error as `cause`). Each retry is
 * counted as `k8s.retries`.
 *
 * @example
 * const jobSet = await withRetry(() => api.getNamespacedCustomObject(request), { counters, ...KUBE_RETRY });
 */
export const withRetry = async <T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> => {
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const maxAttempts = Math.max(1, options.maxAttempts);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (!isRetryable(error)) throw error;
      if (attempt >= maxAttempts) {
        throw new UnavailableError(
          `${options.what ?? 'kubernetes request'}: gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${describeError(error)}`,
          { cause: error },
        );
      }
      const asked = retryAfterMs(error, now());
      const delay = asked === undefined ? backoffMs(attempt, options, random) : Math.min(asked, options.maxDelayMs);
      options.counters.add(CounterName.KubeRetries);
      await sleep(delay);
    }
  }
};
