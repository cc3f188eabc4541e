/**
 * The checkpoint store's semantics over a table of records: what the DynamoDB store's single
 * conditional writes do, written once as read-modify-write of whole records inside one
 * transaction of a RecordTable. Two tables hold the records: a Map in memory (unit tests of the
 * code above the store) and SQLite in a state directory (`lineup run`, `lineup demo --state-dir`:
 * ./sqliteStore.ts). The shared behaviour suite (test/store/storeBehaviour.ts) runs against both
 * and against the DynamoDB store, so the three cannot drift apart.
 */
import { CounterName, type Counters } from '../counters.ts';
import { journalAttributes, journalEntryFromItem, journalItemChars, type Item } from './items.ts';
import {
  compareClusters,
  compareJobSetKeys,
  definedOnly,
  isEcho,
  journalEntryToKeep,
  journalExpiresAt,
  journalSuffix,
  leaseIsFree,
  needsResync,
  trimPending,
  DEFAULT_JOURNAL_RETENTION_MS,
} from './rules.ts';
import { jobSetPk, journalSk } from './table.ts';
import type {
  BookmarkRecord,
  CheckpointStore,
  ClusterRecord,
  EventNote,
  HeldLease,
  JobSetKey,
  JobSetState,
  JournalEntry,
  JournalEvent,
  EventNoteRequest,
  LeaseFailure,
  LeaseRelease,
  ReleaseOutcome,
} from './types.ts';

/** A JobSet's state as a record (the state item's attributes). */
export interface StateRecord {
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
  /** Triggers trimPending dropped from `pending` since the last release. */
  pendingDropped: number;
  carried: JournalEvent[];
  known: Record<string, string> | undefined;
  snapshot: string | undefined;
  inputsDigest: string | undefined;
}

/** A journal entry as a record: the item the DynamoDB store would write (its time and packed rest), under its sort key. */
export interface JournalRecord {
  readonly sk: string;
  readonly item: Item;
  /** Epoch seconds, as DynamoDB's TTL attribute; not enforced on reads. */
  readonly expiresAt: number;
}

/** A bookmark as a record. */
export interface BookmarkValue {
  readonly resourceVersion: string;
  readonly updatedAt: number;
}

/**
 * RecordTable: where a RecordCheckpointStore keeps its records. Every method is synchronous, so
 * a store method's reads and writes run inside one `transaction` with nothing interleaved in
 * this process; the table makes the transaction atomic against other processes too. Records
 * come out as copies: changing one changes nothing until it is put back.
 */
export interface RecordTable {
  /** transaction: run `work` atomically (re-entrant: an inner call joins the outer transaction). */
  transaction<T>(work: () => T): T;
  getState(pk: string): StateRecord | undefined;
  putState(pk: string, record: StateRecord): void;
  deleteState(pk: string): void;
  /** listStates: every state record, or those of one cluster. */
  listStates(cluster?: string): StateRecord[];
  appendJournal(pk: string, record: JournalRecord): void;
  /** listJournal: a partition's records in sort-key order, at most `limit`. */
  listJournal(pk: string, limit?: number): JournalRecord[];
  getBookmark(cluster: string, resource: string): BookmarkValue | undefined;
  putBookmark(cluster: string, resource: string, value: BookmarkValue): void;
  /** listBookmarks: a cluster's bookmarks, ordered by resource. */
  listBookmarks(cluster: string): BookmarkRecord[];
  getCluster(id: string): ClusterRecord | undefined;
  putCluster(record: ClusterRecord): void;
  deleteCluster(id: string): void;
  listClusters(): ClusterRecord[];
}

