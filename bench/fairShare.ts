/**
 * A noisy neighbour: one cluster floods the fleet's pipeline while another runs story 2, and the
 * quiet cluster's stage latencies are set beside its figures alone. The pipeline is the
 * many-clusters bench's (bench/manyClusters.ts: one bus with the stack's rule, one queue on moto,
 * DEFAULT_RECONCILER_MAX_CONCURRENCY invocations at once fed by pollers as Lambda's event source,
 * one table on dynalite, the Jobs run by the real Job controller on kwok pods), with the two
 * clusters as two namespaces of one kube-apiserver, each with its own forwarder and cluster id.
 *
 * The flood: one JobSet of FLOOD_HUGE_REPLICAS workers (refused by validation: over the JobSet
 * bound) and FLOOD_SMALL_JOBSETS one-Job JobSets created at once; QUIET_DELAY_MS later the quiet
 * cluster creates QUIET_JOBSETS story-2 JobSets, so its first events queue behind the flood's.
 * The flooding cluster's API server answers every call FLOOD_API_LATENCY_MS late (a cluster whose
 * API server is overloaded or far away): its passes hold an invocation for long while spending
 * little CPU, as they do in Lambda, where each invocation has its own CPU. Without that, the
 * bottleneck here would be this machine's two cores, shared by every server and both clusters,
 * and no share of invocations could show.
 *
 * Three runs, each on a fresh bus, queue and table: the quiet cluster alone; beside the flood
 * with the fair share as deployed (defaultSlotsPerCluster); beside the flood with no share.
 * Figures: the quiet cluster's stage latency p50/p99 (as bench/manyClusters.ts counts stages),
 * the time until its workers ran, and how much of the flood had been handled and put back by
 * then.
 *
 *   node bench/fairShare.ts [--json]
 */
import { isObject, type JsonObject } from '../lib/json.ts';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { DEFAULT_RECONCILER_MAX_CONCURRENCY, defaultSlotsPerCluster } from '../infra/config.ts';
import { ConditionType, Reason } from '../lib/jobset/api.ts';
import { CounterName } from '../lib/counters.ts';
import { startE2eCluster, type E2eCluster } from '../test/integration/e2e/cluster.ts';
import { startDynalite, startMoto } from '../test/integration/harness/index.ts';
import type { DynaliteServer, KubeServer, MotoServer } from '../test/integration/harness/index.ts';
import { loadAverage } from './manyClusters/cpu.ts';
import { percentile, stageLatencies, startFleet, type CallSummary } from './manyClusters.ts';
import { JobWatch } from './pipeline/jobWatch.ts';
import { BenchKubeClient } from './pipeline/kubeClient.ts';
import { jobKey, jobsOf, manifestFor, stagesOf, story2Manifest } from './pipeline/story.ts';

/** FLOOD_SMALL_JOBSETS: the flooding cluster's one-Job JobSets, created at once. */
export const FLOOD_SMALL_JOBSETS = 60;
/** FLOOD_HUGE_REPLICAS: the workers of the flooding cluster's huge JobSet (ten times the default bound of 10,000 Jobs). */
export const FLOOD_HUGE_REPLICAS = 100_000;
/** FLOOD_API_LATENCY_MS: how late the flooding cluster's API server answers each call. */
export const FLOOD_API_LATENCY_MS = 2_000;
/** QUIET_JOBSETS: the quiet cluster's story-2 JobSets, created at once. */
export const QUIET_JOBSETS = 2;
/** QUIET_DELAY_MS: how long after the flood the quiet cluster creates its JobSets. */
export const QUIET_DELAY_MS = 3_000;
/** DONE_TIMEOUT_MS: how long the quiet cluster's workers may take to run. */
const DONE_TIMEOUT_MS = 10 * 60_000;

const QUIET = 'quiet';
const FLOOD = 'flood';

/** RunKind: which of the three runs. */
export type RunKind = 'alone' | 'flood, fair share' | 'flood, no share';

/** ShareRun: one run's figures. */
export interface ShareRun {
  readonly kind: RunKind;
  /** Invocations one cluster may hold; false: no share. */
  readonly slotsPerCluster: number | false;
  /** The quiet cluster's stage latency, p50 and p99 per stage, in ms. */
  readonly quietStageP50Ms: readonly number[];
  readonly quietStageP99Ms: readonly number[];
  /** From the quiet cluster's creates until all its workers ran. */
  readonly quietSeconds: number;
  /** The flooding cluster's records handled and put back by then. */
  readonly floodRecordsHandled: number;
  readonly recordsPutBack: number;
  /** Whether the huge JobSet carried Rejected=True (InvalidJobSet) by then; undefined in the run without it. */
  readonly hugeRefused: boolean | undefined;
  /** The quiet cluster's records put back (its share was full). */
  readonly quietPutBack: number;
  readonly loadAverage: number;
  /** Per call and per hop, p50/p99, busiest first (bench/manyClusters.ts CallTimings). */
  readonly calls: readonly CallSummary[];
  readonly problems: readonly string[];
}

