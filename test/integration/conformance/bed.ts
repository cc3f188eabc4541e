/**
 * The conformance bed: one kube-apiserver with the real control plane minus kubelet
 * (kube-controller-manager's Job, TTL and GC controllers, kube-scheduler, a kwok node), Lineup's
 * whole pipeline on it (forwarder → moto EventBridge → SQS → reconciler, leases in dynalite:
 * test/integration/e2e/pipeline.ts) and, when asked, the upstream JobSet controller
 * (bench/upstream/build.sh) beside it. Each scenario of test/conformance/generate.ts runs as a
 * twin per controller — the same spec in namespace `conformance-lineup` with managedBy
 * lineup.dev/controller and in `conformance-upstream` with none — all at once.
 *
 * The resync runs every RESYNC_EVERY_MS, as EventBridge Scheduler starts it deployed (due
 * wake-ups such as a TTL's). A watch on every Job and JobSet records when each replicatedJob's
 * first Job first ran (created unsuspended, or un-suspended), every time a Job began to run, when
 * a JobSet that had run was suspended again, and each JobSet as last seen; a run ends once every
 * JobSet is terminal (and, with a TTL, deleted), no Job is still being deleted and both
 * controllers have been quiet for SETTLE_MS. The API server audits every request, and a Recorder
 * (recorder.ts) keeps every Job, Pod and JobSet change, so that each twin's RunRecord carries the
 * evidence its differential verdicts are checked against, and its start order comes from when
 * the API server received the requests that ran the Jobs.
 *
 * With `kueue`, Kueue (test/integration/harness/kueue.ts) runs beside both controllers and a
 * watch on its Workloads records each JobSet's as last seen; scripted scenarios drive the bed
 * through `create`, `until` and `record` (test/integration/kueue/differential.test.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Watch } from '@kubernetes/client-node';
import { DEFAULT_RECONCILER_MAX_CONCURRENCY } from '../../../infra/config.ts';
import { DEFAULT_CONTROLLER_NAME } from '../../../lib/jobset/managedBy.ts';
import { Label } from '../../../lib/jobset/api.ts';
import type { RunRecord } from '../../conformance/compare.ts';
import type { StageShape } from '../../conformance/evidence.ts';
import type { KueueRecord, StartEvent } from '../../conformance/kueueTable.ts';
import { manifestOf, type ConformanceCase, type JsonObject } from '../../conformance/generate.ts';
import { startE2eCluster, type E2eCluster } from '../e2e/cluster.ts';
import { Pipeline, synthesizedRule } from '../e2e/pipeline.ts';
import { startDynalite, startMoto, type DynaliteServer, type MotoServer } from '../harness/index.ts';
import { KUEUE_API, startKueue, type KueueManager, type KueueOptions } from '../harness/kueue.ts';
import { auditedApiServerArgs, startUpstreamController, type ApiServerAudit, type UpstreamController } from '../harness/upstream.ts';
import { DEFAULT_LEASE_TTL_MS } from '../../../lib/reconcile/reconcileJobSet.ts';
import { isObject } from '../../../lib/json.ts';
import { Recorder, requestStarts } from './recorder.ts';

/** Side: which controller runs a twin. */
export type Side = 'lineup' | 'upstream';
/** NAMESPACES: where each side's twins live. */
export const NAMESPACES: Readonly<Record<Side, string>> = { lineup: 'conformance-lineup', upstream: 'conformance-upstream' };

/** SETTLE_MS: once every JobSet is terminal, how long both controllers must write nothing more before the final status is taken. */
const SETTLE_MS = 2_000;
/** PROGRESS_EVERY_MS: how often a run says on stderr which JobSets still run. */
const PROGRESS_EVERY_MS = 20_000;
/**
 * RESYNC_EVERY_MS: how often the run starts the resync, standing in for EventBridge Scheduler
 * (every DEFAULT_RESYNC_MINUTES deployed): a finished JobSet's TTL wake-up is due at the first
 * resync after it, so the deployed interval would hold every TTL deletion up to a minute.
 */
const RESYNC_EVERY_MS = 2_000;
/** WATCH_RESTART_MS: how soon an ended watch is started again. */
const WATCH_RESTART_MS = 100;

