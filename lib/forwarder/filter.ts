/**
 * The forwarder's filter: which watch events become Lineup events. Pure —
 * the caller keeps the state (what was last seen per object uid, and which JobSets are
 * Lineup's) and passes lookups in; the decision says what to remember.
 *
 * Forwarded is what a decision depends on: a Job's counts and conditions as the planner reads
 * them, its suspend flag and deletion, a JobSet's spec and deletion. The echo of Lineup's own
 * write to a child Job (it created, suspended or resumed it) is marked `ownWrite`, and a Job's
 * change that only the status counters report (pods started, the Suspended condition)
 * `statusOnly`: no gate depends on them, so the forwarder holds them back to fold them into the
 * JobSet's next change. Dropped are a managed JobSet's status writes (only Lineup writes them,
 * and the pass that did acts on them: OwnStatusWrite) and noise (timestamps, managedFields, pod
 * counts that do not move a gate).
 *
 * An event is a hint, so the filter errs towards forwarding: a duplicate costs one reconcile
 * pass that changes nothing, a missed change leaves a JobSet waiting for the resync.
 */
import { Label } from '../jobset/api.ts';
import { DetailType, eventSource, type LineupEvent, type LineupEventDetail } from '../events/schema.ts';
import { digestsOf, slimJob, slimJobSet } from '../events/slim.ts';
import type { Job, JobSet } from '../jobset/schema.ts';
import { isManagedByLineup } from '../jobset/managedBy.ts';
import type { PlanOptions } from '../plan/types.ts';
import { fieldLastWrittenByLineup, SUSPEND_FIELD, writtenByLineupAlone } from './ownWrites.ts';
import { jobProgressOf, type JobProgress } from './progress.ts';
import type { WatchEvent, WatchedKind } from './types.ts';

/** DropReason: why a watch event was not forwarded. */
export const DropReason = {
  /** Nothing a decision depends on changed since the last forwarded event (timestamps, managedFields, pod template noise). */
  Unchanged: 'Unchanged',
  /** The JobSet is not Lineup's (isManagedByLineup is false). */
  NotManaged: 'NotManaged',
  /** The Job belongs to a JobSet the forwarder knows is not Lineup's. */
  JobSetNotManaged: 'JobSetNotManaged',
  /** The Job carries no jobset-name label, so no JobSet to name in the event. */
  NoJobSet: 'NoJobSet',
  /** The object has no name or namespace; the API server never sends one, so it is not a real object. */
  Unnamed: 'Unnamed',
  /**
   * A JobSet's change in nothing but its status: only Lineup writes a managed JobSet's status,
   * and the pass that wrote it goes on to act on it (and its answer is the pass's snapshot).
   */
  OwnStatusWrite: 'OwnStatusWrite',
} as const;
export type DropReasonName = (typeof DropReason)[keyof typeof DropReason];

/** ObservedChange: a watch change event together with the kind of its object. */
export type ObservedChange =
  | { readonly kind: 'JobSet'; readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: JobSet }
  | { readonly kind: 'Job'; readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: Job };

/** SeenObject: what the forwarder remembers per object uid — enough to name it in an event after it vanished. */
export interface SeenObject {
  readonly kind: WatchedKind;
  readonly digest: string;
  /** The digest without the fields only Lineup writes (othersDigest): equal across Lineup's own suspend/resume of a Job. */
  readonly othersDigest: string;
  /** The digest of what a decision reads (decisionDigest): equal across a change only the status counters report. */
  readonly decisionDigest: string;
  readonly namespace: string;
  readonly name: string;
  /** The JobSet the object is or belongs to. */
  readonly jobSet: string;
  /** The JobSet's uid when known (a JobSet's own, a Job's jobset-uid label or owner reference). */
  readonly jobSetUid?: string | undefined;
  /** A Job's progress (lib/forwarder/progress.ts): what the forwarder counts per replicatedJob. */
  readonly progress?: JobProgress | undefined;
}

/** FilterContext: the lookups the filter needs into the caller's state. */
export interface FilterContext {
  readonly cluster: string;
  readonly planOptions: PlanOptions;
  /** lastSeen: what was last forwarded (or seeded by a list) of an object uid; undefined when first seen. */
  readonly lastSeen: (uid: string) => SeenObject | undefined;
  /** jobSetManaged: whether JobSet namespace/name is Lineup's; undefined while it has not been listed or watched. */
  readonly jobSetManaged: (namespace: string, name: string) => boolean | undefined;
  /** progressWaits: whether a Job's change from `last` to `seen` is a step of progress no decision waits for (progress.ts); false when not given. */
  readonly progressWaits?: ((seen: SeenObject, last: SeenObject) => boolean) | undefined;
}

