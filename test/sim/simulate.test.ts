import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { Label } from '../../lib/jobset/api.ts';
import { loadJobSets } from '../../lib/jobset/load.ts';
import type { JobSet } from '../../lib/jobset/schema.ts';
import { plan } from '../../lib/plan/planner.ts';
import type { Observed, Plan, PlanOptions } from '../../lib/plan/types.ts';
import { ErrorCode, SimulationDivergedError } from '../../lib/errors.ts';
import { EMPTY_BEHAVIOUR, loadBehaviour } from '../../lib/sim/behaviour.ts';
import { SIM_EPOCH_MS, UNTIL_NEVER_LIMIT_MS } from '../../lib/sim/constants.ts';
import { simulate, simulationReport } from '../../lib/sim/simulate.ts';
import type { DeliveredEvent, SimulationResult } from '../../lib/sim/simulate.ts';
import type { TimelineEntry } from '../../lib/sim/timeline.ts';
import { makeJobSet } from '../builders.ts';
import { examplePath, repoPath } from '../repoFiles.ts';

// The upstream examples name no manager; a simulated cluster has no upstream controller to take them.
const PLAN_OPTIONS: PlanOptions = { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true };
const DAY = 86_400_000;

/** example: a JobSet from the repository's examples/. */
const example = (file: string): JobSet => {
  const path = examplePath(file);
  const { documents } = loadJobSets(readFileSync(path, 'utf8'), path);
  const [doc] = documents;
  assert.ok(doc?.outcome === 'loaded', `${file} does not load as a JobSet`);
  return doc.jobSet;
};

const run = (jobSet: JobSet, behaviourYaml = '', options: { until?: number; latency?: number } = {}): SimulationResult =>
  simulate(jobSet, behaviourYaml === '' ? EMPTY_BEHAVIOUR : loadBehaviour(behaviourYaml, 'test-behaviour.yaml'), {
    until: options.until ?? DAY,
    latency: options.latency ?? 0,
    planOptions: PLAN_OPTIONS,
  });

/** starts: entries where a Job of `rjob` began to run (created unsuspended, or resumed), from `since` on. */
const starts = (timeline: readonly TimelineEntry[], rjob: string, since = 0): TimelineEntry[] =>
  timeline.filter((e) => e.at >= since && e.replicatedJob === rjob && (e.type === 'JobResumed' || (e.type === 'JobCreated' && e.suspended === false)));

/**
 * reachedAt: when every Job of `rjob` had become Ready (JobReady or JobSucceeded) or Complete
 * (JobSucceeded), looking only at entries from `since` on; undefined if some never did. Fails
 * when no Job of `rjob` was ever created: "every Job of none" would hold at once and let any
 * order pass.
 */
const reachedAt = (timeline: readonly TimelineEntry[], rjob: string, status: 'Ready' | 'Complete', since = 0): number | undefined => {
  const names = new Set(timeline.filter((e) => e.type === 'JobCreated' && e.replicatedJob === rjob).map((e) => e.job));
  assert.ok(names.size > 0, `no Job of ${rjob} was created`);
  let latest = -Infinity;
  for (const name of names) {
    const reached = timeline.find(
      (e) => e.at >= since && e.job === name && (e.type === 'JobSucceeded' || (status === 'Ready' && e.type === 'JobReady')),
    );
    if (!reached) return undefined;
    latest = Math.max(latest, reached.at);
  }
  return latest;
};

/** assertOrder: no Job of `later` started (from `since` on) before every Job of `earlier` reached `status`. */
const assertOrder = (timeline: readonly TimelineEntry[], later: string, earlier: string, status: 'Ready' | 'Complete', since = 0): void => {
  const opened = reachedAt(timeline, earlier, status, since);
  assert.ok(opened !== undefined, `${earlier} never became ${status}`);
  const laterStarts = starts(timeline, later, since);
  assert.ok(laterStarts.length > 0, `${later} never started`);
  for (const entry of laterStarts) {
    assert.ok(entry.at >= opened, `${entry.job} started at ${entry.at}ms, before ${earlier} was ${status} at ${opened}ms`);
  }
};