/** RecordCheckpointStoreOptions: what a RecordCheckpointStore is built from. */
export interface RecordCheckpointStoreOptions {
  /**
   * How long journal entries are kept; recorded as each entry's expiry, which (as with DynamoDB
   * TTL) is not enforced on reads.
   * @default DEFAULT_JOURNAL_RETENTION_MS
   */
  readonly journalRetentionMs?: number;
  /**
   * Where each call is counted as the request the DynamoDB store sends for it
   * (`dynamodb.<Operation>`), so a demo keeping its state locally prints the deployed pipeline's
   * request counts. @default not counted
   */
  readonly counters?: Counters | undefined;
}

/** The DynamoDB operation a store call stands for, as counted. */
export type Operation = 'UpdateItem' | 'GetItem' | 'PutItem' | 'DeleteItem' | 'Query' | 'BatchGetItem';

/** heldLease: the lease `record` shows for its holder, with what it carries for the pass loop. */
const heldLease = (record: StateRecord, owner: string, expiresAt: number): HeldLease => ({
  owner,
  expiresAt,
  dirty: record.dirty,
  pending: structuredClone(record.pending),
  ...(record.pendingDropped > 0 ? { pendingDropped: record.pendingDropped } : {}),
  carried: structuredClone(record.carried),
  checkpoint: definedOnly({
    known: record.known === undefined ? undefined : { ...record.known },
    snapshot: record.snapshot,
    inputsDigest: record.inputsDigest,
  }),
});

/** stateOf: the JobSetState a record shows. */
const stateOf = (record: StateRecord): JobSetState => ({
  key: { ...record.key },
  dirty: record.dirty,
  reconciled: record.reconciled,
  ...(record.lease !== undefined ? { lease: { ...record.lease } } : {}),
  ...(record.lastError !== undefined ? { lastError: record.lastError } : {}),
  ...(record.wakeAt !== undefined ? { wakeAt: record.wakeAt } : {}),
  ...(record.finished ? { finished: true } : {}),
  updatedAt: record.updatedAt,
});

/** newStateRecord: the record DynamoDB's first update creates: counters at 0, nothing else. */
const newStateRecord = (key: JobSetKey, now: number): StateRecord => ({
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
  pendingDropped: 0,
  carried: [],
  known: undefined,
  snapshot: undefined,
  inputsDigest: undefined,
});

/** RecordCheckpointStore: CheckpointStore over a RecordTable, with the DynamoDB store's semantics. */
export class RecordCheckpointStore implements CheckpointStore {
  protected readonly table: RecordTable;
  private readonly journalRetentionMs: number;
  private readonly counters: Counters | undefined;

  constructor(table: RecordTable, options: RecordCheckpointStoreOptions = {}) {
    this.table = table;
    this.journalRetentionMs = options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
    this.counters = options.counters;
  }

  /** noteEvent: the DynamoDB store's conditional write — echo, or count, queue and take a free lease (a lapsed one by takeover). */
  async noteEvent(key: JobSetKey, { triggers, owner, now, ttlMs }: EventNoteRequest): Promise<EventNote> {
    this.count('UpdateItem');
    return this.table.transaction((): EventNote => {
      const pk = jobSetPk(key);
      const existing = this.table.getState(pk);
      if (isEcho(existing?.known, triggers)) return { outcome: 'echo' };
      const record = existing ?? newStateRecord(key, now);
      record.dirty += 1;
      record.updatedAt = now;
      for (const trigger of triggers) record.pending.push(structuredClone(definedOnly({ ...trigger })));
      // DynamoDB trims with a second, conditional write.
      const trim = trimPending(record.pending);
      if (trim.coalesced + trim.dropped > 0) {
        this.count('UpdateItem');
        record.pending = trim.pending;
        record.pendingDropped += trim.dropped;
      }
      this.table.putState(pk, record);
      // DynamoDB takes a lapsed lease with a second, conditional write.
      if (existing?.lease !== undefined && existing.lease.owner !== owner && existing.lease.expiresAt <= now) this.count('UpdateItem');
      const taken = this.acquire(key, owner, now, ttlMs);
      const trimmed = trim.coalesced + trim.dropped > 0 ? { trimmed: { coalesced: trim.coalesced, dropped: trim.dropped } } : {};
      return taken === undefined ? { outcome: 'deferred', ...trimmed } : { outcome: 'leased', lease: taken, ...trimmed };
    });
  }

