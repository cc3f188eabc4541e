/**
 * The cost model: what Lineup costs a month, and per 1,000 JobSet startups, at AWS list prices,
 * from the operation counts the pipeline reports (infra/cost/measure.ts writes them), beside the
 * cost of running the upstream JobSet controller as a pod in every cluster of the fleet.
 *
 * Prices: us-east-1 list prices as published in 2025 (the DynamoDB on-demand figures are those of
 * the November 2024 price cut). Free tiers are ignored: a fleet's account uses them elsewhere.
 * Every assumption that is not a count is a named constant below with its reason.
 */
import * as z from 'zod';
import { alarmCount } from '../alarms.ts';
import { DEFAULT_FULL_RESYNC_HOURS, DEFAULT_RESYNC_MINUTES } from '../config.ts';
import { FORWARDER_RESOURCES } from '../k8s/names.ts';
import { FORWARDER_SESSION_RATE_MS, FunctionSizing } from '../sizing.ts';
import { CounterName } from '../../lib/counters.ts';
import { HEARTBEAT_INTERVAL_MS } from '../../lib/forwarder/heartbeat.ts';
import { FleetMetric } from '../../lib/fleet/metrics.ts';
import { FINISHED_RECHECK_MS } from '../../lib/reconcile/resync.ts';
import { RESYNC_SHARD_COUNT } from '../../lib/store/table.ts';

/** Price: list prices in USD, us-east-1, 2025. */
export const Price = {
  /** EventBridge custom events, per million (each 64 KB chunk is one event). */
  eventBridgeEventsPerMillion: 1.0,
  /** EventBridge archive: events processed into an archive, per GB. */
  archiveProcessedPerGb: 0.1,
  /** EventBridge archive storage, per GB-month. */
  archiveStoragePerGbMonth: 0.023,
  /** SQS standard queue requests, per million (each 64 KB chunk is one request). */
  sqsRequestsPerMillion: 0.4,
  /** Lambda arm64 duration, per GB-second. */
  lambdaArmGbSecond: 0.0000133334,
  /** Lambda requests, per million. */
  lambdaRequestsPerMillion: 0.2,
  /** DynamoDB on-demand write request units, per million (since the November 2024 price cut). */
  dynamoWriteUnitsPerMillion: 0.625,
  /** DynamoDB on-demand read request units, per million (since the November 2024 price cut). */
  dynamoReadUnitsPerMillion: 0.125,
  /** DynamoDB standard table storage, per GB-month. */
  dynamoStoragePerGbMonth: 0.25,
  /** DynamoDB continuous backups (point-in-time recovery), per GB-month. */
  dynamoPitrPerGbMonth: 0.2,
  /** EventBridge Scheduler invocations, per million (after the 14 million a month free tier). */
  schedulerPerMillion: 1.0,
  /** CloudWatch standard-resolution metric alarm, per month. */
  alarmPerMonth: 0.1,
  /** CloudWatch dashboard, per month (beyond the 3 free ones). */
  dashboardPerMonth: 3.0,
  /** CloudWatch custom metric (first 10,000), per month. */
  customMetricPerMonth: 0.3,
  /** CloudWatch Logs ingestion (standard class), per GB. */
  logsIngestedPerGb: 0.5,
  /** Fargate Linux/arm64, per vCPU-hour. */
  fargateArmVcpuHour: 0.03238,
  /** Fargate Linux/arm64, per GB-hour. */
  fargateArmGbHour: 0.00356,
} as const;

/** HOURS_PER_MONTH: AWS's billing month. */
export const HOURS_PER_MONTH = 730;
/** DAYS_PER_MONTH: HOURS_PER_MONTH in days. */
export const DAYS_PER_MONTH = HOURS_PER_MONTH / 24;
const GB = 1024 ** 3;

