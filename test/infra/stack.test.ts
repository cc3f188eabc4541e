/**
 * LineupStack's template: every resource and the properties Lineup depends on, read back with
 * aws-cdk-lib/assertions and compared with the single sources of truth they come from
 * (tableDefinition(), EnvVar, TableActions, KubeGroup, the config defaults).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { alarmCount, FixedAlarm, FleetAlarm } from '../../infra/alarms.ts';
import {
  CONFIG_CONTEXT_KEY,
  CONFIG_FILE_CONTEXT_KEY,
  ConfigError,
  DEFAULT_ARCHIVE_RETENTION_DAYS,
  DEFAULT_BATCHING_WINDOW_SECONDS,
  DEFAULT_FULL_RESYNC_HOURS,
  DEFAULT_OLDEST_MESSAGE_ALARM_SECONDS,
  DEFAULT_RECONCILER_MAX_CONCURRENCY,
  DEFAULT_MAX_JOBS_PER_JOBSET,
  DEFAULT_MAX_PODS_PER_JOBSET,
  DEFAULT_RESYNC_MINUTES,
  configFromContext,
  defaultSlotsPerCluster,
  parseConfig,
} from '../../infra/config.ts';
import { SOURCE_MAP_NODE_OPTIONS, bundling } from '../../infra/constructs/lineupFunction.ts';
import { MAX_RECEIVE_COUNT, VISIBILITY_TIMEOUT_FACTOR } from '../../infra/constructs/reconcileQueue.ts';
import { KubeGroup, KubeName } from '../../infra/k8s/names.ts';
import { TableActions } from '../../infra/permissions.ts';
import { FORWARDER_SESSION_RATE_MS, FunctionSizing, RECONCILER_BATCH_SIZE } from '../../infra/sizing.ts';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { reconcilerRulePattern } from '../../lib/events/pattern.ts';
import { eventSource } from '../../lib/events/schema.ts';
import { EnvVar } from '../../lib/hosts/lambdaConfig.ts';
import { METRICS_NAMESPACE } from '../../lib/constants.ts';
import { FleetMetric } from '../../lib/fleet/metrics.ts';
import { UNWATCHED_LOG_MESSAGE } from '../../lib/reconcile/resync.ts';
import { BOOKMARK_ATTRIBUTES, KeyPart, LIST_INDEX, RESYNC_INDEX, TTL_ATTRIBUTE, clusterPk, forwarderPk, tableDefinition } from '../../lib/store/table.ts';
import { FLEET, actionsOf, logicalIdOf, onlyResource, resourcesOf, statementsOfRole, synthStack } from './helpers.ts';
import type { CfnResource, PolicyStatementJson } from './helpers.ts';

const fleet = synthStack(FLEET);
const bare = synthStack({});
const { template } = fleet;

const getAtt = (logicalId: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [logicalId, attribute] });
const ids = {
  bus: logicalIdOf(template, 'AWS::Events::EventBus', 'Bus'),
  queue: logicalIdOf(template, 'AWS::SQS::Queue', 'Queue9'),
  deadLetters: logicalIdOf(template, 'AWS::SQS::Queue', 'QueueDeadLetters'),
  deliveryDeadLetters: logicalIdOf(template, 'AWS::SQS::Queue', 'QueueDeliveryDeadLetters'),
  table: logicalIdOf(template, 'AWS::DynamoDB::Table', 'Table'),
  reconciler: logicalIdOf(template, 'AWS::Lambda::Function', 'Reconciler'),
  resync: logicalIdOf(template, 'AWS::Lambda::Function', 'Resync'),
  reconcilerRole: logicalIdOf(template, 'AWS::IAM::Role', 'ReconcilerRole'),
};

/** lineupFunctions: the functions Lineup wrote (not the CDK's custom-resource provider). */
const lineupFunctions = (): [string, CfnResource][] =>
  Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).filter(([id]) => !id.startsWith('AWS679f53fac002430cb0da5b7982bd2287'));

const envOf = (logicalId: string): Record<string, unknown> =>
  ((resourcesOf(template, 'AWS::Lambda::Function')[logicalId]?.Properties['Environment'] as { Variables: Record<string, unknown> }) ?? { Variables: {} }).Variables;

