/**
 * Cluster slots (lib/store/clusterSlots.ts) behave the same in memory and on a real DynamoDB-API
 * server (dynalite, started here): a cluster has at most `limit` live holders, a holder may take
 * its slot again, a released or expired slot is free, clusters do not share slots, and invocations
 * racing for the last slot get it once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MemoryClusterSlots, type ClusterSlots } from '../../lib/store/clusterSlots.ts';
import { DynamoClusterSlots } from '../../lib/store/dynamoClusterSlots.ts';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { Attr, KeyPart, TABLE_KEY, slotsPk } from '../../lib/store/table.ts';

const NOW = 1_800_000_000_000;
const TTL = 60_000;

const request = (cluster: string, holder: string, limit: number, now = NOW) => ({ cluster, holder, limit, now, expiresAt: now + TTL });

/** slotBehaviour: the contract, on slots made fresh by `make` for each test. */
const slotBehaviour = (make: () => ClusterSlots): void => {
  it('gives a cluster at most limit holders, and a holder its slot again', async () => {
    const slots = make();
    assert.equal(await slots.tryAcquire(request('a', 'h1', 2)), true);
    assert.equal(await slots.tryAcquire(request('a', 'h2', 2)), true);
    assert.equal(await slots.tryAcquire(request('a', 'h3', 2)), false);
    assert.equal(await slots.tryAcquire(request('a', 'h1', 2)), true, 'a holder that holds a slot takes it again');
  });

  it('frees a released slot, and a release of a slot not held changes nothing', async () => {
    const slots = make();
    assert.equal(await slots.tryAcquire(request('a', 'h1', 1)), true);
    await slots.release('a', 'nobody');
    await slots.release('b', 'h1');
    assert.equal(await slots.tryAcquire(request('a', 'h2', 1)), false);
    await slots.release('a', 'h1');
    assert.equal(await slots.tryAcquire(request('a', 'h2', 1)), true);
  });

  it('frees an expired slot (a holder that never released)', async () => {
    const slots = make();
    assert.equal(await slots.tryAcquire(request('a', 'crashed', 1)), true);
    assert.equal(await slots.tryAcquire(request('a', 'h2', 1, NOW + TTL - 1)), false);
    assert.equal(await slots.tryAcquire(request('a', 'h2', 1, NOW + TTL)), true);
    assert.equal(await slots.tryAcquire(request('a', 'crashed', 1, NOW + TTL + 1)), false, 'the expired holder lost its slot');
  });

  it('keeps clusters apart', async () => {
    const slots = make();
    assert.equal(await slots.tryAcquire(request('a', 'h1', 1)), true);
    assert.equal(await slots.tryAcquire(request('b', 'h2', 1)), true);
    assert.equal(await slots.tryAcquire(request('b', 'h3', 1)), false);
  });

  it('honours a lower limit than the holders it already has', async () => {
    const slots = make();
    for (const holder of ['h1', 'h2', 'h3']) assert.equal(await slots.tryAcquire(request('a', holder, 3)), true);
    assert.equal(await slots.tryAcquire(request('a', 'h4', 2)), false);
    await slots.release('a', 'h1');
    assert.equal(await slots.tryAcquire(request('a', 'h4', 2)), false, 'two holders left: still at a limit of 2');
    await slots.release('a', 'h2');
    assert.equal(await slots.tryAcquire(request('a', 'h4', 2)), true);
  });

  it('gives the last slot to exactly one of many racing holders', async () => {
    const slots = make();
    assert.equal(await slots.tryAcquire(request('a', 'first', 3)), true);
    const results = await Promise.all(Array.from({ length: 12 }, (_, index) => slots.tryAcquire(request('a', `racer${index}`, 3))));
    assert.equal(results.filter(Boolean).length, 2);
  });
};

describe('cluster slots in memory', () => slotBehaviour(() => new MemoryClusterSlots()));

describe('cluster slots on a DynamoDB-API server (dynalite)', () => {
  let dynamo: EmbeddedDynamo;
  let table = 0;
  before(async () => {
    dynamo = await startEmbeddedDynamo();
  });
  after(async () => {
    await dynamo.stop();
  });
  // One table, a cluster prefix per test: slots of one test never meet another's.
  const prefixed = (slots: DynamoClusterSlots, prefix: string): ClusterSlots => ({
    tryAcquire: (slot) => slots.tryAcquire({ ...slot, cluster: `${prefix}-${slot.cluster}` }),
    release: (cluster, holder) => slots.release(`${prefix}-${cluster}`, holder),
  });
  slotBehaviour(() => {
    table += 1;
    return prefixed(new DynamoClusterSlots({ client: dynamo.client, tableName: dynamo.tableName }), `t${table}`);
  });

  it('writes one item per cluster under SLOTS#<id>, holding live holders only after a release', async () => {
    const slots = new DynamoClusterSlots({ client: dynamo.client, tableName: dynamo.tableName });
    await slots.tryAcquire(request('item', 'h1', 2));
    await slots.tryAcquire(request('item', 'h2', 2));
    await slots.release('item', 'h1');
    const document = DynamoDBDocumentClient.from(dynamo.client);
    const item = (await document.send(new GetCommand({ TableName: dynamo.tableName, Key: { [TABLE_KEY.partitionKey]: slotsPk('item'), [TABLE_KEY.sortKey]: KeyPart.slotsItem } }))).Item;
    assert.deepEqual(item?.[Attr.holders], { h2: NOW + TTL });
  });

  it('keeps a holder that took its slot again after another read it as expired', async () => {
    const slots = new DynamoClusterSlots({ client: dynamo.client, tableName: dynamo.tableName });
    await slots.tryAcquire(request('renewed', 'old', 1));
    // The holder renews between a racer's read and its removal: the removal's condition fails.
    const document = DynamoDBDocumentClient.from(dynamo.client);
    await document.send(
      new UpdateCommand({
        TableName: dynamo.tableName,
        Key: { [TABLE_KEY.partitionKey]: slotsPk('renewed'), [TABLE_KEY.sortKey]: KeyPart.slotsItem },
        UpdateExpression: 'SET #holders.#old = :later',
        ExpressionAttributeNames: { '#holders': Attr.holders, '#old': 'old' },
        ExpressionAttributeValues: { ':later': NOW + 10 * TTL },
      }),
    );
    assert.equal(await slots.tryAcquire(request('renewed', 'racer', 1, NOW + 2 * TTL)), false);
    assert.deepEqual(await slots.holders('renewed'), { old: NOW + 10 * TTL });
  });
});
