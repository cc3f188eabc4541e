/**
 * A fair share of the reconciler for every cluster. One queue feeds the reconciler for the whole
 * fleet and its event source invokes it at most MaximumConcurrency times at once; without a
 * share, a cluster that floods the queue (hundreds of JobSets created at once) holds every
 * invocation and every other cluster's events wait behind its backlog.
 *
 * Each invocation takes, for each cluster whose events are in its batch, one of that cluster's
 * `slotsPerCluster` slots (lib/store/clusterSlots.ts) — fewer than the fleet's invocations. The
 * events of a cluster whose slots are all held are put back on the queue with a delay and deleted
 * from this batch: an invocation that only puts back takes milliseconds, so the invocations the
 * flooding cluster cannot hold keep reaching the other clusters' events through its backlog.
 *
 * Why put back rather than fail the record: a failed record comes back after the queue's
 * visibility timeout and counts a receive towards the dead-letter queue, so a cluster held back
 * five times would lose its events; a put-back record is a new message (its deferrals counted in
 * a message attribute, which lengthens its next delay). EventBridge cannot set a message group on
 * a standard queue's messages, so SQS fair queues, which would do this in the queue, cannot be
 * fed by the bus's rule.
 *
 * Records that are not Lineup events take no slot: they are dropped as poison at once.
 */
import type { SQSRecord } from 'aws-lambda';
import { CounterName, type Counters } from '../counters.ts';
import type { Log } from '../log.ts';
import type { ClusterSlots } from '../store/clusterSlots.ts';

/** DEFERRALS_ATTRIBUTE: the message attribute counting how often a record was put back. */
export const DEFERRALS_ATTRIBUTE = 'lineupDeferrals';

/** DEFER_BASE_DELAY_SECONDS: the delay of a record put back for the first time. */
export const DEFER_BASE_DELAY_SECONDS = 2;

/**
 * DEFER_MAX_DELAY_SECONDS: the longest delay; it bounds how late a held-back cluster's events are
 * seen once its share frees (SQS allows up to 900).
 */
export const DEFER_MAX_DELAY_SECONDS = 32;

/** RecordPutBack: one record to put back on the queue. */
export interface RecordPutBack {
  readonly messageId: string;
  readonly body: string;
  readonly delaySeconds: number;
  /** How often it has been put back, this time included. */
  readonly deferrals: number;
}

/** PutBack: put records back on the queue; the message ids of those it could not put back. */
export type PutBack = (records: readonly RecordPutBack[]) => Promise<readonly string[]>;

/** FairShare: what an invocation needs to keep to its clusters' shares. */
export interface FairShare {
  readonly slots: ClusterSlots;
  /** How many invocations may work for one cluster at once. */
  readonly slotsPerCluster: number;
  /** How long an invocation's slot lasts if it is never released (at least the function's timeout). */
  readonly slotTtlMs: number;
  readonly putBack: PutBack;
  /** A per-invocation holder id (unique across the fleet's invocations). */
  readonly holderId: () => string;
  readonly now: () => number;
  readonly counters: Counters;
  readonly log: Log;
  /** Uniform in [0, 1): the jitter of the put-back delay. */
  readonly random?: () => number;
}

/** ShareTaken: an invocation's batch after it took its shares. */
export interface ShareTaken {
  /** The records to handle now. */
  readonly handle: readonly SQSRecord[];
  /**
   * The put-back under way, begun beside the handling rather than before it (a put-back is a
   * round trip to SQS the handled records need not wait for); it resolves, never rejects, with
   * the records that could not be put back: report them as batch item failures.
   */
  readonly failed: Promise<readonly string[]>;
  /**
   * finished: one record of `handle` is done. A cluster's slot is released as soon as its last
   * record of the batch is: records of a batch run concurrently, and a slot kept until the
   * slowest record of another cluster is done would hold the quick cluster's share for nothing.
   */
  finished(record: SQSRecord): void;
  /** release: free every slot still held, after the releases already begun (never rejects: a slot not released expires). */
  release(): Promise<void>;
}

/** deferralsOf: how often `record` was put back before. */
export const deferralsOf = (record: SQSRecord): number => {
  const count = Number(record.messageAttributes[DEFERRALS_ATTRIBUTE]?.stringValue ?? 0);
  return Number.isInteger(count) && count > 0 ? count : 0;
};

/**
 * deferDelaySeconds: the delay of a record put back for the `deferrals`-th time — doubling from
 * DEFER_BASE_DELAY_SECONDS up to DEFER_MAX_DELAY_SECONDS, jittered over its upper half so the
 * records put back together do not all come back together.
 */
export const deferDelaySeconds = (deferrals: number, random: () => number = Math.random): number => {
  const ceiling = Math.min(DEFER_MAX_DELAY_SECONDS, DEFER_BASE_DELAY_SECONDS * 2 ** Math.max(0, deferrals - 1));
  return Math.max(DEFER_BASE_DELAY_SECONDS, Math.round(ceiling / 2 + (random() * ceiling) / 2));
};