/** FilterDecision: forward (with the event and what to remember) or drop (with why). */
export type FilterDecision =
  | {
      readonly forward: true;
      readonly uid: string;
      readonly seen: SeenObject;
      readonly event: LineupEvent;
      /** The echo of Lineup's own write to a child Job (created, suspended or resumed by it): may wait for the JobSet's next change. */
      readonly ownWrite: boolean;
      /**
       * A Job's change only the status counters report (decisionDigest equal: pods started, the
       * Suspended condition), or a step of progress no decision waits for (one Job of several
       * turning ready or complete): may wait likewise.
       */
      readonly statusOnly: boolean;
    }
  | { readonly forward: false; readonly uid?: string | undefined; readonly reason: DropReasonName; readonly seen?: SeenObject | undefined };

/** changeOf: a watch event of `kind` as an ObservedChange, or undefined for a BOOKMARK. */
export const changeOf = <K extends WatchedKind>(kind: K, event: WatchEvent<K>): ObservedChange | undefined => {
  if (event.type === 'BOOKMARK') return undefined;
  // WatchedObject<K> is a conditional type TypeScript cannot narrow through `kind`; the
  // WatchSource contract guarantees a watch of `kind` yields objects of that kind.
  return { kind, type: event.type, object: event.object } as ObservedChange;
};