/** Assumption: what the counts do not say, each with its reason. */
export const Assumption = {
  /** Bytes of one archived event (a slim Lineup event with EventBridge's envelope). */
  archivedEventBytes: 1_000,
  /** SQS requests per message: EventBridge's SendMessage, the event source's ReceiveMessage and DeleteMessage, unbatched (an upper bound: the event source receives and deletes up to RECONCILER_BATCH_SIZE at a time). */
  sqsRequestsPerMessage: 3,
  /** Long-polling ReceiveMessage requests the Lambda event source keeps open on an idle queue, and how long each waits. */
  sqsIdlePollers: 5,
  sqsLongPollSeconds: 20,
  /** Reconciler invocations per handled event: 1, i.e. no batching (an upper bound; the counts do not see SQS batches). */
  invocationsPerEvent: 1,
  /** Reconciler time per invocation besides its requests: parsing, logging, metrics. */
  invocationOverheadMs: 15,
  /** Time of one DynamoDB request from Lambda in the same region. */
  dynamoRequestMs: 8,
  /** Time of one Kubernetes API request from Lambda to an EKS endpoint in the same region. */
  kubeRequestMs: 25,
  /** Time of one resync tick: RESYNC_SHARD_COUNT Queries in parallel and a BatchGetItem of the few candidates. */
  resyncTickMs: 150,
  /** Write units the `resync` index adds to an UpdateItem that succeeds: noteEvent and a lease take move resyncAt (delete + put in the index, 2), a release removes it (1). */
  resyncIndexWritesPerUpdate: 1.5,
  /** Read units of a Query that finds nothing on the eventually consistent `resync` index. */
  emptyQueryReadUnits: 0.5,
  /** CloudWatch Logs bytes per invocation: Powertools' lines plus Lambda's START/END/REPORT records. */
  logBytesPerInvocation: 1_200,
  /**
   * Custom metrics the functions publish (Powertools, namespace Lineup, dimension `service` only,
   * so shared by every cluster): about 13 reconciler counters (the 11 the measured story-2 pipeline
   * moves, plus deferred events and put-back records under load) and 5 of the resync (its Queries,
   * BatchGetItems, events put and put calls, finished JobSets skipped). The fleet's own metrics
   * (lib/fleet/metrics.ts) are counted apart.
   */
  reconcilerMetrics: 13,
  resyncMetrics: 5,
  /** Counters a Lambda watch session moves (watch events, dropped, coalesced, checkpoints, heartbeats, events put and put calls, Kubernetes lists and watches, its DynamoDB requests): published only with Lambda forwarders. */
  lambdaForwarderMetrics: 10,
  /** Read units of one registered cluster in each resync run: its registry entry (strongly consistent BatchGetItem) and its bookmarks (a strongly consistent Query of two small items), 1 each. */
  resyncReadsPerCluster: 2,
  /**
   * Days a JobSet stays known to the full resync: it re-queues every JobSet whose state item
   * exists, and the item is forgotten on the first pass after the JobSet is deleted
   * (lib/reconcile/reconcileJobSet.ts forgetJobSet). Assumes finished JobSets are deleted
   * (by hand or ttlSecondsAfterFinished) within 30 days.
   */
  knownJobSetDays: 30,
  /**
   * Days a JobSet is known and not yet finished (starting, running): every full resync in that
   * time re-queues it; afterwards only a recheck every FINISHED_RECHECK_MS does
   * (lib/reconcile/resync.ts). One day: story 2 finishes in seconds, a training run in hours to days.
   */
  unfinishedJobSetDays: 1,
  /** One full-resync pass over a JobSet: one event, a get, noteEvent (with the lease), release (a gone one: the get finds nothing). */
  syncPass: { events: 1, kubeRequests: 1, dynamoUpdates: 3 },
  /** Read units of one state item in the full resync's listing: a strongly consistent BatchGetItem of an item under 4 KB. */
  stateItemReadUnits: 1,
  /** Journal items are kept 14 days (their TTL, DEFAULT_JOURNAL_RETENTION_MS), so storage holds that many days of them. */
  journalRetentionDays: 14,
} as const;

