/**
 * Comparing a pass's recorded actions with a replay's by what they act on, not by position: an
 * action is its kind and its target (a Job's name, the Service's, '' for the JobSet), so an extra
 * resume shows as one extra action instead of shifting every later one into noise. Pure.
 */
import type { JournalAction } from '../store/types.ts';
import { isObject } from '../json.ts';

/** A field of an action that two sides can disagree on once kind and target match. */
export type ComparedField = 'code' | 'message' | 'digest';
const COMPARED: readonly ComparedField[] = ['code', 'message', 'digest'];

/** One leaf of a written object that differs: its path, the recorded value, the replayed value (JSON text; undefined when absent). */
export interface FieldPathDifference {
  readonly path: string;
  readonly recorded: string | undefined;
  readonly replayed: string | undefined;
}

/** One way the two sides' actions differ, named by the action's kind and target. */
export type ActionDifference =
  /** Only the recording has it; `replayedAtPass`: the later pass where the replay does it, if any. */
  | { readonly kind: 'only-recorded'; readonly action: JournalAction; readonly replayedAtPass?: number | undefined }
  /** Only the replay has it; `recordedAtPass`: the later pass where the recording does it, if any. */
  | { readonly kind: 'only-replayed'; readonly action: JournalAction; readonly recordedAtPass?: number | undefined }
  /** Both do it, differently; `paths`: the written object's differing leaves, where they could be worked out. */
  | {
      readonly kind: 'changed';
      readonly recorded: JournalAction;
      readonly replayed: JournalAction;
      readonly fields: readonly ComparedField[];
      readonly paths?: readonly FieldPathDifference[] | undefined;
    };

/** identityOf: what an action acts on: kind and target. */
export const identityOf = (action: Pick<JournalAction, 'kind' | 'target'>): string => `${action.kind} ${action.target}`.trimEnd();

/**
 * diffActions: the differences between one pass's recorded and replayed actions, matched by
 * kind and target (several with the same identity are paired in order), in the recorded order
 * then the replayed order. Empty when both sides did the same things, whatever the order.
 */
export const diffActions = (recorded: readonly JournalAction[], replayed: readonly JournalAction[]): ActionDifference[] => {
  const unmatched = new Map<string, JournalAction[]>();
  for (const action of replayed) unmatched.set(identityOf(action), [...(unmatched.get(identityOf(action)) ?? []), action]);
  const differences: ActionDifference[] = [];
  for (const action of recorded) {
    const candidates = unmatched.get(identityOf(action)) ?? [];
    const twin = candidates.shift();
    if (twin === undefined) {
      differences.push({ kind: 'only-recorded', action });
      continue;
    }
    const fields = COMPARED.filter((field) => action[field] !== twin[field]);
    if (fields.length > 0) differences.push({ kind: 'changed', recorded: action, replayed: twin, fields });
  }
  for (const action of replayed) {
    const left = unmatched.get(identityOf(action));
    if (left?.[0] === action) {
      left.shift();
      differences.push({ kind: 'only-replayed', action });
    }
  }
  return differences;
};

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/**
 * leafDifferences: every path under `replayed` whose value `recorded` does not have equal (JSON
 * text), at most `limit`. Walks the replayed object only: fields the API server added to what it
 * stored (defaults, status) are not differences.
 */
export const leafDifferences = (recorded: unknown, replayed: unknown, path = '', limit = 20): FieldPathDifference[] => {
  const found: FieldPathDifference[] = [];
  const walk = (before: unknown, after: unknown, at: string): void => {
    if (found.length >= limit) return;
    if (isObject(after)) {
      for (const [key, value] of Object.entries(after)) walk(isObject(before) ? before[key] : undefined, value, at === '' ? key : `${at}.${key}`);
      return;
    }
    if (Array.isArray(after) && Array.isArray(before) && after.length === before.length) {
      after.forEach((value: unknown, index) => walk(before[index], value, `${at}[${index}]`));
      return;
    }
    const text = (value: unknown): string | undefined => (value === undefined ? undefined : JSON.stringify(value as Json));
    if (text(before) !== text(after)) found.push({ path: at, recorded: text(before), replayed: text(after) });
  };
  walk(recorded, replayed, path);
  return found;
};

/** differenceLines: a difference as lines of text, the first naming the action; created-object paths indented under it. */
export const differenceLines = (difference: ActionDifference, pass: number): string[] => {
  const quoted = (value: string | undefined): string => JSON.stringify(value ?? null);
  switch (difference.kind) {
    case 'only-replayed': {
      const where = difference.recordedAtPass === undefined ? 'only in the replay' : `replayed at pass ${pass}, recorded at pass ${difference.recordedAtPass}`;
      return [`${identityOf(difference.action)}: ${where} (${difference.action.code}: ${difference.action.message})`];
    }
    case 'only-recorded': {
      const where = difference.replayedAtPass === undefined ? 'only in the recording' : `recorded at pass ${pass}, replayed at pass ${difference.replayedAtPass}`;
      return [`${identityOf(difference.action)}: ${where} (${difference.action.code}: ${difference.action.message})`];
    }
    case 'changed': {
      const fields = difference.fields
        .filter((field) => field !== 'digest' || difference.fields.length === 1 || difference.paths !== undefined)
        .map((field) => (field === 'digest' ? (difference.paths === undefined ? 'what it writes differs' : 'what it writes differs:') : `${field} recorded ${quoted(difference.recorded[field])}, replayed ${quoted(difference.replayed[field])}`));
      return [`${identityOf(difference.recorded)}: ${fields.join('; ')}`, ...(difference.paths ?? []).map((path) => `  ${path.path}: recorded ${path.recorded ?? '(absent)'}, replayed ${path.replayed ?? '(absent)'}`)];
    }
  }
};
