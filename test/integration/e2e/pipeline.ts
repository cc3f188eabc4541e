/**
 * The test pipeline host: Lineup's production data flow, each part real, wired as AWS wires it —
 *
 *   kube-apiserver ──watch──▶ Forwarder (KubeWatchSource, Lineup's user) ──PutEvents──▶ moto
 *   EventBridge bus ──rule──▶ SQS queue (visibility timeout, redrive policy to a DLQ)
 *   ──▶ poller (stands in for Lambda's SQS event source mapping) ──▶ makeSqsBatchHandler
 *   ──▶ reconciler (KubeClusterGateway from resolveClusters, Lineup's user) ──▶ kube-apiserver
 *                                         └── DynamoCheckpointStore on dynalite (leases, bookmarks)
 *
 * The poller does what the event source mapping does: ReceiveMessage (up to 10), hand the batch
 * to the handler as an SQSEvent, DeleteMessage for every record not in batchItemFailures, and
 * leave the failures to reappear after the visibility timeout (until the redrive policy moves
 * them to the DLQ). Several pollers run at once, as Lambda runs several batches at once.
 *
 * For the fault scenarios the reconciler can be killed between two writes (`killReconciler`):
 * from then on its gateway never answers, it deletes no message and writes nothing more — a
 * Lambda that died mid-pass. `restartReconciler` starts a new one (new owner, new gateways) on
 * the same queue and store; `resync` runs the resync as EventBridge Scheduler would.
 *
 * moto quirk: events it delivers to SQS lack `account`; Lineup's envelope schema tolerates that.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { KubeConfig } from '@kubernetes/client-node';
import type { SQSEvent } from 'aws-lambda';
import { sqsRecordOf } from '../harness/sqsRecord.ts';
import { Counters } from '../../../lib/counters.ts';
import type { PutEventsEntry } from '../../../lib/events/envelope.ts';
import type { EventPattern } from '../../../lib/events/pattern.ts';
import { EventBridgeSink } from '../../../lib/forwarder/eventBridgeSink.ts';
import { sdkPutEvents } from '../../../lib/hosts/lambdaAwsClients.ts';
import { Forwarder } from '../../../lib/forwarder/forwarder.ts';
import type { EventSink, PutResult } from '../../../lib/forwarder/types.ts';
import { kubeConfigEndpoint } from '../../../lib/k8s/kubeConfigFile.ts';
import { resolveClusters } from '../../../lib/k8s/registry.ts';
import { KubeWatchSource } from '../../../lib/k8s/watchSource.ts';
import type { Log, LogLevel } from '../../../lib/log.ts';
import { DEFAULT_PLAN_OPTIONS } from '../../../lib/plan/planner.ts';
import type { Action, ActionKind, Observed, Plan } from '../../../lib/plan/types.ts';
import type { BatchDeps } from '../../../lib/reconcile/sqsBatch.ts';
import { resync } from '../../../lib/reconcile/resync.ts';
import { InputsMemory } from '../../../lib/reconcile/inputsMemory.ts';
import { makeSqsBatchHandler } from '../../../lib/reconcile/sqsBatch.ts';
import type { ClusterGateway, ClusterResolver, ObserveSince, Written } from '../../../lib/reconcile/types.ts';
import { DynamoCheckpointStore } from '../../../lib/store/dynamoStore.ts';
import { ensureCheckpointTable } from '../../../lib/store/embedded.ts';
import type { ClusterRecord, JournalEntry, JobSetKey } from '../../../lib/store/types.ts';
import type { DynaliteServer, KubeServer, MotoServer } from '../harness/index.ts';
import { eventually } from '../k8s/support.ts';

// ---------------------------------------------------------------------------------------------
// The rule: from the synthesized CDK template, and from nowhere else. A test that fell back to
// the library's own pattern would pass with a template that deploys a different rule.

/** REPO: the repository root. */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** RuleSource: the reconciler rule's pattern and the queue's redrive count, and where in the template they came from. */
export interface RuleSource {
  readonly pattern: EventPattern;
  /** The reconcile queue's RedrivePolicy.maxReceiveCount. */
  readonly maxReceiveCount: number;
  /** 'template (rule <id> → queue <id>)'. */
  readonly from: string;
}

