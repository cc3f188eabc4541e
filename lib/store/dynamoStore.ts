/**
 * The checkpoint store on DynamoDB: every write is one conditional single-item
 * UpdateItem/PutItem/DeleteItem — no transactions, no TTL API — so the same code runs on AWS,
 * on `lineup run`'s embedded dynalite and against the test server. Table layout: ./table.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type QueryCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { Counters } from '../counters.ts';
import { UnavailableError } from '../errors.ts';
import { Backoff, type RetryPolicy, type RetrySeams } from '../retry.ts';
import {
  bookmarkFromItem,
  clusterAttributes,
  clusterFromItem,
  heldLeaseFromItem,
  journalAttributes,
  journalEntryFromItem,
  journalItemChars,
  stateFromItem,
  type Item,
} from './items.ts';
import {
  MAX_PENDING_TRIGGERS,
  compareClusters,
  compareJobSetKeys,
  definedOnly,
  journalExpiresAt,
  mayBeEcho,
  journalSuffix,
  journalEntryToKeep,
  needsResync,
  trimPending as trimPendingList,
  DEFAULT_JOURNAL_RETENTION_MS,
} from './rules.ts';
import { isConditionalCheckFailed, isItemTooLarge, sendCounted, toStoreError } from './sdkErrors.ts';
import {
  Attr,
  KeyPart,
  LIST_INDEX,
  RESYNC_INDEX,
  TABLE_KEY,
  TTL_ATTRIBUTE,
  bookmarkSk,
  clusterPk,
  forwarderPk,
  journalSk,
  jobSetPk,
  listPkOfCluster,
  listSkOfJobSet,
  resyncShardOf,
  resyncShards,
} from './table.ts';
import {
  objectRef,
  type BookmarkRecord,
  type CheckpointStore,
  type ClusterRecord,
  type EventNote,
  type HeldLease,
  type JournalEntry,
  type JournalEvent,
  type JobSetKey,
  type JobSetState,
  type EventNoteRequest,
  type LeaseFailure,
  type LeaseRelease,
  type ReleaseOutcome,
} from './types.ts';

/** DynamoCheckpointStoreOptions: what a DynamoCheckpointStore is built from. */
export interface DynamoCheckpointStoreOptions {
  /**
   * The client. A DynamoDBClient is wrapped in a document client; a document client is used as
   * given and must keep the default unmarshalling (numbers as JS numbers).
   */
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  /** The checkpoint table, created from tableDefinition(). */
  readonly tableName: string;
  /**
   * Where every request is counted, as `dynamodb.<Operation>` (CounterName.DynamoPrefix).
   * @default a Counters of its own, readable as `store.counters`
   */
  readonly counters?: Counters;
  /**
   * How long journal entries are kept before their TTL lets DynamoDB delete them.
   * @default DEFAULT_JOURNAL_RETENTION_MS
   */
  readonly journalRetentionMs?: number;
  /** The waits between BatchGetItem attempts at unprocessed keys, replaced in tests. */
  readonly retrySeams?: RetrySeams;
}

/** The DynamoDB operations the store sends, as counted. */
type Operation = 'UpdateItem' | 'GetItem' | 'PutItem' | 'DeleteItem' | 'Query' | 'BatchGetItem';

/** BatchGetItem's limit on keys per request. */
const BATCH_GET_MAX_KEYS = 100;
/**
 * BATCH_GET_RETRY: how the keys BatchGetItem leaves unprocessed (throttling) are asked for again
 * before giving up. Jittered: a fleet of reconciler Lambdas throttled together must not come back
 * together. This is the one retry layer of unprocessed keys: the SDK retries a request that failed
 * as a whole (its standard mode, 3 attempts), never keys of a request that succeeded.
 */
export const BATCH_GET_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 50, maxDelayMs: 1_000, jitter: 'equal' };

/** A table key as the document client takes it. */
export type TableKey = Readonly<Record<(typeof TABLE_KEY)[keyof typeof TABLE_KEY], string>>;

/** tableKey: the table key of partition `pk` and sort key `sk`. */
const tableKey = (pk: string, sk: string): TableKey => ({ [TABLE_KEY.partitionKey]: pk, [TABLE_KEY.sortKey]: sk });

