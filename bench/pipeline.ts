/**
 * Benchmark: KEP-104 story 2 (messagequeue → driver → worker, InOrder) on one real
 * kube-apiserver, by Lineup's whole pipeline and by the upstream JobSet controller, side by side
 * on the same server and the same JobSets:
 *
 *   namespace `lineup`    JobSets with managedBy lineup.dev/controller: watch → Forwarder (Lineup's
 *                         user) → moto EventBridge → the synthesized rule → moto SQS → pollers (as
 *                         many as the event source's maxConcurrency) → reconciler → kube-apiserver;
 *                         leases in dynalite (test/integration/e2e/pipeline.ts)
 *   namespace `upstream`  their twins, managedBy unset: the upstream controller (bench/upstream/build.sh),
 *                         its webhooks off, so their defaults are written into both specs
 *
 * Both namespaces get the same spec but for managedBy, and one Job-controller stand-in
 * (`JobControllerStandIn`, the same code for both): it marks a Job ready READY_AFTER_MS after it
 * starts running (Lineup: un-suspended; upstream: created unsuspended) and, COMPLETE_AFTER_MS
 * after the last Job of a JobSet is ready, completes every Job of it.
 *
 * Two phases: SOLO_JOBSETS JobSets per controller one after another (stage latency with no
 * queue), then N (100 by default) per controller at once, the issue's scenario. Per phase:
 * each stage transition's latency, from the API server's audit record of the previous stage's
 * last ready write (or of the JobSet's create) to its record of the write that ran the next
 * stage's last Job, p50 and p99 over the JobSets; where Lineup's latency goes (change on the
 * bus, pass started, Job running) and what the test servers' calls took; Kubernetes writes and
 * reads per startup per controller from the audit log of every request (Lineup by its user,
 * upstream by its user agent `jobset/`), beside Lineup's own counters; Lineup's events put,
 * reconcile passes and DynamoDB operations per startup; Lineup/upstream ratios. Then every
 * difference between the final status of a Lineup JobSet and its upstream twin, with its
 * verdict: documented (the README row), timing (the same rule on both sides), or not
 * documented. "Per startup" is one JobSet from creation to Completed, divided out of the phase's
 * totals; the burst's per-startup counts are written in infra/cost/report.ts's format.
 * Makes no assertions.
 *
 * `node bench/pipeline.ts [--jobsets N] [--counts-out FILE]` runs it alone.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parse } from 'yaml';
import { ConditionType, DEFAULT_CONTROLLER_NAME, Label } from '../lib/constants.ts';
import { CounterName, Counters } from '../lib/counters.ts';
import type { Job } from '../lib/jobset/schema.ts';
import { KubeWatchSource } from '../lib/k8s/watchSource.ts';
import { DEFAULT_RECONCILER_MAX_CONCURRENCY } from '../infra/config.ts';
import type { CountsFile, Range } from '../infra/cost/costModel.ts';
import { startE2eCluster, type E2eCluster } from '../test/integration/e2e/cluster.ts';
import { Pipeline, synthesizedRule, type PassRecord } from '../test/integration/e2e/pipeline.ts';
import { ADMIN_USER, LINEUP_USER, ensureKubeBinaries } from '../test/integration/harness/kube.ts';
import { ensureMotoVenv, startMoto, type MotoServer } from '../test/integration/harness/moto.ts';
import { startDynalite, type DynaliteServer } from '../test/integration/harness/dynamo.ts';
import {
  AUDITED_VERBS,
  UPSTREAM_USER_AGENT_PREFIX,
  auditedApiServerArgs,
  describeWrites,
  ensureUpstreamBinary,
  startUpstreamController,
  type ApiServerAudit,
  type AuditedWrite,
  type UpstreamController,
} from '../test/integration/harness/upstream.ts';
import type { KubeServer } from '../test/integration/harness/kube.ts';
import { repoPath } from '../test/repoFiles.ts';

/** DEFAULT_JOBSETS: JobSets per controller (the issue's 100). */
export const DEFAULT_JOBSETS = 100;
/** READY_AFTER_MS: how long after a Job starts running the stand-in writes it ready (pods scheduled and ready). */
export const READY_AFTER_MS = 200;
/**
 * COMPLETE_AFTER_MS: how long after a JobSet's last Job is ready the stand-in completes all its
 * Jobs — long beside either controller's stage latency under this load, so both have written
 * the end of the startup before the Jobs finish (with 1 s, a controller still catching up saw
 * the Jobs succeed first, and either one then went to Completed leaving StartupPolicyInProgress
 * True and no StartupPolicyCompleted).
 */
export const COMPLETE_AFTER_MS = 10_000;
/** SOLO_JOBSETS: JobSets per controller started one after another before the burst: stage latency with no queue. */
export const SOLO_JOBSETS = 5;
/** VISIBILITY_TIMEOUT_SECONDS: the bench queue's visibility timeout — long, so a slow batch is not redelivered while it runs (the stack's is 6 × the reconciler's timeout). */
const VISIBILITY_TIMEOUT_SECONDS = 30;
/** RUN_TIMEOUT_MS: how long every JobSet may take to complete before the figures are taken as they are. */
const RUN_TIMEOUT_MS = 5 * 60_000;
/** STORY: the example JobSet, KEP-104 story 2. */
const STORY = 'examples/story2-messagequeue-driver-worker.yaml';
/** NAMESPACE: where each controller's JobSets live. */
const NAMESPACE = { lineup: 'lineup', upstream: 'upstream' } as const;
/** DEFAULT_COUNTS_OUT: the per-startup counts, for bench/cost.ts and `node infra/cost/report.ts --counts`. */
export const DEFAULT_COUNTS_OUT = fileURLToPath(new URL('results/pipeline-counts.json', import.meta.url));
/** READ_VERBS: the verbs counted as API reads. */
const READ_VERBS = ['get', 'list', 'watch'] as const;
/** BENCH_USER_AGENT: the stand-in's and the bench's own requests. */
const BENCH_USER_AGENT = 'lineup-bench/pipeline';

type Controller = keyof typeof NAMESPACE;
type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const progress = (message: string): void => {
  process.stderr.write(`bench pipeline: ${message}\n`);
};

// ---------------------------------------------------------------------------------------------
// Figures.

