/**
 * `npm run rehearse` = `node infra/rehearsal/rehearse.ts [--cdk-out DIR] [--jobsets N]`: a
 * rehearsal of the deployed stack (docs/rehearsal.md). It synthesizes the stack (or takes DIR, a
 * cloud assembly already synthesized) and, from cdk.out alone — the template and the asset
 * directories — runs what a deployment runs, against the integration tier's real servers:
 *
 *   - checks each function's Handler against its asset and its Environment against the names its
 *     code holds (infra/rehearsal/checks.ts);
 *   - creates the buses, rules, queues and tables on moto and dynalite as the template says
 *     (infra/rehearsal/resources.ts) and registers the test cluster in the table;
 *   - starts each function's asset in the Lambda Runtime Interface Emulator with its handler,
 *     memory, timeout and every variable of its environment, the AWS endpoints alone pointed at the
 *     test servers (infra/rehearsal/emulator.ts), and invokes each once to run its init;
 *   - polls each queue as its event source mapping says (infra/rehearsal/poller.ts), invokes each
 *     scheduled function at its schedule's rate (compressed by TIME_FACTOR) with its input, and
 *     runs the forwarder Deployment's bundle as the manifest says (infra/rehearsal/forwarder.ts);
 *   - runs story 2 and a fault (the reconciler cut off from the API server for a while, then
 *     back) on the real control plane, and compares each with the in-process pipeline's run of the
 *     same JobSets (test/integration/e2e/pipeline.ts): the order the stages started in, and the
 *     final status.
 *
 * Prints, per scenario, its outcome beside the in-process pipeline's, each function's init and
 * invoke durations in the emulator, and the template properties honoured and not; exits 1 naming
 * every difference or failure. The integration tier runs it (test/integration/rehearsal).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { DEFAULT_LEASE_TTL_MS } from '../../lib/reconcile/reconcileJobSet.ts';
import { DynamoCheckpointStore } from '../../lib/store/dynamoStore.ts';
import { Counters } from '../../lib/counters.ts';
import { buildForwarderBundle } from '../k8s/forwarderBundle.ts';
import { JobWatch } from '../../bench/pipeline/jobWatch.ts';
import { BenchKubeClient } from '../../bench/pipeline/kubeClient.ts';
import { jobSetsIn } from '../../bench/pipeline/phase.ts';
import { compareStatuses } from '../../bench/pipeline/statusComparison.ts';
import { jobsOf, stagesOf, story2Manifest, STORY, type Stage } from '../../bench/pipeline/story.ts';
import type { JsonObject } from '../../lib/json.ts';
import { sleep } from '../../lib/retry.ts';
import { startE2eCluster, type E2eCluster } from '../../test/integration/e2e/cluster.ts';
import { Pipeline, reconcilerRuleOf } from '../../test/integration/e2e/pipeline.ts';
import { FlakyProxy } from '../../test/integration/harness/flakyProxy.ts';
import { startDynalite, startMoto, type DynaliteServer, type MotoServer } from '../../test/integration/harness/index.ts';
import { sqsRecordOf } from '../../test/integration/harness/sqsRecord.ts';
import { checkFunction, type AssetFile } from './checks.ts';
import { FunctionInstance, ensureRie, heapArgs, writeRuntimeClient } from './emulator.ts';
import { dockerfileEnv, readForwarderContainer, startForwarder, substitute, type ForwarderProcess } from './forwarder.ts';
import { EventSourcePoller, type Invocation, type Settlement } from './poller.ts';
import { createResources, resolve, type Created } from './resources.ts';
import { readWiring, type LambdaFunctionWiring, type Template, type Wiring } from './wiring.ts';

/** REPO: the repository root. */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** TIME_FACTOR: schedules' rates and queues' visibility timeouts are divided by this (a minute's schedule fires every second). */
export const TIME_FACTOR = 60;
/** MAX_INSTANCES: function instances (emulators) per function at most: a mapping's MaximumConcurrency above it is capped on this 2-core machine. */
export const MAX_INSTANCES = 2;
/** DEFAULT_JOBSETS: story-2 JobSets per scenario. */
export const DEFAULT_JOBSETS = 2;
/** CLUSTER_ID: the test cluster's id in the registry and the forwarder's. */
export const CLUSTER_ID = 'rehearsal';
/** SCENARIO_TIMEOUT_MS: how long a scenario's JobSets may take to complete. */
const SCENARIO_TIMEOUT_MS = 180_000;
/** FAULT_MIN_MS, FAULT_MAX_MS: the outage lasts at least this, and until a record failed (at most FAULT_MAX_MS). */
const FAULT_MIN_MS = 5_000;
const FAULT_MAX_MS = 30_000;
/** SETTLE_MS: how long after every JobSet completed the final status is read. */
const SETTLE_MS = 3_000;
/** FORWARDER_GRACE_MS: the pod's terminationGracePeriodSeconds is longer; the forwarder stops within its hold. */
const FORWARDER_GRACE_MS = 10_000;
/** MANIFEST, DOCKERFILE: the forwarder's Deployment and image, as shipped. */
const MANIFEST = join(REPO, 'infra/manifests/forwarder.yaml');
const DOCKERFILE = join(REPO, 'infra/forwarder.Dockerfile');

/** FunctionFigures: one function's emulator durations. */
export interface FunctionFigures {
  readonly function: string;
  readonly instances: number;
  readonly initMs: readonly number[];
  readonly invokeMs: readonly number[];
  readonly failedInvocations: number;
}

/** ScenarioOutcome: one scenario's JobSets as they ended. */
export interface ScenarioOutcome {
  readonly scenario: string;
  readonly namespace: string;
  readonly completed: number;
  readonly jobSets: number;
  readonly runMs: number;
  /** Per JobSet (by index), its replicatedJobs in the order their first Job started. */
  readonly orders: readonly string[];
  readonly statuses: ReadonlyMap<string, JsonObject>;
  /** InOrder broken: a stage started before the previous one was ready. */
  readonly violations: readonly string[];
  /** What the fault did, when there was one. */
  readonly fault?: string;
}

/** RehearsalResult: everything printed, and the failures (none: the rehearsal passed). */
export interface RehearsalResult {
  readonly failures: readonly string[];
  readonly lines: readonly string[];
  readonly functions: readonly FunctionFigures[];
  readonly scenarios: readonly { readonly rehearsal: ScenarioOutcome; readonly inProcess: ScenarioOutcome }[];
  readonly wallMs: number;
}

/** RehearsalOptions: where the cloud assembly is, and how many JobSets. */
export interface RehearsalOptions {
  /** A synthesized cloud assembly; synthesized into a temporary directory when absent. */
  readonly cdkOut?: string;
  readonly jobSets?: number;
  /** Progress lines (stderr by default). */
  readonly progress?: (line: string) => void;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};
const ms = (value: number): string => `${Math.round(value)} ms`;
const seconds = (value: number): string => `${(value / 1000).toFixed(1)} s`;

/** synthesize: `node infra/synth.ts --outdir DIR`. */
export const synthesize = (outdir: string): void => {
  const result = spawnSync(process.execPath, ['infra/synth.ts', '--outdir', outdir], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`node infra/synth.ts failed (exit ${String(result.status)}): ${(result.stderr || String(result.error)).slice(-2_000)}`);
};

/** readTemplate: the assembly's template that holds Lambda functions (the Lineup stack's). */
export const readTemplate = (cdkOut: string): { file: string; template: Template } => {
  for (const name of readdirSync(cdkOut).filter((file) => file.endsWith('.template.json')).sort()) {
    const template = JSON.parse(readFileSync(join(cdkOut, name), 'utf8')) as Template;
    if (Object.values(template.Resources ?? {}).some((resource) => resource.Type === 'AWS::Lambda::Function')) return { file: join(cdkOut, name), template };
  }
  throw new Error(`${cdkOut} holds no *.template.json with a Lambda function`);
};

/** assetFiles: every file under an asset directory, with the text of its code files. */
export const assetFiles = (dir: string): AssetFile[] => {
  const walk = (path: string): AssetFile[] =>
    readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return walk(child);
      return [{ path: relative(dir, child), text: /\.(m|c)?js$/.test(entry.name) ? readFileSync(child, 'utf8') : '' }];
    });
  return walk(dir);
};

