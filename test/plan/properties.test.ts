/**
 * Properties of the planner over random JobSets and random Job progress (fast-check):
 * safety — no replicatedJob ever runs before its gate is open, judged by an oracle written
 * independently of lib/policy; liveness — once every Job is able to become ready (and the
 * Complete-awaited ones to succeed), the sequence always completes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import { jobFinishedType } from '../../lib/plan/childJobs.ts';
import { makeJobSet } from '../builders.ts';
import { TestCluster } from './harness.ts';

type Status = 'Ready' | 'Complete';
interface Shape {
  readonly replicas: number[];
  readonly form: 'AnyOrder' | 'InOrder' | 'DependsOn' | 'Rules';
  readonly dependsOn: { name: number; status: Status }[][];
  readonly rules: { targets: number[]; status: Status }[];
}

const statusArb = fc.constantFrom<Status>('Ready', 'Complete');

const shapeArb: fc.Arbitrary<Shape> = fc
  .record({
    replicas: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 5 }),
    form: fc.constantFrom<Shape['form']>('AnyOrder', 'InOrder', 'DependsOn', 'Rules'),
    seed: fc.array(fc.tuple(fc.integer({ min: 0, max: 31 }), statusArb, fc.integer({ min: 0, max: 3 })), { minLength: 5, maxLength: 5 }),
  })
  .map(({ replicas, form, seed }) => {
    const dependsOn = replicas.map((_, i) => {
      if (i === 0 || form !== 'DependsOn') return [];
      const [mask, status] = seed[i] ?? [0, 'Ready'];
      return Array.from({ length: i }, (_, j) => j).filter((j) => (mask >> j) & 1).map((name) => ({ name, status }));
    });
    // Rules: each replicatedJob goes to rule seed[i][2] (3 = named by no rule); empty rules dropped.
    const byRule = new Map<number, number[]>();
    replicas.forEach((_, i) => {
      const rule = seed[i]?.[2] ?? 3;
      if (rule < 3) byRule.set(rule, [...(byRule.get(rule) ?? []), i]);
    });
    const rules = form === 'Rules' ? [...byRule.entries()].sort(([a], [b]) => a - b).map(([rule, targets]) => ({ targets, status: seed[rule]?.[1] ?? 'Ready' })) : [];
    // A form with nothing to order is AnyOrder, as startupPolicySpecOf reads it.
    const empty = (form === 'Rules' && rules.length === 0) || (form === 'DependsOn' && dependsOn.every((d) => d.length === 0));
    return { replicas, form: empty ? 'AnyOrder' : form, dependsOn, rules };
  });

const rjobName = (i: number): string => `r${i}`;

const jobSetOf = (shape: Shape): JobSet => {
  let builder = makeJobSet('p');
  shape.replicas.forEach((replicas, i) => {
    const dependsOn = shape.dependsOn[i] ?? [];
    builder = builder.replicatedJob(rjobName(i), replicas, dependsOn.length > 0 ? { dependsOn: dependsOn.map((d) => ({ name: rjobName(d.name), status: d.status })) } : {});
  });
  if (shape.form === 'InOrder') builder = builder.inOrder();
  if (shape.form === 'Rules') {
    builder = builder.annotation(
      'lineup.dev/startup-rules',
      JSON.stringify(shape.rules.map((rule) => ({ targetReplicatedJobs: rule.targets.map(rjobName), status: rule.status === 'Complete' ? 'Succeeded' : 'Ready' }))),
    );
  }
  return builder.obj();
};

// ---- the oracle: gates computed straight from Job objects, independently of lib/policy ----
const jobsOf = (jobs: readonly Job[], i: number): Job[] => jobs.filter((job) => job.metadata.labels?.['jobset.sigs.k8s.io/replicatedjob-name'] === rjobName(i));
const isReady = (job: Job): boolean => job.spec.suspend !== true && (job.status?.ready ?? 0) >= (job.spec.parallelism ?? 1);
const reached = (jobs: readonly Job[], i: number, replicas: number, status: Status): boolean => {
  const mine = jobsOf(jobs, i);
  const succeeded = mine.filter((job) => jobFinishedType(job) === 'Complete').length;
  const failed = mine.filter((job) => jobFinishedType(job) === 'Failed').length;
  const ready = mine.filter((job) => jobFinishedType(job) === undefined && isReady(job)).length;
  return status === 'Complete' ? succeeded >= replicas : ready + succeeded + failed >= replicas;
};
const oracleGateOpen = (shape: Shape, jobs: readonly Job[], i: number): boolean => {
  switch (shape.form) {
    case 'AnyOrder':
      return true;
    case 'InOrder':
      return shape.replicas.slice(0, i).every((replicas, j) => reached(jobs, j, replicas, 'Ready'));
    case 'DependsOn':
      return (shape.dependsOn[i] ?? []).every((d) => reached(jobs, d.name, shape.replicas[d.name] ?? 0, d.status));
    case 'Rules': {
      const ruleOf = shape.rules.findIndex((rule) => rule.targets.includes(i));
      const earlier = ruleOf === -1 ? shape.rules : shape.rules.slice(0, ruleOf);
      return earlier.every((rule) => rule.targets.every((t) => reached(jobs, t, shape.replicas[t] ?? 0, rule.status)));
    }
  }
};

/** passChecked: one pass; every Job it starts belongs to a replicatedJob whose gate the oracle finds open (or that already runs). */
const passChecked = (cluster: TestCluster, shape: Shape): number => {
  const before = [...cluster.jobs.values()];
  const result = cluster.pass();
  for (const action of result.actions) {
    const starts = action.kind === 'ResumeJob' || (action.kind === 'CreateJob' && action.job.spec.suspend !== true);
    if (!starts) continue;
    const i = Number((action.kind === 'ResumeJob' ? action.replicatedJob : action.replicatedJob).slice(1));
    const alreadyRunning = jobsOf(before, i).some((job) => job.spec.suspend !== true && jobFinishedType(job) === undefined);
    assert.ok(
      alreadyRunning || oracleGateOpen(shape, before, i),
      `${action.kind} of ${rjobName(i)} before its gate opened (form ${shape.form}): ${result.reason}`,
    );
  }
  return result.actions.length;
};