/** StageFigure: one stage transition's latency over the JobSets of one controller. */
export interface StageFigure {
  readonly transition: string;
  /** JobSets that made the transition (the others are left out of the percentiles). */
  readonly jobSets: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** ApiFigure: one controller's API requests per startup, from the audit log. */
export interface ApiFigure {
  readonly writesPerStartup: number;
  readonly readsPerStartup: number;
  /** "12 writes: 5 create jobs, …" for the whole phase. */
  readonly writes: string;
  readonly reads: string;
  /** Requests the API server refused (code ≥ 400), e.g. conflicts. */
  readonly failed: string;
}

/** ControllerFigures: what is measured for both controllers. */
export interface ControllerFigures {
  readonly jobSetsCompleted: number;
  readonly stages: readonly StageFigure[];
  readonly api: ApiFigure;
}

/** LineupFigures: Lineup's own counts per startup besides. */
export interface LineupFigures extends ControllerFigures {
  readonly eventsPerStartup: number;
  readonly passesPerStartup: number;
  readonly invocationsPerStartup: number;
  readonly dynamoPerStartup: number;
  readonly dynamoByOperation: Readonly<Record<string, number>>;
  /** Lineup's own Kubernetes request counters per startup (k8s.get, …), to set beside the audit. */
  readonly kubeCountersPerStartup: Readonly<Record<string, number>>;
  /** Raw watch events per startup; includes the upstream namespace's Jobs, which the forwarder drops. */
  readonly watchEventsPerStartup: number;
  readonly recordsFailed: number;
  /** Where Lineup's stage latency goes. */
  readonly segments: readonly SegmentFigure[];
}

/** ServerCallFigure: one kind of call to a test server (moto, dynalite), its count and time. */
export interface ServerCallFigure {
  readonly operation: string;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** PhaseFigures: one phase — JobSets one at a time, or N at once. */
export interface PhaseFigures {
  readonly phase: string;
  readonly jobSets: number;
  readonly runMs: number;
  readonly lineup: LineupFigures;
  readonly upstream: ControllerFigures;
  /** Lineup/upstream per figure (NaN when upstream's is 0). */
  readonly ratios: Readonly<Record<string, number>>;
  /** The pipeline's calls to moto and dynalite: what the test servers add to Lineup's latency. */
  readonly serverCalls: readonly ServerCallFigure[];
}

/** StatusDifference: one difference between the final status of a Lineup JobSet and its upstream twin, and how many pairs show it. */
export interface StatusDifference {
  readonly field: string;
  readonly lineup: string;
  readonly upstream: string;
  readonly jobSets: number;
  readonly examples: readonly string[];
  readonly verdict: Verdict;
}

/** PipelineFigures: the whole benchmark. */
export interface PipelineFigures {
  readonly upstreamVersion: string;
  readonly readyAfterMs: number;
  readonly completeAfterMs: number;
  readonly pollers: number;
  readonly ruleFrom: string;
  /** SOLO_JOBSETS JobSets per controller, one after another: the latency without a queue. */
  readonly solo: PhaseFigures;
  /** N JobSets per controller at once: the issue's scenario; its counts go to the cost model. */
  readonly burst: PhaseFigures;
  /** Each controller's requests before the first JobSet (informers' or the forwarder's list and watch, discovery): fixed, not per startup. */
  readonly setupRequests: Readonly<Record<Controller, string>>;
  /** Final status of every Lineup JobSet (both phases) beside its upstream twin. */
  readonly statusPairsCompared: number;
  readonly statusDifferences: readonly StatusDifference[];
  readonly standInProblems: readonly string[];
  readonly countsFile: string;
  readonly counts: CountsFile;
  readonly wallMs: number;
}

const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
/** ratio: a / b to two decimals; NaN when b is not positive (no meaningful ratio). */
const ratio = (a: number, b: number): number => (b > 0 ? round(a / b, 2) : Number.NaN);

/** percentile: nearest rank of `p` in ascending `sorted`. */
const percentile = (sorted: readonly number[], p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

// ---------------------------------------------------------------------------------------------
// The API server's audit log: every request, so writes and reads can be told apart by user.

/** actorOf: who sent a request — Lineup (its own user), upstream (its user agent; it runs as the admin), the bench, or the server itself. */
const actorOf = (record: AuditedWrite): Controller | 'bench' | 'system' => {
  if (record.username === LINEUP_USER) return 'lineup';
  if (record.userAgent.startsWith(UPSTREAM_USER_AGENT_PREFIX)) return 'upstream';
  return record.username === ADMIN_USER ? 'bench' : 'system';
};

/** describeRequests: describeWrites's wording for reads too. */
const describeRequests = (records: readonly AuditedWrite[], noun: string): string => describeWrites(records).replace(/^(\d+) writes?/, (_, n: string) => `${n} ${noun}`);

/** apiFigure: one controller's requests in the audit log, per startup. */
const apiFigure = (records: readonly AuditedWrite[], controller: Controller, jobSets: number): ApiFigure => {
  const mine = records.filter((record) => actorOf(record) === controller);
  const writes = mine.filter((record) => (AUDITED_VERBS as readonly string[]).includes(record.verb));
  const reads = mine.filter((record) => (READ_VERBS as readonly string[]).includes(record.verb));
  const failed = mine.filter((record) => record.code >= 400);
  return {
    writesPerStartup: round(writes.length / jobSets, 2),
    readsPerStartup: round(reads.length / jobSets, 2),
    writes: describeRequests(writes, 'writes'),
    reads: describeRequests(reads, 'reads'),
    failed: failed.length === 0 ? 'none' : `${describeRequests(failed, 'refused')} (codes ${[...new Set(failed.map((record) => record.code))].join(', ')})`,
  };
};

// ---------------------------------------------------------------------------------------------
// The bench's own client: keep-alive, as the admin.

/** AdminClient: raw JSON requests as the admin over one keep-alive agent (the harness's request opens a TLS connection per call). */
class AdminClient {
  private readonly agent: Agent;
  private readonly base: URL;
  private readonly token: string;

  constructor(kube: KubeServer) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 16, ca: kube.caPem });
    this.base = new URL(kube.url);
    this.token = kube.adminToken;
  }