/** manifestIn: story 2 under `name` in `namespace`, managed by `controllerName`. */
const manifestIn = (base: JsonObject, namespace: string, name: string, controllerName: string): JsonObject => ({
  ...base,
  metadata: { name, namespace },
  spec: { ...(base.spec as JsonObject), managedBy: controllerName },
});

/** ScenarioContext: what a scenario run needs. */
interface ScenarioContext {
  readonly client: BenchKubeClient;
  readonly jobs: JobWatch;
  readonly base: JsonObject;
  readonly stages: readonly Stage[];
  readonly controllerName: string;
  readonly count: number;
}

/** runScenario: create the JobSets, run `during` beside them, wait until all completed (or the timeout), and read how they ended. */
const runScenario = async (context: ScenarioContext, scenario: string, namespace: string, during?: () => Promise<string>): Promise<ScenarioOutcome> => {
  const { client, jobs, base, stages, count } = context;
  await client.createNamespace(namespace);
  const names = Array.from({ length: count }, (_, index) => `story2-${index}`);
  const started = Date.now();
  const fault = during?.();
  await Promise.all(names.map((name) => client.createJobSet(namespace, manifestIn(base, namespace, name, context.controllerName))));
  let completed = 0;
  while (Date.now() - started < SCENARIO_TIMEOUT_MS) {
    completed = [...(await jobSetsIn(client, namespace)).completed].filter((name) => names.includes(name)).length;
    if (completed === names.length) break;
    await sleep(500);
  }
  const runMs = Date.now() - started;
  const faultDone = fault === undefined ? undefined : await fault;
  // The controller's last writes after Completed (the startup's conditions) land before the status is read.
  await sleep(SETTLE_MS);
  const { byName } = await jobSetsIn(client, namespace);
  const violations: string[] = [];
  const orders = names.map((name) => {
    const firstRun = (stage: Stage): number => Math.min(...jobsOf(name, stage).map((job) => jobs.runningAt.get(`${namespace}/${job}`) ?? Number.POSITIVE_INFINITY));
    const lastReady = (stage: Stage): number => Math.max(...jobsOf(name, stage).map((job) => jobs.readyAt.get(`${namespace}/${job}`) ?? Number.POSITIVE_INFINITY));
    stages.forEach((stage, index) => {
      const previous = stages[index - 1];
      if (previous !== undefined && firstRun(stage) < lastReady(previous)) violations.push(`${namespace}/${name}: ${stage.name} started before ${previous.name} was ready`);
    });
    return [...stages]
      .map((stage) => ({ stage: stage.name, at: firstRun(stage) }))
      .sort((a, b) => a.at - b.at)
      .map((entry) => (Number.isFinite(entry.at) ? entry.stage : `${entry.stage} (never ran)`))
      .join(' → ');
  });
  const statuses = new Map(names.flatMap((name) => (byName.has(name) ? [[name, byName.get(name) as JsonObject] as const] : [])));
  return { scenario, namespace, completed, jobSets: names.length, runMs, orders, statuses, violations, ...(faultDone === undefined ? {} : { fault: faultDone }) };
};

