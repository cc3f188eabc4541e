/**
 * DynamoBookmarkStore: the forwarder's part of the checkpoint store — its bookmarks (GetItem,
 * PutItem under `FORWARDER#<id>`) and, read only, the registry entry of its cluster — as
 * signed requests of an AwsJsonClient (lib/aws/jsonClient.ts) instead of the SDK's DynamoDB
 * client, for the in-cluster forwarder's memory (docs/benchmarks.md, "forwarder footprint"). The
 * items are DynamoCheckpointStore's (./table.ts, ./items.ts): either store reads what the other
 * wrote.
 */
import { CounterName, type Counters } from '../counters.ts';
import { StoreInvalidError } from '../errors.ts';
import type { AwsJsonClient } from '../aws/jsonClient.ts';
import { clusterFromItem, type Item } from './items.ts';
import { toStoreError } from './sdkErrors.ts';
import { Attr, KeyPart, TABLE_KEY, bookmarkSk, clusterPk, forwarderPk } from './table.ts';
import type { ClusterRecord, ForwarderStore } from './types.ts';

/** AttributeValue: DynamoDB's JSON form of one value. */
type AttributeValue =
  | { readonly S: string }
  | { readonly N: string }
  | { readonly BOOL: boolean }
  | { readonly NULL: true }
  | { readonly M: Readonly<Record<string, AttributeValue>> }
  | { readonly L: readonly AttributeValue[] }
  | { readonly SS: readonly string[] }
  | { readonly NS: readonly string[] };

/**
 * fromAttributeValue: a value in the form DynamoCheckpointStore's document client gives it
 * (numbers as JS numbers, sets as Sets); a type this store never writes (binary) is an error.
 */
export const fromAttributeValue = (value: AttributeValue, where: string): unknown => {
  if ('S' in value) return value.S;
  if ('N' in value) return Number(value.N);
  if ('BOOL' in value) return value.BOOL;
  if ('NULL' in value) return null;
  if ('M' in value) return fromItem(value.M, where);
  if ('L' in value) return value.L.map((element, index) => fromAttributeValue(element, `${where}[${index}]`));
  if ('SS' in value) return new Set(value.SS);
  if ('NS' in value) return new Set(value.NS.map(Number));
  throw new StoreInvalidError(`dynamodb attribute ${where} has type ${Object.keys(value).join(',') || '(none)'}, expected S, N, BOOL, NULL, M, L, SS or NS`);
};

/** fromItem: an item's attributes as plain values. */
export const fromItem = (attributes: Readonly<Record<string, AttributeValue>>, where = 'item'): Item =>
  Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, fromAttributeValue(value, `${where}.${name}`)]));

/** DynamoBookmarkStoreOptions: the DYNAMODB client, the table, and where requests are counted. */
export interface DynamoBookmarkStoreOptions {
  readonly client: AwsJsonClient;
  readonly tableName: string;
  /** Every request, as `dynamodb.<Operation>` (CounterName.DynamoPrefix). */
  readonly counters: Counters;
}

/**
 * DynamoBookmarkStore: the forwarder's roles (ForwarderStore: getBookmark, putBookmark, getCluster), as
 * DynamoCheckpointStore does them (strongly consistent reads, one PutItem per bookmark).
 *
 * @example
 * const store = new DynamoBookmarkStore({ client: new AwsJsonClient({ service: DYNAMODB, … }), tableName, counters });
 */
export class DynamoBookmarkStore implements ForwarderStore {
  private readonly options: DynamoBookmarkStoreOptions;

  constructor(options: DynamoBookmarkStoreOptions) {
    this.options = options;
  }

  /** getBookmark: the resourceVersion the forwarder checkpointed for the cluster's `resource`. */
  async getBookmark(cluster: string, resource: string): Promise<string | undefined> {
    const item = await this.getItem(forwarderPk(cluster), bookmarkSk(resource));
    const resourceVersion = item?.[Attr.resourceVersion];
    return typeof resourceVersion === 'string' ? resourceVersion : undefined;
  }

  /** putBookmark: one PutItem replacing the checkpoint, of BOOKMARK_ATTRIBUTES only (what the forwarder's role may write). */
  async putBookmark(cluster: string, resource: string, resourceVersion: string, now: number): Promise<void> {
    await this.send('PutItem', {
      TableName: this.options.tableName,
      Item: {
        [TABLE_KEY.partitionKey]: { S: forwarderPk(cluster) },
        [TABLE_KEY.sortKey]: { S: bookmarkSk(resource) },
        [Attr.resourceVersion]: { S: resourceVersion },
        [Attr.updatedAt]: { N: String(now) },
      },
    });
  }

  /** getCluster: the registry entry of `id`. */
  async getCluster(id: string): Promise<ClusterRecord | undefined> {
    const item = await this.getItem(clusterPk(id), KeyPart.registry);
    return item === undefined ? undefined : clusterFromItem(item);
  }

  /** getItem: a strongly consistent GetItem. */
  private async getItem(pk: string, sk: string): Promise<Item | undefined> {
    const output = await this.send('GetItem', {
      TableName: this.options.tableName,
      Key: { [TABLE_KEY.partitionKey]: { S: pk }, [TABLE_KEY.sortKey]: { S: sk } },
      ConsistentRead: true,
    });
    const item = (output as { Item?: Record<string, AttributeValue> } | undefined)?.Item;
    return item === undefined ? undefined : fromItem(item, `${pk} ${sk}`);
  }

  /** send: count the request; its failure as a Lineup error (lib/store/sdkErrors.ts). */
  private async send(operation: 'GetItem' | 'PutItem', input: unknown): Promise<unknown> {
    this.options.counters.add(`${CounterName.DynamoPrefix}${operation}`);
    try {
      return await this.options.client.call(operation, input);
    } catch (error) {
      throw toStoreError(operation, this.options.tableName, error);
    }
  }
}
