/**
 * The resync: re-queue JobSets the event flow left behind — a lease that expired
 * with its holder, a pass that failed, a dirty counter nobody reconciled, a TTL wake-up that is
 * due — and, on a full resync, every JobSet the store knows that may still change, in case events
 * were lost upstream of the bus. It only puts `JobSet Sync` events; the reconciler does the rest.
 *
 * A finished JobSet (Completed or Failed, no ttlSecondsAfterFinished: its state item says `finished`) cannot
 * change any more, so a lost event about it costs nothing but its deletion: then its state item
 * would outlive it. Most JobSets a store knows are finished ones waiting to be deleted, so the full
 * resync re-queues a finished JobSet only when its item has not been written for
 * FINISHED_RECHECK_MS — often enough to forget deleted ones, rarely enough to cost little.
 *
 * A registered cluster whose forwarder's newest watch checkpoint (its heartbeat: it rewrites one at
 * least every HEARTBEAT_INTERVAL_MS, lib/forwarder/heartbeat.ts) is older than the missing time, or
 * claims a time ahead of the clock (lib/fleet/status.ts watchState), is unwatched: no event of it
 * will come, so every run — not only the full one — re-queues each of its JobSets that may still
 * change, and logs the cluster as unwatched (`lineup clusters status` says the same from the same
 * checkpoints). The run's result counts the unwatched clusters that are alarmed on, which the
 * Lambda publishes as the fleet's one UnwatchedClusters metric (functions/resync.ts): the stack
 * alarms once for the whole fleet, not once per cluster.
 */
import { CounterName, type Counters } from '../counters.ts';
import { UnavailableError } from '../errors.ts';
import { toPutEventsEntry, type PutEventsEntry } from '../events/envelope.ts';
import { DetailType, eventSource } from '../events/schema.ts';
import type { EventSink } from '../forwarder/types.ts';
import { checkpointHeartbeat, HEARTBEAT_MISSING_MS, watchState } from '../fleet/status.ts';
import { HEARTBEAT_INTERVAL_MS } from '../forwarder/heartbeat.ts';
import type { Log } from '../log.ts';
import type { BookmarkStore, ClusterRegistry, JobSetKey, JobSetState, JobSetStateStore } from '../store/types.ts';

/** UNWATCHED_LOG_MESSAGE: the resync's line per unwatched cluster per run (fields `cluster`, `lastHeartbeatAt`, `missingAfterMs`). */
export const UNWATCHED_LOG_MESSAGE = 'cluster unwatched: no forwarder checkpoint within the missing time; its jobsets are re-queued on every resync';

/** Attempts at putting the entries that failed, before the resync invocation fails (and is retried). */
const PUT_ATTEMPTS = 3;
/** PutEvents takes at most 10 entries. */
const PUT_BATCH = 10;
/** FINISHED_RECHECK_MS: how long a full resync leaves a finished JobSet be before one pass checks it still exists. */
export const FINISHED_RECHECK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * fullResyncWants: whether a full resync re-queues `state` at `now` — every JobSet that may still
 * change, and a finished one once its item is FINISHED_RECHECK_MS old (each pass rewrites it, so
 * that is once per FINISHED_RECHECK_MS).
 */
export const fullResyncWants = (state: JobSetState, now: number): boolean => state.finished !== true || now - state.updatedAt >= FINISHED_RECHECK_MS;

/** syncEntry: the PutEvents entry that asks for a pass over one JobSet. */
export const syncEntry = (key: JobSetKey, eventBusName?: string): PutEventsEntry =>
  toPutEventsEntry(
    {
      source: eventSource(key.cluster),
      detailType: DetailType.JobSetSync,
      detail: { cluster: key.cluster, namespace: key.namespace, jobSet: key.name, kind: 'JobSet', name: key.name, uid: '', resourceVersion: '', watchType: 'SYNC' },
    },
    eventBusName,
  );

/** ResyncDeps: the store to read, the bus to put on. */
export interface ResyncDeps {
  /** The JobSet state items, each registered cluster and its forwarder's bookmarks (its heartbeat). */
  readonly store: Pick<JobSetStateStore, 'listNeedingResync' | 'listJobSets'> & Pick<ClusterRegistry, 'listClusters'> & Pick<BookmarkStore, 'listBookmarks'>;
  readonly sink: EventSink;
  readonly now: () => number;
  readonly counters: Counters;
  readonly log: Log;
  readonly eventBusName?: string | undefined;
  /** How long without a heartbeat makes a cluster unwatched. @default HEARTBEAT_MISSING_MS */
  readonly heartbeatMissingMs?: number | undefined;
  /** Clusters no Lineup forwarder watches (the stack's `heartbeatAlarm: false`): polled when unwatched, never counted in `alarmed`. @default none */
  readonly unalarmedClusters?: ReadonlySet<string> | undefined;
}

