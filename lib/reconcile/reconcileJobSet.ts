/**
 * The reconciler's core loop: an event is a hint that a JobSet may have changed.
 * Bump the JobSet's dirty counter; whoever wins its lease loops read → plan → execute until the
 * counter it reconciled is the stored one, then releases. Bursts collapse into few passes; a
 * crashed holder's lease expires and the resync picks the JobSet up.
 */
import { randomUUID } from 'node:crypto';
import { ConditionType } from '../jobset/api.ts';
import { CounterName, type Counters } from '../counters.ts';
import { ErrorCode, LineupError } from '../errors.ts';
import { changesOf } from '../events/merge.ts';
import { clusterOfSource, type LineupEventDetail } from '../events/schema.ts';
import type { Log } from '../log.ts';
import { conditionIsTrue } from '../plan/conditions.ts';
import { plan as planPass } from '../plan/planner.ts';
import type { Observed, Plan, PlanOptions } from '../plan/types.ts';
import type { HeldLease, JobSetKey, JournalEntry, JournalEvent, JournalStore, JournalTimings, LeaseStore, LoopRelease } from '../store/types.ts';
import { trimPending } from '../store/rules.ts';
import { executePlan, type ExecutionResult } from './execute.ts';
import type { InputsMemory } from './inputsMemory.ts';
import { inputsDigest, journalEntryOf, journalInputsOf } from './journal.ts';
import { afterWrites, changedSince, CREATE_ACTIONS, freshSince, knownOf, nothingChanged } from './snapshot.ts';
import type { ClusterGateway, ClusterResolver, ObserveSince } from './types.ts';

/** Conflicts (stale resourceVersion) re-planned within one pass loop before giving up to the resync. */
const MAX_CONFLICT_RETRIES = 5;
/** Passes one invocation runs for one JobSet before handing the rest to the resync. */
export const DEFAULT_MAX_PASSES = 25;
/** How long a lease lasts without renewal. */
export const DEFAULT_LEASE_TTL_MS = 60_000;
/**
 * LAMBDA_LOOP_BUDGET_MS: in the reconciler Lambda (its timeout is one lease TTL, infra/sizing.ts),
 * a pass loop starts no pass later than this after its event arrived. A pass creates at most
 * MAX_CREATES_PER_PASS Jobs, about 10 s of writes against a slow API server, so a pass started
 * by then ends well before the timeout; a JobSet with more to do is handed to the resync (within
 * resyncMinutes) instead of the runtime killing the invocation, which would fail every record
 * of its batch and leave the lease to expire.
 */
export const LAMBDA_LOOP_BUDGET_MS = DEFAULT_LEASE_TTL_MS / 2;

/** ReconcilerStore: the roles of the store a pass loop uses: the lease, and the journal it appends to. */
export type ReconcilerStore = LeaseStore & Pick<JournalStore, 'appendJournal'>;