const settleChecked = (cluster: TestCluster, shape: Shape): void => {
  for (let i = 0; i < 30; i += 1) if (passChecked(cluster, shape) === 0) return;
  assert.fail('planner did not settle within 30 passes');
};

/** Steps of outside progress: a running Job turns ready, succeeds, or loses readiness. */
const stepArb = fc.array(fc.tuple(fc.constantFrom('ready', 'complete', 'unready'), fc.nat()), { maxLength: 25 });

describe('planner properties', () => {
  it('never starts a replicatedJob before its gate is open, whatever the Jobs do', () => {
    fc.assert(
      fc.property(shapeArb, stepArb, (shape, steps) => {
        const cluster = new TestCluster(jobSetOf(shape));
        settleChecked(cluster, shape);
        for (const [step, pick] of steps) {
          if (!cluster.jobSet || cluster.jobSet.status?.terminalState) return;
          const running = [...cluster.jobs.values()].filter((job) => job.spec.suspend !== true && jobFinishedType(job) === undefined);
          const job = running[pick % Math.max(running.length, 1)];
          if (job) {
            const name = job.metadata.name ?? '';
            if (step === 'ready') cluster.ready(name);
            else if (step === 'complete') cluster.complete(name);
            else cluster.jobs.set(name, { ...job, status: { ...job.status, ready: 0 } });
          }
          settleChecked(cluster, shape);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('always completes the sequence once every Job is able to become ready', () => {
    fc.assert(
      fc.property(shapeArb, (shape) => {
        const cluster = new TestCluster(jobSetOf(shape));
        const awaitedComplete = new Set<number>([
          ...shape.dependsOn.flat().filter((d) => d.status === 'Complete').map((d) => d.name),
          ...shape.rules.filter((rule) => rule.status === 'Complete').flatMap((rule) => rule.targets),
        ]);
        for (let round = 0; round < 20; round += 1) {
          settleChecked(cluster, shape);
          if (!cluster.jobSet || cluster.jobSet.status?.terminalState) break;
          let changed = false;
          for (const job of cluster.jobs.values()) {
            if (job.spec.suspend === true || jobFinishedType(job) !== undefined) continue;
            const i = Number((job.metadata.labels?.['jobset.sigs.k8s.io/replicatedjob-name'] ?? 'r0').slice(1));
            const name = job.metadata.name ?? '';
            if (awaitedComplete.has(i)) {
              cluster.complete(name);
              changed = true;
            } else if ((job.status?.ready ?? 0) === 0) {
              cluster.ready(name);
              changed = true;
            }
          }
          if (!changed) break;
        }
        const jobSet = cluster.jobSet;
        assert.ok(jobSet, 'the jobset still exists');
        if (jobSet.status?.terminalState === 'Completed') return;
        const total = shape.replicas.reduce((a, b) => a + b, 0);
        assert.equal(cluster.jobs.size, total, 'every Job exists');
        assert.deepEqual(cluster.suspendedNames(), [], 'no Job is held back');
        // A gated form reports its completed startup; AnyOrder has no startup conditions (upstream's).
        assert.equal(cluster.condition('StartupPolicyCompleted')?.status, shape.form === 'AnyOrder' ? undefined : 'True');
      }),
      { numRuns: 300 },
    );
  });
});