/** putAll: every entry onto the bus, 10 per call, retrying only the failed ones. */
const putAll = async (entries: readonly PutEventsEntry[], deps: ResyncDeps): Promise<void> => {
  for (let start = 0; start < entries.length; start += PUT_BATCH) {
    let pending = entries.slice(start, start + PUT_BATCH);
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      deps.counters.add(CounterName.PutEventsCalls);
      const result = await deps.sink.put(pending);
      deps.counters.add(CounterName.EventsPut, pending.length - result.failed.length);
      const failedIndexes = new Set(result.failed.map((failure) => failure.index));
      const failed = pending.filter((_, index) => failedIndexes.has(index));
      if (failed.length > 0 && attempt >= PUT_ATTEMPTS) {
        throw new UnavailableError(`resync could not put ${failed.length} sync events: ${result.failed.map((f) => `${f.code}: ${f.message}`).join('; ')}`);
      }
      if (failed.length > 0) deps.counters.add(CounterName.EventsRetried, failed.length);
      pending = failed;
    }
  }
};

/** ResyncResult: JobSets re-queued, (full resync) finished ones left be, and the registered clusters without a recent heartbeat. */
export interface ResyncResult {
  readonly synced: number;
  readonly finishedSkipped: number;
  /** Ids of the registered clusters treated as unwatched (their JobSets re-queued on this run). */
  readonly unwatched: readonly string[];
  /** How many of `unwatched` are alarmed on (not in unalarmedClusters): the UnwatchedClusters metric. */
  readonly alarmed: number;
}

/**
 * resync: put a Sync event for every JobSet needing one; `full` adds every known JobSet of every
 * cluster that fullResyncWants.
 */
export const resync = async (deps: ResyncDeps, options: { full: boolean }): Promise<ResyncResult> => {
  const now = deps.now();
  const keys = new Map<string, JobSetKey>();
  const keyOf = (key: JobSetKey): string => `${key.cluster}/${key.namespace}/${key.name}`;
  for (const state of await deps.store.listNeedingResync(now)) keys.set(keyOf(state.key), state.key);
  let finishedSkipped = 0;
  const unwatched: string[] = [];
  const missingAfterMs = deps.heartbeatMissingMs ?? HEARTBEAT_MISSING_MS;
  const clusters = await deps.store.listClusters();
  // One Query per cluster, all at once: a fleet of 50 reads in the time of one.
  const bookmarks = await Promise.all(clusters.map((cluster) => deps.store.listBookmarks(cluster.id)));
  let alarmed = 0;
  for (const [index, cluster] of clusters.entries()) {
    const heartbeat = checkpointHeartbeat(cluster.id, bookmarks[index] ?? [], HEARTBEAT_INTERVAL_MS);
    const watch = watchState(heartbeat, now, missingAfterMs);
    if (watch !== 'watched') {
      unwatched.push(cluster.id);
      if (deps.unalarmedClusters?.has(cluster.id) !== true) alarmed += 1;
      // The dashboard's unwatched-clusters table reads these lines (infra/constructs/lineupMonitoring.ts): keep the message and fields.
      deps.log('warn', UNWATCHED_LOG_MESSAGE, {
        cluster: cluster.id,
        lastHeartbeatAt: heartbeat === undefined ? 'never' : new Date(heartbeat.sentAt).toISOString(),
        missingAfterMs,
      });
    }
    if (!options.full && watch === 'watched') continue;
    for (const state of await deps.store.listJobSets(cluster.id)) {
      if (fullResyncWants(state, now)) keys.set(keyOf(state.key), state.key);
      else if (options.full && !keys.has(keyOf(state.key))) finishedSkipped += 1;
    }
  }
  if (options.full) deps.counters.add(CounterName.ResyncFinishedSkipped, finishedSkipped);
  await putAll([...keys.values()].map((key) => syncEntry(key, deps.eventBusName)), deps);
  if (keys.size > 0 || finishedSkipped > 0) deps.log('info', 'resync queued jobsets', { count: keys.size, full: options.full, finishedSkipped, unwatched });
  return { synced: keys.size, finishedSkipped, unwatched, alarmed };
};
