/**
 * LineupStack: the whole serverless controller in one stack (docs/deploy.md):
 *
 *   forwarders ──PutEvents──▶ Bus (+ Archive) ──ReconcilerRule──▶ Queue ──▶ Reconciler λ ──▶ clusters
 *   Schedules ──▶ Resync λ ──PutEvents (JobSet Sync)──▶ Bus          Table: checkpoints, registry
 *
 * plus one LineupCluster per configured cluster and the alarms and dashboard. Environment-
 * agnostic (no account or region at synth time, no lookups), so it synthesizes offline.
 * Construct IDs are the contract with deployed stacks: renaming one replaces its resource.
 */
import { CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import * as lambdaEvents from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { EnvVar } from '../lib/hosts/lambdaConfig.ts';
import { LIST_INDEX, RESYNC_INDEX } from '../lib/store/table.ts';
import { ForwarderMode } from './config.ts';
import type { LineupConfig } from './config.ts';
import { CheckpointTable } from './constructs/checkpointTable.ts';
import { RegistryWriter } from './constructs/clusterRegistry.ts';
import { LineupBus } from './constructs/lineupBus.ts';
import { LineupCluster, outputSuffix } from './constructs/lineupCluster.ts';
import { LineupFunction } from './constructs/lineupFunction.ts';
import { LineupMonitoring } from './constructs/lineupMonitoring.ts';
import { PrivateNetwork } from './constructs/privateNetwork.ts';
import type { InterfaceEndpointId } from './constructs/privateNetwork.ts';
import { ReconcileQueue } from './constructs/reconcileQueue.ts';
import { ResyncSchedules } from './constructs/resyncSchedules.ts';
import { FunctionSizing, RECONCILER_BATCH_SIZE } from './sizing.ts';
import { anyClusterPutEventsStatement, reconcilerTableStatement, resyncTableStatements, tokenSecretStatement } from './permissions.ts';
import type * as lambda from 'aws-cdk-lib/aws-lambda';

/** RECONCILER_TIMEOUT: FunctionSizing.reconciler's timeout (the queue's visibility timeout derives from it). */
export const RECONCILER_TIMEOUT = Duration.millis(FunctionSizing.reconciler.timeoutMs);

/**
 * unalarmedEnvironment: the resync's LINEUP_UNALARMED_CLUSTERS — the clusters configured with
 * `heartbeatAlarm: false` (no Lineup forwarder watches them), which the resync still polls but
 * leaves out of the UnwatchedClusters alarm; nothing when every cluster is alarmed on.
 */
export const unalarmedEnvironment = (clusters: readonly { readonly id: string; readonly heartbeatAlarm: boolean }[]): Record<string, string> => {
  const ids = clusters.filter((cluster) => !cluster.heartbeatAlarm).map((cluster) => cluster.id);
  return ids.length === 0 ? {} : { [EnvVar.UnalarmedClusters]: ids.join(',') };
};

/** LineupStackProps: the validated configuration (infra/config.ts) and the usual stack props. */
export interface LineupStackProps extends StackProps {
  readonly config: LineupConfig;
}

/**
 * LineupStack: see the file comment. Children: `Table`, `Queue`, `Bus`, `Reconciler`, `Resync`,
 * `Schedules`, `RegistryWriter`, `Cluster-<id>` per cluster, `Network` (with `vpc`), `Monitoring`.
 */
export class LineupStack extends Stack {
  readonly table: CheckpointTable;
  readonly queue: ReconcileQueue;
  readonly bus: LineupBus;
  readonly reconciler: LineupFunction;
  readonly resync: LineupFunction;
  readonly schedules: ResyncSchedules;
  readonly clusters: ReadonlyMap<string, LineupCluster>;
  readonly monitoring: LineupMonitoring;
  /** The reconciler's and resync's VPC placement and endpoints (config `vpc`). */
  readonly network: PrivateNetwork | undefined;

  constructor(scope: Construct, id: string, props: LineupStackProps) {
    super(scope, id, { description: 'Lineup: serverless, event-driven startup sequencing for Kubernetes JobSets', ...props });
    const { config } = props;

    this.table = new CheckpointTable(this, 'Table', { deletionProtection: config.tableDeletionProtection });
    this.queue = new ReconcileQueue(this, 'Queue', { consumerTimeout: RECONCILER_TIMEOUT });
    this.bus = new LineupBus(this, 'Bus', {
      queue: this.queue.queue,
      deliveryDeadLetters: this.queue.deliveryDeadLetters,
      archiveRetention: Duration.days(config.archiveRetentionDays),
    });

    // Every function reads the same variables (lib/hosts/lambdaConfig.ts). Clusters are not in
    // LINEUP_STATIC_CLUSTERS: a fleet's endpoints and CAs outgrow Lambda's 4 KB environment, so
    // they are registry items in the table (constructs/clusterRegistry.ts).
    const environment: Record<string, string> = {
      [EnvVar.TableName]: this.table.table.tableName,
      [EnvVar.EventBusName]: this.bus.bus.eventBusName,
      [EnvVar.ControllerName]: config.controllerName,
      [EnvVar.ClaimUnmanaged]: String(config.claimUnmanaged),
    };

    this.reconciler = new LineupFunction(this, 'Reconciler', {
      entry: 'reconciler.ts',
      description: 'Lineup reconciler: SQS batches of JobSet change hints to lease, observe, plan, act',
      memorySize: FunctionSizing.reconciler.memoryMb,
      timeout: RECONCILER_TIMEOUT,
      environment: {
        ...environment,
        [EnvVar.ApplyReplays]: String(config.applyReplays),
        [EnvVar.MaxJobsPerJobSet]: String(config.maxJobsPerJobSet),
        [EnvVar.MaxPodsPerJobSet]: String(config.maxPodsPerJobSet),
        [EnvVar.JournalKeepEnv]: String(config.journalKeepEnv),
        ...(config.reconcilerSlotsPerCluster === false
          ? {}
          : { [EnvVar.SlotsPerCluster]: String(config.reconcilerSlotsPerCluster), [EnvVar.ReconcilerQueueUrl]: this.queue.queue.queueUrl }),
      },
      logRetentionDays: config.logRetentionDays,
      sourceMaps: config.sourceMaps,
      // Its own share of the account's concurrency, at least the event source's cap (infra/config.ts).
      reservedConcurrentExecutions: config.reconcilerReservedConcurrency === false ? undefined : config.reconcilerReservedConcurrency,
    });
    this.reconciler.role.addToPrincipalPolicy(reconcilerTableStatement(this.table.table.tableArn));
    // The fair share puts records of a cluster over its share back on the queue (lib/reconcile/fairShare.ts).
    if (config.reconcilerSlotsPerCluster !== false) this.queue.queue.grantSendMessages(this.reconciler.role);
    this.reconciler.function.addEventSource(
      new lambdaEvents.SqsEventSource(this.queue.queue, {
        batchSize: RECONCILER_BATCH_SIZE,
        maxBatchingWindow: Duration.seconds(config.batchingWindowSeconds),
        reportBatchItemFailures: true,
        // The concurrency cap: protects the clusters' API servers and the table from a burst.
        maxConcurrency: config.reconcilerMaxConcurrency,
      }),
    );

    this.resync = new LineupFunction(this, 'Resync', {
      entry: 'resync.ts',
      description: 'Lineup resync: re-queue JobSets the event flow left behind',
      memorySize: FunctionSizing.resync.memoryMb,
      timeout: Duration.millis(FunctionSizing.resync.timeoutMs),
      environment: {
        ...environment,
        [EnvVar.HeartbeatMissingMs]: String(config.heartbeatMissingMinutes * 60_000),
        ...unalarmedEnvironment(config.clusters),
      },
      logRetentionDays: config.logRetentionDays,
      sourceMaps: config.sourceMaps,
    });
    for (const statement of resyncTableStatements(this.table.table.tableArn, [this.table.indexArn(LIST_INDEX.name), this.table.indexArn(RESYNC_INDEX.name)])) {
      this.resync.role.addToPrincipalPolicy(statement);
    }
    this.resync.role.addToPrincipalPolicy(anyClusterPutEventsStatement(this.bus.bus.eventBusArn));
    this.schedules = new ResyncSchedules(this, 'Schedules', {
      resync: this.resync.function,
      every: Duration.minutes(config.resyncMinutes),
      fullEvery: Duration.hours(config.fullResyncHours),
    });

    const registryWriter = new RegistryWriter(this, 'RegistryWriter', { tableArn: this.table.table.tableArn, logRetentionDays: config.logRetentionDays });
    const outputNames = new Map<string, string>();
    const clusters = new Map<string, LineupCluster>();
    for (const cluster of config.clusters) {
      if (cluster.forwarder === ForwarderMode.Irsa) {
        // IRSA clusters get an output named after their id (LineupCluster); two ids must not collide.
        const suffix = outputSuffix(cluster.id);
        const clash = outputNames.get(suffix);
        if (clash !== undefined) throw new Error(`cluster ids ${clash} and ${cluster.id} both give the output name suffix ${suffix}, expected ids that differ in more than dashes and case`);
        outputNames.set(suffix, cluster.id);
      }
      clusters.set(
        cluster.id,
        new LineupCluster(this, `Cluster-${cluster.id}`, {
          cluster,
          bus: this.bus.bus,
          table: this.table.table,
          reconcilerRole: this.reconciler.role,
          registryWriter,
          environment,
          logRetentionDays: config.logRetentionDays,
          sourceMaps: config.sourceMaps,
        }),
      );
    }
    this.clusters = clusters;
    const tokenSecrets = config.clusters.flatMap((cluster) => (cluster.tokenSecretArn === undefined ? [] : [cluster.tokenSecretArn]));
    if (tokenSecrets.length > 0) this.reconciler.role.addToPrincipalPolicy(tokenSecretStatement(tokenSecrets));

    if (config.vpc) {
      const interfaceEndpoints: InterfaceEndpointId[] = [
        'EventsEndpoint',
        ...(config.clusters.some((cluster) => cluster.accessRoleArn !== undefined) ? (['StsEndpoint'] as const) : []),
        ...(tokenSecrets.length > 0 ? (['SecretsManagerEndpoint'] as const) : []),
      ];
      this.network = new PrivateNetwork(this, 'Network', { vpc: config.vpc, functions: { Reconciler: this.reconciler, Resync: this.resync }, interfaceEndpoints });
    }

    const forwarders = new Map<string, lambda.IFunction>();
    for (const [clusterId, cluster] of clusters) if (cluster.forwarderFunction) forwarders.set(clusterId, cluster.forwarderFunction.function);
    this.monitoring = new LineupMonitoring(this, 'Monitoring', {
      bus: this.bus.bus,
      rule: this.bus.rule,
      queue: this.queue.queue,
      deadLetters: this.queue.deadLetters,
      deliveryDeadLetters: this.queue.deliveryDeadLetters,
      reconciler: this.reconciler.function,
      resync: this.resync.function,
      resyncLogGroup: this.resync.logGroup,
      forwarders,
      heartbeatMissing: Duration.minutes(config.heartbeatMissingMinutes),
      oldestMessageAlarm: Duration.seconds(config.oldestMessageAlarmSeconds),
      alarmTopicArn: config.alarmTopicArn,
    });

    new CfnOutput(this, 'EventBusName', { value: this.bus.bus.eventBusName, description: 'Lineup event bus (forwarders put here)' });
    new CfnOutput(this, 'EventBusArn', { value: this.bus.bus.eventBusArn, description: 'Lineup event bus ARN: LINEUP_EVENT_BUS_NAME of the in-cluster forwarder' });
    new CfnOutput(this, 'ArchiveArn', { value: this.bus.archive.archiveArn, description: 'Lineup event archive: the --event-source-arn of a replay' });
    new CfnOutput(this, 'ReconcilerRuleArn', { value: this.bus.rule.ruleArn, description: 'Lineup rule: the FilterArns of a replay destination' });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName, description: 'Lineup checkpoint table: LINEUP_TABLE_NAME' });
    new CfnOutput(this, 'TableArn', { value: this.table.table.tableArn, description: 'Lineup checkpoint table ARN: LINEUP_TABLE_NAME of a forwarder in another account' });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName, description: 'Lineup CloudWatch dashboard' });
    new CfnOutput(this, 'QueueUrl', { value: this.queue.queue.queueUrl, description: 'Lineup reconcile queue' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.queue.deadLetters.queueUrl, description: 'Lineup reconcile dead letters' });
    new CfnOutput(this, 'ReconcilerRoleArn', { value: this.reconciler.role.roleArn, description: 'Lineup reconciler role: the principal of each cluster access entry' });
  }
}