  /** releaseLease: 'released' when `owner` holds it and nothing moved; else renew for 'dirty'; else 'lost'. */
  async releaseLease(key: JobSetKey, release: LeaseRelease): Promise<{ outcome: ReleaseOutcome; lease?: HeldLease | undefined }> {
    const { owner, reconciledDirty, now, ttlMs, wakeAt } = release;
    const loop = release.loop ?? {};
    this.count('UpdateItem');
    return this.table.transaction((): { outcome: ReleaseOutcome; lease?: HeldLease | undefined } => {
      const pk = jobSetPk(key);
      const record = this.table.getState(pk);
      if (record?.lease?.owner !== owner || record.dirty !== reconciledDirty) this.count('UpdateItem');
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
        record.pendingDropped = 0;
        record.carried = structuredClone((loop.carry ?? []).map((trigger) => definedOnly({ ...trigger })));
        record.known = loop.known === undefined ? undefined : { ...loop.known };
        record.snapshot = loop.snapshot;
        if (loop.inputsDigest !== undefined) record.inputsDigest = loop.inputsDigest;
        this.table.putState(pk, record);
        return { outcome: 'released' };
      }
      record.lease = { owner, expiresAt: now + ttlMs };
      record.updatedAt = now;
      this.table.putState(pk, record);
      return { outcome: 'dirty', lease: heldLease(record, owner, now + ttlMs) };
    });
  }

  /** failLease: give the lease up with the error; nothing when `owner` no longer holds it. */
  async failLease(key: JobSetKey, { owner, error, now, inputsDigest }: LeaseFailure): Promise<void> {
    this.count('UpdateItem');
    this.table.transaction(() => {
      const pk = jobSetPk(key);
      const record = this.table.getState(pk);
      if (record?.lease?.owner !== owner) return;
      record.lease = undefined;
      record.known = undefined;
      record.snapshot = undefined;
      if (inputsDigest !== undefined) record.inputsDigest = inputsDigest;
      record.lastError = error;
      record.lastErrorAt = now;
      record.updatedAt = now;
      this.table.putState(pk, record);
    });
  }

  /** forgetJobSet: drop the state when `owner` holds its lease. */
  async forgetJobSet(key: JobSetKey, owner: string): Promise<boolean> {
    this.count('DeleteItem');
    return this.table.transaction(() => {
      const pk = jobSetPk(key);
      if (this.table.getState(pk)?.lease?.owner !== owner) return false;
      this.table.deleteState(pk);
      return true;
    });
  }

  /** getState: the JobSet's state, if any. */
  async getState(key: JobSetKey): Promise<JobSetState | undefined> {
    this.count('GetItem');
    const record = this.table.getState(jobSetPk(key));
    return record === undefined ? undefined : stateOf(record);
  }

  /** listNeedingResync: every state for which needsResync holds, in listing order. */
  async listNeedingResync(now: number): Promise<JobSetState[]> {
    this.count('Query');
    return this.table
      .listStates()
      .map(stateOf)
      .filter((state) => needsResync(state, now))
      .sort((a, b) => compareJobSetKeys(a.key, b.key));
  }

  /** listJobSets: the cluster's JobSets, ordered by namespace and name. */
  async listJobSets(cluster: string): Promise<JobSetState[]> {
    this.count('Query');
    return this.table
      .listStates(cluster)
      .map(stateOf)
      .sort((a, b) => compareJobSetKeys(a.key, b.key));
  }

  /** appendJournal: keep the entry as the item DynamoDB would store, under the sort key it would give it. */
  async appendJournal(entry: JournalEntry): Promise<void> {
    this.count('PutItem');
    const kept = journalEntryToKeep(entry, journalItemChars);
    this.table.appendJournal(jobSetPk(kept.key), {
      sk: journalSk(kept.at, journalSuffix()),
      item: journalAttributes(kept),
      expiresAt: journalExpiresAt(kept.at, this.journalRetentionMs),
    });
  }

  /** listJournal: the oldest `limit` entries (all without `limit`), oldest first, read back as from an item. */
  async listJournal(key: JobSetKey, limit?: number): Promise<JournalEntry[]> {
    if (limit !== undefined && limit <= 0) return [];
    this.count('Query');
    return this.table.listJournal(jobSetPk(key), limit).map((record) => journalEntryFromItem(record.item, key));
  }

  /** getBookmark: the checkpointed resourceVersion. */
  async getBookmark(cluster: string, resource: string): Promise<string | undefined> {
    this.count('GetItem');
    return this.table.getBookmark(cluster, resource)?.resourceVersion;
  }

  /** putBookmark: replace the checkpoint. */
  async putBookmark(cluster: string, resource: string, resourceVersion: string, now: number): Promise<void> {
    this.count('PutItem');
    this.table.putBookmark(cluster, resource, { resourceVersion, updatedAt: now });
  }

  /** listBookmarks: the cluster's bookmarks, ordered by resource. */
  async listBookmarks(cluster: string): Promise<BookmarkRecord[]> {
    this.count('Query');
    return this.table.listBookmarks(cluster);
  }

  /** addCluster: putCluster, unless the id is registered. */
  async addCluster(record: ClusterRecord): Promise<boolean> {
    this.count('PutItem');
    return this.table.transaction(() => {
      if (this.table.getCluster(record.id) !== undefined) return false;
      this.table.putCluster(clusterToKeep(record));
      return true;
    });
  }

  /** getCluster: the registry entry, if any. */
  async getCluster(id: string): Promise<ClusterRecord | undefined> {
    this.count('GetItem');
    return this.table.getCluster(id);
  }

  /** putCluster: replace the registry entry. */
  async putCluster(record: ClusterRecord): Promise<void> {
    this.count('PutItem');
    this.table.putCluster(clusterToKeep(record));
  }

  /** listClusters: every registry entry, ordered by id. */
  async listClusters(): Promise<ClusterRecord[]> {
    this.count('Query');
    return this.table.listClusters().sort(compareClusters);
  }

  /** deleteCluster: remove the registry entry. */
  async deleteCluster(id: string): Promise<void> {
    this.count('DeleteItem');
    this.table.deleteCluster(id);
  }

  /**
   * acquire: take the lease when leaseIsFree (nobody holds it, it lapsed, or `owner` holds it),
   * creating the record as the conditional UpdateItem does, inside the caller's transaction.
   */
  protected acquire(key: JobSetKey, owner: string, now: number, ttlMs: number): HeldLease | undefined {
    const pk = jobSetPk(key);
    const existing = this.table.getState(pk);
    if (!leaseIsFree(existing?.lease, owner, now)) return undefined;
    const record = existing ?? newStateRecord(key, now);
    record.lease = { owner, expiresAt: now + ttlMs };
    record.updatedAt = now;
    this.table.putState(pk, record);
    return heldLease(record, owner, now + ttlMs);
  }

  /** stateRecord: the JobSet's record, a new one at 0/0 when absent (DynamoDB creates the item on update). */
  protected stateRecord(key: JobSetKey, now: number): StateRecord {
    return this.table.getState(jobSetPk(key)) ?? newStateRecord(key, now);
  }

  /** count: the call as the DynamoDB request it stands for. */
  protected count(operation: Operation): void {
    this.counters?.add(`${CounterName.DynamoPrefix}${operation}`);
  }
}

/** clusterToKeep: a registry record as an item keeps it: without undefined fields, also inside auth. */
const clusterToKeep = (record: ClusterRecord): ClusterRecord => structuredClone({ ...definedOnly(record), auth: definedOnly(record.auth) });
