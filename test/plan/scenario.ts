/**
 * Scenarios for the planner's properties: random JobSets (every startup form, mixed dependsOn
 * statuses, ordered rules, success policy All or Any, failure policies with restarts, Jobs
 * with a TTL, up to eight replicatedJobs), random rounds of outside change (Jobs turning ready,
 * losing readiness, succeeding, failing, being deleted, finished ones deleted by their TTL; the
 * JobSet suspended and resumed), and a World that plays them against the planner through the
 * in-memory TestCluster. In half the
 * worlds a deleted Job lingers with a deletionTimestamp, as foreground deletion leaves it,
 * until a later change lets the API server finish (so a restart's old Jobs stay visible to
 * several passes); in the other half it is gone at once. The World keeps the oracle's own
 * account of the restart attempt and the terminal state, predicted before each round of passes
 * from what the planner is about to observe, and hands every pass and every settled round to
 * the checks a property installs. It also remembers Jobs with a TTL that finished and then
 * disappeared: Lineup records them and counts them still (docs/conformance.md#where-lineup-differs-from-upstream-and-why, kubernetes-sigs/jobset#360).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineupKey } from '../../lib/jobset/api.ts';
import { MAX_DEPENDS_ON } from '../../lib/jobset/admission.ts';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import { rfc3339Seconds } from '../../lib/plan/conditions.ts';
import type { Action, Plan } from '../../lib/plan/types.ts';
import { makeJobSet } from '../builders.ts';
import { TestCluster } from './harness.ts';
import {
  attemptOf,
  awaitedComplete,
  expectedOutcome,
  FATAL_REASON,
  finishedAs,
  isDeleting,
  isReadyJob,
  isRunning,
  isRunningOn,
  isSuspendedJob,
  ORDINARY_REASON,
  rjobIndexOf,
  rjobName,
  type Awaited,
  type FailureCause,
  type Form,
  type Outcome,
  type Shape,
} from './oracle.ts';

/** The most replicatedJobs a generated JobSet has. */
export const MAX_REPLICATED_JOBS = 8;
/** The most ordered rules a generated JobSet has. */
const MAX_RULES = 4;
/** Passes one round may take before the planner counts as not settling (a restart takes three, each stage one). */
const MAX_PASSES = 40;
/** Rounds of cooperation before startup counts as stuck (each opens at least one stage). */
const MAX_COOPERATION_ROUNDS = 2 * MAX_REPLICATED_JOBS + 4;

const statusArb = fc.constantFrom<Awaited>('Ready', 'Complete');

/** ShapeOptions: what a property needs its JobSets to have. */
export interface ShapeOptions {
  /** Always a failure policy with maxRestarts ≥ 1, so a failure leads to a restart. */
  readonly restarts?: boolean;
  /** Success policy Any as often as All (else one JobSet in four), for the success property; elsewhere Any's first success ends the history early. */
  readonly anyOften?: boolean;
  /** Only the gated forms (InOrder, dependsOn, rules), for properties about gates. */
  readonly gated?: boolean;
}

/** failurePolicyArb: maxRestarts from `minRestarts` to 3, either restart strategy, maybe a FailJobSet rule. */
const failurePolicyArb = (minRestarts: number): fc.Arbitrary<NonNullable<Shape['failure']>> =>
  fc.record({
    maxRestarts: fc.integer({ min: minRestarts, max: 3 }),
    restartStrategy: fc.constantFrom<'Recreate' | 'BlockingRecreate'>('Recreate', 'BlockingRecreate'),
    fatalRule: fc.boolean(),
  });

/**
 * shapeArb: a random valid JobSet shape. Eight replicatedJobs are always drawn and the first
 * `count` kept, so shrinking drops replicatedJobs from the end and dependencies one by one.
 */