/** UPSTREAM_POD: what the upstream controller's Deployment reserves per cluster (upstream config/components/manager: requests 500m CPU, 128 Mi). */
export const UPSTREAM_POD = { cpuMillis: 500, memoryMiB: 128 } as const;

/** Range: a measured figure, mean of several runs with their extremes. */
export const RangeSchema = z.object({ mean: z.number(), min: z.number(), max: z.number() });
export type Range = z.infer<typeof RangeSchema>;

/** CountsFileSchema: what infra/cost/measure.ts writes (infra/cost/story2-counts.json). */
export const CountsFileSchema = z.object({
  description: z.string(),
  producedBy: z.string(),
  producedAt: z.string(),
  source: z.string(),
  startupsPerRun: z.number().int().positive(),
  /** Counters per startup (lib/counters.ts names). */
  counters: z.record(z.string(), RangeSchema),
  /** Per startup: requests, table capacity units (dynalite's accounting) and item bytes written, by operation. */
  dynamoCapacity: z.record(z.string(), z.object({ requests: RangeSchema, capacityUnits: RangeSchema, itemBytes: RangeSchema })),
});
export type CountsFile = z.infer<typeof CountsFileSchema>;

/** StartupWork: what one JobSet startup costs the pipeline, in billable units. */
export interface StartupWork {
  readonly events: number;
  readonly reconcilerInvocations: number;
  readonly kubeRequests: number;
  readonly dynamoRequests: number;
  readonly dynamoWriteUnits: number;
  readonly dynamoReadUnits: number;
  /** Bytes written to the table that stay until their TTL (the journal). */
  readonly storedBytes: number;
}

/** startupWork: a counts file as billable units per startup (means). */
export const startupWork = (counts: CountsFile): StartupWork => {
  const counter = (name: string): number => counts.counters[name]?.mean ?? 0;
  const sumPrefix = (prefix: string, except: readonly string[] = []): number =>
    Object.entries(counts.counters)
      .filter(([name]) => name.startsWith(prefix) && !except.includes(name))
      .reduce((sum, [, range]) => sum + range.mean, 0);
  const requests = (operation: string): number => counter(`${CounterName.DynamoPrefix}${operation}`);
  // Table units as dynalite measured them (item sizes rounded as DynamoDB rounds), else one per request.
  const units = (operation: string): number => counts.dynamoCapacity[operation]?.capacityUnits.mean ?? requests(operation);
  // Index writes come only from updates that succeed: each deferred event is one lease take whose condition failed.
  const updatesApplied = Math.max(0, requests('UpdateItem') - counter(CounterName.Deferred));
  const writeUnits = units('PutItem') + units('UpdateItem') + updatesApplied * Assumption.resyncIndexWritesPerUpdate + requests('DeleteItem');
  const readUnits = units('GetItem') + units('BatchGetItem') + requests('Query') * Assumption.emptyQueryReadUnits;
  const events = counter(CounterName.EventsPut);
  return {
    events,
    reconcilerInvocations: counter(CounterName.Invocations) * Assumption.invocationsPerEvent,
    kubeRequests: sumPrefix(CounterName.KubePrefix, [CounterName.KubeRetries]),
    dynamoRequests: sumPrefix(CounterName.DynamoPrefix),
    dynamoWriteUnits: writeUnits,
    dynamoReadUnits: readUnits,
    storedBytes: counts.dynamoCapacity['PutItem']?.itemBytes.mean ?? 0,
  };
};

/** ForwarderHost: where each cluster's forwarder runs (infra/config.ts ForwarderMode, priced). */
export type ForwarderHost = 'pod' | 'lambda';

