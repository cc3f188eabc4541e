/**
 * The checkpoint stores with two writes only tests make: bumping a JobSet's dirty counter without
 * noting an event (markDirty) and taking its lease without one (tryAcquireLease) — how a test sets
 * a state item up as a reconciler that crashed between the two, or one holding the lease, would
 * leave it. The product does both only inside noteEvent, so neither is part of the store's roles
 * (lib/store/types.ts); each is written here as the store it extends would do it.
 */
import { Attr, RESYNC_INDEX, jobSetPk, resyncShardOf } from '../../../lib/store/table.ts';
import { DynamoCheckpointStore, IDENTITY_SETS, expressionNames, identityValues, stateKey } from '../../../lib/store/dynamoStore.ts';
import { MemoryRecordTable } from '../../../lib/store/memoryStore.ts';
import { RecordCheckpointStore, type RecordCheckpointStoreOptions, type RecordTable } from '../../../lib/store/recordStore.ts';
import { SqliteRecordTable, type StateDatabase } from '../../../lib/store/sqliteStore.ts';
import type { CheckpointStore, HeldLease, JobSetKey } from '../../../lib/store/types.ts';

/** TestOnlyWrites: what a test may do to a state item besides what the product does. */
export interface TestOnlyWrites {
  /** markDirty: bump the JobSet's dirty counter (creating its item, a resync candidate from now); returns the new value. */
  markDirty(key: JobSetKey, now: number): Promise<number>;
  /**
   * tryAcquireLease: take the lease when nobody holds it, it expired, or `owner` already holds
   * it; returns the lease (with the dirty value to reconcile to) or undefined when held by another.
   */
  tryAcquireLease(key: JobSetKey, owner: string, now: number, ttlMs: number): Promise<HeldLease | undefined>;
}

/** TestStore: every role of the checkpoint store and the test-only writes. */
export type TestStore = CheckpointStore & TestOnlyWrites;

/** TestRecordStore: RecordCheckpointStore (memory or SQLite) with the test-only writes, each one transaction counted as its UpdateItem. */
export class TestRecordStore extends RecordCheckpointStore implements TestOnlyWrites {
  constructor(table: RecordTable, options: RecordCheckpointStoreOptions = {}) {
    super(table, options);
  }

  async markDirty(key: JobSetKey, now: number): Promise<number> {
    this.count('UpdateItem');
    return this.table.transaction(() => {
      const record = this.stateRecord(key, now);
      record.dirty += 1;
      record.updatedAt = now;
      this.table.putState(jobSetPk(key), record);
      return record.dirty;
    });
  }

  async tryAcquireLease(key: JobSetKey, owner: string, now: number, ttlMs: number): Promise<HeldLease | undefined> {
    this.count('UpdateItem');
    return this.table.transaction(() => this.acquire(key, owner, now, ttlMs));
  }
}

/** TestMemoryStore: MemoryCheckpointStore with the test-only writes. */
export class TestMemoryStore extends TestRecordStore {
  constructor(options: RecordCheckpointStoreOptions = {}) {
    super(new MemoryRecordTable(), options);
  }
}

/** TestSqliteStore: SqliteCheckpointStore with the test-only writes. */
export class TestSqliteStore extends TestRecordStore {
  constructor(database: StateDatabase, options: RecordCheckpointStoreOptions = {}) {
    super(new SqliteRecordTable(database), options);
  }
}

/** TestDynamoStore: DynamoCheckpointStore with the test-only writes, each one UpdateItem. */
export class TestDynamoStore extends DynamoCheckpointStore implements TestOnlyWrites {
  /** markDirty: `ADD dirty 1`, creating the item; it also becomes a resync candidate until a release finds it quiescent. */
  async markDirty(key: JobSetKey, now: number): Promise<number> {
    const update = [
      `ADD #${Attr.dirty} :one`,
      `SET #${Attr.reconciled} = if_not_exists(#${Attr.reconciled}, :zero), ${IDENTITY_SETS},`,
      `#${RESYNC_INDEX.partitionKey} = :shard, #${RESYNC_INDEX.sortKey} = :now, #${Attr.updatedAt} = :now`,
    ].join(' ');
    const attributes = await this.update({
      TableName: this.tableName,
      Key: stateKey(key),
      UpdateExpression: update,
      ExpressionAttributeNames: expressionNames(update),
      ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':shard': resyncShardOf(jobSetPk(key)), ':now': now, ...identityValues(key) },
      ReturnValues: 'UPDATED_NEW',
    });
    const dirty = attributes?.[Attr.dirty];
    return typeof dirty === 'number' ? dirty : 0;
  }

  /** tryAcquireLease: the conditional UpdateItem noteEvent takes a lapsed lease with. */
  async tryAcquireLease(key: JobSetKey, owner: string, now: number, ttlMs: number): Promise<HeldLease | undefined> {
    return this.takeLease(key, owner, now, ttlMs);
  }
}