export const shapeArb = (options: ShapeOptions = {}): fc.Arbitrary<Shape> =>
  fc
    .record({
      count: fc.integer({ min: 1, max: MAX_REPLICATED_JOBS }),
      rjobs: fc.array(
        fc.record({
          replicas: fc.integer({ min: 0, max: 3 }),
          parallelism: fc.integer({ min: 1, max: 3 }),
          completions: fc.integer({ min: 1, max: 3 }),
          ttl: fc.oneof({ arbitrary: fc.constant(false), weight: 2 }, { arbitrary: fc.constant(true), weight: 1 }),
          // dependsOn[j]: the status this replicatedJob awaits of replicatedJob j, or none.
          dependsOn: fc.array(fc.option(statusArb, { nil: undefined, freq: 2 }), { minLength: MAX_REPLICATED_JOBS, maxLength: MAX_REPLICATED_JOBS }),
          // The ordered rule naming this replicatedJob; MAX_RULES means none does.
          rule: fc.integer({ min: 0, max: MAX_RULES }),
        }),
        { minLength: MAX_REPLICATED_JOBS, maxLength: MAX_REPLICATED_JOBS },
      ),
      form: options.gated ? fc.constantFrom<Form>('InOrder', 'DependsOn', 'Rules') : fc.constantFrom<Form>('AnyOrder', 'InOrder', 'DependsOn', 'Rules'),
      ruleStatuses: fc.array(statusArb, { minLength: MAX_RULES, maxLength: MAX_RULES }),
      completeSpelling: fc.constantFrom<Shape['completeSpelling']>('Succeeded', 'Complete'),
      operator: fc.oneof(
        { arbitrary: fc.constant<'All' | 'Any'>('All'), weight: options.anyOften ? 1 : 3 },
        { arbitrary: fc.constant<'All' | 'Any'>('Any'), weight: 1 },
      ),
      successTargets: fc.array(fc.boolean(), { minLength: MAX_REPLICATED_JOBS, maxLength: MAX_REPLICATED_JOBS }),
      failure: options.restarts ? failurePolicyArb(1) : fc.option(failurePolicyArb(0), { nil: undefined, freq: 5 }),
      startSuspended: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }),
    })
    .map(({ count, rjobs, form, ruleStatuses, completeSpelling, operator, successTargets, failure, startSuspended }): Shape => {
      const kept = rjobs.slice(0, count);
      const replicatedJobs = kept.map((rjob, i) => ({
        replicas: rjob.replicas,
        parallelism: rjob.parallelism,
        completions: rjob.completions,
        ttl: rjob.ttl,
        dependsOn:
          form === 'DependsOn'
            ? rjob.dependsOn
                .slice(0, i)
                .flatMap((status, name) => (status === undefined ? [] : [{ name, status }]))
                .slice(0, MAX_DEPENDS_ON)
            : [],
      }));
      const byRule = new Map<number, number[]>();
      kept.forEach((rjob, i) => {
        if (rjob.rule < MAX_RULES) byRule.set(rjob.rule, [...(byRule.get(rjob.rule) ?? []), i]);
      });
      const rules =
        form === 'Rules'
          ? [...byRule.entries()].sort(([a], [b]) => a - b).map(([rule, targets]) => ({ targets, status: ruleStatuses[rule] ?? 'Ready' }))
          : [];
      // A form with nothing to order is AnyOrder, as the JobSet API reads it.
      const empty = (form === 'Rules' && rules.length === 0) || (form === 'DependsOn' && replicatedJobs.every((rjob) => rjob.dependsOn.length === 0));
      const targets = successTargets.slice(0, count).flatMap((targeted, i) => (targeted ? [i] : []));
      return { replicatedJobs, form: empty ? 'AnyOrder' : form, rules, completeSpelling, success: { operator, targets }, failure, startSuspended };
    });

/** JOB_TTL_SECONDS: ttlSecondsAfterFinished of a Job template with a TTL (the world, not a clock, expires Jobs). */
const JOB_TTL_SECONDS = 60;

