import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { startEmbeddedDynamo } from '../../lib/store/embedded.ts';
import { DEFAULT_TABLE_NAME, tableDefinition } from '../../lib/store/table.ts';
import { T0, TTL, jobSet, makeJournalEntry } from './storeBehaviour.ts';
import { TestDynamoStore } from './support/testStores.ts';

describe('store/embedded', () => {
  const directories: string[] = [];
  after(async () => {
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  /** tempDir: a fresh directory removed after the suite. */
  const tempDir = async (): Promise<string> => {
    const directory = await mkdtemp(join(tmpdir(), 'lineup-embedded-'));
    directories.push(directory);
    return directory;
  };

  it('starts on loopback with the checkpoint table from tableDefinition()', async () => {
    const dynamo = await startEmbeddedDynamo();
    try {
      assert.match(dynamo.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(dynamo.tableName, DEFAULT_TABLE_NAME);
      const described = await dynamo.client.send(new DescribeTableCommand({ TableName: DEFAULT_TABLE_NAME }));
      assert.equal(described.Table?.TableStatus, 'ACTIVE');
      assert.deepEqual(described.Table?.KeySchema, tableDefinition().KeySchema);
    } finally {
      await dynamo.stop();
    }
  });

  it('keeps leases, counters, decisions, bookmarks and the registry in its directory across a restart', async () => {
    // Prepare: a first run writes, then stops.
    const path = join(await tempDir(), '.lineup', 'dynamodb');
    const key = jobSet('js');
    const first = await startEmbeddedDynamo({ path });
    const firstStore = new TestDynamoStore({ client: first.client, tableName: first.tableName });
    await firstStore.markDirty(key, T0);
    await firstStore.markDirty(key, T0 + 1);
    await firstStore.tryAcquireLease(key, 'r1', T0 + 2, TTL);
    await firstStore.appendJournal(makeJournalEntry(key, T0 + 2));
    await firstStore.putBookmark('c1', 'jobsets', '4242', T0);
    await firstStore.putCluster({ id: 'c1', endpoint: 'https://c1', auth: { type: 'token', token: 't' } });
    await first.stop();
    assert.ok((await readdir(path)).length > 0, 'the data directory holds the LevelDB files');

    // Act: a second run opens the same directory (the table exists, so it is not created again).
    const second = await startEmbeddedDynamo({ path });
    try {
      const secondStore = new TestDynamoStore({ client: second.client, tableName: second.tableName });
      // Assess
      assert.deepEqual(await secondStore.getState(key), {
        key,
        dirty: 2,
        reconciled: 0,
        lease: { owner: 'r1', expiresAt: T0 + 2 + TTL },
        updatedAt: T0 + 2,
      });
      assert.deepEqual(await secondStore.listJournal(key), [makeJournalEntry(key, T0 + 2)]);
      assert.equal(await secondStore.getBookmark('c1', 'jobsets'), '4242');
      assert.deepEqual(await secondStore.listClusters(), [{ id: 'c1', endpoint: 'https://c1', auth: { type: 'token', token: 't' } }]);
      // The indexes came back too: the lapsed lease is found by the resync.
      assert.deepEqual((await secondStore.listNeedingResync(T0 + 2 + TTL)).map((state) => state.key), [key]);
      assert.equal(await secondStore.markDirty(key, T0 + 3), 3);
    } finally {
      await second.stop();
    }
  });

  it('starts empty without a directory, and forgets everything when stopped', async () => {
    const first = await startEmbeddedDynamo();
    await new TestDynamoStore({ client: first.client, tableName: first.tableName }).markDirty(jobSet('js'), T0);
    await first.stop();
    const second = await startEmbeddedDynamo();
    try {
      assert.equal(await new TestDynamoStore({ client: second.client, tableName: second.tableName }).getState(jobSet('js')), undefined);
    } finally {
      await second.stop();
    }
  });
});
