/** Comparing two runs: start order by stages, deletion, and final status through the pipeline benchmark's comparison, with the verdicts of rules or, where a run recorded evidence, of its checks. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXPLANATION_VERDICTS } from '../../bench/pipeline/statusComparison.ts';
import { compareRuns, CUT_SHORT, RESUMED_APART, differenceTable, startOrder, undocumented, type RunRecord } from './compare.ts';
import { deviationRows, quotedRows } from './deviations.ts';
import type { Evidence, JobHistory } from './evidence.ts';
import { CHECKED_VERDICTS, COUNTERS_FINISHED_FIRST } from './verdictChecks.ts';

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

  it('compares the final status field by field, with the verdicts of the deviation rows', () => {
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

describe('compareRuns with recorded evidence', () => {
  // inorder-job-fails as recorded: both Failed; Lineup counted workers-1, upstream deleted it unfinished.
  const T0 = 1_000_000;
  const failedAt = (at: number): JobHistory['conditions'] => [{ type: 'Failed', status: 'True', lastTransitionTime: '2026-01-01T00:00:10Z', receivedAt: at, at }];
  const final = (failedCounter: number): Record<string, unknown> => ({
    status: { terminalState: 'Failed', replicatedJobsStatus: [{ name: 'workers', failed: failedCounter }], conditions: [{ type: 'Failed', status: 'True', reason: 'FailedJobs', message: 'jobset failed' }] },
  });
  const evidence = (jobs: JobHistory[], terminalAt: number, deletes: Evidence['jobDeletes'] = []): Evidence => ({
    createdAt: T0,
    jobs,
    jobSet: [{ at: T0 + 100, restarts: 0, conditions: [] }, { at: terminalAt + 40, restarts: 0, conditions: [{ type: 'Failed', status: 'True' }] }],
    statusWrites: [{ receivedAt: terminalAt, at: terminalAt + 5, code: 200 }],
    jobDeletes: deletes,
    userActions: [],
    lastStage: [{ name: 'workers', replicas: 2 }],
  });
  const job = (name: string, fields: Partial<JobHistory>): JobHistory => ({ name, replicatedJob: 'workers', attempt: 0, conditions: [], podsEndedAt: [], ...fields });
  const upstream: RunRecord = {
    starts: { workers: T0 + 10 },
    deleted: false,
    final: final(1),
    evidence: evidence(
      [job('js-workers-0', { conditions: failedAt(T0 + 7_000) }), job('js-workers-1', { deletionAt: T0 + 7_020, goneAt: T0 + 8_000 })],
      T0 + 7_010,
      [{ name: 'js-workers-1', receivedAt: T0 + 7_020, at: T0 + 7_030, code: 200 }],
    ),
  };
  const lineup = (workers1FinishedAt: number): RunRecord => ({
    starts: { workers: T0 + 300 },
    deleted: false,
    final: final(2),
    evidence: evidence([job('js-workers-0', { conditions: failedAt(T0 + 7_000) }), job('js-workers-1', { conditions: failedAt(workers1FinishedAt) })], T0 + 7_500),
  });

  it('gives the counter difference the verdict its check bears out, with the pair\'s evidence', () => {
    const [counter] = compareRuns(new Map([['js', lineup(T0 + 7_300)]]), new Map([['js', upstream]]));
    assert.equal(counter?.verdict, COUNTERS_FINISHED_FIRST);
    assert.match(counter?.evidence?.js?.join('\n') ?? '', /js-workers-1: counted by Lineup only — finished at \+7\.30 s, before Lineup's terminal write at \+7\.50 s; upstream deleted it unfinished at \+7\.02 s/);
  });

  it('says not explained where the rule matches but a Job counted by Lineup finished after Lineup\'s terminal write, and counts it against the run', () => {
    const withoutEvidence = compareRuns(new Map([['js', { ...lineup(T0 + 7_900), evidence: undefined }]]), new Map([['js', { ...upstream, evidence: undefined }]]));
    assert.equal(withoutEvidence[0]?.verdict.kind, 'timing', 'the rule alone calls it timing');
    const differences = compareRuns(new Map([['js', lineup(T0 + 7_900)]]), new Map([['js', upstream]]));
    assert.deepEqual(differences.map((d) => [d.field, d.verdict.kind]), [['replicatedJobsStatus[workers].failed', 'not explained']]);
    assert.equal(undocumented(differences).length, 1);
    assert.match(differenceTable(differences).join('\n'), /not explained: js-workers-1 counted by Lineup only finished at \+7\.90 s, after Lineup's terminal write at \+7\.50 s/);
  });
});

describe('the verdicts of the comparison', () => {
  it('quote rows the deviations table has', () => {
    const rows = deviationRows();
    const quoted = [...EXPLANATION_VERDICTS, ...CHECKED_VERDICTS, CUT_SHORT, RESUMED_APART].flatMap((verdict) => (verdict.kind === 'documented' || verdict.kind === 'timing' ? quotedRows(verdict.why) : []));
    assert.ok(quoted.length >= 8, `${quoted.length} rows quoted`);
    for (const row of quoted) assert.ok(rows.some((cell) => cell.startsWith(row)), `the deviations table has a row starting "${row}"`);
  });
});
