/** Comparing two runs: start order by stages, deletion, and final status through the pipeline benchmark's comparison. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EXPLANATION_VERDICTS } from '../../bench/pipeline/statusComparison.ts';
import { repoPath } from '../repoFiles.ts';
import { compareRuns, CUT_SHORT, RESUMED_APART, differenceTable, startOrder, undocumented, type RunRecord } from './compare.ts';

const completed = { status: { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'jobset completed successfully' }] } };

describe('startOrder', () => {
  it('groups starts less than the gap apart into one stage, names sorted within it', () => {
    assert.equal(startOrder({ workers: 3_400, driver: 1_600, mq: 0 }), 'mq | driver | workers');
    assert.equal(startOrder({ tail: 40, leader: 0, workers: 300 }), 'leader tail workers');
    assert.equal(startOrder({ b: 0, a: 2_000, c: 2_100 }), 'b | a c');
    assert.equal(startOrder({}), '');
  });
});

describe('compareRuns', () => {
  const run = (starts: Record<string, number>, final: Record<string, unknown> = completed, deleted = false): RunRecord => ({ starts, final, deleted });

  it('finds nothing between equal runs, whatever the absolute times', () => {
    const ours = new Map([['js', run({ mq: 100, driver: 1_900 })]]);
    const theirs = new Map([['js', run({ mq: 5_000, driver: 6_600 })]]);
    assert.deepEqual(compareRuns(ours, theirs), []);
  });

  it('reports a different start order, and a deletion on one side only, as not documented', () => {
    const ours = new Map([['js', run({ mq: 0, driver: 10 })], ['ttl', run({ a: 0 }, completed, false)]]);
    const theirs = new Map([['js', run({ mq: 0, driver: 2_000 })], ['ttl', run({ a: 0 }, completed, true)]]);
    const differences = compareRuns(ours, theirs);
    assert.deepEqual(
      differences.map((d) => [d.field, d.lineup, d.upstream, d.verdict.kind]),
      [
        ['start order', 'driver mq', 'mq | driver', 'not documented'],
        ['deleted (TTL)', 'false', 'true', 'not documented'],
      ],
    );
    assert.equal(undocumented(differences).length, 2);
    assert.match(differenceTable(differences).join('\n'), /\| start order \| driver mq \| mq \\\| driver \| 1 \(js\) \| not documented \|/);
  });

  it('calls a start order cut short by the end of the JobSet timing, when both twins ended alike', () => {
    const differences = compareRuns(new Map([['js', run({ mq: 0 })]]), new Map([['js', run({ mq: 0, driver: 2_000 })]]));
    assert.deepEqual(differences.map((d) => [d.field, d.lineup, d.upstream, d.verdict.kind]), [['start order', 'mq', 'mq | driver', 'timing']]);
    const running = compareRuns(new Map([['js', run({ mq: 0 }, {})]]), new Map([['js', run({ mq: 0, driver: 2_000 }, {})]]));
    assert.equal(running[0]?.verdict.kind, 'not documented');
  });

  it('calls a Lineup stage split into passes after a user resumed the JobSet timing, and nothing else', () => {
    const resumed = (starts: Record<string, number>): RunRecord => ({ ...run(starts), resumedByUser: true });
    const split = compareRuns(new Map([['js', resumed({ leader: 0, init: 1_600, workers: 4_000 })]]), new Map([['js', resumed({ init: 0, leader: 10, workers: 1_800 })]]));
    assert.deepEqual(split.map((d) => [d.lineup, d.upstream, d.verdict.kind]), [['leader | init | workers', 'init leader | workers', 'timing']]);
    const notResumed = compareRuns(new Map([['js', run({ leader: 0, init: 1_600 })]]), new Map([['js', run({ init: 0, leader: 10 })]]));
    assert.equal(notResumed[0]?.verdict.kind, 'not documented');
    const reordered = compareRuns(new Map([['js', resumed({ workers: 0, init: 1_600 })]]), new Map([['js', resumed({ init: 0, workers: 1_800 })]]));
    assert.equal(reordered[0]?.verdict.kind, 'not documented');
  });

  it('compares the final status field by field, with the verdicts of the README rows', () => {
    const failed = { status: { terminalState: 'Failed', conditions: [{ type: 'Failed', status: 'True', reason: 'FailedJobs', message: 'jobset failed' }] } };
    const differences = compareRuns(new Map([['js', run({ a: 0 })]]), new Map([['js', run({ a: 0 }, failed)]]));
    assert.deepEqual(
      differences.map((d) => [d.field, d.lineup, d.upstream, d.verdict.kind]).sort(),
      [
        ['conditions[Completed]', 'True AllJobsCompleted', '(absent)', 'not documented'],
        ['conditions[Failed]', '(absent)', 'True FailedJobs', 'not documented'],
        ['terminalState', 'Completed', 'Failed', 'not documented'],
      ],
    );
  });
});

describe('compareRuns verdicts for differences between twins that ended alike', () => {
  const ended = (failedCounter: number, firstFailed: string, extra: Record<string, unknown>[] = []): RunRecord => ({
    starts: { workers: 0 },
    deleted: false,
    final: {
      status: {
        terminalState: 'Failed',
        replicatedJobsStatus: [{ name: 'workers', failed: failedCounter }],
        conditions: [{ type: 'Failed', status: 'True', reason: 'FailedJobs', message: `jobset failed due to one or more job failures (first failed job: js-workers-${firstFailed})` }, ...extra],
      },
    },
  });

  it('calls counters of Jobs ending with the JobSet, and the first of Jobs failing together, timing; a dependsOn startup condition documented', () => {
    const dependsOn = { type: 'StartupPolicyCompleted', status: 'True', reason: 'DependsOnStartupCompleted', message: 'dependsOn startup has completed' };
    const differences = compareRuns(new Map([['js', ended(4, '0', [dependsOn])]]), new Map([['js', ended(1, '3')]]));
    assert.deepEqual(
      differences.map((d) => [d.field, d.verdict.kind]).sort(),
      [
        ['conditions[Failed].message', 'timing'],
        ['conditions[StartupPolicyCompleted]', 'documented'],
        ['replicatedJobsStatus[workers].failed', 'timing'],
      ],
    );
  });

  it('calls startup conditions timing when one twin failed before its controller saw the last stage ready', () => {
    const inProgress = { type: 'StartupPolicyInProgress', status: 'True', reason: 'InOrderStartupPolicyInProgress', message: 'in order startup policy is in progress' };
    const completedStartup = [
      { type: 'StartupPolicyInProgress', status: 'False', reason: 'InOrderStartupPolicyInProgress', message: 'in order startup policy is in progress' },
      { type: 'StartupPolicyCompleted', status: 'True', reason: 'InOrderStartupPolicyCompleted', message: 'in order startup policy has completed' },
    ];
    const differences = compareRuns(new Map([['js', ended(1, '0', completedStartup)]]), new Map([['js', ended(1, '0', [inProgress])]]));
    assert.deepEqual([...new Set(differences.map((d) => d.verdict.kind))], ['timing']);
  });

  it('calls startup conditions timing when both twins failed but only one controller had seen the last stage ready (its walk re-opened by the failure)', () => {
    // As upstream ended inorder-job-fails in one run: StartupPolicyCompleted True once, then False; Lineup never saw the workers ready.
    const waiting = { type: 'StartupPolicyInProgress', status: 'True', reason: 'InOrderStartupPolicyInProgress', message: 'in order startup policy is in progress: waiting for workers to be Ready: 0/3 jobs ready' };
    const reopened = [
      { type: 'StartupPolicyInProgress', status: 'True', reason: 'InOrderStartupPolicyInProgress', message: 'in order startup policy is in progress' },
      { type: 'StartupPolicyCompleted', status: 'False', reason: 'InOrderStartupPolicyCompleted', message: 'in order startup policy has completed' },
    ];
    const differences = compareRuns(new Map([['js', ended(1, '0', [waiting])]]), new Map([['js', ended(1, '0', reopened)]]));
    const startup = differences.filter((d) => d.field === 'conditions[StartupPolicyCompleted]');
    assert.deepEqual(startup.map((d) => [d.lineup, d.upstream, d.verdict.kind]), [['(absent)', 'False InOrderStartupPolicyCompleted', 'timing']]);
  });

  it('leaves a counter difference between twins that ended differently not documented', () => {
    const completed: RunRecord = { starts: { workers: 0 }, deleted: false, final: { status: { terminalState: 'Completed', replicatedJobsStatus: [{ name: 'workers', failed: 0 }] } } };
    const differences = compareRuns(new Map([['js', ended(1, '0')]]), new Map([['js', completed]]));
    assert.ok(differences.filter((d) => d.field.startsWith('replicatedJobsStatus')).every((d) => d.verdict.kind === 'not documented'));
  });
});

describe('the verdicts of the status comparison', () => {
  it('quote rows the README deviations table has', () => {
    const readme = readFileSync(repoPath('README.md'), 'utf8').replaceAll('`', '');
    const quoted = [...EXPLANATION_VERDICTS, CUT_SHORT, RESUMED_APART].flatMap((verdict) => (verdict.kind === 'not documented' ? [] : [...verdict.why.matchAll(/README row "([^"]+)"/g)].map((match) => match[1] ?? '')));
    assert.ok(quoted.length >= 4, `${quoted.length} README rows quoted`);
    for (const row of quoted) assert.ok(readme.includes(`| ${row}`), `the README's deviations table has a row starting "${row}"`);
  });
});