/**
 * The SET clauses every write that may create a state item carries, so an item always holds its
 * own JobSet key and its place in the `list` index (values `:cluster`, `:namespace`, `:name`,
 * `:listPk`, `:listSk`). Rewriting equal values changes no index key, so it costs no index write.
 */
export const IDENTITY_SETS = [
  `#${Attr.cluster} = :cluster`,
  `#${Attr.namespace} = :namespace`,
  `#${Attr.name} = :name`,
  `#${LIST_INDEX.partitionKey} = :listPk`,
  `#${LIST_INDEX.sortKey} = :listSk`,
].join(', ');

/**
 * expressionNames: the ExpressionAttributeNames of expressions that write every attribute as
 * `#attribute` — every name is aliased because `name`, `namespace` and others are DynamoDB
 * reserved words, and only the names used are listed because DynamoDB rejects unused ones.
 */
export const expressionNames = (...expressions: string[]): Record<string, string> => {
  const names: Record<string, string> = {};
  for (const expression of expressions) for (const [, name] of expression.matchAll(/#(\w+)/g)) if (name) names[`#${name}`] = name;
  return names;
};

/** identityValues: the values IDENTITY_SETS refers to. */
export const identityValues = (key: JobSetKey): Item => ({
  ':cluster': key.cluster,
  ':namespace': key.namespace,
  ':name': key.name,
  ':listPk': listPkOfCluster(key.cluster),
  ':listSk': listSkOfJobSet(key),
});

/** stateKey: the table key of a JobSet's state item. */
export const stateKey = (key: JobSetKey): TableKey => tableKey(jobSetPk(key), KeyPart.state);


/** registryItem: a cluster's registry entry as stored, listed in the `list` index. */
const registryItem = (record: ClusterRecord): Record<string, unknown> => ({
  [TABLE_KEY.partitionKey]: clusterPk(record.id),
  [TABLE_KEY.sortKey]: KeyPart.registry,
  [LIST_INDEX.partitionKey]: KeyPart.listClusters,
  [LIST_INDEX.sortKey]: record.id,
  ...clusterAttributes(record),
});

/** DynamoCheckpointStore: every role of CheckpointStore on one DynamoDB table laid out by ./table.ts. */
export class DynamoCheckpointStore implements CheckpointStore {
  /** Where requests are counted (the one given, or the store's own). */
  readonly counters: Counters;
  private readonly client: DynamoDBDocumentClient;
  protected readonly tableName: string;
  private readonly journalRetentionMs: number;
  private readonly retrySeams: RetrySeams;

  constructor(options: DynamoCheckpointStoreOptions) {
    this.client =
      options.client instanceof DynamoDBDocumentClient ? options.client : DynamoDBDocumentClient.from(options.client);
    this.tableName = options.tableName;
    this.counters = options.counters ?? new Counters();
    this.journalRetentionMs = options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
    this.retrySeams = options.retrySeams ?? {};
  }

  /**
   * noteEvent: one UpdateItem, conditional on the item not knowing the trigger's object at its
   * resourceVersion (a failed condition is the echo): ADD dirty, append the trigger to `pending`,
   * and `SET leaseOwner = if_not_exists(leaseOwner, :me)` (with its expiry likewise) — releases
   * and failLease remove both, so the lease is taken exactly when nobody holds it. The ALL_NEW
   * image says whose it is. Only a lease whose holder let it lapse costs a second write: the
   * conditional takeover of takeLease; and only a pending list the append took over
   * MAX_PENDING_TRIGGERS, the trim (trimPending). An item DynamoDB refuses to grow (over 400 KB:
   * written before pending was bounded) is trimmed first, read and rewritten, then noted.
   */
  async noteEvent(key: JobSetKey, { triggers, owner, now, ttlMs }: EventNoteRequest): Promise<EventNote> {
    let attributes: Item | undefined;
    try {
      attributes = await this.appendTriggers(key, triggers, owner, now, ttlMs);
    } catch (error) {
      if (!isItemTooLarge(error)) throw error;
      await this.makeRoom(key, triggers.length);
      attributes = await this.appendTriggers(key, triggers, owner, now, ttlMs);
    }
    if (attributes === undefined) return { outcome: 'echo' };
    const trim = await this.trimPending(key, attributes);
    if (trim !== undefined) attributes = trim.attributes;
    const trimmed = trim === undefined ? {} : { trimmed: { coalesced: trim.coalesced, dropped: trim.dropped } };
    if (attributes[Attr.leaseOwner] === owner) return { outcome: 'leased', lease: heldLeaseFromItem(attributes, owner, Number(attributes[Attr.leaseExpiresAt])), ...trimmed };
    const holderExpiresAt = attributes[Attr.leaseExpiresAt];
    if (typeof holderExpiresAt === 'number' && holderExpiresAt > now) return { outcome: 'deferred', ...trimmed };
    const taken = await this.takeLease(key, owner, now, ttlMs);
    return taken === undefined ? { outcome: 'deferred', ...trimmed } : { outcome: 'leased', lease: taken, ...trimmed };
  }

  /** appendTriggers: noteEvent's one conditional UpdateItem; the ALL_NEW image, or undefined for an echo. */
  private async appendTriggers(key: JobSetKey, triggers: readonly JournalEvent[], owner: string, now: number, ttlMs: number): Promise<Item | undefined> {
    const update = [
      `ADD #${Attr.dirty} :one`,
      `SET #${Attr.reconciled} = if_not_exists(#${Attr.reconciled}, :zero), ${IDENTITY_SETS},`,
      `#${RESYNC_INDEX.partitionKey} = :shard, #${RESYNC_INDEX.sortKey} = :now, #${Attr.updatedAt} = :now,`,
      `#${Attr.pending} = list_append(if_not_exists(#${Attr.pending}, :empty), :trigger),`,
      `#${Attr.leaseOwner} = if_not_exists(#${Attr.leaseOwner}, :me), #${Attr.leaseExpiresAt} = if_not_exists(#${Attr.leaseExpiresAt}, :expiresAt)`,
    ].join(' ');
    // An echo only when the item knows every object the event names at its version (isEcho); a
    // deletion may carry the last version seen of its object, so an event naming one never is.
    const echoable = triggers.length > 0 && triggers.every(mayBeEcho);
    const condition = echoable
      ? triggers.map((_, index) => `attribute_not_exists(#${Attr.known}.#ref${index}) OR #${Attr.known}.#ref${index} <> :rv${index}`).join(' OR ')
      : undefined;
    const refNames = Object.fromEntries(triggers.map((trigger, index) => [`#ref${index}`, objectRef(trigger.kind, trigger.name)]));
    const refValues = Object.fromEntries(triggers.map((trigger, index) => [`:rv${index}`, trigger.resourceVersion]));
    const names = echoable ? { ...expressionNames(update, condition ?? ''), ...refNames } : expressionNames(update);
    const expiresAt = now + ttlMs;
    return this.update(
      {
        TableName: this.tableName,
        Key: stateKey(key),
        UpdateExpression: update,
        ...(condition === undefined ? {} : { ConditionExpression: condition }),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':one': 1,
          ':zero': 0,
          ':shard': resyncShardOf(jobSetPk(key)),
          ':now': now,
          ':empty': [],
          ':trigger': triggers.map((trigger) => definedOnly({ ...trigger })),
          ':me': owner,
          ':expiresAt': expiresAt,
          ...(echoable ? refValues : {}),
          ...identityValues(key),
        },
        ReturnValues: 'ALL_NEW',
      },
      { conditional: true },
    );
  }

  /**
   * trimPending: when `image` (the item after a note) holds more than MAX_PENDING_TRIGGERS pending
   * triggers, writeTrimmed; the new image and what was left out, or undefined when nothing was
   * trimmed (the list fits, or the item moved on: the note that moved it took the longer list and
   * trims it itself).
   */
  private async trimPending(key: JobSetKey, image: Item): Promise<{ attributes: Item; coalesced: number; dropped: number } | undefined> {
    const seen = heldLeaseFromItem(image, '', 0);
    return seen.pending.length <= MAX_PENDING_TRIGGERS ? undefined : this.writeTrimmed(key, seen, MAX_PENDING_TRIGGERS);
  }

  /**
   * makeRoom: the item refused to grow by `incoming` triggers (400 KB): read it and writeTrimmed
   * its pending list to leave room for them (a failed condition: somebody wrote it since, and the
   * retried note sees what they did).
   */
  private async makeRoom(key: JobSetKey, incoming: number): Promise<void> {
    const item = await this.getItem(stateKey(key));
    if (item !== undefined) await this.writeTrimmed(key, heldLeaseFromItem(item, '', 0), Math.max(0, MAX_PENDING_TRIGGERS - incoming));
  }

  /**
   * writeTrimmed: one UpdateItem writing the pending list `seen` shows trimmed to `max` (rules.ts
   * trimPending), adding the dropped triggers to `pendingDropped`, conditional on the item being as
   * `seen` shows it — its dirty counter (no note since) and its list's length (no release since).
   */
  private async writeTrimmed(key: JobSetKey, seen: HeldLease, max: number): Promise<{ attributes: Item; coalesced: number; dropped: number } | undefined> {
    const trim = trimPendingList(seen.pending, max);
    const update = `SET #${Attr.pending} = :kept${trim.dropped > 0 ? ` ADD #${Attr.pendingDropped} :dropped` : ''}`;
    const condition = `#${Attr.dirty} = :dirty AND size(#${Attr.pending}) = :length`;
    const attributes = await this.update(
      {
        TableName: this.tableName,
        Key: stateKey(key),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: expressionNames(update, condition),
        ExpressionAttributeValues: {
          ':kept': trim.pending.map((trigger) => definedOnly({ ...trigger })),
          ':dirty': seen.dirty,
          ':length': seen.pending.length,
          ...(trim.dropped > 0 ? { ':dropped': trim.dropped } : {}),
        },
        ReturnValues: 'ALL_NEW',
      },
      { conditional: true },
    );
    return attributes === undefined ? undefined : { attributes, coalesced: trim.coalesced, dropped: trim.dropped };
  }

  /**
   * takeLease: one UpdateItem conditional on the lease being free, lapsed or already `owner`'s
   * (creating the item); a failed condition is undefined. noteEvent's takeover of a lapsed lease.
   */
  protected async takeLease(key: JobSetKey, owner: string, now: number, ttlMs: number): Promise<HeldLease | undefined> {
    const expiresAt = now + ttlMs;
    const update = [
      `SET #${Attr.leaseOwner} = :me, #${Attr.leaseExpiresAt} = :expiresAt,`,
      `#${Attr.dirty} = if_not_exists(#${Attr.dirty}, :zero), #${Attr.reconciled} = if_not_exists(#${Attr.reconciled}, :zero),`,
      `${IDENTITY_SETS}, #${RESYNC_INDEX.partitionKey} = :shard, #${RESYNC_INDEX.sortKey} = :now, #${Attr.updatedAt} = :now`,
    ].join(' ');
    const condition = `attribute_not_exists(#${Attr.leaseOwner}) OR #${Attr.leaseExpiresAt} <= :now OR #${Attr.leaseOwner} = :me`;
    const attributes = await this.update(
      {
        TableName: this.tableName,
        Key: stateKey(key),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: expressionNames(update, condition),
        ExpressionAttributeValues: {
          ':me': owner,
          ':expiresAt': expiresAt,
          ':zero': 0,
          ':shard': resyncShardOf(jobSetPk(key)),
          ':now': now,
          ...identityValues(key),
        },
        ReturnValues: 'ALL_NEW',
      },
      { conditional: true },
    );
    return attributes === undefined ? undefined : heldLeaseFromItem(attributes, owner, expiresAt);
  }

  /**
   * releaseLease: first a release conditional on `leaseOwner = owner AND dirty = reconciledDirty`;
   * when that condition fails, a renewal conditional on `leaseOwner = owner` alone ('dirty', the
   * new lease carrying the counter to reconcile next); when that fails too, 'lost'. DynamoDB does
   * not say which part of a condition failed, and dynalite does not return the old item, hence
   * the second write instead of reading the failed one's image.
   */
  async releaseLease(key: JobSetKey, request: LeaseRelease): Promise<{ outcome: ReleaseOutcome; lease?: HeldLease | undefined }> {
    const { owner, reconciledDirty, now, ttlMs, wakeAt } = request;
    const loop = request.loop ?? {};
    const waking = wakeAt !== undefined;
    const carry = loop.carry !== undefined && loop.carry.length > 0 ? loop.carry.map((trigger) => definedOnly({ ...trigger })) : undefined;
    // What the loop leaves for the next one: each attribute set when given, removed when not
    // (inputsDigest stays until a later entry replaces it).
    const loopValues: Item = {
      ...(carry !== undefined ? { ':carry': carry } : {}),
      ...(loop.known !== undefined ? { ':known': loop.known } : {}),
      ...(loop.snapshot !== undefined ? { ':snapshot': loop.snapshot } : {}),
      ...(loop.inputsDigest !== undefined ? { ':inputsDigest': loop.inputsDigest } : {}),
    };
    const removed = [
      `#${Attr.pending}`,
      `#${Attr.pendingDropped}`,
      carry === undefined ? `#${Attr.carried}` : '',
      loop.known === undefined ? `#${Attr.known}` : '',
      loop.snapshot === undefined ? `#${Attr.snapshot}` : '',
    ].filter((name) => name !== '');
    const set = [
      carry !== undefined ? `#${Attr.carried} = :carry` : '',
      loop.known !== undefined ? `#${Attr.known} = :known` : '',
      loop.snapshot !== undefined ? `#${Attr.snapshot} = :snapshot` : '',
      loop.inputsDigest !== undefined ? `#${Attr.inputsDigest} = :inputsDigest` : '',
    ].filter((clause) => clause !== '');
    // A quiescent item leaves the resync index; one with a wakeAt waits in it until then.
    const release = [
      `REMOVE #${Attr.leaseOwner}, #${Attr.leaseExpiresAt}, #${Attr.lastError}, #${Attr.lastErrorAt}`,
      waking ? '' : `, #${Attr.wakeAt}, #${RESYNC_INDEX.partitionKey}, #${RESYNC_INDEX.sortKey}`,
      removed.length > 0 ? `, ${removed.join(', ')}` : '',
      loop.finished === true ? '' : `, #${Attr.finished}`,
      ` SET #${Attr.reconciled} = :reconciled, #${Attr.updatedAt} = :now`,
      waking ? `, #${Attr.wakeAt} = :wakeAt, #${RESYNC_INDEX.partitionKey} = :shard, #${RESYNC_INDEX.sortKey} = :wakeAt` : '',
      set.length > 0 ? `, ${set.join(', ')}` : '',
      loop.finished === true ? `, #${Attr.finished} = :finished` : '',
    ].join('');
    const releaseCondition = `#${Attr.leaseOwner} = :me AND #${Attr.dirty} = :reconciled`;
    const released = await this.update(
      {
        TableName: this.tableName,
        Key: stateKey(key),
        UpdateExpression: release,
        ConditionExpression: releaseCondition,
        ExpressionAttributeNames: expressionNames(release, releaseCondition),
        ExpressionAttributeValues: {
          ':me': owner,
          ':reconciled': reconciledDirty,
          ':now': now,
          ...(waking ? { ':wakeAt': wakeAt, ':shard': resyncShardOf(jobSetPk(key)) } : {}),
          ...loopValues,
          ...(loop.finished === true ? { ':finished': true } : {}),
        },
        ReturnValues: 'NONE',
      },
      { conditional: true },
    );
    if (released !== undefined) return { outcome: 'released' };

    const expiresAt = now + ttlMs;
    const renew = `SET #${Attr.leaseExpiresAt} = :expiresAt, #${Attr.updatedAt} = :now`;
    const renewCondition = `#${Attr.leaseOwner} = :me`;
    const renewed = await this.update(
      {
        TableName: this.tableName,
        Key: stateKey(key),
        UpdateExpression: renew,
        ConditionExpression: renewCondition,
        ExpressionAttributeNames: expressionNames(renew, renewCondition),
        ExpressionAttributeValues: { ':me': owner, ':expiresAt': expiresAt, ':now': now },
        ReturnValues: 'ALL_NEW',
      },
      { conditional: true },
    );
    if (renewed === undefined) return { outcome: 'lost' };
    return { outcome: 'dirty', lease: heldLeaseFromItem(renewed, owner, expiresAt) };
  }

  /**
   * failLease: give the lease up recording the error, conditional on `owner` holding it. When it
   * does not any more, nothing is written: the JobSet is the new holder's, whose pass supersedes
   * this one's error. The resync index needs no write: taking the lease made the item a candidate.
   */
  async failLease(key: JobSetKey, { owner, error, now, inputsDigest }: LeaseFailure): Promise<void> {
    const update = [
      `REMOVE #${Attr.leaseOwner}, #${Attr.leaseExpiresAt}, #${Attr.known}, #${Attr.snapshot}`,
      `SET #${Attr.lastError} = :error, #${Attr.lastErrorAt} = :now, #${Attr.updatedAt} = :now`,
      inputsDigest === undefined ? '' : `, #${Attr.inputsDigest} = :inputsDigest`,
    ].join(' ');
    const condition = `#${Attr.leaseOwner} = :me`;
    await this.update(
      {
        TableName: this.tableName,
        Key: stateKey(key),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: expressionNames(update, condition),
        ExpressionAttributeValues: { ':me': owner, ':error': error, ':now': now, ...(inputsDigest === undefined ? {} : { ':inputsDigest': inputsDigest }) },
        ReturnValues: 'NONE',
      },
      { conditional: true },
    );
  }

  /** forgetJobSet: one DeleteItem of the state item, conditional on holding its lease. */
  async forgetJobSet(key: JobSetKey, owner: string): Promise<boolean> {
    try {
      await this.send('DeleteItem', () =>
        this.client.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: stateKey(key),
            ConditionExpression: `#${Attr.leaseOwner} = :me`,
            ExpressionAttributeNames: { [`#${Attr.leaseOwner}`]: Attr.leaseOwner },
            ExpressionAttributeValues: { ':me': owner },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /** getState: a strongly consistent GetItem of the state item. */
  async getState(key: JobSetKey): Promise<JobSetState | undefined> {
    const item = await this.getItem(stateKey(key));
    return item === undefined ? undefined : stateFromItem(item);
  }

  /**
   * listNeedingResync: the `resync` index's candidates due by `now` (one Query per shard), read in
   * full and kept when needsResync holds — candidates are a superset (see RESYNC_INDEX).
   */
  async listNeedingResync(now: number): Promise<JobSetState[]> {
    const condition = `#${RESYNC_INDEX.partitionKey} = :shard AND #${RESYNC_INDEX.sortKey} <= :now`;
    const keysPerShard = await Promise.all(
      resyncShards().map((shard) =>
        this.queryAll({
          TableName: this.tableName,
          IndexName: RESYNC_INDEX.name,
          KeyConditionExpression: condition,
          ExpressionAttributeNames: expressionNames(condition),
          ExpressionAttributeValues: { ':shard': shard, ':now': now },
        }),
      ),
    );
    const items = await this.batchGet(keysPerShard.flat().map(tableKeyOf));
    return items
      .map(stateFromItem)
      .filter((state) => needsResync(state, now))
      .sort((a, b) => compareJobSetKeys(a.key, b.key));
  }

  /** listJobSets: the cluster's JobSets from the `list` index, read in full, ordered by namespace and name. */
  async listJobSets(cluster: string): Promise<JobSetState[]> {
    const items = await this.listIndexItems(listPkOfCluster(cluster));
    return items.map(stateFromItem).sort((a, b) => compareJobSetKeys(a.key, b.key));
  }

  /** appendJournal: one PutItem under the JobSet's partition, with its TTL, bounded to the item limit. */
  async appendJournal(entry: JournalEntry): Promise<void> {
    const kept = journalEntryToKeep(entry, journalItemChars);
    await this.send('PutItem', () =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            [TABLE_KEY.partitionKey]: jobSetPk(kept.key),
            [TABLE_KEY.sortKey]: journalSk(kept.at, journalSuffix()),
            ...journalAttributes(kept),
            [TTL_ATTRIBUTE]: journalExpiresAt(kept.at, this.journalRetentionMs),
          },
        }),
      ),
    );
  }

  /**
   * listJournal: a Query of the JobSet's journal items in sort-key (= time) order, so the
   * oldest `limit` come back; without `limit`, all of them. Entries past their TTL may still
   * appear until DynamoDB deletes them.
   */
  async listJournal(key: JobSetKey, limit?: number): Promise<JournalEntry[]> {
    if (limit !== undefined && limit <= 0) return [];
    const condition = `#${TABLE_KEY.partitionKey} = :pk AND begins_with(#${TABLE_KEY.sortKey}, :prefix)`;
    const items = await this.queryAll(
      {
        TableName: this.tableName,
        KeyConditionExpression: condition,
        ExpressionAttributeNames: expressionNames(condition),
        ExpressionAttributeValues: { ':pk': jobSetPk(key), ':prefix': KeyPart.journal },
        ScanIndexForward: true,
      },
      limit,
    );
    return items.map((item) => journalEntryFromItem(item, key));
  }

  /** getBookmark: the resourceVersion the forwarder checkpointed for the cluster's `resource`. */
  async getBookmark(cluster: string, resource: string): Promise<string | undefined> {
    const item = await this.getItem(tableKey(forwarderPk(cluster), bookmarkSk(resource)));
    const resourceVersion = item?.[Attr.resourceVersion];
    return typeof resourceVersion === 'string' ? resourceVersion : undefined;
  }

  /** putBookmark: one PutItem replacing the checkpoint, of BOOKMARK_ATTRIBUTES only (what a forwarder's role may write). */
  async putBookmark(cluster: string, resource: string, resourceVersion: string, now: number): Promise<void> {
    await this.send('PutItem', () =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            [TABLE_KEY.partitionKey]: forwarderPk(cluster),
            [TABLE_KEY.sortKey]: bookmarkSk(resource),
            [Attr.resourceVersion]: resourceVersion,
            [Attr.updatedAt]: now,
          },
        }),
      ),
    );
  }

  /** listBookmarks: a Query of the cluster's bookmark items. */
  async listBookmarks(cluster: string): Promise<BookmarkRecord[]> {
    const condition = `#${TABLE_KEY.partitionKey} = :pk AND begins_with(#${TABLE_KEY.sortKey}, :prefix)`;
    const items = await this.queryAll({
      TableName: this.tableName,
      KeyConditionExpression: condition,
      ExpressionAttributeNames: expressionNames(condition),
      ExpressionAttributeValues: { ':pk': forwarderPk(cluster), ':prefix': KeyPart.bookmark },
      ConsistentRead: true,
    });
    return items.map((item) => bookmarkFromItem(item, KeyPart.bookmark)).sort((a, b) => a.resource.localeCompare(b.resource));
  }

  /** getCluster: the registry entry of `id`. */
  async getCluster(id: string): Promise<ClusterRecord | undefined> {
    const item = await this.getItem(tableKey(clusterPk(id), KeyPart.registry));
    return item === undefined ? undefined : clusterFromItem(item);
  }

  /** putCluster: one PutItem replacing the registry entry (and listing it in the `list` index). */
  async putCluster(record: ClusterRecord): Promise<void> {
    await this.send('PutItem', () => this.client.send(new PutCommand({ TableName: this.tableName, Item: registryItem(record) })));
  }

  /** addCluster: putCluster's PutItem, conditional on no registry entry of the id. */
  async addCluster(record: ClusterRecord): Promise<boolean> {
    const condition = `attribute_not_exists(#${TABLE_KEY.partitionKey})`;
    try {
      await this.send('PutItem', () =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: registryItem(record),
            ConditionExpression: condition,
            ExpressionAttributeNames: expressionNames(condition),
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }

  /**
   * listClusters: every registry entry, ordered by id. An index hit that is not the registry item
   * of the id it names (`CLUSTER#<id>` / `REGISTRY`) is not a registry entry, whatever it holds.
   */
  async listClusters(): Promise<ClusterRecord[]> {
    const items = await this.listIndexItems(KeyPart.listClusters);
    return items
      .filter((item) => item[TABLE_KEY.sortKey] === KeyPart.registry && item[TABLE_KEY.partitionKey] === clusterPk(String(item[Attr.id])))
      .map(clusterFromItem)
      .sort(compareClusters);
  }

  /** deleteCluster: one DeleteItem of the registry entry; the cluster's bookmarks and JobSets stay. */
  async deleteCluster(id: string): Promise<void> {
    await this.send('DeleteItem', () =>
      this.client.send(new DeleteCommand({ TableName: this.tableName, Key: tableKey(clusterPk(id), KeyPart.registry) })),
    );
  }

  /**
   * send: one request, counted as `dynamodb.<operation>` whatever its outcome, its SDK errors
   * turned into Lineup errors — except a failed condition, which is rethrown for the caller.
   */
  private send<T>(operation: Operation, request: () => Promise<T>): Promise<T> {
    return sendCounted(this.counters, this.tableName, operation, request);
  }

  /**
   * update: one UpdateItem; its returned attributes ({} when none were asked for), or undefined
   * when a `conditional` update's condition did not hold.
   */
  protected async update(input: UpdateCommandInput, options: { conditional?: boolean } = {}): Promise<Item | undefined> {
    try {
      const output = await this.send('UpdateItem', () => this.client.send(new UpdateCommand(input)));
      return output.Attributes ?? {};
    } catch (error) {
      if (options.conditional === true && isConditionalCheckFailed(error)) return undefined;
      throw isConditionalCheckFailed(error) ? toStoreError('UpdateItem', this.tableName, error) : error;
    }
  }

  /** getItem: a strongly consistent GetItem (a reconciler reads what it just wrote). */
  private async getItem(key: TableKey): Promise<Item | undefined> {
    const output = await this.send('GetItem', () =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: { ...key }, ConsistentRead: true })),
    );
    return output.Item;
  }

  /** queryAll: every item of a Query, following pages, stopping once `limit` items came back. */
  private async queryAll(input: QueryCommandInput, limit?: number): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Item | undefined;
    do {
      const remaining = limit === undefined ? undefined : limit - items.length;
      const output = await this.send('Query', () =>
        this.client.send(
          new QueryCommand({
            ...input,
            ...(remaining === undefined ? {} : { Limit: remaining }),
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        ),
      );
      items.push(...(output.Items ?? []));
      startKey = output.LastEvaluatedKey;
    } while (startKey !== undefined && (limit === undefined || items.length < limit));
    return items;
  }

  /** listIndexItems: the full items under one `list` index partition key (KEYS_ONLY, so a BatchGetItem follows). */
  private async listIndexItems(listPk: string): Promise<Item[]> {
    const condition = `#${LIST_INDEX.partitionKey} = :listPk`;
    const keys = await this.queryAll({
      TableName: this.tableName,
      IndexName: LIST_INDEX.name,
      KeyConditionExpression: condition,
      ExpressionAttributeNames: expressionNames(condition),
      ExpressionAttributeValues: { ':listPk': listPk },
    });
    return this.batchGet(keys.map(tableKeyOf));
  }

  /**
   * batchGet: the items of `keys` (missing ones skipped), strongly consistent so a listing filters
   * on current state, retrying the keys DynamoDB leaves unprocessed on BATCH_GET_RETRY.
   */
  private async batchGet(keys: TableKey[]): Promise<Item[]> {
    const items: Item[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_MAX_KEYS) {
      let pending: TableKey[] = keys.slice(start, start + BATCH_GET_MAX_KEYS);
      const backoff = new Backoff(BATCH_GET_RETRY, this.retrySeams);
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        if (attempt > 1 && !(await backoff.wait())) {
          throw new UnavailableError(
            `dynamodb BatchGetItem on table ${this.tableName} left ${pending.length} keys unprocessed after ${attempt - 1} attempts, expected none`,
          );
        }
        const requested = pending;
        const output = await this.send('BatchGetItem', () =>
          this.client.send(
            new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: requested.map((key) => ({ ...key })), ConsistentRead: true } } }),
          ),
        );
        items.push(...(output.Responses?.[this.tableName] ?? []));
        pending = (output.UnprocessedKeys?.[this.tableName]?.Keys ?? []).map(tableKeyOf);
      }
    }
    return items;
  }
}

/** tableKeyOf: the table key of an item (or of an index entry, which carries it). */
const tableKeyOf = (item: Item): TableKey => tableKey(String(item[TABLE_KEY.partitionKey]), String(item[TABLE_KEY.sortKey]));
