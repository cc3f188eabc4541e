/**
 * Many clusters at once: one reconciler pipeline — one bus with the stack's rule (from the
 * synthesized template), one queue, DEFAULT_RECONCILER_MAX_CONCURRENCY pollers that, like Lambda's
 * SQS event source, receive and delete outside the handler and run the real SQS batch handler at
 * most DEFAULT_RECONCILER_MAX_CONCURRENCY batches at once, one checkpoint table — fed by N
 * forwarders at once, N = 1, 10, 50.
 *
 * What stands in for what, said plainly: the N "clusters" are N namespaces of ONE kube-apiserver
 * (one API server per cluster does not fit on this machine). Each cluster id has its own
 * forwarder (lib/forwarder's Forwarder with a KubeWatchSource scoped to its namespace, all in the
 * bench's process), its own registry entry (the same API server, Lineup's token) and so its own
 * gateway in the reconciler, its own event source `lineup.<id>` and its own bookmarks. moto serves
 * EventBridge and SQS, dynalite DynamoDB. The Jobs run on the real control plane minus kubelet
 * (test/integration/e2e/cluster.ts: kube-controller-manager's Job controller, kube-scheduler, a
 * kwok node), as in bench/pipeline.ts: once Lineup un-suspends a Job, the Job controller creates
 * its pods, kwok makes each Running and Ready READY_AFTER_MS after it is scheduled and Succeeded
 * COMPLETE_AFTER_MS after it runs (the pod annotations of bench/pipeline/story.ts), and the Job
 * controller writes the Jobs' status from them. So the API server, the control plane, moto and
 * dynalite are shared by every cluster, as the bus, queue and table are in a deployment, but the
 * API server and the control plane are too, which a fleet's clusters would not share.
 *
 * Load: every cluster starts JOBSETS_PER_CLUSTER story-2 JobSets at once (N = 50: 100 JobSets, the
 * pipeline benchmark's burst). Figures per N: events put on the bus and records the handler took
 * per second, from the first create until every JobSet's workers run (and the queue is empty);
 * stage latency p50/p99 as bench/pipeline.ts counts stages (created → messagequeue running; its
 * Jobs ready → drivers running; drivers ready → workers running), "running" and "ready" being when
 * the bench's own watch (bench/pipeline/jobWatch.ts) first saw a Job un-suspended and first saw
 * the Job controller count its pods ready.
 *
 *   node bench/manyClusters.ts [--clusters 1,10,50] [--jobsets-per-cluster 2] [--json]
 */
import type { JsonObject } from '../lib/json.ts';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { DEFAULT_RECONCILER_MAX_CONCURRENCY, defaultSlotsPerCluster } from '../infra/config.ts';
import { CounterName, Counters } from '../lib/counters.ts';
import { EventBridgeSink } from '../lib/forwarder/eventBridgeSink.ts';
import { sdkPutEvents } from '../lib/hosts/lambdaAwsClients.ts';
import { sqsPutBack } from '../lib/hosts/lambdaDeps.ts';
import { Forwarder } from '../lib/forwarder/forwarder.ts';
import type { EventSink } from '../lib/forwarder/types.ts';
import type { KubeEndpoint } from '../lib/k8s/endpoint.ts';
import { kubeConfigEndpoint } from '../lib/k8s/kubeConfigFile.ts';
import { resolveClusters } from '../lib/k8s/registry.ts';
import { KubeWatchSource } from '../lib/k8s/watchSource.ts';
import type { Log } from '../lib/log.ts';
import { DEFAULT_PLAN_OPTIONS } from '../lib/plan/planner.ts';
import { InputsMemory } from '../lib/reconcile/inputsMemory.ts';
import { DEFAULT_LEASE_TTL_MS } from '../lib/reconcile/reconcileJobSet.ts';
import { peekCluster } from '../lib/reconcile/fairShare.ts';
import { makeSqsBatchHandler } from '../lib/reconcile/sqsBatch.ts';
import { DynamoClusterSlots } from '../lib/store/dynamoClusterSlots.ts';
import { DynamoCheckpointStore } from '../lib/store/dynamoStore.ts';
import { ensureCheckpointTable } from '../lib/store/embedded.ts';
import type { ClusterRecord } from '../lib/store/types.ts';
import type { ClusterGateway } from '../lib/reconcile/types.ts';
import { cpuBetween, loadAverage, sampleTree } from './manyClusters/cpu.ts';
import type { ProcessCpu } from './manyClusters/cpu.ts';
import { synthesizedRule } from '../test/integration/e2e/pipeline.ts';
import { startDynalite, startMoto } from '../test/integration/harness/index.ts';
import { sqsRecordOf } from '../test/integration/harness/sqsRecord.ts';
import type { DynaliteServer, KubeServer, MotoServer } from '../test/integration/harness/index.ts';
import { startE2eCluster, type E2eCluster } from '../test/integration/e2e/cluster.ts';
import { JobWatch } from './pipeline/jobWatch.ts';
import { BenchKubeClient } from './pipeline/kubeClient.ts';
import { jobKey, jobsOf, manifestFor, stagesOf, story2Manifest } from './pipeline/story.ts';
import type { Stage } from './pipeline/story.ts';

