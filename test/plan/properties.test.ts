/**
 * Properties of the planner over random JobSets and random histories (fast-check), judged by
 * an oracle written independently of lib/policy and lib/plan (test/plan/oracle.ts). JobSets
 * take every startup form, with mixed Ready/Complete dependencies, ordered rules, success
 * policy All or Any, and failure policies with restarts, up to eight replicatedJobs. Histories
 * have Jobs turning ready (all pods, or some ready and some succeeded), losing readiness,
 * succeeding, failing and being deleted (lingering while the API server deletes them, in half
 * the cases), finished Jobs deleted by their TTL, stale ready counts on suspended Jobs, and the
 * JobSet suspended and resumed at random times. Each property runs PROPERTY_RUNS cases in the unit tier;
 * `npm run test:properties -- --runs N` runs more.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConditionType } from '../../lib/jobset/api.ts';
import type { Job } from '../../lib/jobset/schema.ts';
import type { Action, Plan } from '../../lib/plan/types.ts';
import { propertyParameters } from '../propertyRuns.ts';
import {
  attemptOf,
  finishedAs,
  gateOpen,
  isDeleting,
  isRunning,
  isRunningOn,
  isSuspendedJob,
  rjobIndexOf,
  totalReplicas,
  type Shape,
} from './oracle.ts';
import { scenarioArb, World, type ChangeWeights, type Checks, type PassView, type Scenario, type SettleView } from './scenario.ts';

const parameters = propertyParameters();

/**
 * Every kind of outside change, Jobs mostly making progress; a suspended JobSet is resumed
 * sooner than a running one is suspended, so histories get past the first steps.
 */
const everything: ChangeWeights = {
  ready: 3,
  readyAll: 2,
  pods: 2,
  unready: 1,
  complete: 1,
  completeAll: 1,
  fail: 1,
  stale: 1,
  delete: 1,
  expire: 1,
  collect: 1,
  collectAll: 2,
  suspend: 1,
  resume: 3,
};
/** Suspend and resume often. */
const suspending: ChangeWeights = { ...everything, suspend: 3, resume: 3 };
/** Failures often. */
const failing: ChangeWeights = { ...everything, fail: 3 };
/** Successes often, failures seldom. */
const succeeding: ChangeWeights = { ...everything, complete: 3, unready: 0 };
/** Gates closing again often: ready pods restart, running Jobs are deleted. */
const disrupting: ChangeWeights = { ...everything, unready: 3, delete: 3 };
/** Nothing that finishes the JobSet: Jobs neither fail nor succeed. */
const unfinishing: ChangeWeights = { ...disrupting, fail: 0, complete: 0, completeAll: 0 };

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

/** finished: the oracle or the JobSet itself says it finished (other properties judge which is right). */
const finished = (world: World): boolean => world.terminal !== undefined || Boolean(world.jobSet().status?.terminalState);

/**
 * startsOnlyThroughOpenGates: every Job a pass starts belongs to the expected attempt and to a
 * replicatedJob that already runs in that attempt or whose gate the oracle finds open, judged
 * on the Jobs the pass observed (Jobs of earlier attempts do not count).
 */
const startsOnlyThroughOpenGates = ({ world, before, plan }: PassView): void => {
  const current = world.current(before);
  for (const start of startsOf(plan, before)) {
    if (start.job) {
      assert.equal(attemptOf(start.job), world.attempt, `${start.name} is created for attempt ${attemptOf(start.job)}, expected ${world.attempt}`);
    } else {
      assert.ok(current.some((job) => nameOf(job) === start.name), `${start.name} is resumed but is not a Job of attempt ${world.attempt}`);
    }
    const alreadyRunning = current.some((job) => rjobIndexOf(job) === start.rjob && isRunningOn(job));
    assert.ok(
      alreadyRunning || gateOpen(world.shape, current, start.rjob),
      `${start.kind} of ${start.name} (r${start.rjob}) before its gate opened (${describePass(world, plan)})`,
    );
  }
};