const createdPerName = (timeline: readonly TimelineEntry[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const entry of timeline) if (entry.type === 'JobCreated' && entry.job) counts.set(entry.job, (counts.get(entry.job) ?? 0) + 1);
  return counts;
};

const SUSPEND_AT_4S_RESUME_AT_9S = `
default: {readyAfter: 2s}
actions:
  - {at: 4s, suspend: true}
  - {at: 9s, suspend: false}
`;

describe('sim/simulate', () => {
  it('gives byte-identical JSON for the same inputs', () => {
    const first = JSON.stringify(simulationReport(run(example('story2-messagequeue-driver-worker.yaml'), SUSPEND_AT_4S_RESUME_AT_9S)));
    const second = JSON.stringify(simulationReport(run(example('story2-messagequeue-driver-worker.yaml'), SUSPEND_AT_4S_RESUME_AT_9S)));
    assert.equal(first, second);
  });

  it('story 2: starts the message queue, then the drivers once it is ready, then the workers once the drivers are ready', () => {
    // Prepare: different start-up times per step so the order is not an accident of equal timers.
    const behaviour = 'replicatedJobs: {messagequeue: {readyAfter: 3s}, driver: {readyAfter: 5s}, worker: {readyAfter: 1s}}';
    // Act
    const result = run(example('story2-messagequeue-driver-worker.yaml'), behaviour);
    // Assess
    assertOrder(result.timeline, 'driver', 'messagequeue', 'Ready');
    assertOrder(result.timeline, 'worker', 'driver', 'Ready');
    assert.deepEqual(
      result.timeline.filter((e) => e.type === 'JobResumed').map((e) => `${e.at} ${e.job}`),
      [
        '3000 messagequeue-driver-worker-driver-0',
        '3000 messagequeue-driver-worker-driver-1',
        '8000 messagequeue-driver-worker-worker-0',
        '8000 messagequeue-driver-worker-worker-1',
      ],
    );
    assert.equal(result.final.terminalState, 'Completed');
  });

  it('creates the volume claims of upstream\'s single-pvc example before any Job, and runs it to Completed', () => {
    const result = run(example('single-pvc.yaml'));
    const created = result.timeline.filter((entry) => entry.type === 'VolumeClaimCreated' || entry.type === 'JobCreated').map((entry) => entry.message ?? entry.job);
    assert.deepEqual(created, [
      'initializer-volume-claim-trainjob (owned by the jobset)',
      'checkpoints-volume-claim-trainjob (retained after the jobset)',
      'volume-claim-trainjob-initializer-0',
      'volume-claim-trainjob-node-0',
    ]);
    assert.equal(result.final.terminalState, 'Completed');
  });

  describe('every example completes, each replicatedJob starting only when its turn has come', () => {
    const expectations: Record<string, readonly [later: string, earlier: string, status: 'Ready' | 'Complete'][]> = {
      'depends-on.yaml': [
        ['launcher', 'initializer', 'Complete'],
        ['worker', 'launcher', 'Ready'],
      ],
      'multiple-depends-on.yaml': [
        ['worker', 'dataset-initializer', 'Complete'],
        ['worker', 'model-initializer', 'Complete'],
      ],
      'seed-draft-rules.yaml': [
        ['driver', 'dataset', 'Complete'],
        ['workers', 'driver', 'Ready'],
      ],
      'seed-per-job-dependency.yaml': [['workers', 'driver', 'Ready']],
      'single-pvc.yaml': [['node', 'initializer', 'Complete']],
      'startup-driver-ready.yaml': [['workers', 'driver', 'Ready']],
      'story1-driver-ready-worker-start.yaml': [['workers', 'driver', 'Ready']],
      'story2-messagequeue-driver-worker.yaml': [
        ['driver', 'messagequeue', 'Ready'],
        ['worker', 'driver', 'Ready'],
      ],
    };
    const files = readdirSync(repoPath('examples')).filter((f) => f.endsWith('.yaml')).sort();

    it('has an expectation for every example file (a new example needs a row here)', () => {
      assert.ok(files.length > 0, 'no examples found in examples/');
      assert.deepEqual(files, Object.keys(expectations).sort());
    });

    for (const [file, order] of Object.entries(expectations)) {
      it(`${file} completes in order`, () => {
        const result = run(example(file));
        assert.equal(result.final.terminalState, 'Completed', `${file}: ${JSON.stringify(result.final.conditions)}`);
        assert.deepEqual(result.errors, []);
        for (const [later, earlier, status] of order) assertOrder(result.timeline, later, earlier, status);
      });
    }
  });

  it('suspends the running Jobs at 4s and, resumed at 9s, starts them again in order', () => {
    // Act
    const result = run(example('story2-messagequeue-driver-worker.yaml'), SUSPEND_AT_4S_RESUME_AT_9S);
    const { timeline } = result;
    // Assess: what ran at 4s was suspended, nothing ran while suspended.
    assert.deepEqual(
      timeline.filter((e) => e.type === 'JobSuspended').map((e) => `${e.at} ${e.job}`),
      ['4000 messagequeue-driver-worker-messagequeue-0', '4000 messagequeue-driver-worker-driver-0', '4000 messagequeue-driver-worker-driver-1'],
    );
    assert.deepEqual(timeline.filter((e) => e.at > 4_000 && e.at < 9_000 && e.type.startsWith('Job')), []);
    // ...and from 9s the sequence runs again from the first step.
    const afterResume = starts(timeline, 'messagequeue', 9_000);
    assert.equal(afterResume[0]?.at, 9_000);
    assertOrder(timeline, 'driver', 'messagequeue', 'Ready', 9_000);
    assertOrder(timeline, 'worker', 'driver', 'Ready', 9_000);
    assert.equal(result.final.terminalState, 'Completed');
  });

  it('re-runs the sequence from the first replicatedJob after a failure, within failurePolicy.maxRestarts', () => {
    // Prepare: b-1 fails 5s after every start, so the one restart allowed is used and the second failure is final.
    const jobSet = makeJobSet('fl').inOrder().replicatedJob('a', 1).replicatedJob('b', 2).spec({ failurePolicy: { maxRestarts: 1 } }).obj();
    // Act
    const result = run(jobSet, 'jobs: {fl-b-1: {failAfter: 5s}}');
    // Assess
    const { timeline } = result;
    const restartAt = timeline.find((e) => e.type === 'ConditionChanged' && e.condition?.type === 'RestartingJobSet' && e.condition.status === 'True')?.at;
    assert.ok(restartAt !== undefined, 'the JobSet never restarted');
    const firstStartAfter = timeline.find((e) => e.at >= restartAt && (e.type === 'JobResumed' || (e.type === 'JobCreated' && e.suspended === false)));
    assert.equal(firstStartAfter?.replicatedJob, 'a');
    assertOrder(timeline, 'b', 'a', 'Ready', restartAt);
    assert.deepEqual(Object.fromEntries(createdPerName(timeline)), { 'fl-a-0': 2, 'fl-b-0': 2, 'fl-b-1': 2 });
    assert.equal(result.final.restarts, 1);
    assert.equal(result.final.terminalState, 'Failed');
    assert.equal(result.final.conditions.find((c) => c.type === 'Failed')?.reason, 'ReachedMaxRestarts');
  });

  it('a timing function sees each Job\'s restart attempt: b-1 failing only in attempt 0 completes after one restart', () => {
    const jobSet = makeJobSet('fl').inOrder().replicatedJob('a', 1).replicatedJob('b', 2).spec({ failurePolicy: { maxRestarts: 1 } }).obj();
    const attempts: string[] = [];
    const result = simulate(jobSet, EMPTY_BEHAVIOUR, {
      until: DAY,
      latency: 0,
      planOptions: PLAN_OPTIONS,
      timing: (job) => {
        attempts.push(`${job.name}#${job.restartAttempt}`);
        const fails = job.name === 'fl-b-1' && job.restartAttempt === '0';
        return { readyAfter: 1_000, succeedAfter: fails ? Infinity : 30_000, failAfter: fails ? 5_000 : Infinity, failReason: 'BackoffLimitExceeded', failMessage: 'failed' };
      },
    });
    assert.deepEqual([result.final.terminalState, result.final.restarts], ['Completed', 1]);
    assert.ok(attempts.includes('fl-b-1#0') && attempts.includes('fl-b-1#1'), attempts.join(' '));
  });

  it('does not re-create or re-run a Job that its ttlSecondsAfterFinished: 0 deleted after success', () => {
    // Prepare
    const jobSet = makeJobSet('ttl').inOrder().replicatedJob('init', 1, { jobSpec: { ttlSecondsAfterFinished: 0 } }).replicatedJob('main', 2).obj();
    // Act
    const result = run(jobSet, 'replicatedJobs: {init: {readyAfter: 5s, succeedAfter: 5s}, main: {succeedAfter: 20s}}');
    // Assess
    const { timeline } = result;
    const deleted = timeline.find((e) => e.type === 'JobDeleted' && e.job === 'ttl-init-0');
    assert.equal(deleted?.message, 'ttlSecondsAfterFinished expired');
    assert.deepEqual(Object.fromEntries(createdPerName(timeline)), { 'ttl-init-0': 1, 'ttl-main-0': 1, 'ttl-main-1': 1 });
    assert.deepEqual(starts(timeline, 'init', deleted.at), []);
    assertOrder(timeline, 'main', 'init', 'Ready');
    assert.equal(result.final.terminalState, 'Completed');
    assert.equal(result.final.replicatedJobsStatus.find((s) => s.name === 'init')?.succeeded, 1);
  });

  it('deletes the JobSet and its Jobs ttlSecondsAfterFinished after it completed, and reports its last status', () => {
    const jobSet = makeJobSet('short').replicatedJob('a', 2).spec({ ttlSecondsAfterFinished: 5 }).obj();
    const result = run(jobSet, 'default: {succeedAfter: 10s}');
    const completedAt = result.timeline.find((e) => e.condition?.type === 'Completed')?.at;
    assert.equal(completedAt, 10_000);
    assert.deepEqual(
      result.timeline.filter((e) => e.type === 'JobDeleted').map((e) => `${e.at} ${e.job} ${e.message}`),
      ['15000 short-a-0 owner JobSet deleted', '15000 short-a-1 owner JobSet deleted'],
    );
    assert.equal(result.stoppedBy, 'deleted');
    assert.equal(result.final.terminalState, 'Completed');
  });

  it('stops at --until, leaving the JobSet unfinished', () => {
    const result = run(example('story2-messagequeue-driver-worker.yaml'), '', { until: 10_000 });
    assert.equal(result.stoppedBy, 'until');
    assert.equal(result.endedAt, 10_000);
    assert.equal(result.final.terminalState, null);
    assert.ok(result.timeline.length > 0, 'nothing happened before --until');
    assert.ok(result.timeline.every((e) => e.at <= 10_000));
  });

  it('runs each pass `latency` after the change it reacts to', () => {
    const result = run(example('story1-driver-ready-worker-start.yaml'), 'default: {readyAfter: 2s}', { latency: 300 });
    const driverReady = reachedAt(result.timeline, 'driver', 'Ready');
    const workersStart = starts(result.timeline, 'workers')[0]?.at;
    assert.equal(driverReady, 2_300);
    assert.equal(workersStart, 2_600);
  });

  it('re-creates a running Job deleted from outside, as upstream does', () => {
    const result = run(example('story2-messagequeue-driver-worker.yaml'), 'actions: [{at: 12s, deleteJob: messagequeue-driver-worker-worker-0}]');
    const events = result.timeline.filter((e) => e.job === 'messagequeue-driver-worker-worker-0').map((e) => `${e.at} ${e.type}`);
    assert.deepEqual(events.slice(-5), ['3000 JobReady', '12000 JobDeleted', '12000 JobCreated', '13000 JobReady', '42000 JobSucceeded']);
    assert.equal(result.final.terminalState, 'Completed');
  });

  it('rejects an invalid JobSet: a Rejected entry, and no Job created', () => {
    const jobSet = makeJobSet('bad').replicatedJob('a', 1, { dependsOn: [{ name: 'b', status: 'Ready' }] }).replicatedJob('b', 1).obj();
    const result = run(jobSet);
    const rejected = result.timeline.find((e) => e.type === 'Rejected');
    assert.ok(rejected?.message);
    assert.deepEqual(result.timeline.filter((e) => e.type === 'JobCreated'), []);
    assert.equal(result.final.terminalState, null);
  });

  it('completes a JobSet of 1,200 Jobs created 500 a pass, the workers starting only once the leader is ready', () => {
    const jobSet = makeJobSet('big').replicatedJob('leader', 1).replicatedJob('workers', 1_199).inOrder().obj();
    const result = run(jobSet);
    assert.equal(result.final.terminalState, 'Completed');
    // Each create-pass at t=0 creates at most MAX_CREATES_PER_PASS; together they create every Job once.
    const createPasses = result.passes.filter((pass) => pass.actions.includes('CreateJob'));
    assert.deepEqual(
      createPasses.map((pass) => [pass.at, pass.actions.filter((kind) => kind === 'CreateJob').length]),
      [
        [0, 500],
        [0, 500],
        [0, 200],
      ],
    );
    assert.equal(result.counters.actions.CreateJob, 1_200);
    assert.equal(new Set(result.timeline.filter((e) => e.type === 'JobCreated').map((e) => e.job)).size, 1_200);
    // InOrder holds: no worker runs before the leader is ready.
    const leaderReady = reachedAt(result.timeline, 'leader', 'Ready');
    assert.ok(leaderReady !== undefined);
    const firstWorker = starts(result.timeline, 'workers')[0];
    assert.ok(firstWorker !== undefined && firstWorker.at >= leaderReady, `a worker started at ${firstWorker?.at ?? '?'}, before the leader was ready at ${leaderReady}`);
    assert.equal(starts(result.timeline, 'workers').length, 1_199);
  });

  it('counts passes, writes and actions by kind', () => {
    const result = run(example('story2-messagequeue-driver-worker.yaml'));
    assert.ok(result.counters.passes > 0);
    assert.equal(result.counters.actions.CreateJob, 5);
    assert.equal(result.counters.actions.ResumeJob, 4);
    assert.ok(result.counters.writes >= Object.values(result.counters.actions).reduce((a, b) => a + b, 0));
    assert.equal(result.counters.errors, 0);
  });

  describe('the reconcile loop (with a scripted planner, so only the loop is under test)', () => {
    const jobSet = makeJobSet('loop').replicatedJob('a', 1).obj();
    const planOf = (observed: Observed, actions: Plan['actions'], requeueAfterMs?: number): Plan => ({
      namespace: 'default',
      name: 'loop',
      uid: observed.jobSet.metadata.uid,
      actions,
      reasons: actions.map(() => ({ code: 'StatusChanged', message: 'scripted' })),
      requeueAfterMs,
      reason: 'scripted',
    });

    it('retries a pass whose action was refused after 1s, 2s, 4s… and resets the wait after a good pass', () => {
      // Prepare: a planner that updates the status from a resourceVersion that is always stale, five times.
      const seen: number[] = [];
      let refusals = 0;
      const planner = (observed: Observed): Plan => {
        seen.push(observed.now - Date.UTC(2026, 0, 1));
        if (refusals >= 5) return planOf(observed, []);
        refusals += 1;
        return planOf(observed, [{ kind: 'UpdateJobSetStatus', resourceVersion: 'stale', status: { restarts: 0 } }]);
      };
      // Act
      const result = simulate(jobSet, EMPTY_BEHAVIOUR, { until: DAY, latency: 0, planOptions: PLAN_OPTIONS, planner });
      // Assess
      assert.deepEqual(seen, [0, 1_000, 3_000, 7_000, 15_000, 31_000]);
      assert.equal(result.errors.length, 5);
      assert.ok(result.errors.every((e) => e.code === ErrorCode.STALE_RESOURCE_VERSION && e.action === 'UpdateJobSetStatus'));
      assert.equal(result.stoppedBy, 'quiescent');
    });

    it('declares a run diverged when passes never stop at one instant', () => {
      let n = 0;
      const planner = (observed: Observed): Plan => planOf(observed, [{ kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { n: String((n += 1)) } }]);
      assert.throws(
        () => simulate(jobSet, EMPTY_BEHAVIOUR, { until: DAY, latency: 0, planOptions: PLAN_OPTIONS, planner }),
        SimulationDivergedError,
      );
    });

    it('comes back after requeueAfterMs even when nothing changed, and coalesces changes into one pass', () => {
      const seen: number[] = [];
      const planner = (observed: Observed): Plan => {
        const at = observed.now - Date.UTC(2026, 0, 1);
        seen.push(at);
        // Two writes in the first pass: one pass follows, not two.
        if (at === 0 && seen.length === 1) {
          return planOf(observed, [
            { kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { a: '1' } },
            { kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { b: '2' } },
          ]);
        }
        return planOf(observed, [], at < 5_000 ? 5_000 - at : undefined);
      };
      simulate(jobSet, EMPTY_BEHAVIOUR, { until: DAY, latency: 0, planOptions: PLAN_OPTIONS, planner });
      assert.deepEqual(seen, [0, 0, 5_000]);
    });

    it('takes a create refused as AlreadyExists like any refusal: the pass stops, and the next one plans from what exists', () => {
      // Prepare: a planner that creates the same Job twice in a pass while it sees none.
      const job = {
        apiVersion: 'batch/v1' as const,
        kind: 'Job' as const,
        metadata: { name: 'loop-a-0', namespace: 'default', labels: { [Label.JobSetName]: 'loop' } },
        spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main' }] } } },
      };
      const planner = (observed: Observed): Plan =>
        planOf(observed, observed.jobs.length > 0 ? [] : [{ kind: 'CreateJob', job, replicatedJob: 'a' }, { kind: 'CreateJob', job, replicatedJob: 'a' }]);
      // Act
      const result = simulate(jobSet, EMPTY_BEHAVIOUR, { until: DAY, latency: 0, planOptions: PLAN_OPTIONS, planner });
      // Assess
      assert.deepEqual(
        result.errors.map((error) => [error.at, error.action, error.code]),
        [[0, 'CreateJob', ErrorCode.ALREADY_EXISTS]],
      );
      assert.match(result.errors[0]?.message ?? '', /^job default\/loop-a-0: jobs\.batch "loop-a-0" already exists$/);
      assert.deepEqual(result.timeline.filter((entry) => entry.type === 'JobCreated').map((entry) => entry.job), ['loop-a-0']);
      assert.equal(result.stoppedBy, 'quiescent');
    });
  });
});

