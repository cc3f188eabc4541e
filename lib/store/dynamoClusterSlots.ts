/**
 * ClusterSlots on the checkpoint table: one item per cluster (`SLOTS#<id>` / `SLOTS`, ./table.ts)
 * holding a map of holder → expiry. Every write is one conditional single-item write, as in the
 * checkpoint store: taking a slot is an UpdateItem whose condition counts the map, and expired
 * holders are removed only while they still hold the expiry that was read, so a holder that took
 * its slot again in between keeps it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Counters } from '../counters.ts';
import type { ClusterSlots, SlotRequest } from './clusterSlots.ts';
import { isConditionalCheckFailed, sendCounted } from './sdkErrors.ts';
import { Attr, KeyPart, TABLE_KEY, slotsPk } from './table.ts';

/**
 * ACQUIRE_ATTEMPTS: how often tryAcquire writes before it says no. A failed condition is followed
 * by a read that either creates the item, finds no expired holder (no), or removes expired ones
 * and tries again; only a race with other invocations needs more than two.
 */
const ACQUIRE_ATTEMPTS = 3;

/** DynamoClusterSlotsOptions: the table, and where its requests are counted. */
export interface DynamoClusterSlotsOptions {
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  readonly tableName: string;
  /** Counted as `dynamodb.<Operation>`, as the checkpoint store counts. */
  readonly counters?: Counters;
}

type Operation = 'UpdateItem' | 'GetItem' | 'PutItem';

/** DynamoClusterSlots: the slots of every cluster, in the checkpoint table. */
export class DynamoClusterSlots implements ClusterSlots {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly counters: Counters;

  constructor(options: DynamoClusterSlotsOptions) {
    this.client = options.client instanceof DynamoDBDocumentClient ? options.client : DynamoDBDocumentClient.from(options.client);
    this.tableName = options.tableName;
    this.counters = options.counters ?? new Counters();
  }

  async tryAcquire(request: SlotRequest): Promise<boolean> {
    const key = this.key(request.cluster);
    for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt += 1) {
      const taken = await this.conditional('UpdateItem', () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'SET #holders.#holder = :expiresAt, #updatedAt = :now',
            ConditionExpression: 'attribute_exists(#holders) AND (size(#holders) < :limit OR attribute_exists(#holders.#holder))',
            ExpressionAttributeNames: { '#holders': Attr.holders, '#holder': request.holder, '#updatedAt': Attr.updatedAt },
            ExpressionAttributeValues: { ':expiresAt': request.expiresAt, ':now': request.now, ':limit': request.limit },
          }),
        ),
      );
      if (taken) return true;
      const holders = await this.holders(request.cluster);
      if (holders === undefined) {
        // No item yet (the cluster's first invocation): create it holding this slot.
        const created = await this.conditional('PutItem', () =>
          this.client.send(
            new PutCommand({
              TableName: this.tableName,
              Item: { ...key, [Attr.holders]: { [request.holder]: request.expiresAt }, [Attr.updatedAt]: request.now },
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey },
            }),
          ),
        );
        if (created) return true;
        continue;
      }
      const expired = Object.entries(holders).filter(([, expiresAt]) => expiresAt <= request.now);
      if (expired.length === 0) return false;
      await this.removeExpired(request.cluster, expired, request.now);
    }
    return false;
  }

  async release(cluster: string, holder: string): Promise<void> {
    await this.conditional('UpdateItem', () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(cluster),
          UpdateExpression: 'REMOVE #holders.#holder',
          // Without the condition, a release after the item was deleted would create a bare one.
          ConditionExpression: 'attribute_exists(#holders.#holder)',
          ExpressionAttributeNames: { '#holders': Attr.holders, '#holder': holder },
        }),
      ),
    );
  }

  /** holders: the cluster's holders as stored (expired ones included), or undefined when it has no slot item. */
  async holders(cluster: string): Promise<Record<string, number> | undefined> {
    const output = await this.send('GetItem', () =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: this.key(cluster), ConsistentRead: true })),
    );
    const holders: unknown = output.Item?.[Attr.holders];
    if (typeof holders !== 'object' || holders === null) return undefined;
    return Object.fromEntries(Object.entries(holders).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
  }

  /** removeExpired: remove `expired` holders that still hold the expiry read; a lost race changes nothing. */
  private async removeExpired(cluster: string, expired: readonly (readonly [string, number])[], now: number): Promise<void> {
    const names: Record<string, string> = { '#holders': Attr.holders, '#updatedAt': Attr.updatedAt };
    const values: Record<string, number> = { ':now': now };
    const conditions: string[] = [];
    const removals: string[] = [];
    expired.forEach(([holder, expiresAt], index) => {
      names[`#h${index}`] = holder;
      values[`:e${index}`] = expiresAt;
      conditions.push(`#holders.#h${index} = :e${index}`);
      removals.push(`#holders.#h${index}`);
    });
    await this.conditional('UpdateItem', () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(cluster),
          UpdateExpression: `REMOVE ${removals.join(', ')} SET #updatedAt = :now`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  private key(cluster: string): Record<string, string> {
    return { [TABLE_KEY.partitionKey]: slotsPk(cluster), [TABLE_KEY.sortKey]: KeyPart.slotsItem };
  }

  /** conditional: whether a conditional write's condition held (a failed one is an ordinary no). */
  private async conditional(operation: Operation, write: () => Promise<unknown>): Promise<boolean> {
    try {
      await this.send(operation, write);
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /** send: one request, counted as the checkpoint store counts (sdkErrors.ts sendCounted). */
  private send<T>(operation: Operation, request: () => Promise<T>): Promise<T> {
    return sendCounted(this.counters, this.tableName, operation, request);
  }
}
