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
import type { Observed } from '../lib/plan/types.ts';

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

/** midStartup: the observed state halfway through an InOrder startup, built by the planner itself. */
const midStartup = (replicatedJobs: number, replicas: number): Observed => {
  const jobSet = jobSetOf(replicatedJobs, replicas);
  const now = Date.parse('2026-01-01T00:00:00Z');
  const created = plan({ jobSet, jobs: [], service: undefined, now }, DEFAULT_PLAN_OPTIONS);
  const half = Math.floor(replicatedJobs / 2);
  const jobs: Job[] = created.actions.flatMap((action) => {
    if (action.kind !== 'CreateJob') return [];
    const index = Number(action.replicatedJob.slice(1));
    const running = index <= half;
    return [{ ...action.job, metadata: { ...action.job.metadata, uid: `u-${action.job.metadata.name}`, resourceVersion: '2' }, spec: { ...action.job.spec, suspend: !running }, status: running && index < half ? { active: 1, ready: 1 } : {} }];
  });
  return { jobSet, jobs, service: undefined, now };
};

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** measure: plan the same observation repeatedly. */
const measure = (replicatedJobs: number, replicas: number, iterations: number): PlannerFigure => {
  const observed = midStartup(replicatedJobs, replicas);
  const gc = (globalThis as { gc?: () => void }).gc;
  let actions = 0;
  for (let i = 0; i < Math.min(5, iterations); i += 1) actions = plan(observed, DEFAULT_PLAN_OPTIONS).actions.length;
  let allocatedMiB: number | null = null;
  if (gc) {
    gc();
    const before = process.memoryUsage().heapUsed;
    plan(observed, DEFAULT_PLAN_OPTIONS);
    allocatedMiB = Math.round(((process.memoryUsage().heapUsed - before) / 1024 / 1024) * 100) / 100;
  }
  const times: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const started = performance.now();
    plan(observed, DEFAULT_PLAN_OPTIONS);
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
