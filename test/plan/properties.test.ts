/**
 * Properties of the planner over random JobSets and random histories (fast-check), judged by
 * an oracle written independently of lib/policy and lib/plan (test/plan/oracle.ts). JobSets
 * take every startup form, with mixed Ready/Complete dependencies, ordered rules, success
 * policy All or Any, and failure policies with restarts, up to eight replicatedJobs. Histories
 * have Jobs turning ready (all pods, or some ready and some succeeded), losing readiness,
 * succeeding, failing and being deleted, stale ready counts on suspended Jobs, and the JobSet
 * suspended and resumed at random times. Each property runs PROPERTY_RUNS cases in the unit
 * tier; `npm run test:properties -- --runs N` runs more.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConditionType } from '../../lib/constants.ts';
import type { Job } from '../../lib/jobset/schema.ts';
import type { Action, Plan } from '../../lib/plan/types.ts';
import { propertyParameters } from '../propertyRuns.ts';
import {
  attemptOf,
  finishedAs,
  gateOpen,
  isRunning,
  isSuspendedJob,
  ORDINARY_REASON,
  rjobIndexOf,
  totalReplicas,
  type Shape,
} from './oracle.ts';
import { roundsArb, shapeArb, World, type ChangeWeights, type Checks, type PassView, type SettleView } from './scenario.ts';

const parameters = propertyParameters();

/** Every kind of outside change, Jobs mostly making progress. */
const everything: ChangeWeights = { ready: 4, pods: 2, unready: 1, complete: 2, fail: 1, stale: 1, delete: 1, suspend: 1, resume: 1 };
/** Suspend and resume often. */
const suspending: ChangeWeights = { ...everything, suspend: 3, resume: 3 };
/** Failures often. */
const failing: ChangeWeights = { ...everything, fail: 3 };
/** Successes often, failures seldom. */
const succeeding: ChangeWeights = { ...everything, complete: 4, fail: 1, unready: 0 };

const nameOf = (job: Job): string => job.metadata.name ?? '';

/** A Job a pass starts: one it resumes, or one it creates not suspended. */
interface Start {
  readonly kind: Action['kind'];
  readonly name: string;
  readonly rjob: number;
  /** The created Job, for a CreateJob. */
  readonly job: Job | undefined;
}

/** startsOf: the Jobs a plan starts. */
const startsOf = (plan: Plan, before: readonly Job[]): Start[] =>
  plan.actions.flatMap((action): Start[] => {
    if (action.kind === 'ResumeJob') {
      const job = before.find((candidate) => nameOf(candidate) === action.name);
      return [{ kind: action.kind, name: action.name, rjob: job ? rjobIndexOf(job) : -1, job: undefined }];
    }
    if (action.kind === 'CreateJob' && action.job.spec.suspend !== true) {
      return [{ kind: action.kind, name: nameOf(action.job), rjob: rjobIndexOf(action.job), job: action.job }];
    }
    return [];
  });

/** describePass: what a failure message needs to place a pass. */
const describePass = (world: World, plan: Plan): string =>
  `form ${world.shape.form}, attempt ${world.attempt}, pass ${world.passes}: ${plan.reason}`;

/**
 * startsOnlyThroughOpenGates: every Job a pass starts belongs to the expected attempt and to a
 * replicatedJob that already runs in that attempt or whose gate the oracle finds open, judged
 * on the Jobs the pass observed (Jobs of earlier attempts do not count).
 */
const startsOnlyThroughOpenGates = ({ world, before, plan }: PassView): void => {
  const current = world.current(before);
  for (const start of startsOf(plan, before)) {
    if (start.job) assert.equal(attemptOf(start.job), world.attempt, `${start.name} is created for attempt ${attemptOf(start.job)}, expected ${world.attempt}`);
    else assert.ok(current.some((job) => nameOf(job) === start.name), `${start.name} is resumed but is not a Job of attempt ${world.attempt}`);
    const alreadyRunning = current.some((job) => rjobIndexOf(job) === start.rjob && isRunning(job));
    assert.ok(
      alreadyRunning || gateOpen(world.shape, current, start.rjob),
      `${start.kind} of ${start.name} (r${start.rjob}) before its gate opened (${describePass(world, plan)})`,
    );
  }
};

