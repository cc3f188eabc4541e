import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dependencyReachedStatus } from '../../lib/policy/dependsOn.ts';
import type { GatedReplicatedJob, ReplicatedJobProgress } from '../../lib/policy/types.ts';

const statuses = (entries: Record<string, Partial<ReplicatedJobProgress>>): Map<string, ReplicatedJobProgress> =>
  new Map(Object.entries(entries).map(([name, p]) => [name, { ready: 0, succeeded: 0, failed: 0, ...p }]));

describe('depends_on_test.go', () => {
  const replicas = new Map([
    ['rjob-1', 2],
    ['rjob-2', 2],
    ['rjob-3', 3],
    ['rjob-4', 3],
  ]);
  const completeOn: GatedReplicatedJob = { name: 'rjob-3', replicas: 3, dependsOn: [{ name: 'rjob-1', status: 'Complete' }, { name: 'rjob-2', status: 'Complete' }] };
  const readyOn: GatedReplicatedJob = { name: 'rjob-5', replicas: 1, dependsOn: [{ name: 'rjob-3', status: 'Ready' }, { name: 'rjob-4', status: 'Ready' }] };
  const cases: { name: string; rjob: GatedReplicatedJob; statuses: Map<string, ReplicatedJobProgress> | undefined; want: boolean }[] = [
    { name: "ReplicatedJob doesn't have any dependencies", rjob: { name: 'rjob-1', replicas: 2 }, statuses: statuses({}), want: true },
    { name: 'status for ReplicatedJob is nil', rjob: completeOn, statuses: statuses({ 'rjob-2': { succeeded: 2 } }), want: false },
    { name: 'rJobStatuses is nil', rjob: completeOn, statuses: undefined, want: false },
    { name: 'depends on ReplicatedJob reaches complete status', rjob: completeOn, statuses: statuses({ 'rjob-1': { succeeded: 2 }, 'rjob-2': { succeeded: 2 } }), want: true },
    {
      name: "one depends on ReplicatedJob doesn't reach complete status",
      rjob: completeOn,
      statuses: statuses({ 'rjob-1': { ready: 1, succeeded: 1 }, 'rjob-2': { succeeded: 2 } }),
      want: false,
    },
    {
      name: "two depends on ReplicatedJob doesn't reach complete status",
      rjob: completeOn,
      statuses: statuses({ 'rjob-1': { ready: 1, succeeded: 1 }, 'rjob-2': { ready: 2 } }),
      want: false,
    },
    {
      name: 'depends on ReplicatedJob reaches ready status',
      rjob: readyOn,
      statuses: statuses({ 'rjob-3': { ready: 1, succeeded: 1, failed: 1 }, 'rjob-4': { ready: 1, succeeded: 1, failed: 1 } }),
      want: true,
    },
    {
      name: "one depends on ReplicatedJob doesn't reach ready status",
      rjob: readyOn,
      statuses: statuses({ 'rjob-3': { ready: 2 }, 'rjob-4': { ready: 3 } }),
      want: false,
    },
    {
      name: "two depends on ReplicatedJobs doesn't reach ready status",
      rjob: readyOn,
      statuses: statuses({ 'rjob-3': { ready: 2 }, 'rjob-4': { ready: 2 } }),
      want: false,
    },
  ];
  for (const tc of cases) {
    it(`TestDependencyReachedStatus: ${tc.name}`, () => {
      assert.equal(dependencyReachedStatus(tc.rjob, replicas, tc.statuses), tc.want);
    });
  }
});