/** ReconcileDeps: what the loop talks to, created once per host. */
export interface ReconcileDeps {
  readonly store: ReconcilerStore;
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
  /** Milliseconds after the event arrived (by `now`) past which the loop starts no pass but hands the JobSet to the resync. @default none: only maxPasses bounds a loop */
  readonly loopBudgetMs?: number | undefined;
  /** Called after every pass that wrote (the ones journaled), for live timelines. */
  readonly onPass?: ((key: JobSetKey, plan: Plan, entry: JournalEntry) => void) | undefined;
  /** The observed state each JobSet's last pass loop left in this process (absent: every loop reads everything). */
  readonly inputsMemory?: InputsMemory | undefined;
  /**
   * Keep containers' environment values in journal entries' inputs (lib/reconcile/redact.ts);
   * default: redacted, the journal keeping only what replay needs.
   */
  readonly journalKeepEnv?: boolean | undefined;
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
  /** The state item already knew the event's object at its resourceVersion: nothing to do. */
  | 'echo'
  /** A replayed event: evaluated and recorded, nothing applied. */
  | 'replay-recorded'
  /** The JobSet no longer exists. */
  | 'gone'
  /** The event's source does not match its cluster, or the cluster is unknown: logged and dropped. */
  | 'dropped'
  /** The pass budget ran out with the JobSet still dirty; the resync continues. */
  | 'handed-to-resync';

/**
 * journalEventsOf: the event as the journal keeps it — one trigger per object it names (its own
 * first, then `also`: the forwarder folds a JobSet's changes in a window into one event), each
 * with the event's id, detail-type and time.
 */
export const journalEventsOf = (event: IncomingEvent): JournalEvent[] => {
  const time = event.time === undefined ? Number.NaN : Date.parse(event.time);
  return changesOf(event.detail).map((change) => ({
    ...(event.id !== undefined ? { id: event.id } : {}),
    detailType: event.detailType ?? '',
    kind: change.kind,
    name: change.name,
    resourceVersion: change.resourceVersion,
    watchType: change.watchType,
    ...(Number.isNaN(time) ? {} : { time }),
    ...(event.replayName !== undefined ? { replayName: event.replayName } : {}),
  }));
};

/** Triggers of passes that changed nothing, carried on the state item to the JobSet's next journal entry. */
export const MAX_CARRIED_TRIGGERS = 8;

/**
 * MAX_ERROR_CHARS: most characters of an error message a journal entry and a state item keep (an
 * API server's message, an admission webhook's among them, has no bound of its own).
 */
export const MAX_ERROR_CHARS = 2_048;

/** boundedError: `message` within MAX_ERROR_CHARS, cut with an ellipsis. */
export const boundedError = (message: string): string => (message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS - 1)}…` : message);

/** Arrival: the handled event as the journal keeps it (a trigger per object it names), and when it was received. */
interface Arrival {
  readonly triggers: readonly JournalEvent[];
  readonly seenAt: number | undefined;
  readonly eventAt: number | undefined;
  readonly receivedAt: number;
}

/** arrivalOf: what the journal keeps of the event a handler received at `receivedAt`. */
const arrivalOf = (event: IncomingEvent, receivedAt: number): Arrival => {
  const triggers = journalEventsOf(event);
  return { triggers, seenAt: event.detail.seenAt, eventAt: triggers[0]?.time, receivedAt };
};

/** sameTrigger: two notes of one object of one delivery of one event. */
const sameTrigger = (a: JournalEvent, b: JournalEvent): boolean =>
  a.kind === b.kind &&
  a.name === b.name &&
  (a.id !== undefined || b.id !== undefined ? a.id === b.id : a.resourceVersion === b.resourceVersion && a.watchType === b.watchType);

/** isArrival: a trigger of the handled event. */
const isArrival = (arrival: Arrival, trigger: JournalEvent): boolean => arrival.triggers.some((own) => sameTrigger(own, trigger));

/** Loop: what one pass loop knows between its passes. */
interface Loop {
  /** The observed state after the last pass (its writes applied); undefined when a write's outcome is unknown. */
  snapshot: Observed | undefined;
  /** The planner found nothing to do on `snapshot`. */
  settled: boolean;
  /** Triggers no journal entry has taken yet, the handled event's first while it is among them. */
  untaken: JournalEvent[];
  /**
   * The lease's pending list as the loop last took it in, matched by identity (sameTrigger) with
   * the next one: the store may rewrite the list in place (coalescing, trimming:
   * lib/store/rules.ts trimPending), so a count of those seen would skip new ones.
   */
  taken: JournalEvent[];
  /** The lease's pendingDropped the loop has answered with a full read. */
  dropped: number;
  /** inputsDigest of the JobSet's last journal entry. */
  inputsDigest: string | undefined;
  /** When the JobSet wants a pass without events (the last plan's requeueAfterMs). */
  wakeAt: number | undefined;
  /** The last pass left the JobSet settled finished (settledFinished), so a full resync may skip it. */
  finished: boolean;
  /** The planner has more to do on the last pass's answers: the next pass runs at once, reading nothing. */
  moreToDo: boolean;
}

/**
 * takeIn: the lease's pending triggers the loop has not taken in yet, added to the untaken ones,
 * and whether the store dropped triggers since the loop last looked (then no trigger list says
 * what changed); returns them.
 */
const takeIn = (loop: Loop, lease: HeldLease): { fresh: JournalEvent[]; overflowed: boolean } => {
  // Each trigger taken before stands for one equal trigger of the list (a redelivered event is
  // queued twice: its second note is new).
  const unmatched = [...loop.taken];
  const fresh = lease.pending.filter((trigger) => {
    const index = unmatched.findIndex((taken) => sameTrigger(taken, trigger));
    if (index >= 0) unmatched.splice(index, 1);
    return index < 0;
  });
  loop.taken = [...lease.pending];
  for (const trigger of fresh) if (!loop.untaken.some((taken) => sameTrigger(taken, trigger))) loop.untaken.push(trigger);
  // The next entry names them: as many as a state item's pending list, each object's newest.
  loop.untaken = trimPending(loop.untaken).pending;
  const dropped = lease.pendingDropped ?? 0;
  const overflowed = dropped > loop.dropped;
  loop.dropped = dropped;
  return { fresh, overflowed };
};

/**
 * isFirstEver: the JobSet's first pass ever — woken by its creation, with nothing on its state
 * item from an earlier pass (no snapshot token, no journaled inputs) — which may assume it has no
 * Jobs and no Service yet and read only the JobSet (freshSince).
 */
const isFirstEver = (lease: HeldLease, triggers: readonly JournalEvent[]): boolean =>
  lease.checkpoint.snapshot === undefined &&
  lease.checkpoint.inputsDigest === undefined &&
  triggers.length > 0 &&
  triggers.every((trigger) => trigger.watchType !== 'SYNC') &&
  triggers.some((trigger) => trigger.kind === 'JobSet' && trigger.watchType === 'ADDED');

/** timingsOf: the hops of a pass; the handled event's hops only for the entry that takes its trigger. */
const timingsOf = (arrival: Arrival, triggers: readonly JournalEvent[], passStartedAt: number, writesDoneAt: number): JournalTimings => {
  const own = triggers.some((trigger) => isArrival(arrival, trigger));
  return {
    ...(own && arrival.seenAt !== undefined ? { seenAt: arrival.seenAt } : {}),
    ...(own && arrival.eventAt !== undefined ? { eventAt: arrival.eventAt } : {}),
    ...(own ? { receivedAt: arrival.receivedAt } : {}),
    passStartedAt,
    writesDoneAt,
  };
};

/**
 * isRetryableConflict: a stale read — re-observe and re-plan at once. NOT_FOUND too: the object
 * written was deleted since the pass read it (a JobSet deleted mid-pass: the re-read finds it gone).
 */
const isRetryableConflict = (error: LineupError): boolean =>
  error.code === ErrorCode.STALE_RESOURCE_VERSION || error.code === ErrorCode.ALREADY_EXISTS || error.code === ErrorCode.NOT_FOUND;

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
 * changedFromOutside: the JobSet's spec (suspend included) or its deletion differs from what the
 * loop last saw — a person's doing, which a pass journals even when it changes nothing, so that
 * `lineup history` shows it and `replay --perturb` can re-enact it. A loop that starts from nothing
 * cannot compare: it journals when an event about the JobSet itself woke it (the forwarder sends
 * those for a spec, suspend, deletion, restart or terminal change only, so they are few).
 */
const changedFromOutside = (before: Observed | undefined, now: Observed, triggers: readonly JournalEvent[]): boolean =>
  before === undefined
    ? triggers.some((trigger) => trigger.kind === 'JobSet' && trigger.watchType !== 'SYNC')
    : before.jobSet.metadata.deletionTimestamp !== now.jobSet.metadata.deletionTimestamp || JSON.stringify(before.jobSet.spec) !== JSON.stringify(now.jobSet.spec);

/**
 * showsOutcome: a pass that changes nothing is journaled only to show how the JobSet ended — the
 * first one to see it finished (its inputs differ from the last entry's) — since every entry's
 * inputs are what a pass saw before its writes.
 */
const showsOutcome = (observed: Observed, lastDigest: string | undefined, keepEnv: boolean): boolean => {
  const status = observed.jobSet.status;
  const finished = status?.terminalState !== undefined || (status?.conditions ?? []).some((c) => (c.type === ConditionType.Completed || c.type === ConditionType.Failed) && c.status === 'True');
  return finished && inputsDigest(journalInputsOf(observed, keepEnv)) !== lastDigest;
};

/**
 * runPass: observe (only what changed since `since`, when given) → plan → execute, reading
 * everything again after a conflict. A plan with no actions writes nothing and, but for the one
 * that shows how the JobSet ended, no journal entry: the loop is settled on what it observed. A
 * plan with actions is journaled with the triggers not yet taken, and leaves the observed state
 * with its writes applied. Returns false when the JobSet is gone; throws the first error that is
 * not a conflict.
 */
const runPass = async (gateway: ClusterGateway, key: JobSetKey, since: ObserveSince | 'fresh' | undefined, loop: Loop, arrival: Arrival, deps: ReconcileDeps): Promise<boolean> => {
  let reading = since;
  for (let conflicts = 0; ; conflicts += 1) {
    const now = deps.now();
    const observed = await gateway.observe(key.namespace, key.name, now, reading === 'fresh' ? freshSince(key.namespace, key.name, now) : reading);
    if (!observed) return false;
    const plan = planPass(observed, deps.planOptions);
    deps.counters.add(CounterName.Passes);
    // A first pass on the assumption of no children stands only if its first write creates one.
    if (reading === 'fresh' && !CREATE_ACTIONS.has(plan.actions[0]?.kind ?? '')) {
      reading = undefined;
      continue;
    }
    loop.wakeAt = plan.requeueAfterMs !== undefined ? now + plan.requeueAfterMs : undefined;
    loop.finished = settledFinished(observed, plan);
    if (plan.actions.length === 0) {
      const before = loop.snapshot;
      loop.snapshot = observed;
      loop.settled = true;
      if (!showsOutcome(observed, loop.inputsDigest, deps.journalKeepEnv === true) && !changedFromOutside(before, observed, loop.untaken)) return true;
    }
    const result: ExecutionResult = plan.actions.length === 0 ? { applied: 0, written: [], eventsSkipped: 0 } : await executePlan(gateway, plan, observed, now);
    const triggers = loop.untaken;
    const entry = journalEntryOf(
      {
        key,
        observed,
        planOptions: deps.planOptions,
        keepEnv: deps.journalKeepEnv,
        plan,
        applied: true,
        triggers,
        timings: timingsOf(arrival, triggers, now, deps.now()),
        ...(result.error ? { error: boundedError(result.error.message) } : {}),
      },
      loop.inputsDigest,
      deps.inputsMemory,
    );
    loop.untaken = [];
    loop.inputsDigest = entry.inputsDigest;
    if (plan.actions.length > 0) {
      loop.snapshot = result.error ? undefined : afterWrites(observed, result.written);
      // Plan again on the writes' answers (pure, no read): settled when that finds nothing to do —
      // their echoes then name nothing new (and the item knows them) and cost no pass — else the
      // loop runs that pass at once (a finished JobSet deleting what still runs, a restart
      // deleting the previous attempt), without waiting for an event: the forwarder does not
      // send the echo of a status write.
      const next = loop.snapshot === undefined ? undefined : planPass(loop.snapshot, deps.planOptions);
      loop.settled = next !== undefined && next.actions.length === 0;
      loop.moreToDo = next !== undefined && next.actions.length > 0;
      if (next?.requeueAfterMs !== undefined) loop.wakeAt = now + next.requeueAfterMs;
    }
    await recordPass(key, plan, entry, deps);
    if (!result.error) return true;
    if (!isRetryableConflict(result.error) || conflicts >= MAX_CONFLICT_RETRIES) throw result.error;
    deps.log('info', 'conflict; re-reading and re-planning', { jobSet: `${key.namespace}/${key.name}`, error: result.error.message, action: result.failedAction?.kind });
    reading = undefined;
  }
};

/**
 * recordPass: the pass's journal entry appended; once it is written (never before: an entry that
 * failed to be written must be no base of a delta), the entry the next one of this process may
 * build on; then the host's onPass sees it.
 */
const recordPass = async (key: JobSetKey, plan: Plan, entry: JournalEntry, deps: ReconcileDeps): Promise<void> => {
  await deps.store.appendJournal(entry);
  deps.inputsMemory?.entryWritten(entry);
  deps.onPass?.(key, plan, entry);
};

/** evaluateReplay: a replayed event is for looking, not acting. */
const evaluateReplay = async (gateway: ClusterGateway, key: JobSetKey, replayName: string, arrival: Arrival, deps: ReconcileDeps): Promise<EventOutcome> => {
  const now = deps.now();
  const observed = await gateway.observe(key.namespace, key.name, now);
  if (!observed) return 'gone';
  const plan = planPass(observed, deps.planOptions);
  const triggers = arrival.triggers;
  const entry = journalEntryOf(
    { key, observed, planOptions: deps.planOptions, plan, applied: false, triggers, timings: timingsOf(arrival, triggers, now, deps.now()), replayName, keepEnv: deps.journalKeepEnv },
    undefined,
  );
  await recordPass(key, plan, entry, deps);
  return 'replay-recorded';
};

/**
 * releaseOf: what a loop leaves on the state item: the triggers no entry took (Syncs aside: they
 * name no object), the token of the snapshot kept in this process, and — when the planner is
 * settled on it — its objects' versions, so their echoes are dropped.
 */
const releaseOf = (key: JobSetKey, loop: Loop, lease: HeldLease, deps: ReconcileDeps): LoopRelease => {
  const settled = loop.settled ? loop.snapshot : undefined;
  const carry = loop.untaken.filter((trigger) => trigger.watchType !== 'SYNC').slice(-MAX_CARRIED_TRIGGERS);
  const known = settled === undefined ? undefined : knownOf(settled);
  const snapshot = loop.snapshot === undefined ? undefined : deps.inputsMemory?.keep(key, { observed: loop.snapshot, wakeAt: loop.wakeAt, settled: loop.settled });
  return {
    ...(carry.length > 0 ? { carry } : {}),
    ...(loop.finished ? { finished: true } : {}),
    ...(known !== undefined ? { known } : {}),
    ...(snapshot !== undefined ? { snapshot } : {}),
    ...(loop.inputsDigest !== undefined && loop.inputsDigest !== lease.checkpoint.inputsDigest ? { inputsDigest: loop.inputsDigest } : {}),
  };
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
  // A cluster's forwarder may only speak for itself.
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
  const note = await deps.store.noteEvent(key, { triggers: arrival.triggers, owner, now: deps.now(), ttlMs: ttl });
  if (note.outcome === 'echo') {
    deps.counters.add(CounterName.Echoes);
    return 'echo';
  }
  if (note.trimmed !== undefined) {
    if (note.trimmed.coalesced > 0) deps.counters.add(CounterName.PendingCoalesced, note.trimmed.coalesced);
    if (note.trimmed.dropped > 0) deps.counters.add(CounterName.PendingDropped, note.trimmed.dropped);
    if (note.trimmed.dropped > 0) deps.log('warn', 'pending triggers dropped: the jobset\'s next pass reads everything', { ...fields, ...note.trimmed });
  }
  if (note.outcome === 'deferred') {
    deps.counters.add(CounterName.Deferred);
    return 'deferred';
  }
  let { lease } = note;
  const recalled = deps.inputsMemory?.recall(key, lease.checkpoint.snapshot);
  const loop: Loop = {
    snapshot: recalled?.observed,
    settled: recalled?.settled ?? false,
    untaken: [...arrival.triggers, ...lease.carried.filter((trigger) => !isArrival(arrival, trigger))],
    taken: [],
    dropped: 0,
    inputsDigest: lease.checkpoint.inputsDigest,
    wakeAt: recalled?.wakeAt,
    finished: false,
    moreToDo: false,
  };
  const maxPasses = deps.maxPasses ?? DEFAULT_MAX_PASSES;
  try {
    for (let passes = 0; ; ) {
      const target = lease.dirty;
      const { fresh, overflowed } = takeIn(loop, lease);
      const changed = loop.snapshot === undefined || overflowed ? undefined : changedSince(loop.snapshot, fresh);
      const moreToDo = loop.moreToDo;
      loop.moreToDo = false;
      // Plan when the last pass's answers left more to do, or unless the planner is settled on
      // what the loop knows and the events name nothing it does not hold.
      if (moreToDo || !(loop.settled && changed !== undefined && nothingChanged(changed))) {
        const overTime = deps.loopBudgetMs !== undefined && deps.now() - arrival.receivedAt >= deps.loopBudgetMs;
        if (passes >= maxPasses || overTime) {
          const spent = overTime ? `time budget of ${deps.loopBudgetMs ?? 0} ms spent` : `pass budget of ${maxPasses} passes exhausted`;
          const error = `${spent} with work left (events arriving, or Jobs still to create); resync continues`;
          await deps.store.failLease(key, { owner, error, now: deps.now(), inputsDigest: loop.inputsDigest });
          deps.inputsMemory?.forget(key);
          return 'handed-to-resync';
        }
        passes += 1;
        const since: ObserveSince | 'fresh' | undefined =
          loop.snapshot !== undefined && changed !== undefined ? { observed: loop.snapshot, ...changed } : passes === 1 && !overflowed && isFirstEver(lease, loop.untaken) ? 'fresh' : undefined;
        // Gone: forget its state (journal entries stay until their TTL); if the lease moved on, the new holder decides.
        if (!(await runPass(gateway, key, since, loop, arrival, deps))) {
          deps.inputsMemory?.forget(key);
          await deps.store.forgetJobSet(key, owner);
          return 'gone';
        }
        if (loop.moreToDo) continue;
      }
      const release = await deps.store.releaseLease(key, { owner, reconciledDirty: target, now: deps.now(), ttlMs: ttl, wakeAt: loop.wakeAt, loop: releaseOf(key, loop, lease, deps) });
      if (release.outcome === 'released') return 'reconciled';
      if (release.outcome === 'lost' || !release.lease) {
        deps.log('warn', 'lease lost during the pass loop; the new holder continues', fields);
        return 'reconciled';
      }
      lease = release.lease;
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.inputsMemory?.forget(key);
    await deps.store.failLease(key, { owner, error: boundedError(message), now: deps.now(), inputsDigest: loop.inputsDigest });
    throw error;
  }
};
