/**
 * The checkpoint store in memory, for unit tests of the code above the store only (STYLE: an
 * in-memory stand-in never tests an adapter). Every method does what the DynamoDB store's single
 * conditional write or read does, with the same rules (./rules.ts); the shared behaviour suite
 * (test/store/storeBehaviour.ts) runs against both to keep them identical.
 */
import { DEFAULT_DECISION_RETENTION_MS } from '../constants.ts';
import {
  compareClusters,
  compareJobSetKeys,
  definedOnly,
  journalExpiresAt,
  journalSuffix,
  journalEntryToKeep,
  leaseIsFree,
  isEcho,
  needsResync,
} from './rules.ts';
import { journalAttributes, journalEntryFromItem, journalItemChars, type Item } from './items.ts';
import { journalSk, jobSetPk } from './table.ts';
import {
  type BookmarkRecord,
  type CheckpointStore,
  type ClusterHeartbeat,
  type ClusterRecord,
  type EventNote,
  type HeldLease,
  type JournalEntry,
  type JournalEvent,
  type JobSetKey,
  type JobSetState,
  type LoopRelease,
  type ReleaseOutcome,
} from './types.ts';

/** MemoryCheckpointStoreOptions: what a MemoryCheckpointStore is built from. */
export interface MemoryCheckpointStoreOptions {
  /**
   * How long decisions are kept; recorded as each decision's expiry, which (as with DynamoDB TTL)
   * is not enforced on reads.
   * @default DEFAULT_DECISION_RETENTION_MS
   */
  readonly decisionRetentionMs?: number;
}

/** A JobSet's state as kept in memory (the state item's attributes). */
interface StateRecord {
  key: JobSetKey;
  dirty: number;
  reconciled: number;
  lease: { owner: string; expiresAt: number } | undefined;
  lastError: string | undefined;
  lastErrorAt: number | undefined;
  wakeAt: number | undefined;
  finished: boolean;
  updatedAt: number;
  pending: JournalEvent[];
  carried: JournalEvent[];
  known: Record<string, string> | undefined;
  snapshot: string | undefined;
  inputsDigest: string | undefined;
}

/** heldLease: the lease `record` shows for its holder, with copies of what it carries for the pass loop. */
const heldLease = (record: StateRecord, owner: string, expiresAt: number): HeldLease => ({
  owner,
  expiresAt,
  dirty: record.dirty,
  pending: structuredClone(record.pending),
  carried: structuredClone(record.carried),
  checkpoint: definedOnly({
    known: record.known === undefined ? undefined : { ...record.known },
    snapshot: record.snapshot,
    inputsDigest: record.inputsDigest,
  }),
});

/** A journal entry as kept in memory: the item the DynamoDB store would write, under its sort key. */
interface JournalRecord {
  readonly sk: string;
  readonly item: Item;
  readonly expiresAt: number;
}

/** snapshot: a JobSetState the caller may keep (no alias of the record). */
const snapshot = (record: StateRecord): JobSetState => ({
  key: { ...record.key },
  dirty: record.dirty,
  reconciled: record.reconciled,
  ...(record.lease !== undefined ? { lease: { ...record.lease } } : {}),
  ...(record.lastError !== undefined ? { lastError: record.lastError } : {}),
  ...(record.wakeAt !== undefined ? { wakeAt: record.wakeAt } : {}),
  ...(record.finished ? { finished: true } : {}),
  updatedAt: record.updatedAt,
});