/** CLUSTER_COUNTS: the fleet sizes measured (the issue's 1, 10, 50). */
export const CLUSTER_COUNTS = [1, 10, 50] as const;
/** JOBSETS_PER_CLUSTER: JobSets each cluster starts at once. */
export const JOBSETS_PER_CLUSTER = 2;
/** FORWARDER_BATCH_WINDOW_MS: the deployed forwarder's default window. */
const FORWARDER_BATCH_WINDOW_MS = 25;
/** DONE_TIMEOUT_MS: how long a fleet's JobSets may take to get every worker running. */
const DONE_TIMEOUT_MS = 10 * 60_000;
/** VISIBILITY_TIMEOUT_SECONDS: long, so a slow batch is not redelivered while it runs (as in bench/pipeline.ts). */
const VISIBILITY_TIMEOUT_SECONDS = 30;

/** CallTimings: durations (ms) per call name, for where the time goes. */
export class CallTimings {
  readonly byName = new Map<string, number[]>();
  add(name: string, ms: number): void {
    const list = this.byName.get(name);
    if (list) list.push(ms);
    else this.byName.set(name, [ms]);
  }
  /** summary: per call name, count, p50 and p99 (ms) and the total (s), busiest first. */
  summary(): CallSummary[] {
    return [...this.byName]
      .map(([name, values]) => ({ name, count: values.length, p50Ms: Math.round(percentile(values, 50)), p99Ms: Math.round(percentile(values, 99)), totalS: Math.round(values.reduce((sum, v) => sum + v, 0) / 100) / 10 }))
      .sort((a, b) => b.totalS - a.totalS);
  }
}

/** CallSummary: one call name's timings. */
export interface CallSummary {
  readonly name: string;
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Summed over concurrent calls, so it can exceed the wall time. */
  readonly totalS: number;
}

/** timeCall: `call`, its duration added to `timings` under `name`. */
const timeCall = async <T>(timings: CallTimings, name: string, call: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  try {
    return await call();
  } finally {
    timings.add(name, performance.now() - started);
  }
};

/** sdkCallName: `<service>.<Command>` of an SDK middleware context. */
const sdkCallName = (service: string, context: { commandName?: string }): string => `${service}.${(context.commandName ?? 'unknown').replace(/Command$/, '')}`;
const TIMING_MIDDLEWARE = { step: 'initialize', name: 'benchCallTiming' } as const;

/** timedGateway: `gateway` with its observe and apply timed under `kube.observe` and `kube.<action kind>`. */
const timedGateway = (gateway: ClusterGateway, timings: CallTimings): ClusterGateway => ({
  observe: (...args) => timeCall(timings, 'kube.observe', () => gateway.observe(...args)),
  apply: (...args) => timeCall(timings, `kube.${args[2].kind}`, () => gateway.apply(...args)),
});

/** CALLS_SHOWN: the busiest calls the text output names. */
const CALLS_SHOWN = 10;

