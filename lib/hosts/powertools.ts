/**
 * Powertools for AWS Lambda behind Lineup's own small interfaces: the Logger as a Log, and the
 * metrics middleware every Lambda entry point uses, which publishes Lineup's Counters as
 * CloudWatch metrics (EMF) once per invocation.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { metricName, type Counters } from '../counters.ts';
import type { Log } from '../log.ts';

/** powertoolsLog: a Log writing structured lines through the Powertools Logger. */
export const powertoolsLog =
  (logger: Logger): Log =>
  (level, message, fields) => {
    if (fields) logger[level](message, fields);
    else logger[level](message);
  };

/** InvocationMetricsOptions: what a function publishes beyond the counters that moved. */
export interface InvocationMetricsOptions<TResult> {
  /** A counter counted once when the handler throws (the error still propagates), e.g. a failed watch session. */
  readonly errorCounter?: string;
  /**
   * Metrics read from the handler's result, published (unit Count) on every invocation that
   * returns, 0 included, so missing data means the function did not run or failed.
   */
  readonly resultMetrics?: (result: TResult) => Readonly<Record<string, number>>;
}

/**
 * publishCounterDeltas: add one metric per counter that moved since `before` (a snapshot
 * taken at the start of the invocation); warm invocations share the module's Counters.
 */
const publishCounterDeltas = (metrics: Metrics, counters: Counters, before: Readonly<Record<string, number>>): void => {
  for (const [name, value] of Object.entries(counters.snapshot())) {
    const delta = value - (before[name] ?? 0);
    if (delta > 0) metrics.addMetric(metricName(name), MetricUnit.Count, delta);
  }
};

/**
 * invocationMetrics: the middlewares that publish a function's metrics, in the order they must
 * be used: Powertools' logMetrics, which flushes `metrics` after the handler returns or throws,
 * then Lineup's, which adds the counters that moved during the invocation (and the result's
 * metrics) just before. Middy runs `after` and `onError` hooks in the reverse order of `use`, so
 * the later one adds before the earlier one flushes; handing them out as one list keeps that
 * order out of every entry point. Returned, partial-batch, or thrown: each invocation writes its
 * counters once, and a thrown error still fails the invocation.
 */
export const invocationMetrics = <TEvent, TResult>(
  metrics: Metrics,
  counters: Counters,
  options: InvocationMetricsOptions<TResult> = {},
): MiddlewareObj<TEvent, TResult, Error, Context>[] => {
  // Each invocation's starting snapshot, kept with its request rather than in one variable, so an
  // invocation whose `before` never ran cannot take an earlier invocation's.
  const snapshots = new WeakMap<object, Readonly<Record<string, number>>>();
  // A request whose `before` never ran (an earlier middleware failed) counts from now: nothing moved in it.
  const takeSnapshot = (request: Request<TEvent, TResult, Error, Context>): Readonly<Record<string, number>> => {
    const before = snapshots.get(request) ?? counters.snapshot();
    snapshots.delete(request);
    return before;
  };
  return [
    logMetrics(metrics),
    {
      name: 'lineupCounters',
      before: (request) => {
        snapshots.set(request, counters.snapshot());
      },
      after: (request) => {
        publishCounterDeltas(metrics, counters, takeSnapshot(request));
        const result = request.response;
        if (options.resultMetrics !== undefined && result !== null && result !== undefined) {
          for (const [name, value] of Object.entries(options.resultMetrics(result))) metrics.addMetric(name, MetricUnit.Count, value);
        }
      },
      onError: (request) => {
        const before = takeSnapshot(request);
        if (options.errorCounter !== undefined) counters.add(options.errorCounter);
        publishCounterDeltas(metrics, counters, before);
      },
    },
  ];
};