/** finishedStayGone: a finished Job of the current attempt that is gone (its outcome recorded) is never re-created: its work is done. */
const finishedStayGone = ({ world, plan }: PassView): void => {
  const gone = world.finishedGoneNames();
  const recreated = plan.actions.flatMap((action) => (action.kind === 'CreateJob' && gone.has(nameOf(action.job)) ? [nameOf(action.job)] : []));
  assert.deepEqual(recreated, [], `a finished Job that is gone is re-created (${describePass(world, plan)})`);
};

/** nothingStartsWhileSuspended: a pass that observed spec.suspend true starts no Job. */
const nothingStartsWhileSuspended = ({ world, before, jobSet, plan }: PassView): void => {
  if (jobSet.spec.suspend !== true) return;
  const starts = startsOf(plan, before).map((start) => `${start.kind} ${start.name}`);
  assert.deepEqual(starts, [], `the jobset is suspended but the pass starts Jobs (${describePass(world, plan)})`);
};

/** nothingSuspendedWhileResumed: a pass that observed spec.suspend unset suspends no Job (a closing gate never does). */
const nothingSuspendedWhileResumed = ({ world, jobSet, plan }: PassView): void => {
  if (jobSet.spec.suspend === true) return;
  const suspends = plan.actions.flatMap((action) => (action.kind === 'SuspendJob' ? [action.name] : []));
  assert.deepEqual(suspends, [], `the jobset runs but the pass suspends Jobs (${describePass(world, plan)})`);
};

/**
 * suspendHolds: once settled, a suspended JobSet has no Job of its attempt running (but those
 * being deleted) and says so in Suspended=True; a resumed one does not say Suspended.
 */
const suspendHolds = ({ world }: SettleView): void => {
  if (finished(world)) return;
  const suspended = world.condition(ConditionType.Suspended)?.status;
  if (world.suspended) {
    assert.deepEqual(world.current().filter(isRunningOn).map(nameOf), [], 'expected every unfinished Job suspended while the jobset is');
    assert.equal(suspended, 'True', 'expected Suspended=True while the jobset is suspended');
  } else {
    assert.notEqual(suspended, 'True', 'expected Suspended not True once the jobset is resumed');
  }
};

/** openReplicatedJobs: the replicatedJobs (with Jobs) whose gates the oracle finds open among `jobs`. */
const openReplicatedJobs = (shape: Shape, jobs: readonly Job[]): number[] =>
  shape.replicatedJobs.flatMap((rjob, i) => (rjob.replicas > 0 && gateOpen(shape, jobs, i) ? [i] : []));

/** runningReplicatedJobs: the replicatedJobs with a running Job, ascending. */
const runningReplicatedJobs = (jobs: readonly Job[]): number[] => [...new Set(jobs.filter(isRunning).map(rjobIndexOf))].sort((a, b) => a - b);

/**
 * restartStartsOver: from a restart until a Job of the new attempt changes from outside, the
 * sequence stands at its first step. Jobs of earlier attempts are gone or being deleted; no Job
 * of the new attempt runs outside the first step; once the old Jobs are gone every new Job
 * exists and (unless suspended) exactly the first step runs, with startup reported in progress
 * again while Jobs are held back.
 */
const restartStartsOver = ({ world }: SettleView): void => {
  if (!world.fresh || finished(world)) return;
  const jobs = world.jobs();
  const older = jobs.filter((job) => attemptOf(job) !== world.attempt);
  const kept = older.filter((job) => !isDeleting(job)).map(nameOf);
  assert.deepEqual(kept, [], `expected every Job of an earlier attempt deleted after restart ${world.attempt}`);
  const current = world.current(jobs);
  const firstStep = openReplicatedJobs(world.shape, current);
  const running = runningReplicatedJobs(current);
  const names = (indices: readonly number[]): string => `[${indices.map((i) => `r${i}`).join(', ')}]`;
  assert.ok(running.every((i) => firstStep.includes(i)), `after restart ${world.attempt} expected only the first step ${names(firstStep)} running, found ${names(running)}`);
  if (older.length > 0) return;
  assert.equal(current.length, totalReplicas(world.shape), `expected every Job of attempt ${world.attempt} once the old ones are gone`);
  if (world.suspended) return;
  assert.deepEqual(running, firstStep, `after restart ${world.attempt} expected exactly the first step running`);
  if (world.shape.form !== 'AnyOrder' && current.some(isSuspendedJob)) {
    const completed = world.condition(ConditionType.StartupPolicyCompleted)?.status;
    assert.notEqual(completed, 'True', 'expected StartupPolicyCompleted not True while the new attempt holds Jobs back');
  }
};