/** FleetFigures: one fleet size's figures. */
export interface FleetFigures {
  readonly clusters: number;
  readonly jobSets: number;
  /** From the first create until every worker ran and the queue was empty. */
  readonly seconds: number;
  readonly eventsPut: number;
  readonly eventsPerSecond: number;
  readonly recordsHandled: number;
  readonly recordsPerSecond: number;
  readonly passes: number;
  /** Stage latency, p50 and p99 per stage, in ms. */
  readonly stageP50Ms: readonly number[];
  readonly stageP99Ms: readonly number[];
  /** CPU seconds per process during the run (the bench's own and the servers it started), the busiest first. */
  readonly cpu: readonly ProcessCpu[];
  /** All of them over the records handled, in ms. */
  readonly cpuMsPerRecord: number;
  /** The machine's 1-minute load average at the end (2 cores: above 2, these processes waited for a core). */
  readonly loadAverage: number;
  /** Per call (moto, dynalite, kube via the gateway) and per hop (queue wait, batch), p50/p99, busiest first. */
  readonly calls: readonly CallSummary[];
  readonly problems: readonly string[];
}

/** ManyClustersFigures: every fleet size. */
export interface ManyClustersFigures {
  readonly jobSetsPerCluster: number;
  readonly pollers: number;
  readonly fleets: readonly FleetFigures[];
  readonly wallMs: number;
}

const progress = (message: string): void => {
  process.stderr.write(`bench many clusters: ${message}\n`);
};

/** percentile: the nearest-rank percentile of `values` (0 when empty). */
export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
};

/** CountingSink: an EventSink that counts what went on the bus. */
class CountingSink implements EventSink {
  put: EventSink['put'];
  count = 0;
  constructor(inner: EventSink) {
    this.put = async (entries) => {
      const result = await inner.put(entries);
      this.count += entries.length - result.failed.length;
      return result;
    };
  }
}

/** Fleet: the pipeline of one fleet size, and how to stop it. */
export interface Fleet {
  readonly sinks: CountingSink[];
  readonly counters: Counters;
  records: number;
  /** Records handled (not put back), per cluster id (records naming no cluster under their own). */
  readonly recordsByCluster: Map<string, number>;
  /** Records put back by the fair share, per cluster id. */
  readonly putBackByCluster: Map<string, number>;
  readonly queueUrl: string;
  readonly sqs: SQSClient;
  /** Error logs of the forwarders and the handler, failed receives and batches. */
  readonly problems: string[];
  readonly timings: CallTimings;
  stop(): Promise<void>;
}

/** lineupEndpoint: Lineup's user on `kube`, its requests on one keep-alive pool as the deployed forwarder's (lib/k8s/endpoint.ts). */
const lineupEndpoint = (kube: KubeServer): KubeEndpoint => kubeConfigEndpoint(kube.kubeConfig('lineup'));

/** FleetOptions: what a fleet changes from the deployed defaults. */
export interface FleetOptions {
  /**
   * How many of the reconciler's invocations one cluster may hold (lib/reconcile/fairShare.ts);
   * false: no share.
   * @default defaultSlotsPerCluster(DEFAULT_RECONCILER_MAX_CONCURRENCY), as the stack deploys it
   */
  readonly slotsPerCluster?: number | false;
  /** Milliseconds every gateway call of a cluster waits before it is made (a slow API server), by cluster id. */
  readonly apiLatencyMs?: ReadonlyMap<string, number>;
}

/** slowGateway: `gateway` with every call made `latencyMs` late. */
const slowGateway = (gateway: ClusterGateway, latencyMs: number): ClusterGateway => ({
  observe: async (...args) => {
    await sleep(latencyMs);
    return gateway.observe(...args);
  },
  apply: async (...args) => {
    await sleep(latencyMs);
    return gateway.apply(...args);
  },
});

