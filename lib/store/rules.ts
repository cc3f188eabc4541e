/**
 * The store's rules as pure functions, shared by the DynamoDB store and the in-memory one so the
 * two cannot drift: when a lease may be taken, when a JobSet needs a resync, how listings are
 * ordered, how a journal entry's sort key, TTL and size bound are made.
 */
import { randomBytes } from 'node:crypto';
import { objectRef, type ClusterRecord, type JournalEntry, type JournalEvent, type JobSetKey, type JobSetState } from './types.ts';

/** How long journal entries are kept (their TTL) unless the store is configured otherwise: 14 days. */
export const DEFAULT_JOURNAL_RETENTION_MS = 14 * 24 * 60 * 60 * 1000;
/**
 * Largest journal item (characters of its stored attributes) the store writes: DynamoDB items stop
 * at 400 KB, and attribute names and key overhead need the rest. An entry over it drops its inputs
 * (inputsKept `too-large`), then, if still over, its last actions (actionsOmitted counts them).
 */
export const MAX_JOURNAL_ITEM_CHARS = 380 * 1024;

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

/** dirtyWithoutLease: events arrived that nobody is reconciling (the invocation died between noting the event and taking the lease). */
export const dirtyWithoutLease = (state: JobSetState): boolean => state.dirty > state.reconciled && state.lease === undefined;

/** wakeDue: the JobSet asked for a pass at `wakeAt` (TTL after finished) and that time has come. */
export const wakeDue = (state: JobSetState, now: number): boolean => state.wakeAt !== undefined && state.wakeAt <= now;

/** needsResync: the contract's listNeedingResync filter (lib/store/types.ts), one rule per clause. */
export const needsResync = (state: JobSetState, now: number): boolean =>
  leaseExpired(state, now) || lastPassFailed(state) || dirtyWithoutLease(state) || wakeDue(state, now);

/**
 * mayBeEcho: whether an event may be dropped as an echo when the state item knows its object at
 * its resourceVersion — never a deletion (its resourceVersion may be the last one seen of the
 * object) nor a Sync (it names no version).
 */
export const mayBeEcho = (trigger: JournalEvent): boolean => trigger.watchType !== 'DELETED' && trigger.watchType !== 'SYNC' && trigger.resourceVersion !== '';

/**
 * isEcho: an event is an echo when the state item's `known` map holds every object it names at
 * the resourceVersion it names (an event naming nothing, or a deletion or Sync, never is).
 */
export const isEcho = (known: Readonly<Record<string, string>> | undefined, triggers: readonly JournalEvent[]): boolean =>
  triggers.length > 0 && triggers.every((trigger) => mayBeEcho(trigger) && known?.[objectRef(trigger.kind, trigger.name)] === trigger.resourceVersion);

/**
 * HEARTBEAT_CLOCK_SKEW_MS: how far a heartbeat's time (a forwarder's newest checkpoint, by its own
 * clock) may lie ahead of the clock judging it (the resync's or `lineup clusters status`'s now)
 * and still be believed. Hosts keep time by NTP, so more than this is a clock gone wrong or a
 * forged time: it must not keep a cluster watched (docs/security.md).
 */
export const HEARTBEAT_CLOCK_SKEW_MS = 2 * 60_000;

/**
 * MAX_PENDING_TRIGGERS: most triggers a state item's `pending` list holds. Events keep arriving
 * while a loop holds the lease, and a failed loop leaves its list for the next one, so without a
 * bound a JobSet whose passes keep failing grows its item to DynamoDB's 400 KB limit and wedges.
 * Two events' worth (an event names at most MAX_OBJECTS_PER_EVENT objects); with the event
 * schema's name bounds a full list is under 40 KB (test/store/itemBounds.test.ts).
 */
export const MAX_PENDING_TRIGGERS = 64;

/** What trimming a pending list did. */
export interface PendingTrim {
  /** The list kept, oldest first. */
  readonly pending: JournalEvent[];
  /** Triggers left out because a newer one names the same object the same way (nothing is lost: the newer one says it changed). */
  readonly coalesced: number;
  /** Triggers left out after coalescing, the oldest first: the objects they named may have changed without any trigger saying so. */
  readonly dropped: number;
}

/**
 * coalescingKey: triggers of one key say the same thing to the pass loop (lib/reconcile/snapshot.ts
 * changedSince), so the newest stands for all: every Sync asks for everything, a deletion makes
 * its object be read again whatever its version, and any other change does when its version is not
 * the one the loop holds.
 */