describe('sim/simulate with an infinite until (--until never)', () => {
  const never = (jobSet: JobSet, behaviourYaml: string): SimulationResult =>
    simulate(jobSet, loadBehaviour(behaviourYaml, 'never.yaml'), { until: Infinity, latency: 0, planOptions: PLAN_OPTIONS });

  it('runs a JobSet whose Jobs take longer than the 24h default to its end', () => {
    const result = never(example('depends-on.yaml'), 'default: {succeedAfter: 30h}\n');
    assert.equal(result.final.terminalState, 'Completed');
    assert.equal(result.stoppedBy, 'quiescent');
    assert.ok(result.endedAt > DAY, `ended at ${result.endedAt}`);
  });

  it('stops when nothing more is scheduled, however long a Job would still run', () => {
    const result = never(example('depends-on.yaml'), 'default: {succeedAfter: never}\n');
    assert.equal(result.final.terminalState, null);
    assert.equal(result.stoppedBy, 'quiescent');
    // The first replicatedJob gets ready after the built-in 1s and then nothing is left to happen.
    assert.equal(result.endedAt, 1_000);
  });

  it('stops at UNTIL_NEVER_LIMIT_MS when something is always scheduled', () => {
    // A planner that always asks to come back in an hour never lets the run go quiet; past twice
    // the limit it fails the test rather than let a run without a limit go on forever.
    let calls = 0;
    const planner = (observed: Observed): Plan => {
      calls += 1;
      assert.ok(calls <= (2 * UNTIL_NEVER_LIMIT_MS) / 3_600_000, `pass ${calls} at ${observed.now}: the run went past the limit`);
      return { namespace: 'default', name: 'loop', uid: observed.jobSet.metadata.uid, actions: [], reasons: [], requeueAfterMs: 3_600_000, reason: 'scripted' };
    };
    const jobSet = makeJobSet('loop').replicatedJob('a', 1).obj();
    const result = simulate(jobSet, loadBehaviour('default: {succeedAfter: never}', 'b.yaml'), { until: Infinity, latency: 0, planOptions: PLAN_OPTIONS, planner });
    assert.equal(result.stoppedBy, 'limit');
    assert.equal(result.endedAt, UNTIL_NEVER_LIMIT_MS);
    assert.equal(result.counters.passes, UNTIL_NEVER_LIMIT_MS / 3_600_000 + 1);
  });
});

