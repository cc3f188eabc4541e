/**
 * One event per JobSet per window: the forwarder folds the changes of a JobSet's
 * objects that wait in the same batch window into one event. The newest change stays the event's
 * own object; every other object changed meanwhile is named in `also` with its newest state, so
 * the reconciler still reads again exactly the objects that changed. Pure.
 */
import { entrySize, type PutEventsEntry } from './envelope.ts';
import { LineupEventDetailSchema, MAX_OBJECTS_PER_EVENT, type LineupEventDetail, type ObjectChange } from './schema.ts';

/**
 * Largest merged entry: one 64 KB chunk, the unit EventBridge bills. A JobSet changing more than
 * that in one window goes as several events, each billed once.
 */
export const MAX_MERGED_ENTRY_BYTES = 64 * 1024;

/** objectChangeOf: the event's own object, as `also` names objects. */
const objectChangeOf = (detail: LineupEventDetail): ObjectChange => ({
  kind: detail.kind,
  name: detail.name,
  uid: detail.uid,
  resourceVersion: detail.resourceVersion,
  watchType: detail.watchType,
  ...(detail.observed !== undefined ? { observed: detail.observed } : {}),
});

/** changesOf: every object an event names, its own first, then `also` (newest first). */
export const changesOf = (detail: LineupEventDetail): ObjectChange[] => [objectChangeOf(detail), ...(detail.also ?? [])];

/** refOf: an object's identity within its JobSet. */
const refOf = (change: Pick<ObjectChange, 'kind' | 'name'>): string => `${change.kind}/${change.name}`;

/**
 * mergeDetails: `newer` with `older`'s objects folded into `also` — each object once, at its
 * newest change — or undefined when they cannot go as one event (another JobSet or cluster, or
 * more than MAX_OBJECTS_PER_EVENT objects). `seenAt` is the earliest: the journal's latency runs
 * from the first change the event stands for.
 *
 * @example
 * mergeDetails(driver0Ready, driver1Ready) // → driver-1's event, also: [driver-0 ready]
 */
export const mergeDetails = (older: LineupEventDetail, newer: LineupEventDetail): LineupEventDetail | undefined => {
  if (older.cluster !== newer.cluster || older.namespace !== newer.namespace || older.jobSet !== newer.jobSet) return undefined;
  // Each object at its newest change: by resourceVersion where both name one (a held change folded
  // in later may be newer than what the event already names), else the newer event's.
  const newest = new Map<string, ObjectChange>();
  for (const change of [...changesOf(newer), ...changesOf(older)]) {
    const ref = refOf(change);
    const kept = newest.get(ref);
    if (kept === undefined || isNewerVersion(change.resourceVersion, kept.resourceVersion)) newest.set(ref, change);
  }
  if (newest.size > MAX_OBJECTS_PER_EVENT) return undefined;
  const [own = objectChangeOf(newer), ...also] = [...newest.values()];
  const seenAt = older.seenAt === undefined ? newer.seenAt : newer.seenAt === undefined ? older.seenAt : Math.min(older.seenAt, newer.seenAt);
  const { also: _ownAlso, seenAt: _ownSeenAt, observed: _ownObserved, ...rest } = newer;
  return {
    ...rest,
    kind: own.kind,
    name: own.name,
    uid: own.uid,
    resourceVersion: own.resourceVersion,
    watchType: own.watchType,
    ...(own.observed !== undefined ? { observed: own.observed } : {}),
    ...(seenAt !== undefined ? { seenAt } : {}),
    ...(also.length > 0 ? { also } : {}),
  };
};

/**
 * isNewerVersion: `candidate` is a later resourceVersion of the same object than `kept`. The API
 * server calls them opaque, but one object's versions on one watch stream are etcd revisions that
 * only grow; anything else (a Sync's, an empty one) keeps what is kept.
 */
const isNewerVersion = (candidate: string, kept: string): boolean => {
  if (!/^\d+$/.test(candidate) || !/^\d+$/.test(kept)) return false;
  return BigInt(candidate) > BigInt(kept);
};

/**
 * mergeEntries: the batcher's merge of two waiting PutEvents entries of one JobSet (the forwarder's
 * own, so their details parse), or undefined when they must go apart: mergeDetails refuses, or
 * the merged entry would pass MAX_MERGED_ENTRY_BYTES. The newer entry's detail-type is kept.
 */
export const mergeEntries = (waiting: PutEventsEntry, incoming: PutEventsEntry): PutEventsEntry | undefined => {
  const merged = mergeDetails(LineupEventDetailSchema.parse(JSON.parse(waiting.Detail)), LineupEventDetailSchema.parse(JSON.parse(incoming.Detail)));
  if (merged === undefined) return undefined;
  const entry: PutEventsEntry = { ...incoming, Detail: JSON.stringify(merged) };
  return entrySize(entry) > MAX_MERGED_ENTRY_BYTES ? undefined : entry;
};
