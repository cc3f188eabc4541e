/**
 * Replay: re-run a planner over every recorded pass's inputs and compare what it decides with
 * what was recorded, action by action matched by what each acts on (actionDiff.ts). The planner
 * is a parameter, so a release check runs today's and a test runs a variant; nothing but the
 * default planner's version (computed from its sources once per process) reads outside the
 * arguments. Check the recording first (verify.ts): a replay of an edited recording would blame
 * the planner.
 */
import { plan as currentPlanner } from '../plan/planner.ts';
import type { Observed, Plan, PlanOptions } from '../plan/types.ts';
import { plannerVersion } from '../plannerVersion.ts';
import { journalActionsOf, wholeActionDigest } from '../reconcile/journal.ts';
import type { JournalAction } from '../store/types.ts';
import { diffActions, identityOf, leafDifferences, type ActionDifference } from './actionDiff.ts';
import { triggerLabel } from './history.ts';
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
      /** By what each action acts on (actionDiff.ts), recorded order first. */
      readonly differences: readonly ActionDifference[];
    }
  /** The pass's inputs cannot be had (too large to keep, or expired from the journal). */
  | { readonly pass: number; readonly at: number; readonly result: 'unreplayable'; readonly why: string };

/** The first pass where the two sides part, as a replayer names it: when, after what, and the first difference. */
export interface FirstDivergence {
  readonly pass: number;
  readonly at: number;
  /** The events that triggered the pass ("Job Changed Job story-driver-0 rv 123"), empty for a pass of its own. */
  readonly triggers: readonly string[];
  readonly difference: ActionDifference;
}

/** A replay of one recording. */
export interface ReplayReport {
  readonly jobSet: Recording['jobSet'];
  readonly plannerVersion: string;
  readonly recordedPlannerVersions: readonly string[];
  readonly passes: readonly PassOutcome[];
  readonly same: number;
  readonly different: number;
  readonly unreplayable: number;
  readonly firstDivergence?: FirstDivergence | undefined;
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

/** Replayed: one pass re-planned: the actions as the journal keeps them, and the plan's whole actions beside them. */
interface Replayed {
  readonly actions: readonly JournalAction[];
  readonly whole: Plan['actions'];
}

/**
 * createdAsRecorded: the Job `name` as the recording saw it once created: in the inputs of the
 * first pass after `index` that holds it (the API server's defaults are there too; leafDifferences
 * walks only what the replay would write).
 */
const createdAsRecorded = (recording: Recording, index: number, name: string): unknown => {
  for (let later = index + 1; later < recording.passes.length; later += 1) {
    const observed = observedOfPass(recording, later);
    if (typeof observed === 'string') continue;
    const job = observed.jobs.find((candidate) => candidate.metadata.name === name);
    if (job !== undefined) return job;
  }
  return undefined;
};

/**
 * explained: a pass's differences with what the rest of the replay tells about them: where the
 * other side does an action one side alone does in this pass, and which fields of a created Job
 * differ from the Job the recording saw created.
 */
const explained = (recording: Recording, index: number, differences: readonly ActionDifference[], replayedByPass: readonly (Replayed | undefined)[], whole: Plan['actions']): ActionDifference[] =>
  differences.map((difference) => {
    const laterPass = (has: (pass: number) => boolean): number | undefined => {
      for (let later = index + 1; later < recording.passes.length; later += 1) if (has(later)) return later + 1;
      return undefined;
    };
    if (difference.kind === 'only-replayed') {
      const identity = identityOf(difference.action);
      return { ...difference, recordedAtPass: laterPass((later) => recording.passes[later]?.actions.some((action) => identityOf(action) === identity) ?? false) };
    }
    if (difference.kind === 'only-recorded') {
      const identity = identityOf(difference.action);
      return { ...difference, replayedAtPass: laterPass((later) => replayedByPass[later]?.actions.some((action) => identityOf(action) === identity) ?? false) };
    }
    if (difference.replayed.kind !== 'CreateJob' || !difference.fields.includes('digest')) return difference;
    const created = whole.find((action) => action.kind === 'CreateJob' && action.job.metadata.name === difference.replayed.target);
    const asRecorded = createdAsRecorded(recording, index, difference.replayed.target);
    if (created?.kind !== 'CreateJob' || asRecorded === undefined) return difference;
    return { ...difference, paths: leafDifferences(asRecorded, created.job) };
  });

/**
 * replayRecording: each pass re-planned with its recorded inputs and options, its actions
 * compared with the recorded ones by what they act on. A recorded pass whose actions were cut to
 * fit its item (actionsOmitted) is compared on the actions it kept.
 */
export const replayRecording = (recording: Recording, options: ReplayOptions = {}): ReplayReport => {
  const planner = options.planner ?? currentPlanner;
  const replayedByPass = recording.passes.map((pass, index): Replayed | string => {
    const observed = observedOfPass(recording, index);
    if (typeof observed === 'string') return observed;
    const plan = planner(observed, pass.planOptions);
    const all = replayedActions(plan, pass.actions);
    return { actions: pass.actionsOmitted !== undefined ? all.slice(0, pass.actions.length) : all, whole: plan.actions };
  });
  const replayedOnly = replayedByPass.map((replayed) => (typeof replayed === 'string' ? undefined : replayed));
  const passes = recording.passes.map((pass, index): PassOutcome => {
    const replayed = replayedByPass[index];
    if (replayed === undefined || typeof replayed === 'string') return { pass: index + 1, at: pass.at, result: 'unreplayable', why: replayed ?? `no pass ${index + 1}` };
    const differences = explained(recording, index, diffActions(pass.actions, replayed.actions), replayedOnly, replayed.whole);
    return differences.length === 0
      ? { pass: index + 1, at: pass.at, result: 'same' }
      : { pass: index + 1, at: pass.at, result: 'different', recorded: pass.actions, replayed: replayed.actions, differences };
  });
  const count = (result: PassOutcome['result']): number => passes.filter((outcome) => outcome.result === result).length;
  const first = passes.find((outcome) => outcome.result === 'different');
  const firstDifference = first?.result === 'different' ? first.differences[0] : undefined;
  return {
    jobSet: recording.jobSet,
    plannerVersion: options.plannerVersion ?? (options.planner === undefined ? plannerVersion() : 'variant'),
    recordedPlannerVersions: [...new Set(recording.passes.map((pass) => pass.plannerVersion))],
    passes,
    same: count('same'),
    different: count('different'),
    unreplayable: count('unreplayable'),
    ...(first === undefined || firstDifference === undefined
      ? {}
      : {
          firstDivergence: {
            pass: first.pass,
            at: first.at,
            triggers: (recording.passes[first.pass - 1]?.triggers ?? []).map(triggerLabel),
            difference: firstDifference,
          },
        }),
  };
};
