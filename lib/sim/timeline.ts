/**
 * The timeline of a simulated run, entry for entry as it appears in
 * `lineup simulate --output json`. Other tools read that JSON, so the key names and their
 * order are part of the contract.
 */
import type { Condition } from '../jobset/schema.ts';

/** TimelineType: what a timeline entry records. */
export const TimelineType = {
  JobCreated: 'JobCreated',
  JobResumed: 'JobResumed',
  JobSuspended: 'JobSuspended',
  JobReady: 'JobReady',
  JobSucceeded: 'JobSucceeded',
  JobFailed: 'JobFailed',
  JobDeleted: 'JobDeleted',
  /** A volumeClaimPolicies claim was created (message: its name and retention). */
  VolumeClaimCreated: 'VolumeClaimCreated',
  /** A JobSet condition appeared or changed status, reason or message on a status write. */
  ConditionChanged: 'ConditionChanged',
  /** The JobSet's Rejected condition turned True. */
  Rejected: 'Rejected',
} as const;
/** TimelineTypeName: one of the TimelineType strings. */
export type TimelineTypeName = (typeof TimelineType)[keyof typeof TimelineType];

/** TimelineCondition: a JobSet condition as the timeline shows it (no timestamps). */
export interface TimelineCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** TimelineEntry: one thing that happened, at a virtual time in milliseconds from the start. */
export interface TimelineEntry {
  readonly at: number;
  readonly type: TimelineTypeName;
  readonly job?: string;
  readonly replicatedJob?: string;
  /** Only on JobCreated: whether the Job was created suspended. */
  readonly suspended?: boolean;
  readonly condition?: TimelineCondition;
  readonly message?: string;
}

/** timelineCondition: the timeline's view of a condition (reason and message default to ""). */
export const timelineCondition = (condition: Condition): TimelineCondition => ({
  type: condition.type,
  status: condition.status,
  reason: condition.reason ?? '',
  message: condition.message ?? '',
});

/**
 * conditionChanges: the conditions of `next` that are new or differ from `previous` in status,
 * reason or message, in `next` order. lastTransitionTime alone is not a change worth showing.
 */
export const conditionChanges = (previous: readonly Condition[] | undefined, next: readonly Condition[] | undefined): Condition[] => {
  const before = new Map((previous ?? []).map((condition) => [condition.type, condition]));
  return (next ?? []).filter((condition) => {
    const old = before.get(condition.type);
    return !old || old.status !== condition.status || old.reason !== condition.reason || old.message !== condition.message;
  });
};
