/**
 * The reconciler's core loop (DESIGN §2): an event is a hint that a JobSet may have changed.
 * Bump the JobSet's dirty counter; whoever wins its lease loops read → plan → execute until the
 * counter it reconciled is the stored one, then releases. Bursts collapse into few passes; a
 * crashed holder's lease expires and the resync picks the JobSet up.
 */
import { randomUUID } from 'node:crypto';
import { ConditionType } from '../constants.ts';
import { CounterName, type Counters } from '../counters.ts';
import { ErrorCode, LineupError } from '../errors.ts';
import { clusterOfSource, type LineupEventDetail } from '../events/schema.ts';
import type { Log } from '../log.ts';
import { conditionIsTrue } from '../plan/conditions.ts';
import { plan as planPass } from '../plan/planner.ts';
import type { Observed, Plan, PlanOptions } from '../plan/types.ts';
import type { CheckpointStore, JobSetKey, JournalEntry, JournalEvent, JournalTimings } from '../store/types.ts';
import { executePlan } from './execute.ts';
import { journalEntryOf, type InputsMemory } from './journal.ts';
import type { ClusterGateway, ClusterResolver } from './types.ts';

/** Conflicts (stale resourceVersion) re-planned within one pass loop before giving up to the resync. */
const MAX_CONFLICT_RETRIES = 5;
/** Passes one invocation runs for one JobSet before handing the rest to the resync. */
export const DEFAULT_MAX_PASSES = 25;
/** How long a lease lasts without renewal. */
export const DEFAULT_LEASE_TTL_MS = 60_000;

/** ReconcileDeps: what the loop talks to, created once per host. */
export interface ReconcileDeps {
  readonly store: CheckpointStore;
  readonly resolveCluster: ClusterResolver;
  readonly planOptions: PlanOptions;
  /**
   * Identity of this host (Lambda log stream, process). Each handled event leases under
   * `<owner>/<random>`: records of one batch run concurrently in one host, and two of them
   * must never both believe they hold a JobSet's lease.
   */
  readonly owner: string;
  readonly now: () => number;
  readonly counters: Counters;
  readonly log: Log;
  /** Apply the actions of events replayed from the archive (default: evaluate and record only). */
  readonly applyReplays?: boolean | undefined;
  readonly leaseTtlMs?: number | undefined;
  readonly maxPasses?: number | undefined;
  /** Called after every pass, for live timelines. */
  readonly onPass?: ((key: JobSetKey, plan: Plan, entry: JournalEntry) => void) | undefined;
  /** The last inputs digest per JobSet, so unchanged inputs are referenced, not stored again (absent: always stored). */
  readonly inputsMemory?: InputsMemory | undefined;
}

/** The event as the loop needs it. */
export interface IncomingEvent {
  readonly source: string;
  readonly detail: LineupEventDetail;
  readonly replayName?: string | undefined;
  /** EventBridge's event id, detail-type and time (ISO 8601), when the event came through the bus. */
  readonly id?: string | undefined;
  readonly detailType?: string | undefined;
  readonly time?: string | undefined;
}

/** What became of one event. */
export type EventOutcome =
  | 'reconciled'
  /** Another reconciler holds the lease; it will see the bumped counter. */
  | 'deferred'
  /** A replayed event: evaluated and recorded, nothing applied. */
  | 'replay-recorded'
  /** The JobSet no longer exists. */
  | 'gone'
  /** The event's source does not match its cluster, or the cluster is unknown: logged and dropped. */
  | 'dropped'
  /** The pass budget ran out with the JobSet still dirty; the resync continues. */
  | 'handed-to-resync';

/** journalEventOf: the event as the journal keeps it. */
export const journalEventOf = (event: IncomingEvent): JournalEvent => {
  const time = event.time === undefined ? Number.NaN : Date.parse(event.time);
  return {
    ...(event.id !== undefined ? { id: event.id } : {}),
    detailType: event.detailType ?? '',
    kind: event.detail.kind,
    name: event.detail.name,
    resourceVersion: event.detail.resourceVersion,
    watchType: event.detail.watchType,
    ...(Number.isNaN(time) ? {} : { time }),
    ...(event.replayName !== undefined ? { replayName: event.replayName } : {}),
  };
};