const at = (value: unknown, ...path: string[]): unknown => path.reduce<unknown>((current, key) => (isObject(current) ? current[key] : undefined), value);

/** isTerminal: a JobSet with Completed or Failed True. */
export const isTerminal = (jobSet: JsonObject | undefined): boolean => {
  const conditions = at(jobSet, 'status', 'conditions');
  return Array.isArray(conditions) && conditions.some((c: unknown) => isObject(c) && (c.type === 'Completed' || c.type === 'Failed') && c.status === 'True');
};

/** Observations: what the watches saw, by `namespace/jobset`. */
class Observations {
  readonly starts = new Map<string, Record<string, number>>();
  /** Every time a Job began to run, by JobSet. */
  readonly startEvents = new Map<string, StartEvent[]>();
  /** When a JobSet that had run was suspended again (by a user, or by Kueue evicting it). */
  readonly suspensions = new Map<string, number[]>();
  readonly jobSets = new Map<string, JsonObject>();
  readonly deleted = new Set<string>();
  /** Each JobSet's Workload as last seen (the Workload's owner reference names the JobSet). */
  readonly workloads = new Map<string, JsonObject>();
  /** The Jobs running now, by uid. */
  private readonly running = new Set<string>();
  lastChange = Date.now();

  onJob(type: string, job: unknown): void {
    this.lastChange = Date.now();
    if (!isObject(job)) return;
    const uid = String(at(job, 'metadata', 'uid'));
    const runs = type !== 'DELETED' && at(job, 'spec', 'suspend') !== true && at(job, 'metadata', 'deletionTimestamp') === undefined;
    const began = runs && !this.running.has(uid);
    if (runs) this.running.add(uid);
    else this.running.delete(uid);
    const labels = at(job, 'metadata', 'labels');
    const namespace = String(at(job, 'metadata', 'namespace'));
    const jobSet = isObject(labels) ? labels[Label.JobSetName] : undefined;
    const replicatedJob = isObject(labels) ? labels[Label.ReplicatedJobName] : undefined;
    if (typeof jobSet !== 'string' || typeof replicatedJob !== 'string' || !began) return;
    const key = `${namespace}/${jobSet}`;
    const starts = this.starts.get(key) ?? {};
    starts[replicatedJob] ??= Date.now();
    this.starts.set(key, starts);
    this.startEvents.set(key, [...(this.startEvents.get(key) ?? []), { replicatedJob, at: Date.now() }]);
  }

  onJobSet(type: string, jobSet: unknown): void {
    this.lastChange = Date.now();
    if (!isObject(jobSet)) return;
    const key = `${String(at(jobSet, 'metadata', 'namespace'))}/${String(at(jobSet, 'metadata', 'name'))}`;
    if (type === 'DELETED') {
      this.deleted.add(key);
      return;
    }
    const wasSuspended = at(this.jobSets.get(key), 'spec', 'suspend') === true;
    if (!wasSuspended && at(jobSet, 'spec', 'suspend') === true && this.starts.has(key)) this.suspensions.set(key, [...(this.suspensions.get(key) ?? []), Date.now()]);
    this.jobSets.set(key, jobSet);
  }

  onWorkload(type: string, workload: unknown): void {
    this.lastChange = Date.now();
    if (type === 'DELETED' || !isObject(workload)) return;
    const owners = at(workload, 'metadata', 'ownerReferences');
    const owner = Array.isArray(owners) ? owners.find((reference: unknown) => isObject(reference) && reference.kind === 'JobSet') : undefined;
    if (!isObject(owner)) return;
    this.workloads.set(`${String(at(workload, 'metadata', 'namespace'))}/${String(owner.name)}`, workload);
  }
}

/** lastStageOf: the case's last replicatedJob, the last stage of its startup. */
const lastStageOf = (c: ConformanceCase): StageShape[] => {
  const rjobs = Array.isArray(c.spec.replicatedJobs) ? c.spec.replicatedJobs.filter(isObject) : [];
  const last = rjobs.at(-1);
  return last === undefined ? [] : [{ name: String(last.name), replicas: Number(last.replicas ?? 1) }];
};

/** BedOptions: whether upstream runs beside Lineup, the pipeline's cluster id, and whether Kueue runs (and how). */
export interface BedOptions {
  readonly upstream: boolean;
  readonly clusterId: string;
  readonly kueue?: KueueOptions;
}