/** jobSetOf: the JobSet a shape describes, built as a user would write it. */
export const jobSetOf = (shape: Shape): JobSet => {
  let builder = makeJobSet('p');
  shape.replicatedJobs.forEach((rjob, i) => {
    const dependsOn = rjob.dependsOn.map((d) => ({ name: rjobName(d.name), status: d.status }));
    builder = builder.replicatedJob(rjobName(i), rjob.replicas, {
      parallelism: rjob.parallelism,
      completions: rjob.completions,
      ...(dependsOn.length > 0 ? { dependsOn } : {}),
      ...(rjob.ttl ? { jobSpec: { ttlSecondsAfterFinished: JOB_TTL_SECONDS } } : {}),
    });
  });
  if (shape.form === 'InOrder') builder = builder.inOrder();
  if (shape.form === 'Rules') {
    const written = shape.rules.map((rule) => {
      const status = rule.status === 'Complete' ? shape.completeSpelling : 'Ready';
      // The shorthand {name, status} for a single target, the long form otherwise.
      const [only, ...more] = rule.targets;
      return only !== undefined && more.length === 0 ? { name: rjobName(only), status } : { targetReplicatedJobs: rule.targets.map(rjobName), status };
    });
    builder = builder.annotation(LineupKey.StartupRulesAnnotation, JSON.stringify(written));
  }
  const { operator, targets } = shape.success;
  builder = builder.spec({ successPolicy: { operator, ...(targets.length > 0 ? { targetReplicatedJobs: targets.map(rjobName) } : {}) } });
  const failure = shape.failure;
  if (failure) {
    builder = builder.spec({
      failurePolicy: {
        maxRestarts: failure.maxRestarts,
        restartStrategy: failure.restartStrategy,
        ...(failure.fatalRule ? { rules: [{ name: 'fatal', action: 'FailJobSet' as const, onJobFailureReasons: [FATAL_REASON] }] } : {}),
      },
    });
  }
  if (shape.startSuspended) builder = builder.suspend();
  return builder.obj();
};

/**
 * Change: one thing that happens outside the planner. `pick` chooses among the Jobs it would
 * change, in name order: running ones (not yet ready for `ready`, with ready pods for
 * `unready`); suspended ones for `stale`; finished ones with a TTL for `expire`; ones being
 * deleted that no finalizer holds for `collect`.
 */
export type Change =
  /** A running Job gets all its pods ready. */
  | { readonly kind: 'ready'; readonly pick: number }
  /** Every running Job of the picked Job's replicatedJob gets all its pods ready (they start together). */
  | { readonly kind: 'readyAll'; readonly pick: number }
  /** A running Job reports some ready and some succeeded pods (ready or not by min(parallelism, completions)). */
  | { readonly kind: 'pods'; readonly pick: number; readonly ready: number; readonly succeeded: number }
  /** A running Job's pods restart: no longer ready. */
  | { readonly kind: 'unready'; readonly pick: number }
  /** A running Job succeeds. */
  | { readonly kind: 'complete'; readonly pick: number }
  /** Every running Job of the picked Job's replicatedJob succeeds (a stage finishing). */
  | { readonly kind: 'completeAll'; readonly pick: number }
  /** A running Job fails, for an ordinary reason or the one a FailJobSet rule names. */
  | { readonly kind: 'fail'; readonly pick: number; readonly fatal: boolean }
  /** A suspended Job's status still reports ready pods (the Job controller has not caught up). */
  | { readonly kind: 'stale'; readonly pick: number }
  /** Someone deletes a running Job. */
  | { readonly kind: 'delete'; readonly pick: number }
  /** A finished Job with a TTL is deleted by it (kubernetes-sigs/jobset#360: its outcome must keep counting). */
  | { readonly kind: 'expire'; readonly pick: number }
  /** The API server finishes deleting one lingering Job, or every one. */
  | { readonly kind: 'collect'; readonly pick: number }
  | { readonly kind: 'collectAll' }
  /** spec.suspend set to true / false. */
  | { readonly kind: 'suspend' }
  | { readonly kind: 'resume' };