/** Arrival: the triggering event of the first pass and when it was received; later passes of a loop have none. */
interface Arrival {
  triggers: readonly JournalEvent[];
  readonly seenAt: number | undefined;
  readonly eventAt: number | undefined;
  readonly receivedAt: number;
}

/** timingsOf: the hops of a pass; the event's hops only for the pass it triggered. */
const timingsOf = (arrival: Arrival, passStartedAt: number, writesDoneAt: number): JournalTimings => {
  const first = arrival.triggers.length > 0;
  return {
    ...(first && arrival.seenAt !== undefined ? { seenAt: arrival.seenAt } : {}),
    ...(first && arrival.eventAt !== undefined ? { eventAt: arrival.eventAt } : {}),
    ...(first ? { receivedAt: arrival.receivedAt } : {}),
    passStartedAt,
    writesDoneAt,
  };
};

/** arrivalOf: what the journal keeps of the event a handler received at `receivedAt`. */
const arrivalOf = (event: IncomingEvent, receivedAt: number): Arrival => {
  const trigger = journalEventOf(event);
  return { triggers: [trigger], seenAt: event.detail.seenAt, eventAt: trigger.time, receivedAt };
};

/** isRetryableConflict: a stale read — re-observe and re-plan at once. */
const isRetryableConflict = (error: LineupError): boolean =>
  error.code === ErrorCode.STALE_RESOURCE_VERSION || error.code === ErrorCode.ALREADY_EXISTS;

/**
 * settledFinished: after this pass the JobSet is finished (Completed or Failed, as the pass wrote
 * or as observed) with nothing left to do on its own — no ttlSecondsAfterFinished (the pass that
 * finishes it may not yet have planned the TTL), no deletion of it — so a full resync may leave it
 * be (lib/reconcile/resync.ts).
 */
export const settledFinished = (observed: Observed, plan: Plan): boolean => {
  let conditions = observed.jobSet.status?.conditions;
  for (const action of plan.actions) if (action.kind === 'UpdateJobSetStatus') conditions = action.status.conditions;
  const finished = conditionIsTrue(conditions, ConditionType.Completed) || conditionIsTrue(conditions, ConditionType.Failed);
  return (
    finished &&
    observed.jobSet.spec.ttlSecondsAfterFinished === undefined &&
    plan.requeueAfterMs === undefined &&
    !plan.actions.some((action) => action.kind === 'DeleteJobSet')
  );
};

/**
 * runPass: observe → plan → execute, re-observing after a conflict. Returns the plan (undefined
 * when the JobSet is gone) and whether it is settled finished, or throws the first error that is not a conflict.
 */
const runPass = async (gateway: ClusterGateway, key: JobSetKey, arrival: Arrival, deps: ReconcileDeps): Promise<{ plan: Plan; finished: boolean } | undefined> => {
  for (let conflicts = 0; ; conflicts += 1) {
    const now = deps.now();
    const observed = await gateway.observe(key.namespace, key.name, now);
    if (!observed) return undefined;
    const plan = planPass(observed, deps.planOptions);
    deps.counters.add(CounterName.Passes);
    const result = await executePlan(gateway, plan, now);
    const entry = journalEntryOf(
      {
        key,
        observed,
        planOptions: deps.planOptions,
        plan,
        applied: true,
        triggers: arrival.triggers,
        timings: timingsOf(arrival, now, deps.now()),
        ...(result.error ? { error: result.error.message } : {}),
      },
      deps.inputsMemory,
    );
    // The event triggered the first pass only; the loop's later passes follow the dirty counter.
    arrival.triggers = [];
    await deps.store.appendJournal(entry);
    deps.onPass?.(key, plan, entry);
    if (!result.error) return { plan, finished: settledFinished(observed, plan) };
    if (!isRetryableConflict(result.error) || conflicts >= MAX_CONFLICT_RETRIES) throw result.error;
    deps.log('info', 'conflict; re-reading and re-planning', { jobSet: `${key.namespace}/${key.name}`, error: result.error.message, action: result.failedAction?.kind });
  }
};