/** Fleet: the deployment being priced. */
export interface Fleet {
  readonly clusters: number;
  readonly startupsPerDay: number;
  /** @default 'pod' */
  readonly forwarder?: ForwarderHost | undefined;
  /** @default DEFAULT_RESYNC_MINUTES */
  readonly resyncMinutes?: number | undefined;
  /** @default DEFAULT_FULL_RESYNC_HOURS */
  readonly fullResyncHours?: number | undefined;
}

/** CostLine: one priced item. `kind`: 'startup' grows in proportion to startups, 'fixed' does not grow with them. */
export interface CostLine {
  readonly item: string;
  readonly kind: 'startup' | 'fixed';
  readonly monthly: number;
}

/** CostReport: Lineup's lines and totals beside the upstream controller's. */
export interface CostReport {
  readonly fleet: Required<Fleet>;
  readonly startupsPerMonth: number;
  readonly work: StartupWork;
  readonly lineup: readonly CostLine[];
  readonly lineupMonthly: number;
  readonly lineupPer1000Startups: number;
  readonly upstreamMonthly: number;
  readonly upstreamPer1000Startups: number;
}

/** lambdaCost: requests plus duration of `invocations` invocations of `ms` each at `memoryMb`. */
export const lambdaCost = (invocations: number, ms: number, memoryMb: number): number =>
  (invocations * Price.lambdaRequestsPerMillion) / 1e6 + invocations * (ms / 1000) * (memoryMb / 1024) * Price.lambdaArmGbSecond;

/** podMonthly: a pod's reserved CPU and memory for a month at Fargate arm64 unit rates. */
export const podMonthly = (cpuMillis: number, memoryMiB: number): number =>
  HOURS_PER_MONTH * ((cpuMillis / 1000) * Price.fargateArmVcpuHour + (memoryMiB / 1024) * Price.fargateArmGbHour);

/** reconcilerMs: the reconciler time `work` takes (overhead per invocation plus its requests). */
export const reconcilerMs = (invocations: number, dynamoRequests: number, kubeRequests: number): number =>
  invocations * Assumption.invocationOverheadMs + dynamoRequests * Assumption.dynamoRequestMs + kubeRequests * Assumption.kubeRequestMs;

/**
 * startupLines: the cost of `startups` JobSet startups, by service — linear in `startups` by
 * construction (test/infra/costModel.test.ts checks it).
 */
export const startupLines = (work: StartupWork, startups: number): CostLine[] => {
  const events = work.events * startups;
  const invocations = work.reconcilerInvocations * startups;
  const ms = reconcilerMs(work.reconcilerInvocations, work.dynamoRequests, work.kubeRequests) * startups;
  return [
    {
      item: 'EventBridge events + archive',
      kind: 'startup',
      monthly: (events * Price.eventBridgeEventsPerMillion) / 1e6 + ((events * Assumption.archivedEventBytes) / GB) * Price.archiveProcessedPerGb,
    },
    { item: 'SQS requests', kind: 'startup', monthly: (events * Assumption.sqsRequestsPerMessage * Price.sqsRequestsPerMillion) / 1e6 },
    {
      item: 'Lambda reconciler (requests + GB-s)',
      kind: 'startup',
      monthly: (invocations * Price.lambdaRequestsPerMillion) / 1e6 + (ms / 1000) * (FunctionSizing.reconciler.memoryMb / 1024) * Price.lambdaArmGbSecond,
    },
    {
      item: 'DynamoDB requests (WRU + RRU)',
      kind: 'startup',
      monthly: (work.dynamoWriteUnits * startups * Price.dynamoWriteUnitsPerMillion + work.dynamoReadUnits * startups * Price.dynamoReadUnitsPerMillion) / 1e6,
    },
    { item: 'CloudWatch Logs ingestion', kind: 'startup', monthly: ((invocations * Assumption.logBytesPerInvocation) / GB) * Price.logsIngestedPerGb },
  ];
};

