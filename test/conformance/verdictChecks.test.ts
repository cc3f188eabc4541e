/** The checks behind each differential verdict, on recorded pairs: each holds when the data bear the explanation out, and says "not explained" when they contradict it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evidence, JobHistory, JobSetSighting } from './evidence.ts';
import { checkCounters, checkFirstFailed, checkStartup, checkSuspended, COUNTERS_FINISHED_FIRST, FIRST_FAILED, STARTUP_NEVER_READY, STARTUP_REOPENED, SUSPENDED_NEVER_WRITTEN } from './verdictChecks.ts';

const T0 = 1_000_000;
const job = (name: string, fields: Partial<JobHistory> = {}): JobHistory => ({ name, replicatedJob: name.split('-')[1] ?? '', attempt: 0, conditions: [], podsEndedAt: [], ...fields });
const failed = (at: number, lastTransitionTime = '2026-01-01T00:00:10Z'): JobHistory['conditions'] => [
  { type: 'FailureTarget', status: 'True', lastTransitionTime, receivedAt: at - 5, at: at - 5 },
  { type: 'Failed', status: 'True', lastTransitionTime, receivedAt: at, at },
];
const sighting = (at: number, conditions: JobSetSighting['conditions'], restarts = 0): JobSetSighting => ({ at, restarts, conditions });
const ended = (type: 'Completed' | 'Failed', at: number, extra: JobSetSighting['conditions'] = []): JobSetSighting => sighting(at, [{ type, status: 'True' }, ...extra]);
const evidence = (fields: Partial<Evidence>): Evidence => ({
  createdAt: T0,
  jobs: [],
  jobSet: [],
  statusWrites: [],
  jobDeletes: [],
  userActions: [],
  lastStage: [{ name: 'workers', replicas: 2 }],
  ...fields,
});

describe('checkCounters', () => {
  // Lineup ended at +10 s and counted workers-1, which finished at +9 s; upstream ended at +8 s and deleted it unfinished.
  const lineup = (workers1Finish: number): Evidence =>
    evidence({
      jobs: [job('js-workers-0', { conditions: failed(T0 + 7_000) }), job('js-workers-1', { conditions: failed(workers1Finish) })],
      jobSet: [sighting(T0 + 100, []), ended('Failed', T0 + 10_050)],
      statusWrites: [{ receivedAt: T0 + 10_000, at: T0 + 10_010, code: 200 }],
    });
  const upstream = evidence({
    jobs: [job('js-workers-0', { conditions: failed(T0 + 7_000) }), job('js-workers-1', { conditions: failed(T0 + 8_200), deletionAt: T0 + 8_020, goneAt: T0 + 9_000 })],
    jobSet: [sighting(T0 + 100, []), ended('Failed', T0 + 8_050)],
    statusWrites: [{ receivedAt: T0 + 8_010, at: T0 + 8_012, code: 200 }],
    jobDeletes: [{ name: 'js-workers-1', receivedAt: T0 + 8_020, at: T0 + 8_030, code: 200 }],
  });

  it('explains a Job counted by one side only that finished before that side\'s terminal write and was deleted unfinished by the other', () => {
    const judged = checkCounters('replicatedJobsStatus[workers].failed', { lineup: '2', upstream: '1' }, { lineup: lineup(T0 + 9_000), upstream });
    assert.equal(judged?.verdict, COUNTERS_FINISHED_FIRST);
    assert.ok(judged?.evidence.some((line) => /js-workers-1: counted by Lineup only — finished at \+9\.00 s, before Lineup's terminal write at \+10\.00 s; upstream deleted it unfinished at \+8\.02 s, Failed at \+8\.20 s/.test(line)), judged?.evidence.join('\n'));
  });

  it('says not explained when the Job counted by Lineup only finished after Lineup\'s terminal write, where the rule would call it timing', () => {
    const judged = checkCounters('replicatedJobsStatus[workers].failed', { lineup: '2', upstream: '1' }, { lineup: lineup(T0 + 10_500), upstream });
    assert.equal(judged?.verdict.kind, 'not explained');
    assert.match(judged?.verdict.kind === 'not explained' ? judged.verdict.why : '', /js-workers-1 counted by Lineup only finished at \+10\.50 s, after Lineup's terminal write at \+10\.00 s/);
  });

  it('says not explained when a final counter is not the count of the Jobs left', () => {
    const judged = checkCounters('replicatedJobsStatus[workers].failed', { lineup: '3', upstream: '1' }, { lineup: lineup(T0 + 9_000), upstream });
    assert.equal(judged?.verdict.kind, 'not explained');
    assert.match(judged?.evidence.join('\n') ?? '', /Lineup's final replicatedJobsStatus\[workers\]\.failed is 3, but 2 of its workers Jobs were left Failed/);
  });

  it('says not explained when the other side deleted the Job after it had finished there', () => {
    const finishedFirst = { ...upstream, jobs: upstream.jobs.map((j) => (j.name === 'js-workers-1' ? { ...j, conditions: failed(T0 + 8_000) } : j)) };
    const judged = checkCounters('replicatedJobsStatus[workers].failed', { lineup: '2', upstream: '1' }, { lineup: lineup(T0 + 9_000), upstream: finishedFirst });
    assert.equal(judged?.verdict.kind, 'not explained');
  });

  it('covers only the succeeded and failed counters', () => {
    assert.equal(checkCounters('replicatedJobsStatus[workers].active', { lineup: '1', upstream: '0' }, { lineup: lineup(T0), upstream }), undefined);
  });
});

describe('checkStartup', () => {
  const completed = (): JobSetSighting['conditions'][number] => ({ type: 'StartupPolicyCompleted', status: 'True' });
  const workers = (readyAt: number | undefined): JobHistory[] => [job('js-workers-0', { readyAt: T0 + 2_000 }), job('js-workers-1', readyAt === undefined ? {} : { readyAt })];

  it('explains a side without StartupPolicyCompleted whose last stage was never all ready before it ended', () => {
    const upstream = evidence({ jobs: workers(undefined), jobSet: [sighting(T0 + 100, [{ type: 'StartupPolicyInProgress', status: 'True' }]), ended('Failed', T0 + 5_000)], statusWrites: [{ receivedAt: T0 + 4_990, at: T0 + 4_995, code: 200 }] });
    const lineup = evidence({ jobs: workers(T0 + 3_000), jobSet: [sighting(T0 + 3_100, [completed()]), ended('Failed', T0 + 5_100, [completed()])] });
    const judged = checkStartup('conditions[StartupPolicyCompleted]', { lineup: 'True InOrderStartupPolicyCompleted', upstream: '(absent)' }, { lineup, upstream }, false);
    assert.equal(judged?.verdict, STARTUP_NEVER_READY);
    assert.match(judged?.evidence.join('\n') ?? '', /upstream: the last stage \(workers\) of attempt 0 was never all ready \(1 of 2 Jobs ever were\)/);
  });

  it('says not explained when that side saw the last stage ready and wrote its status again before it ended', () => {
    const upstream = evidence({
      jobs: workers(T0 + 3_000),
      jobSet: [sighting(T0 + 100, [{ type: 'StartupPolicyInProgress', status: 'True' }]), ended('Failed', T0 + 5_000)],
      statusWrites: [
        { receivedAt: T0 + 3_500, at: T0 + 3_505, code: 200 },
        { receivedAt: T0 + 4_990, at: T0 + 4_995, code: 200 },
      ],
    });
    const lineup = evidence({ jobs: workers(T0 + 3_000), jobSet: [sighting(T0 + 3_100, [completed()]), ended('Failed', T0 + 5_100, [completed()])] });
    const judged = checkStartup('conditions[StartupPolicyCompleted]', { lineup: 'True InOrderStartupPolicyCompleted', upstream: '(absent)' }, { lineup, upstream }, false);
    assert.equal(judged?.verdict.kind, 'not explained');
  });

  it('cites the "gate closes again" row when both wrote StartupPolicyCompleted True and upstream\'s turned False', () => {
    const upstream = evidence({ jobs: workers(T0 + 3_000), jobSet: [sighting(T0 + 3_020, [completed()]), ended('Failed', T0 + 6_000, [{ type: 'StartupPolicyCompleted', status: 'False' }])] });
    const lineup = evidence({ jobs: workers(T0 + 3_000), jobSet: [sighting(T0 + 3_100, [completed()]), ended('Failed', T0 + 6_100, [completed()])] });
    const judged = checkStartup('conditions[StartupPolicyCompleted]', { lineup: 'True InOrderStartupPolicyCompleted', upstream: 'False InOrderStartupPolicyCompleted' }, { lineup, upstream }, false);
    assert.equal(judged?.verdict, STARTUP_REOPENED);
    assert.match(judged?.evidence.join('\n') ?? '', /both showed StartupPolicyCompleted True in their final attempt \(Lineup at \+3\.10 s, upstream at \+3\.02 s\); upstream's turned False at \+6\.00 s/);
  });
});

describe('checkStartup, a walk re-opened on one side only', () => {
  const workers = (readyAt: number | undefined): JobHistory[] => [job('js-workers-0', { readyAt: T0 + 2_000 }), job('js-workers-1', readyAt === undefined ? {} : { readyAt })];
  const reopened = evidence({ jobs: workers(T0 + 3_000), jobSet: [sighting(T0 + 3_020, [{ type: 'StartupPolicyCompleted', status: 'True' }]), ended('Failed', T0 + 6_000, [{ type: 'StartupPolicyCompleted', status: 'False' }])] });

  it('explains upstream re-opening its walk beside a Lineup twin that never saw the last stage ready', () => {
    const lineup = evidence({ jobs: workers(undefined), jobSet: [sighting(T0 + 100, [{ type: 'StartupPolicyInProgress', status: 'True' }]), ended('Failed', T0 + 6_100)], statusWrites: [{ receivedAt: T0 + 6_050, at: T0 + 6_060, code: 200 }] });
    const judged = checkStartup('conditions[StartupPolicyCompleted]', { lineup: '(absent)', upstream: 'False InOrderStartupPolicyCompleted' }, { lineup, upstream: reopened }, false);
    assert.equal(judged?.verdict, STARTUP_NEVER_READY);
    assert.match(judged?.evidence.join('\n') ?? '', /upstream showed StartupPolicyCompleted True in their final attempt \(upstream at \+3\.02 s\); upstream's turned False at \+6\.00 s/);
  });

  it('says not explained when Lineup wrote StartupPolicyCompleted True and ended without it', () => {
    const judged = checkStartup('conditions[StartupPolicyCompleted]', { lineup: 'False InOrderStartupPolicyCompleted', upstream: 'True InOrderStartupPolicyCompleted' }, { lineup: reopened, upstream: reopened }, false);
    assert.equal(judged?.verdict.kind, 'not explained');
  });
});

describe('checkSuspended', () => {
  const suspendResume = [
    { receivedAt: T0 + 800, at: T0 + 801, code: 200, suspend: true },
    { receivedAt: T0 + 3_500, at: T0 + 3_501, code: 200, suspend: false },
  ];
  const resumed = [sighting(T0 + 3_600, [{ type: 'Suspended', status: 'False', reason: 'ResumeJobs' }]), ended('Completed', T0 + 9_000, [{ type: 'Suspended', status: 'False' }])];

  it('explains an absent Suspended by a side that never wrote it, naming its refused write', () => {
    const lineup = evidence({
      userActions: suspendResume,
      jobSet: [sighting(T0 + 100, []), ended('Completed', T0 + 9_000)],
      statusWrites: [{ receivedAt: T0 + 3_510, at: T0 + 3_512, code: 409 }],
      passes: [{ startedAt: T0 + 3_400, writesDoneAt: T0 + 3_520, statusConditions: [{ type: 'Suspended', status: 'True' }], deletes: [], error: 'UpdateJobSetStatus: 409 Conflict' }],
    });
    const judged = checkSuspended('conditions[Suspended]', { lineup: '(absent)', upstream: 'False ResumeJobs' }, { lineup, upstream: evidence({ userActions: suspendResume, jobSet: resumed }) });
    assert.equal(judged?.verdict, SUSPENDED_NEVER_WRITTEN);
    assert.match(judged?.evidence.join('\n') ?? '', /Lineup never wrote Suspended: 0 status writes accepted between the user's suspend at \+0\.80 s and resume at \+3\.50 s, 1 refused from the suspend to its next accepted write; 1 pass planned Suspended=True and the write was refused: UpdateJobSetStatus: 409 Conflict/);
  });

  it('says not explained when the side without it had written Suspended=True', () => {
    const lineup = evidence({ userActions: suspendResume, jobSet: [sighting(T0 + 1_000, [{ type: 'Suspended', status: 'True' }]), ended('Completed', T0 + 9_000)] });
    const judged = checkSuspended('conditions[Suspended]', { lineup: '(absent)', upstream: 'False ResumeJobs' }, { lineup, upstream: evidence({ userActions: suspendResume, jobSet: resumed }) });
    assert.equal(judged?.verdict.kind, 'not explained');
  });
});

describe('checkFirstFailed', () => {
  const message = (name: string): string => JSON.stringify(`jobset failed due to one or more job failures (first failed job: ${name})`);
  const side = (jobs: JobHistory[]): Evidence => evidence({ jobs, jobSet: [ended('Failed', T0 + 9_000)], statusWrites: [{ receivedAt: T0 + 8_900, at: T0 + 8_910, code: 200 }] });

  it('explains two names of Jobs that failed in the same second', () => {
    const jobs = [job('js-workers-0', { conditions: failed(T0 + 8_000) }), job('js-workers-1', { conditions: failed(T0 + 8_100) })];
    const judged = checkFirstFailed('conditions[Failed].message', { lineup: message('js-workers-0'), upstream: message('js-workers-1') }, { lineup: side(jobs), upstream: side(jobs) });
    assert.equal(judged?.verdict, FIRST_FAILED);
  });

  it('says not explained when the named Job failed a second after another', () => {
    const jobs = [job('js-workers-0', { conditions: failed(T0 + 8_000, '2026-01-01T00:00:09Z') }), job('js-workers-1', { conditions: failed(T0 + 8_100) })];
    const judged = checkFirstFailed('conditions[Failed].message', { lineup: message('js-workers-0'), upstream: message('js-workers-1') }, { lineup: side(jobs), upstream: side(jobs) });
    assert.equal(judged?.verdict.kind, 'not explained');
    assert.match(judged?.verdict.kind === 'not explained' ? judged.verdict.why : '', /js-workers-1, named by upstream, failed at 2026-01-01T00:00:10Z, after js-workers-0 at 2026-01-01T00:00:09Z/);
  });
});
