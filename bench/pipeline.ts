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
 * Both namespaces get the same spec but for managedBy, on the same real control plane
 * (test/integration/harness/controlPlane.ts: kube-controller-manager's Job controller,
 * kube-scheduler, a kwok node): once a controller runs a Job (Lineup: un-suspends it; upstream:
 * creates it unsuspended), the Job controller creates its pods, kwok makes each Running and Ready
 * READY_AFTER_MS after it is scheduled and Succeeded COMPLETE_AFTER_MS after it runs (the pod
 * annotations of story.ts), and the Job controller writes the Jobs' status from them.
 *
 * Two phases: SOLO_JOBSETS JobSets per controller one after another (stage latency with no
 * queue), then N (100 by default) per controller at once, the scenario. Per phase:
 * each stage transition's latency, from the API server's audit record of the previous stage's
 * last ready write (the Job controller's status write; or the JobSet's create) to its record of the write that ran the next
 * stage's last Job, p50 and p99 over the JobSets; where Lineup's latency goes (change on the
 * bus, pass started, Job running) and Lineup's own share of it (event received → writes done),
 * and what the test servers' calls took; Kubernetes writes and reads per startup per controller
 * from the audit log of every request (Lineup by its user, upstream by its user agent
 * `jobset/`), beside Lineup's own counters; Lineup's events put, reconcile passes, DynamoDB
 * requests and write units per startup; Lineup/upstream ratios. Then every difference between
 * the final status of a Lineup JobSet and its upstream twin, with its verdict: documented (the
 * deviation row), timing (the same rule on both sides), or not documented. "Per startup" is one
 * JobSet from creation to Completed, divided out of the phase's totals; the burst's per-startup
 * counts are written in infra/cost/report.ts's format. Makes no assertions.
 *
 * The parts, under bench/pipeline/: story.ts (the JobSets), kubeClient.ts (the bench's own
 * requests, as the admin, over kept-alive connections), jobWatch.ts (when each Job was first seen
 * running and ready), counting.ts (every
 * AWS SDK call counted by a middleware on the pipeline's clients), timeline.ts (the audit log:
 * who, when, per startup), phase.ts (one phase and its figures), statusComparison.ts, figures.ts
 * (the shapes) and report.ts (the text). The servers, Lineup's pipeline and the upstream
 * controller are the integration tier's (test/integration/harness, test/integration/e2e).
 *
 * `node bench/pipeline.ts [--jobsets N] [--counts-out FILE]` runs it alone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_RECONCILER_MAX_CONCURRENCY } from '../infra/config.ts';
import type { CountsFile } from '../infra/cost/costModel.ts';
import { changesOf } from '../lib/events/merge.ts';
import { DEFAULT_LEASE_TTL_MS } from '../lib/reconcile/reconcileJobSet.ts';
import { LineupEventDetailSchema } from '../lib/events/schema.ts';
import { startE2eCluster, type E2eCluster } from '../test/integration/e2e/cluster.ts';
import { Pipeline, synthesizedRule } from '../test/integration/e2e/pipeline.ts';
import { ensureKubeBinaries, ensureMotoVenv, startDynalite, startMoto, type DynaliteServer, type MotoServer } from '../test/integration/harness/index.ts';
import { auditedApiServerArgs, ensureUpstreamBinary, startUpstreamController, type UpstreamController } from '../test/integration/harness/upstream.ts';
import { CallCounter } from './pipeline/counting.ts';
import type { PipelineFigures } from './pipeline/figures.ts';
import { JobWatch } from './pipeline/jobWatch.ts';
import { BenchKubeClient } from './pipeline/kubeClient.ts';
import { jobSetsIn, runPhase, type Run } from './pipeline/phase.ts';
import { renderPipelineFigures } from './pipeline/report.ts';
import { compareStatuses } from './pipeline/statusComparison.ts';
import { COMPLETE_AFTER_MS, NAMESPACE, READY_AFTER_MS, STORY, jobKey, jobSetName, soloJobSetName, stagesOf, story2Manifest } from './pipeline/story.ts';
import { actorOf, describeRequests } from './pipeline/timeline.ts';

export { renderPipelineFigures } from './pipeline/report.ts';
export type { PipelineFigures } from './pipeline/figures.ts';

/**
 * DEFAULT_JOBSETS: JobSets per controller started at once. The figures were 100 on the
 * Job stand-in; on the real control plane (Job controller, scheduler, kwok: 2 pods per Job, so
 * 2,000 pods for 100 twins) a 2-core machine completed 24 of Lineup's and 3 of upstream's in 300 s,
 * so 20, which completes in about 90 s; `--jobsets N` sets another.
 */