describe('sim/simulate with a perturbed event delivery (the seam of lineup replay --perturb)', () => {
  const story2 = (): JobSet => example('story2-messagequeue-driver-worker.yaml');

  it('runs each pass for the events delivered since the last, telling the planner which they were', () => {
    const seen: { at: number; events: string[] }[] = [];
    const result = simulate(story2(), EMPTY_BEHAVIOUR, {
      until: DAY,
      latency: 0,
      planOptions: PLAN_OPTIONS,
      planner: (observed, options, delivered) => {
        seen.push({ at: observed.now - SIM_EPOCH_MS, events: delivered.map((event) => `${event.change?.kind} ${event.change?.name} +${event.deliveredAt - event.changedAt}`) });
        return plan(observed, options);
      },
      delivery: { delays: () => [250], resyncAfterMs: 60_000 },
    });
    assert.equal(result.final.terminalState, 'Completed');
    // The JobSet's creation at 0 reaches the first pass 250 ms later, and nothing else came before it.
    assert.deepEqual(seen[0], { at: 250, events: ['JobSet messagequeue-driver-worker +250'] });
    assert.ok(seen.slice(1).some((pass) => pass.events.some((event) => event.startsWith('Job messagequeue-driver-worker-driver-0 +250'))));
    assert.ok(seen.every((pass) => pass.events.every((event) => event.endsWith('+250'))));
  });

  it('a dropped event is recovered only by a resync pass resyncAfterMs after the change', () => {
    const passes: { at: number; events: readonly DeliveredEvent[] }[] = [];
    // Drop every event: only resync passes run, each a minute after a change.
    const result = simulate(story2(), EMPTY_BEHAVIOUR, {
      until: DAY,
      latency: 0,
      planOptions: PLAN_OPTIONS,
      planner: (observed, options, delivered) => {
        passes.push({ at: observed.now - SIM_EPOCH_MS, events: delivered });
        return plan(observed, options);
      },
      delivery: { delays: () => [], resyncAfterMs: 60_000 },
    });
    assert.equal(result.final.terminalState, 'Completed');
    assert.equal(passes[0]?.at, 60_000);
    assert.ok(passes.every((pass) => pass.events.every((event) => event.change === undefined && event.deliveredAt === event.changedAt + 60_000)));
    // The first pass (60 s) creates the Jobs; the messagequeue is ready at 61 s, but that change's
    // event is lost too, and the drivers start with the resync for the creates, at 120 s.
    assert.deepEqual(starts(result.timeline, 'driver').map((entry) => entry.at), [120_000, 120_000]);
  });

  it('a duplicated event runs at most one more pass, and a planner that reads the whole state decides the same', () => {
    const once = simulate(story2(), EMPTY_BEHAVIOUR, { until: DAY, latency: 0, planOptions: PLAN_OPTIONS, delivery: { delays: () => [0], resyncAfterMs: 60_000 } });
    const twice = simulate(story2(), EMPTY_BEHAVIOUR, { until: DAY, latency: 0, planOptions: PLAN_OPTIONS, delivery: { delays: () => [0, 500], resyncAfterMs: 60_000 } });
    assert.deepEqual(twice.final, once.final);
    assert.deepEqual(twice.timeline, once.timeline);
    assert.ok(twice.counters.passes > once.counters.passes);
  });
});
