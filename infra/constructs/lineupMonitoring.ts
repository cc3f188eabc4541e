/**
 * LineupMonitoring: the alarms an operator needs to trust the pipeline (infra/alarms.ts lists
 * them) and one dashboard of its flow: events into the bus, the queue's depth and age, the
 * reconciler's invocations, errors and duration, Lineup's own counters (Powertools metrics,
 * namespace `Lineup`), the dead letters, and the fleet's unwatched clusters.
 *
 * Nothing here is per cluster: CloudWatch bills each alarm and each custom metric (each
 * dimension combination) by the month, so one per cluster made the fleet's fixed cost grow with
 * it. The resync publishes one UnwatchedClusters count (lib/fleet/metrics.ts) and logs a line per
 * unwatched cluster; one alarm watches the count, and the dashboard names the clusters from those
 * lines with a Logs Insights query (billed per GB it scans when the dashboard is viewed, not per
 * cluster). The Lambda forwarders' failed sessions are one ForwarderSessionErrors metric without a
 * cluster dimension, under one alarm.
 */
import { METRICS_NAMESPACE } from '../../lib/constants.ts';
import { metricName } from '../../lib/counters.ts';
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CounterName } from '../../lib/counters.ts';
import * as logs from 'aws-cdk-lib/aws-logs';
import { FixedAlarm, FleetAlarm } from '../alarms.ts';
import { FleetMetric } from '../../lib/fleet/metrics.ts';
import { UNWATCHED_LOG_MESSAGE } from '../../lib/reconcile/resync.ts';

/** ALARM_PERIOD: the window every alarm looks at. */
export const ALARM_PERIOD = Duration.minutes(5);
export { METRICS_NAMESPACE };

/** lineupMetricName: the CloudWatch name Powertools publishes a counter under (lib/counters.ts metricName). */
export const lineupMetricName = metricName;

/**
 * unwatchedClustersQuery: the Logs Insights query over the resync's log of each cluster it found
 * unwatched (lib/reconcile/resync.ts UNWATCHED_LOG_MESSAGE), newest first: one row per cluster.
 */
export const unwatchedClustersQuery = (): string[] => [
  'fields @timestamp, cluster, lastHeartbeatAt',
  `filter message = ${JSON.stringify(UNWATCHED_LOG_MESSAGE)}`,
  'stats latest(lastHeartbeatAt) as lastCheckpoint, max(@timestamp) as lastSeenUnwatched by cluster',
  'sort lastSeenUnwatched desc',
];

/** LineupMonitoringProps: what is watched. */
export interface LineupMonitoringProps {
  readonly bus: events.IEventBus;
  readonly rule: events.Rule;
  readonly queue: sqs.IQueue;
  readonly deadLetters: sqs.IQueue;
  readonly deliveryDeadLetters: sqs.IQueue;
  readonly reconciler: lambda.IFunction;
  readonly resync: lambda.IFunction;
  /** The resync's log group: the dashboard's unwatched-clusters table queries its lines. */
  readonly resyncLogGroup: logs.ILogGroup;
  /** Lambda watch sessions by cluster id: any at all get the one ForwarderSessionErrors alarm. */
  readonly forwarders: ReadonlyMap<string, lambda.IFunction>;
  /** The missing time: the resync's own judgement, so the unwatched alarm needs one period of it only. */
  readonly heartbeatMissing: Duration;
  readonly oldestMessageAlarm: Duration;
  /** Topic every alarm notifies. @default none */
  readonly alarmTopicArn?: string | undefined;
}