/** nothingStartsWhileSuspended: a pass that observed spec.suspend true starts no Job. */
const nothingStartsWhileSuspended = ({ world, before, jobSet, plan }: PassView): void => {
  if (jobSet.spec.suspend !== true) return;
  const starts = startsOf(plan, before).map((start) => `${start.kind} ${start.name}`);
  assert.deepEqual(starts, [], `the jobset is suspended but the pass starts Jobs (${describePass(world, plan)})`);
};

/**
 * suspendHolds: once settled, a suspended JobSet has no unfinished Job running and says so in
 * Suspended=True; a resumed one does not say Suspended.
 */
const suspendHolds = ({ world }: SettleView): void => {
  if (world.terminal) return;
  const suspended = world.condition(ConditionType.Suspended)?.status;
  if (world.suspended) {
    assert.deepEqual(world.jobs().filter(isRunning).map(nameOf), [], 'every unfinished Job is suspended while the jobset is');
    assert.equal(suspended, 'True', 'Suspended is True while the jobset is suspended');
  } else {
    assert.notEqual(suspended, 'True', 'Suspended is not True once the jobset is resumed');
  }
};

/** firstStep: the replicatedJobs (with Jobs) whose gates the oracle finds open among `jobs`. */
const openReplicatedJobs = (shape: Shape, jobs: readonly Job[]): number[] =>
  shape.replicatedJobs.flatMap((rjob, i) => (rjob.replicas > 0 && gateOpen(shape, jobs, i) ? [i] : []));

/** runningReplicatedJobs: the replicatedJobs with a running Job, ascending. */
const runningReplicatedJobs = (jobs: readonly Job[]): number[] => [...new Set(jobs.filter(isRunning).map(rjobIndexOf))].sort((a, b) => a - b);

/**
 * restartStartsOver: the round that restarted leaves no Job of an earlier attempt, builds every
 * Job of the new one, and (unless suspended) runs exactly the first step of the sequence, with
 * startup reported in progress again while Jobs are held back.
 */
const restartStartsOver = ({ world, outcome }: SettleView): void => {
  if (outcome.kind !== 'Restart') return;
  const jobs = world.jobs();
  assert.deepEqual(
    jobs.filter((job) => attemptOf(job) !== world.attempt).map(nameOf),
    [],
    `no Job of an earlier attempt remains after restart ${world.attempt}`,
  );
  assert.equal(jobs.length, totalReplicas(world.shape), `every Job of attempt ${world.attempt} exists`);
  if (world.suspended) return;
  assert.deepEqual(runningReplicatedJobs(jobs), openReplicatedJobs(world.shape, jobs), `after restart ${world.attempt} exactly the first step runs`);
  if (world.shape.form !== 'AnyOrder' && jobs.some(isSuspendedJob)) {
    assert.notEqual(world.condition(ConditionType.StartupPolicyCompleted)?.status, 'True', 'startup is not Completed while the new attempt holds Jobs back');
  }
};

/**
 * statusMatchesOracle: status.restarts is the oracle's attempt and never above maxRestarts;
 * terminalState and the Completed/Failed conditions are what the oracle expects, and a
 * finished JobSet keeps no unfinished Job.
 */
