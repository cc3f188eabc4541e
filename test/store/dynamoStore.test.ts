/**
 * TestDynamoStore against a real DynamoDB-API server: dynalite, started in this process on
 * loopback. If it cannot start, the `before` hook fails and so does every test —
 * nothing here is skipped.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DescribeTableCommand, DynamoDBClient, type BatchGetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { CounterName, Counters } from '../../lib/counters.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { BATCH_GET_RETRY } from '../../lib/store/dynamoStore.ts';
import { ensureCheckpointTable, startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import {
  Attr,
  KeyPart,
  LIST_INDEX,
  RESYNC_INDEX,
  TABLE_KEY,
  TTL_ATTRIBUTE,
  BOOKMARK_ATTRIBUTES,
  bookmarkSk,
  clusterPk,
  forwarderPk,
  jobSetPk,
  tableDefinition,
} from '../../lib/store/table.ts';
import type { ClusterRecord } from '../../lib/store/types.ts';
import { T0, TTL, describeStoreBehaviour, handleEvent, jobSet, makeJournalEntry } from './storeBehaviour.ts';
import { dynamoItemBytes } from '../../lib/store/itemSize.ts';
import { MAX_PENDING_TRIGGERS, DEFAULT_JOURNAL_RETENTION_MS } from '../../lib/store/rules.ts';
import type { JournalEvent } from '../../lib/store/types.ts';
import { TestDynamoStore } from './support/testStores.ts';

/** DynamoDB's item size limit, 400 KB. */
const DYNAMO_MAX_ITEM_BYTES = 400 * 1024;

let dynamo: EmbeddedDynamo | undefined;
let tables = 0;

/** server: the running dynalite (the before hook threw if it did not start). */
const server = (): EmbeddedDynamo => {
  assert.ok(dynamo, 'dynalite did not start');
  return dynamo;
};

/** freshStore: a store on a new, empty table, so tests that list cannot see each other's items. */
const freshStore = async (counters?: Counters): Promise<{ store: TestDynamoStore; tableName: string }> => {
  tables += 1;
  const tableName = `store-test-${tables}`;
  await ensureCheckpointTable(server().client, tableName);
  return { store: new TestDynamoStore({ client: server().client, tableName, ...(counters ? { counters } : {}) }), tableName };
};

