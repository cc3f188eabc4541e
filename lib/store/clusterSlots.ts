/**
 * Cluster slots: how many reconciler invocations work for one cluster at once. The event source
 * invokes the reconciler at most MaximumConcurrency times at once for the whole fleet; an
 * invocation takes a slot of each cluster whose records it handles, and a cluster's slots are
 * fewer than the fleet's invocations, so one cluster's backlog can never hold all of them
 * (lib/reconcile/fairShare.ts decides what happens to records that find no slot).
 *
 * A slot is held until released or until it expires: an invocation that times out or crashes
 * never releases, and its slot frees itself after the expiry it was taken with.
 */

/** SlotRequest: one holder asking for one of `limit` slots of `cluster`. */
export interface SlotRequest {
  readonly cluster: string;
  /** Unique per invocation. */
  readonly holder: string;
  /** How many holders the cluster may have at once. */
  readonly limit: number;
  /** Epoch ms; slots that expired at or before it are free. */
  readonly now: number;
  /** Epoch ms after which the slot frees itself if it was never released. */
  readonly expiresAt: number;
}

/** ClusterSlots: the slots of every cluster. */
export interface ClusterSlots {
  /** tryAcquire: whether the holder now holds a slot (true again when it already held one); never waits. */
  tryAcquire(request: SlotRequest): Promise<boolean>;
  /** release: free the holder's slot of `cluster`, if it holds one. */
  release(cluster: string, holder: string): Promise<void>;
}

/** liveHolders: the holders of `holders` whose slot has not expired at `now`. */
export const liveHolders = (holders: Readonly<Record<string, number>>, now: number): string[] =>
  Object.entries(holders)
    .filter(([, expiresAt]) => expiresAt > now)
    .map(([holder]) => holder);

/** MemoryClusterSlots: ClusterSlots in one process (unit tests of the code above it). */
export class MemoryClusterSlots implements ClusterSlots {
  private readonly byCluster = new Map<string, Record<string, number>>();

  async tryAcquire(request: SlotRequest): Promise<boolean> {
    const holders = this.byCluster.get(request.cluster) ?? {};
    const live = Object.fromEntries(liveHolders(holders, request.now).map((holder) => [holder, holders[holder] ?? 0]));
    if (!(request.holder in live) && Object.keys(live).length >= request.limit) return false;
    this.byCluster.set(request.cluster, { ...live, [request.holder]: request.expiresAt });
    return true;
  }

  async release(cluster: string, holder: string): Promise<void> {
    const holders = this.byCluster.get(cluster);
    if (holders === undefined) return;
    const rest = { ...holders };
    delete rest[holder];
    this.byCluster.set(cluster, rest);
  }

  /** holders: the holders of `cluster` live at `now` (for tests). */
  holders(cluster: string, now: number): string[] {
    return liveHolders(this.byCluster.get(cluster) ?? {}, now);
  }
}