/** FairShareFigures: the three runs. */
export interface FairShareFigures {
  readonly invocations: number;
  readonly runs: readonly ShareRun[];
  readonly wallMs: number;
}

const progress = (message: string): void => {
  process.stderr.write(`bench fair share: ${message}\n`);
};

/** smallManifest: a JobSet of one Job of one pod (story 2's first stage), Lineup's. */
const smallManifest = (base: JsonObject, name: string, namespace: string): JsonObject => {
  const manifest = manifestFor(base, 'lineup', name);
  const spec = manifest.spec as JsonObject;
  return { ...manifest, metadata: { name, namespace }, spec: { ...spec, replicatedJobs: (spec.replicatedJobs as JsonObject[]).slice(0, 1) } };
};

/** hugeManifest: story 2 with FLOOD_HUGE_REPLICAS workers, Lineup's. */
const hugeManifest = (base: JsonObject, name: string, namespace: string): JsonObject => {
  const manifest = manifestFor(base, 'lineup', name);
  const spec = manifest.spec as JsonObject;
  const replicatedJobs = (spec.replicatedJobs as JsonObject[]).map((rjob) => (rjob.name === 'worker' ? { ...rjob, replicas: FLOOD_HUGE_REPLICAS } : rjob));
  return { ...manifest, metadata: { name, namespace }, spec: { ...spec, replicatedJobs } };
};

/** refused: whether `jobSet` carries Rejected=True with reason InvalidJobSet. */
const refused = (jobSet: JsonObject | undefined): boolean => {
  const status = jobSet?.status;
  const conditions = isObject(status) && Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
  return conditions.some((condition) => condition.type === ConditionType.Rejected && condition.status === 'True' && condition.reason === Reason.InvalidJobSet);
};

/** runOnce: one of the three runs, on a fresh pipeline tagged `tag`. */
const runOnce = async (
  servers: { kube: KubeServer; moto: MotoServer; dynamo: DynaliteServer; client: BenchKubeClient; jobs: JobWatch },
  kind: RunKind,
  tag: string,
): Promise<ShareRun> => {
  const { kube, moto, dynamo, client, jobs } = servers;
  const flooding = kind !== 'alone';
  const quiet = `${tag}-${QUIET}`;
  const flood = `${tag}-${FLOOD}`;
  const clusterIds = flooding ? [quiet, flood] : [quiet];
  for (const id of clusterIds) await client.createNamespace(id);
  const slotsPerCluster = kind === 'flood, no share' ? false : defaultSlotsPerCluster(DEFAULT_RECONCILER_MAX_CONCURRENCY);
  const fleet = await startFleet(kube, moto, dynamo, tag, clusterIds, { slotsPerCluster, apiLatencyMs: new Map([[flood, FLOOD_API_LATENCY_MS]]) });
  const problemsBefore = jobs.problems.length;
  try {
    // The forwarders list their (empty) namespaces first.
    await sleep(2_000);
    const base = story2Manifest();
    if (flooding) {
      await client.createJobSet(flood, hugeManifest(base, 'huge', flood));
      const names = Array.from({ length: FLOOD_SMALL_JOBSETS }, (_, index) => `small-${String(index).padStart(3, '0')}`);
      // A few creates at a time: the API server is shared, and the flood is the queue's, not its.
      for (let start = 0; start < names.length; start += 10) {
        await Promise.all(names.slice(start, start + 10).map((name) => client.createJobSet(flood, smallManifest(base, name, flood))));
      }
      await sleep(QUIET_DELAY_MS);
    }
    const stages = stagesOf(base);
    const created = new Map<string, { namespace: string; name: string; at: number }>();
    const started = Date.now();
    await Promise.all(
      Array.from({ length: QUIET_JOBSETS }, async (_, index) => {
        const name = `s2-${index}`;
        const manifest = manifestFor(base, 'lineup', name);
        const at = Date.now();
        await client.createJobSet(quiet, { ...manifest, metadata: { name, namespace: quiet } });
        created.set(`${quiet}/${name}`, { namespace: quiet, name, at });
      }),
    );
    const last = stages.at(-1);
    if (last === undefined) throw new Error('story 2 has no stage');
    const deadline = started + DONE_TIMEOUT_MS;
    while (![...created.values()].every(({ namespace, name }) => jobsOf(name, last).every((job) => jobs.runningAt.has(jobKey(namespace, job))))) {
      if (Date.now() > deadline) throw new Error(`${kind}: the quiet cluster's workers did not all run within ${DONE_TIMEOUT_MS / 1000} s`);
      await sleep(100);
    }
    const quietSeconds = (Date.now() - started) / 1000;
    const latencies = stageLatencies(jobs, stages, created);
    const huge = flooding ? (await client.jobSets(flood)).find((jobSet) => isObject(jobSet.metadata) && jobSet.metadata.name === 'huge') : undefined;
    return {
      kind,
      slotsPerCluster,
      quietStageP50Ms: latencies.map((values) => percentile(values, 50)),
      quietStageP99Ms: latencies.map((values) => percentile(values, 99)),
      quietSeconds: Math.round(quietSeconds * 10) / 10,
      floodRecordsHandled: fleet.recordsByCluster.get(flood) ?? 0,
      recordsPutBack: fleet.counters.get(CounterName.RecordsPutBack),
      hugeRefused: flooding ? refused(huge) : undefined,
      quietPutBack: fleet.putBackByCluster.get(quiet) ?? 0,
      calls: fleet.timings.summary(),
      loadAverage: loadAverage(),
      problems: [...fleet.problems, ...jobs.problems.slice(problemsBefore)].slice(0, 10),
    };
  } finally {
    await fleet.stop();
  }
};