/** How often each kind of change is drawn (0: never). */
export type ChangeWeights = Readonly<Record<Change['kind'], number>>;

const changeArbs: { readonly [K in Change['kind']]: fc.Arbitrary<Extract<Change, { kind: K }>> } = {
  ready: fc.record({ kind: fc.constant('ready'), pick: fc.nat() }),
  readyAll: fc.record({ kind: fc.constant('readyAll'), pick: fc.nat() }),
  pods: fc.record({ kind: fc.constant('pods'), pick: fc.nat(), ready: fc.nat(), succeeded: fc.nat() }),
  unready: fc.record({ kind: fc.constant('unready'), pick: fc.nat() }),
  complete: fc.record({ kind: fc.constant('complete'), pick: fc.nat() }),
  completeAll: fc.record({ kind: fc.constant('completeAll'), pick: fc.nat() }),
  // One failure in four has the reason a FailJobSet rule names, so most failures restart.
  fail: fc.record({ kind: fc.constant('fail'), pick: fc.nat(), fatal: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }) }),
  stale: fc.record({ kind: fc.constant('stale'), pick: fc.nat() }),
  delete: fc.record({ kind: fc.constant('delete'), pick: fc.nat() }),
  expire: fc.record({ kind: fc.constant('expire'), pick: fc.nat() }),
  collect: fc.record({ kind: fc.constant('collect'), pick: fc.nat() }),
  collectAll: fc.record({ kind: fc.constant('collectAll') }),
  suspend: fc.record({ kind: fc.constant('suspend') }),
  resume: fc.record({ kind: fc.constant('resume') }),
};

/**
 * roundsArb: up to `maxRounds` rounds of one to three changes each; the planner settles after
 * each round, so changes within one round reach it together (a Job can turn ready and fail
 * between two passes).
 */
export const roundsArb = (weights: ChangeWeights, maxRounds = 30): fc.Arbitrary<Change[][]> => {
  const kinds = (Object.keys(changeArbs) as Change['kind'][]).filter((kind) => weights[kind] > 0);
  const changeArb: fc.Arbitrary<Change> = fc.oneof(...kinds.map((kind) => ({ arbitrary: changeArbs[kind] as fc.Arbitrary<Change>, weight: weights[kind] })));
  // size 'max': histories as long as maxRounds, not fast-check's default of at most ten rounds.
  return fc.array(fc.array(changeArb, { minLength: 1, maxLength: 3 }), { maxLength: maxRounds, size: 'max' });
};

/** Scenario: a JobSet, whether deleted Jobs linger, its history, and picks for a property's closing phase. */
export interface Scenario {
  readonly shape: Shape;
  readonly lingering: boolean;
  readonly rounds: Change[][];
  /** Which running Job each round of a property's closing phase acts on. */
  readonly picks: number[];
}

/** scenarioArb: a random scenario, its history drawn with `weights`. */
export const scenarioArb = (weights: ChangeWeights, options: ShapeOptions & { readonly maxRounds?: number } = {}): fc.Arbitrary<Scenario> =>
  fc.record({
    shape: shapeArb(options),
    lingering: fc.boolean(),
    rounds: roundsArb(weights, options.maxRounds),
    picks: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
  });

/** One pass as a check sees it: the Jobs and JobSet the planner observed, and its plan (already applied). */
export interface PassView {
  readonly world: World;
  readonly before: readonly Job[];
  readonly jobSet: JobSet;
  readonly plan: Plan;
}

/** One settled round as a check sees it: what the oracle predicted for it. */
export interface SettleView {
  readonly world: World;
  readonly outcome: Outcome;
}

/** Checks: what a property asserts on every pass and after every settled round. */
export interface Checks {
  readonly onPass?: (view: PassView) => void;
  readonly afterSettle?: (view: SettleView) => void;
}

