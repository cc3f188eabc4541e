/**
 * DynamoBookmarkStore (signed requests, no SDK client) against a real DynamoDB-API server:
 * dynalite, started in this process on loopback. It reads what DynamoCheckpointStore (the SDK's
 * client) wrote and the other way round, so the forwarder's checkpoints and the Lambda functions'
 * stay one table. If dynalite cannot start, the `before` hook fails and so does every test.
 */
import { after, before, describe, it } from 'node:test';
import { GetItemCommand, QueryCommand, type GetItemCommandOutput } from '@aws-sdk/client-dynamodb';
import assert from 'node:assert/strict';
import { AwsJsonClient, DYNAMODB } from '../../lib/aws/jsonClient.ts';
import { CounterName, Counters } from '../../lib/counters.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { DynamoBookmarkStore, fromItem } from '../../lib/store/bookmarkStore.ts';
import { DynamoCheckpointStore } from '../../lib/store/dynamoStore.ts';
import { ensureCheckpointTable, startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { BOOKMARK_ATTRIBUTES, KeyPart, TABLE_KEY, bookmarkSk, clusterPk, forwarderPk } from '../../lib/store/table.ts';
import type { ClusterRecord } from '../../lib/store/types.ts';

const TABLE = 'bookmark-store-test';

describe('store/bookmarkStore', () => {
  let dynamo: EmbeddedDynamo | undefined;
  let client: AwsJsonClient | undefined;
  let counters: Counters;
  let store: DynamoBookmarkStore;
  let sdkStore: DynamoCheckpointStore;

  before(async () => {
    dynamo = await startEmbeddedDynamo();
    await ensureCheckpointTable(dynamo.client, TABLE);
    client = new AwsJsonClient({ service: DYNAMODB, region: 'us-east-1', endpoint: new URL(dynamo.endpoint), credentials: async () => ({ accessKeyId: 'test', secretAccessKey: 'test' }) });
    counters = new Counters();
    store = new DynamoBookmarkStore({ client, tableName: TABLE, counters });
    sdkStore = new DynamoCheckpointStore({ client: dynamo.client, tableName: TABLE });
  });
  after(async () => {
    client?.destroy();
    await dynamo?.stop();
  });

  it('puts and gets bookmarks, each a PutItem or GetItem counted; a bookmark never written is undefined', async () => {
    const before = counters.snapshot();
    assert.equal(await store.getBookmark('c1', 'jobs'), undefined);
    await store.putBookmark('c1', 'jobs', '4711', 1_000);
    await store.putBookmark('c1', 'jobs', '4712', 2_000);
    assert.equal(await store.getBookmark('c1', 'jobs'), '4712');
    assert.equal(await store.getBookmark('c2', 'jobs'), undefined);
    const after = counters.snapshot();
    assert.equal((after[`${CounterName.DynamoPrefix}PutItem`] ?? 0) - (before[`${CounterName.DynamoPrefix}PutItem`] ?? 0), 2);
    assert.equal((after[`${CounterName.DynamoPrefix}GetItem`] ?? 0) - (before[`${CounterName.DynamoPrefix}GetItem`] ?? 0), 3);
  });

  it('writes the items DynamoCheckpointStore reads, and reads those it writes', async () => {
    await store.putBookmark('shared', 'jobsets', '17', 5_000);
    assert.deepEqual(await sdkStore.listBookmarks('shared'), [{ resource: 'jobsets', resourceVersion: '17', updatedAt: 5_000 }]);
    await sdkStore.putBookmark('shared', 'jobs', '99', 6_000);
    assert.equal(await store.getBookmark('shared', 'jobs'), '99');
  });

  it('keeps bookmarks under FORWARDER#<id>, holding BOOKMARK_ATTRIBUTES only (what the forwarder role may write), and nothing under CLUSTER#<id>', async () => {
    assert.ok(dynamo);
    await store.putBookmark('own', 'jobs', '5', 7_000);
    await sdkStore.putBookmark('own', 'jobsets', '6', 8_000);
    for (const resource of ['jobs', 'jobsets']) {
      const output: GetItemCommandOutput = await dynamo.client.send(new GetItemCommand({ TableName: TABLE, Key: { [TABLE_KEY.partitionKey]: { S: forwarderPk('own') }, [TABLE_KEY.sortKey]: { S: bookmarkSk(resource) } }, ConsistentRead: true }));
      assert.deepEqual(Object.keys(output.Item ?? {}).sort(), [...BOOKMARK_ATTRIBUTES].sort(), resource);
    }
    const underCluster = await dynamo.client.send(
      new QueryCommand({ TableName: TABLE, KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey }, ExpressionAttributeValues: { ':pk': { S: clusterPk('own') } }, ConsistentRead: true }),
    );
    assert.deepEqual(underCluster.Items, [], `nothing of the forwarder under ${clusterPk('own')}`);
    assert.ok(forwarderPk('own').startsWith(KeyPart.forwarder) && !forwarderPk('own').startsWith(KeyPart.cluster));
  });

  it('reads a registry entry DynamoCheckpointStore wrote, nested auth included; an unknown cluster is undefined', async () => {
    const record: ClusterRecord = { id: 'eks-prod', endpoint: 'https://ABC.gr7.us-east-1.eks.amazonaws.com', caData: 'LS0tLS1CRUdJTg==', auth: { type: 'eks', clusterName: 'prod', region: 'us-east-1', roleArn: 'arn:aws:iam::123456789012:role/lineup' } };
    await sdkStore.putCluster(record);
    assert.deepEqual(await store.getCluster('eks-prod'), record);
    assert.equal(await store.getCluster('nobody'), undefined);
  });

  it('a missing table is a NotFoundError naming the table, the service error kept as cause', async () => {
    assert.ok(client);
    const missing = new DynamoBookmarkStore({ client, tableName: 'no-such-table', counters });
    await assert.rejects(missing.getBookmark('c1', 'jobs'), (error: unknown) => {
      assert.ok(error instanceof LineupError, String(error));
      assert.equal(error.code, ErrorCode.NOT_FOUND);
      assert.match(error.message, /dynamodb GetItem on table no-such-table failed: ResourceNotFoundException \(http 400\)/);
      assert.ok(error.cause instanceof Error);
      return true;
    });
  });

  it('fromItem: every attribute type the store writes, and a binary one refused by name', () => {
    assert.deepEqual(
      fromItem({ s: { S: 'x' }, n: { N: '1.5' }, b: { BOOL: false }, z: { NULL: true }, m: { M: { l: { L: [{ S: 'a' }, { N: '2' }] } } }, ss: { SS: ['p', 'q'] }, ns: { NS: ['3'] } }),
      { s: 'x', n: 1.5, b: false, z: null, m: { l: ['a', 2] }, ss: new Set(['p', 'q']), ns: new Set([3]) },
    );
    assert.throws(() => fromItem(JSON.parse('{"blob":{"B":"AAEC"}}') as Parameters<typeof fromItem>[0]), /dynamodb attribute item\.blob has type B, expected S, N, BOOL/);
  });
});
