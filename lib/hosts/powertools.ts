/**
 * Powertools for AWS Lambda behind Lineup's own small interfaces: the Logger as a Log, and
 * Counters published as CloudWatch metrics (EMF) once per invocation.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { metricName, type Counters } from '../counters.ts';
import { FleetMetric } from '../fleet/metrics.ts';
import type { Log } from '../log.ts';

/** powertoolsLog: a Log writing structured lines through the Powertools Logger. */
export const powertoolsLog =
  (logger: Logger): Log =>
  (level, message, fields) => {
    if (fields) logger[level](message, fields);
    else logger[level](message);
  };

/**
 * publishCounterDeltas: add one metric per counter that moved since `before` (a snapshot
 * taken at the start of the invocation); warm invocations share the module's Counters.
 */
export const publishCounterDeltas = (metrics: Metrics, counters: Counters, before: Readonly<Record<string, number>>): void => {
  for (const [name, value] of Object.entries(counters.snapshot())) {
    const delta = value - (before[name] ?? 0);
    if (delta > 0) metrics.addMetric(metricName(name), MetricUnit.Count, delta);
  }
};

/**
 * publishUnwatchedClusters: the fleet's one `UnwatchedClusters` metric, every resync run (0
 * included, so missing data means the resync did not run): no cluster dimension, so it costs one
 * custom metric for any number of clusters; the stack's one alarm watches it.
 */
export const publishUnwatchedClusters = (metrics: Metrics, count: number): void => {
  metrics.addMetric(FleetMetric.UnwatchedClusters.name, MetricUnit.Count, count);
};
