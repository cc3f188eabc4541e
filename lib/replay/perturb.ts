/**
 * Perturbation (`lineup replay rec.json --perturb N`): re-enact a recording in the simulator N
 * times, each with the watch-event stream between the cluster and the reconciler duplicated,
 * reordered, delayed and dropped by a seeded PRNG, and check that every run keeps the startup
 * order and reaches the recorded final state. What was done from outside the controller in the
 * recorded run (a user suspending, resuming, editing or deleting the JobSet, a Job deleted by
 * someone else) is re-enacted at its recorded time in every run. Events are hints: a reconciler
 * that reads the whole state on each pass passes every seed; one that trusts what an event says
 * does not.
 */
import { SimulationDivergedError } from '../errors.ts';
import { plan } from '../plan/planner.ts';
import type { Observed, Plan, PlanOptions } from '../plan/types.ts';
import { startupPolicySpecOf } from '../plan/startupSpec.ts';
import { EMPTY_BEHAVIOUR, type BehaviourAction } from '../sim/behaviour.ts';
import type { ClusterChange } from '../sim/cluster.ts';
import { formatVirtualTime } from '../sim/format.ts';
import { simulate, type DeliveredEvent } from '../sim/simulate.ts';
import { finalOf, type RecordedFinal, type RecordedRun } from './recordedRun.ts';
import { firstOrderViolation } from './startupOrder.ts';

/** PerturbedPlanner: what a perturbed run reconciles with; it is told the events each pass was run for. */
export type PerturbedPlanner = (observed: Observed, options: PlanOptions, delivered: readonly DeliveredEvent[]) => Plan;

/** A fresh planner per run, so a variant that keeps state across passes starts clean each seed. */
export type PlannerFactory = () => PerturbedPlanner;

/** realPlanner: today's planner, which ignores the events (it reads the whole state each pass). */
export const realPlanner: PlannerFactory = () => plan;

/** How hard the stream is perturbed. Tuning constants: one event in ten lost, one in six doubled. */
export const PERTURBATION = {
  dropChance: 0.1,
  duplicateChance: 0.15,
  /** Each delivery arrives uniformly within this many virtual ms of the change: events this close reorder. */
  maxDelayMs: 10_000,
  /** The deployed resync's default interval (infra/config.ts DEFAULT_RESYNC_MINUTES). */
  resyncAfterMs: 60_000,
} as const;

/**
 * mulberry32: Tommy Ettinger's 32-bit PRNG, floats in [0, 1). Small, fast, and the same sequence
 * for a seed on every platform, which is what makes `--seed S` re-run exactly one run.
 */
export const mulberry32 = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/** StreamEntry: one event as the perturbed stream carried it: when it happened and when each copy arrived ([] = dropped). */
export interface StreamEntry {
  readonly changedAt: number;
  readonly kind: ClusterChange['kind'];
  readonly name: string;
  readonly resourceVersion: string;
  readonly deliveredAt: readonly number[];
}

/** RunOutcome: one seed's run: passed, or the first thing that broke and the stream that broke it. */
export type RunOutcome =
  | { readonly seed: number; readonly ok: true; readonly stream: readonly StreamEntry[] }
  | { readonly seed: number; readonly ok: false; readonly at: number | undefined; readonly problem: string; readonly stream: readonly StreamEntry[] };

const finalText = (final: RecordedFinal): string => `${final.terminalState ?? 'not finished'}, ${final.restarts} restarts${final.suspended ? ', suspended' : ''}`;

