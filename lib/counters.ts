/**
 * Operation counters every host prints (Kubernetes requests by verb, events put and dropped,
 * passes, invocations, DynamoDB operations); benchmarks and the cost model read them.
 * Names are dotted: `k8s.get`, `k8s.patch`, `events.put`, `events.dropped`, `dynamodb.UpdateItem`.
 */

/** Counter names used across the pipeline, so producers and readers agree. */
export const CounterName = {
  /** Kubernetes API requests, suffixed by verb: k8s.get, k8s.list, k8s.watch, k8s.create, k8s.patch, k8s.update, k8s.delete. */
  KubePrefix: 'k8s.',
  /** Objects the API server returned that Lineup could not read (skipped, logged). */
  KubeUnreadable: 'k8s.unreadable',
  /** Kubernetes requests retried after 429/5xx. */
  KubeRetries: 'k8s.retries',
  /** Raw watch events the forwarder received. */
  WatchEvents: 'forwarder.watchEvents',
  /** Watch events dropped because nothing decision-relevant changed. */
  EventsDropped: 'forwarder.dropped',
  /** Forwarded changes folded into a waiting event of the same JobSet (one event put for several changes). */
  EventsCoalesced: 'forwarder.coalesced',
  /** Entries sent to the bus (each entry once, retries not counted). */
  EventsPut: 'events.put',
  /** PutEvents calls. */
  PutEventsCalls: 'events.putCalls',
  /** Entries retried after a failed put. */
  EventsRetried: 'events.retried',
  /** Re-lists after 410 Gone. */
  Relists: 'forwarder.relists',
  /** Reconciler invocations (one per event handled). */
  Invocations: 'reconciler.invocations',
  /** Reconcile passes (observe → plan → execute). */
  Passes: 'reconciler.passes',
  /** Events handed to the lease holder (lease held elsewhere). */
  Deferred: 'reconciler.deferred',
  /** Events whose object the state item already knew at their resourceVersion (echoes of Lineup's own writes). */
  Echoes: 'reconciler.echoes',
  /** Pending triggers a state item left out because a newer one names the same object (lib/store/rules.ts trimPending). */
  PendingCoalesced: 'reconciler.pendingCoalesced',
  /** Pending triggers a state item dropped over MAX_PENDING_TRIGGERS objects: the JobSet's next pass reads everything. */
  PendingDropped: 'reconciler.pendingDropped',
  /** DynamoDB requests, suffixed by operation: dynamodb.UpdateItem, dynamodb.GetItem, … */
  DynamoPrefix: 'dynamodb.',
  /** Entries refused because one alone is over EventBridge's entry limit (logged with its size, never cut). */
  EventsDroppedOversize: 'forwarder.droppedOversize',
  /** Watches that ended in a transport error and were reconnected after a backoff. */
  WatchErrors: 'forwarder.watchErrors',
  /** Watch resourceVersions checkpointed (putBookmark calls that succeeded). */
  Checkpoints: 'forwarder.checkpoints',
  /** Checkpoints the forwarder rewrote as its heartbeat, none having been written for an interval (lib/forwarder/heartbeat.ts). */
  HeartbeatsPut: 'forwarder.heartbeats',
  /** Lambda watch sessions that failed (functions/forwarder.ts): the fleet-wide ForwarderSessionErrors metric. */
  ForwarderSessionErrors: 'forwarder.sessionErrors',
  /** Queue records the reconciler dropped because no retry could ever handle them (not JSON, not a Lineup event: lib/reconcile/sqsBatch.ts). */
  PoisonRecords: 'reconciler.poisonRecords',
  /** Records the reconciler put back on its queue because their cluster had every slot in use (lib/reconcile/fairShare.ts). */
  RecordsPutBack: 'reconciler.recordsPutBack',
  /** Finished JobSets a full resync left be (lib/reconcile/resync.ts fullResyncWants). */
  ResyncFinishedSkipped: 'resync.finishedSkipped',
} as const;

/** CounterSink: the part of Counters a producer needs. */
export interface CounterSink {
  add(name: string, by?: number): void;
}

/** Counters: named monotonic counts. */
export class Counters implements CounterSink {
  private readonly counts = new Map<string, number>();

  /** add: count `by` more of `name`. */
  add(name: string, by = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + by);
  }

  /** get: the count of `name` (0 when never counted). */
  get(name: string): number {
    return this.counts.get(name) ?? 0;
  }

  /** sumPrefix: the total of every counter whose name starts with `prefix`. */
  sumPrefix(prefix: string): number {
    let total = 0;
    for (const [name, count] of this.counts) if (name.startsWith(prefix)) total += count;
    return total;
  }

  /** snapshot: every counter, names sorted. */
  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** metricName: the CloudWatch metric a counter is published as (`reconciler.passes` → `ReconcilerPasses`). */
export const metricName = (counter: string): string =>
  counter
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
