import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allReplicasStarted } from '../../lib/policy/progress.ts';
import { evaluateStartup } from '../../lib/policy/startupPolicy.ts';
import type { ReplicatedJobProgress, StartupPolicySpec } from '../../lib/policy/types.ts';
import { startupPolicySpecOf } from '../../lib/plan/startupSpec.ts';
import { makeJobSet } from '../builders.ts';

const progress = (entries: Record<string, Partial<ReplicatedJobProgress>>): Map<string, ReplicatedJobProgress> =>
  new Map(Object.entries(entries).map(([name, p]) => [name, { ready: 0, succeeded: 0, failed: 0, ...p }]));

describe('startup_policy_test.go', () => {
  const inOrderCases = [
    { name: 'startup policy AnyOrder', jobSet: makeJobSet('js').replicatedJob('a', 1).anyOrder().obj(), want: 'AnyOrder' },
    { name: 'startup policy InOrder', jobSet: makeJobSet('js').replicatedJob('a', 1).inOrder().obj(), want: 'InOrder' },
    { name: 'nil startup policy', jobSet: makeJobSet('js').replicatedJob('a', 1).obj(), want: 'AnyOrder' },
  ];
  for (const tc of inOrderCases) {
    it(`TestInOrderStartupPolicy: ${tc.name}`, () => {
      assert.equal(startupPolicySpecOf(tc.jobSet).form, tc.want);
    });
  }

  const startedCases: { name: string; replicas: number; status: ReplicatedJobProgress | undefined; want: boolean }[] = [
    { name: 'replicas 1; no replicatedJobStatus', replicas: 1, status: undefined, want: false },
    { name: 'replicas 4; replicatedJobStatus all ready', replicas: 4, status: { ready: 4, succeeded: 0, failed: 0 }, want: true },
    { name: 'replicas 4; replicatedJobStatus mix of ready, failed and succeeded', replicas: 4, status: { ready: 2, succeeded: 1, failed: 1 }, want: true },
    // "all active": active 4 but ready 0 — active Jobs do not count as started.
    { name: 'replicas 4; replicatedJobStatus all active', replicas: 4, status: { ready: 0, succeeded: 0, failed: 0 }, want: false },
  ];
  for (const tc of startedCases) {
    it(`TestReplicatedJobStarted: ${tc.name}`, () => {
      assert.equal(allReplicasStarted(tc.replicas, tc.status ?? { ready: 0, succeeded: 0, failed: 0 }), tc.want);
    });
  }
});

describe('policy/startupPolicy', () => {
  const story2: StartupPolicySpec = {
    form: 'InOrder',
    replicatedJobs: [
      { name: 'messagequeue', replicas: 1 },
      { name: 'driver', replicas: 2 },
      { name: 'worker', replicas: 2 },
    ],
  };

  const cases: { name: string; policy: StartupPolicySpec; progress: Map<string, ReplicatedJobProgress>; released: string[]; waiting?: string; complete: boolean }[] = [
    {
      name: 'InOrder releases only the first replicatedJob while nothing is ready',
      policy: story2,
      progress: progress({}),
      released: ['messagequeue'],
      waiting: 'waiting for messagequeue to be Ready: 0/1 jobs ready',
      complete: false,
    },
    {
      name: 'InOrder releases the next replicatedJob once the previous has all replicas started',
      policy: story2,
      progress: progress({ messagequeue: { ready: 1 }, driver: { ready: 1 } }),
      released: ['messagequeue', 'driver'],
      waiting: 'waiting for driver to be Ready: 1/2 jobs ready',
      complete: false,
    },
    {
      name: 'InOrder counts succeeded and failed Jobs as started',
      policy: story2,
      progress: progress({ messagequeue: { succeeded: 1 }, driver: { ready: 1, failed: 1 } }),
      released: ['messagequeue', 'driver', 'worker'],
      waiting: 'waiting for worker to be Ready: 0/2 jobs ready',
      complete: false,
    },
    {
      name: 'InOrder is complete when every replicatedJob started',
      policy: story2,
      progress: progress({ messagequeue: { ready: 1 }, driver: { ready: 2 }, worker: { ready: 2 } }),
      released: ['messagequeue', 'driver', 'worker'],
      complete: true,
    },
    {
      name: 'InOrder treats a replicatedJob with 0 replicas as started',
      policy: { form: 'InOrder', replicatedJobs: [{ name: 'none', replicas: 0 }, { name: 'b', replicas: 1 }] },
      progress: progress({}),
      released: ['none', 'b'],
      waiting: 'waiting for b to be Ready: 0/1 jobs ready',
      complete: false,
    },
    {
      name: 'AnyOrder releases everything at once',
      policy: { ...story2, form: 'AnyOrder' },
      progress: progress({}),
      released: ['messagequeue', 'driver', 'worker'],
      waiting: 'waiting for messagequeue to be Ready: 0/1 jobs ready',
      complete: false,
    },
    {
      name: 'dependsOn releases independent replicatedJobs together and holds the dependent one',
      policy: {
        form: 'DependsOn',
        replicatedJobs: [
          { name: 'a', replicas: 1 },
          { name: 'b', replicas: 1 },
          { name: 'c', replicas: 3, dependsOn: [{ name: 'a', status: 'Ready' }, { name: 'b', status: 'Complete' }] },
        ],
      },
      progress: progress({ a: { ready: 1 }, b: { ready: 1 } }),
      released: ['a', 'b'],
      waiting: 'waiting for b to be Complete: 0/1 jobs succeeded',
      complete: false,
    },
    {
      name: 'ordered rules release each rule after the previous holds, and unnamed replicatedJobs last',
      policy: {
        form: 'Rules',
        replicatedJobs: [
          { name: 'dataset', replicas: 2 },
          { name: 'driver', replicas: 1 },
          { name: 'workers', replicas: 4 },
        ],
        rules: [
          { targetReplicatedJobs: ['dataset'], status: 'Complete' },
          { targetReplicatedJobs: ['driver'], status: 'Ready' },
        ],
      },
      progress: progress({ dataset: { succeeded: 2 } }),
      released: ['dataset', 'driver'],
      waiting: 'waiting for driver to be Ready: 0/1 jobs ready',
      complete: false,
    },
    {
      name: 'ordered rules hold the second rule while the first is unmet',
      policy: {
        form: 'Rules',
        replicatedJobs: [
          { name: 'dataset', replicas: 2 },
          { name: 'driver', replicas: 1 },
          { name: 'workers', replicas: 4 },
        ],
        rules: [
          { targetReplicatedJobs: ['dataset'], status: 'Complete' },
          { targetReplicatedJobs: ['driver'], status: 'Ready' },
        ],
      },
      progress: progress({ dataset: { succeeded: 1, ready: 1 } }),
      released: ['dataset'],
      waiting: 'waiting for dataset to be Complete: 1/2 jobs succeeded',
      complete: false,
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      // Act
      const evaluation = evaluateStartup(tc.policy, tc.progress);
      // Assess
      assert.deepEqual(
        evaluation.gates.filter((gate) => gate.released).map((gate) => gate.replicatedJob),
        tc.released,
      );
      assert.equal(evaluation.waitingOn?.message, tc.waiting);
      assert.equal(evaluation.complete, tc.complete);
    });
  }
});