/** perturbedRun: re-enact `run` once with the stream perturbed by `seed`. */
export const perturbedRun = (run: RecordedRun, seed: number, planner: PlannerFactory = realPlanner): RunOutcome => {
  const random = mulberry32(seed);
  const stream: StreamEntry[] = [];
  const delays = (change: ClusterChange, at: number): readonly number[] => {
    const copies = random() < PERTURBATION.dropChance ? 0 : random() < PERTURBATION.duplicateChance ? 2 : 1;
    const chosen = Array.from({ length: copies }, () => Math.floor(random() * PERTURBATION.maxDelayMs));
    stream.push({ changedAt: at, kind: change.kind, name: change.name, resourceVersion: change.resourceVersion, deliveredAt: chosen.map((delay) => at + delay) });
    return chosen;
  };
  const failed = (at: number | undefined, problem: string): RunOutcome => ({ seed, ok: false, at, problem, stream });
  let result;
  try {
    result = simulate(run.jobSet, { ...EMPTY_BEHAVIOUR, actions: run.outsideActions }, {
      until: Infinity,
      latency: 0,
      planOptions: run.planOptions,
      planner: planner(),
      delivery: { delays, resyncAfterMs: PERTURBATION.resyncAfterMs },
      timing: run.timing,
    });
  } catch (error) {
    if (!(error instanceof SimulationDivergedError)) throw error;
    return failed(undefined, error.message);
  }
  const violation = firstOrderViolation(startupPolicySpecOf(run.jobSet), result.timeline);
  if (violation) {
    return failed(violation.at, `${violation.job} started at ${formatVirtualTime(violation.at).trim()} before its gate held: ${violation.unmet}`);
  }
  const reached = finalOf({ status: { conditions: [...result.final.conditions], restarts: result.final.restarts, terminalState: result.final.terminalState ?? undefined } });
  if (reached.terminalState !== run.final.terminalState || reached.restarts !== run.final.restarts || reached.suspended !== run.final.suspended) {
    return failed(undefined, `the run ended ${finalText(reached)}, the recording ${finalText(run.final)}`);
  }
  return { seed, ok: true, stream };
};

/** PerturbReport: the runs made, and the first failing one if any. */
export interface PerturbReport {
  readonly seeds: readonly number[];
  readonly passed: number;
  readonly final: RecordedFinal;
  /** What each run re-enacted from outside the controller, as recorded. */
  readonly outside: readonly BehaviourAction[];
  readonly failure: Extract<RunOutcome, { ok: false }> | undefined;
}

/** perturb: run `seeds` in order, stopping at the first that fails. */
export const perturb = (run: RecordedRun, seeds: readonly number[], planner: PlannerFactory = realPlanner): PerturbReport => {
  let passed = 0;
  for (const seed of seeds) {
    const outcome = perturbedRun(run, seed, planner);
    if (!outcome.ok) return { seeds, passed, final: run.final, outside: run.outsideActions, failure: outcome };
    passed += 1;
  }
  return { seeds, passed, final: run.final, outside: run.outsideActions, failure: undefined };
};

/** outsideText: an outside action as the event order shows it. */
export const outsideText = (action: BehaviourAction): string => {
  switch (action.kind) {
    case 'suspend':
      return `from outside, as recorded: the JobSet ${action.suspend ? 'suspended' : 'resumed'}`;
    case 'updateSpec':
      return 'from outside, as recorded: the JobSet\'s spec changed';
    case 'deleteJobSet':
      return 'from outside, as recorded: the JobSet deleted';
    case 'deleteJob':
      return `from outside, as recorded: Job ${action.job} deleted`;
  }
};

/**
 * streamText: the failing run's events in the order the reconciler got them, up to the failure
 * (all of them when it has no instant): each arrival with the change it carried, each drop
 * with the resync pass that stood in for it, and each re-enacted outside action where it happened.
 */
export const streamText = (failure: Extract<RunOutcome, { ok: false }>, outside: readonly BehaviourAction[] = []): string[] => {
  const arrivals: { at: number; order: number; text: string }[] = [];
  // An outside action happens before the events it causes, at the same instant.
  outside.forEach((action, order) => arrivals.push({ at: action.at, order: order - outside.length, text: outsideText(action) }));
  failure.stream.forEach((entry, order) => {
    const what = `${entry.kind} ${entry.name} rv ${entry.resourceVersion} (changed at ${formatVirtualTime(entry.changedAt).trim()})`;
    if (entry.deliveredAt.length === 0) {
      arrivals.push({ at: entry.changedAt + PERTURBATION.resyncAfterMs, order, text: `resync pass (event dropped: ${what})` });
    }
    [...entry.deliveredAt].sort((a, b) => a - b).forEach((at, copy) => arrivals.push({ at, order, text: `${what}${copy > 0 ? ' again (duplicate)' : ''}` }));
  });
  arrivals.sort((a, b) => a.at - b.at || a.order - b.order);
  return arrivals.filter((arrival) => failure.at === undefined || arrival.at <= failure.at).map((arrival) => `${formatVirtualTime(arrival.at)}  ${arrival.text}`);
};