export const DEFAULT_JOBSETS = 20;
/** SOLO_JOBSETS: JobSets per controller started one after another before the burst: stage latency with no queue. */
export const SOLO_JOBSETS = 5;
/** VISIBILITY_TIMEOUT_SECONDS: the bench queue's visibility timeout — long, so a slow batch is not redelivered while it runs (the stack's is 6 × the reconciler's timeout). */
const VISIBILITY_TIMEOUT_SECONDS = 30;
/** DEFAULT_COUNTS_OUT: the per-startup counts, for bench/cost.ts and `node infra/cost/report.ts --counts`. */
export const DEFAULT_COUNTS_OUT = fileURLToPath(new URL('results/pipeline-counts.json', import.meta.url));

const progress = (message: string): void => {
  process.stderr.write(`bench pipeline: ${message}\n`);
};

/** PipelineBenchOptions: how many JobSets per controller, and where the counts go. */
export interface PipelineBenchOptions {
  /** @default DEFAULT_JOBSETS */
  readonly jobSets?: number;
  /** @default DEFAULT_COUNTS_OUT */
  readonly countsOut?: string;
}

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
  let jobs: JobWatch | undefined;
  let client: BenchKubeClient | undefined;
  const counter = new CallCounter();
  try {
    progress(`starting kube-apiserver (every request audited), moto, dynalite, Lineup's pipeline and upstream ${binary.version}`);
    cluster = await startE2eCluster({ extraApiServerArgs: audit.args });
    const kube = cluster.kube;
    [moto, dynamo] = await Promise.all([startMoto(), startDynalite()]);
    const rule = await synthesizedRule();
    pipeline = await Pipeline.start({
      kube,
      moto,
      dynamo,
      clusterId: 'bench',
      rule,
      pollers: DEFAULT_RECONCILER_MAX_CONCURRENCY,
      visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
      deployedForwarderTimings: true,
      // The deployed lease: a loop slowed down by the loaded test servers keeps its JobSet (the
      // tests' 10 s lease can lapse mid-loop, leaving a deferred event to the resync, which the bench does not run).
      leaseTtlMs: DEFAULT_LEASE_TTL_MS,
      instrument: (clients) => counter.attach(clients),
    });
    upstream = await startUpstreamController(kube);
    client = new BenchKubeClient(kube);
    for (const namespace of Object.values(NAMESPACE)) await client.createNamespace(namespace);

    const base = story2Manifest();
    const stages = stagesOf(base);
    jobs = new JobWatch(kube);
    await jobs.start();
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
        // Every object the event names: its own and those of its JobSet folded in (`also`).
        const detail = LineupEventDetailSchema.parse(JSON.parse(entry.Detail));
        for (const change of changesOf(detail)) {
          const key = jobKey(detail.namespace, change.name);
          puts.set(key, [...(puts.get(key) ?? []), at]);
        }
      });
      return result;
    };

    const setupRecords = audit.requests();
    const setupRequests = {
      lineup: describeRequests(setupRecords.filter((record) => actorOf(record) === 'lineup'), 'requests'),
      upstream: describeRequests(setupRecords.filter((record) => actorOf(record) === 'upstream'), 'requests'),
    };
    const run: Run = { pipeline, client, jobs, audit, base, stages, counter, puts };
    const solo = await runPhase(run, 'one at a time', Array.from({ length: SOLO_JOBSETS }, (_, index) => soloJobSetName(index)), true);
    const burst = await runPhase(run, `${jobSets} at once`, Array.from({ length: jobSets }, (_, index) => jobSetName(index)), false);

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
      jobWatchProblems: jobs.problems,
      countsFile: countsOut,
      counts,
      wallMs: Date.now() - wallStarted,
    };
  } finally {
    await jobs?.stop();
    client?.close();
    await pipeline?.stop();
    await upstream?.stop();
    await moto?.stop();
    await dynamo?.stop();
    await cluster?.stop();
    await audit.remove();
  }
};

if (import.meta.main) {
  const { values } = parseArgs({ options: { jobsets: { type: 'string', default: String(DEFAULT_JOBSETS) }, 'counts-out': { type: 'string', default: DEFAULT_COUNTS_OUT } } });
  const figures = await runPipelineBench({ jobSets: Number(values.jobsets), countsOut: values['counts-out'] });
  console.log(renderPipelineFigures(figures).join('\n'));
}