/** The terminal state the oracle expects, once reached. */
export type Terminal = { readonly kind: 'Completed' } | { readonly kind: 'Failed'; readonly cause: FailureCause };

/** markDeleting: give a Job a deletionTimestamp, as the API server does while a deletion waits on its pods. */
const markDeleting = (cluster: TestCluster, name: string): void => {
  const job = cluster.job(name);
  if (isDeleting(job)) return;
  cluster.jobs.set(name, { ...job, metadata: { ...job.metadata, deletionTimestamp: rfc3339Seconds(cluster.now) } });
};

/**
 * LingeringCluster: the TestCluster, except that a Job the planner deletes (foreground) stays,
 * marked with a deletionTimestamp, until the world collects it.
 */
class LingeringCluster extends TestCluster {
  override apply(action: Action): void {
    if (action.kind === 'DeleteJob') markDeleting(this, action.name);
    else super.apply(action);
  }
}

/** World: a JobSet played against the planner, with the oracle's account of where it should be. */
export class World {
  readonly cluster: TestCluster;
  /** The restart attempt the oracle expects (status.restarts). */
  attempt = 0;
  /** The terminal state the oracle expects, once any. */
  terminal: Terminal | undefined;
  /** spec.suspend as the outside world last set it. */
  suspended: boolean;
  /** Passes taken so far, for messages. */
  passes = 0;
  /** Since the last restart no Job of the new attempt changed from outside: its sequence is at its first step. */
  fresh = false;
  readonly shape: Shape;
  /** Deleted Jobs linger until collected (else they are gone at once). */
  readonly lingering: boolean;
  /**
   * Jobs with a TTL that finished and are gone, as last seen: they held Lineup's finished-record
   * finalizer until their outcome was recorded, so they keep counting for their attempt.
   */
  readonly finishedGone = new Map<string, Job>();
  /** Every Job as last seen, to notice the ones that disappear. */
  private lastSeen = new Map<string, Job>();
  private readonly checks: Checks;

  constructor(shape: Shape, checks: Checks = {}, lingering = false) {
    this.shape = shape;
    this.checks = checks;
    this.lingering = lingering;
    this.cluster = lingering ? new LingeringCluster(jobSetOf(shape)) : new TestCluster(jobSetOf(shape));
    this.suspended = shape.startSuspended;
  }

  /** jobs: every Job in the cluster, in name order. */
  jobs(): Job[] {
    return [...this.cluster.jobs.values()].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  }

  /**
   * current: the Jobs of the attempt the oracle expects, with those of it that finished and
   * were deleted by their TTL (unless a Job of the same name exists again).
   */
  current(jobs: readonly Job[] = this.jobs()): Job[] {
    const present = new Set(jobs.map((job) => job.metadata.name ?? ''));
    const gone = [...this.finishedGone.entries()].filter(([name]) => !present.has(name)).map(([, job]) => job);
    return [...jobs, ...gone].filter((job) => attemptOf(job) === this.attempt);
  }

  /** finishedGoneNames: the names of the current attempt's finished Jobs that are gone (and keep counting). */
  finishedGoneNames(): Set<string> {
    return new Set([...this.finishedGone.entries()].filter(([, job]) => attemptOf(job) === this.attempt).map(([name]) => name));
  }

  /** notice: remember the finished Jobs with a TTL that disappeared since last seen. */
  private notice(): void {
    for (const [name, job] of this.lastSeen) {
      if (this.cluster.jobs.has(name) || finishedAs(job) === undefined) continue;
      if (this.shape.replicatedJobs[rjobIndexOf(job)]?.ttl) this.finishedGone.set(name, job);
    }
    this.lastSeen = new Map(this.cluster.jobs);
  }

  /** jobSet: the JobSet as the cluster holds it (it is never deleted in these scenarios). */
  jobSet(): JobSet {
    const jobSet = this.cluster.jobSet;
    assert.ok(jobSet, 'the jobset still exists');
    return jobSet;
  }