/** TemplateResource: the part of a CloudFormation resource read here. */
interface TemplateResource {
  readonly Type?: string;
  readonly Properties?: Record<string, unknown>;
}

/** getAttTarget: the logical id an `{"Fn::GetAtt": [id, "Arn"]}` names, if it is one. */
const getAttTarget = (value: unknown): string | undefined => {
  const getAtt = (value as { 'Fn::GetAtt'?: unknown } | undefined)?.['Fn::GetAtt'];
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
};

/**
 * reconcilerRuleOf: in a synthesized template, the Events rule whose target is an SQS queue of
 * the stack (the reconcile queue), its EventPattern, and that queue's maxReceiveCount. Throws
 * when the template holds no such rule or the queue has no redrive count.
 */
export const reconcilerRuleOf = (resources: Readonly<Record<string, TemplateResource>>): RuleSource => {
  const rules = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::Events::Rule');
  for (const [logicalId, resource] of rules) {
    const targets = Array.isArray(resource.Properties?.Targets) ? (resource.Properties.Targets as { Arn?: unknown }[]) : [];
    const queueId = targets.map((target) => getAttTarget(target.Arn)).find((id) => id !== undefined && resources[id]?.Type === 'AWS::SQS::Queue');
    if (queueId === undefined) continue;
    const pattern = resource.Properties?.EventPattern;
    if (pattern === null || typeof pattern !== 'object') {
      throw new Error(`synthesized template: rule ${logicalId} targets queue ${queueId} but has EventPattern ${JSON.stringify(pattern)}, expected an object`);
    }
    const redrive = resources[queueId]?.Properties?.RedrivePolicy as { maxReceiveCount?: unknown } | undefined;
    if (typeof redrive?.maxReceiveCount !== 'number') {
      throw new Error(`synthesized template: queue ${queueId} has RedrivePolicy ${JSON.stringify(redrive)}, expected a numeric maxReceiveCount`);
    }
    return { pattern: pattern as EventPattern, maxReceiveCount: redrive.maxReceiveCount, from: `template (rule ${logicalId} → queue ${queueId})` };
  }
  throw new Error(`synthesized template: no AWS::Events::Rule targets an SQS queue of the stack (rules: ${rules.map(([id]) => id).join(', ') || 'none'})`);
};

/**
 * synthesizedRule: synthesize infra/app.ts in process (functions not bundled: the test needs
 * the template only) and read the reconciler rule from it. Rejects, saying why, when the app
 * cannot be loaded or synthesized or its template holds no such rule: the end-to-end tier then
 * fails rather than deploy a rule the stack does not.
 */