const coalescingKey = (trigger: JournalEvent): string =>
  trigger.watchType === 'SYNC' ? 'SYNC' : `${objectRef(trigger.kind, trigger.name)}${trigger.watchType === 'DELETED' ? ' DELETED' : ''}`;

/**
 * trimPending: a pending list (oldest first) within `max` triggers — unchanged when it fits; else
 * each coalescingKey's newest trigger only, where it stands, and if those are still too many the
 * newest `max` of them. Every store applies it the same way (lib/store/types.ts noteEvent), and a
 * loop whose lease shows dropped triggers reads everything.
 */
export const trimPending = (all: readonly JournalEvent[], max: number = MAX_PENDING_TRIGGERS): PendingTrim => {
  if (all.length <= max) return { pending: [...all], coalesced: 0, dropped: 0 };
  const seen = new Set<string>();
  const newestFirst: JournalEvent[] = [];
  for (let index = all.length - 1; index >= 0; index -= 1) {
    const trigger = all[index];
    if (trigger === undefined || seen.has(coalescingKey(trigger))) continue;
    seen.add(coalescingKey(trigger));
    newestFirst.push(trigger);
  }
  const kept = newestFirst.slice(0, Math.max(0, max)).reverse();
  return { pending: kept, coalesced: all.length - newestFirst.length, dropped: newestFirst.length - kept.length };
};

/** compareJobSetKeys: listing order — cluster, then namespace, then name. */
export const compareJobSetKeys = (a: JobSetKey, b: JobSetKey): number =>
  compareStrings(a.cluster, b.cluster) || compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name);

/** compareClusters: listing order of the registry — by id. */
export const compareClusters = (a: ClusterRecord, b: ClusterRecord): number => compareStrings(a.id, b.id);

// Code-unit order, not localeCompare: it is the order DynamoDB sorts string keys in.
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Width of the in-process sequence in a journal entry's sort-key suffix. */
const JOURNAL_SEQUENCE_DIGITS = 8;
let journalSequence = 0;

/**
 * journalSuffix: the part of a journal entry's sort key after its time. The in-process sequence keeps
 * two entries of one process in the same millisecond in order; the random part keeps entries
 * of two processes apart (two holders can only meet in the same millisecond around a takeover).
 */
export const journalSuffix = (): string => {
  journalSequence = (journalSequence + 1) % 10 ** JOURNAL_SEQUENCE_DIGITS;
  return `${String(journalSequence).padStart(JOURNAL_SEQUENCE_DIGITS, '0')}${randomBytes(4).toString('hex')}`;
};

/**
 * journalExpiresAt: the journal entry's TTL in epoch SECONDS (DynamoDB TTL's unit), rounded up so a
 * entry is never eligible for deletion before its full retention has passed.
 */
export const journalExpiresAt = (at: number, retentionMs: number): number => Math.ceil((at + retentionMs) / 1000);

/**
 * journalEntryToKeep: the entry as it is stored, within `maxChars` as `sizeOf` measures the
 * stored item — first without its inputs (inputsKept `too-large`), then without as many trailing
 * actions as it takes (actionsOmitted counts them) — so an oversized entry never fails its pass.
 */
export const journalEntryToKeep = (entry: JournalEntry, sizeOf: (entry: JournalEntry) => number, maxChars: number = MAX_JOURNAL_ITEM_CHARS): JournalEntry => {
  if (sizeOf(entry) <= maxChars) return entry;
  const { inputs: _dropped, ...rest } = entry;
  const withoutInputs: JournalEntry = { ...rest, inputsKept: entry.inputsKept === 'stored' || entry.inputsKept === 'delta' ? 'too-large' : entry.inputsKept };
  if (sizeOf(withoutInputs) <= maxChars) return withoutInputs;
  // Halve the kept actions until the entry fits, then grow back one half-step at a time.
  let keep = withoutInputs.actions.length;
  const cut = (count: number): JournalEntry => ({
    ...withoutInputs,
    actions: withoutInputs.actions.slice(0, count),
    actionsOmitted: (withoutInputs.actionsOmitted ?? 0) + withoutInputs.actions.length - count,
  });
  while (keep > 0 && sizeOf(cut(keep)) > maxChars) keep = Math.floor(keep / 2);
  return cut(keep);
};

/**
 * definedOnly: the object without its undefined properties — how a record looks after a round
 * trip through DynamoDB, where an absent attribute reads back absent, not present-and-undefined.
 */
export const definedOnly = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
