/**
 * JobSet conditions, set the way upstream's setCondition/updateCondition do: a False condition is never created from scratch, an unchanged
 * status keeps its lastTransitionTime, and StartupPolicyInProgress/Completed exclude each other.
 */
import { ConditionType } from '../jobset/api.ts';
import type { Condition } from '../jobset/schema.ts';

/** A condition to set; lastTransitionTime is filled in from `now`. */
export interface DesiredCondition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

/**
 * What setCondition changed: the desired condition was added, its status or its text changed,
 * or only the other startup condition was flipped (upstream updateCondition reports that too).
 */
export type ConditionChange = 'none' | 'added' | 'status' | 'text' | 'exclusive';

const exclusivePair = new Set<string>([ConditionType.StartupPolicyInProgress, ConditionType.StartupPolicyCompleted]);

/** rfc3339Seconds: metav1.Time serialises with seconds precision. */
export const rfc3339Seconds = (epochMs: number): string => `${new Date(Math.floor(epochMs / 1000) * 1000).toISOString().slice(0, 19)}Z`;

/**
 * setCondition: the conditions after setting `desired`, and what changed. Pure: never mutates
 * `conditions`.
 */
export const setCondition = (
  conditions: readonly Condition[],
  desired: DesiredCondition,
  now: number,
): { conditions: Condition[]; change: ConditionChange } => {
  const at = rfc3339Seconds(now);
  let change: ConditionChange = 'none';
  let flipped = false;
  let found = false;
  const next = conditions.map((existing): Condition => {
    if (existing.type === desired.type) {
      found = true;
      if (existing.status !== desired.status) {
        change = 'status';
        return { ...existing, ...desired, lastTransitionTime: at };
      }
      if (existing.reason !== desired.reason || existing.message !== desired.message) {
        change = 'text';
        return { ...existing, reason: desired.reason, message: desired.message };
      }
      return existing;
    }
    // upstream QUIRK kept: only the status of the other startup condition flips; its
    // reason, message and lastTransitionTime stay as they were.
    if (
      exclusivePair.has(existing.type) &&
      exclusivePair.has(desired.type) &&
      existing.status === 'True' &&
      desired.status === 'True'
    ) {
      flipped = true;
      return { ...existing, status: 'False' };
    }
    return existing;
  });
  if (!found) {
    // upstream: a False condition is only ever a transition of an existing one.
    if (desired.status !== 'True') return { conditions: [...conditions], change: 'none' };
    next.push({ ...desired, lastTransitionTime: at });
    change = 'added';
  }
  if (change === 'none' && flipped) change = 'exclusive';
  return { conditions: next, change };
};

/** conditionIsTrue: whether a condition of `type` exists with status True. */
export const conditionIsTrue = (conditions: readonly Condition[] | undefined, type: string): boolean =>
  (conditions ?? []).some((condition) => condition.type === type && condition.status === 'True');

/** findCondition: the condition of `type`, if any. */
export const findCondition = (conditions: readonly Condition[] | undefined, type: string): Condition | undefined =>
  (conditions ?? []).find((condition) => condition.type === type);