/** startFleet: bus, rule, queue, table, registry, N forwarders and the pollers for fleet `tag`. */
export const startFleet = async (kube: KubeServer, moto: MotoServer, dynamo: DynaliteServer, tag: string, clusterIds: readonly string[], options: FleetOptions = {}): Promise<Fleet> => {
  const rule = await synthesizedRule();
  const events = new EventBridgeClient(moto.clientConfig);
  const sqs = new SQSClient(moto.clientConfig);
  const dynamoClient = new DynamoDBClient(dynamo.clientConfig);
  const timings = new CallTimings();
  events.middlewareStack.add((next, context) => (args) => timeCall(timings, sdkCallName('moto', context), () => next(args)), TIMING_MIDDLEWARE);
  sqs.middlewareStack.add((next, context) => (args) => timeCall(timings, sdkCallName('moto', context), () => next(args)), TIMING_MIDDLEWARE);
  dynamoClient.middlewareStack.add((next, context) => (args) => timeCall(timings, sdkCallName('dynalite', context), () => next(args)), TIMING_MIDDLEWARE);
  const busName = `lineup-${tag}`;
  await events.send(new CreateEventBusCommand({ Name: busName }));
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${busName}-reconciler`, Attributes: { VisibilityTimeout: String(VISIBILITY_TIMEOUT_SECONDS) } }))).QueueUrl ?? '';
  const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.['QueueArn'] ?? '';
  if (queueUrl === '' || queueArn === '') throw new Error(`moto did not create queue ${busName}-reconciler`);
  await events.send(new PutRuleCommand({ Name: `${busName}-reconciler`, EventBusName: busName, EventPattern: JSON.stringify(rule.pattern) }));
  await events.send(new PutTargetsCommand({ Rule: `${busName}-reconciler`, EventBusName: busName, Targets: [{ Id: 'reconciler-queue', Arn: queueArn }] }));
  await ensureCheckpointTable(dynamoClient, busName);

  const counters = new Counters();
  const problems: string[] = [];
  const log: Log = (level, message, fields) => {
    if (level === 'error') problems.push(`${message} ${JSON.stringify(fields ?? {})}`);
  };
  const store = new DynamoCheckpointStore({ client: dynamoClient, tableName: busName, counters });
  const abort = new AbortController();

  // N forwarders, each its own cluster id, watching its own namespace.
  const sinks: CountingSink[] = [];
  const runs = clusterIds.map((id) => {
    const sink = new CountingSink(new EventBridgeSink({ putEvents: sdkPutEvents(events), eventBusName: busName }));
    sinks.push(sink);
    const forwarder = new Forwarder({
      cluster: id,
      source: new KubeWatchSource({ endpoint: lineupEndpoint(kube), counters, namespace: id }),
      sink,
      bookmarks: store,
      planOptions: DEFAULT_PLAN_OPTIONS,
      counters,
      log,
      now: Date.now,
      batchWindowMs: FORWARDER_BATCH_WINDOW_MS,
    });
    return forwarder.run(abort.signal);
  });

  // The reconciler: the registry names every cluster id (the same API server), pollers as Lambda's event source.
  const records: ClusterRecord[] = clusterIds.map((id) => ({ id, endpoint: kube.url, caData: kube.caPem, auth: { type: 'token', token: kube.lineupToken } }));
  const resolveCluster = resolveClusters({ static: records, counters });
  const owner = `bench-many-${randomUUID().slice(0, 8)}`;
  const slotsPerCluster = options.slotsPerCluster ?? defaultSlotsPerCluster(DEFAULT_RECONCILER_MAX_CONCURRENCY);
  let holders = 0;
  const recordsByCluster = new Map<string, number>();
  const putBackByCluster = new Map<string, number>();
  const putBack = sqsPutBack(sqs, queueUrl);
  const handler = makeSqsBatchHandler(
    {
      store,
      resolveCluster: async (id) => {
        const gateway = await resolveCluster(id);
        if (gateway === undefined) return undefined;
        const latency = options.apiLatencyMs?.get(id);
        return timedGateway(latency === undefined ? gateway : slowGateway(gateway, latency), timings);
      },
      planOptions: DEFAULT_PLAN_OPTIONS,
      owner,
      inputsMemory: new InputsMemory(),
      now: Date.now,
      counters,
      log,
      leaseTtlMs: 10_000,
    },
    {
      onOutcome: (record) => {
        const cluster = peekCluster(record) ?? 'naming no cluster';
        recordsByCluster.set(cluster, (recordsByCluster.get(cluster) ?? 0) + 1);
      },
      // As the stack deploys it: slots in the table, records put back on the queue.
      fairShare:
        slotsPerCluster === false
          ? undefined
          : {
              slots: new DynamoClusterSlots({ client: dynamoClient, tableName: busName, counters }),
              slotsPerCluster,
              slotTtlMs: DEFAULT_LEASE_TTL_MS,
              putBack: async (records) => {
                for (const record of records) {
                  const cluster = peekCluster({ body: record.body } as SQSRecord) ?? 'unknown';
                  putBackByCluster.set(cluster, (putBackByCluster.get(cluster) ?? 0) + 1);
                }
                return putBack(records);
              },
              holderId: () => `${owner}/${(holders += 1)}`,
              now: Date.now,
              counters,
              log,
            },
    },
  );
  const fleet: Fleet = {
    sinks,
    counters,
    records: 0,
    recordsByCluster,
    putBackByCluster,
    queueUrl,
    sqs,
    problems,
    timings,
    stop: async () => {
      abort.abort();
      await Promise.allSettled([...runs, ...pollers]);
      await Promise.allSettled([...invocations]);
    },
  };
  const toRecord = (message: Message): SQSRecord => sqsRecordOf(message, queueArn, moto.clientConfig.region);
  // As Lambda's SQS event source mapping: its pollers receive and delete outside the function,
  // whose concurrency (DEFAULT_RECONCILER_MAX_CONCURRENCY invocations) bounds the handling only.
  // Each poller holds at most one received batch while it waits for an invocation slot.
  let freeInvocations = DEFAULT_RECONCILER_MAX_CONCURRENCY;
  const waiting: (() => void)[] = [];
  const acquireInvocation = async (): Promise<void> => {
    if (freeInvocations > 0) {
      freeInvocations -= 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const releaseInvocation = (): void => {
    const next = waiting.shift();
    if (next) next();
    else freeInvocations += 1;
  };
  abort.signal.addEventListener('abort', () => {
    for (const resolve of waiting.splice(0)) resolve();
  });
  const invocations = new Set<Promise<void>>();
  /** invoke: the handler on one batch in an invocation slot, then the successes deleted (the slot already free). Never rejects. */
  const invoke = async (messages: readonly Message[]): Promise<void> => {
    let done: Message[] = [];
    try {
      const batchStarted = performance.now();
      const response = await handler({ Records: messages.map(toRecord) });
      timings.add('hop.batch handled', performance.now() - batchStarted);
      const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
      done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
      fleet.records += done.length;
    } catch (error) {
      problems.push(`a batch failed as a whole: ${String(error)}`);
    } finally {
      releaseInvocation();
    }
    if (done.length === 0) return;
    try {
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })) }));
    } catch (error) {
      problems.push(`DeleteMessageBatch failed: ${String(error)}`);
    }
  };
  const poll = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      let messages: Message[];
      try {
        messages = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }), { abortSignal: abort.signal })).Messages ?? [];
      } catch (error) {
        if (abort.signal.aborted) return;
        problems.push(`ReceiveMessage failed: ${String(error)}`);
        await sleep(200);
        continue;
      }
      if (messages.length === 0) continue;
      const receivedAt = Date.now();
      for (const message of messages) {
        const sent = Number(message.Attributes?.SentTimestamp);
        if (Number.isFinite(sent)) timings.add('hop.queued (sent → received)', receivedAt - sent);
      }
      await acquireInvocation();
      if (abort.signal.aborted) return;
      const invocation = invoke(messages).finally(() => invocations.delete(invocation));
      invocations.add(invocation);
    }
  };
  const pollers = Array.from({ length: DEFAULT_RECONCILER_MAX_CONCURRENCY }, poll);
  return fleet;
};

/** lastAt: the latest time `times` holds for every one of `keys`, or undefined while one is missing. */
export const lastAt = (times: ReadonlyMap<string, number>, keys: readonly string[]): number | undefined => {
  let last = 0;
  for (const key of keys) {
    const time = times.get(key);
    if (time === undefined) return undefined;
    last = Math.max(last, time);
  }
  return last;
};

/** stageLatencies: per stage, each JobSet's latency (ms), as the file comment defines it; a JobSet is left out of a stage that never ran. */
export const stageLatencies = (jobs: JobWatch, stages: readonly Stage[], created: ReadonlyMap<string, { namespace: string; name: string; at: number }>): number[][] =>
  stages.map((stage, index) => {
    const latencies: number[] = [];
    for (const { namespace, name, at } of created.values()) {
      const end = lastAt(jobs.runningAt, jobsOf(name, stage).map((job) => jobKey(namespace, job)));
      if (end === undefined) continue;
      const previous = stages[index - 1];
      const start = previous === undefined ? at : lastAt(jobs.readyAt, jobsOf(name, previous).map((job) => jobKey(namespace, job)));
      if (start === undefined) continue;
      latencies.push(end - start);
    }
    return latencies;
  });

/** runFleet: N clusters each starting `perCluster` JobSets at once; its figures. */
const runFleet = async (kube: KubeServer, moto: MotoServer, dynamo: DynaliteServer, client: BenchKubeClient, jobs: JobWatch, clusters: number, perCluster: number): Promise<FleetFigures> => {
  const tag = `many${clusters}`;
  const clusterIds = Array.from({ length: clusters }, (_, index) => `${tag}-c${String(index).padStart(2, '0')}`);
  for (const id of clusterIds) await client.createNamespace(id);
  const fleet = await startFleet(kube, moto, dynamo, tag, clusterIds);
  const jobWatchProblemsBefore = jobs.problems.length;
  try {
    // The forwarders list their (empty) namespaces first: wait for their first bookmarks' worth of quiet.
    await sleep(2_000);
    const base = story2Manifest();
    const stages = stagesOf(base);
    const created = new Map<string, { namespace: string; name: string; at: number }>();
    const cpuBefore = sampleTree();
    const started = Date.now();
    await Promise.all(
      clusterIds.flatMap((namespace) =>
        Array.from({ length: perCluster }, async (_, index) => {
          const name = `s2-${index}`;
          const manifest = manifestFor(base, 'lineup', name) as JsonObject & { metadata: JsonObject };
          const at = Date.now();
          await client.createJobSet(namespace, { ...manifest, metadata: { ...manifest.metadata, namespace } });
          created.set(`${namespace}/${name}`, { namespace, name, at });
        }),
      ),
    );
    const last = stages.at(-1);
    if (last === undefined) throw new Error('story 2 has no stage');
    const allWorkersRunning = (): boolean =>
      [...created.values()].every(({ namespace, name }) => jobsOf(name, last).every((job) => jobs.runningAt.has(jobKey(namespace, job))));
    const deadline = started + DONE_TIMEOUT_MS;
    while (!allWorkersRunning()) {
      if (Date.now() > deadline) throw new Error(`${clusters} clusters: not every JobSet's workers ran within ${DONE_TIMEOUT_MS / 1000} s`);
      await sleep(100);
    }
    const workersRunningAt = Date.now();
    // Then until the queue is empty: what the events caused is absorbed.
    for (;;) {
      const attributes = (await fleet.sqs.send(new GetQueueAttributesCommand({ QueueUrl: fleet.queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }))).Attributes ?? {};
      if (Number(attributes['ApproximateNumberOfMessages'] ?? 0) + Number(attributes['ApproximateNumberOfMessagesNotVisible'] ?? 0) === 0) break;
      if (Date.now() > deadline) break;
      await sleep(200);
    }
    const ended = Math.max(workersRunningAt, Date.now());
    const cpu = cpuBetween(cpuBefore, sampleTree());
    const cpuSeconds = cpu.reduce((sum, entry) => sum + entry.cpuSeconds, 0);
    const seconds = (ended - started) / 1000;
    const eventsPut = fleet.sinks.reduce((sum, sink) => sum + sink.count, 0);
    const latencies = stageLatencies(jobs, stages, created);
    const problems = [...fleet.problems, ...jobs.problems.slice(jobWatchProblemsBefore)];
    return {
      clusters,
      jobSets: created.size,
      seconds: Math.round(seconds * 10) / 10,
      eventsPut,
      eventsPerSecond: Math.round((eventsPut / seconds) * 10) / 10,
      recordsHandled: fleet.records,
      recordsPerSecond: Math.round((fleet.records / seconds) * 10) / 10,
      passes: fleet.counters.get(CounterName.Passes),
      stageP50Ms: latencies.map((values) => percentile(values, 50)),
      stageP99Ms: latencies.map((values) => percentile(values, 99)),
      cpu,
      cpuMsPerRecord: fleet.records === 0 ? 0 : Math.round((cpuSeconds * 1000) / fleet.records),
      loadAverage: loadAverage(),
      calls: fleet.timings.summary(),
      problems: problems.slice(0, 10),
    };
  } finally {
    await fleet.stop();
  }
};