/** rejectsWithCode: the promise rejects with a LineupError of `code` that keeps the SDK error as cause. */
const rejectsWithCode = async (promise: Promise<unknown>, code: string): Promise<void> => {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof LineupError, `expected a LineupError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.ok(error.cause !== undefined, 'the SDK error is kept as cause');
    return true;
  });
};

describe('store/dynamoStore', () => {
  before(async () => {
    dynamo = await startEmbeddedDynamo();
  });
  after(async () => {
    await dynamo?.stop();
  });

  describeStoreBehaviour(async () => (await freshStore()).store, { propertyRuns: 40 });

  describe('table', () => {
    it('is created from tableDefinition() with both sparse indexes', async () => {
      const { tableName } = await freshStore();
      const described = await server().client.send(new DescribeTableCommand({ TableName: tableName }));
      const indexes = (described.Table?.GlobalSecondaryIndexes ?? []).map((index) => ({
        name: index.IndexName,
        keys: index.KeySchema?.map((key) => key.AttributeName),
        projection: index.Projection?.ProjectionType,
      }));
      assert.deepEqual(
        indexes.sort((a, b) => String(a.name).localeCompare(String(b.name))),
        [
          { name: LIST_INDEX.name, keys: [LIST_INDEX.partitionKey, LIST_INDEX.sortKey], projection: 'KEYS_ONLY' },
          { name: RESYNC_INDEX.name, keys: [RESYNC_INDEX.partitionKey, RESYNC_INDEX.sortKey], projection: 'KEYS_ONLY' },
        ],
      );
      assert.deepEqual(described.Table?.KeySchema, tableDefinition(tableName).KeySchema);
    });
  });

  describe('items', () => {
    it('stores journal entries under JOURNAL#<13-digit ms>#… with expiresAt in epoch seconds after the retention', async () => {
      // Prepare
      const { store, tableName } = await freshStore();
      const key = jobSet('js');
      const documents = DynamoDBDocumentClient.from(server().client);
      // Act
      await store.appendJournal(makeJournalEntry(key, T0 + 2));
      await store.appendJournal(makeJournalEntry(key, T0 + 1));
      // Assess
      const output = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': jobSetPk(key), ':prefix': 'JOURNAL#' },
        }),
      );
      const items = output.Items ?? [];
      assert.deepEqual(
        items.map((item) => String(item.sk).split('#')[1]),
        [String(T0 + 1).padStart(13, '0'), String(T0 + 2).padStart(13, '0')],
      );
      assert.deepEqual(
        items.map((item) => item[TTL_ATTRIBUTE]),
        [Math.ceil((T0 + 1 + DEFAULT_JOURNAL_RETENTION_MS) / 1000), Math.ceil((T0 + 2 + DEFAULT_JOURNAL_RETENTION_MS) / 1000)],
      );
      assert.ok(items.every((item) => item[LIST_INDEX.partitionKey] === undefined && item[RESYNC_INDEX.partitionKey] === undefined));
    });

    it('takes the decision retention from its options', async () => {
      const tableName = (await freshStore()).tableName;
      const store = new TestDynamoStore({ client: server().client, tableName, journalRetentionMs: 60_000 });
      await store.appendJournal(makeJournalEntry(jobSet('js'), T0));
      const output = await DynamoDBDocumentClient.from(server().client).send(
        new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': jobSetPk(jobSet('js')) } }),
      );
      assert.equal(output.Items?.[0]?.[TTL_ATTRIBUTE], (T0 + 60_000) / 1000);
    });

    it('keeps a JobSet in the resync index while it is not quiescent, and takes it out on release', async () => {
      const { store, tableName } = await freshStore();
      const key = jobSet('js');
      const documents = DynamoDBDocumentClient.from(server().client);
      const stateItem = async () =>
        (await documents.send(new GetCommand({ TableName: tableName, Key: { pk: jobSetPk(key), sk: KeyPart.state } }))).Item ?? {};
      await store.markDirty(key, T0);
      assert.equal((await stateItem())[RESYNC_INDEX.sortKey], T0);
      const lease = await store.tryAcquireLease(key, 'r1', T0 + 5, TTL);
      assert.equal((await stateItem())[RESYNC_INDEX.sortKey], T0 + 5);
      assert.ok(lease);
      await store.releaseLease(key, { owner: 'r1', reconciledDirty: lease.dirty, now: T0 + 10, ttlMs: TTL, wakeAt: T0 + 99 });
      assert.equal((await stateItem())[RESYNC_INDEX.sortKey], T0 + 99);
      await store.markDirty(key, T0 + 20);
      const again = await store.tryAcquireLease(key, 'r1', T0 + 20, TTL);
      assert.ok(again);
      await store.releaseLease(key, { owner: 'r1', reconciledDirty: again.dirty, now: T0 + 30, ttlMs: TTL });
      const quiescent = await stateItem();
      assert.equal(quiescent[RESYNC_INDEX.partitionKey], undefined);
      assert.equal(quiescent[RESYNC_INDEX.sortKey], undefined);
      assert.equal(quiescent[Attr.wakeAt], undefined);
    });
  });

  describe('what a forwarder may write', () => {
    it("keeps bookmarks under FORWARDER#<id>, and no longer reads one an earlier version wrote under CLUSTER#<id>", async () => {
      const { store, tableName } = await freshStore();
      const documents = DynamoDBDocumentClient.from(server().client);
      await documents.send(new PutCommand({ TableName: tableName, Item: { pk: clusterPk('c1'), sk: bookmarkSk('jobs'), [Attr.resourceVersion]: '41', [Attr.updatedAt]: T0 } }));
      assert.equal(await store.getBookmark('c1', 'jobs'), undefined, 'the old bookmark is not read: the forwarder lists once');
      assert.deepEqual(await store.listBookmarks('c1'), []);
      await store.putBookmark('c1', 'jobs', '42', T0 + 1);
      const item = (await documents.send(new GetCommand({ TableName: tableName, Key: { pk: forwarderPk('c1'), sk: bookmarkSk('jobs') } }))).Item;
      assert.deepEqual(item, { pk: forwarderPk('c1'), sk: bookmarkSk('jobs'), [Attr.resourceVersion]: '42', [Attr.updatedAt]: T0 + 1 });
      assert.deepEqual(Object.keys(item ?? {}).sort(), [...BOOKMARK_ATTRIBUTES].sort());
    });

    it("takes no registry entry from the forwarder's partition, not even one listed in the `list` index", async () => {
      const { store, tableName } = await freshStore();
      const documents = DynamoDBDocumentClient.from(server().client);
      const own: ClusterRecord = { id: 'c1', endpoint: 'https://c1.example.com', auth: { type: 'eks', clusterName: 'c1', region: 'eu-west-1' } };
      await store.putCluster(own);
      // A registry-shaped item at keys a forwarder of c1 may name: its own id and another's, with the index keys of a registry entry.
      for (const id of ['c1', 'victim']) {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              pk: forwarderPk('c1'),
              sk: id === 'c1' ? KeyPart.registry : `${KeyPart.registry}#${id}`,
              [LIST_INDEX.partitionKey]: KeyPart.listClusters,
              [LIST_INDEX.sortKey]: id,
              [Attr.id]: id,
              [Attr.endpoint]: 'https://attacker.example.com',
              [Attr.auth]: { type: 'eks', clusterName: 'victim-eks', region: 'eu-west-1' },
            },
          }),
        );
      }
      assert.deepEqual(await store.getCluster('c1'), own);
      assert.equal(await store.getCluster('victim'), undefined);
      assert.deepEqual(await store.listClusters(), [own]);
    });
  });

  describe('counters', () => {
    it('counts one UpdateItem per markDirty, tryAcquireLease and release in the happy path', async () => {
      // Prepare
      const counters = new Counters();
      const { store } = await freshStore(counters);
      // Act: one event → one pass → release.
      const passes = await handleEvent(store, jobSet('js'), 'r1', () => T0, async () => {});
      // Assess
      assert.equal(passes, 1);
      assert.deepEqual(counters.snapshot(), { [`${CounterName.DynamoPrefix}UpdateItem`]: 3 });
    });

    it('counts two more UpdateItems for the holder (failed release, renewal, release) and two for the deferred event', async () => {
      const counters = new Counters();
      const { store } = await freshStore(counters);
      const key = jobSet('js');
      let deferred: Promise<number> | undefined;
      const passes = await handleEvent(store, key, 'r1', () => T0, async () => {
        // An event arrives during the first pass: markDirty + a refused tryAcquireLease.
        deferred ??= handleEvent(store, key, 'r2', () => T0, async () => {});
        await deferred;
      });
      assert.equal(passes, 2);
      assert.equal(await deferred, 0);
      assert.deepEqual(counters.snapshot(), { [`${CounterName.DynamoPrefix}UpdateItem`]: 7 });
    });

    it('counts reads and writes by operation', async () => {
      const counters = new Counters();
      const { store } = await freshStore(counters);
      await store.markDirty(jobSet('js'), T0);
      await store.getState(jobSet('js'));
      await store.appendJournal(makeJournalEntry(jobSet('js'), T0));
      await store.listJournal(jobSet('js'));
      await store.listJobSets('c1');
      await store.putCluster({ id: 'c1', endpoint: 'https://c1', auth: { type: 'token', token: 't' } });
      await store.deleteCluster('c1');
      assert.deepEqual(counters.snapshot(), {
        'dynamodb.BatchGetItem': 1,
        'dynamodb.DeleteItem': 1,
        'dynamodb.GetItem': 1,
        'dynamodb.PutItem': 2,
        'dynamodb.Query': 2,
        'dynamodb.UpdateItem': 1,
      });
    });

    it('counts one Query per resync shard plus one BatchGetItem per hundred candidates', async () => {
      const counters = new Counters();
      const { store } = await freshStore(counters);
      for (let i = 0; i < 3; i += 1) await store.markDirty(jobSet(`js-${i}`), T0);
      await store.listNeedingResync(T0);
      assert.equal(counters.get('dynamodb.Query'), 16);
      assert.equal(counters.get('dynamodb.BatchGetItem'), 1);
    });
  });

  describe('unprocessed keys', () => {
    /**
     * throttlingStore: a store on a fresh table whose client has dynalite answer the first
     * `throttled` BatchGetItem calls with only their first `kept` items, the other keys left
     * unprocessed — as DynamoDB does when a read is throttled (dynalite never does by itself).
     */
    const throttlingStore = async (throttled: number, kept: number) => {
      const { tableName } = await freshStore();
      const client = new DynamoDBClient({ endpoint: server().endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
      let batchGets = 0;
      client.middlewareStack.add(
        (next, context) => async (args) => {
          const result = await next(args);
          if (context.commandName !== 'BatchGetItemCommand' || (batchGets += 1) > throttled) return result;
          const output = result.output as BatchGetItemCommandOutput;
          const items = output.Responses?.[tableName] ?? [];
          output.Responses = { [tableName]: items.slice(0, kept) };
          output.UnprocessedKeys = {
            [tableName]: { Keys: items.slice(kept).map((item) => ({ [TABLE_KEY.partitionKey]: item[TABLE_KEY.partitionKey]!, [TABLE_KEY.sortKey]: item[TABLE_KEY.sortKey]! })) },
          };
          return result;
        },
        { step: 'initialize', name: 'leaveKeysUnprocessed' },
      );
      const counters = new Counters();
      const sleeps: number[] = [];
      const store = new TestDynamoStore({ client, tableName, counters, retrySeams: { sleep: async (ms) => void sleeps.push(ms) } });
      for (const name of ['a', 'b', 'c', 'd']) await store.markDirty(jobSet(name), T0);
      return { store, counters, sleeps, close: () => client.destroy() };
    };

    it('asks again for the keys left unprocessed, on BATCH_GET_RETRY, until every item came', async () => {
      const { store, counters, sleeps, close } = await throttlingStore(2, 1);
      try {
        const listed = await store.listJobSets('c1');
        assert.deepEqual(listed.map((state) => state.key.name), ['a', 'b', 'c', 'd']);
        assert.equal(counters.get('dynamodb.BatchGetItem'), 3);
        assert.equal(sleeps.length, 2);
        sleeps.forEach((delay, index) => {
          const ceiling = BATCH_GET_RETRY.baseDelayMs * 2 ** index;
          assert.ok(delay >= ceiling / 2 && delay <= ceiling, `retry ${index + 1} waited ${delay} ms, expected ${ceiling / 2}..${ceiling}`);
        });
      } finally {
        close();
      }
    });

    it('gives up with UnavailableError after BATCH_GET_RETRY.maxAttempts requests that leave keys unprocessed', async () => {
      const { store, counters, sleeps, close } = await throttlingStore(Number.POSITIVE_INFINITY, 0);
      try {
        await assert.rejects(store.listJobSets('c1'), (error: unknown) => {
          assert.ok(error instanceof LineupError && error.code === ErrorCode.UNAVAILABLE, String(error));
          assert.match(error.message, /left \d+ keys unprocessed after 5 attempts/);
          return true;
        });
        assert.equal(counters.get('dynamodb.BatchGetItem'), BATCH_GET_RETRY.maxAttempts);
        assert.equal(sleeps.length, BATCH_GET_RETRY.maxAttempts - 1);
      } finally {
        close();
      }
    });
  });

  describe('errors', () => {
    it('turns a missing table into a NotFoundError', async () => {
      const store = new TestDynamoStore({ client: server().client, tableName: 'no-such-table' });
      await rejectsWithCode(store.markDirty(jobSet('js'), T0), ErrorCode.NOT_FOUND);
      await rejectsWithCode(store.getState(jobSet('js')), ErrorCode.NOT_FOUND);
    });

    it('turns a server that does not answer into an UnavailableError', async () => {
      // A client aimed at a port nothing listens on (the embedded server's, after it stopped).
      const stopped = await startEmbeddedDynamo();
      const endpoint = stopped.endpoint;
      await stopped.stop();
      const client = new DynamoDBClient({
        endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
        maxAttempts: 1,
      });
      try {
        const store = new TestDynamoStore({ client, tableName: 'lineup-checkpoints' });
        await rejectsWithCode(store.tryAcquireLease(jobSet('js'), 'r1', T0, TTL), ErrorCode.UNAVAILABLE);
      } finally {
        client.destroy();
      }
    });

    it('turns a request the server refuses as malformed into a StoreInvalidError', async () => {
      const { store } = await freshStore();
      // An item over DynamoDB's 400 KB limit.
      const record = { id: 'big', endpoint: 'https://x', caData: 'x'.repeat(500 * 1024), auth: { type: 'token' as const } };
      await rejectsWithCode(store.putCluster(record), ErrorCode.STORE_INVALID);
    });

    it('un-wedges a state item at the 400 KB limit (pending unbounded before): the note trims it first, then counts', async () => {
      // Prepare: an item a Lineup without the pending bound grew to just under the limit.
      const counters = new Counters();
      const { store, tableName } = await freshStore(counters);
      const key = jobSet('js');
      const stale = (index: number): JournalEvent => ({ id: `e${index}`, detailType: 'Job Changed', kind: 'Job', name: `js-${index}-${'x'.repeat(2_000)}`, resourceVersion: String(index), watchType: 'MODIFIED' });
      const item: Record<string, unknown> = { pk: jobSetPk(key), sk: KeyPart.state, [Attr.cluster]: key.cluster, [Attr.namespace]: key.namespace, [Attr.name]: key.name, [Attr.dirty]: 500, [Attr.reconciled]: 0, [Attr.pending]: [] };
      const pending: JournalEvent[] = [];
      while (dynamoItemBytes({ ...item, [Attr.pending]: [...pending, stale(pending.length)] }) < DYNAMO_MAX_ITEM_BYTES - 100) pending.push(stale(pending.length));
      await DynamoDBDocumentClient.from(server().client).send(new PutCommand({ TableName: tableName, Item: { ...item, [Attr.pending]: pending } }));
      const fresh: JournalEvent = { id: 'new', detailType: 'Job Changed', kind: 'Job', name: `js-new-${'y'.repeat(240)}`, resourceVersion: '9', watchType: 'MODIFIED' };
      // Act
      const note = await store.noteEvent(key, { triggers: [fresh], owner: 'r1', now: T0, ttlMs: TTL });
      // Assess
      assert.equal(note.outcome, 'leased');
      const lease = note.outcome === 'leased' ? note.lease : undefined;
      assert.equal(lease?.pending.length, MAX_PENDING_TRIGGERS);
      assert.deepEqual(lease?.pending.at(-1), fresh);
      assert.equal(lease?.pendingDropped, pending.length - (MAX_PENDING_TRIGGERS - 1), 'every stale trigger but the newest 63 dropped and counted');
      assert.equal(lease?.dirty, 501);
      assert.deepEqual(counters.snapshot(), { 'dynamodb.GetItem': 1, 'dynamodb.UpdateItem': 3 }, 'the refused note, the read and trim, the note');
    });

    it('reports an item that does not parse as a StoreInvalidError naming it', async () => {
      const { store, tableName } = await freshStore();
      const documents = DynamoDBDocumentClient.from(server().client);
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: { pk: jobSetPk(jobSet('js')), sk: KeyPart.state, [Attr.dirty]: 'many' },
        }),
      );
      await assert.rejects(store.getState(jobSet('js')), (error: unknown) => {
        assert.ok(error instanceof LineupError);
        assert.equal(error.code, ErrorCode.STORE_INVALID);
        assert.match(error.message, /JOBSET#c1#default#js STATE/);
        return true;
      });
    });
  });
});
