/**
 * The checkpoint store in one SQLite file (Node's built-in `node:sqlite`): what `lineup run` and
 * `lineup demo --state-dir` keep in a state directory, with RecordCheckpointStore's semantics
 * (./recordStore.ts). Why SQLite (docs/state-directory.md has the whole argument):
 * - crash safety: every store call is one transaction in write-ahead-log mode, so a `kill -9`
 *   loses nothing a call returned from, and the next open recovers the log;
 * - one writer, any number of readers: a reader opens the file read-only and sees every committed
 *   transaction while the writer goes on (WAL readers never block it);
 * - a read never writes: a read-only open cannot change the file;
 * - damage is detected (`quick_check`, SQLite's own page checks) and reported, never repaired.
 * The deployed store stays DynamoDB (./dynamoStore.ts).
 */
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import * as z from 'zod';
import { StoreInvalidError } from '../errors.ts';
import { Attr, TABLE_KEY } from './table.ts';
import { RecordCheckpointStore, type BookmarkValue, type JournalRecord, type RecordCheckpointStoreOptions, type RecordTable, type StateRecord } from './recordStore.ts';
import { JournalEventSchema } from './items.ts';
import type { BookmarkRecord, ClusterRecord } from './types.ts';

/** SQLite's application_id of a Lineup state database ("LNUP"): another SQLite file is not taken for one. */
export const STATE_APPLICATION_ID = 0x4c4e5550;
/** The schema version this code writes and reads (SQLite's user_version). */
export const STATE_SCHEMA_VERSION = 1;
/** How long a call waits for another connection's lock before failing (a reader never needs to). */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * The schema: one table per record kind, a record's fields as JSON where nothing queries inside
 * them. `heartbeats` is written no more (a forwarder's heartbeat is its newest bookmark) and
 * stays so the schema is the one every version of this file reads.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobsets (pk TEXT PRIMARY KEY, cluster TEXT NOT NULL, record TEXT NOT NULL) STRICT;
CREATE INDEX IF NOT EXISTS jobsets_by_cluster ON jobsets (cluster);
CREATE TABLE IF NOT EXISTS journal (pk TEXT NOT NULL, sk TEXT NOT NULL, at INTEGER NOT NULL, packed BLOB NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (pk, sk)) STRICT;
CREATE TABLE IF NOT EXISTS bookmarks (cluster TEXT NOT NULL, resource TEXT NOT NULL, resource_version TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (cluster, resource)) STRICT;
CREATE TABLE IF NOT EXISTS heartbeats (cluster TEXT PRIMARY KEY, record TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS clusters (id TEXT PRIMARY KEY, record TEXT NOT NULL) STRICT;
`;

/** How a state record is stored: the record without its undefined fields. */
const StoredStateSchema = z.object({
  key: z.object({ cluster: z.string(), namespace: z.string(), name: z.string() }),
  dirty: z.number(),
  reconciled: z.number(),
  lease: z.object({ owner: z.string(), expiresAt: z.number() }).optional(),
  lastError: z.string().optional(),
  lastErrorAt: z.number().optional(),
  wakeAt: z.number().optional(),
  finished: z.boolean(),
  updatedAt: z.number(),
  pending: z.array(JournalEventSchema),
  pendingDropped: z.number().optional(),
  carried: z.array(JournalEventSchema),
  known: z.record(z.string(), z.string()).optional(),
  snapshot: z.string().optional(),
  inputsDigest: z.string().optional(),
});

const StoredAuthSchema = z.union([
  z.object({ type: z.literal('eks'), clusterName: z.string(), region: z.string(), roleArn: z.string().optional() }),
  z.object({ type: z.literal('token'), tokenSecretArn: z.string().optional(), token: z.string().optional() }),
  z.object({ type: z.literal('kubeconfig'), path: z.string(), context: z.string().optional() }),
]);
const StoredClusterSchema = z.object({ id: z.string(), endpoint: z.string(), caData: z.string().optional(), auth: StoredAuthSchema });

/** parseStored: a stored JSON column as `schema` says, or a StoreInvalidError naming the row. */
const parseStored = <T>(schema: z.ZodType<T>, text: unknown, where: string): T => {
  let raw: unknown;
  try {
    raw = JSON.parse(String(text));
  } catch (error) {
    throw new StoreInvalidError(`${where} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new StoreInvalidError(`${where} does not parse: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`);
  return parsed.data;
};

/** stateFromRow: the state record a `jobsets` row holds. */
const stateFromRow = (row: Record<string, SQLInputValue>): StateRecord => {
  const stored = parseStored(StoredStateSchema, row['record'], `jobsets row ${String(row['pk'])}`);
  return {
    key: stored.key,
    dirty: stored.dirty,
    reconciled: stored.reconciled,
    lease: stored.lease,
    lastError: stored.lastError,
    lastErrorAt: stored.lastErrorAt,
    wakeAt: stored.wakeAt,
    finished: stored.finished,
    updatedAt: stored.updatedAt,
    pending: stored.pending.map((event) => JSON.parse(JSON.stringify(event)) as StateRecord['pending'][number]),
    pendingDropped: stored.pendingDropped ?? 0,
    carried: stored.carried.map((event) => JSON.parse(JSON.stringify(event)) as StateRecord['carried'][number]),
    known: stored.known,
    snapshot: stored.snapshot,
    inputsDigest: stored.inputsDigest,
  };
};

/** clusterFromRow: the registry record a `clusters` row holds. */
const clusterFromRow = (row: Record<string, SQLInputValue>): ClusterRecord => {
  return parseStored(StoredClusterSchema, row['record'], `clusters row ${String(row['id'])}`);
};

/** SqliteRecordTable: RecordTable in one SQLite database (a connection the caller opened). */
export class SqliteRecordTable implements RecordTable {
  private readonly db: DatabaseSync;
  private readonly readOnly: boolean;
  private depth = 0;

  constructor(database: StateDatabase) {
    this.db = database.db;
    this.readOnly = database.readOnly;
  }

  /**
   * transaction: BEGIN IMMEDIATE … COMMIT around `work` (ROLLBACK when it throws): IMMEDIATE takes
   * the write lock first, so two writers never both read a record and then both write it.
   */
  transaction<T>(work: () => T): T {
    if (this.depth > 0 || this.db.isTransaction) return work();
    this.db.exec(this.readOnly ? 'BEGIN' : 'BEGIN IMMEDIATE');
    this.depth += 1;
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  getState(pk: string): StateRecord | undefined {
    const row = this.db.prepare('SELECT pk, record FROM jobsets WHERE pk = ?').get(pk);
    return row === undefined ? undefined : stateFromRow(row);
  }

  putState(pk: string, record: StateRecord): void {
    this.db.prepare('INSERT INTO jobsets (pk, cluster, record) VALUES (?, ?, ?) ON CONFLICT (pk) DO UPDATE SET record = excluded.record').run(pk, record.key.cluster, JSON.stringify(record));
  }

  deleteState(pk: string): void {
    this.db.prepare('DELETE FROM jobsets WHERE pk = ?').run(pk);
  }

  listStates(cluster?: string): StateRecord[] {
    const rows = cluster === undefined ? this.db.prepare('SELECT pk, record FROM jobsets').all() : this.db.prepare('SELECT pk, record FROM jobsets WHERE cluster = ?').all(cluster);
    return rows.map(stateFromRow);
  }

  appendJournal(pk: string, record: JournalRecord): void {
    const at = record.item[Attr.at];
    const packed = record.item[Attr.packed];
    // journalAttributes writes exactly these two; anything else would be lost here.
    if (typeof at !== 'number' || !(packed instanceof Uint8Array) || Object.keys(record.item).length !== 2) {
      throw new StoreInvalidError(`journal item ${pk} ${record.sk}: expected its time and packed entry only`);
    }
    this.db.prepare('INSERT INTO journal (pk, sk, at, packed, expires_at) VALUES (?, ?, ?, ?, ?)').run(pk, record.sk, at, packed, record.expiresAt);
  }

  listJournal(pk: string, limit?: number): JournalRecord[] {
    const rows = this.db.prepare('SELECT sk, at, packed, expires_at FROM journal WHERE pk = ? ORDER BY sk LIMIT ?').all(pk, limit ?? -1);
    return rows.map((row) => ({
      sk: String(row['sk']),
      item: { [TABLE_KEY.partitionKey]: pk, [TABLE_KEY.sortKey]: row['sk'], [Attr.at]: row['at'], [Attr.packed]: row['packed'] },
      expiresAt: Number(row['expires_at']),
    }));
  }

  getBookmark(cluster: string, resource: string): BookmarkValue | undefined {
    const row = this.db.prepare('SELECT resource_version, updated_at FROM bookmarks WHERE cluster = ? AND resource = ?').get(cluster, resource);
    return row === undefined ? undefined : { resourceVersion: String(row['resource_version']), updatedAt: Number(row['updated_at']) };
  }

  putBookmark(cluster: string, resource: string, value: BookmarkValue): void {
    this.db
      .prepare('INSERT INTO bookmarks (cluster, resource, resource_version, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (cluster, resource) DO UPDATE SET resource_version = excluded.resource_version, updated_at = excluded.updated_at')
      .run(cluster, resource, value.resourceVersion, value.updatedAt);
  }

  listBookmarks(cluster: string): BookmarkRecord[] {
    return this.db
      .prepare('SELECT resource, resource_version, updated_at FROM bookmarks WHERE cluster = ?')
      .all(cluster)
      .map((row) => ({ resource: String(row['resource']), resourceVersion: String(row['resource_version']), updatedAt: Number(row['updated_at']) }))
      .sort((a, b) => a.resource.localeCompare(b.resource));
  }

  getCluster(id: string): ClusterRecord | undefined {
    const row = this.db.prepare('SELECT id, record FROM clusters WHERE id = ?').get(id);
    return row === undefined ? undefined : clusterFromRow(row);
  }

  putCluster(record: ClusterRecord): void {
    this.db.prepare('INSERT INTO clusters (id, record) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record').run(record.id, JSON.stringify(record));
  }

  deleteCluster(id: string): void {
    this.db.prepare('DELETE FROM clusters WHERE id = ?').run(id);
  }

  listClusters(): ClusterRecord[] {
    return this.db.prepare('SELECT id, record FROM clusters').all().map(clusterFromRow);
  }
}

/** SqliteCheckpointStore: CheckpointStore over a state database the caller opened (openStateDatabase). */
export class SqliteCheckpointStore extends RecordCheckpointStore {
  constructor(database: StateDatabase, options: RecordCheckpointStoreOptions = {}) {
    super(new SqliteRecordTable(database), options);
  }
}

/** StateDatabase: an open state database. */
export interface StateDatabase {
  readonly db: DatabaseSync;
  readonly readOnly: boolean;
  /**
   * close: close the connection. A read-write one first leaves write-ahead-log mode, so the file
   * stands alone (no -wal or -shm beside it) and a later read-only open creates nothing. When a
   * reader still has it open that switch is refused (busy) and the WAL stays, which is as safe:
   * the next open reads it.
   */
  close(): void;
}

/** DatabaseProblem: why a file is not a usable state database (a one-line reason, for the caller's message). */
export class DatabaseProblem extends Error {}

/**
 * checkStateDatabase: that `db` is an intact Lineup state database this code can read: SQLite's
 * quick_check passes (page and index structure), its application_id is Lineup's and its schema
 * version is one this code knows. Reads only. A DatabaseProblem says what is wrong.
 */
export const checkStateDatabase = (db: DatabaseSync): void => {
  let problem: string | undefined;
  try {
    const check = db.prepare('PRAGMA quick_check(1)').get();
    if (check?.['quick_check'] !== 'ok') problem = `damaged: ${String(check?.['quick_check'] ?? 'quick_check returned nothing')}`;
  } catch (error) {
    problem = `damaged: ${(error as Error).message}`;
  }
  if (problem !== undefined) throw new DatabaseProblem(problem);
  const applicationId = Number(db.prepare('PRAGMA application_id').get()?.['application_id']);
  const version = Number(db.prepare('PRAGMA user_version').get()?.['user_version']);
  if (applicationId !== STATE_APPLICATION_ID) throw new DatabaseProblem(`not a Lineup state database (a SQLite file with application_id ${applicationId})`);
  if (version > STATE_SCHEMA_VERSION) throw new DatabaseProblem(`written by a newer Lineup (schema ${version}; this one reads ${STATE_SCHEMA_VERSION})`);
};

/**
 * openStateDatabase: open the state database at `path`. Read-only: never creates or changes the
 * file. Read-write: creates it when absent; WAL with synchronous FULL, so a call that returned is
 * on disk. Either way an existing file is checked first (checkStateDatabase) on a read-only
 * connection, so a damaged one is reported before anything could write to it.
 */
export const openStateDatabase = (path: string, options: { readonly readOnly: boolean; readonly exists: boolean }): StateDatabase => {
  if (options.exists) {
    const reader = openConnection(path, true);
    try {
      checkStateDatabase(reader);
    } finally {
      reader.close();
    }
    if (options.readOnly) {
      const db = openConnection(path, true);
      return { db, readOnly: true, close: () => db.close() };
    }
  } else if (options.readOnly) {
    throw new DatabaseProblem('missing');
  }
  const db = openConnection(path, false);
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = FULL');
    db.exec('BEGIN IMMEDIATE');
    db.exec(SCHEMA);
    db.exec(`PRAGMA application_id = ${STATE_APPLICATION_ID}`);
    db.exec(`PRAGMA user_version = ${STATE_SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    throw error;
  }
  return { db, readOnly: false, close: () => closeWriter(db) };
};

/** openConnection: one connection with the busy timeout; a garbage file fails here or at its first read. */
const openConnection = (path: string, readOnly: boolean): DatabaseSync => {
  try {
    return new DatabaseSync(path, { readOnly, timeout: BUSY_TIMEOUT_MS, enableForeignKeyConstraints: false });
  } catch (error) {
    throw new DatabaseProblem(`cannot be opened: ${(error as Error).message}`, { cause: error });
  }
};

/** closeWriter: StateDatabase.close of a read-write connection. */
const closeWriter = (db: DatabaseSync): void => {
  try {
    db.exec('PRAGMA journal_mode = DELETE');
  } catch (error) {
    if (!/locked|busy/i.test((error as Error).message)) {
      db.close();
      throw error;
    }
  }
  db.close();
};