/** runManyClustersBench: every fleet size in CLUSTER_COUNTS (or `counts`), on one set of servers. */
export const runManyClustersBench = async (options: { counts?: readonly number[]; perCluster?: number } = {}): Promise<ManyClustersFigures> => {
  const counts = options.counts ?? CLUSTER_COUNTS;
  const perCluster = options.perCluster ?? JOBSETS_PER_CLUSTER;
  const wallStarted = Date.now();
  let cluster: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let client: BenchKubeClient | undefined;
  let jobs: JobWatch | undefined;
  try {
    progress('starting kube-apiserver with the control plane (Job controller, scheduler, kwok node), moto and dynalite');
    [cluster, moto, dynamo] = await Promise.all([startE2eCluster(), startMoto(), startDynalite()]);
    const kube = cluster.kube;
    client = new BenchKubeClient(kube);
    jobs = new JobWatch(kube);
    await jobs.start();
    const fleets: FleetFigures[] = [];
    for (const clusters of counts) {
      progress(`${clusters} cluster${clusters === 1 ? '' : 's'}, ${perCluster} JobSets each at once`);
      fleets.push(await runFleet(kube, moto, dynamo, client, jobs, clusters, perCluster));
    }
    return { jobSetsPerCluster: perCluster, pollers: DEFAULT_RECONCILER_MAX_CONCURRENCY, fleets, wallMs: Date.now() - wallStarted };
  } finally {
    await jobs?.stop();
    client?.close();
    // The whole cluster (control plane, then API server): its processes would keep this one alive.
    await Promise.all([cluster?.stop(), moto?.stop(), dynamo?.stop()]);
  }
};

