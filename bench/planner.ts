/**
 * Benchmark: time and allocation of one planner pass for JobSets of growing size, mid-startup
 * (every Job exists, the first half of the replicatedJobs ready, the rest held back). Prints
 * p50/p99 wall time per plan and the heap allocated by one plan. Run with
 * `node --expose-gc --max-semi-space-size=512 bench/planner.ts` (npm run bench does) so no
 * scavenge hides allocation.
 */
import { performance } from 'node:perf_hooks';
import type { Job, JobSet } from '../lib/jobset/schema.ts';
import { DEFAULT_PLAN_OPTIONS, plan } from '../lib/plan/planner.ts';
import type { Observed, PlanOptions } from '../lib/plan/types.ts';
import { DEFAULT_JOBSET_LIMITS } from '../lib/jobset/size.ts';

/** PlannerFigure: one size's figures. */
export interface PlannerFigure {
  readonly size: string;
  readonly jobs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly allocatedMiB: number | null;
  readonly actions: number;
}

const jobSetOf = (replicatedJobs: number, replicas: number): JobSet => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: 'bench', namespace: 'default', uid: 'bench-uid', resourceVersion: '1' },
  spec: {
    managedBy: DEFAULT_PLAN_OPTIONS.controllerName,
    startupPolicy: { startupPolicyOrder: 'InOrder' },
    replicatedJobs: Array.from({ length: replicatedJobs }, (_, i) => ({
      name: `r${i}`,
      replicas,
      template: { spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main' }] } } } },
    })),
  },
});

/**
 * optionsFor: the planner's options with the JobSet size bounds raised to this JobSet's, as a
 * deployment that accepts JobSets this large sets them (the default bounds would reject 100,000
 * Jobs before planning anything).
 */
const optionsFor = (replicatedJobs: number, replicas: number): PlanOptions => ({
  ...DEFAULT_PLAN_OPTIONS,
  limits: { maxJobs: Math.max(DEFAULT_JOBSET_LIMITS.maxJobs, replicatedJobs * replicas), maxPods: Math.max(DEFAULT_JOBSET_LIMITS.maxPods, replicatedJobs * replicas) },
});

/**
 * midStartup: the observed state halfway through an InOrder startup, built by the planner itself:
 * passes create the Jobs (at most MAX_CREATES_PER_PASS each) until every one exists, then the first
 * half of the replicatedJobs runs and all but the last of those are ready.
 */
const midStartup = (replicatedJobs: number, replicas: number, options: PlanOptions): Observed => {
  const jobSet = jobSetOf(replicatedJobs, replicas);
  const now = Date.parse('2026-01-01T00:00:00Z');
  const created: Job[] = [];
  for (;;) {
    const creates = plan({ jobSet, jobs: created, service: undefined, now }, options).actions.flatMap((action) => (action.kind === 'CreateJob' ? [action.job] : []));
    if (creates.length === 0) break;
    created.push(...creates);
  }
  const half = Math.floor(replicatedJobs / 2);
  const jobs: Job[] = created.map((job) => {
    const index = Number((job.metadata.name ?? '').split('-')[1]?.slice(1)); // bench-r<index>-<replica>
    const running = index <= half;
    return { ...job, metadata: { ...job.metadata, uid: `u-${job.metadata.name}`, resourceVersion: '2' }, spec: { ...job.spec, suspend: !running }, status: running && index < half ? { active: 1, ready: 1 } : {} };
  });
  return { jobSet, jobs, service: undefined, now };
};

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** measure: plan the same observation repeatedly. */
const measure = (replicatedJobs: number, replicas: number, iterations: number): PlannerFigure => {
  const options = optionsFor(replicatedJobs, replicas);
  const observed = midStartup(replicatedJobs, replicas, options);
  const gc = (globalThis as { gc?: () => void }).gc;
  let actions = 0;
  for (let i = 0; i < Math.min(5, iterations); i += 1) actions = plan(observed, options).actions.length;
  let allocatedMiB: number | null = null;
  if (gc) {
    gc();
    const before = process.memoryUsage().heapUsed;
    plan(observed, options);
    allocatedMiB = Math.round(((process.memoryUsage().heapUsed - before) / 1024 / 1024) * 100) / 100;
  }
  const times: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const started = performance.now();
    plan(observed, options);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const round = (ms: number): number => Math.round(ms * 1000) / 1000;
  return { size: `${replicatedJobs}×${replicas}`, jobs: replicatedJobs * replicas, p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)), allocatedMiB, actions };
};

/** runPlannerBench: 10×10, 10×100, 100×100 and 100×1,000. */
export const runPlannerBench = (): PlannerFigure[] => [measure(10, 10, 500), measure(10, 100, 200), measure(100, 100, 50), measure(100, 1000, 10)];

if (import.meta.main) {
  for (const f of runPlannerBench()) {
    console.log(`plan ${f.size} mid-startup (${f.jobs} jobs, ${f.actions} actions): p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, ${f.allocatedMiB ?? '?'} MiB allocated per plan`);
  }
}