/** evaluateReplay: a replayed event is for looking, not acting (DESIGN §2 Replay). */
const evaluateReplay = async (gateway: ClusterGateway, key: JobSetKey, replayName: string, arrival: Arrival, deps: ReconcileDeps): Promise<EventOutcome> => {
  const now = deps.now();
  const observed = await gateway.observe(key.namespace, key.name, now);
  if (!observed) return 'gone';
  const plan = planPass(observed, deps.planOptions);
  const entry = journalEntryOf(
    { key, observed, planOptions: deps.planOptions, plan, applied: false, triggers: arrival.triggers, timings: timingsOf(arrival, now, deps.now()), replayName },
    deps.inputsMemory,
  );
  await deps.store.appendJournal(entry);
  deps.onPass?.(key, plan, entry);
  return 'replay-recorded';
};

/**
 * handleEvent: everything one event causes. Throws only for failures worth a retry of the
 * event (the store or the cluster failing); drops events that can never succeed after logging them.
 */
export const handleEvent = async (event: IncomingEvent, deps: ReconcileDeps): Promise<EventOutcome> => {
  deps.counters.add(CounterName.Invocations);
  const arrival = arrivalOf(event, deps.now());
  const { detail } = event;
  const fields = { cluster: detail.cluster, jobSet: `${detail.namespace}/${detail.jobSet}`, kind: detail.kind, name: detail.name };
  // A cluster's forwarder may only speak for itself (DESIGN §2 Many clusters).
  if (clusterOfSource(event.source) !== detail.cluster) {
    deps.log('warn', 'event dropped: its source does not match its cluster', { ...fields, source: event.source });
    return 'dropped';
  }
  const gateway = await deps.resolveCluster(detail.cluster);
  if (!gateway) {
    deps.log('warn', 'event dropped: cluster is not registered', fields);
    return 'dropped';
  }
  const key: JobSetKey = { cluster: detail.cluster, namespace: detail.namespace, name: detail.jobSet };
  if (event.replayName !== undefined && !deps.applyReplays) return evaluateReplay(gateway, key, event.replayName, arrival, deps);

  const ttl = deps.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const owner = `${deps.owner}/${randomUUID()}`;
  await deps.store.markDirty(key, deps.now());
  let lease = await deps.store.tryAcquireLease(key, owner, deps.now(), ttl);
  if (!lease) {
    deps.counters.add(CounterName.Deferred);
    return 'deferred';
  }
  try {
    for (let pass = 0; pass < (deps.maxPasses ?? DEFAULT_MAX_PASSES); pass += 1) {
      const target = lease.dirty;
      const result = await runPass(gateway, key, arrival, deps);
      // Gone: forget its state (decisions stay until their TTL); if the lease moved on, the new
      // holder decides.
      if (!result) {
        await deps.store.forgetJobSet(key, owner);
        return 'gone';
      }
      const wakeAt = result.plan.requeueAfterMs !== undefined ? deps.now() + result.plan.requeueAfterMs : undefined;
      const release = await deps.store.releaseLease(key, owner, target, deps.now(), ttl, wakeAt, result.finished);
      if (release.outcome === 'released') return 'reconciled';
      if (release.outcome === 'lost' || !release.lease) {
        deps.log('warn', 'lease lost during the pass loop; the new holder continues', fields);
        return 'reconciled';
      }
      lease = release.lease;
    }
    await deps.store.failLease(key, owner, 'pass budget exhausted while events kept arriving; resync continues', deps.now());
    return 'handed-to-resync';
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await deps.store.failLease(key, owner, message, deps.now());
    throw error;
  }
};
