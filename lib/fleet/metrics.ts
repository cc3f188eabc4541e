/**
 * The fleet's CloudWatch metrics, named once for the functions that publish them and the stack
 * that alarms on them and draws them (infra/constructs/lineupMonitoring.ts). Neither has a
 * per-cluster dimension: CloudWatch bills each dimension combination as a custom metric of its
 * own, so the fleet's monitoring costs the same for 1 cluster as for 50. Which clusters are
 * unwatched is in the resync's log lines and `lineup clusters status`.
 */
import { CounterName, metricName } from '../counters.ts';

/** FleetMetric: each metric's name and the `service` dimension Powertools gives it (its function's serviceName). */
export const FleetMetric = {
  /** The registered clusters the last resync run found unwatched (alarmed ones only), published by every run, 0 included. */
  UnwatchedClusters: { name: 'UnwatchedClusters', service: 'resync' },
  /** Lambda watch sessions that failed, across every cluster's forwarder function (the counter CounterName.ForwarderSessionErrors). */
  ForwarderSessionErrors: { name: metricName(CounterName.ForwarderSessionErrors), service: 'forwarder' },
} as const;

/** unwatchedClustersMetric: the resync run's UnwatchedClusters metric from its result, 0 included (its Lambda publishes it: functions/resync.ts). */
export const unwatchedClustersMetric = (result: { readonly alarmed: number }): Readonly<Record<string, number>> => ({ [FleetMetric.UnwatchedClusters.name]: result.alarmed });
