import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseProblem, SqliteCheckpointStore, openStateDatabase, type StateDatabase } from '../../lib/store/sqliteStore.ts';
import { StoreInvalidError } from '../../lib/errors.ts';
import { TestSqliteStore } from './support/testStores.ts';
import { describeStoreBehaviour, jobSet, makeJournalEntry, T0, TTL } from './storeBehaviour.ts';

describe('store/sqliteStore', () => {
  const root = mkdtempSync(join(tmpdir(), 'lineup-sqlite-'));
  const open: StateDatabase[] = [];
  let files = 0;
  after(() => {
    for (const database of open) database.close();
    rmSync(root, { recursive: true, force: true });
  });
  /** freshDatabase: a new state database file, closed after the suite. */
  const freshDatabase = (): { path: string; database: StateDatabase } => {
    files += 1;
    const path = join(root, `state-${files}.db`);
    const database = openStateDatabase(path, { readOnly: false, exists: false });
    open.push(database);
    return { path, database };
  };

  // The same suite as the DynamoDB and in-memory stores': the state directory keeps the deployed semantics.
  describeStoreBehaviour(async () => new TestSqliteStore(freshDatabase().database), { propertyRuns: 100 });

  it('lets a read-only connection see what the writer committed, and refuses its writes', async () => {
    const { path, database } = freshDatabase();
    const writer = new SqliteCheckpointStore(database);
    await writer.appendJournal(makeJournalEntry(jobSet('a'), T0));
    const readOnly = openStateDatabase(path, { readOnly: true, exists: true });
    try {
      const reader = new SqliteCheckpointStore(readOnly);
      assert.equal((await reader.listJournal(jobSet('a'))).length, 1);
      await writer.appendJournal(makeJournalEntry(jobSet('a'), T0 + 1));
      assert.equal((await reader.listJournal(jobSet('a'))).length, 2);
      await assert.rejects(reader.noteEvent(jobSet('a'), { triggers: [], owner: 'me', now: T0, ttlMs: TTL }), /readonly/);
    } finally {
      readOnly.close();
    }
  });

  it('reports a file that is not a database, or not Lineup\'s, as a DatabaseProblem', () => {
    const garbage = join(root, 'garbage.db');
    writeFileSync(garbage, Buffer.alloc(8192, 7));
    assert.throws(() => openStateDatabase(garbage, { readOnly: true, exists: true }), (error: unknown) => error instanceof DatabaseProblem && /not a database/.test(error.message));
    assert.throws(() => openStateDatabase(join(root, 'absent.db'), { readOnly: true, exists: false }), DatabaseProblem);
  });

  it('reads a hand-edited record as a StoreInvalidError naming its row', async () => {
    const { database } = freshDatabase();
    const store = new TestSqliteStore(database);
    await store.tryAcquireLease(jobSet('edited'), 'me', T0, TTL);
    database.db.exec(`UPDATE jobsets SET record = '{"dirty": "many"}'`);
    await assert.rejects(store.getState(jobSet('edited')), (error: unknown) => error instanceof StoreInvalidError && /jobsets row JOBSET#c1#default#edited/.test(error.message));
  });
});