/** ConformanceBed: the servers, both controllers and the watches. Start with `ConformanceBed.start`, stop in `after`. */
export class ConformanceBed {
  readonly cluster: E2eCluster;
  readonly pipeline: Pipeline;
  readonly upstream: UpstreamController | undefined;
  private kueueManager: KueueManager | undefined;
  private readonly moto: MotoServer;
  private readonly dynamo: DynaliteServer;
  private readonly observations = new Observations();
  /** Every Job, Pod and JobSet change, for the evidence behind each differential verdict. */
  private readonly recorder = new Recorder();
  private readonly audit: ApiServerAudit;
  private readonly watches: AbortController[] = [];
  private stopped = false;

  private constructor(parts: { cluster: E2eCluster; audit: ApiServerAudit; moto: MotoServer; dynamo: DynaliteServer; pipeline: Pipeline; upstream: UpstreamController | undefined; kueue: KueueManager | undefined }) {
    this.audit = parts.audit;
    this.kueueManager = parts.kueue;
    this.cluster = parts.cluster;
    this.moto = parts.moto;
    this.dynamo = parts.dynamo;
    this.pipeline = parts.pipeline;
    this.upstream = parts.upstream;
  }

  /** start: the cluster with its control plane, moto, dynalite, Lineup's pipeline, upstream and Kueue (if asked), both namespaces and the watches. */
  static async start(options: BedOptions): Promise<ConformanceBed> {
    // Every request audited: which write each sighting follows from, and when the API server received it.
    const audit = auditedApiServerArgs();
    const [cluster, moto, dynamo, rule] = await Promise.all([startE2eCluster({ extraApiServerArgs: audit.args }), startMoto(), startDynalite(), synthesizedRule()]);
    let pipeline: Pipeline | undefined;
    let upstream: UpstreamController | undefined;
    let kueue: KueueManager | undefined;
    try {
      // The deployed lease (the tests' 10 s one can lapse mid-loop on a loaded machine, leaving a deferred event to a resync).
      pipeline = await Pipeline.start({ kube: cluster.kube, moto, dynamo, clusterId: options.clusterId, rule, pollers: DEFAULT_RECONCILER_MAX_CONCURRENCY, visibilityTimeoutSeconds: 30, leaseTtlMs: DEFAULT_LEASE_TTL_MS });
      if (options.upstream) upstream = await startUpstreamController(cluster.kube);
      if (options.kueue !== undefined) kueue = await startKueue(cluster.kube, options.kueue);
      const bed = new ConformanceBed({ cluster, audit, moto, dynamo, pipeline, upstream, kueue });
      for (const namespace of Object.values(NAMESPACES)) {
        const response = await cluster.kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
        if (response.status !== 201) throw new Error(`creating namespace ${namespace} answered HTTP ${response.status}: ${response.body.slice(0, 300)}`);
      }
      await bed.watch('/apis/batch/v1/jobs', (type, object) => {
        bed.observations.onJob(type, object);
        bed.recorder.onJob(type, object);
      });
      await bed.watch('/apis/jobset.x-k8s.io/v1alpha2/jobsets', (type, object) => {
        bed.observations.onJobSet(type, object);
        bed.recorder.onJobSet(type, object);
      });
      await bed.watch('/api/v1/pods', (type, object) => bed.recorder.onPod(type, object));
      if (kueue !== undefined) await bed.watch(`/apis/${KUEUE_API}/workloads`, (type, object) => bed.observations.onWorkload(type, object));
      return bed;
    } catch (error) {
      await kueue?.stop();
      await pipeline?.stop();
      await upstream?.stop();
      await Promise.all([cluster.stop(), moto.stop(), dynamo.stop()]);
      await audit.remove();
      throw error;
    }
  }

  /** watch: a watch of `path` as the admin, started again whenever it ends (its ADDED events replay what exists). */
  private async watch(path: string, onEvent: (type: string, object: unknown) => void): Promise<void> {
    const watcher = new Watch(this.cluster.kube.kubeConfig('admin'));
    const start = async (): Promise<void> => {
      if (this.stopped) return;
      const controller = await watcher.watch(path, { allowWatchBookmarks: false }, onEvent, () => {
        if (!this.stopped) void sleep(WATCH_RESTART_MS).then(start).catch((error: unknown) => process.stderr.write(`conformance: restarting the watch of ${path} failed: ${String(error)}\n`));
      });
      this.watches.push(controller);
    };
    await start();
  }