/** objectUid: the uid the filter keys digests by; the API server always sets one, the fallback keeps hand-made objects apart. */
export const objectUid = (object: JobSet | Job): string =>
  object.metadata.uid ?? `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;

/** ownerJobSetOf: the JobSet a child Job names in its jobset-name label (and the JobSet's uid when the Job carries it). */
export const ownerJobSetOf = (job: Job): { readonly name: string; readonly uid?: string | undefined } | undefined => {
  const name = job.metadata.labels?.[Label.JobSetName];
  if (name === undefined || name === '') return undefined;
  const uid = job.metadata.labels?.[Label.JobSetUid] ?? job.metadata.ownerReferences?.find((ref) => ref.kind === 'JobSet' && ref.name === name)?.uid;
  return { name, uid };
};

/** seenOf: what to remember about a JobSet or Job; undefined when it cannot be named (no name, namespace or JobSet). */
export const seenOf = (change: ObservedChange): SeenObject | undefined => {
  const { namespace, name } = change.object.metadata;
  if (namespace === undefined || namespace === '' || name === undefined || name === '') return undefined;
  if (change.kind === 'JobSet') {
    return { kind: 'JobSet', ...digestsOf(slimJobSet(change.object)), namespace, name, jobSet: name, jobSetUid: change.object.metadata.uid };
  }
  const owner = ownerJobSetOf(change.object);
  if (owner === undefined) return undefined;
  const slim = slimJob(change.object);
  return { kind: 'Job', ...digestsOf(slim), namespace, name, jobSet: owner.name, jobSetUid: owner.uid, progress: jobProgressOf(slim) };
};

/** changedDetailType: the detail-type of a change to an object of `kind`. */
const changedDetailType: Record<WatchedKind, LineupEvent['detailType']> = {
  JobSet: DetailType.JobSetChanged,
  Job: DetailType.JobChanged,
};

/** changeEvent: the Lineup event for one forwarded change. */
const changeEvent = (change: ObservedChange, seen: SeenObject, cluster: string): LineupEvent => {
  const detail: LineupEventDetail = {
    cluster,
    namespace: seen.namespace,
    jobSet: seen.jobSet,
    kind: change.kind,
    name: seen.name,
    uid: objectUid(change.object),
    resourceVersion: change.object.metadata.resourceVersion ?? '',
    watchType: change.type,
    observed: change.kind === 'JobSet' ? slimJobSet(change.object) : slimJob(change.object),
  };
  return { source: eventSource(cluster), detailType: changedDetailType[change.kind], detail };
};

/** isNewOrChanged: ADDED, DELETED, first seen, or a slim projection other than the last one seen. */
const isNewOrChanged = (type: ObservedChange['type'], digest: string, last: string | undefined): boolean =>
  type !== 'MODIFIED' || last === undefined || last !== digest;

/**
 * isOwnJobWrite: the echo of Lineup's own write to a child Job — its creation (ADDED, every
 * managedFields entry Lineup's), or a change in nothing but spec.suspend, last written by
 * Lineup. A Job whose last state is unknown is not: what changed cannot be told.
 */
const isOwnJobWrite = (change: ObservedChange, seen: SeenObject, last: SeenObject | undefined): boolean => {
  if (change.kind !== 'Job') return false;
  const metadata = change.object.metadata;
  if (change.type === 'ADDED') return last === undefined && writtenByLineupAlone(metadata);
  if (change.type !== 'MODIFIED' || last === undefined) return false;
  return last.othersDigest === seen.othersDigest && fieldLastWrittenByLineup(metadata, SUSPEND_FIELD);
};

/**
 * filterEvent: forward or drop one watch change.
 *
 * @example
 * const decision = filterEvent(change, { cluster: 'dev', planOptions, lastSeen: (uid) => seen.get(uid), jobSetManaged });
 * if (decision.forward) { seen.set(decision.uid, decision.seen); batcher.add(toPutEventsEntry(decision.event)); }
 */
export const filterEvent = (change: ObservedChange, context: FilterContext): FilterDecision => {
  const uid = objectUid(change.object);
  if (change.kind === 'JobSet' && !isManagedByLineup(change.object, context.planOptions)) {
    return { forward: false, uid, reason: DropReason.NotManaged };
  }
  const { namespace, name } = change.object.metadata;
  if (namespace === undefined || namespace === '' || name === undefined || name === '') {
    return { forward: false, uid, reason: DropReason.Unnamed };
  }
  // Named, so only a Job without the jobset-name label is left unseen.
  const seen = seenOf(change);
  if (seen === undefined) return { forward: false, uid, reason: DropReason.NoJobSet };
  // A Job event can arrive before its JobSet was listed (the two watches run independently):
  // only a JobSet known to be someone else's drops its Jobs. An unknown one is forwarded, and
  // the reconciler reads the JobSet and drops events for JobSets that are not Lineup's anyway.
  if (change.kind === 'Job' && context.jobSetManaged(seen.namespace, seen.jobSet) === false) {
    return { forward: false, uid, reason: DropReason.JobSetNotManaged };
  }
  const last = context.lastSeen(uid);
  if (!isNewOrChanged(change.type, seen.digest, last?.digest)) {
    return { forward: false, uid, reason: DropReason.Unchanged };
  }
  const sameDecision = change.type === 'MODIFIED' && last !== undefined && last.decisionDigest === seen.decisionDigest;
  if (change.kind === 'JobSet' && sameDecision) return { forward: false, uid, reason: DropReason.OwnStatusWrite, seen };
  const progressOnly = change.kind === 'Job' && !sameDecision && change.type === 'MODIFIED' && last !== undefined && context.progressWaits?.(seen, last) === true;
  return { forward: true, uid, seen, event: changeEvent(change, seen, context.cluster), ownWrite: isOwnJobWrite(change, seen, last), statusOnly: change.kind === 'Job' && (sameDecision || progressOnly) };
};

/** syncEvent: the `JobSet Sync` event for a listed JobSet — "reconcile it whatever happened". */
export const syncEvent = (jobSet: JobSet, cluster: string): LineupEvent => ({
  source: eventSource(cluster),
  detailType: DetailType.JobSetSync,
  detail: {
    cluster,
    namespace: jobSet.metadata.namespace ?? '',
    jobSet: jobSet.metadata.name ?? '',
    kind: 'JobSet',
    name: jobSet.metadata.name ?? '',
    uid: objectUid(jobSet),
    resourceVersion: jobSet.metadata.resourceVersion ?? '',
    watchType: 'SYNC',
    observed: slimJobSet(jobSet),
  },
});

/**
 * syncEventFor: the `JobSet Sync` event for a JobSet known only by name — the owner of Jobs
 * that changed while no watch was running. It carries no observed projection (the JobSet
 * object was not read); the reconciler reads the live JobSet in any case.
 */
export const syncEventFor = (
  jobSet: { readonly namespace: string; readonly name: string; readonly uid?: string | undefined },
  resourceVersion: string,
  cluster: string,
): LineupEvent => ({
  source: eventSource(cluster),
  detailType: DetailType.JobSetSync,
  detail: {
    cluster,
    namespace: jobSet.namespace,
    jobSet: jobSet.name,
    kind: 'JobSet',
    name: jobSet.name,
    uid: jobSet.uid ?? '',
    resourceVersion,
    watchType: 'SYNC',
  },
});

/**
 * vanishedEvent: a DELETED change event for a remembered object missing from a re-list — its
 * deletion happened while the watch was down. The object is gone, so no observed projection.
 */
export const vanishedEvent = (uid: string, seen: SeenObject, resourceVersion: string, cluster: string): LineupEvent => ({
  source: eventSource(cluster),
  detailType: changedDetailType[seen.kind],
  detail: {
    cluster,
    namespace: seen.namespace,
    jobSet: seen.jobSet,
    kind: seen.kind,
    name: seen.name,
    uid,
    resourceVersion,
    watchType: 'DELETED',
  },
});