/** MemoryCheckpointStore: CheckpointStore in a process's memory, with the DynamoDB store's semantics. */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly states = new Map<string, StateRecord>();
  private readonly journal = new Map<string, JournalRecord[]>();
  private readonly bookmarks = new Map<string, { resourceVersion: string; updatedAt: number }>();
  private readonly heartbeats = new Map<string, ClusterHeartbeat>();
  private readonly clusters = new Map<string, ClusterRecord>();
  private readonly decisionRetentionMs: number;

  constructor(options: MemoryCheckpointStoreOptions = {}) {
    this.decisionRetentionMs = options.decisionRetentionMs ?? DEFAULT_DECISION_RETENTION_MS;
  }

  /** markDirty: bump the counter, creating the record as DynamoDB's ADD creates the item. */
  async markDirty(key: JobSetKey, now: number): Promise<number> {
    const record = this.stateRecord(key, now);
    record.dirty += 1;
    record.updatedAt = now;
    return record.dirty;
  }

  /** noteEvent: the DynamoDB store's conditional write — echo, or count, queue and take a free lease (a lapsed one by takeover). */
  async noteEvent(key: JobSetKey, triggers: readonly JournalEvent[], owner: string, now: number, ttlMs: number): Promise<EventNote> {
    const existing = this.states.get(jobSetPk(key));
    if (isEcho(existing?.known, triggers)) return { outcome: 'echo' };
    const record = this.stateRecord(key, now);
    record.dirty += 1;
    record.updatedAt = now;
    for (const trigger of triggers) record.pending.push(structuredClone(definedOnly({ ...trigger })));
    const taken = await this.tryAcquireLease(key, owner, now, ttlMs);
    return taken === undefined ? { outcome: 'deferred' } : { outcome: 'leased', lease: taken };
  }

  /** tryAcquireLease: take the lease when leaseIsFree; creates the record like the conditional UpdateItem does. */
  async tryAcquireLease(key: JobSetKey, owner: string, now: number, ttlMs: number): Promise<HeldLease | undefined> {
    const existing = this.states.get(jobSetPk(key));
    if (!leaseIsFree(existing?.lease, owner, now)) return undefined;
    const record = this.stateRecord(key, now);
    record.lease = { owner, expiresAt: now + ttlMs };
    record.updatedAt = now;
    return heldLease(record, owner, now + ttlMs);
  }

  /** releaseLease: 'released' when `owner` holds it and nothing moved; else renew for 'dirty'; else 'lost'. */
  async releaseLease(
    key: JobSetKey,
    owner: string,
    reconciledDirty: number,
    now: number,
    ttlMs: number,
    wakeAt?: number,
    loop: LoopRelease = {},
  ): Promise<{ outcome: ReleaseOutcome; lease?: HeldLease | undefined }> {
    const record = this.states.get(jobSetPk(key));
    if (record?.lease?.owner !== owner) return { outcome: 'lost' };
    if (record.dirty === reconciledDirty) {
      record.lease = undefined;
      record.lastError = undefined;
      record.lastErrorAt = undefined;
      record.reconciled = reconciledDirty;
      record.wakeAt = wakeAt;
      record.finished = loop.finished === true;
      record.updatedAt = now;
      record.pending = [];
      record.carried = structuredClone((loop.carry ?? []).map((trigger) => definedOnly({ ...trigger })));
      record.known = loop.known === undefined ? undefined : { ...loop.known };
      record.snapshot = loop.snapshot;
      if (loop.inputsDigest !== undefined) record.inputsDigest = loop.inputsDigest;
      return { outcome: 'released' };
    }
    record.lease = { owner, expiresAt: now + ttlMs };
    record.updatedAt = now;
    return { outcome: 'dirty', lease: heldLease(record, owner, now + ttlMs) };
  }

  /** failLease: give the lease up with the error; nothing when `owner` no longer holds it. */
  async failLease(key: JobSetKey, owner: string, error: string, now: number, inputsDigest?: string): Promise<void> {
    const record = this.states.get(jobSetPk(key));
    if (record?.lease?.owner !== owner) return;
    record.lease = undefined;
    record.known = undefined;
    record.snapshot = undefined;
    if (inputsDigest !== undefined) record.inputsDigest = inputsDigest;
    record.lastError = error;
    record.lastErrorAt = now;
    record.updatedAt = now;
  }

  /** forgetJobSet: drop the state when `owner` holds its lease. */
  async forgetJobSet(key: JobSetKey, owner: string): Promise<boolean> {
    const record = this.states.get(jobSetPk(key));
    if (record?.lease?.owner !== owner) return false;
    this.states.delete(jobSetPk(key));
    return true;
  }

  /** getState: the JobSet's state, if any. */
  async getState(key: JobSetKey): Promise<JobSetState | undefined> {
    const record = this.states.get(jobSetPk(key));
    return record === undefined ? undefined : snapshot(record);
  }

  /** listNeedingResync: every state for which needsResync holds, in listing order. */
  async listNeedingResync(now: number): Promise<JobSetState[]> {
    return [...this.states.values()]
      .map(snapshot)
      .filter((state) => needsResync(state, now))
      .sort((a, b) => compareJobSetKeys(a.key, b.key));
  }

  /** listJobSets: the cluster's JobSets, ordered by namespace and name. */
  async listJobSets(cluster: string): Promise<JobSetState[]> {
    return [...this.states.values()]
      .filter((record) => record.key.cluster === cluster)
      .map(snapshot)
      .sort((a, b) => compareJobSetKeys(a.key, b.key));
  }

  /** appendJournal: keep the entry as the item DynamoDB would store, under the sort key it would give it. */
  async appendJournal(entry: JournalEntry): Promise<void> {
    const kept = journalEntryToKeep(entry, journalItemChars);
    const pk = jobSetPk(kept.key);
    const log = this.journal.get(pk) ?? [];
    log.push({ sk: journalSk(kept.at, journalSuffix()), item: structuredClone(journalAttributes(kept)), expiresAt: journalExpiresAt(kept.at, this.decisionRetentionMs) });
    // Sort-key order is what the DynamoDB Query returns: time, then the in-process sequence.
    log.sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0));
    this.journal.set(pk, log);
  }

  /** listJournal: the oldest `limit` entries (all without `limit`), oldest first, read back as from an item. */
  async listJournal(key: JobSetKey, limit?: number): Promise<JournalEntry[]> {
    if (limit !== undefined && limit <= 0) return [];
    const log = this.journal.get(jobSetPk(key)) ?? [];
    return log.slice(0, limit).map((record) => journalEntryFromItem(structuredClone(record.item), key));
  }

  /** getBookmark: the checkpointed resourceVersion. */
  async getBookmark(cluster: string, resource: string): Promise<string | undefined> {
    return this.bookmarks.get(bookmarkKey(cluster, resource))?.resourceVersion;
  }

  /** putBookmark: replace the checkpoint. */
  async putBookmark(cluster: string, resource: string, resourceVersion: string, now: number): Promise<void> {
    this.bookmarks.set(bookmarkKey(cluster, resource), { resourceVersion, updatedAt: now });
  }

  /** listBookmarks: the cluster's bookmarks, ordered by resource. */
  async listBookmarks(cluster: string): Promise<BookmarkRecord[]> {
    const prefix = bookmarkKey(cluster, '');
    return [...this.bookmarks.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, value]) => ({ resource: key.slice(prefix.length), ...value }))
      .sort((a, b) => a.resource.localeCompare(b.resource));
  }

  /** putHeartbeat: keep the heartbeat when it was sent after the stored one. */
  async putHeartbeat(heartbeat: ClusterHeartbeat): Promise<boolean> {
    const stored = this.heartbeats.get(heartbeat.cluster);
    if (stored !== undefined && stored.sentAt >= heartbeat.sentAt) return false;
    this.heartbeats.set(heartbeat.cluster, { ...heartbeat });
    return true;
  }

  /** getHeartbeat: the newest heartbeat kept. */
  async getHeartbeat(cluster: string): Promise<ClusterHeartbeat | undefined> {
    const stored = this.heartbeats.get(cluster);
    return stored === undefined ? undefined : { ...stored };
  }

  /** addCluster: putCluster, unless the id is registered. */
  async addCluster(record: ClusterRecord): Promise<boolean> {
    if (this.clusters.has(record.id)) return false;
    await this.putCluster(record);
    return true;
  }

  /** getCluster: the registry entry, if any. */
  async getCluster(id: string): Promise<ClusterRecord | undefined> {
    const record = this.clusters.get(id);
    return record === undefined ? undefined : structuredClone(record);
  }

  /** putCluster: replace the registry entry. */
  async putCluster(record: ClusterRecord): Promise<void> {
    this.clusters.set(record.id, structuredClone({ ...definedOnly(record), auth: definedOnly(record.auth) }));
  }

  /** listClusters: every registry entry, ordered by id. */
  async listClusters(): Promise<ClusterRecord[]> {
    return [...this.clusters.values()].map((record) => structuredClone(record)).sort(compareClusters);
  }

  /** deleteCluster: remove the registry entry. */
  async deleteCluster(id: string): Promise<void> {
    this.clusters.delete(id);
  }

  /** stateRecord: the JobSet's record, created at 0/0 when absent (DynamoDB creates the item on update). */
  private stateRecord(key: JobSetKey, now: number): StateRecord {
    const pk = jobSetPk(key);
    const existing = this.states.get(pk);
    if (existing !== undefined) return existing;
    const created: StateRecord = {
      key: { cluster: key.cluster, namespace: key.namespace, name: key.name },
      dirty: 0,
      reconciled: 0,
      lease: undefined,
      lastError: undefined,
      lastErrorAt: undefined,
      wakeAt: undefined,
      finished: false,
      updatedAt: now,
      pending: [],
      carried: [],
      known: undefined,
      snapshot: undefined,
      inputsDigest: undefined,
    };
    this.states.set(pk, created);
    return created;
  }
}

/** bookmarkKey: a bookmark's map key. */
const bookmarkKey = (cluster: string, resource: string): string => `${cluster}\u0000${resource}`;