const statusMatchesOracle = ({ world }: SettleView): void => {
  const status = world.jobSet().status;
  const restarts = status?.restarts ?? 0;
  assert.equal(restarts, world.attempt, `status.restarts is ${restarts}, the oracle counts ${world.attempt} restarts`);
  assert.ok(restarts <= (world.shape.failure?.maxRestarts ?? 0), `status.restarts ${restarts} exceeds maxRestarts ${world.shape.failure?.maxRestarts ?? 0}`);
  const expected = world.terminal?.kind;
  assert.equal(status?.terminalState, expected, `terminalState is ${status?.terminalState ?? 'unset'}, expected ${expected ?? 'unset'}`);
  assert.equal(world.condition(ConditionType.Failed)?.status === 'True', expected === 'Failed', `Failed condition ${world.condition(ConditionType.Failed)?.status ?? 'absent'}`);
  assert.equal(world.condition(ConditionType.Completed)?.status === 'True', expected === 'Completed', `Completed condition ${world.condition(ConditionType.Completed)?.status ?? 'absent'}`);
  if (expected) assert.deepEqual(world.jobs().filter((job) => finishedAs(job) === undefined).map(nameOf), [], 'a finished jobset keeps no unfinished Job');
};

/** nothingStartsOnceFinished: a pass that observed a terminal state creates and starts nothing. */
const nothingStartsOnceFinished = ({ world, jobSet, plan }: PassView): void => {
  if (!jobSet.status?.terminalState) return;
  const builds = plan.actions.filter((action) => action.kind === 'CreateJob' || action.kind === 'ResumeJob').map((action) => action.kind);
  assert.deepEqual(builds, [], `the jobset finished (${jobSet.status.terminalState}) but the pass builds or starts Jobs (${describePass(world, plan)})`);
};

/**
 * noOpenGateWaits: once settled (resumed, not finished), every Job held back belongs to a
 * replicatedJob that runs nothing and whose gate the oracle finds closed.
 */
const noOpenGateWaits = ({ world }: SettleView): void => {
  if (world.terminal || world.suspended) return;
  const current = world.current();
  for (const job of current) {
    if (!isSuspendedJob(job) || finishedAs(job) !== undefined) continue;
    const i = rjobIndexOf(job);
    const runs = current.some((other) => rjobIndexOf(other) === i && isRunning(other));
    assert.ok(!runs && !gateOpen(world.shape, current, i), `${nameOf(job)} is held back although ${runs ? `r${i} runs` : `the gate of r${i} is open`}`);
  }
};

/** checksOf: run several checks as one. */
const checksOf = (...checks: Checks[]): Checks => ({
  onPass: (view) => checks.forEach((check) => check.onPass?.(view)),
  afterSettle: (view) => checks.forEach((check) => check.afterSettle?.(view)),
});

/** picksArb: which running Job the closing phase of a property acts on, round after round. */
const picksArb = fc.array(fc.nat(), { minLength: 1, maxLength: 8 });

/** pickRunning: the running Job of the expected attempt that `picks` chooses in round `round`. */
const pickRunning = (world: World, picks: readonly number[], round: number): Job | undefined => {
  const running = world.current().filter(isRunning);
  return running[(picks[round % picks.length] ?? 0) % Math.max(running.length, 1)];
};

/** failAfterStartup: up to `times` times, let startup finish, then fail one running Job and settle. */
const failAfterStartup = (world: World, picks: readonly number[], times: number): void => {
  for (let round = 0; round < times && !world.terminal; round += 1) {
    world.cooperate();
    const job = pickRunning(world, picks, round);
    if (world.terminal || !job) return;
    world.cluster.fail(nameOf(job), ORDINARY_REASON, 'job failed');
    world.settle();
  }
};

