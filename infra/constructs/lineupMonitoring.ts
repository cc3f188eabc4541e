/**
 * LineupMonitoring: the alarms an operator needs to trust the pipeline (infra/alarms.ts lists
 * them) and one dashboard of its flow: events into the bus, the queue's depth and age, the
 * reconciler's invocations, errors and duration, Lineup's own counters (Powertools metrics,
 * namespace `Lineup`), and the dead letters.
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
import { FixedAlarm, heartbeatAlarmId } from '../alarms.ts';
import { HeartbeatMetric } from '../../lib/fleet/heartbeatRecorder.ts';

/** ALARM_PERIOD: the window every alarm looks at. */
export const ALARM_PERIOD = Duration.minutes(5);
export { METRICS_NAMESPACE };

/** lineupMetricName: the CloudWatch name Powertools publishes a counter under (lib/counters.ts metricName). */
export const lineupMetricName = metricName;

/** LineupMonitoringProps: what is watched. */
export interface LineupMonitoringProps {
  readonly bus: events.IEventBus;
  readonly rule: events.Rule;
  readonly queue: sqs.IQueue;
  readonly deadLetters: sqs.IQueue;
  readonly deliveryDeadLetters: sqs.IQueue;
  readonly reconciler: lambda.IFunction;
  readonly resync: lambda.IFunction;
  /** Lambda watch sessions by cluster id. */
  readonly forwarders: ReadonlyMap<string, lambda.IFunction>;
  /** Clusters whose forwarder heartbeats are alarmed on and drawn (one line each). */
  readonly heartbeatClusters: readonly string[];
  /** How long without a heartbeat raises a cluster's alarm: the alarm's period. */
  readonly heartbeatMissing: Duration;
  readonly oldestMessageAlarm: Duration;
  /** Topic every alarm notifies. @default none */
  readonly alarmTopicArn?: string | undefined;
}

/** LineupMonitoring: the alarms (named by FixedAlarm, plus `ForwarderErrorsAlarm-<cluster>` and `HeartbeatMissingAlarm-<cluster>`) and `Dashboard`. */
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
    for (const [clusterId, forwarder] of props.forwarders) {
      alarm(`ForwarderErrorsAlarm-${clusterId}`, forwarder.metricErrors(sum), 1, `the forwarder watch session of cluster ${clusterId} failed`);
    }

    // One series per cluster, published by the reconciler for each heartbeat it receives
    // (lib/hosts/powertools.ts publishHeartbeat). No data for a whole period is the alarm: a
    // forwarder that stopped, lost its credentials or its bus sends nothing at all.
    const heartbeatMetric = (clusterId: string, label?: string): cloudwatch.Metric =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: HeartbeatMetric.name,
        dimensionsMap: { service: 'reconciler', [HeartbeatMetric.clusterDimension]: clusterId },
        statistic: cloudwatch.Stats.SUM,
        period: props.heartbeatMissing,
        label,
      });
    // Labelled for the dashboard only: a labelled metric would make the alarm a metric-math one.
    const heartbeats = props.heartbeatClusters.map((clusterId) => heartbeatMetric(clusterId, clusterId));
    for (const clusterId of props.heartbeatClusters) {
      const created = new cloudwatch.Alarm(this, heartbeatAlarmId(clusterId), {
        metric: heartbeatMetric(clusterId),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
        alarmDescription: `Lineup: no forwarder heartbeat from cluster ${clusterId} for ${props.heartbeatMissing.toMinutes()} minutes: its changes are not forwarded (the resync polls its JobSets meanwhile)`,
      });
      if (topic) created.addAlarmAction(new actions.SnsAction(topic));
      this.alarms.push(created);
    }

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
        ...(heartbeats.length === 0
          ? []
          : [[new cloudwatch.GraphWidget({ title: `Forwarder heartbeats per cluster (per ${props.heartbeatMissing.toMinutes()} min)`, left: heartbeats, width: 24 })]]),
      ],
    });
  }
}
