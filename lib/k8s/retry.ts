/**
 * Retries of Kubernetes requests, on the project's one policy (lib/retry.ts): the answers that
 * mean "not now" — 429 Too Many Requests (API Priority and Fairness), 5xx, a connection refused
 * or dropped — are retried with exponential backoff and jitter, honouring the server's
 * Retry-After; every other answer is final and goes back to the caller at once.
 *
 * Where this layer is used: the reconciler's gateway (every request of a pass: a pass has no
 * retry loop of its own, a failed pass is re-queued by SQS and the resync, minutes later) and
 * `lineup run`'s access check. The forwarder's list and watch requests are NOT retried here:
 * the forwarder's own loop, which never gives up, is their one retry layer (lib/forwarder).
 */
import { CounterName, type CounterSink } from '../counters.ts';
import { LineupError, UnavailableError } from '../errors.ts';
import { retry, type RetryPolicy, type RetrySeams, type RetryVerdict } from '../retry.ts';
import { describeError, httpStatusOf, retryAfterMs } from './errors.ts';

/** KubeRetryOptions: the policy (KUBE_RETRY by default at the callers), where retries are counted, and the seams. */
export interface KubeRetryOptions extends RetrySeams {
  readonly counters: CounterSink;
  readonly policy: RetryPolicy;
  /** Wall clock, for a Retry-After given as an HTTP date. @default Date.now */
  readonly now?: (() => number) | undefined;
  /** Names the request in the UnavailableError message ("get jobset ns/name"). @default 'kubernetes request' */
  readonly what?: string | undefined;
}

/**
 * Error codes of a connection that failed or broke before an answer came: Node's socket errors
 * and Lineup's REST client's (a request that got no answer in time is ETIMEDOUT).
 */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);
/** Messages of a dropped connection that come without a code (Node's http "socket hang up"). */
const CONNECTION_ERROR_MESSAGES = ['socket hang up'];

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

/** kubeVerdict: how the retry policy judges a failed Kubernetes request (raw REST client error) at `now`. */
export const kubeVerdict = (error: unknown, now: number): RetryVerdict =>
  isRetryable(error) ? { retry: true, afterMs: retryAfterMs(error, now) } : { retry: false };

/**
 * withRetry: run `fn` (told its attempt number, from 1) until it succeeds, fails with an error
 * that is not retryable (rethrown as it is, for the caller to map), or has failed
 * policy.maxAttempts times (UnavailableError with the attempt count, the last error as `cause`).
 * Each retry is counted as `k8s.retries`.
 *
 * @example
 * const jobSet = await withRetry(() => client.get(resourcePath(KubeResource.JobSet, 'ns', 'name')), { counters, policy: KUBE_RETRY });
 */
export const withRetry = <T>(fn: (attempt: number) => Promise<T>, options: KubeRetryOptions): Promise<T> => {
  const now = options.now ?? Date.now;
  return retry(fn, {
    policy: options.policy,
    sleep: options.sleep,
    random: options.random,
    classify: (error) => kubeVerdict(error, now()),
    onRetry: () => options.counters.add(CounterName.KubeRetries),
    exhausted: (error, attempts) =>
      new UnavailableError(`${options.what ?? 'kubernetes request'}: gave up after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${describeError(error)}`, {
        cause: error,
      }),
  });
};
