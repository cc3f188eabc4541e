/**
 * The reconciler's core loop (DESIGN §2): an event is a hint that a JobSet may have changed.
 * Bump the JobSet's dirty counter; whoever wins its lease loops read → plan → execute until the
 * counter it reconciled is the stored one, then releases. Bursts collapse into few passes; a
 * crashed holder's lease expires and the resync picks the JobSet up.
 */
import { createHash, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { CounterName, type Counters } from '../counters.ts';
import { ErrorCode, LineupError } from '../errors.ts';
import { clusterOfSource, type LineupEventDetail } from '../events/schema.ts';
import type { Log } from '../log.ts';
import { plan as planPass } from '../plan/planner.ts';
import type { Observed, Plan, PlanOptions } from '../plan/types.ts';
import type { CheckpointStore, Decision, JobSetKey } from '../store/types.ts';
import { executePlan } from './execute.ts';
import type { ClusterGateway, ClusterResolver } from './types.ts';

/** Largest compressed inputs kept in a decision (DynamoDB items stop at 400 KB). */
const MAX_RECORDED_INPUTS_BYTES = 300 * 1024;
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
  readonly onPass?: ((key: JobSetKey, plan: Plan, decision: Decision) => void) | undefined;
}

/** The event as the loop needs it. */
export interface IncomingEvent {
  readonly source: string;
  readonly detail: LineupEventDetail;
  readonly replayName?: string | undefined;
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

/** inputsDigest: a short digest of what the planner saw. */
export const inputsDigest = (observed: Observed): string => {
  const hash = createHash('sha256');
  hash.update(`${observed.jobSet.metadata.uid ?? ''}@${observed.jobSet.metadata.resourceVersion ?? ''}`);
  for (const job of [...observed.jobs].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))) {
    hash.update(`|${job.metadata.name ?? ''}@${job.metadata.resourceVersion ?? ''}`);
  }
  hash.update(`|svc@${observed.service?.metadata.resourceVersion ?? '-'}`);
  return hash.digest('hex').slice(0, 16);
};

/** recordedInputs: the observation compressed for the decision log, when it fits. */
const recordedInputs = (observed: Observed): string | undefined => {
  const packed = gzipSync(JSON.stringify(observed)).toString('base64');
  return packed.length <= MAX_RECORDED_INPUTS_BYTES ? packed : undefined;
};

/** countActions: action kinds with counts. */
const countActions = (plan: Plan): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const action of plan.actions) counts[action.kind] = (counts[action.kind] ?? 0) + 1;
  return counts;
};

/** decisionOf: the decision-log entry of one pass. */
const decisionOf = (key: JobSetKey, at: number, observed: Observed, plan: Plan, applied: boolean, extra: Partial<Decision> = {}): Decision => ({
  key,
  at,
  inputsDigest: inputsDigest(observed),
  actions: countActions(plan),
  reason: plan.reason,
  applied,
  inputs: recordedInputs(observed),
  ...extra,
});

/** isRetryableConflict: a stale read — re-observe and re-plan at once. */
const isRetryableConflict = (error: LineupError): boolean =>
  error.code === ErrorCode.STALE_RESOURCE_VERSION || error.code === ErrorCode.ALREADY_EXISTS;

/**
 * runPass: observe → plan → execute, re-observing after a conflict. Returns the plan (undefined
 * when the JobSet is gone) or throws the first error that is not a conflict.
 */
const runPass = async (gateway: ClusterGateway, key: JobSetKey, deps: ReconcileDeps): Promise<Plan | undefined> => {
  for (let conflicts = 0; ; conflicts += 1) {
    const now = deps.now();
    const observed = await gateway.observe(key.namespace, key.name, now);
    if (!observed) return undefined;
    const plan = planPass(observed, deps.planOptions);
    deps.counters.add(CounterName.Passes);
    const result = await executePlan(gateway, plan, now);
    const decision = decisionOf(key, now, observed, plan, true, result.error ? { error: result.error.message } : {});
    await deps.store.recordDecision(decision);
    deps.onPass?.(key, plan, decision);
    if (!result.error) return plan;
    if (!isRetryableConflict(result.error) || conflicts >= MAX_CONFLICT_RETRIES) throw result.error;
    deps.log('info', 'conflict; re-reading and re-planning', { jobSet: `${key.namespace}/${key.name}`, error: result.error.message, action: result.failedAction?.kind });
  }
};

/** evaluateReplay: a replayed event is for looking, not acting (DESIGN §2 Replay). */
const evaluateReplay = async (gateway: ClusterGateway, key: JobSetKey, replayName: string, deps: ReconcileDeps): Promise<EventOutcome> => {
  const now = deps.now();
  const observed = await gateway.observe(key.namespace, key.name, now);
  if (!observed) return 'gone';
  const plan = planPass(observed, deps.planOptions);
  const decision = decisionOf(key, now, observed, plan, false, { replayName });
  await deps.store.recordDecision(decision);
  deps.onPass?.(key, plan, decision);
  return 'replay-recorded';
};

/**
 * handleEvent: everything one event causes. Throws only for failures worth a retry of the
 * event (the store or the cluster failing); drops events that can never succeed after logging them.
 */
export const handleEvent = async (event: IncomingEvent, deps: ReconcileDeps): Promise<EventOutcome> => {
  deps.counters.add(CounterName.Invocations);
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
  if (event.replayName !== undefined && !deps.applyReplays) return evaluateReplay(gateway, key, event.replayName, deps);

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
      const result = await runPass(gateway, key, deps);
      // Gone: forget its state (decisions stay until their TTL); if the lease moved on, the new
      // holder decides.
      if (!result) {
        await deps.store.forgetJobSet(key, owner);
        return 'gone';
      }
      const wakeAt = result.requeueAfterMs !== undefined ? deps.now() + result.requeueAfterMs : undefined;
      const release = await deps.store.releaseLease(key, owner, target, deps.now(), ttl, wakeAt);
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