/** peekCluster: the cluster a Lineup event record is about, or undefined for anything unreadable (handled as it is). */
export const peekCluster = (record: SQSRecord): string | undefined => {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    return undefined; // Not JSON: the handler drops it as poison.
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { detail } = body as { detail?: unknown };
  if (typeof detail !== 'object' || detail === null) return undefined;
  const cluster = (detail as { cluster?: unknown }).cluster;
  return typeof cluster === 'string' ? cluster : undefined;
};

/** byCluster: the records of each cluster, and those that take no slot. */
export const byCluster = (records: readonly SQSRecord[]): { readonly clusters: Map<string, SQSRecord[]>; readonly free: SQSRecord[] } => {
  const clusters = new Map<string, SQSRecord[]>();
  const free: SQSRecord[] = [];
  for (const record of records) {
    const cluster = peekCluster(record);
    const ofCluster = cluster === undefined ? undefined : clusters.get(cluster);
    if (cluster === undefined) free.push(record);
    else if (ofCluster === undefined) clusters.set(cluster, [record]);
    else ofCluster.push(record);
  }
  return { clusters, free };
};

/**
 * takeFairShare: a slot of each cluster in `records` for this invocation; the records of clusters
 * without a free slot put back on the queue. A slot store that fails (throttled, unreachable)
 * holds nobody back: fairness is best effort, and losing it must not stop the reconciler.
 */
export const takeFairShare = async (records: readonly SQSRecord[], share: FairShare): Promise<ShareTaken> => {
  const holder = share.holderId();
  const now = share.now();
  const { clusters, free } = byCluster(records);
  const held: string[] = [];
  const handle: SQSRecord[] = [...free];
  const heldBack: SQSRecord[] = [];
  const heldBackClusters: string[] = [];
  await Promise.all(
    [...clusters].map(async ([cluster, ofCluster]) => {
      let taken: boolean;
      try {
        taken = await share.slots.tryAcquire({ cluster, holder, limit: share.slotsPerCluster, now, expiresAt: now + share.slotTtlMs });
      } catch (error) {
        share.log('warn', 'could not take a cluster slot; handling its records without one', { cluster, error: (error as Error).message });
        handle.push(...ofCluster);
        return;
      }
      if (taken) {
        held.push(cluster);
        handle.push(...ofCluster);
      } else {
        heldBack.push(...ofCluster);
        heldBackClusters.push(cluster);
      }
    }),
  );
  const putBack = async (): Promise<readonly string[]> => {
    if (heldBack.length === 0) return [];
    const putBacks = heldBack.map((record) => {
      const deferrals = deferralsOf(record) + 1;
      return { messageId: record.messageId, body: record.body, deferrals, delaySeconds: deferDelaySeconds(deferrals, share.random) };
    });
    let failed: readonly string[];
    try {
      failed = await share.putBack(putBacks);
    } catch (error) {
      failed = putBacks.map((entry) => entry.messageId);
      share.log('error', 'could not put records back on the queue; they are retried as failed records', { records: failed.length, error: (error as Error).message });
    }
    share.counters.add(CounterName.RecordsPutBack, putBacks.length - failed.length);
    share.log('info', 'records put back: their clusters had every slot in use', {
      clusters: heldBackClusters,
      putBack: putBacks.length - failed.length,
      slotsPerCluster: share.slotsPerCluster,
    });
    return failed;
  };
  const failed = putBack();
  // Records are handled in the order they came, whoever's share they took.
  const order = new Map(records.map((record, index) => [record.messageId, index]));
  handle.sort((a, b) => (order.get(a.messageId) ?? 0) - (order.get(b.messageId) ?? 0));
  const releaseSlot = async (cluster: string): Promise<void> => {
    try {
      await share.slots.release(cluster, holder);
    } catch (error) {
      share.log('warn', 'could not release a cluster slot; it frees itself when it expires', { cluster, error: (error as Error).message });
    }
  };
  const clusterOf = new Map(held.flatMap((cluster) => (clusters.get(cluster) ?? []).map((record) => [record.messageId, cluster] as const)));
  const unfinished = new Map(held.map((cluster) => [cluster, clusters.get(cluster)?.length ?? 0]));
  const releases: Promise<void>[] = [];
  const releaseOnce = (cluster: string): void => {
    if (!unfinished.has(cluster)) return;
    unfinished.delete(cluster);
    releases.push(releaseSlot(cluster));
  };
  return {
    handle,
    failed,
    finished: (record) => {
      const cluster = clusterOf.get(record.messageId);
      if (cluster === undefined) return;
      const left = (unfinished.get(cluster) ?? 0) - 1;
      if (left <= 0) releaseOnce(cluster);
      else unfinished.set(cluster, left);
    },
    release: async () => {
      for (const cluster of [...unfinished.keys()]) releaseOnce(cluster);
      await Promise.all(releases);
    },
  };
};