/** costReport: the whole comparison for a fleet. */
export const costReport = (fleetInput: Fleet, work: StartupWork): CostReport => {
  const fleet: Required<Fleet> = {
    clusters: fleetInput.clusters,
    startupsPerDay: fleetInput.startupsPerDay,
    forwarder: fleetInput.forwarder ?? 'pod',
    resyncMinutes: fleetInput.resyncMinutes ?? DEFAULT_RESYNC_MINUTES,
    fullResyncHours: fleetInput.fullResyncHours ?? DEFAULT_FULL_RESYNC_HOURS,
  };
  const startupsPerMonth = fleet.startupsPerDay * DAYS_PER_MONTH;
  const resyncTicks = (HOURS_PER_MONTH * 60) / fleet.resyncMinutes;
  const heartbeats = (fleet.clusters * HOURS_PER_MONTH * 3_600_000) / HEARTBEAT_INTERVAL_MS;
  const fullResyncs = HOURS_PER_MONTH / fleet.fullResyncHours;
  // The full resync re-queues a JobSet on each run while it is unfinished, then once per
  // FINISHED_RECHECK_MS until it is deleted; it reads every known state item on each run.
  const recheckDays = FINISHED_RECHECK_MS / (24 * 3600 * 1000);
  const syncPasses = startupsPerMonth * (Assumption.unfinishedJobSetDays * (24 / fleet.fullResyncHours) + Assumption.knownJobSetDays / recheckDays);
  const stateItemsRead = fullResyncs * fleet.startupsPerDay * Assumption.knownJobSetDays;
  const sync = Assumption.syncPass;
  const lambdaForwarders = fleet.forwarder === 'lambda' ? fleet.clusters : 0;
  const sessions = lambdaForwarders * ((HOURS_PER_MONTH * 3600 * 1000) / FORWARDER_SESSION_RATE_MS);
  const storedGb = (work.storedBytes * fleet.startupsPerDay * Assumption.journalRetentionDays) / GB;
  const sqsIdleRequests = Assumption.sqsIdlePollers * ((HOURS_PER_MONTH * 3600) / Assumption.sqsLongPollSeconds);
  const alarms = alarmCount(lambdaForwarders);
  const fleetMetrics = Object.values(FleetMetric).filter((metric) => metric.service !== FleetMetric.ForwarderSessionErrors.service || lambdaForwarders > 0).length;
  const customMetrics = Assumption.reconcilerMetrics + Assumption.resyncMetrics + fleetMetrics + (lambdaForwarders > 0 ? Assumption.lambdaForwarderMetrics : 0);

  const fleetLines: CostLine[] = [
    {
      item: `resync every ${fleet.resyncMinutes} min (Scheduler + Lambda + ${RESYNC_SHARD_COUNT} index Queries)`,
      kind: 'fixed',
      monthly:
        (resyncTicks * Price.schedulerPerMillion) / 1e6 +
        lambdaCost(resyncTicks, Assumption.resyncTickMs, FunctionSizing.resync.memoryMb) +
        (resyncTicks * RESYNC_SHARD_COUNT * Assumption.emptyQueryReadUnits * Price.dynamoReadUnitsPerMillion) / 1e6,
    },
    {
      item: `full resync every ${fleet.fullResyncHours} h (finished JobSets every ${recheckDays} days) of ${Assumption.knownJobSetDays} days of JobSets`,
      kind: 'startup',
      monthly:
        (syncPasses * sync.events * (Price.eventBridgeEventsPerMillion + Assumption.sqsRequestsPerMessage * Price.sqsRequestsPerMillion)) / 1e6 +
        lambdaCost(syncPasses, reconcilerMs(1, sync.dynamoUpdates, sync.kubeRequests), FunctionSizing.reconciler.memoryMb) +
        (syncPasses * sync.dynamoUpdates * (1 + Assumption.resyncIndexWritesPerUpdate) * Price.dynamoWriteUnitsPerMillion) / 1e6 +
        (stateItemsRead * Assumption.stateItemReadUnits * Price.dynamoReadUnitsPerMillion) / 1e6,
    },
    { item: 'SQS long polling of the idle event source', kind: 'fixed', monthly: (sqsIdleRequests * Price.sqsRequestsPerMillion) / 1e6 },
    {
      // Nothing here is per cluster: one unwatched-clusters alarm and metric for the fleet
      // (infra/alarms.ts alarmCount), and the forwarder metrics only with Lambda forwarders.
      item: `CloudWatch: ${alarms} alarms, 1 dashboard, ${customMetrics} custom metrics (none per cluster)`,
      kind: 'fixed',
      monthly: alarms * Price.alarmPerMonth + Price.dashboardPerMonth + customMetrics * Price.customMetricPerMonth,
    },
    {
      // A heartbeat is a checkpoint write under the forwarder's own key when none was written for
      // an interval (the worst case: every cluster quiet all month); no event, queue message or
      // reconciler invocation. Each resync run reads every registered cluster's registry entry and bookmarks.
      item: `forwarder heartbeats: ${fleet.clusters} clusters' checkpoints rewritten every ${HEARTBEAT_INTERVAL_MS / 60_000} min when quiet (a DynamoDB write; the resync's reads)`,
      kind: 'fixed',
      monthly:
        (heartbeats * Price.dynamoWriteUnitsPerMillion) / 1e6 +
        (resyncTicks * fleet.clusters * Assumption.resyncReadsPerCluster * Price.dynamoReadUnitsPerMillion) / 1e6,
    },
    {
      item: `DynamoDB storage + PITR of ${Assumption.journalRetentionDays} days of journal entries`,
      kind: 'startup',
      monthly: storedGb * (Price.dynamoStoragePerGbMonth + Price.dynamoPitrPerGbMonth),
    },
    {
      item: 'EventBridge archive storage',
      kind: 'startup',
      monthly: ((work.events * fleet.startupsPerDay * Assumption.journalRetentionDays * Assumption.archivedEventBytes) / GB) * Price.archiveStoragePerGbMonth,
    },
    fleet.forwarder === 'pod'
      ? {
          item: `forwarders: ${fleet.clusters} pods × ${FORWARDER_RESOURCES.requestCpuMillis}m CPU + ${FORWARDER_RESOURCES.requestMemoryMiB} Mi (Fargate arm64 rates)`,
          kind: 'fixed',
          monthly: fleet.clusters * podMonthly(FORWARDER_RESOURCES.requestCpuMillis, FORWARDER_RESOURCES.requestMemoryMiB),
        }
      : {
          item: `forwarders: ${fleet.clusters} Lambda watch sessions around the clock (${FunctionSizing.forwarder.memoryMb} MB)`,
          kind: 'fixed',
          monthly:
            lambdaForwarders * HOURS_PER_MONTH * 3600 * (FunctionSizing.forwarder.memoryMb / 1024) * Price.lambdaArmGbSecond +
            (sessions * (Price.lambdaRequestsPerMillion + Price.schedulerPerMillion)) / 1e6,
        },
  ];
  const lineup = [...startupLines(work, startupsPerMonth), ...fleetLines].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'startup' ? -1 : 1));
  const lineupMonthly = lineup.reduce((sum, line) => sum + line.monthly, 0);
  const upstreamMonthly = fleet.clusters * podMonthly(UPSTREAM_POD.cpuMillis, UPSTREAM_POD.memoryMiB);
  const per1000 = (monthly: number): number => (startupsPerMonth > 0 ? (monthly / startupsPerMonth) * 1000 : Number.POSITIVE_INFINITY);
  return {
    fleet,
    startupsPerMonth,
    work,
    lineup,
    lineupMonthly,
    lineupPer1000Startups: per1000(lineupMonthly),
    upstreamMonthly,
    upstreamPer1000Startups: per1000(upstreamMonthly),
  };
};