/**
 * statusMatchesOracle: status.restarts is the oracle's attempt and never above maxRestarts;
 * terminalState and the Completed/Failed conditions are what the oracle expects, and a
 * finished JobSet deletes every unfinished Job.
 */
const statusMatchesOracle = ({ world }: SettleView): void => {
  const status = world.jobSet().status;
  const restarts = status?.restarts ?? 0;
  assert.equal(restarts, world.attempt, `status.restarts is ${restarts}, the oracle counts ${world.attempt} restarts`);
  assert.ok(restarts <= (world.shape.failure?.maxRestarts ?? 0), `status.restarts ${restarts} exceeds maxRestarts ${world.shape.failure?.maxRestarts ?? 0}`);
  const expected = world.terminal?.kind;
  assert.equal(status?.terminalState, expected, `terminalState is ${status?.terminalState ?? 'unset'}, expected ${expected ?? 'unset'}`);
  for (const [type, terminal] of [
    [ConditionType.Failed, 'Failed'],
    [ConditionType.Completed, 'Completed'],
  ] as const) {
    const condition = world.condition(type)?.status;
    assert.equal(condition === 'True', expected === terminal, `${type} condition is ${condition ?? 'absent'}, terminal state expected ${expected ?? 'unset'}`);
  }
  if (expected) {
    const kept = world.jobs().filter((job) => finishedAs(job) === undefined && !isDeleting(job));
    assert.deepEqual(kept.map(nameOf), [], 'expected a finished jobset to delete every unfinished Job');
  }
};

/** nothingStartsOnceFinished: a pass that observed a terminal state creates and starts nothing. */
const nothingStartsOnceFinished = ({ world, jobSet, plan }: PassView): void => {
  if (!jobSet.status?.terminalState) return;
  const builds = plan.actions.flatMap((action) => (action.kind === 'CreateJob' || action.kind === 'ResumeJob' ? [action.kind] : []));
  assert.deepEqual(builds, [], `the jobset finished (${jobSet.status.terminalState}) but the pass builds or starts Jobs (${describePass(world, plan)})`);
};

/** heldBack: the unfinished Jobs of the expected attempt that are suspended (not those being deleted). */
const heldBack = (world: World): Job[] => world.current().filter((job) => isSuspendedJob(job) && finishedAs(job) === undefined && !isDeleting(job));

/**
 * noOpenGateWaits: once settled (resumed, not finished), every Job held back belongs to a
 * replicatedJob that runs nothing and whose gate the oracle finds closed, and startup is
 * reported Completed only while nothing is held back.
 */
const noOpenGateWaits = ({ world }: SettleView): void => {
  if (finished(world) || world.suspended) return;
  const current = world.current();
  const waiting = heldBack(world);
  if (world.shape.form !== 'AnyOrder' && waiting.length > 0) {
    assert.notEqual(
      world.condition(ConditionType.StartupPolicyCompleted)?.status,
      'True',
      `expected StartupPolicyCompleted not True while ${waiting.map(nameOf).join(', ')} wait (pass ${world.passes})`,
    );
  }
  for (const job of waiting) {
    const i = rjobIndexOf(job);
    const runs = current.some((other) => rjobIndexOf(other) === i && isRunningOn(other));
    const why = runs ? `r${i} runs` : `the gate of r${i} is open`;
    assert.ok(!runs && !gateOpen(world.shape, current, i), `${nameOf(job)} is held back although ${why} (pass ${world.passes})`);
  }
};