/** LineupMonitoring: the alarms (named by FixedAlarm and FleetAlarm, the same number for any number of clusters) and `Dashboard`. */
export class LineupMonitoring extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: LineupMonitoringProps) {
    super(scope, id);
    const topic = props.alarmTopicArn === undefined ? undefined : sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn);
    const alarm = (alarmId: string, metric: cloudwatch.IMetric, threshold: number, description: string): cloudwatch.Alarm => {
      const created = new cloudwatch.Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // No data means nothing happened: no dead letter, no error, no queue.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `Lineup: ${description}`,
      });
      if (topic) created.addAlarmAction(new actions.SnsAction(topic));
      this.alarms.push(created);
      return created;
    };
    const max = { period: ALARM_PERIOD, statistic: cloudwatch.Stats.MAXIMUM };
    const fleetMetric = (metric: { name: string; service: string }, statistic: string, period: Duration, label?: string): cloudwatch.Metric =>
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: metric.name, dimensionsMap: { service: metric.service }, statistic, period, label });
    const sum = { period: ALARM_PERIOD, statistic: cloudwatch.Stats.SUM };

    alarm(FixedAlarm.DeadLetters, props.deadLetters.metricApproximateNumberOfMessagesVisible(max), 1, 'records the reconciler failed on repeatedly are in the dead-letter queue');
    alarm(FixedAlarm.DeliveryDeadLetters, props.deliveryDeadLetters.metricApproximateNumberOfMessagesVisible(max), 1, 'events EventBridge could not deliver to the reconcile queue');
    alarm(
      FixedAlarm.QueueBacklog,
      props.queue.metricApproximateAgeOfOldestMessage(max),
      props.oldestMessageAlarm.toSeconds(),
      `the oldest queued event is ${props.oldestMessageAlarm.toSeconds()} s old or older: the reconciler is not keeping up`,
    );
    alarm(FixedAlarm.ReconcilerErrors, props.reconciler.metricErrors(sum), 1, 'the reconciler function failed (an invocation error, not a record failure)');
    alarm(FixedAlarm.ResyncErrors, props.resync.metricErrors(sum), 1, 'a resync run failed');
    if (props.forwarders.size > 0) {
      alarm(
        FleetAlarm.ForwarderSessionErrors,
        fleetMetric(FleetMetric.ForwarderSessionErrors, cloudwatch.Stats.SUM, ALARM_PERIOD),
        1,
        `a Lambda forwarder watch session failed (one of ${props.forwarders.size}: its function's Errors and the forwarder log say which)`,
      );
    }

    // Published by every resync run (0 included), so no data for a period means the resync is not
    // running and nobody is judging the fleet: that breaches too.
    const unwatched = fleetMetric(FleetMetric.UnwatchedClusters, cloudwatch.Stats.MAXIMUM, ALARM_PERIOD);
    const unwatchedAlarm = new cloudwatch.Alarm(this, FleetAlarm.UnwatchedClusters, {
      metric: unwatched,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription: `Lineup: a registered cluster has written no forwarder checkpoint for ${props.heartbeatMissing.toMinutes()} minutes (or the resync is not running): its changes are not forwarded and the resync polls its JobSets; the dashboard and \`lineup clusters status\` name it`,
    });
    if (topic) unwatchedAlarm.addAlarmAction(new actions.SnsAction(topic));
    this.alarms.push(unwatchedAlarm);

    // Powertools adds the dimension service=<serviceName> (functions/reconciler.ts: 'reconciler').
    const lineupMetric = (counter: string, label: string): cloudwatch.Metric =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: lineupMetricName(counter),
        dimensionsMap: { service: 'reconciler' },
        statistic: cloudwatch.Stats.SUM,
        period: ALARM_PERIOD,
        label,
      });
    const ruleMetric = (metricName: string): cloudwatch.Metric =>
      new cloudwatch.Metric({
        namespace: 'AWS/Events',
        metricName,
        dimensionsMap: { EventBusName: props.bus.eventBusName, RuleName: props.rule.ruleName },
        statistic: cloudwatch.Stats.SUM,
        period: ALARM_PERIOD,
      });
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'Events matched by the rule / delivery failures',
            left: [ruleMetric('MatchedEvents')],
            right: [ruleMetric('FailedInvocations')],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Reconcile queue: depth and oldest message age (s)',
            left: [props.queue.metricApproximateNumberOfMessagesVisible(max)],
            right: [props.queue.metricApproximateAgeOfOldestMessage(max)],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Reconciler: invocations, errors, throttles',
            left: [props.reconciler.metricInvocations(sum), props.reconciler.metricErrors(sum), props.reconciler.metricThrottles(sum)],
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Reconciler: duration (p50, p99, ms)',
            left: [
              props.reconciler.metricDuration({ period: ALARM_PERIOD, statistic: cloudwatch.Stats.p(50) }),
              props.reconciler.metricDuration({ period: ALARM_PERIOD, statistic: cloudwatch.Stats.p(99) }),
            ],
            width: 8,
          }),
          new cloudwatch.GraphWidget({
            title: 'Lineup: passes, events handed to the lease holder',
            left: [lineupMetric(CounterName.Passes, 'passes'), lineupMetric(CounterName.Deferred, 'deferred')],
            width: 8,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Dead letters (reconcile, delivery)',
            left: [props.deadLetters.metricApproximateNumberOfMessagesVisible(max), props.deliveryDeadLetters.metricApproximateNumberOfMessagesVisible(max)],
            width: 12,
          }),
          new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 12 }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Unwatched clusters (the resync, each run)',
            left: [fleetMetric(FleetMetric.UnwatchedClusters, cloudwatch.Stats.MAXIMUM, Duration.minutes(1), 'unwatched clusters')],
            leftYAxis: { min: 0 },
            width: 8,
          }),
          new cloudwatch.LogQueryWidget({
            title: 'Unwatched clusters: which, and their last forwarder checkpoint',
            logGroupNames: [props.resyncLogGroup.logGroupName],
            view: cloudwatch.LogQueryVisualizationType.TABLE,
            queryLines: unwatchedClustersQuery(),
            width: 16,
          }),
        ],
      ],
    });
  }
}