  /** request: an admin request that must answer 2xx. */
  private async request(method: string, path: string, body: unknown, contentType?: string): Promise<void> {
    const response = await this.cluster.kube.request(method, path, body, contentType === undefined ? {} : { contentType });
    if (response.status < 200 || response.status >= 300) throw new Error(`${method} ${path} answered HTTP ${response.status}: ${response.body.slice(0, 500)}`);
  }

  /** kueue: the running Kueue manager; throws when the bed runs none. */
  get kueue(): KueueManager {
    if (this.kueueManager === undefined) throw new Error('conformance: this bed runs no Kueue (BedOptions.kueue)');
    return this.kueueManager;
  }

  /** restartKueue: stops Kueue and starts it again with `options` (its configuration is read only at start). */
  async restartKueue(options: KueueOptions): Promise<KueueManager> {
    await this.kueue.stop();
    this.kueueManager = undefined;
    this.kueueManager = await startKueue(this.cluster.kube, options);
    return this.kueueManager;
  }

  /** create: creates `object` (a JSON object with apiVersion, kind and metadata) at `collectionPath`. */
  async create(collectionPath: string, object: JsonObject): Promise<void> {
    await this.request('POST', collectionPath, object);
  }

  /** apply: server-side applies YAML or JSON documents (queues, flavors, priority classes). */
  async apply(documents: readonly JsonObject[]): Promise<void> {
    await this.cluster.kube.applyYaml(documents.map((document) => JSON.stringify(document)).join('\n---\n'));
  }