describe('LineupStack', () => {
  describe('bus, archive and rule', () => {
    it('creates one custom event bus', () => {
      template.resourceCountIs('AWS::Events::EventBus', 1);
    });

    it('archives the rule pattern from lib/events for the configured retention', () => {
      template.hasResourceProperties('AWS::Events::Archive', {
        SourceArn: getAtt(ids.bus),
        EventPattern: reconcilerRulePattern(),
        RetentionDays: DEFAULT_ARCHIVE_RETENTION_DAYS,
      });
    });

    it('routes the rule pattern on the bus to the queue, with undeliverable events to their own dead-letter queue', () => {
      template.hasResourceProperties('AWS::Events::Rule', {
        EventBusName: { Ref: ids.bus },
        EventPattern: reconcilerRulePattern(),
        Targets: [Match.objectLike({ Arn: getAtt(ids.queue), DeadLetterConfig: { Arn: getAtt(ids.deliveryDeadLetters) } })],
      });
    });
  });

  describe('queue', () => {
    it('redrives a record to the dead-letter queue after MAX_RECEIVE_COUNT receives', () => {
      template.hasResourceProperties('AWS::SQS::Queue', {
        RedrivePolicy: { deadLetterTargetArn: getAtt(ids.deadLetters), maxReceiveCount: MAX_RECEIVE_COUNT },
      });
    });

    it('keeps messages invisible for at least 6 reconciler timeouts', () => {
      const queue = resourcesOf(template, 'AWS::SQS::Queue')[ids.queue];
      const timeout = resourcesOf(template, 'AWS::Lambda::Function')[ids.reconciler]?.Properties['Timeout'];
      assert.equal(typeof timeout, 'number');
      assert.ok(VISIBILITY_TIMEOUT_FACTOR >= 6);
      assert.ok((queue?.Properties['VisibilityTimeout'] as number) >= 6 * (timeout as number), `visibility ${String(queue?.Properties['VisibilityTimeout'])} s, timeout ${String(timeout)} s`);
    });

    it('encrypts every queue and refuses requests without TLS', () => {
      const queues = Object.values(resourcesOf(template, 'AWS::SQS::Queue'));
      assert.equal(queues.length, 3, 'the reconcile queue and its two dead-letter queues');
      for (const queue of queues) assert.equal(queue.Properties['SqsManagedSseEnabled'], true);
      template.resourceCountIs('AWS::SQS::QueuePolicy', 3);
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
      });
    });
  });

  describe('functions', () => {
    it('runs every Lineup function on nodejs24.x, arm64, bundled as ESM', () => {
      const functions = lineupFunctions();
      assert.equal(functions.length, 3, 'reconciler, resync and one Lambda forwarder');
      for (const [id, fn] of functions) {
        assert.equal(fn.Properties['Runtime'], 'nodejs24.x', id);
        assert.deepEqual(fn.Properties['Architectures'], ['arm64'], id);
        assert.equal(fn.Properties['Handler'], 'index.handler', id);
      }
    });

    it('ships no source maps by default, and with sourceMaps: true the map and --enable-source-maps', () => {
      assert.deepEqual(bundling(false).sourceMap, false);
      for (const [id] of lineupFunctions()) assert.equal(envOf(id)['NODE_OPTIONS'], undefined, id);
      const mapped = synthStack({ ...FLEET, sourceMaps: true });
      const functions = Object.entries(resourcesOf(mapped.template, 'AWS::Lambda::Function')).filter(([id]) => !id.startsWith('AWS679f53fac002430cb0da5b7982bd2287'));
      assert.equal(functions.length, 3);
      for (const [id, fn] of functions) {
        const variables = (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
        assert.equal(variables['NODE_OPTIONS'], SOURCE_MAP_NODE_OPTIONS, id);
      }
      assert.equal(bundling(true).sourceMap, true);
    });

    it('sets only environment variables lib/hosts/lambdaConfig.ts reads (and NODE_OPTIONS)', () => {
      const known = new Set<string>([...Object.values(EnvVar), 'NODE_OPTIONS']);
      for (const [id] of lineupFunctions()) for (const name of Object.keys(envOf(id))) assert.ok(known.has(name), `${id}: ${name} is not an EnvVar`);
    });

    it('gives the reconciler the table, the bus, the controller name, the flags, the JobSet size bounds and its fair share with its queue', () => {
      assert.deepEqual(envOf(ids.reconciler), {
        [EnvVar.TableName]: { Ref: ids.table },
        [EnvVar.EventBusName]: { Ref: ids.bus },
        [EnvVar.ControllerName]: DEFAULT_CONTROLLER_NAME,
        [EnvVar.ClaimUnmanaged]: 'false',
        [EnvVar.ApplyReplays]: 'false',
        [EnvVar.MaxJobsPerJobSet]: String(DEFAULT_MAX_JOBS_PER_JOBSET),
        [EnvVar.MaxPodsPerJobSet]: String(DEFAULT_MAX_PODS_PER_JOBSET),
        [EnvVar.JournalKeepEnv]: 'false',
        [EnvVar.SlotsPerCluster]: String(defaultSlotsPerCluster(DEFAULT_RECONCILER_MAX_CONCURRENCY)),
        [EnvVar.ReconcilerQueueUrl]: { Ref: ids.queue },
      });
    });

    it('lets the reconciler put records back on its own queue only, and with no fair share neither the grant nor the variables', () => {
      const sends = statementsOfRole(template, 'ReconcilerRole').filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:Send')));
      assert.equal(sends.length, 1);
      assert.deepEqual(sends[0]?.Resource, { 'Fn::GetAtt': [ids.queue, 'Arn'] });
      const { template: unshared } = synthStack({ reconcilerSlotsPerCluster: false, journalKeepEnv: true });
      const reconciler = logicalIdOf(unshared, 'AWS::Lambda::Function', 'Reconciler');
      const variables = (resourcesOf(unshared, 'AWS::Lambda::Function')[reconciler]?.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
      assert.equal(variables[EnvVar.SlotsPerCluster], undefined);
      assert.equal(variables[EnvVar.ReconcilerQueueUrl], undefined);
      assert.equal(variables[EnvVar.JournalKeepEnv], 'true');
      assert.equal(statementsOfRole(unshared, 'ReconcilerRole').filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:Send'))).length, 0);
    });

    it('passes controllerName, claimUnmanaged and applyReplays from the configuration', () => {
      const { template: custom } = synthStack({ controllerName: 'example.com/lineup', claimUnmanaged: true, applyReplays: true });
      custom.hasResourceProperties('AWS::Lambda::Function', {
        Environment: { Variables: Match.objectLike({ [EnvVar.ControllerName]: 'example.com/lineup', [EnvVar.ClaimUnmanaged]: 'true', [EnvVar.ApplyReplays]: 'true' }) },
      });
    });

    it('passes maxJobsPerJobSet and maxPodsPerJobSet to the reconciler only', () => {
      const { template: custom } = synthStack({ maxJobsPerJobSet: 20_000, maxPodsPerJobSet: 250_000 });
      const reconciler = logicalIdOf(custom, 'AWS::Lambda::Function', 'Reconciler');
      const variables = (id: string): Record<string, unknown> =>
        ((resourcesOf(custom, 'AWS::Lambda::Function')[id]?.Properties['Environment'] as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {});
      assert.equal(variables(reconciler)[EnvVar.MaxJobsPerJobSet], '20000');
      assert.equal(variables(reconciler)[EnvVar.MaxPodsPerJobSet], '250000');
      assert.equal(envOf(ids.resync)[EnvVar.MaxJobsPerJobSet], undefined);
    });

    it('names its cluster in the Lambda forwarder only', () => {
      const forwarder = logicalIdOf(template, 'AWS::Lambda::Function', 'Clusteredge1Forwarder');
      assert.equal(envOf(forwarder)[EnvVar.ForwarderCluster], 'edge-1');
      assert.equal(envOf(ids.reconciler)[EnvVar.ForwarderCluster], undefined);
      assert.equal(envOf(ids.resync)[EnvVar.ForwarderCluster], undefined);
    });

    it('sizes the functions as infra/sizing.ts says', () => {
      template.hasResourceProperties('AWS::Lambda::Function', { MemorySize: FunctionSizing.reconciler.memoryMb, Timeout: FunctionSizing.reconciler.timeoutMs / 1000 });
      template.hasResourceProperties('AWS::Lambda::Function', { MemorySize: FunctionSizing.resync.memoryMb, Timeout: FunctionSizing.resync.timeoutMs / 1000 });
      template.hasResourceProperties('AWS::Lambda::Function', { MemorySize: FunctionSizing.forwarder.memoryMb, Timeout: FunctionSizing.forwarder.timeoutMs / 1000 });
    });

    it('feeds the reconciler from the queue with partial batch responses, a batching window and a concurrency cap', () => {
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: getAtt(ids.queue),
        FunctionName: { Ref: ids.reconciler },
        BatchSize: RECONCILER_BATCH_SIZE,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        MaximumBatchingWindowInSeconds: DEFAULT_BATCHING_WINDOW_SECONDS,
        ScalingConfig: { MaximumConcurrency: DEFAULT_RECONCILER_MAX_CONCURRENCY },
      });
    });

    it('reserves the reconciler as much concurrency as its event source may use, and no other function any', () => {
      const reserved = (t: typeof template): Record<string, unknown> =>
        Object.fromEntries(
          Object.entries(resourcesOf(t, 'AWS::Lambda::Function'))
            .filter(([id]) => !id.startsWith('AWS679f53fac002430cb0da5b7982bd2287'))
            .map(([id, fn]) => [id.replace(/[0-9A-F]{8}$/, ''), fn.Properties['ReservedConcurrentExecutions']]),
        );
      assert.deepEqual(reserved(template), { Reconciler: DEFAULT_RECONCILER_MAX_CONCURRENCY, Resync: undefined, Clusteredge1Forwarder: undefined });
      // It follows reconcilerMaxConcurrency, or is set on its own (at least as high), or not at all.
      assert.equal(reserved(synthStack({ reconcilerMaxConcurrency: 40 }).template)['Reconciler'], 40);
      const both = synthStack({ reconcilerMaxConcurrency: 40, reconcilerReservedConcurrency: 45 }).template;
      assert.equal(reserved(both)['Reconciler'], 45);
      both.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 40 } });
      assert.equal(reserved(synthStack({ reconcilerReservedConcurrency: false }).template)['Reconciler'], undefined);
    });

    it('gives each cluster half the reconciler invocations by default, rounded up, or the share configured', () => {
      assert.equal(parseConfig({}, 'test').reconcilerSlotsPerCluster, 5);
      assert.equal(parseConfig({ reconcilerMaxConcurrency: 3 }, 'test').reconcilerSlotsPerCluster, 2);
      assert.equal(parseConfig({ reconcilerMaxConcurrency: 40, reconcilerSlotsPerCluster: 8 }, 'test').reconcilerSlotsPerCluster, 8);
      assert.equal(parseConfig({ reconcilerSlotsPerCluster: false }, 'test').reconcilerSlotsPerCluster, false);
    });

    it('gives each function its own log group and no managed policy', () => {
      const functions = lineupFunctions();
      const roles = Object.entries(resourcesOf(template, 'AWS::IAM::Role'));
      assert.equal(functions.length, 3);
      assert.ok(roles.length >= functions.length, `${roles.length} roles`);
      for (const [id, fn] of functions) assert.ok((fn.Properties['LoggingConfig'] as { LogGroup?: unknown }).LogGroup, id);
      for (const [id, role] of roles) assert.equal(role.Properties['ManagedPolicyArns'], undefined, id);
    });
  });

  describe('table', () => {
    const table = onlyResource(template, 'AWS::DynamoDB::Table', 'Table').Properties;
    const definition = tableDefinition();

    it('mirrors tableDefinition(): keys, attribute definitions, both KEYS_ONLY indexes, on-demand billing', () => {
      assert.deepEqual(table['KeySchema'], definition.KeySchema);
      assert.deepEqual(
        new Set((table['AttributeDefinitions'] as unknown[]).map((d) => JSON.stringify(d))),
        new Set((definition.AttributeDefinitions ?? []).map((d) => JSON.stringify(d))),
      );
      const byName = (indexes: readonly { IndexName?: string }[]) => [...indexes].sort((a, b) => String(a.IndexName).localeCompare(String(b.IndexName)));
      assert.deepEqual(byName(table['GlobalSecondaryIndexes'] as { IndexName?: string }[]), byName(definition.GlobalSecondaryIndexes ?? []));
      assert.equal(table['BillingMode'], definition.BillingMode);
      assert.deepEqual(byName(table['GlobalSecondaryIndexes'] as { IndexName?: string }[]).map((index) => index.IndexName), [LIST_INDEX.name, RESYNC_INDEX.name]);
    });

    it('expires decisions by TTL_ATTRIBUTE and keeps point-in-time recovery on', () => {
      assert.deepEqual(table['TimeToLiveSpecification'], { AttributeName: TTL_ATTRIBUTE, Enabled: true });
      assert.deepEqual(table['PointInTimeRecoverySpecification'], { PointInTimeRecoveryEnabled: true });
    });

    it('is protected from deletion by default and retained when the stack goes', () => {
      assert.equal(table['DeletionProtectionEnabled'], true);
      const resource = onlyResource(template, 'AWS::DynamoDB::Table', 'Table');
      assert.equal(resource.DeletionPolicy, 'Retain');
      assert.equal(resource.UpdateReplacePolicy, 'Retain');
    });

    it('drops deletion protection when configured', () => {
      const { template: unprotected } = synthStack({ tableDeletionProtection: false });
      unprotected.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
    });
  });

  describe('schedules', () => {
    const schedules = Object.values(resourcesOf(template, 'AWS::Scheduler::Schedule')).map((s) => s.Properties as { ScheduleExpression: string; Target: { Arn: unknown; Input?: string } });

    it('starts the resync every DEFAULT_RESYNC_MINUTES and a full re-list every DEFAULT_FULL_RESYNC_HOURS', () => {
      const toResync = schedules.filter((s) => JSON.stringify(s.Target.Arn) === JSON.stringify(getAtt(ids.resync)));
      const rate = (duration: Duration): string => scheduler.ScheduleExpression.rate(duration).expressionString;
      const byInput = (a: [string, unknown], b: [string, unknown]) => JSON.stringify(a[1]).localeCompare(JSON.stringify(b[1]));
      assert.deepEqual(
        toResync.map((s): [string, unknown] => [s.ScheduleExpression, JSON.parse(s.Target.Input ?? '{}') as unknown]).sort(byInput),
        ([
          [rate(Duration.minutes(DEFAULT_RESYNC_MINUTES)), { full: false }],
          [rate(Duration.hours(DEFAULT_FULL_RESYNC_HOURS)), { full: true }],
        ] as [string, unknown][]).sort(byInput),
      );
    });

    it('starts a Lambda watch session every WATCH_SESSION_MAX_MS for each Lambda forwarder', () => {
      const forwarder = logicalIdOf(template, 'AWS::Lambda::Function', 'Clusteredge1Forwarder');
      const sessions = schedules.filter((s) => JSON.stringify(s.Target.Arn) === JSON.stringify(getAtt(forwarder)));
      assert.deepEqual(
        sessions.map((s) => s.ScheduleExpression),
        [scheduler.ScheduleExpression.rate(Duration.millis(FORWARDER_SESSION_RATE_MS)).expressionString],
      );
    });

    it('lets the scheduler roles invoke exactly their function', () => {
      const schedulerRoles = Object.keys(resourcesOf(template, 'AWS::IAM::Role')).filter((roleId) => roleId.startsWith('SchedulerRoleForTarget'));
      assert.equal(schedulerRoles.length, 2, 'one for the resync function, one for the Lambda forwarder');
      for (const id of schedulerRoles) {
        const statements = statementsOfRole(template, id);
        assert.deepEqual(statements.flatMap(actionsOf), ['lambda:InvokeFunction'], id);
        for (const statement of statements) assert.ok(!JSON.stringify(statement.Resource).includes('*'), `${id}: ${JSON.stringify(statement.Resource)}`);
      }
    });
  });

  describe('alarms and dashboard', () => {
    it('creates the fixed alarms, the unwatched-clusters alarm, and one forwarder-errors alarm when any forwarder is a Lambda', () => {
      template.resourceCountIs('AWS::CloudWatch::Alarm', alarmCount(1));
      bare.template.resourceCountIs('AWS::CloudWatch::Alarm', alarmCount(0));
      assert.equal(alarmCount(0), Object.keys(FixedAlarm).length + 1);
      assert.equal(alarmCount(1), Object.keys(FixedAlarm).length + 2);
    });

    it('has the same alarms and custom metrics for 1 cluster as for 50: nothing per cluster', () => {
      // Token clusters whose forwarder runs elsewhere cost the template the fewest resources of their own, so 50 fit its 500; Lambda forwarders 20.
      const cluster = (index: number, forwarder: 'none' | 'lambda') => ({
        id: `c-${index}`,
        endpoint: `https://k8s-${index}.example.com:6443`,
        caData: 'LS0tLS1CRUdJTiBDRVJU',
        tokenSecretArn: `arn:aws:secretsmanager:us-east-1:123456789012:secret:lineup/c-${index}-AbCdEf`,
        forwarder,
      });
      /** monitoring: every alarm's metric (name and dimensions) and every custom metric the dashboard draws. */
      const monitoring = (count: number, forwarder: 'none' | 'lambda') => {
        const { template: synthesized } = synthStack({ clusters: Array.from({ length: count }, (_, index) => cluster(index, forwarder)) });
        const alarms = Object.values(resourcesOf(synthesized, 'AWS::CloudWatch::Alarm')).map((alarm) => `${String(alarm.Properties['MetricName'])} ${JSON.stringify(alarm.Properties['Dimensions'] ?? [])}`);
        const body = JSON.stringify(onlyResource(synthesized, 'AWS::CloudWatch::Dashboard', 'Monitoring').Properties['DashboardBody']);
        const custom = [...body.matchAll(new RegExp(String.raw`\[\\"${METRICS_NAMESPACE}\\",\\"(\w+)\\"`, 'g'))].map((match) => match[1]);
        return { alarms: alarms.sort(), custom: [...new Set(custom)].sort() };
      };
      for (const forwarder of ['none', 'lambda'] as const) {
        const one = monitoring(1, forwarder);
        const fifty = monitoring(forwarder === 'lambda' ? 20 : 50, forwarder);
        assert.equal(fifty.alarms.length, one.alarms.length, `${forwarder}: the same number of alarms`);
        assert.equal(one.alarms.length, alarmCount(forwarder === 'lambda' ? 1 : 0));
        assert.deepEqual(fifty.custom, one.custom, `${forwarder}: the same custom metrics drawn`);
        assert.ok(one.custom.includes(FleetMetric.UnwatchedClusters.name), one.custom.join(', '));
        assert.equal(fifty.alarms.filter((alarm) => alarm.startsWith(`${FleetMetric.UnwatchedClusters.name} `)).length, 1, 'one unwatched alarm');
        assert.ok(fifty.alarms.every((alarm) => !alarm.includes('c-0')), 'no alarm names a cluster');
      }
    });

    it('alarms on dead letters in both dead-letter queues', () => {
      for (const queue of [ids.deadLetters, ids.deliveryDeadLetters]) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: getAtt(queue, 'QueueName') }],
          Threshold: 1,
        });
      }
    });

    it('alarms on the age of the oldest queued message', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(ids.queue, 'QueueName') }],
        Threshold: DEFAULT_OLDEST_MESSAGE_ALARM_SECONDS,
      });
    });

    it("alarms on the reconciler's and the resync's errors (the Lambda forwarders' through their one ForwarderSessionErrors alarm)", () => {
      for (const id of [ids.reconciler, ids.resync]) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: [{ Name: 'FunctionName', Value: { Ref: id } }] });
      }
    });

    it('notifies the configured topic', () => {
      const topic = 'arn:aws:sns:us-east-1:123456789012:ops';
      const { template: notifying } = synthStack({ alarmTopicArn: topic });
      const alarms = Object.values(resourcesOf(notifying, 'AWS::CloudWatch::Alarm'));
      assert.equal(alarms.length, alarmCount(0));
      for (const alarm of alarms) assert.deepEqual(alarm.Properties['AlarmActions'], [topic]);
    });

    it('creates one dashboard', () => {
      template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    });

    it('alarms once for the fleet on the resync\'s UnwatchedClusters, missing data breaching; the resync judges with heartbeatMissingMinutes', () => {
      for (const synthesized of [template, bare.template]) {
        synthesized.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: METRICS_NAMESPACE,
          MetricName: FleetMetric.UnwatchedClusters.name,
          Dimensions: [{ Name: 'service', Value: FleetMetric.UnwatchedClusters.service }],
          Statistic: 'Maximum',
          Period: 300,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'breaching',
        });
      }
      const { template: quick } = synthStack({ heartbeatMissingMinutes: 3, clusters: [{ id: 'a', clusterName: 'a' }, { id: 'b', clusterName: 'b', heartbeatAlarm: false }, { id: 'c', clusterName: 'c', heartbeatAlarm: false }] });
      const resync = Object.values(resourcesOf(quick, 'AWS::Lambda::Function')).find((fn) => String(fn.Properties['Description']).startsWith('Lineup resync'));
      const variables = (resync?.Properties['Environment'] as { Variables: Record<string, string> }).Variables;
      assert.equal(variables[EnvVar.HeartbeatMissingMs], '180000');
      assert.equal(variables[EnvVar.UnalarmedClusters], 'b,c', 'the clusters no forwarder watches are left out of the alarm');
      assert.equal(envOf(ids.resync)[EnvVar.UnalarmedClusters], undefined, 'every cluster alarmed on: no variable');
    });

    it('alarms once on every Lambda forwarder\'s failed sessions, with no cluster dimension', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: METRICS_NAMESPACE,
        MetricName: FleetMetric.ForwarderSessionErrors.name,
        Dimensions: [{ Name: 'service', Value: FleetMetric.ForwarderSessionErrors.service }],
        Statistic: 'Sum',
        Threshold: 1,
      });
      assert.equal(logicalIdOf(template, 'AWS::CloudWatch::Alarm', `Monitoring${FleetAlarm.ForwarderSessionErrors}`).length > 0, true);
      assert.equal(JSON.stringify(bare.template.toJSON()).includes(FleetMetric.ForwarderSessionErrors.name), false, 'no Lambda forwarder, no such alarm');
    });

    it('draws the unwatched count and a Logs Insights table of the resync\'s unwatched-cluster lines on the dashboard', () => {
      // The body is JSON inside a CloudFormation Fn::Join, so its quotes come escaped here.
      const body = JSON.stringify(onlyResource(bare.template, 'AWS::CloudWatch::Dashboard', 'Monitoring').Properties['DashboardBody']);
      assert.ok(body.includes(String.raw`[\"${METRICS_NAMESPACE}\",\"${FleetMetric.UnwatchedClusters.name}\",\"service\",\"resync\"`), 'the UnwatchedClusters series');
      assert.ok(body.includes(String.raw`\"title\":\"Unwatched clusters: which, and their last forwarder checkpoint\"`));
      assert.ok(body.includes('| filter message = ') && body.includes(UNWATCHED_LOG_MESSAGE), 'the query filters the resync\'s own line');
      assert.ok(body.includes('by cluster'), 'one row per cluster');
      assert.ok(body.includes(logicalIdOf(bare.template, 'AWS::Logs::LogGroup', 'ResyncLogGroup')), 'over the resync\'s log group');
    });
  });

  describe('IAM', () => {
    const allStatements = (): PolicyStatementJson[] =>
      Object.values(resourcesOf(template, 'AWS::IAM::Policy')).flatMap((policy) => (policy.Properties['PolicyDocument'] as { Statement: PolicyStatementJson[] }).Statement);

    it('grants no action or resource wildcard in any identity policy', () => {
      const statements = allStatements();
      assert.ok(statements.length > 0, 'no identity policy statement');
      for (const statement of statements) {
        for (const action of actionsOf(statement)) assert.ok(!action.includes('*'), `action ${action}`);
        assert.notEqual(statement.Resource, '*');
        for (const resource of Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]) {
          assert.ok(typeof resource !== 'string' || !resource.includes('*'), `resource ${String(resource)}`);
        }
      }
    });

    it('never grants Scan or table administration', () => {
      const actions = allStatements().flatMap(actionsOf);
      for (const forbidden of ['dynamodb:Scan', 'dynamodb:DeleteTable', 'dynamodb:UpdateTable', 'dynamodb:CreateTable']) assert.ok(!actions.includes(forbidden), forbidden);
    });

    it('lets the reconciler get, put and update items of the table only (no index, no Query)', () => {
      const statements = statementsOfRole(template, 'ReconcilerRole').filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      assert.deepEqual(statements, [{ Action: [...TableActions.reconciler], Effect: 'Allow', Resource: getAtt(ids.table) }]);
    });

    it("lets the resync query the two indexes by name, batch-read items of the table, and query the forwarders' checkpoints only", () => {
      const statements = statementsOfRole(template, 'ResyncRole').filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      const indexArn = (name: string) => ({ 'Fn::Join': ['', [getAtt(ids.table), `/index/${name}`]] });
      assert.deepEqual(statements, [
        { Action: 'dynamodb:Query', Effect: 'Allow', Resource: [indexArn(LIST_INDEX.name), indexArn(RESYNC_INDEX.name)] },
        { Action: 'dynamodb:BatchGetItem', Effect: 'Allow', Resource: getAtt(ids.table) },
        { Action: 'dynamodb:Query', Effect: 'Allow', Resource: getAtt(ids.table), Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${KeyPart.forwarder}*`] } } },
      ]);
      assert.ok(`${forwarderPk('any-cluster')}`.startsWith(KeyPart.forwarder), 'the pattern covers every forwarder partition (lib/store/table.ts forwarderPk)');
    });

    it('lets the resync put only lineup.* events on the bus', () => {
      const put = statementsOfRole(template, 'ResyncRole').filter((s) => actionsOf(s).includes('events:PutEvents'));
      assert.deepEqual(put, [{ Action: 'events:PutEvents', Effect: 'Allow', Resource: getAtt(ids.bus), Condition: { StringLike: { 'events:source': 'lineup.*' } } }]);
    });

    const forwarderRoles = [
      ['prod-a', 'ClusterprodaForwarderRole'],
      ['prod-b', 'ClusterprodbForwarderRole'],
      ['edge-1', 'Clusteredge1ForwarderRole'],
    ] as const;
    for (const [clusterId, rolePrefix] of forwarderRoles) {
      it(`lets the forwarder of ${clusterId} put only lineup.${clusterId} events and touch only its own bookmarks`, () => {
        const statements = statementsOfRole(template, rolePrefix);
        assert.ok(
          statements.some((s) => JSON.stringify(s) === JSON.stringify({ Action: 'events:PutEvents', Condition: { StringEquals: { 'events:source': eventSource(clusterId) } }, Effect: 'Allow', Resource: getAtt(ids.bus) })),
          JSON.stringify(statements),
        );
        const table = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
        assert.deepEqual(table, [
          { Action: TableActions.forwarderBookmarkRead[0], Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [forwarderPk(clusterId)] } }, Effect: 'Allow', Resource: getAtt(ids.table) },
          {
            Action: TableActions.forwarderBookmarkWrite[0],
            Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [forwarderPk(clusterId)], 'dynamodb:Attributes': [...BOOKMARK_ATTRIBUTES] } },
            Effect: 'Allow',
            Resource: getAtt(ids.table),
          },
          // The Lambda watch session reads its own registry entry, and nothing else under CLUSTER#.
          ...(clusterId === 'edge-1'
            ? [{ Action: TableActions.registryRead[0], Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [clusterPk(clusterId)] } }, Effect: 'Allow', Resource: getAtt(ids.table) }]
            : []),
        ]);
      });
    }

    it('trusts Pod Identity for pod-identity forwarders (for this account and EKS cluster only) and the OIDC provider, for the ServiceAccount only, for IRSA', () => {
      const trust = (prefix: string) => onlyResource(template, 'AWS::IAM::Role', prefix).Properties['AssumeRolePolicyDocument'] as { Statement: PolicyStatementJson[] };
      const clusterArn = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':eks:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':cluster/prod-a']] };
      assert.deepEqual(trust('ClusterprodaForwarderRole').Statement, [
        {
          Action: ['sts:AssumeRole', 'sts:TagSession'],
          Condition: {
            StringEquals: {
              'aws:SourceAccount': { Ref: 'AWS::AccountId' },
              'aws:RequestTag/eks-cluster-arn': clusterArn,
              'aws:RequestTag/kubernetes-namespace': 'lineup',
              'aws:RequestTag/kubernetes-service-account': 'lineup-forwarder',
            },
          },
          Effect: 'Allow',
          Principal: { Service: 'pods.eks.amazonaws.com' },
        },
      ]);
      const issuer = 'oidc.eks.us-east-1.amazonaws.com/id/ABCDEF0123';
      assert.deepEqual(trust('ClusterprodbForwarderRole').Statement, [
        {
          Action: 'sts:AssumeRoleWithWebIdentity',
          Condition: { StringEquals: { [`${issuer}:sub`]: `system:serviceaccount:${KubeName.namespace}:${KubeName.forwarder}`, [`${issuer}:aud`]: 'sts.amazonaws.com' } },
          Effect: 'Allow',
          Principal: { Federated: FLEET.clusters[1].oidcProviderArn },
        },
      ]);
    });

    it('lets the reconciler assume the access role of a cluster that names one', () => {
      assert.ok(
        statementsOfRole(template, 'ReconcilerRole').some((s) => s.Action === 'sts:AssumeRole' && s.Resource === FLEET.clusters[3].accessRoleArn),
      );
    });
  });

  describe('clusters', () => {
    it('puts the bus policy statement of a cluster with outside forwarder roles under the events:source condition', () => {
      template.resourceCountIs('AWS::Events::EventBusPolicy', 1);
      template.hasResourceProperties('AWS::Events::EventBusPolicy', {
        EventBusName: { Ref: ids.bus },
        StatementId: 'lineup-partner',
        Statement: {
          Sid: 'lineup-partner',
          Effect: 'Allow',
          Principal: { AWS: [...FLEET.clusters[3].forwarderRoleArns] },
          Action: 'events:PutEvents',
          Resource: getAtt(ids.bus),
          Condition: { StringEquals: { 'events:source': eventSource('partner') } },
        },
      });
    });

    it('lets outside forwarder roles touch only their own bookmarks through the table policy', () => {
      const table = onlyResource(template, 'AWS::DynamoDB::Table', 'Table').Properties;
      assert.deepEqual((table['ResourcePolicy'] as { PolicyDocument: { Statement: unknown[] } }).PolicyDocument.Statement, [
        {
          Action: TableActions.forwarderBookmarkRead[0],
          Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [forwarderPk('partner')] } },
          Effect: 'Allow',
          Principal: { AWS: FLEET.clusters[3].forwarderRoleArns[0] },
          Resource: '*',
        },
        {
          Action: TableActions.forwarderBookmarkWrite[0],
          Condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [forwarderPk('partner')], 'dynamodb:Attributes': [...BOOKMARK_ATTRIBUTES] } },
          Effect: 'Allow',
          Principal: { AWS: FLEET.clusters[3].forwarderRoleArns[0] },
          Resource: '*',
        },
      ]);
    });

    it('maps the reconciler role to its Kubernetes group in every managed cluster, with no access policy', () => {
      const entries = Object.values(resourcesOf(template, 'AWS::EKS::AccessEntry')).map((entry) => entry.Properties);
      const reconcilerEntries = entries.filter((entry) => JSON.stringify(entry['PrincipalArn']) === JSON.stringify(getAtt(ids.reconcilerRole)));
      assert.deepEqual(reconcilerEntries.map((entry) => entry['ClusterName']).sort(), ['edge-1', 'prod-a', 'prod-b-eks']);
      for (const entry of entries) {
        assert.equal(entry['AccessPolicies'], undefined, 'no EKS access policy: RBAC alone decides');
        assert.equal(entry['Type'], 'STANDARD');
      }
      for (const entry of reconcilerEntries) assert.deepEqual(entry['KubernetesGroups'], [KubeGroup.reconciler]);
    });

    it('maps the Lambda forwarder role to the forwarder group', () => {
      const forwarderRole = logicalIdOf(template, 'AWS::IAM::Role', 'Clusteredge1ForwarderRole');
      template.hasResourceProperties('AWS::EKS::AccessEntry', { ClusterName: 'edge-1', PrincipalArn: getAtt(forwarderRole), KubernetesGroups: [KubeGroup.forwarder] });
    });

    it('creates no access entry for a cluster with manageAccess false', () => {
      const clusterNames = Object.values(resourcesOf(template, 'AWS::EKS::AccessEntry')).map((entry) => entry.Properties['ClusterName']);
      assert.deepEqual([...new Set(clusterNames)].sort(), ['edge-1', 'prod-a', 'prod-b-eks']);
    });

    it('associates the forwarder ServiceAccount with its role in pod-identity clusters only', () => {
      template.resourceCountIs('AWS::EKS::PodIdentityAssociation', 1);
      template.hasResourceProperties('AWS::EKS::PodIdentityAssociation', {
        ClusterName: 'prod-a',
        Namespace: KubeName.namespace,
        ServiceAccount: KubeName.forwarder,
        RoleArn: getAtt(logicalIdOf(template, 'AWS::IAM::Role', 'ClusterprodaForwarderRole')),
      });
    });

    it('registers every cluster in the table, asking EKS for the endpoint only when none is configured', () => {
      template.resourceCountIs('Custom::LineupClusterRegistration', FLEET.clusters.length);
      template.resourceCountIs('Custom::LineupEksEndpoint', 2);
      const registration = JSON.stringify(onlyResource(template, 'Custom::LineupClusterRegistration', 'ClusterpartnerRegistration').Properties['Create']);
      for (const expected of [clusterPk('partner'), KeyPart.registry, KeyPart.listClusters, 'partner-eks', 'eu-west-1', FLEET.clusters[3].accessRoleArn]) {
        assert.ok(registration.includes(expected), `registry item lacks ${expected}: ${registration}`);
      }
    });

    it('outputs the IRSA role of an irsa cluster under a name derived from its id', () => {
      template.hasOutput('ForwarderRoleArnProdB', { Value: getAtt(logicalIdOf(template, 'AWS::IAM::Role', 'ClusterprodbForwarderRole')) });
    });

    it('fits a fleet of 50 clusters in one stack (CloudFormation allows 500 resources)', () => {
      const clusters = Array.from({ length: 50 }, (_, i) => ({ id: `cluster-${i}`, clusterName: `cluster-${i}` }));
      const { template: big } = synthStack({ clusters });
      const count = Object.keys(big.toJSON()['Resources'] as object).length;
      assert.ok(count < 500, `${count} resources`);
    });
  });

  describe('configuration', () => {
    it('reads and synthesizes the example configuration', () => {
      const config = configFromContext((key) => (key === CONFIG_FILE_CONTEXT_KEY ? fileURLToPath(new URL('../../infra/lineup.config.example.yaml', import.meta.url)) : undefined));
      assert.deepEqual(config.clusters.map((cluster) => [cluster.id, cluster.forwarder]), [
        ['prod-eu-1', 'pod-identity'],
        ['batch-small', 'lambda'],
        ['research', 'irsa'],
      ]);
      const { template: example } = synthStack(config);
      example.resourceCountIs('Custom::LineupClusterRegistration', 3);
    });

    it('reads inline configuration as an object or as the JSON text `cdk -c` passes', () => {
      const inline = { clusters: [{ id: 'a', clusterName: 'a' }] };
      for (const value of [inline, JSON.stringify(inline)]) {
        assert.equal(configFromContext((key) => (key === CONFIG_CONTEXT_KEY ? value : undefined)).clusters[0]?.id, 'a');
      }
      assert.deepEqual(configFromContext(() => undefined).clusters, []);
    });

    const cases: { name: string; config: unknown; message: RegExp }[] = [
      { name: 'a duplicate cluster id', config: { clusters: [{ id: 'a', clusterName: 'a' }, { id: 'a', clusterName: 'b' }] }, message: /duplicate cluster id "a", already used by clusters\[0\]/ },
      { name: 'a cluster id that is not a DNS label', config: { clusters: [{ id: 'Prod_A', clusterName: 'a' }] }, message: /cluster id must be a DNS label/ },
      { name: 'irsa without an OIDC provider', config: { clusters: [{ id: 'a', clusterName: 'a', forwarder: 'irsa' }] }, message: /forwarder irsa needs oidcProviderArn/ },
      { name: 'an endpoint without its CA', config: { clusters: [{ id: 'a', clusterName: 'a', endpoint: 'https://x.example.com' }] }, message: /endpoint and caData go together/ },
      { name: 'pod-identity without manageAccess', config: { clusters: [{ id: 'a', clusterName: 'a', manageAccess: false }] }, message: /forwarder pod-identity needs manageAccess/ },
      { name: 'a concurrency cap below Lambda minimum', config: { reconcilerMaxConcurrency: 1 }, message: /reconcilerMaxConcurrency/ },
      {
        name: 'a reserved concurrency below the event source cap',
        config: { reconcilerMaxConcurrency: 20, reconcilerReservedConcurrency: 10 },
        message: /reconcilerReservedConcurrency: reconcilerReservedConcurrency must be at least reconcilerMaxConcurrency \(20\), got 10/,
      },
      { name: 'a reserved concurrency of 0 (a function that never runs)', config: { reconcilerReservedConcurrency: 0 }, message: /reconcilerReservedConcurrency/ },
      { name: 'a JobSet bound of 0 Jobs', config: { maxJobsPerJobSet: 0 }, message: /maxJobsPerJobSet/ },
      {
        name: 'a cluster share above the event source cap',
        config: { reconcilerMaxConcurrency: 20, reconcilerSlotsPerCluster: 21 },
        message: /reconcilerSlotsPerCluster: reconcilerSlotsPerCluster must be at most reconcilerMaxConcurrency \(20\), got 21/,
      },
      { name: 'a cluster share of 0', config: { reconcilerSlotsPerCluster: 0 }, message: /reconcilerSlotsPerCluster/ },
      { name: 'an unknown field', config: { cluster: [] }, message: /Unrecognized key/ },
    ];
    for (const tc of cases) {
      it(`refuses ${tc.name}`, () => {
        assert.throws(() => parseConfig(tc.config, 'test'), (error: unknown) => error instanceof ConfigError && tc.message.test(error.message));
      });
    }
  });
});