/**
 * gateClosings: pairs of a running replicatedJob whose gate is open and a ready Job (of
 * another replicatedJob) whose losing its ready pods would close that gate, by the oracle.
 */
const gateClosings = (world: World): { readonly rjob: number; readonly cause: Job }[] => {
  const current = world.current();
  return world.shape.replicatedJobs.flatMap((_, i) => {
    if (!current.some((job) => rjobIndexOf(job) === i && isRunningOn(job)) || !gateOpen(world.shape, current, i)) return [];
    return current
      .filter((job) => rjobIndexOf(job) !== i && isRunningOn(job) && (job.status?.ready ?? 0) > 0)
      .filter((cause) => {
        const unready = current.map((job) => (job === cause ? { ...job, status: { ...job.status, ready: 0 } } : job));
        return !gateOpen(world.shape, unready, i);
      })
      .map((cause) => ({ rjob: i, cause }));
  });
};

/** worldOf: a World playing `scenario`'s JobSet with `checks`. */
const worldOf = (scenario: Scenario, checks: Checks): World => new World(scenario.shape, checks, scenario.lingering);

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
    world.fail(job);
    world.settle();
  }
};

describe('planner properties', () => {
  it('never starts a replicatedJob before its gate is open, nor re-creates a finished Job that is gone, whatever happens', () => {
    fc.assert(
      fc.property(scenarioArb(everything), (scenario) => {
        const onPass = (view: PassView): void => {
          startsOnlyThroughOpenGates(view);
          finishedStayGone(view);
        };
        worldOf(scenario, { onPass }).play(scenario.rounds);
      }),
      parameters,
    );
  });

  it('never un-suspends a Job while the JobSet is suspended, and resuming lifts Suspended', () => {
    fc.assert(
      fc.property(scenarioArb(suspending), (scenario) => {
        worldOf(scenario, { onPass: nothingStartsWhileSuspended, afterSettle: suspendHolds }).play(scenario.rounds);
      }),
      parameters,
    );
  });

  it('after a restart starts the sequence again from its first step', () => {
    fc.assert(
      fc.property(scenarioArb(failing, { restarts: true }), (scenario) => {
        const { shape, picks } = scenario;
        const world = worldOf(scenario, { onPass: startsOnlyThroughOpenGates, afterSettle: restartStartsOver });
        world.play(scenario.rounds);
        // Then restarts with the whole sequence running, so later replicatedJobs must stop again.
        failAfterStartup(world, picks, shape.failure?.maxRestarts ?? 0);
      }),
      parameters,
    );
  });

  it('restarts at most maxRestarts times and ends Failed when a failure finds them spent', () => {
    fc.assert(
      fc.property(scenarioArb(failing), (scenario) => {
        const { shape, picks } = scenario;
        const world = worldOf(scenario, { onPass: nothingStartsOnceFinished, afterSettle: statusMatchesOracle });
        world.play(scenario.rounds);
        // Then Jobs keep failing, one per round, with startup done in between: the budget runs out.
        const maxRestarts = shape.failure?.maxRestarts ?? 0;
        failAfterStartup(world, picks, maxRestarts + 1);
        if (world.terminal?.kind === 'Failed' && world.terminal.cause === 'MaxRestartsReached') {
          assert.equal(world.jobSet().status?.restarts, maxRestarts, 'expected a jobset failed for its restart budget to have restarted maxRestarts times');
        }
        const canFail = world.current().some(isRunning);
        assert.ok(world.jobSet().status?.terminalState || !canFail, 'Jobs kept failing past the restart budget, yet the jobset did not finish');
      }),
      parameters,
    );
  });

  it('completes as soon as the success policy holds (Any: one targeted Job succeeded; All: every one) and not before', () => {
    fc.assert(
      fc.property(scenarioArb(succeeding, { anyOften: true }), (scenario) => {
        const { shape, picks } = scenario;
        const world = worldOf(scenario, { onPass: nothingStartsOnceFinished, afterSettle: statusMatchesOracle });
        world.play(scenario.rounds);
        // Then startup completes and the running Jobs succeed one per round, in a random order.
        world.cooperate();
        for (let round = 0; !world.terminal; round += 1) {
          const job = pickRunning(world, picks, round);
          if (!job) break;
          world.complete(job);
          world.settle();
        }
        // Every Job left succeeded: unless a failure ended it, only a JobSet without Jobs, or one
        // whose Any targets have no replicas, stays unfinished.
        const targets = shape.success.targets.length > 0 ? shape.success.targets : shape.replicatedJobs.map((_, i) => i);
        const targetsHaveJobs = targets.some((i) => (shape.replicatedJobs[i]?.replicas ?? 0) > 0);
        const mustComplete = totalReplicas(shape) > 0 && (shape.success.operator === 'All' || targetsHaveJobs);
        const terminalState = world.jobSet().status?.terminalState;
        if (mustComplete && terminalState !== 'Failed') {
          assert.equal(terminalState, 'Completed', 'every Job succeeded but the jobset is not Completed');
        }
      }),
      parameters,
    );
  });

  it('leaves no open gate waiting, and completes the sequence once every Job is able to become ready', () => {
    fc.assert(
      fc.property(scenarioArb(disrupting, { maxRounds: 20 }), (scenario) => {
        const { shape } = scenario;
        const world = worldOf(scenario, { afterSettle: noOpenGateWaits });
        world.play(scenario.rounds);
        world.cooperate();
        if (finished(world)) return;
        const jobs = world.current();
        assert.equal(jobs.length, totalReplicas(shape), 'expected every Job to exist (or to have finished) once startup is done');
        assert.deepEqual(jobs.filter(isSuspendedJob).map(nameOf), [], 'expected no Job held back once every Job could become ready');
        if (shape.form !== 'AnyOrder') {
          assert.equal(world.condition(ConditionType.StartupPolicyCompleted)?.status, 'True', 'expected StartupPolicyCompleted=True once every Job runs');
        }
      }),
      parameters,
    );
  });

  it('keeps a running replicatedJob released when its gate closes again: nothing is suspended and a replaced Job starts at once', () => {
    fc.assert(
      fc.property(scenarioArb(unfinishing, { gated: true }), (scenario) => {
        const { shape, picks } = scenario;
        const world = worldOf(scenario, { onPass: nothingSuspendedWhileResumed, afterSettle: noOpenGateWaits });
        world.play(scenario.rounds);
        world.cooperate();
        if (finished(world)) return;
        // Close the gate of a running replicatedJob: a Job it waits on loses its ready pods.
        const closings = gateClosings(world);
        const closing = closings[(picks[0] ?? 0) % Math.max(closings.length, 1)];
        if (!closing) return;
        world.unready(closing.cause);
        world.settle();
        // Replace one of its Jobs: the replacement runs while the replicatedJob still runs, else waits for the gate.
        const running = world.current().filter((job) => rjobIndexOf(job) === closing.rjob && isRunningOn(job));
        const victim = running[(picks[1 % picks.length] ?? 0) % Math.max(running.length, 1)];
        if (!victim) return;
        world.delete(victim);
        world.settle();
        world.collectAll();
        world.settle();
        const replacement = world.cluster.jobs.get(nameOf(victim));
        assert.ok(replacement, `expected ${nameOf(victim)} re-created`);
        const stillRuns = running.length > 1 || gateOpen(shape, world.current(), closing.rjob);
        const why = stillRuns ? `to run: r${closing.rjob} still runs` : `held back: the gate of r${closing.rjob} is closed and nothing of it runs`;
        assert.equal(isSuspendedJob(replacement), !stillRuns, `expected ${nameOf(victim)} ${why}`);
      }),
      parameters,
    );
  });
});