export const synthesizedRule = async (): Promise<RuleSource> => {
  const appFile = join(REPO, 'infra', 'app.ts');
  const outdir = mkdtempSync(join(tmpdir(), 'lineup-e2e-synth-'));
  try {
    const { createApp } = (await import(pathToFileURL(appFile).href)) as typeof import('../../../infra/app.ts');
    const { app, stack } = createApp({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const template = app.synth().getStackByName(stack.stackName).template as { Resources?: Record<string, TemplateResource> };
    return reconcilerRuleOf(template.Resources ?? {});
  } catch (error) {
    throw new Error(`e2e: cannot read the reconciler rule from the synthesized CDK template of ${appFile}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};

// ---------------------------------------------------------------------------------------------
// Parts.

/** LogLine: one line a part of the pipeline logged. */
export interface LogLine {
  readonly at: number;
  readonly level: LogLevel;
  readonly message: string;
  readonly fields?: Record<string, unknown> | undefined;
}

/** ActivityCounters: Counters that remember when anything was last counted (a request, an event, a pass). */
export class ActivityCounters extends Counters {
  lastActivity = Date.now();
  override add(name: string, by = 1): void {
    this.lastActivity = Date.now();
    super.add(name, by);
  }
}

/** RecordingSink: the EventBridgeSink, remembering every entry put and how many puts are in flight. */
export class RecordingSink implements EventSink {
  readonly entries: PutEventsEntry[] = [];
  inFlight = 0;
  private readonly inner: EventBridgeSink;
  private readonly touch: () => void;

  constructor(inner: EventBridgeSink, touch: () => void) {
    this.inner = inner;
    this.touch = touch;
  }

  async put(entries: readonly PutEventsEntry[]): Promise<PutResult> {
    this.inFlight += 1;
    this.touch();
    try {
      const result = await this.inner.put(entries);
      const failed = new Set(result.failed.map((failure) => failure.index));
      entries.forEach((entry, index) => {
        if (!failed.has(index)) this.entries.push(entry);
      });
      return result;
    } finally {
      this.inFlight -= 1;
      this.touch();
    }
  }
}

/** KillSwitch: when to kill the reconciler — after `writes` writes of `kinds` for JobSets in `namespace`. */
export interface KillSwitch {
  readonly namespace: string;
  readonly kinds: readonly ActionKind[];
  /** Writes let through before the kill; the next matching write never happens. */
  readonly writes: number;
}

/** Reconciler: one reconciler "process" — its handler, gateways, pollers and whether it died. */
interface Reconciler {
  readonly generation: number;
  readonly owner: string;
  readonly abort: AbortController;
  readonly loops: Promise<void>[];
  killed: boolean;
  inFlight: number;
}

/** never: a promise that never settles — what a dead process's pending calls look like. */
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

/**
 * MortalGateway: a reconciler's gateway that dies with it. Once its reconciler is killed every
 * call hangs forever, so the pass that was running never gets to its next write, its status
 * write or its lease release.
 */
class MortalGateway implements ClusterGateway {
  private readonly inner: ClusterGateway;
  private readonly reconciler: Reconciler;
  private readonly onWrite: (namespace: string, action: Action) => 'go' | 'die';

  constructor(inner: ClusterGateway, reconciler: Reconciler, onWrite: (namespace: string, action: Action) => 'go' | 'die') {
    this.inner = inner;
    this.reconciler = reconciler;
    this.onWrite = onWrite;
  }

  observe(namespace: string, name: string, now: number, since?: ObserveSince): Promise<Observed | undefined> {
    return this.reconciler.killed ? never() : this.inner.observe(namespace, name, now, since);
  }

  apply(namespace: string, jobSetName: string, action: Action, now: number): Promise<Written | void> {
    if (this.reconciler.killed || this.onWrite(namespace, action) === 'die') return never();
    return this.inner.apply(namespace, jobSetName, action, now);
  }
}

/** PipelineOptions: the servers, the cluster id, and timings. */
export interface PipelineOptions {
  readonly kube: KubeServer;
  readonly moto: MotoServer;
  readonly dynamo: DynaliteServer;
  /** The cluster id (event source `lineup.<id>`); also names the bus, queues and table. */
  readonly clusterId: string;
  /** The API server URL the forwarder watches through (a flaky proxy in the fault tests). @default kube.url */
  readonly watchUrl?: string;
  /** BatchDeps.leaseTtlMs. @default 10000 */
  readonly leaseTtlMs?: number;
  /** Batches handled at once. @default 2 */
  readonly pollers?: number;
  /** The queue's visibility timeout: how soon a failed record is retried. @default 2 */
  readonly visibilityTimeoutSeconds?: number;
  /** The rule pattern and redrive count to deploy: `await synthesizedRule()`, the stack's own. */
  readonly rule: RuleSource;
  /** The forwarder's batch window and checkpoint interval as deployed, not the tests' shorter ones (the benchmark's). @default false */
  readonly deployedForwarderTimings?: boolean;
  /** The forwarder's heartbeat interval (lib/forwarder/heartbeat.ts). @default none: no heartbeats */
  readonly heartbeatIntervalMs?: number;
  /** Called with the pipeline's AWS clients before their first call, e.g. to add a middleware that counts calls (the benchmark's). */
  readonly instrument?: (clients: PipelineClients) => void;
}

/** PipelineClients: the AWS SDK clients every part of the pipeline sends through. */
export interface PipelineClients {
  readonly events: EventBridgeClient;
  readonly sqs: SQSClient;
  readonly dynamo: DynamoDBClient;
}

/** PassRecord: one reconcile pass, as onPass saw it. */
export interface PassRecord {
  readonly generation: number;
  readonly key: JobSetKey;
  readonly plan: Plan;
  readonly decision: JournalEntry;
}

/**
 * Pipeline: the whole controller around one API server. Start it with `Pipeline.start`, stop it
 * in an `after` hook.
 *
 * @example
 * const pipeline = await Pipeline.start({ kube, moto, dynamo, clusterId: 'e2e', rule: await synthesizedRule() });
 * after(() => pipeline.stop());
 * await pipeline.settle('story 1 created');
 */
export class Pipeline {
  readonly clusterId: string;
  readonly busName: string;
  readonly queueUrl: string;
  readonly dlqUrl: string;
  readonly rule: RuleSource;
  readonly counters = new ActivityCounters();
  readonly logs: LogLine[] = [];
  readonly passes: PassRecord[] = [];
  readonly store: DynamoCheckpointStore;
  /** Entries the forwarder (and the resync) put on the bus. */
  readonly sink: RecordingSink;

  private readonly options: PipelineOptions;
  private readonly events: EventBridgeClient;
  private readonly sqs: SQSClient;
  private readonly dynamoClient: DynamoDBClient;
  private readonly forwarderAbort = new AbortController();
  private forwarderRun: Promise<void> = Promise.resolve();
  private forwarder: Forwarder | undefined;
  private reconciler: Reconciler | undefined;
  private generations = 0;
  private killSwitch: { readonly spec: KillSwitch; seen: number; fire: () => void } | undefined;
  private readonly log: Log;

  private constructor(options: PipelineOptions, urls: { busName: string; queueUrl: string; dlqUrl: string }, clients: { events: EventBridgeClient; sqs: SQSClient; dynamo: DynamoDBClient }, rule: RuleSource) {
    this.options = options;
    this.clusterId = options.clusterId;
    this.busName = urls.busName;
    this.queueUrl = urls.queueUrl;
    this.dlqUrl = urls.dlqUrl;
    this.rule = rule;
    this.events = clients.events;
    this.sqs = clients.sqs;
    this.dynamoClient = clients.dynamo;
    this.log = (level, message, fields) => {
      this.logs.push({ at: Date.now(), level, message, fields });
      if (process.env.LINEUP_E2E_VERBOSE === '1') process.stderr.write(`${new Date().toISOString().slice(11, 23)} [${this.clusterId}] ${level}: ${message} ${JSON.stringify(fields ?? {})}\n`);
    };
    this.store = new DynamoCheckpointStore({ client: clients.dynamo, tableName: `lineup-${options.clusterId}`, counters: this.counters });
    this.sink = new RecordingSink(new EventBridgeSink({ putEvents: sdkPutEvents(clients.events), eventBusName: urls.busName }), () => {
      this.counters.lastActivity = Date.now();
    });
  }

  /**
   * start: create the bus, the rule (`options.rule`, from `await synthesizedRule()`), the queue
   * with its DLQ and redrive policy, and the checkpoint table; then start the forwarder and a
   * reconciler.
   */
  static async start(options: PipelineOptions): Promise<Pipeline> {
    const events = new EventBridgeClient(options.moto.clientConfig);
    const sqs = new SQSClient(options.moto.clientConfig);
    const dynamo = new DynamoDBClient(options.dynamo.clientConfig);
    options.instrument?.({ events, sqs, dynamo });
    const prefix = `lineup-${options.clusterId}`;
    const busName = prefix;
    const { rule } = options;

    await events.send(new CreateEventBusCommand({ Name: busName }));
    const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}-dlq` }))).QueueUrl ?? '';
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn ?? '';
    const queueUrl =
      (
        await sqs.send(
          new CreateQueueCommand({
            QueueName: `${prefix}-reconciler`,
            Attributes: {
              VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 2),
              RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: rule.maxReceiveCount }),
            },
          }),
        )
      ).QueueUrl ?? '';
    const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn ?? '';
    assert.ok(queueUrl && queueArn && dlqUrl && dlqArn, 'moto created the queues');
    await events.send(new PutRuleCommand({ Name: `${prefix}-reconciler`, EventBusName: busName, EventPattern: JSON.stringify(rule.pattern) }));
    await events.send(new PutTargetsCommand({ Rule: `${prefix}-reconciler`, EventBusName: busName, Targets: [{ Id: 'reconciler-queue', Arn: queueArn }] }));
    await ensureCheckpointTable(dynamo, `${prefix}`);

    const pipeline = new Pipeline(options, { busName, queueUrl, dlqUrl }, { events, sqs, dynamo }, rule);
    pipeline.startForwarder();
    pipeline.startReconciler();
    return pipeline;
  }

  // ---- the forwarder -------------------------------------------------------------------------

  /** watchKubeConfig: Lineup's user, aimed at watchUrl (same CA: the serving certificate names 127.0.0.1, whatever the port). */
  private watchKubeConfig(): KubeConfig {
    const base = this.options.kube.kubeConfig('lineup');
    const cluster = base.getCurrentCluster();
    assert.ok(cluster, 'the lineup kubeconfig has a cluster');
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ ...cluster, server: this.options.watchUrl ?? this.options.kube.url }],
      users: base.users,
      contexts: base.contexts,
      currentContext: base.currentContext,
    });
    return config;
  }

  private startForwarder(): void {
    const forwarder = new Forwarder({
      cluster: this.clusterId,
      source: new KubeWatchSource({ endpoint: kubeConfigEndpoint(this.watchKubeConfig()), counters: this.counters }),
      sink: this.sink,
      bookmarks: this.store,
      planOptions: DEFAULT_PLAN_OPTIONS,
      counters: this.counters,
      log: this.log,
      now: Date.now,
      // The tests' short window and checkpoint interval, or the deployed defaults (the benchmark's).
      batchWindowMs: this.options.deployedForwarderTimings === true ? undefined : 20,
      checkpointIntervalMs: this.options.deployedForwarderTimings === true ? undefined : 200,
      reconnectDelayMs: 50,
      watchRetry: { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 100, maxDelayMs: 1_000, jitter: 'none' },
      heartbeatIntervalMs: this.options.heartbeatIntervalMs,
    });
    this.forwarder = forwarder;
    this.forwarderRun = forwarder.run(this.forwarderAbort.signal);
  }

  /** stopForwarder: stop the forwarder alone (flushed, checkpointed): no more events or heartbeats of the cluster. */
  async stopForwarder(): Promise<void> {
    this.forwarderAbort.abort();
    await this.forwarderRun;
  }

  // ---- the reconciler ------------------------------------------------------------------------

  /** clusterRecord: the static registry entry — the API server, its CA, Lineup's bearer token. */
  private clusterRecord(): ClusterRecord {
    const { kube } = this.options;
    return { id: this.clusterId, endpoint: kube.url, caData: kube.caPem, auth: { type: 'token', token: kube.lineupToken } };
  }

  /** onWrite: the kill switch's verdict on one write of `reconciler`. */
  private onWrite(reconciler: Reconciler, namespace: string, action: Action): 'go' | 'die' {
    const armed = this.killSwitch;
    if (armed === undefined || armed.spec.namespace !== namespace || !armed.spec.kinds.includes(action.kind)) return 'go';
    armed.seen += 1;
    if (armed.seen <= armed.spec.writes) return 'go';
    reconciler.killed = true;
    reconciler.abort.abort();
    this.killSwitch = undefined;
    this.log('warn', 'reconciler killed by the test between two writes', { generation: reconciler.generation, namespace, next: action.kind });
    armed.fire();
    return 'die';
  }

  private startReconciler(): void {
    this.generations += 1;
    const reconciler: Reconciler = { generation: this.generations, owner: `e2e-reconciler-${this.generations}-${randomUUID().slice(0, 8)}`, abort: new AbortController(), loops: [], killed: false, inFlight: 0 };
    const resolve = resolveClusters({ static: [this.clusterRecord()], counters: this.counters });
    const resolveCluster: ClusterResolver = async (id) => {
      const gateway = await resolve(id);
      return gateway === undefined ? undefined : new MortalGateway(gateway, reconciler, (namespace, action) => this.onWrite(reconciler, namespace, action));
    };
    const deps: BatchDeps = {
      store: this.store,
      resolveCluster,
      planOptions: DEFAULT_PLAN_OPTIONS,
      owner: reconciler.owner,
      inputsMemory: new InputsMemory(),
      now: Date.now,
      counters: this.counters,
      log: this.log,
      leaseTtlMs: this.options.leaseTtlMs ?? 10_000,
      onPass: (key, plan, decision) => this.passes.push({ generation: reconciler.generation, key, plan, decision }),
    };
    const handler = makeSqsBatchHandler(deps);
    for (let index = 0; index < (this.options.pollers ?? 2); index += 1) {
      reconciler.loops.push(this.poll(reconciler, handler));
    }
    this.reconciler = reconciler;
  }

  /** poll: one event-source-mapping poller of `reconciler`, until it is stopped or killed. */
  private async poll(reconciler: Reconciler, handler: (event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>): Promise<void> {
    const { signal } = reconciler.abort;
    while (!signal.aborted) {
      let messages: Message[];
      try {
        const out = await this.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: this.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }),
          { abortSignal: signal },
        );
        messages = out.Messages ?? [];
      } catch (error) {
        if (signal.aborted) return;
        this.log('warn', 'poller: ReceiveMessage failed', { error: String(error) });
        await sleep(200);
        continue;
      }
      if (messages.length === 0) continue;
      reconciler.inFlight += 1;
      this.counters.add('e2e.batches');
      try {
        const response = await handler({ Records: messages.map((message) => sqsRecordOf(message, `arn:aws:sqs:${this.options.moto.clientConfig.region}:123456789012:lineup-${this.clusterId}-reconciler`, this.options.moto.clientConfig.region)) });
        // A killed reconciler deletes nothing: its records come back after the visibility timeout.
        if (reconciler.killed) return;
        const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
        const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
        this.counters.add('e2e.recordsFailed', failed.size);
        if (done.length > 0) {
          await this.sqs.send(
            new DeleteMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })) }),
          );
        }
      } catch (error) {
        // The batch handler reports failures per record; a throw means the whole batch failed (retried after the visibility timeout).
        this.log('error', 'poller: the batch failed as a whole', { error: String(error) });
      } finally {
        reconciler.inFlight -= 1;
        this.counters.lastActivity = Date.now();
      }
    }
  }

  /**
   * killReconciler: arm the kill switch; resolves once the reconciler died — after `writes`
   * writes of `kinds` in `namespace`, the next one never happens and nothing after it.
   */
  killReconciler(spec: KillSwitch): Promise<void> {
    return new Promise((resolve) => {
      this.killSwitch = { spec, seen: 0, fire: resolve };
    });
  }

  /** restartReconciler: a new reconciler process (new owner and gateways) on the same queue and store. */
  restartReconciler(): void {
    assert.ok(this.reconciler?.killed !== false, 'restartReconciler: the running reconciler is alive; kill it first');
    this.startReconciler();
  }

  /** generation: how many reconciler processes were started. */
  get generation(): number {
    return this.generations;
  }

  // ---- the bus, the resync -------------------------------------------------------------------

  /** putEntries: entries straight onto the bus (duplicates, replays of old events), as any producer would. */
  async putEntries(entries: readonly PutEventsEntry[]): Promise<void> {
    for (let start = 0; start < entries.length; start += 10) {
      const result = await this.sink.put(entries.slice(start, start + 10).map((entry) => ({ ...entry, EventBusName: this.busName })));
      assert.deepEqual(result.failed, [], 'PutEvents accepted every entry');
    }
  }

  /** resync: one run of the resync Lambda (EventBridge Scheduler's job): Sync events for JobSets left behind. */
  resync(full = false): Promise<{ synced: number }> {
    return resync({ store: this.store, sink: this.sink, now: Date.now, counters: this.counters, log: this.log, eventBusName: this.busName }, { full });
  }

  /**
   * deadLetters: what lies in the DLQ — each message's receive count, its event (detail-type,
   * object, resourceVersion) and the warn/error lines logged about its JobSet — for a failure
   * message that says why an event was given up on. Reads with a short visibility timeout so the
   * messages stay countable.
   */
  async deadLetters(): Promise<string> {
    const out = await this.sqs.send(new ReceiveMessageCommand({ QueueUrl: this.dlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0, MessageSystemAttributeNames: ['All'] }));
    return (out.Messages ?? [])
      .map((message) => {
        const body = message.Body ?? '';
        let about = body.slice(0, 400);
        let jobSet = '';
        try {
          const event = JSON.parse(body) as { 'detail-type'?: string; detail?: { namespace?: string; jobSet?: string; kind?: string; name?: string; resourceVersion?: string } };
          const detail = event.detail ?? {};
          jobSet = `${detail.namespace ?? '?'}/${detail.jobSet ?? '?'}`;
          about = `${event['detail-type'] ?? '?'} ${jobSet} ${detail.kind ?? ''}/${detail.name ?? ''} rv ${detail.resourceVersion ?? '?'}`;
        } catch (error) {
          about = `unparsable body (${String(error)}): ${about}`;
        }
        const problems = this.problems(jobSet.split('/')[0]).slice(-8).map((line) => `    ${line.level} ${line.message} ${JSON.stringify(line.fields ?? {}).slice(0, 300)}`);
        return [`  received ${message.Attributes?.ApproximateReceiveCount ?? '?'} times: ${about}`, ...problems].join('\n');
      })
      .join('\n');
  }

  /** queueDepth: visible + in-flight messages of a queue. */
  async queueDepth(queueUrl: string = this.queueUrl): Promise<number> {
    const out = await this.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
    );
    return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  }

  /**
   * settle: wait until the pipeline is quiet — no put or batch in flight, the queue empty, and
   * nothing counted for `quietMs` (no watch event, request, pass) — so an assertion that
   * something did NOT happen is made after the pipeline had every chance to do it.
   */
  async settle(what: string, options: { quietMs?: number; timeoutMs?: number } = {}): Promise<void> {
    const quietMs = options.quietMs ?? 800;
    await eventually(
      `${what}: the pipeline settles`,
      async () => {
        const reconciler = this.reconciler;
        assert.ok(reconciler !== undefined && !reconciler.killed, 'the reconciler is dead; restart it before waiting for the pipeline to settle');
        assert.equal(this.sink.inFlight, 0, 'puts in flight');
        // An event may wait in the forwarder for its window, or its hold (an echo of Lineup's own write).
        assert.equal(this.forwarder?.pendingEvents ?? 0, 0, 'events waiting in the forwarder');
        assert.equal(reconciler.inFlight, 0, 'batches in flight');
        const idle = Date.now() - this.counters.lastActivity;
        assert.ok(idle >= quietMs, `active ${idle} ms ago`);
        assert.equal(await this.queueDepth(), 0, 'messages on the queue');
      },
      options.timeoutMs ?? 30_000,
      100,
    );
  }

  /** passesOf: the passes over one JobSet, oldest first. */
  passesOf(namespace: string, name: string): PassRecord[] {
    return this.passes.filter((pass) => pass.key.namespace === namespace && pass.key.name === name);
  }

  /** problems: warn and error lines, optionally only those about one namespace. */
  problems(namespace?: string): LogLine[] {
    return this.logs.filter(
      (line) => (line.level === 'warn' || line.level === 'error') && (namespace === undefined || JSON.stringify(line.fields ?? {}).includes(`${namespace}/`)),
    );
  }

  /** stop: the forwarder (flushing), the pollers, the clients. Idempotent. */
  async stop(): Promise<void> {
    this.forwarderAbort.abort();
    if (this.reconciler !== undefined) {
      this.reconciler.abort.abort();
      // A killed reconciler's loops never end; a live one's end within one receive.
      if (!this.reconciler.killed) await Promise.all(this.reconciler.loops);
    }
    await this.forwarderRun;
    this.events.destroy();
    this.sqs.destroy();
    this.dynamoClient.destroy();
  }
}
