/**
 * The resync (DESIGN §2): re-queue JobSets the event flow left behind — a lease that expired
 * with its holder, a pass that failed, a dirty counter nobody reconciled, a TTL wake-up that is
 * due — and, on a full resync, every JobSet the store knows, in case events were lost upstream
 * of the bus. It only puts `JobSet Sync` events; the reconciler does the rest.
 */
import { CounterName, type Counters } from '../counters.ts';
import { UnavailableError } from '../errors.ts';
import { toPutEventsEntry, type PutEventsEntry } from '../events/envelope.ts';
import { DetailType, eventSource } from '../events/schema.ts';
import type { EventSink } from '../forwarder/types.ts';
import type { Log } from '../log.ts';
import type { CheckpointStore, JobSetKey } from '../store/types.ts';

/** Attempts at putting the entries that failed, before the resync invocation fails (and is retried). */
const PUT_ATTEMPTS = 3;
/** PutEvents takes at most 10 entries. */
const PUT_BATCH = 10;

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
  readonly store: CheckpointStore;
  readonly sink: EventSink;
  readonly now: () => number;
  readonly counters: Counters;
  readonly log: Log;
  readonly eventBusName?: string | undefined;
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

/** resync: put a Sync event for every JobSet needing one; `full` adds every known JobSet of every cluster. */
export const resync = async (deps: ResyncDeps, options: { full: boolean }): Promise<{ synced: number }> => {
  const keys = new Map<string, JobSetKey>();
  for (const state of await deps.store.listNeedingResync(deps.now())) {
    keys.set(`${state.key.cluster}/${state.key.namespace}/${state.key.name}`, state.key);
  }
  if (options.full) {
    for (const cluster of await deps.store.listClusters()) {
      for (const state of await deps.store.listJobSets(cluster.id)) keys.set(`${state.key.cluster}/${state.key.namespace}/${state.key.name}`, state.key);
    }
  }
  await putAll([...keys.values()].map((key) => syncEntry(key, deps.eventBusName)), deps);
  if (keys.size > 0) deps.log('info', 'resync queued jobsets', { count: keys.size, full: options.full });
  return { synced: keys.size };
};
