/**
 * The store's rules as pure functions, shared by the DynamoDB store and the in-memory one so the
 * two cannot drift: when a lease may be taken, when a JobSet needs a resync, how listings are
 * ordered, how a decision's sort key and TTL are made.
 */
import { randomBytes } from 'node:crypto';
import { MAX_DECISION_INPUTS_CHARS } from '../constants.ts';
import type { ClusterRecord, Decision, JobSetKey, JobSetState } from './types.ts';

/** leaseIsFree: true when nobody holds the lease, the holder let it lapse at or before `now`, or `owner` holds it already. */
export const leaseIsFree = (
  lease: { readonly owner: string; readonly expiresAt: number } | undefined,
  owner: string,
  now: number,
): boolean => lease === undefined || lease.expiresAt <= now || lease.owner === owner;

/** leaseExpired: the lease is still recorded but lapsed — its holder crashed or stalled. */
export const leaseExpired = (state: JobSetState, now: number): boolean =>
  state.lease !== undefined && state.lease.expiresAt <= now;

/** lastPassFailed: the last pass loop ended in failLease and no release has cleared it. */
export const lastPassFailed = (state: JobSetState): boolean => state.lastError !== undefined;

/** dirtyWithoutLease: events arrived that nobody is reconciling (the invocation died between markDirty and the lease). */
export const dirtyWithoutLease = (state: JobSetState): boolean => state.dirty > state.reconciled && state.lease === undefined;

/** wakeDue: the JobSet asked for a pass at `wakeAt` (TTL after finished) and that time has come. */
export const wakeDue = (state: JobSetState, now: number): boolean => state.wakeAt !== undefined && state.wakeAt <= now;

/** needsResync: the contract's listNeedingResync filter (lib/store/types.ts), one rule per clause. */
export const needsResync = (state: JobSetState, now: number): boolean =>
  leaseExpired(state, now) || lastPassFailed(state) || dirtyWithoutLease(state) || wakeDue(state, now);

/** compareJobSetKeys: listing order — cluster, then namespace, then name. */
export const compareJobSetKeys = (a: JobSetKey, b: JobSetKey): number =>
  compareStrings(a.cluster, b.cluster) || compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name);

/** compareClusters: listing order of the registry — by id. */
export const compareClusters = (a: ClusterRecord, b: ClusterRecord): number => compareStrings(a.id, b.id);

// Code-unit order, not localeCompare: it is the order DynamoDB sorts string keys in.
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Width of the in-process sequence in a decision suffix. */
const DECISION_SEQUENCE_DIGITS = 8;
let decisionSequence = 0;

/**
 * decisionSuffix: the part of a decision's sort key after its time. The in-process sequence keeps
 * two decisions of one process in the same millisecond in order; the random part keeps decisions
 * of two processes apart (two holders can only meet in the same millisecond around a takeover).
 */
export const decisionSuffix = (): string => {
  decisionSequence = (decisionSequence + 1) % 10 ** DECISION_SEQUENCE_DIGITS;
  return `${String(decisionSequence).padStart(DECISION_SEQUENCE_DIGITS, '0')}${randomBytes(4).toString('hex')}`;
};

/**
 * decisionExpiresAt: the decision's TTL in epoch SECONDS (DynamoDB TTL's unit), rounded up so a
 * decision is never eligible for deletion before its full retention has passed.
 */
export const decisionExpiresAt = (at: number, retentionMs: number): number => Math.ceil((at + retentionMs) / 1000);

/**
 * decisionToKeep: the decision as it is stored — without `inputs` when they are larger than
 * MAX_DECISION_INPUTS_CHARS (types.ts: "omitted when larger than the item limit allows"), so an
 * oversized record never fails the pass that writes it.
 */
export const decisionToKeep = (decision: Decision): Decision => {
  if (decision.inputs === undefined || decision.inputs.length <= MAX_DECISION_INPUTS_CHARS) return decision;
  const { inputs: _omitted, ...rest } = decision;
  return rest;
};

/**
 * definedOnly: the object without its undefined properties — how a record looks after a round
 * trip through DynamoDB, where an absent attribute reads back absent, not present-and-undefined.
 */
export const definedOnly = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