/** renderManyClustersFigures: the lines `npm run bench` prints. */
export const renderManyClustersFigures = (f: ManyClustersFigures): string[] => [
  `many clusters (N namespaces of one kube-apiserver standing in for N clusters, each with its own forwarder and cluster id, the Jobs run by the real Job controller on kwok pods; one bus, queue, table, ${f.pollers} pollers and at most ${f.pollers} batches handled at once; ${f.jobSetsPerCluster} story-2 JobSets per cluster at once):`,
  ...f.fleets.map(
    (fleet) =>
      `  ${fleet.clusters} cluster${fleet.clusters === 1 ? '' : 's'} (${fleet.jobSets} JobSets, ${fleet.seconds} s): ${fleet.eventsPut} events put, ${fleet.eventsPerSecond} events/s; ${fleet.recordsHandled} records handled, ${fleet.recordsPerSecond}/s; ${fleet.passes} passes; stage latency p50 ${fleet.stageP50Ms.join(' / ')} ms, p99 ${fleet.stageP99Ms.join(' / ')} ms${fleet.problems.length > 0 ? `; problems: ${fleet.problems.join('; ')}` : ''}\n` +
      `    CPU ${fleet.cpu.map((entry) => `${entry.name} ${entry.cpuSeconds} s`).join(', ')} (${fleet.cpuMsPerRecord} ms a record handled), load average ${fleet.loadAverage} on ${availableParallelism()} cores\n` +
      `    where the time went (calls, p50 / p99 ms, summed s): ${fleet.calls.slice(0, CALLS_SHOWN).map((call) => `${call.name} ${call.count}× ${call.p50Ms} / ${call.p99Ms} ms, ${call.totalS} s`).join('; ')}`,
  ),
];

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      clusters: { type: 'string', default: CLUSTER_COUNTS.join(',') },
      'jobsets-per-cluster': { type: 'string', default: String(JOBSETS_PER_CLUSTER) },
    },
  });
  const counts = (values.clusters ?? '').split(',').map(Number);
  const perCluster = Number(values['jobsets-per-cluster']);
  if (counts.some((count) => !Number.isInteger(count) || count < 1) || !Number.isInteger(perCluster) || perCluster < 1) {
    process.stderr.write(`bench many clusters: --clusters takes whole numbers ≥ 1 separated by commas and --jobsets-per-cluster a whole number ≥ 1, got ${values.clusters} and ${values['jobsets-per-cluster']}\n`);
    process.exit(2);
  }
  const figures = await runManyClustersBench({ counts, perCluster });
  console.log(values.json ? JSON.stringify(figures, null, 2) : renderManyClustersFigures(figures).join('\n'));
}