/** runFairShareBench: the three runs on one set of servers. */
export const runFairShareBench = async (): Promise<FairShareFigures> => {
  const wallStarted = Date.now();
  let cluster: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let client: BenchKubeClient | undefined;
  let jobs: JobWatch | undefined;
  try {
    progress('starting kube-apiserver with the control plane (Job controller, scheduler, kwok node), moto and dynalite');
    [cluster, moto, dynamo] = await Promise.all([startE2eCluster(), startMoto(), startDynalite()]);
    client = new BenchKubeClient(cluster.kube);
    jobs = new JobWatch(cluster.kube);
    await jobs.start();
    const servers = { kube: cluster.kube, moto, dynamo, client, jobs };
    const runs: ShareRun[] = [];
    const kinds: readonly RunKind[] = ['alone', 'flood, fair share', 'flood, no share'];
    for (const [index, kind] of kinds.entries()) {
      progress(`run ${index + 1} of ${kinds.length}: the quiet cluster's ${QUIET_JOBSETS} story-2 JobSets, ${kind}`);
      runs.push(await runOnce(servers, kind, `share${index}`));
    }
    return { invocations: DEFAULT_RECONCILER_MAX_CONCURRENCY, runs, wallMs: Date.now() - wallStarted };
  } finally {
    await jobs?.stop();
    client?.close();
    await Promise.all([cluster?.stop(), moto?.stop(), dynamo?.stop()]);
  }
};

/** ratio: `value` over `alone`, as "×n.n" (or "–" when there is nothing to divide by). */
const ratio = (value: number, alone: number): string => (alone > 0 ? `×${(value / alone).toFixed(1)}` : '–');

/** renderFairShareFigures: the lines `npm run bench` prints. */
export const renderFairShareFigures = (f: FairShareFigures): string[] => {
  const alone = f.runs.find((run) => run.kind === 'alone');
  return [
    `fair share (a quiet cluster's ${QUIET_JOBSETS} story-2 JobSets ${QUIET_DELAY_MS / 1000} s after another cluster created ${FLOOD_SMALL_JOBSETS} one-Job JobSets and one of ${FLOOD_HUGE_REPLICAS.toLocaleString('en-US')} workers, its API server answering ${FLOOD_API_LATENCY_MS} ms late; ${f.invocations} invocations at once; stage latency p50 / p99 per stage, and against the quiet cluster alone):`,
    ...f.runs.map((run) => {
      const share = run.slotsPerCluster === false ? 'no share' : `${run.slotsPerCluster} invocations a cluster`;
      const against = alone === undefined || run === alone ? '' : ` (p50 ${run.quietStageP50Ms.map((value, index) => ratio(value, alone.quietStageP50Ms[index] ?? 0)).join(' / ')}, workers running ${ratio(run.quietSeconds, alone.quietSeconds)})`;
      const flood = run.hugeRefused === undefined ? '' : `; by then the flood had ${run.floodRecordsHandled} records handled, ${run.recordsPutBack} put back, the huge JobSet ${run.hugeRefused ? 'refused (Rejected, InvalidJobSet)' : 'not yet refused'}`;
      return `  ${run.kind} (${share}): stage latency p50 ${run.quietStageP50Ms.join(' / ')} ms, p99 ${run.quietStageP99Ms.join(' / ')} ms, workers running after ${run.quietSeconds} s${against}${flood}; the quiet cluster's records put back: ${run.quietPutBack}; load average ${run.loadAverage} on ${availableParallelism()} cores${run.problems.length > 0 ? `; problems: ${run.problems.join('; ')}` : ''}\n` +
        `    where the time went (p50 / p99 ms, summed s): ${run.calls.slice(0, 8).map((call) => `${call.name} ${call.count}× ${call.p50Ms} / ${call.p99Ms} ms, ${call.totalS} s`).join('; ')}`;
    }),
  ];
};

if (import.meta.main) {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
  const figures = await runFairShareBench();
  console.log(values.json ? JSON.stringify(figures, null, 2) : renderFairShareFigures(figures).join('\n'));
}