describe('planner properties', () => {
  it('never starts a replicatedJob before its gate is open, whatever the Jobs and the JobSet do', () => {
    fc.assert(
      fc.property(shapeArb(), roundsArb(everything), (shape, rounds) => {
        new World(shape, { onPass: startsOnlyThroughOpenGates }).play(rounds);
      }),
      parameters,
    );
  });

  it('never un-suspends a Job while the JobSet is suspended, and resuming lifts Suspended', () => {
    fc.assert(
      fc.property(shapeArb(), roundsArb(suspending), (shape, rounds) => {
        new World(shape, { onPass: nothingStartsWhileSuspended, afterSettle: suspendHolds }).play(rounds);
      }),
      parameters,
    );
  });

  it('after a restart starts the sequence again from its first step', () => {
    fc.assert(
      fc.property(shapeArb({ restarts: true }), roundsArb(failing), picksArb, (shape, rounds, picks) => {
        const world = new World(shape, { onPass: startsOnlyThroughOpenGates, afterSettle: restartStartsOver });
        world.play(rounds);
        // Then restarts with the whole sequence running, so later replicatedJobs must stop again.
        failAfterStartup(world, picks, shape.failure?.maxRestarts ?? 0);
      }),
      parameters,
    );
  });

  it('restarts at most maxRestarts times and ends Failed when a failure finds them spent', () => {
    fc.assert(
      fc.property(shapeArb(), roundsArb(failing), picksArb, (shape, rounds, picks) => {
        const world = new World(shape, checksOf({ onPass: nothingStartsOnceFinished, afterSettle: statusMatchesOracle }));
        world.play(rounds);
        // Then Jobs keep failing, one per round, with startup done in between: the budget runs out.
        const maxRestarts = shape.failure?.maxRestarts ?? 0;
        failAfterStartup(world, picks, maxRestarts + 1);
        if (world.terminal?.kind === 'Failed' && world.terminal.cause === 'MaxRestartsReached') {
          assert.equal(world.jobSet().status?.restarts, maxRestarts, 'a jobset failed for its restart budget restarted exactly maxRestarts times');
        }
        const canFail = world.current().some(isRunning);
        assert.ok(world.terminal || !canFail, 'Jobs kept failing past the restart budget but the jobset did not finish');
      }),
      parameters,
    );
  });

  it('completes as soon as the success policy holds (Any: one targeted Job succeeded; All: every one) and not before', () => {
    fc.assert(
      fc.property(shapeArb(), roundsArb(succeeding), picksArb, (shape, rounds, picks) => {
        const world = new World(shape, checksOf({ onPass: nothingStartsOnceFinished, afterSettle: statusMatchesOracle }));
        world.play(rounds);
        // Then startup completes and the running Jobs succeed one per round, in a random order.
        world.cooperate();
        for (let round = 0; !world.terminal; round += 1) {
          const job = pickRunning(world, picks, round);
          if (!job) break;
          world.cluster.complete(nameOf(job));
          world.settle();
        }
        // Every Job left succeeded: unless a failure ended it, only a JobSet without Jobs, or one
        // whose Any targets have no replicas, stays unfinished.
        const targets = shape.success.targets.length > 0 ? shape.success.targets : shape.replicatedJobs.map((_, i) => i);
        const targetsHaveJobs = targets.some((i) => (shape.replicatedJobs[i]?.replicas ?? 0) > 0);
        const mustComplete = totalReplicas(shape) > 0 && (shape.success.operator === 'All' || targetsHaveJobs);
        if (mustComplete && world.terminal?.kind !== 'Failed') assert.equal(world.terminal?.kind, 'Completed', 'every Job succeeded but the jobset is not Completed');
      }),
      parameters,
    );
  });

  it('leaves no open gate waiting, and completes the sequence once every Job is able to become ready', () => {
    fc.assert(
      fc.property(shapeArb(), roundsArb(everything, 15), (shape, rounds) => {
        const world = new World(shape, { afterSettle: noOpenGateWaits });
        world.play(rounds);
        world.cooperate();
        if (world.terminal) return;
        const jobs = world.jobs();
        assert.equal(jobs.length, totalReplicas(shape), 'every Job exists');
        assert.deepEqual(jobs.filter(isSuspendedJob).map(nameOf), [], 'no Job is held back');
        if (shape.form !== 'AnyOrder') assert.equal(world.condition(ConditionType.StartupPolicyCompleted)?.status, 'True', 'StartupPolicyCompleted is True');
      }),
      parameters,
    );
  });
});
