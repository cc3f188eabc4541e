/** Comparing runs under Kueue: start order per admission, end, Workload conditions and evictions, and the table of them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deviationRows, quotedRows } from './deviations.ts';
import { compareKueueRuns, CREATED_AT_ONCE, STALE_FLAVOR_LABELS, endState, evictionsOf, kueueTable, ordersByAdmission, workloadState, type KueueRecord } from './kueueTable.ts';

const completedJobSet = { spec: { suspend: false }, status: { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully' }] } };
const finishedWorkload = {
  spec: { active: true },
  status: {
    conditions: [
      { type: 'QuotaReserved', status: 'False' },
      { type: 'Admitted', status: 'True' },
      { type: 'Finished', status: 'True' },
    ],
  },
};
const preemptedOnce = { ...finishedWorkload, status: { ...finishedWorkload.status, schedulingStats: { evictions: [{ reason: 'Preempted', underlyingCause: 'InClusterQueue', count: 1 }] } } };

const record = (events: [string, number][], suspendedAt: number[] = [], final: Record<string, unknown> | undefined = completedJobSet, workload: Record<string, unknown> | undefined = finishedWorkload): KueueRecord => ({
  starts: Object.fromEntries([...events].reverse().map(([name, time]) => [name, time])),
  startEvents: events.map(([replicatedJob, time]) => ({ replicatedJob, at: time })),
  suspendedAt,
  final,
  deleted: false,
  workload,
});

describe('ordersByAdmission', () => {
  it('is the start order of a JobSet admitted once', () => {
    assert.equal(ordersByAdmission(record([['mq', 0], ['driver', 2_000], ['workers', 4_000]])), 'mq | driver | workers');
  });

  it('starts over after each suspension, and leaves out a trailing stretch that started nothing', () => {
    const evictedTwice = record([['mq', 0], ['mq', 20_000]], [15_000, 35_000]);
    assert.equal(ordersByAdmission(evictedTwice), 'mq ⟲ mq');
    const preempted = record([['mq', 0], ['mq', 10_000], ['driver', 12_000], ['workers', 14_000]], [5_000]);
    assert.equal(ordersByAdmission(preempted), 'mq ⟲ mq | driver | workers');
  });

  it('says (none) for an admission in the middle that started nothing', () => {
    assert.equal(ordersByAdmission(record([['mq', 0], ['mq', 30_000]], [5_000, 20_000])), 'mq ⟲ (none) ⟲ mq');
  });
});

describe('endState, workloadState, evictionsOf', () => {
  it('names how the JobSet ended: a True terminal condition, else suspended, else running', () => {
    assert.equal(endState(completedJobSet), 'Completed');
    assert.equal(endState({ spec: { suspend: true }, status: { conditions: [{ type: 'Failed', status: 'False' }] } }), 'Suspended');
    assert.equal(endState({ spec: {} }), 'Running');
    assert.equal(endState(undefined), '(not seen)');
  });

  it('lists the True conditions sorted, and a deactivated Workload as inactive', () => {
    assert.equal(workloadState(finishedWorkload), 'Admitted Finished');
    assert.equal(workloadState({ spec: { active: false }, status: { conditions: [{ type: 'Evicted', status: 'True' }] } }), 'Evicted inactive');
    assert.equal(workloadState({}), '(no condition)');
    assert.equal(workloadState(undefined), '(none)');
  });

  it('counts evictions by reason and cause', () => {
    assert.equal(evictionsOf(preemptedOnce), 'Preempted/InClusterQueue ×1');
    assert.equal(evictionsOf({ status: { schedulingStats: { evictions: [{ reason: 'PodsReadyTimeout', count: 2 }, { reason: 'Deactivated', underlyingCause: 'RequeuingLimitExceeded', count: 1 }] } } }), 'Deactivated/RequeuingLimitExceeded ×1, PodsReadyTimeout ×2');
    assert.equal(evictionsOf(finishedWorkload), 'none');
  });
});

describe('compareKueueRuns and kueueTable', () => {
  it('finds nothing between equal runs, and the table says so', () => {
    const ours = new Map([['victim', record([['mq', 0], ['mq', 10_000], ['driver', 12_000]], [5_000], completedJobSet, preemptedOnce)]]);
    const theirs = new Map([['victim', record([['mq', 100], ['mq', 9_000], ['driver', 11_000]], [4_000], completedJobSet, preemptedOnce)]]);
    assert.deepEqual(compareKueueRuns(ours, theirs), []);
    const [lineup, upstream] = [ours.get('victim'), theirs.get('victim')];
    assert.ok(lineup && upstream);
    assert.deepEqual(kueueTable([{ scenario: 'preempted', jobSet: 'victim', lineup, upstream }]), [
      "| scenario | JobSet | start order, per admission | end | Workload | evictions | Jobs' node labels | upstream JobSet |",
      '|---|---|---|---|---|---|---|---|',
      '| preempted | victim | mq ⟲ mq \\| driver | Completed | Admitted Finished | Preempted/InClusterQueue ×1 | - | same |',
    ]);
  });

  it('reports a different eviction count or end as not documented, and the table shows upstream’s values', () => {
    const ours = new Map([['slow', record([['mq', 0]], [15_000], { spec: { suspend: true } }, { spec: { active: false }, status: { schedulingStats: { evictions: [{ reason: 'PodsReadyTimeout', count: 1 }] } } })]]);
    const theirs = new Map([['slow', record([['mq', 0]], [15_000], { spec: { suspend: true } }, { spec: { active: false }, status: { schedulingStats: { evictions: [{ reason: 'PodsReadyTimeout', count: 2 }] } } })]]);
    const differences = compareKueueRuns(ours, theirs);
    assert.deepEqual(
      differences.map((d) => [d.field, d.lineup, d.upstream, d.verdict.kind]),
      [['evictions', 'PodsReadyTimeout ×1', 'PodsReadyTimeout ×2', 'not documented']],
    );
    const [lineup, upstream] = [ours.get('slow'), theirs.get('slow')];
    assert.ok(lineup && upstream);
    assert.match(kueueTable([{ scenario: 'waitForPodsReady', jobSet: 'slow', lineup, upstream }])[2] ?? '', /\| evictions: PodsReadyTimeout ×2 \|$/);
  });

  it('documents upstream Jobs carrying two flavors\' node labels where Lineup\'s carry one, and nothing else', () => {
    const ours = new Map([['victim', { ...record([['mq', 0]]), jobFlavors: 'flavor-b' }]]);
    const theirs = new Map([['victim', { ...record([['mq', 0]]), jobFlavors: 'mq: flavor-a+flavor-b; driver workers: flavor-b' }]]);
    assert.deepEqual(compareKueueRuns(ours, theirs).map((d) => [d.field, d.verdict.kind]), [["Jobs' node labels", 'documented']]);
    assert.equal(compareKueueRuns(theirs, ours)[0]?.verdict.kind, 'not documented');
  });

  it("documents a stopped JobSet's later-stage Jobs that only Lineup created: their suspended count and their missing node labels", () => {
    const stopped = { spec: { suspend: true }, status: { replicatedJobsStatus: [{ name: 'workers', suspended: 4, ready: 0, succeeded: 0, failed: 0, active: 0 }] } };
    const upstreamStopped = { spec: { suspend: true }, status: { replicatedJobsStatus: [{ name: 'workers', suspended: 0, ready: 0, succeeded: 0, failed: 0, active: 0 }] } };
    const ours = new Map([['long-initializer', { ...record([['init', 0]], [], stopped), jobFlavors: 'init: flavor-a; workers: (none)' }]]);
    const theirs = new Map([['long-initializer', { ...record([['init', 0]], [], upstreamStopped), jobFlavors: 'flavor-a' }]]);
    const differences = compareKueueRuns(ours, theirs);
    assert.deepEqual(differences.map((d) => [d.field, d.verdict]), [
      ['replicatedJobsStatus[workers].suspended', CREATED_AT_ONCE],
      ["Jobs' node labels", CREATED_AT_ONCE],
    ]);
  });

  it('quotes rows the deviations table of docs/conformance.md has', () => {
    const rows = deviationRows();
    for (const verdict of [STALE_FLAVOR_LABELS, CREATED_AT_ONCE]) {
      const quoted = verdict.kind === 'not documented' ? [] : quotedRows(verdict.why);
      assert.equal(quoted.length, 1, `one row quoted by: ${verdict.kind === 'not documented' ? '' : verdict.why}`);
      for (const row of quoted) assert.ok(rows.some((have) => have.startsWith(row)), `docs/conformance.md's deviations table has a row starting "${row}"`);
    }
  });
});