  /**
   * until: polls `condition` (against what the watches saw) every 250 ms, running the resync every
   * RESYNC_EVERY_MS meanwhile, until it holds; rejects after `timeoutMs` with `description` and
   * the last `explain()`.
   */
  async until(description: string, condition: () => boolean, timeoutMs: number, explain: () => string = () => ''): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let lastResync = Date.now();
    let lastReport = Date.now();
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`conformance: not within ${timeoutMs} ms: ${description}. ${explain()}`);
      if (Date.now() - lastResync >= RESYNC_EVERY_MS) {
        await this.pipeline.resync();
        lastResync = Date.now();
      }
      if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
        lastReport = Date.now();
        process.stderr.write(`conformance: still waiting: ${description}\n`);
      }
      await sleep(250);
    }
  }

  /** quiet: resolves once nothing the watches see has changed for SETTLE_MS. */
  async quiet(timeoutMs: number): Promise<void> {
    await this.until('the cluster quiet', () => Date.now() - this.observations.lastChange >= SETTLE_MS, timeoutMs);
  }

  /** record: what the watches saw of JobSet `name` in `namespace`, with its Workload. */
  record(namespace: string, name: string): KueueRecord {
    const k = `${namespace}/${name}`;
    return {
      starts: { ...this.observations.starts.get(k) },
      startEvents: [...(this.observations.startEvents.get(k) ?? [])],
      suspendedAt: [...(this.observations.suspensions.get(k) ?? [])],
      final: this.observations.jobSets.get(k),
      deleted: this.observations.deleted.has(k),
      workload: this.observations.workloads.get(k),
    };
  }

  /**
   * run: every case as a twin on each of `sides`, all created at once, each case's user actions
   * at their times after its creation; resolves once every JobSet is terminal (deleted, with a
   * TTL) and the cluster has been quiet for SETTLE_MS, with what each side did per case name.
   * Rejects after `timeoutMs` naming the JobSets still running.
   */
  async run(cases: readonly ConformanceCase[], sides: readonly Side[], timeoutMs: number): Promise<Record<Side, Map<string, RunRecord>>> {
    const twins = sides.flatMap((side) => cases.map((c) => ({ side, c, namespace: NAMESPACES[side] })));
    const base = (namespace: string): string => `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${namespace}/jobsets`;
    const actions: Promise<void>[] = [];
    const actionErrors: unknown[] = [];
    await Promise.all(
      twins.map(async ({ side, c, namespace }) => {
        await this.request('POST', base(namespace), manifestOf(c, namespace, side === 'lineup' ? DEFAULT_CONTROLLER_NAME : undefined));
        const created = Date.now();
        for (const action of c.actions) {
          actions.push(
            sleep(Math.max(0, created + action.atMs - Date.now())).then(() =>
              this.request('PATCH', `${base(namespace)}/${c.name}`, { spec: { suspend: action.suspend } }, 'application/merge-patch+json'),
            ).catch((error: unknown) => void actionErrors.push(error)),
          );
        }
      }),
    );
    const key = (namespace: string, name: string): string => `${namespace}/${name}`;
    const done = ({ c, namespace }: (typeof twins)[number]): boolean => {
      const k = key(namespace, c.name);
      const wantsDeletion = c.spec.ttlSecondsAfterFinished !== undefined;
      return wantsDeletion ? this.observations.deleted.has(k) : isTerminal(this.observations.jobSets.get(k));
    };
    const deadline = Date.now() + timeoutMs;
    let lastReport = Date.now();
    let lastResync = Date.now();
    for (;;) {
      if (Date.now() - lastResync >= RESYNC_EVERY_MS) {
        await this.pipeline.resync();
        lastResync = Date.now();
      }
      const running = twins.filter((twin) => !done(twin));
      if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
        lastReport = Date.now();
        process.stderr.write(`conformance: ${twins.length - running.length} of ${twins.length} JobSets finished; running: ${running.map(({ namespace, c }) => `${namespace}/${c.name}`).join(', ')}\n`);
      }
      // No Job still being deleted either: a Job deleted while it ran can turn Failed (its Pods'
      // deletion fails it) and is counted until it is gone, so a status taken earlier can hold a passing count.
      if (running.length === 0 && Date.now() - this.observations.lastChange >= SETTLE_MS && this.recorder.beingDeleted(sides.map((side) => NAMESPACES[side])).length === 0) break;
      if (Date.now() > deadline) {
        throw new Error(
          `conformance: within ${timeoutMs} ms ${running.length} of ${twins.length} JobSets did not finish: ` +
            running.map(({ namespace, c }) => `${namespace}/${c.name} (${JSON.stringify(at(this.observations.jobSets.get(key(namespace, c.name)), 'status', 'conditions') ?? 'not seen')})`).join('; ') +
            (actionErrors.length === 0 ? '' : `; user actions that failed: ${actionErrors.map(String).join('; ')}`),
        );
      }
      await sleep(250);
    }
    await Promise.all(actions);
    if (actionErrors.length > 0) throw new Error(`conformance: ${actionErrors.length} user actions failed: ${actionErrors.map(String).join('; ')}`);
    const audit = this.audit.requests();
    const records = (side: Side): Map<string, RunRecord> =>
      new Map(
        cases.map((c) => {
          const k = key(NAMESPACES[side], c.name);
          const evidence = this.recorder.evidence({
            namespace: NAMESPACES[side],
            name: c.name,
            controller: side,
            audit,
            ...(side === 'lineup' ? { passes: this.pipeline.passesOf(NAMESPACES[side], c.name) } : {}),
            lastStage: lastStageOf(c),
            actions: c.actions.map((a) => a.suspend),
          });
          // The start order from when the API server received the requests that ran the Jobs: a
          // watch on a loaded machine can see one pass's Jobs seconds apart.
          const requested = requestStarts(evidence);
          return [
            c.name,
            {
              starts: Object.keys(requested).length > 0 ? requested : { ...this.observations.starts.get(k) },
              final: this.observations.jobSets.get(k),
              deleted: this.observations.deleted.has(k),
              resumedByUser: c.actions.some((a) => !a.suspend),
              evidence,
            },
          ];
        }),
      );
    return { lineup: records('lineup'), upstream: records('upstream') };
  }

  /** stop: the watches, Kueue, the pipeline, upstream, then the servers. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const controller of this.watches) controller.abort();
    await this.kueueManager?.stop();
    await this.pipeline.stop();
    await this.upstream?.stop();
    await Promise.all([this.cluster.stop(), this.moto.stop(), this.dynamo.stop()]);
    await this.audit.remove();
  }
}
