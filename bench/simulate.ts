/**
 * Benchmark: wall time and peak memory of a whole `simulate` run (the real planner driving the
 * simulated cluster in virtual time) for InOrder JobSets of growing size. Prints figures only.
 */
import { performance } from 'node:perf_hooks';
import type { JobSet } from '../lib/jobset/schema.ts';
import { DEFAULT_PLAN_OPTIONS } from '../lib/plan/planner.ts';
import { EMPTY_BEHAVIOUR } from '../lib/sim/behaviour.ts';
import { simulate } from '../lib/sim/simulate.ts';

/** inOrderJobSet: `replicatedJobs` × `replicas` single-pod Jobs, started in order. */
const inOrderJobSet = (replicatedJobs: number, replicas: number): JobSet => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: `bench-${replicatedJobs}x${replicas}`, namespace: 'default', uid: 'bench-uid' },
  spec: {
    managedBy: DEFAULT_PLAN_OPTIONS.controllerName,
    startupPolicy: { startupPolicyOrder: 'InOrder' },
    replicatedJobs: Array.from({ length: replicatedJobs }, (_, i) => ({
      name: `rjob${i}`,
      replicas,
      template: { spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main' }] } } } },
    })),
  },
});

export interface SimulateFigure {
  readonly size: string;
  readonly jobs: number;
  readonly wallMs: number;
  readonly passes: number;
  readonly peakRssMiB: number;
}

/** measure: one run, timed, with the process's peak RSS afterwards. */
const measure = (replicatedJobs: number, replicas: number): SimulateFigure => {
  const jobSet = inOrderJobSet(replicatedJobs, replicas);
  const started = performance.now();
  const result = simulate(jobSet, EMPTY_BEHAVIOUR, { until: 24 * 3600_000, latency: 0, planOptions: DEFAULT_PLAN_OPTIONS });
  const wallMs = performance.now() - started;
  if (result.final.terminalState !== 'Completed') throw new Error(`${jobSet.metadata.name} did not complete: ${result.final.terminalState}`);
  return {
    size: `${replicatedJobs}×${replicas}`,
    jobs: replicatedJobs * replicas,
    wallMs: Math.round(wallMs),
    passes: result.counters.passes,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
};

/** runSimulateBench: the figures for 10×50 and 100×100. */
export const runSimulateBench = (): SimulateFigure[] => [measure(10, 50), measure(100, 100)];

if (import.meta.main) {
  for (const figure of runSimulateBench()) {
    console.log(`simulate ${figure.size} (${figure.jobs} jobs): ${figure.wallMs} ms wall, ${figure.passes} passes, peak RSS ${figure.peakRssMiB} MiB`);
  }
}