/** FunctionRun: a function's instances and what the rehearsal saw of them. */
interface FunctionRun {
  readonly wiring: LambdaFunctionWiring;
  readonly instances: FunctionInstance[];
  readonly invokeMs: number[];
  failed: number;
  readonly errors: string[];
}

/** functionEnvironment: what the function's process gets — the runtime's variables, the template's (resolved), the endpoints. */
const functionEnvironment = (fn: LambdaFunctionWiring, created: Created, assetDir: string, moto: MotoServer, dynamo: DynaliteServer): Record<string, string> => {
  const template = Object.fromEntries(Object.entries(fn.environment).map(([name, value]) => [name, resolve(value, created, `function ${fn.logicalId}: Environment variable ${name}`)]));
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    TZ: ':UTC',
    LANG: 'en_US.UTF-8',
    _HANDLER: fn.handler,
    LAMBDA_TASK_ROOT: assetDir,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_TIMEOUT: String(fn.timeoutSeconds),
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.logicalId}`,
    AWS_LAMBDA_LOG_STREAM_NAME: 'rehearsal',
    AWS_REGION: moto.clientConfig.region,
    AWS_DEFAULT_REGION: moto.clientConfig.region,
    AWS_ACCESS_KEY_ID: moto.clientConfig.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: moto.clientConfig.credentials.secretAccessKey,
    // The AWS endpoints alone point at the test servers; any other service is unreachable, so a call to it fails at once.
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    AWS_ENDPOINT_URL_SQS: moto.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: moto.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    ...template,
  };
};

/** runRehearsal: see the file comment. Never throws for what it finds: `failures` says it; throws only when it cannot run. */
export const runRehearsal = async (options: RehearsalOptions = {}): Promise<RehearsalResult> => {
  const wallStarted = Date.now();
  const progress = options.progress ?? ((line: string) => process.stderr.write(`rehearse: ${line}\n`));
  const count = options.jobSets ?? DEFAULT_JOBSETS;
  const work = mkdtempSync(join(tmpdir(), 'lineup-rehearsal-'));
  const failures: string[] = [];
  const lines: string[] = [];
  const functionRuns: FunctionRun[] = [];
  const scenarios: { rehearsal: ScenarioOutcome; inProcess: ScenarioOutcome }[] = [];
  const stops: (() => Promise<unknown>)[] = [];
  const finish = (): RehearsalResult => ({
    failures,
    lines: [...lines, ...(failures.length === 0 ? [`rehearsal passed in ${seconds(Date.now() - wallStarted)}`] : [`rehearsal FAILED (${failures.length}):`, ...failures.map((failure) => `  ${failure}`)])],
    functions: functionRuns.map((run) => ({ function: run.wiring.logicalId, instances: run.instances.length, initMs: run.instances.flatMap((instance) => instance.initMs() ?? []), invokeMs: run.invokeMs, failedInvocations: run.failed })),
    scenarios,
    wallMs: Date.now() - wallStarted,
  });
  try {
    let cdkOut = options.cdkOut;
    if (cdkOut === undefined) {
      cdkOut = join(work, 'cdk.out');
      progress(`synthesizing the stack into ${cdkOut}`);
      const synthStarted = Date.now();
      synthesize(cdkOut);
      lines.push(`synthesized with node infra/synth.ts in ${seconds(Date.now() - synthStarted)}`);
    }
    const { file, template } = readTemplate(cdkOut);
    let wiring: Wiring;
    try {
      wiring = readWiring(template);
    } catch (error) {
      failures.push(`${file}: ${(error as Error).message}`);
      return finish();
    }
    lines.push(`template ${file}: ${wiring.functions.length} functions, ${wiring.queues.length} queues, ${wiring.rules.length} queue rules, ${wiring.eventSourceMappings.length} event source mappings, ${wiring.tables.length} tables, ${wiring.schedules.length} schedules`);

    // Checks before anything runs: handler, runtime, environment names.
    const nodeMajor = process.versions.node.split('.')[0];
    for (const fn of wiring.functions) {
      const dir = join(cdkOut, fn.assetDir);
      let files: AssetFile[] = [];
      try {
        files = assetFiles(dir);
      } catch (error) {
        failures.push(`function ${fn.logicalId}: its asset ${fn.assetDir} cannot be read from ${cdkOut}: ${(error as Error).message}`);
        continue;
      }
      const check = checkFunction(fn, files);
      failures.push(...check.problems);
      if (fn.runtime !== `nodejs${nodeMajor}.x`) failures.push(`function ${fn.logicalId}: Runtime ${fn.runtime}, but the rehearsal's Node is ${process.version} (expected nodejs${nodeMajor}.x)`);
      lines.push(
        `function ${fn.logicalId}: ${fn.handler} (${check.handlerFile ?? 'not found'} in ${fn.assetDir}), ${fn.runtime}, ${fn.memoryMb} MB, ${fn.timeoutSeconds} s, ` +
          `${Object.keys(fn.environment).length} variables${check.defaulted.length === 0 ? '' : `; the code also names ${check.defaulted.join(', ')} (not set: defaults)`}`,
      );
    }
    // What CreateEventSourceMapping itself refuses: a queue whose visibility timeout is shorter than the function's timeout.
    for (const mapping of wiring.eventSourceMappings) {
      const queue = wiring.queues.find((candidate) => candidate.logicalId === mapping.queue);
      const fn = wiring.functions.find((candidate) => candidate.logicalId === mapping.function);
      if (queue !== undefined && fn !== undefined && queue.visibilityTimeoutSeconds < fn.timeoutSeconds) {
        failures.push(`event source mapping ${mapping.logicalId}: queue ${queue.logicalId}'s VisibilityTimeout ${queue.visibilityTimeoutSeconds} s is shorter than function ${fn.logicalId}'s Timeout ${fn.timeoutSeconds} s (Lambda refuses the mapping)`);
      }
    }
    if (failures.length > 0) return finish();

    const rie = ensureRie();
    if (!('binary' in rie)) {
      failures.push(`the Lambda Runtime Interface Emulator is unavailable: ${rie.unavailable}`);
      return finish();
    }

    progress('starting moto and dynalite, creating the template resources');
    const [moto, dynamo] = await Promise.all([startMoto(), startDynalite()]);
    stops.push(() => moto.stop(), () => dynamo.stop());
    const created = await createResources(wiring, moto.clientConfig, dynamo.clientConfig, TIME_FACTOR);

    // Function instances, and one invocation of each to run its init (a bad environment or handler fails here).
    const runtimeClient = writeRuntimeClient(work);
    const instancesOf = (fn: LambdaFunctionWiring): number => {
      const mappings = wiring.eventSourceMappings.filter((mapping) => mapping.function === fn.logicalId);
      return mappings.length === 0 ? 1 : Math.min(MAX_INSTANCES, Math.max(...mappings.map((mapping) => mapping.maxConcurrency ?? MAX_INSTANCES)));
    };
    // Functions nothing in the stack invokes at run time (a custom resource's provider runs at deploy time) are checked above, not started.
    const invoked = (fn: LambdaFunctionWiring): boolean =>
      wiring.eventSourceMappings.some((mapping) => mapping.function === fn.logicalId) || wiring.schedules.some((schedule) => schedule.function === fn.logicalId);
    const notInvoked = wiring.functions.filter((fn) => !invoked(fn)).map((fn) => fn.logicalId);
    if (notInvoked.length > 0) lines.push(`not started (no event source mapping or schedule invokes them; run at deploy time or by something not modelled): ${notInvoked.join(', ')}`);
    for (const fn of wiring.functions.filter(invoked)) {
      const env = functionEnvironment(fn, created, join(cdkOut, fn.assetDir), moto, dynamo);
      const run: FunctionRun = { wiring: fn, instances: [], invokeMs: [], failed: 0, errors: [] };
      functionRuns.push(run);
      for (let index = 0; index < instancesOf(fn); index += 1) {
        const instance = await FunctionInstance.start({ rie: rie.binary, runtimeClient, env, nodeArgs: heapArgs(fn.memoryMb), logFile: join(work, `${fn.logicalId}-${index}.log`), name: `function ${fn.logicalId}` });
        stops.push(() => instance.stop());
        run.instances.push(instance);
      }
    }
    progress('invoking each function once (its init)');
    for (const run of functionRuns) {
      const fed = wiring.eventSourceMappings.some((mapping) => mapping.function === run.wiring.logicalId);
      const schedule = wiring.schedules.find((candidate) => candidate.function === run.wiring.logicalId);
      const probe = fed ? { Records: [] } : (schedule?.input ?? {});
      for (const instance of run.instances) {
        const result = await instance.invoke(probe);
        if (!result.ok) {
          // The runtime's first line says what failed (the stack trace points into the minified bundle).
          failures.push(`function ${run.wiring.logicalId} (${run.wiring.handler} in ${run.wiring.assetDir}) failed its first invocation with ${JSON.stringify(probe)}: ${result.error.replace(/^function \S+: /, '').split('\n')[0] ?? ''}`);
          break;
        }
      }
    }
    // Each schedule's input once: a schedule that fires daily would otherwise never run in a rehearsal.
    for (const schedule of wiring.schedules) {
      const instance = functionRuns.find((run) => run.wiring.logicalId === schedule.function)?.instances[0];
      if (instance === undefined) continue;
      const result = await instance.invoke(schedule.input ?? {});
      if (!result.ok) failures.push(`schedule ${schedule.logicalId}: function ${schedule.function} failed with its input ${JSON.stringify(schedule.input)}: ${result.error.replace(/^function \S+: /, '').split('\n')[0] ?? ''}`);
    }
    if (failures.length > 0) return finish();

    progress('starting the control plane (kube-apiserver, etcd, kube-controller-manager, kube-scheduler, kwok)');
    const cluster: E2eCluster = await startE2eCluster();
    stops.push(() => cluster.stop());
    const proxy = new FlakyProxy(Number(new URL(cluster.kube.url).port));
    const proxyUrl = await proxy.start();
    stops.push(() => proxy.stop());
    const kube = cluster.kube;
    const client = new BenchKubeClient(kube);
    stops.push(async () => client.close());
    const jobs = new JobWatch(kube);
    await jobs.start();
    stops.push(() => jobs.stop());

    // The cluster registered in every table a function names (what `lineup clusters add` writes), reached through the proxy.
    const ddb = new DynamoDBClient(dynamo.clientConfig);
    stops.push(async () => ddb.destroy());
    const allEnv = Object.assign({}, ...functionRuns.map((run) => Object.fromEntries(Object.entries(run.wiring.environment).map(([name, value]) => [name, resolve(value, created, `function ${run.wiring.logicalId}: ${name}`)])))) as Record<string, string>;
    for (const table of wiring.tables) {
      if (!Object.values(allEnv).includes(table.logicalId)) continue;
      await new DynamoCheckpointStore({ client: ddb, tableName: table.logicalId, counters: new Counters() }).putCluster({ id: CLUSTER_ID, endpoint: proxyUrl, caData: kube.caPem, auth: { type: 'token', token: kube.lineupToken } });
    }
    const controllerName = allEnv['LINEUP_CONTROLLER_NAME'] ?? DEFAULT_CONTROLLER_NAME;
    const base = story2Manifest();
    const context: ScenarioContext = { client, jobs, base, stages: stagesOf(base), controllerName, count };

    // The in-process pipeline first, on the same control plane (its own bus, queue and table), then its JobSets deleted.
    progress(`the in-process pipeline: ${count} story-2 JobSets`);
    const rule = reconcilerRuleOf(template.Resources ?? {});
    const pipeline = await Pipeline.start({ kube, moto, dynamo, clusterId: 'inprocess', rule, pollers: MAX_INSTANCES, deployedForwarderTimings: true, leaseTtlMs: DEFAULT_LEASE_TTL_MS, visibilityTimeoutSeconds: 6 });
    let inProcess: ScenarioOutcome;
    try {
      inProcess = await runScenario(context, 'in-process pipeline', 'inprocess');
    } finally {
      await pipeline.stop();
    }
    const deleted = await kube.request('DELETE', '/apis/jobset.x-k8s.io/v1alpha2/namespaces/inprocess/jobsets');
    if (deleted.status !== 200) throw new Error(`deleting the in-process pipeline's JobSets answered ${deleted.status}: ${deleted.body.slice(0, 300)}`);

    // The deployed wiring: pollers, schedules, the forwarder.
    const abort = new AbortController();
    const sqs = new SQSClient(moto.clientConfig);
    stops.push(async () => sqs.destroy());
    const batches: { at: number; fn: string; settlement: Settlement }[] = [];
    const pollerRuns: Promise<void>[] = [];
    for (const mapping of wiring.eventSourceMappings) {
      const run = functionRuns.find((candidate) => candidate.wiring.logicalId === mapping.function);
      const queueUrl = created.queueUrls.get(mapping.queue);
      const queueArn = created.arns.get(mapping.queue);
      if (run === undefined || queueUrl === undefined || queueArn === undefined) throw new Error(`event source mapping ${mapping.logicalId}: its function or queue was not created`);
      const pollers = Math.min(run.instances.length, mapping.maxConcurrency ?? run.instances.length);
      for (let index = 0; index < pollers; index += 1) {
        const instance = run.instances[index] as FunctionInstance;
        const poller = new EventSourcePoller(
          {
            receive: async (max, waitSeconds, signal) => {
              const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: max, WaitTimeSeconds: waitSeconds, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }), { abortSignal: signal });
              return (out.Messages ?? []).map((message) => ({ messageId: message.MessageId ?? '', receiptHandle: message.ReceiptHandle ?? '', record: sqsRecordOf(message, queueArn, moto.clientConfig.region) }));
            },
            delete: async (messages) => {
              const out = await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: messages.map((message, id) => ({ Id: String(id), ReceiptHandle: message.receiptHandle })) }));
              if ((out.Failed ?? []).length > 0) throw new Error(`DeleteMessageBatch failed for ${JSON.stringify(out.Failed)}`);
            },
            invoke: async (event): Promise<Invocation> => {
              const result = await instance.invoke(event);
              run.invokeMs.push(result.ms);
              if (!result.ok) {
                run.failed += 1;
                run.errors.push(result.error);
              }
              return result.ok ? { ok: true, payload: result.payload } : { ok: false, error: result.error };
            },
          },
          {
            batchSize: mapping.batchSize,
            batchingWindowSeconds: mapping.batchingWindowSeconds,
            reportBatchItemFailures: mapping.reportBatchItemFailures,
            onBatch: ({ settlement }) => batches.push({ at: Date.now(), fn: mapping.function, settlement }),
            onError: (error) => {
              if (!abort.signal.aborted) progress(`poller of ${mapping.logicalId}: ${String(error)}`);
            },
          },
        );
        pollerRuns.push(poller.run(abort.signal));
      }
    }
    stops.push(async () => {
      abort.abort();
      await Promise.all(pollerRuns);
    });
    const scheduled: { at: number; schedule: string; ok: boolean; payload: unknown; error: string }[] = [];
    for (const schedule of wiring.schedules) {
      const run = functionRuns.find((candidate) => candidate.wiring.logicalId === schedule.function);
      const instance = run?.instances[0];
      if (run === undefined || instance === undefined) throw new Error(`schedule ${schedule.logicalId}: its function ${schedule.function} was not started`);
      let busy = false;
      const timer = setInterval(() => {
        // An invocation still running when the next is due: the tick is skipped (one instance here; Lambda would start another).
        if (busy) return;
        busy = true;
        void instance.invoke(schedule.input ?? {}).then((result) => {
          busy = false;
          run.invokeMs.push(result.ms);
          if (!result.ok) {
            run.failed += 1;
            run.errors.push(result.error);
          }
          scheduled.push({ at: Date.now(), schedule: schedule.logicalId, ok: result.ok, payload: result.payload, error: result.error });
        });
      }, Math.max(250, schedule.everyMs / TIME_FACTOR));
      stops.push(async () => clearInterval(timer));
    }

    progress('building the forwarder bundle and starting it as the Deployment says');
    const appDir = join(work, 'app');
    mkdirSync(appDir, { recursive: true });
    await buildForwarderBundle(join(appDir, 'lineup-forward.mjs'));
    const container = readForwarderContainer(readFileSync(MANIFEST, 'utf8'));
    const busValue = wiring.functions.flatMap((fn) => Object.values(fn.environment)).find((value) => 'ref' in value && wiring.buses.some((bus) => bus.logicalId === value.ref));
    const busArn = busValue !== undefined && 'ref' in busValue ? created.arns.get(busValue.ref) : undefined;
    if (busArn === undefined) throw new Error('no function of the template names a bus of the stack: the forwarder has nowhere to put');
    const placeholders: Record<string, string> = { ...allEnv, LINEUP_FORWARDER_CLUSTER: CLUSTER_ID, LINEUP_EVENT_BUS_NAME: busArn, AWS_REGION: moto.clientConfig.region };
    const forwarderEnv: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      ...dockerfileEnv(readFileSync(DOCKERFILE, 'utf8')),
      ...Object.fromEntries(container.env.map((entry) => [entry.name, substitute(entry.value, placeholders, `forwarder env ${entry.name}`)])),
      AWS_ACCESS_KEY_ID: moto.clientConfig.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: moto.clientConfig.credentials.secretAccessKey,
      AWS_ENDPOINT_URL_EVENTBRIDGE: moto.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    };
    const kubeconfig = join(work, 'forwarder.kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: kube.url, 'certificate-authority-data': Buffer.from(kube.caPem).toString('base64') } }],
        users: [{ name: 'u', user: { token: kube.lineupToken } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const forwarderLog = join(work, 'forwarder.log');
    const forwarder: ForwarderProcess = startForwarder(container, appDir, forwarderEnv, ['--kubeconfig', kubeconfig], forwarderLog);
    let forwarderStopped = false;
    stops.push(async () => (forwarderStopped ? undefined : forwarder.stop(FORWARDER_GRACE_MS)));

    // Scenario 1: story 2.
    progress(`scenario story 2: ${count} JobSets through the deployed wiring`);
    const story = await runScenario(context, 'story 2', 'rehearsal-story2');
    scenarios.push({ rehearsal: story, inProcess });

    // Scenario 2: the reconciler cut off from the API server (its registry endpoint is the proxy) until records failed, then back.
    progress('scenario fault: the reconciler cut off from the API server, then back');
    const reconcilerFns = new Set(wiring.eventSourceMappings.map((mapping) => mapping.function));
    const faulty = await runScenario(context, 'fault', 'rehearsal-fault', async () => {
      const from = Date.now();
      proxy.outage();
      const keptSince = (): number => batches.filter((batch) => batch.at >= from && reconcilerFns.has(batch.fn)).reduce((sum, batch) => sum + batch.settlement.kept.length, 0);
      while (Date.now() - from < FAULT_MAX_MS && (Date.now() - from < FAULT_MIN_MS || keptSince() === 0)) await sleep(100);
      proxy.restore();
      const outageMs = Date.now() - from;
      const kept = keptSince();
      if (kept === 0) failures.push(`fault: no record failed during the ${seconds(outageMs)} outage (the fault was not exercised)`);
      return `API server unreachable for the reconciler for ${seconds(outageMs)}: ${kept} records failed and stayed on the queue`;
    });
    scenarios.push({ rehearsal: faulty, inProcess });
    const faultFrom = Date.now() - faulty.runMs;
    const resyncQueued = scheduled.filter((entry) => entry.at >= faultFrom).reduce((sum, entry) => sum + (typeof entry.payload === 'object' && entry.payload !== null && typeof (entry.payload as { synced?: unknown }).synced === 'number' ? (entry.payload as { synced: number }).synced : 0), 0);
    const retried = batches.filter((batch) => batch.at >= faultFrom).reduce((sum, batch) => sum + batch.settlement.kept.length, 0);

    // Nothing lost: every dead-letter queue of the template empty.
    const deadLetterQueues = new Set(wiring.queues.flatMap((queue) => (queue.redrive === undefined ? [] : [queue.redrive.deadLetterQueue])));
    for (const id of deadLetterQueues) {
      const url = created.queueUrls.get(id);
      if (url === undefined) continue;
      const attributes = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }))).Attributes ?? {};
      const depth = Number(attributes['ApproximateNumberOfMessages'] ?? 0) + Number(attributes['ApproximateNumberOfMessagesNotVisible'] ?? 0);
      if (depth > 0) failures.push(`dead-letter queue ${id} holds ${depth} messages: records were given up on`);
    }

    // The forwarder stops as a pod's does (SIGTERM), within its memory limit.
    const peak = forwarder.peakRss();
    const stopStarted = Date.now();
    const code = await forwarder.stop(FORWARDER_GRACE_MS);
    forwarderStopped = true;
    const stopMs = Date.now() - stopStarted;
    if (code !== 0) failures.push(`forwarder: exited ${String(code)} on SIGTERM, expected 0: ${readFileSync(forwarderLog, 'utf8').slice(-1_000)}`);
    if (peak !== undefined && container.memoryLimitBytes !== undefined && peak > container.memoryLimitBytes) failures.push(`forwarder: peak resident memory ${(peak / 2 ** 20).toFixed(0)} MiB over the container's limit ${container.memoryLimit}`);

    // Comparisons.
    for (const { rehearsal, inProcess: theirs } of scenarios) {
      if (rehearsal.completed !== rehearsal.jobSets) failures.push(`${rehearsal.scenario}: ${rehearsal.completed} of ${rehearsal.jobSets} JobSets completed within ${seconds(SCENARIO_TIMEOUT_MS)} (in-process: ${theirs.completed})`);
      failures.push(...rehearsal.violations.map((violation) => `${rehearsal.scenario}: ${violation}`));
      rehearsal.orders.forEach((order, index) => {
        if (order !== theirs.orders[index]) failures.push(`${rehearsal.scenario}: story2-${index} started ${order}, the in-process pipeline's ${theirs.orders[index] ?? '(none)'}`);
      });
      for (const difference of compareStatuses(rehearsal.statuses, theirs.statuses)) failures.push(`${rehearsal.scenario}: final status differs from the in-process pipeline's: ${JSON.stringify(difference)}`);
    }
    const lost = batches.reduce((sum, batch) => sum + batch.settlement.ignoredFailures, 0);
    if (lost > 0) failures.push(`${lost} records the function reported failed were deleted all the same: ${batches.find((batch) => batch.settlement.ignoredFailures > 0)?.settlement.reason ?? ''}`);
    for (const run of functionRuns) {
      // The handlers report a record they could not handle as a batch item failure: an invocation error is never expected, fault or not.
      for (const error of run.errors.slice(0, 3)) failures.push(`function ${run.wiring.logicalId}: an invocation failed: ${error.slice(0, 500)}`);
    }

    // The report.
    lines.push('', 'scenario            rehearsal (deployed wiring)                      in-process pipeline');
    for (const { rehearsal, inProcess: theirs } of scenarios) {
      lines.push(`${rehearsal.scenario.padEnd(20)}${`${rehearsal.completed}/${rehearsal.jobSets} completed in ${seconds(rehearsal.runMs)}`.padEnd(49)}${theirs.completed}/${theirs.jobSets} completed in ${seconds(theirs.runMs)}`);
      lines.push(`${''.padEnd(20)}${`start order ${rehearsal.orders[0] ?? '-'}`.padEnd(49)}start order ${theirs.orders[0] ?? '-'}`);
      const differences = compareStatuses(rehearsal.statuses, theirs.statuses).length;
      lines.push(`${''.padEnd(20)}final status: ${differences === 0 ? 'the same' : `${differences} differences`}${rehearsal.fault === undefined ? '' : `; ${rehearsal.fault}; ${retried} records retried, the resync re-queued ${resyncQueued} JobSets; dead-letter queues empty: ${failures.some((failure) => failure.startsWith('dead-letter')) ? 'no' : 'yes'}`}`);
    }
    lines.push('', 'function                        instances  init (emulator INIT REPORT)   invocations  invoke p50 / max (round trip)  failed');
    for (const run of functionRuns) {
      const inits = run.instances.flatMap((instance) => instance.initMs() ?? []);
      lines.push(
        `${run.wiring.logicalId.padEnd(32)}${String(run.instances.length).padEnd(11)}${(inits.length === 0 ? '-' : inits.map((value) => ms(value)).join(', ')).padEnd(30)}${String(run.invokeMs.length).padEnd(13)}${(run.invokeMs.length === 0 ? '-' : `${ms(median(run.invokeMs))} / ${ms(Math.max(...run.invokeMs))}`).padEnd(31)}${run.failed}`,
      );
    }
    lines.push(`forwarder: ${forwarder.argv.map((part) => relative(work, part).startsWith('..') ? part : `<work>/${relative(work, part)}`).join(' ')}; peak resident ${peak === undefined ? '?' : `${(peak / 2 ** 20).toFixed(0)} MiB`} (limit ${container.memoryLimit ?? 'none'}); stopped ${ms(stopMs)} after SIGTERM, exit ${String(code)}`);
    lines.push('', `honoured (${wiring.honoured.length} properties):`, ...wiring.honoured.map((entry) => `  ${entry.what}: ${entry.how}`));
    lines.push(
      '  forwarder Deployment: command, args, env (placeholders filled as docs/deploy.md says), the image ENV; memory limit: peak resident memory checked against it',
      `  time: schedule rates and queue visibility timeouts divided by ${TIME_FACTOR}; batching windows and function timeouts as the template says`,
    );
    lines.push(
      '',
      'not honoured:',
      ...wiring.notHonoured.map((entry) => `  ${entry.what} (${entry.resources.length}: ${entry.resources.slice(0, 3).join(', ')}${entry.resources.length > 3 ? ', …' : ''}): ${entry.reason}`),
      `  AWS::Lambda::EventSourceMapping.ScalingConfig above ${MAX_INSTANCES}: capped at ${MAX_INSTANCES} emulators per function on this machine`,
      "  forwarder: the pod's service account (given --kubeconfig with the same user's token), the memory limit as a cgroup, the image's filesystem (the bundle runs from a temporary directory)",
    );
    return finish();
  } catch (error) {
    failures.push(`the rehearsal could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return finish();
  } finally {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (error) {
        progress(`stopping: ${String(error)}`);
      }
    }
    if (process.env['LINEUP_KEEP_REHEARSAL'] === '1') progress(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
};

/** copyAssembly: a copy of a cloud assembly, for a test that edits its template. */
export const copyAssembly = (from: string, to: string): void => {
  cpSync(from, to, { recursive: true });
  if (!statSync(to).isDirectory()) throw new Error(`copying ${from} to ${to} made no directory`);
};

if (import.meta.main) {
  const { values } = parseArgs({ options: { 'cdk-out': { type: 'string' }, jobsets: { type: 'string', default: String(DEFAULT_JOBSETS) } } });
  const started = Date.now();
  const result = await runRehearsal({ ...(values['cdk-out'] === undefined ? {} : { cdkOut: values['cdk-out'] }), jobSets: Number(values.jobsets) });
  console.log([`rehearsal of the deployed stack (${STORY}, ${Number(values.jobsets)} JobSets per scenario)`, ...result.lines, `whole command: ${seconds(Date.now() - started)}`].join('\n'));
  process.exitCode = result.failures.length === 0 ? 0 : 1;
}
