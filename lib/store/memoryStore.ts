/**
 * The checkpoint store in memory, for unit tests of the code above the store only (STYLE: an
 * in-memory stand-in never tests an adapter): RecordCheckpointStore's semantics (./recordStore.ts)
 * over Maps. The shared behaviour suite (test/store/storeBehaviour.ts) runs against it, the
 * SQLite store and the DynamoDB store, to keep them identical.
 */
import { RecordCheckpointStore, type BookmarkValue, type JournalRecord, type RecordTable, type StateRecord } from './recordStore.ts';
import type { BookmarkRecord, ClusterRecord } from './types.ts';

/** MemoryCheckpointStoreOptions: what a MemoryCheckpointStore is built from. */
export interface MemoryCheckpointStoreOptions {
  /**
   * How long journal entries are kept; recorded as each entry's expiry, which (as with DynamoDB TTL)
   * is not enforced on reads.
   * @default DEFAULT_JOURNAL_RETENTION_MS
   */
  readonly journalRetentionMs?: number;
}

/** MemoryRecordTable: RecordTable over Maps; records go in and come out as copies, as through a database. */
export class MemoryRecordTable implements RecordTable {
  private readonly states = new Map<string, StateRecord>();
  private readonly journal = new Map<string, JournalRecord[]>();
  private readonly bookmarks = new Map<string, Map<string, BookmarkValue>>();
  private readonly clusters = new Map<string, ClusterRecord>();

  /** transaction: nothing to do — the store's calls are synchronous, so nothing interleaves. */
  transaction<T>(work: () => T): T {
    return work();
  }

  getState(pk: string): StateRecord | undefined {
    const record = this.states.get(pk);
    return record === undefined ? undefined : structuredClone(record);
  }

  putState(pk: string, record: StateRecord): void {
    this.states.set(pk, structuredClone(record));
  }

  deleteState(pk: string): void {
    this.states.delete(pk);
  }

  listStates(cluster?: string): StateRecord[] {
    return [...this.states.values()].filter((record) => cluster === undefined || record.key.cluster === cluster).map((record) => structuredClone(record));
  }

  appendJournal(pk: string, record: JournalRecord): void {
    const log = this.journal.get(pk) ?? [];
    log.push(structuredClone(record));
    // Sort-key order is what the DynamoDB Query returns: time, then the in-process sequence.
    log.sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0));
    this.journal.set(pk, log);
  }

  listJournal(pk: string, limit?: number): JournalRecord[] {
    return (this.journal.get(pk) ?? []).slice(0, limit).map((record) => structuredClone(record));
  }

  getBookmark(cluster: string, resource: string): BookmarkValue | undefined {
    const value = this.bookmarks.get(cluster)?.get(resource);
    return value === undefined ? undefined : { ...value };
  }

  putBookmark(cluster: string, resource: string, value: BookmarkValue): void {
    const ofCluster = this.bookmarks.get(cluster) ?? new Map<string, BookmarkValue>();
    ofCluster.set(resource, { ...value });
    this.bookmarks.set(cluster, ofCluster);
  }

  listBookmarks(cluster: string): BookmarkRecord[] {
    return [...(this.bookmarks.get(cluster) ?? new Map<string, BookmarkValue>()).entries()]
      .map(([resource, value]) => ({ resource, ...value }))
      .sort((a, b) => a.resource.localeCompare(b.resource));
  }

  getCluster(id: string): ClusterRecord | undefined {
    const record = this.clusters.get(id);
    return record === undefined ? undefined : structuredClone(record);
  }

  putCluster(record: ClusterRecord): void {
    this.clusters.set(record.id, structuredClone(record));
  }

  deleteCluster(id: string): void {
    this.clusters.delete(id);
  }

  listClusters(): ClusterRecord[] {
    return [...this.clusters.values()].map((record) => structuredClone(record));
  }
}

/** MemoryCheckpointStore: CheckpointStore in a process's memory, with the DynamoDB store's semantics. */
export class MemoryCheckpointStore extends RecordCheckpointStore {
  constructor(options: MemoryCheckpointStoreOptions = {}) {
    super(new MemoryRecordTable(), options);
  }
}