  /** request: the status and parsed body (undefined when not JSON). */
  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: unknown }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        new URL(path, this.base),
        {
          method,
          agent: this.agent,
          timeout: 30_000,
          headers: {
            authorization: `Bearer ${this.token}`,
            'user-agent': BENCH_USER_AGENT,
            accept: 'application/json',
            ...(payload === undefined ? {} : { 'content-type': contentType, 'content-length': String(Buffer.byteLength(payload)) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = text;
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no response within 30 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** ok: a request that must answer 2xx; its body. */
  async ok(method: string, path: string, body?: unknown, contentType?: string): Promise<JsonObject> {
    const response = await this.request(method, path, body, contentType);
    if (response.status < 200 || response.status >= 300) {
      throw new Error(`${method} ${path}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 500)}`);
    }
    return isObject(response.body) ? response.body : {};
  }

  close(): void {
    this.agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The Job-controller stand-in: one for both namespaces.

/** jobKey: `namespace/name`. */
const jobKey = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;
const nowSeconds = (): string => `${new Date().toISOString().slice(0, 19)}Z`;

/**
 * JobControllerStandIn: what kube-controller-manager's Job controller would write, for every Job
 * a JobSet controller created in any namespace. It watches Jobs as the admin (lib's own
 * KubeWatchSource); a Job it sees running for the first time (spec.suspend not true) is written
 * ready (active = ready = parallelism, startTime) READY_AFTER_MS later; once every Job of a
 * JobSet is ready, all of them are written complete (SuccessCriteriaMet and Complete, succeeded =
 * completions, completedIndexes) COMPLETE_AFTER_MS later. Writes are merge patches of the status
 * subresource, so they never conflict with the controllers' own writes. It records when it first
 * saw each Job running (the audit log says when the write that made it run happened).
 */
class JobControllerStandIn {
  /** When the watch first saw each Job running (epoch ms). */
  readonly runningAt = new Map<string, number>();
  /** What went wrong (a write that kept failing, a watch that broke). */
  readonly problems: string[] = [];
  private readonly jobs = new Map<string, Job>();
  private readonly readyJobs = new Map<string, string[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private readonly client: AdminClient;
  private readonly source: KubeWatchSource;
  private readonly jobsPerJobSet: number;
  private running: Promise<void> = Promise.resolve();

  constructor(kube: KubeServer, client: AdminClient, jobsPerJobSet: number) {
    this.client = client;
    this.jobsPerJobSet = jobsPerJobSet;
    this.source = new KubeWatchSource({ kubeConfig: kube.kubeConfig('admin'), counters: new Counters() });
  }

  /** start: list, then watch until stopped (re-listing when the watch expires). Resolves once the first list is handled. */
  async start(): Promise<void> {
    const first = await this.source.list('Job');
    for (const job of first.items) this.onJob(job);
    this.running = this.watchFrom(first.resourceVersion);
  }

  private async watchFrom(initial: string): Promise<void> {
    let resourceVersion = initial;
    while (!this.abort.signal.aborted) {
      try {
        const end = await this.source.watch(
          'Job',
          resourceVersion,
          (event) => {
            if (event.type === 'BOOKMARK') resourceVersion = event.resourceVersion;
            else {
              resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
              if (event.type !== 'DELETED') this.onJob(event.object);
            }
          },
          this.abort.signal,
        );
        if (end === 'expired') {
          const listed = await this.source.list('Job');
          for (const job of listed.items) this.onJob(job);
          resourceVersion = listed.resourceVersion;
        }
      } catch (error) {
        if (this.abort.signal.aborted) return;
        this.problems.push(`job watch failed, re-listing: ${(error as Error).message}`);
        await sleep(100);
        // A failed re-list is retried on the next turn of the loop, with the problem recorded above.
        const listed = await this.source.list('Job').catch(() => undefined);
        if (listed !== undefined) {
          for (const job of listed.items) this.onJob(job);
          resourceVersion = listed.resourceVersion;
        }
      }
    }
  }

  private later(ms: number, action: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action().catch((error: unknown) => this.problems.push((error as Error).message));
    }, ms);
    this.timers.add(timer);
  }

  /** onJob: a Job seen running for the first time gets its pods ready READY_AFTER_MS later. */
  private onJob(job: Job): void {
    const key = jobKey(job.metadata.namespace, job.metadata.name);
    this.jobs.set(key, job);
    if (job.metadata.deletionTimestamp !== undefined || job.spec.suspend === true || this.runningAt.has(key)) return;
    this.runningAt.set(key, Date.now());
    this.later(READY_AFTER_MS, () => this.markReady(key));
  }

  /** patchStatus: a merge patch of a Job's status; retried a few times on 429/5xx or a connection error. */
  private async patchStatus(key: string, status: JsonObject): Promise<void> {
    const [namespace, name] = key.split('/');
    const path = `/apis/batch/v1/namespaces/${namespace ?? ''}/jobs/${name ?? ''}/status`;
    for (let attempt = 1; ; attempt += 1) {
      const response = await this.client.request('PATCH', path, { status }, 'application/merge-patch+json').catch((error: unknown) => ({ status: 0, body: String(error) }));
      if (response.status >= 200 && response.status < 300) return;
      if (attempt >= 5 || (response.status >= 400 && response.status < 500 && response.status !== 429)) {
        throw new Error(`stand-in: status of job ${key}: HTTP ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
      }
      await sleep(100 * attempt);
    }
  }

  private async markReady(key: string): Promise<void> {
    const job = this.jobs.get(key);
    const parallelism = job?.spec.parallelism ?? 1;
    await this.patchStatus(key, { startTime: job?.status?.startTime ?? nowSeconds(), active: parallelism, ready: parallelism });
    const jobSet = jobKey(job?.metadata.namespace, job?.metadata.labels?.[Label.JobSetName]);
    const ready = [...(this.readyJobs.get(jobSet) ?? []), key];
    this.readyJobs.set(jobSet, ready);
    if (ready.length === this.jobsPerJobSet) this.later(COMPLETE_AFTER_MS, async () => void (await Promise.all(ready.map((jobKeyOf) => this.markComplete(jobKeyOf)))));
  }

  /** markComplete: what test/integration/e2e/cluster.ts's JobController.markComplete writes. */
  private async markComplete(key: string): Promise<void> {
    const job = this.jobs.get(key);
    const at = nowSeconds();
    const completions = job?.spec.completions ?? job?.spec.parallelism ?? 1;
    const indexed = job?.spec.completionMode === 'Indexed';
    const condition = (type: string) => ({ type, status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: at, lastTransitionTime: at });
    // startTime is left as the ready write set it: it is immutable once set on a running Job.
    await this.patchStatus(key, {
      completionTime: at,
      active: 0,
      ready: 0,
      succeeded: completions,
      ...(indexed ? { completedIndexes: completions === 1 ? '0' : `0-${completions - 1}` } : {}),
      conditions: [...(job?.status?.conditions ?? []), condition('SuccessCriteriaMet'), condition('Complete')],
    });
  }

  /** stop: the watch and every pending write. */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.running;
  }
}

// ---------------------------------------------------------------------------------------------
// The JobSets.

/**
 * story2Manifest: KEP-104 story 2 with upstream's webhook defaults written out (as
 * test/integration/upstream/upstream.test.ts does: upstream runs without its webhooks here), the
 * same for both controllers but for managedBy.
 */
const story2Manifest = (): JsonObject => {
  const manifest: unknown = parse(readFileSync(repoPath(STORY), 'utf8'));
  if (!isObject(manifest) || !isObject(manifest.spec) || !Array.isArray(manifest.spec.replicatedJobs)) throw new Error(`${STORY} is not a JobSet`);
  const { managedBy: _managedBy, ...spec } = manifest.spec;
  return {
    ...manifest,
    spec: {
      ...spec,
      // What upstream's mutating webhook (pkg/webhooks/jobset_webhook.go Default) would add.
      successPolicy: { operator: 'All' },
      network: { enableDNSHostnames: true, publishNotReadyAddresses: true },
      replicatedJobs: (spec.replicatedJobs as JsonObject[]).map((rjob) => {
        const template = rjob.template as JsonObject;
        const jobSpec = template.spec as JsonObject;
        const podTemplate = jobSpec.template as JsonObject;
        const podSpec = podTemplate.spec as JsonObject;
        return { ...rjob, template: { ...template, spec: { ...jobSpec, completionMode: 'Indexed', template: { ...podTemplate, spec: { restartPolicy: 'OnFailure', ...podSpec } } } } };
      }),
    },
  };
};

/** manifestFor: the story under `name` in `controller`'s namespace, managed by it. */
const manifestFor = (base: JsonObject, controller: Controller, name: string): JsonObject => ({
  ...base,
  metadata: { name, namespace: NAMESPACE[controller] },
  spec: controller === 'lineup' ? { ...(base.spec as JsonObject), managedBy: DEFAULT_CONTROLLER_NAME } : base.spec,
});

/** stagesOf: the replicatedJob names in order and their Job counts. */
const stagesOf = (manifest: JsonObject): { name: string; jobs: number }[] =>
  ((manifest.spec as JsonObject).replicatedJobs as JsonObject[]).map((rjob) => ({ name: String(rjob.name), jobs: Number(rjob.replicas ?? 1) }));

/** jobSetName: the i-th JobSet of the burst. */
const jobSetName = (index: number): string => `story2-${String(index).padStart(3, '0')}`;

// ---------------------------------------------------------------------------------------------
// Final status, side by side.

/** StatusView: the parts of a JobSet's final status that are compared. */
type StatusView = Map<string, string>;

/** statusView: field → value — replicatedJobsStatus counters, each condition's status/reason and message, terminalState, restarts. */
const statusView = (jobSet: JsonObject | undefined): StatusView => {
  const view: StatusView = new Map();
  const status = isObject(jobSet?.status) ? jobSet.status : {};
  for (const rjob of Array.isArray(status.replicatedJobsStatus) ? status.replicatedJobsStatus.filter(isObject) : []) {
    for (const counter of ['ready', 'succeeded', 'failed', 'active', 'suspended']) view.set(`replicatedJobsStatus[${String(rjob.name)}].${counter}`, String(rjob[counter] ?? 0));
  }
  for (const condition of Array.isArray(status.conditions) ? status.conditions.filter(isObject) : []) {
    view.set(`conditions[${String(condition.type)}]`, `${String(condition.status)} ${String(condition.reason ?? '')}`);
    view.set(`conditions[${String(condition.type)}].message`, JSON.stringify(condition.message ?? ''));
  }
  for (const field of ['terminalState', 'restarts', 'restartsCountTowardsMax']) {
    if (status[field] !== undefined) view.set(field, String(status[field]));
  }
  return view;
};

/** Verdict: why twins differ — a README row documents it, both controllers follow the same rule and only timing differs, or nothing explains it. */
export type Verdict = { readonly kind: 'documented' | 'timing'; readonly why: string } | { readonly kind: 'not documented' };

/** PairContext: what is known about the pair a difference comes from. */
interface PairContext {
  /** The side finished (Completed) while its StartupPolicyCompleted was never written: its controller first saw the last stage's Jobs after they had succeeded. */
  readonly lineupFinishedFirst: boolean;
  readonly upstreamFinishedFirst: boolean;
}

/** Explanation: a verdict and the differences it covers. */
interface Explanation {
  readonly verdict: Verdict;
  readonly explains: (field: string, context: PairContext) => boolean;
}

/** STARTUP_CONDITIONS: the conditions the InOrder walk writes. */
const STARTUP_CONDITIONS = [ConditionType.StartupPolicyInProgress, ConditionType.StartupPolicyCompleted].map((type) => `conditions[${type}]`);

/**
 * EXPLANATIONS: the README's "Where Lineup differs from upstream" rows a final-status difference
 * can come from, and the one timing effect both controllers share. A difference none explains
 * is reported as not documented.
 */
const EXPLANATIONS: readonly Explanation[] = [
  {
    verdict: {
      kind: 'timing',
      why:
        'same rule in both controllers — a JobSet whose Jobs all succeeded before its controller saw the last stage ready goes to Completed without ' +
        'StartupPolicyCompleted, leaving StartupPolicyInProgress True (upstream jobset_controller.go reconcile: executeSuccessPolicy returns before ' +
        'reconcileReplicatedJobs writes the startup conditions); one side was slower than COMPLETE_AFTER_MS here',
    },
    explains: (field, context) => context.lineupFinishedFirst !== context.upstreamFinishedFirst && STARTUP_CONDITIONS.some((condition) => field.startsWith(condition)),
  },
  {
    verdict: {
      kind: 'documented',
      why: 'README row "conditions only for InOrder" → "StartupPolicyInProgress/Completed for InOrder (upstream reasons) …; the user sees what is awaited": Lineup\'s messages say what is awaited',
    },
    explains: (field) => STARTUP_CONDITIONS.some((condition) => field === `${condition}.message`),
  },
  {
    verdict: { kind: 'documented', why: 'README row "InOrder keeps Suspended=True until the whole resume walk is done" → "Suspended turns False on resume"' },
    explains: (field) => field.startsWith(`conditions[${ConditionType.Suspended}]`),
  },
];

/** finishedFirst: Completed, but StartupPolicyCompleted never written (see EXPLANATIONS). */
const finishedFirst = (view: StatusView): boolean => view.get(`conditions[${ConditionType.Completed}]`)?.startsWith('True') === true && !view.has(`conditions[${ConditionType.StartupPolicyCompleted}]`);

/** compareStatuses: every difference between twin JobSets' final status, grouped by field, values and verdict. */
const compareStatuses = (lineup: ReadonlyMap<string, JsonObject>, upstream: ReadonlyMap<string, JsonObject>): StatusDifference[] => {
  const groups = new Map<string, { field: string; lineup: string; upstream: string; verdict: Verdict; names: string[] }>();
  for (const [name, ours] of lineup) {
    const mine = statusView(ours);
    const theirs = statusView(upstream.get(name));
    const context: PairContext = { lineupFinishedFirst: finishedFirst(mine), upstreamFinishedFirst: finishedFirst(theirs) };
    for (const field of new Set([...mine.keys(), ...theirs.keys()])) {
      const a = mine.get(field) ?? '(absent)';
      const b = theirs.get(field) ?? '(absent)';
      if (a === b) continue;
      // A condition absent on one side is one difference, not two (its message follows it).
      if (field.endsWith('.message') && (a === '(absent)' || b === '(absent)')) continue;
      const verdict = EXPLANATIONS.find((explanation) => explanation.explains(field, context))?.verdict ?? { kind: 'not documented' };
      const key = JSON.stringify([field, a, b, verdict.kind]);
      const group = groups.get(key) ?? { field, lineup: a, upstream: b, verdict, names: [] };
      group.names.push(name);
      groups.set(key, group);
    }
  }
  return [...groups.values()]
    .sort((x, y) => x.field.localeCompare(y.field) || y.names.length - x.names.length)
    .map((group) => ({
      field: group.field,
      lineup: group.lineup,
      upstream: group.upstream,
      jobSets: group.names.length,
      examples: group.names.sort().slice(0, 3),
      verdict: group.verdict,
    }));
};

// ---------------------------------------------------------------------------------------------
// The test servers' share: every AWS SDK call timed, DynamoDB capacity as infra/cost/measure.ts counts it.

/** ServerCall: one AWS SDK call the pipeline made to moto or dynalite. */
interface ServerCall {
  /** Epoch ms when it returned. */
  readonly at: number;
  /** 'PutEvents', 'ReceiveMessage', 'DeleteMessageBatch', 'UpdateItem', … */
  readonly operation: string;
  readonly ms: number;
  /** A ReceiveMessage that returned no message (a long poll that waited). */
  readonly empty: boolean;
  /** DynamoDB: capacity units (a failed conditional write: 1) and bytes of the item put. */
  readonly capacityUnits: number;
  readonly itemBytes: number;
}

type Send = (this: unknown, command: { input: Record<string, unknown>; constructor: { name: string } }, ...rest: unknown[]) => Promise<unknown>;

/** DOCUMENT_OPERATIONS: lib-dynamodb command names → DynamoDB operations (as infra/cost/measure.ts maps them). */
const DOCUMENT_OPERATIONS: Readonly<Record<string, string>> = { Put: 'PutItem', Update: 'UpdateItem', Get: 'GetItem', Query: 'Query', BatchGet: 'BatchGetItem', Delete: 'DeleteItem' };

/**
 * instrumentServerCalls: time every send of the EventBridge, SQS and DynamoDB document clients
 * (prototype wrappers, as infra/cost/measure.ts wraps the document client, whose
 * measureCapacity it does not export), asking dynalite for ConsumedCapacity on each request;
 * returns the calls seen and a function that puts the clients back.
 */
const instrumentServerCalls = (): { calls: ServerCall[]; restore: () => void } => {
  const calls: ServerCall[] = [];
  const restores: (() => void)[] = [];
  const wrap = (prototype: object, operationOf: (commandName: string) => string, measureCapacity: boolean): void => {
    const holder = prototype as { send?: Send };
    const own = Object.hasOwn(prototype, 'send');
    const original = holder.send as Send;
    holder.send = async function (this: unknown, command, ...rest) {
      const operation = operationOf(command.constructor.name.replace(/Command$/, ''));
      if (measureCapacity) command.input['ReturnConsumedCapacity'] = 'TOTAL';
      const started = Date.now();
      const record = (output: unknown, failed: boolean): void => {
        const result = (isObject(output) ? output : {}) as { ConsumedCapacity?: unknown; Messages?: unknown[] };
        const consumed = Array.isArray(result.ConsumedCapacity) ? result.ConsumedCapacity : result.ConsumedCapacity === undefined ? [] : [result.ConsumedCapacity];
        const item = command.input['Item'];
        calls.push({
          at: Date.now(),
          operation,
          ms: Date.now() - started,
          empty: operation === 'ReceiveMessage' && (result.Messages?.length ?? 0) === 0,
          // A write whose condition failed (a lease held elsewhere) is still billed: one unit for a state item.
          capacityUnits: failed ? 1 : (consumed as { CapacityUnits?: number }[]).reduce((sum, unit) => sum + (unit.CapacityUnits ?? 0), 0),
          itemBytes: !failed && item !== undefined ? Buffer.byteLength(JSON.stringify(item), 'utf8') : 0,
        });
      };
      try {
        const output = await original.call(this, command, ...rest);
        record(output, false);
        return output;
      } catch (error) {
        record(undefined, true);
        throw error;
      }
    };
    restores.push(() => {
      if (own) holder.send = original;
      else delete holder.send;
    });
  };
  wrap(EventBridgeClient.prototype, (name) => name, false);
  wrap(SQSClient.prototype, (name) => name, false);
  wrap(DynamoDBDocumentClient.prototype, (name) => DOCUMENT_OPERATIONS[name] ?? name, true);
  return { calls, restore: () => restores.forEach((restore) => restore()) };
};

// ---------------------------------------------------------------------------------------------
// The run.

/** PipelineBenchOptions: how many JobSets per controller, and where the counts go. */
export interface PipelineBenchOptions {
  /** @default DEFAULT_JOBSETS */
  readonly jobSets?: number;
  /** @default DEFAULT_COUNTS_OUT */
  readonly countsOut?: string;
}

/** Segment: one part of Lineup's stage latency, median over the JobSets. */
export interface SegmentFigure {
  readonly transition: string;
  /** The change on the bus: the forwarder's PutEvents that carried it returned. */
  readonly toBusP50Ms: number;
  /** From the bus to the start of the pass that started the next stage: moto's rule and queue, a poller's receive, the handler, markDirty and the lease. */
  readonly toPassP50Ms: number;
  /** The pass: observe (reads), plan, and its writes up to the last Job running. */
  readonly passP50Ms: number;
}

/**
 * Timeline: when things happened, from the API server's audit log (its clock, at response
 * completion) — not from the bench's own event loop, which Lineup's pipeline, dynalite and the
 * stand-in share and which can answer late.
 */
interface Timeline {
  /** The bench's create of the JobSet. */
  createdAt(namespace: string, jobSet: string): number | undefined;
  /** The stand-in's first status write of the Job (the ready one). */
  readyAt(namespace: string, job: string): number | undefined;
  /** The controller's last write to the Job itself (create, or the patch that un-suspended it) before the stand-in's watch saw it running. */
  runningAt(namespace: string, job: string): number | undefined;
}

/** timelineOf: a Timeline over audit records and the stand-in's observations. */
const timelineOf = (records: readonly AuditedWrite[], standIn: JobControllerStandIn): Timeline => {
  const byObject = new Map<string, AuditedWrite[]>();
  for (const record of records) {
    if (record.code >= 300 || record.name === undefined) continue;
    const key = `${record.resource}/${jobKey(record.namespace, record.name)}`;
    byObject.set(key, [...(byObject.get(key) ?? []), record]);
  }
  const writesOf = (resource: string, namespace: string, name: string): AuditedWrite[] =>
    (byObject.get(`${resource}/${jobKey(namespace, name)}`) ?? []).filter((record) => (AUDITED_VERBS as readonly string[]).includes(record.verb));
  return {
    createdAt: (namespace, jobSet) => writesOf('jobsets', namespace, jobSet).find((record) => record.verb === 'create' && actorOf(record) === 'bench')?.at,
    readyAt: (namespace, job) => writesOf('jobs', namespace, job).find((record) => record.subresource === 'status' && actorOf(record) === 'bench')?.at,
    runningAt: (namespace, job) => {
      const seen = standIn.runningAt.get(jobKey(namespace, job));
      if (seen === undefined) return undefined;
      const controller = namespace === NAMESPACE.lineup ? 'lineup' : 'upstream';
      const writes = writesOf('jobs', namespace, job).filter((record) => record.subresource === undefined && actorOf(record) === controller && record.at <= seen);
      return writes.at(-1)?.at ?? seen;
    },
  };
};

/** StageTimes: one JobSet's transition — when it began (the last ready write, or the JobSet's create), and the next stage's last Job to run and when. */
interface StageTimes {
  readonly from: number;
  readonly trigger: string;
  readonly to: number;
  readonly lastJob: string;
}

/** stageTimes: per transition, per JobSet name, its StageTimes (JobSets that did not make it left out). */
const stageTimes = (namespace: string, names: readonly string[], stages: readonly { name: string; jobs: number }[], timeline: Timeline): Map<string, StageTimes>[] => {
  const last = (jobSet: string, stage: { name: string; jobs: number }, at: (namespace: string, job: string) => number | undefined): { job: string; at: number } | undefined => {
    const times = Array.from({ length: stage.jobs }, (_, index) => {
      const job = `${jobSet}-${stage.name}-${index}`;
      return { job, at: at(namespace, job) };
    });
    if (times.some((time) => time.at === undefined)) return undefined;
    return times.reduce((a, b) => ((b.at ?? 0) > (a.at ?? 0) ? b : a)) as { job: string; at: number };
  };
  return stages.map((stage, index) => {
    const previous = stages[index - 1];
    const byJobSet = new Map<string, StageTimes>();
    for (const name of names) {
      const to = last(name, stage, timeline.runningAt);
      const created = timeline.createdAt(namespace, name);
      const from = previous === undefined ? (created === undefined ? undefined : { job: name, at: created }) : last(name, previous, timeline.readyAt);
      if (to !== undefined && from !== undefined) byJobSet.set(name, { from: from.at, trigger: from.job, to: to.at, lastJob: to.job });
    }
    return byJobSet;
  });
};

const transitionName = (stages: readonly { name: string }[], index: number): string =>
  index === 0 ? `JobSet created → ${stages[0]?.name ?? ''} running` : `${stages[index - 1]?.name ?? ''} ready → ${stages[index]?.name ?? ''} running`;

/** stageFigures: p50 and p99 of each transition. */
const stageFigures = (times: readonly Map<string, StageTimes>[], stages: readonly { name: string }[]): StageFigure[] =>
  times.map((byJobSet, index) => {
    const latencies = [...byJobSet.values()].map((time) => time.to - time.from).sort((a, b) => a - b);
    return { transition: transitionName(stages, index), jobSets: latencies.length, p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)) };
  });

/**
 * segmentFigures: Lineup's transitions cut in three at the put of the triggering change on the
 * bus and the start of the pass that ran the next stage's last Job (its decision's time). When
 * that pass began before the trigger's own event was on the bus (an earlier event's pass read
 * the live state), the first part ends at the pass.
 */
const segmentFigures = (times: readonly Map<string, StageTimes>[], stages: readonly { name: string }[], puts: ReadonlyMap<string, number[]>, passes: readonly PassRecord[]): SegmentFigure[] =>
  times.map((byJobSet, index) => {
    const parts = { toBus: [] as number[], toPass: [] as number[], pass: [] as number[] };
    for (const [jobSet, time] of byJobSet) {
      const pass = passes.find(
        (candidate) =>
          candidate.key.namespace === NAMESPACE.lineup &&
          candidate.key.name === jobSet &&
          candidate.plan.actions.some((action) => (action.kind === 'ResumeJob' && action.name === time.lastJob) || (action.kind === 'CreateJob' && action.job.metadata.name === time.lastJob && action.job.spec.suspend !== true)),
      );
      const put = (puts.get(jobKey(NAMESPACE.lineup, time.trigger)) ?? []).find((at) => at >= time.from);
      if (pass === undefined || put === undefined) continue;
      const onBus = Math.min(put, pass.decision.at);
      // Never below 0: a pass an earlier event started can read the ready write a moment before
      // the API server stamps that write's response complete (and the two clocks count whole ms apart).
      parts.toBus.push(Math.max(0, onBus - time.from));
      parts.toPass.push(pass.decision.at - onBus);
      parts.pass.push(time.to - pass.decision.at);
    }
    const median = (values: number[]): number => round(percentile([...values].sort((a, b) => a - b), 50));
    return { transition: transitionName(stages, index), toBusP50Ms: median(parts.toBus), toPassP50Ms: median(parts.toPass), passP50Ms: median(parts.pass) };
  });

/** jobSetsIn: the JobSets of a namespace, by name, and the names of those with Completed=True. */
const jobSetsIn = async (client: AdminClient, namespace: string): Promise<{ byName: Map<string, JsonObject>; completed: Set<string> }> => {
  const list = await client.ok('GET', `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${namespace}/jobsets`);
  const items = (Array.isArray(list.items) ? list.items : []).filter(isObject);
  const byName = new Map(items.map((item) => [String((item.metadata as JsonObject | undefined)?.name), item]));
  const completed = new Set(
    [...byName.entries()]
      .filter(([, item]) => {
        const conditions = isObject(item.status) && Array.isArray(item.status.conditions) ? item.status.conditions.filter(isObject) : [];
        return conditions.some((condition) => condition.type === ConditionType.Completed && condition.status === 'True');
      })
      .map(([name]) => name),
  );
  return { byName, completed };
};

/** perStartup: each count divided by the startups, as a Range (min = max = mean: one run's totals). */
const perStartup = (counts: Readonly<Record<string, number>>, startups: number): Record<string, Range> =>
  Object.fromEntries(
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, total]) => {
        const mean = round(total / startups, 2);
        return [name, { mean, min: mean, max: mean }];
      }),
  );

/** delta: `after` minus `before`, counter by counter (zeros left out). */
const delta = (before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): Record<string, number> =>
  Object.fromEntries(Object.entries(after).flatMap(([name, count]) => (count - (before[name] ?? 0) === 0 ? [] : [[name, count - (before[name] ?? 0)]])));

/**
 * SERVER_OPERATIONS: the test-server calls reported. ReceiveMessage is left out: a long poll's
 * time is mostly waiting for the message (the "bus → pass starts" segment shows what it costs).
 */
const SERVER_OPERATIONS = ['PutEvents', 'DeleteMessageBatch', 'UpdateItem', 'PutItem'] as const;

/** Run: the servers, both controllers and the bench's own parts, shared by both phases. */
interface Run {
  readonly pipeline: Pipeline;
  readonly client: AdminClient;
  readonly standIn: JobControllerStandIn;
  readonly audit: ApiServerAudit;
  readonly base: JsonObject;
  readonly stages: readonly { name: string; jobs: number }[];
  readonly calls: readonly ServerCall[];
  /** When each Lineup event went on the bus, by `namespace/name` of its object. */
  readonly puts: ReadonlyMap<string, number[]>;
}

/** PhaseResult: a phase's figures, with its counts per startup for the cost model. */
interface PhaseResult {
  readonly figures: PhaseFigures;
  readonly counts: Omit<CountsFile, 'description' | 'producedBy' | 'producedAt' | 'source'>;
}

/** createPair: a JobSet and its upstream twin, both created at once. */
const createPair = (run: Run, name: string): Promise<unknown> =>
  Promise.all((['lineup', 'upstream'] as const).map((controller) => run.client.ok('POST', `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NAMESPACE[controller]}/jobsets`, manifestFor(run.base, controller, name))));

/** allRunning: every Job of the JobSet, in both namespaces, seen running by the stand-in. */
const allRunning = (run: Run, name: string): boolean =>
  Object.values(NAMESPACE).every((namespace) => run.stages.every((stage) => Array.from({ length: stage.jobs }, (_, index) => run.standIn.runningAt.has(jobKey(namespace, `${name}-${stage.name}-${index}`))).every(Boolean)));

/**
 * runPhase: create the JobSets (`oneAtATime`: each pair once the previous pair's Jobs all run;
 * otherwise all at once), wait until all of them completed (or RUN_TIMEOUT_MS: the figures are
 * then taken as they are), let both controllers settle, and take the phase's figures from what
 * happened between its start and its end.
 */
const runPhase = async (run: Run, phase: string, names: readonly string[], oneAtATime: boolean): Promise<PhaseResult> => {
  const { pipeline, client, standIn, audit } = run;
  const counters = pipeline.counters;
  const before = counters.snapshot();
  const startedAt = Date.now();
  progress(`${phase}: creating ${names.length} story-2 JobSets in each of the namespaces ${NAMESPACE.lineup} and ${NAMESPACE.upstream}${oneAtATime ? ', one pair after the other' : ' at once'}`);
  if (oneAtATime) {
    for (const name of names) {
      await createPair(run, name);
      for (const deadline = Date.now() + 60_000; !allRunning(run, name) && Date.now() < deadline; ) await sleep(50);
    }
  } else {
    await Promise.all(names.map((name) => createPair(run, name)));
  }

  const wanted = new Set(names);
  let done = { lineup: 0, upstream: 0 };
  let lastReport = Date.now();
  while (Date.now() - startedAt < RUN_TIMEOUT_MS) {
    const [ours, theirs] = await Promise.all([jobSetsIn(client, NAMESPACE.lineup), jobSetsIn(client, NAMESPACE.upstream)]);
    done = { lineup: [...ours.completed].filter((name) => wanted.has(name)).length, upstream: [...theirs.completed].filter((name) => wanted.has(name)).length };
    if (done.lineup === names.length && done.upstream === names.length) break;
    if (Date.now() - lastReport >= 10_000) {
      progress(`${phase}: ${Math.round((Date.now() - startedAt) / 1000)} s, completed ${done.lineup}/${names.length} (Lineup), ${done.upstream}/${names.length} (upstream)`);
      lastReport = Date.now();
    }
    // Not faster: each look lists every JobSet of both namespaces, work for the API server and for the process Lineup runs in.
    await sleep(1_000);
  }
  const runMs = Date.now() - startedAt;
  progress(`${phase}: completed ${done.lineup}/${names.length} (Lineup), ${done.upstream}/${names.length} (upstream) in ${(runMs / 1000).toFixed(1)} s; letting both controllers settle`);
  await pipeline.settle(`${phase}: every JobSet completed`, { quietMs: 1_500, timeoutMs: 60_000 }).catch((error: unknown) => progress(`${phase}: Lineup did not settle: ${(error as Error).message}`));
  // Upstream is quiet once it has written nothing for 1.5 s.
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(250)) {
    const last = audit.requests().filter((record) => actorOf(record) === 'upstream' && (AUDITED_VERBS as readonly string[]).includes(record.verb)).at(-1);
    if (last === undefined || Date.now() - last.at > 1_500) break;
  }
  const endedAt = Date.now();

  // What happened in this phase: the audit records, server calls and passes of its window and JobSets.
  const jobSets = names.length;
  const records = audit.requests().filter((record) => record.at >= startedAt && record.at <= endedAt);
  const calls = run.calls.filter((call) => call.at >= startedAt && call.at <= endedAt);
  const timeline = timelineOf(records, standIn);
  const lineupTimes = stageTimes(NAMESPACE.lineup, names, run.stages, timeline);
  const passes = pipeline.passes.filter((pass) => pass.key.namespace === NAMESPACE.lineup && wanted.has(pass.key.name));
  const counted = Object.fromEntries(Object.entries(delta(before, counters.snapshot())).filter(([name]) => !name.startsWith('e2e.')));
  const failedRecords = (counters.snapshot()['e2e.recordsFailed'] ?? 0) - (before['e2e.recordsFailed'] ?? 0);
  const sumPrefix = (prefix: string): number => Object.entries(counted).reduce((sum, [name, count]) => (name.startsWith(prefix) ? sum + count : sum), 0);
  const perOne = (count: number): number => round(count / jobSets, 2);
  const byPrefix = (prefix: string, strip: boolean): Record<string, number> =>
    Object.fromEntries(Object.entries(counted).flatMap(([name, count]) => (name.startsWith(prefix) ? [[strip ? name.slice(prefix.length) : name, perOne(count)]] : [])));

  const lineup: LineupFigures = {
    jobSetsCompleted: done.lineup,
    stages: stageFigures(lineupTimes, run.stages),
    api: apiFigure(records, 'lineup', jobSets),
    eventsPerStartup: perOne(counted[CounterName.EventsPut] ?? 0),
    passesPerStartup: perOne(passes.length),
    invocationsPerStartup: perOne(counted[CounterName.Invocations] ?? 0),
    dynamoPerStartup: perOne(sumPrefix(CounterName.DynamoPrefix)),
    dynamoByOperation: byPrefix(CounterName.DynamoPrefix, true),
    kubeCountersPerStartup: byPrefix(CounterName.KubePrefix, false),
    watchEventsPerStartup: perOne(counted[CounterName.WatchEvents] ?? 0),
    recordsFailed: failedRecords,
    segments: segmentFigures(lineupTimes, run.stages, run.puts, passes),
  };
  const upstream: ControllerFigures = {
    jobSetsCompleted: done.upstream,
    stages: stageFigures(stageTimes(NAMESPACE.upstream, names, run.stages, timeline), run.stages),
    api: apiFigure(records, 'upstream', jobSets),
  };
  const ratios: Record<string, number> = {};
  lineup.stages.forEach((stage, index) => {
    const theirs = upstream.stages[index];
    if (theirs === undefined) return;
    ratios[`${stage.transition} ${oneAtATime ? 'median' : 'p50'}`] = ratio(stage.p50Ms, theirs.p50Ms);
    // A p99 of a handful of JobSets is their maximum: only the burst has one.
    if (!oneAtATime) ratios[`${stage.transition} p99`] = ratio(stage.p99Ms, theirs.p99Ms);
  });
  ratios['API writes per startup'] = ratio(lineup.api.writesPerStartup, upstream.api.writesPerStartup);
  ratios['API reads per startup'] = ratio(lineup.api.readsPerStartup, upstream.api.readsPerStartup);
  const serverCalls = SERVER_OPERATIONS.map((operation) => {
    const times = calls.filter((call) => call.operation === operation && !call.empty).map((call) => call.ms).sort((a, b) => a - b);
    return { operation, calls: times.length, p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)) };
  });

  // The cost model's counts: counters per startup, and DynamoDB capacity as infra/cost/measure.ts measures it.
  const passesByJobSet = names.map((name) => passes.filter((pass) => pass.key.name === name).length);
  const dynamoCapacity: CountsFile['dynamoCapacity'] = {};
  for (const operation of [...new Set(calls.map((call) => call.operation))].filter((name) => Object.values(DOCUMENT_OPERATIONS).includes(name)).sort()) {
    const mine = calls.filter((call) => call.operation === operation);
    const range = (total: number): Range => {
      const mean = perOne(total);
      return { mean, min: mean, max: mean };
    };
    dynamoCapacity[operation] = {
      requests: range(mine.length),
      capacityUnits: range(mine.reduce((sum, call) => sum + call.capacityUnits, 0)),
      itemBytes: range(mine.reduce((sum, call) => sum + call.itemBytes, 0)),
    };
  }
  return {
    figures: { phase, jobSets, runMs, lineup, upstream, ratios, serverCalls },
    counts: {
      startupsPerRun: jobSets,
      counters: { ...perStartup(counted, jobSets), [CounterName.Passes]: { mean: perOne(passes.length), min: Math.min(...passesByJobSet), max: Math.max(...passesByJobSet) } },
      dynamoCapacity,
    },
  };
};

/**
 * runPipelineBench: start the servers (building kube-apiserver, etcd, moto's virtualenv and the
 * upstream controller first when they are not cached: minutes on a fresh clone), then run both
 * controllers on SOLO_JOBSETS JobSets each one after another, then on N JobSets each at once,
 * and take the figures.
 */
export const runPipelineBench = async (options: PipelineBenchOptions = {}): Promise<PipelineFigures> => {
  const jobSets = options.jobSets ?? DEFAULT_JOBSETS;
  const countsOut = options.countsOut ?? DEFAULT_COUNTS_OUT;
  const wallStarted = Date.now();
  progress('finding kube-apiserver and etcd, moto and the upstream controller (a fresh clone builds them first: several minutes)');
  await ensureKubeBinaries();
  await ensureMotoVenv();
  const binary = await ensureUpstreamBinary();

  const audit = auditedApiServerArgs();
  let cluster: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let pipeline: Pipeline | undefined;
  let upstream: UpstreamController | undefined;
  let client: AdminClient | undefined;
  let standIn: JobControllerStandIn | undefined;
  const instrumented = instrumentServerCalls();
  try {
    progress(`starting kube-apiserver (every request audited), moto, dynalite, Lineup's pipeline and upstream ${binary.version}`);
    cluster = await startE2eCluster({ extraApiServerArgs: audit.args });
    const kube = cluster.kube;
    [moto, dynamo] = await Promise.all([startMoto(), startDynalite()]);
    const rule = await synthesizedRule();
    pipeline = await Pipeline.start({ kube, moto, dynamo, clusterId: 'bench', rule, pollers: DEFAULT_RECONCILER_MAX_CONCURRENCY, visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS });
    upstream = await startUpstreamController(kube);
    client = new AdminClient(kube);
    for (const namespace of Object.values(NAMESPACE)) await client.ok('POST', '/api/v1/namespaces', { metadata: { name: namespace } });

    const base = story2Manifest();
    const stages = stagesOf(base);
    standIn = new JobControllerStandIn(kube, client, stages.reduce((sum, stage) => sum + stage.jobs, 0));
    await standIn.start();
    await pipeline.settle('before the JobSets are created', { quietMs: 500 });

    // When each event went on the bus: the forwarder's sink, wrapped (the Forwarder holds this object).
    const puts = new Map<string, number[]>();
    const sink = pipeline.sink;
    const put = sink.put.bind(sink);
    sink.put = async (entries) => {
      const result = await put(entries);
      const at = Date.now();
      const failed = new Set(result.failed.map((failure) => failure.index));
      entries.forEach((entry, index) => {
        if (failed.has(index)) return;
        const detail = JSON.parse(entry.Detail) as { namespace?: string; name?: string };
        const key = jobKey(detail.namespace, detail.name);
        puts.set(key, [...(puts.get(key) ?? []), at]);
      });
      return result;
    };

    const setupRecords = audit.requests();
    const setupRequests = { lineup: describeRequests(setupRecords.filter((record) => actorOf(record) === 'lineup'), 'requests'), upstream: describeRequests(setupRecords.filter((record) => actorOf(record) === 'upstream'), 'requests') };
    const run: Run = { pipeline, client, standIn, audit, base, stages, calls: instrumented.calls, puts };
    const soloNames = Array.from({ length: SOLO_JOBSETS }, (_, index) => `solo-${index}`);
    const solo = await runPhase(run, 'one at a time', soloNames, true);
    const names = Array.from({ length: jobSets }, (_, index) => jobSetName(index));
    const burst = await runPhase(run, `${jobSets} at once`, names, false);

    const [ours, theirs] = await Promise.all([jobSetsIn(client, NAMESPACE.lineup), jobSetsIn(client, NAMESPACE.upstream)]);
    const counts: CountsFile = {
      description:
        `operation counts per JobSet startup (creation to Completed) of ${STORY}, ${jobSets} JobSets started at once in one run, ` +
        `totals divided by ${jobSets} (min = max = mean, except reconciler.passes: the fewest and most passes of one JobSet)`,
      producedBy: `npm run bench (bench/pipeline.ts --jobsets ${jobSets})`,
      producedAt: new Date().toISOString().slice(0, 10),
      source:
        `the integration tier's pipeline (test/integration/e2e/pipeline.ts) on a real kube-apiserver: forwarder → moto EventBridge (${pipeline.rule.from}) → ` +
        `moto SQS → ${DEFAULT_RECONCILER_MAX_CONCURRENCY} pollers → the SQS batch handler → dynalite; forwarder.watchEvents includes the upstream namespace's Jobs (dropped)`,
      ...burst.counts,
    };
    mkdirSync(dirname(countsOut), { recursive: true });
    writeFileSync(countsOut, `${JSON.stringify(counts, null, 2)}\n`);

    return {
      upstreamVersion: binary.version,
      readyAfterMs: READY_AFTER_MS,
      completeAfterMs: COMPLETE_AFTER_MS,
      pollers: DEFAULT_RECONCILER_MAX_CONCURRENCY,
      ruleFrom: pipeline.rule.from,
      solo: solo.figures,
      burst: burst.figures,
      setupRequests,
      statusPairsCompared: ours.byName.size,
      statusDifferences: compareStatuses(ours.byName, theirs.byName),
      standInProblems: standIn.problems,
      countsFile: countsOut,
      counts,
      wallMs: Date.now() - wallStarted,
    };
  } finally {
    instrumented.restore();
    await standIn?.stop();
    client?.close();
    await pipeline?.stop();
    await upstream?.stop();
    await moto?.stop();
    await dynamo?.stop();
    await cluster?.kube.stop();
    await audit.remove();
  }
};

/** renderPhase: one phase's figures as text lines. */
const renderPhase = (p: PhaseFigures, one: boolean): string[] => {
  const lines: string[] = [];
  const stageLine = (who: string, stage: StageFigure): string =>
    one
      ? `  ${who.padEnd(9)} ${stage.transition.padEnd(36)} median ${String(stage.p50Ms).padStart(7)} ms  (${stage.jobSets} JobSets)`
      : `  ${who.padEnd(9)} ${stage.transition.padEnd(36)} p50 ${String(stage.p50Ms).padStart(7)} ms  p99 ${String(stage.p99Ms).padStart(7)} ms  (${stage.jobSets} JobSets)`;
  lines.push(
    `pipeline [${p.phase}] ${p.jobSets} JobSets per controller; completed: Lineup ${p.lineup.jobSetsCompleted}/${p.jobSets}, upstream ${p.upstream.jobSetsCompleted}/${p.jobSets}; ${(p.runMs / 1000).toFixed(1)} s`,
  );
  lines.push(`pipeline [${p.phase}] stage latency (audit times: the previous stage's last ready write, or the JobSet's create → the write that ran the next stage's last Job):`);
  p.lineup.stages.forEach((stage, index) => {
    lines.push(stageLine('Lineup', stage));
    const theirs = p.upstream.stages[index];
    if (theirs !== undefined) lines.push(stageLine('upstream', theirs));
  });
  lines.push(`pipeline [${p.phase}] where Lineup's stage latency goes (medians, which need not add up to the median total):`);
  for (const segment of p.lineup.segments) {
    lines.push(`  ${segment.transition.padEnd(36)} change → on the bus ${segment.toBusP50Ms} ms, bus → pass starts ${segment.toPassP50Ms} ms, pass → Job running ${segment.passP50Ms} ms`);
  }
  lines.push(`pipeline [${p.phase}] test-server calls (moto: EventBridge, SQS; dynalite: DynamoDB): ${p.serverCalls.map((c) => `${c.operation} ${c.calls}× p50 ${c.p50Ms} ms p99 ${c.p99Ms} ms`).join('; ')}`);
  for (const [who, api] of [['Lineup', p.lineup.api], ['upstream', p.upstream.api]] as const) {
    lines.push(`pipeline [${p.phase}] API per startup, ${who}: ${api.writesPerStartup} writes, ${api.readsPerStartup} reads (audit log)`);
    lines.push(`  in all: ${api.writes}`);
    lines.push(`  in all: ${api.reads}`);
    lines.push(`  refused: ${api.failed}`);
  }
  lines.push(`pipeline [${p.phase}] Lineup's own Kubernetes counters per startup: ${Object.entries(p.lineup.kubeCountersPerStartup).map(([name, n]) => `${name} ${n}`).join(', ')}`);
  lines.push(
    `pipeline [${p.phase}] Lineup per startup: ${p.lineup.eventsPerStartup} events put, ${p.lineup.passesPerStartup} reconcile passes, ${p.lineup.invocationsPerStartup} handler invocations, ` +
      `${p.lineup.dynamoPerStartup} DynamoDB operations (${Object.entries(p.lineup.dynamoByOperation).map(([op, n]) => `${op} ${n}`).join(', ')}); ` +
      `${p.lineup.watchEventsPerStartup} raw watch events (both namespaces); ${p.lineup.recordsFailed} records failed`,
  );
  lines.push(`pipeline [${p.phase}] Lineup/upstream: ${Object.entries(p.ratios).map(([name, r]) => `${name} ×${Number.isNaN(r) ? 'n/a' : r}`).join('; ')}`);
  return lines;
};

/** renderPipelineFigures: the figures as text lines. */
export const renderPipelineFigures = (f: PipelineFigures): string[] => {
  const lines = [
    `pipeline: KEP-104 story 2 on one kube-apiserver, Lineup (forwarder → moto EventBridge → moto SQS → ${f.pollers} pollers → reconciler; dynalite) beside upstream ${f.upstreamVersion}; ` +
      `Jobs ready ${f.readyAfterMs} ms after they run, complete ${f.completeAfterMs} ms after a JobSet's last is ready; rule from ${f.ruleFrom}; wall ${(f.wallMs / 1000).toFixed(1)} s`,
    `pipeline before the first JobSet (fixed, not per startup): Lineup ${f.setupRequests.lineup}; upstream ${f.setupRequests.upstream}`,
    ...renderPhase(f.solo, true),
    ...renderPhase(f.burst, false),
    `pipeline final status, ${f.statusPairsCompared} Lineup JobSets beside their upstream twins: ${f.statusDifferences.length === 0 ? 'no differences' : `${f.statusDifferences.length} distinct differences`}`,
  ];
  for (const d of f.statusDifferences) {
    lines.push(`  ${d.field}: Lineup ${d.lineup} | upstream ${d.upstream} — ${d.jobSets} JobSets (${d.examples.join(', ')}${d.jobSets > d.examples.length ? ', …' : ''})`);
    lines.push(`    ${d.verdict.kind === 'not documented' ? 'NOT DOCUMENTED' : `${d.verdict.kind}: ${d.verdict.why}`}`);
  }
  if (f.standInProblems.length > 0) {
    lines.push(`pipeline stand-in problems (${f.standInProblems.length}):`);
    for (const problem of f.standInProblems.slice(0, 5)) lines.push(`  ${problem.slice(0, 240)}`);
  }
  lines.push(`pipeline per-startup counts (${f.burst.phase}) written to ${f.countsFile}`);
  return lines;
};

if (import.meta.main) {
  const { values } = parseArgs({ options: { jobsets: { type: 'string', default: String(DEFAULT_JOBSETS) }, 'counts-out': { type: 'string', default: DEFAULT_COUNTS_OUT } } });
  const figures = await runPipelineBench({ jobSets: Number(values.jobsets), countsOut: values['counts-out'] });
  console.log(renderPipelineFigures(figures).join('\n'));
}