  /**
   * settle: predict what this round must do from what the planner is about to observe, then
   * run passes until one takes no action, handing each pass and the settled round to the checks.
   */
  settle(): Outcome {
    const outcome: Outcome = this.terminal ? { kind: 'Nothing' } : expectedOutcome(this.shape, this.current(), this.attempt);
    if (outcome.kind === 'Restart') {
      this.attempt += 1;
      this.fresh = true;
    }
    if (outcome.kind === 'Completed') this.terminal = { kind: 'Completed' };
    if (outcome.kind === 'Failed') this.terminal = { kind: 'Failed', cause: outcome.cause };
    for (let i = 0; i < MAX_PASSES; i += 1) {
      const jobSet = this.jobSet();
      const before = this.jobs();
      const plan = this.cluster.pass();
      this.notice();
      this.passes += 1;
      this.checks.onPass?.({ world: this, before, jobSet, plan });
      if (plan.actions.length === 0) {
        this.checks.afterSettle?.({ world: this, outcome });
        return outcome;
      }
    }
    return assert.fail(`planner did not settle within ${MAX_PASSES} passes: ${this.cluster.pass().reason}`);
  }

  /** eligible: the Jobs a change may act on, in name order. */
  private eligible(kind: Exclude<Change['kind'], 'suspend' | 'resume' | 'collectAll'>): Job[] {
    const eligibleFor: Record<typeof kind, (job: Job) => boolean> = {
      // Only Jobs the change changes, so no change is wasted.
      ready: (job) => isRunning(job) && !isReadyJob(job),
      readyAll: (job) => isRunning(job) && !isReadyJob(job),
      pods: isRunning,
      unready: (job) => isRunning(job) && (job.status?.ready ?? 0) > 0,
      complete: isRunning,
      completeAll: isRunning,
      fail: isRunning,
      stale: (job) => isSuspendedJob(job) && finishedAs(job) === undefined,
      delete: isRunningOn,
      expire: (job) => finishedAs(job) !== undefined && !isDeleting(job) && job.spec.ttlSecondsAfterFinished !== undefined,
      // The API server removes a Job once no finalizer holds it.
      collect: (job) => isDeleting(job) && (job.metadata.finalizers ?? []).length === 0,
    };
    return this.jobs().filter(eligibleFor[kind]);
  }

  /** touched: a Job of the current attempt changed, so the attempt is past its first step. */
  private touched(job: Job): void {
    if (attemptOf(job) === this.attempt) this.fresh = false;
  }

  /** ready: a Job gets all its pods ready. */
  ready(job: Job): void {
    this.touched(job);
    this.cluster.ready(job.metadata.name ?? '');
  }

  /** complete: a Job succeeds. */
  complete(job: Job): void {
    this.touched(job);
    this.cluster.complete(job.metadata.name ?? '');
  }

  /** unready: a Job's pods restart, so it is no longer ready. */
  unready(job: Job): void {
    this.setStatus(job, { ready: 0 });
  }

  /** setStatus: merge fields into a Job's status, as the Job controller would write them. */
  private setStatus(job: Job, status: Partial<NonNullable<Job['status']>>): void {
    this.touched(job);
    const name = job.metadata.name ?? '';
    const now = this.cluster.job(name);
    this.cluster.jobs.set(name, { ...now, status: { ...now.status, ...status } });
  }

  /** delete: someone deletes a Job; it lingers until collected when deletions linger. */
  delete(job: Job): void {
    this.touched(job);
    const name = job.metadata.name ?? '';
    if (this.lingering) markDeleting(this.cluster, name);
    else this.cluster.deleteJob(name);
  }

  /** fail: a Job fails, for the reason the FailJobSet rule names when `fatal`. */
  fail(job: Job, fatal = false): void {
    this.touched(job);
    this.cluster.fail(job.metadata.name ?? '', fatal ? FATAL_REASON : ORDINARY_REASON, 'job failed');
  }

