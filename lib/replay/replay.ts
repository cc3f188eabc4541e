/**
 * Replay: re-run a planner over every recorded pass's inputs and compare what it decides with
 * what was recorded, action by action and field by field. Pure: the planner is a parameter, so a
 * release check runs today's and a test runs a variant.
 */
import { plan as currentPlanner } from '../plan/planner.ts';
import type { Observed, Plan, PlanOptions } from '../plan/types.ts';
import { plannerVersion } from '../plannerVersion.ts';
import { journalActionsOf, wholeActionDigest } from '../reconcile/journal.ts';
import type { JournalAction } from '../store/types.ts';
import { observedOfPass, type Recording } from './recording.ts';

/** Planner: what replay runs (lib/plan's plan, or a variant). */
export type Planner = (observed: Observed, options: PlanOptions) => Plan;

/** The fields of an action a replay compares, in the order a difference lists them. */
export const COMPARED_FIELDS = ['kind', 'target', 'code', 'message', 'digest'] as const;

/** One field of one action that differs; an action only one side has shows undefined on the other. */
export interface FieldDifference {
  /** 1-based position of the action in the pass. */
  readonly action: number;
  readonly field: (typeof COMPARED_FIELDS)[number];
  readonly recorded: string | undefined;
  readonly replayed: string | undefined;
}

/** The outcome of one recorded pass. */
export type PassOutcome =
  | { readonly pass: number; readonly at: number; readonly result: 'same' }
  | {
      readonly pass: number;
      readonly at: number;
      readonly result: 'different';
      readonly recorded: readonly JournalAction[];
      readonly replayed: readonly JournalAction[];
      readonly differences: readonly FieldDifference[];
    }
  /** The pass's inputs cannot be had (too large to keep, or their entry expired). */
  | { readonly pass: number; readonly at: number; readonly result: 'unreplayable'; readonly why: string };

/** A replay of one recording. */
export interface ReplayReport {
  readonly jobSet: Recording['jobSet'];
  readonly plannerVersion: string;
  readonly recordedPlannerVersions: readonly string[];
  readonly passes: readonly PassOutcome[];
  readonly same: number;
  readonly different: number;
  readonly unreplayable: number;
}

/** actionDifferences: every compared field that differs between the two action lists, in order. */
export const actionDifferences = (recorded: readonly JournalAction[], replayed: readonly JournalAction[]): FieldDifference[] => {
  const differences: FieldDifference[] = [];
  for (let index = 0; index < Math.max(recorded.length, replayed.length); index += 1) {
    const before = recorded[index];
    const after = replayed[index];
    for (const field of COMPARED_FIELDS) {
      if (before?.[field] !== after?.[field]) differences.push({ action: index + 1, field, recorded: before?.[field], replayed: after?.[field] });
    }
  }
  return differences;
};

/** ReplayOptions: which planner, and its version as the report names it. */
export interface ReplayOptions {
  readonly planner?: Planner | undefined;
  readonly plannerVersion?: string | undefined;
}

/**
 * replayedActions: the actions `plan` makes, as the journal keeps them, to compare with `recorded`:
 * an action whose recorded digest is that of the whole action (an entry written before the
 * journal redacted environment values, journal.ts actionDigest) is compared on that digest.
 */
const replayedActions = (plan: Plan, recorded: readonly JournalAction[]): JournalAction[] =>
  journalActionsOf(plan).map((action, index) => {
    const before = recorded[index]?.digest;
    const whole = plan.actions[index];
    return before !== undefined && before !== action.digest && whole !== undefined && before === wholeActionDigest(whole) ? { ...action, digest: before } : action;
  });

/**
 * replayRecording: each pass re-planned with its recorded inputs and options. A recorded pass
 * whose actions were cut to fit its item (actionsOmitted) is compared on the actions it kept.
 */
export const replayRecording = (recording: Recording, options: ReplayOptions = {}): ReplayReport => {
  const planner = options.planner ?? currentPlanner;
  const passes = recording.passes.map((pass, index): PassOutcome => {
    const observed = observedOfPass(recording, index);
    if (typeof observed === 'string') return { pass: index + 1, at: pass.at, result: 'unreplayable', why: observed };
    const replayedAll = replayedActions(planner(observed, pass.planOptions), pass.actions);
    const replayed = pass.actionsOmitted !== undefined ? replayedAll.slice(0, pass.actions.length) : replayedAll;
    const differences = actionDifferences(pass.actions, replayed);
    return differences.length === 0
      ? { pass: index + 1, at: pass.at, result: 'same' }
      : { pass: index + 1, at: pass.at, result: 'different', recorded: pass.actions, replayed, differences };
  });
  const count = (result: PassOutcome['result']): number => passes.filter((outcome) => outcome.result === result).length;
  return {
    jobSet: recording.jobSet,
    plannerVersion: options.plannerVersion ?? (options.planner === undefined ? plannerVersion() : 'variant'),
    recordedPlannerVersions: [...new Set(recording.passes.map((pass) => pass.plannerVersion))],
    passes,
    same: count('same'),
    different: count('different'),
    unreplayable: count('unreplayable'),
  };
};