  /** apply: one outside change; a change with no eligible Job does nothing. */
  apply(change: Change): void {
    this.change(change);
    this.notice();
  }

  /** change: carry out one outside change. */
  private change(change: Change): void {
    if (change.kind === 'suspend' || change.kind === 'resume') {
      this.suspended = change.kind === 'suspend';
      this.cluster.setSuspend(this.suspended);
      return;
    }
    if (change.kind === 'collectAll') {
      this.collectAll();
      return;
    }
    const eligible = this.eligible(change.kind);
    const job = eligible[change.pick % Math.max(eligible.length, 1)];
    if (!job) return;
    const parallelism = job.spec.parallelism ?? 1;
    switch (change.kind) {
      case 'ready':
        this.ready(job);
        return;
      case 'readyAll':
        for (const other of this.eligible('readyAll')) {
          if (rjobIndexOf(other) === rjobIndexOf(job) && attemptOf(other) === attemptOf(job)) this.ready(other);
        }
        return;
      case 'pods': {
        const ready = change.ready % (parallelism + 1);
        // Fewer succeeded pods than completions: the Job has not finished.
        const succeeded = change.succeeded % (job.spec.completions ?? 1);
        this.setStatus(job, { active: ready, ready, succeeded });
        return;
      }
      case 'unready':
        this.unready(job);
        return;
      case 'complete':
        this.complete(job);
        return;
      case 'completeAll':
        for (const other of this.eligible('completeAll')) {
          if (rjobIndexOf(other) === rjobIndexOf(job) && attemptOf(other) === attemptOf(job)) this.complete(other);
        }
        return;
      case 'fail':
        this.fail(job, change.fatal);
        return;
      case 'stale':
        this.setStatus(job, { active: parallelism, ready: parallelism });
        return;
      case 'delete':
        this.delete(job);
        return;
      case 'expire':
        // The Job lingers while Lineup's finished-record finalizer holds it, then is gone.
        this.cluster.deleteJob(job.metadata.name ?? '');
        return;
      case 'collect':
        this.cluster.jobs.delete(job.metadata.name ?? '');
        return;
    }
  }

  /** collectAll: the API server finishes every pending deletion no finalizer holds. */
  collectAll(): void {
    for (const job of this.eligible('collect')) this.cluster.jobs.delete(job.metadata.name ?? '');
    this.notice();
  }

  /** play: settle once (creation), then each round's changes followed by settling. */
  play(rounds: readonly (readonly Change[])[]): void {
    this.settle();
    for (const round of rounds) {
      for (const change of round) this.apply(change);
      this.settle();
    }
  }

  /**
   * cooperate: resume the JobSet, finish pending deletions, and let every running Job become
   * ready — and succeed, when a gate awaits its replicatedJob Complete — until nothing changes
   * or the JobSet finished.
   */
  cooperate(): void {
    if (this.suspended) this.apply({ kind: 'resume' });
    this.collectAll();
    this.settle();
    const mustSucceed = awaitedComplete(this.shape);
    for (let round = 0; round < MAX_COOPERATION_ROUNDS; round += 1) {
      if (this.terminal) return;
      let changed = false;
      for (const job of this.current()) {
        if (!isRunning(job)) continue;
        if (mustSucceed.has(rjobIndexOf(job))) {
          this.complete(job);
          changed = true;
        } else if (!isReadyJob(job)) {
          this.ready(job);
          changed = true;
        }
      }
      // A restart or the end of the JobSet may have left Jobs being deleted.
      if (this.eligible('collect').length > 0) {
        this.collectAll();
        changed = true;
      }
      if (!changed) return;
      this.settle();
    }
    assert.fail(`startup still moving after ${MAX_COOPERATION_ROUNDS} rounds of cooperation`);
  }

  /** condition: a JobSet condition by type. */
  condition(type: string): { status: string; reason?: string | undefined } | undefined {
    return this.cluster.condition(type);
  }
}
