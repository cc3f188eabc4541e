/**
 * The items Lineup writes stay under DynamoDB's 400 KB item limit at their bounds (docs/security.md): a
 * JobSet's state item with a full pending list of triggers with every field at its longest (the
 * event schema's bounds), the most carried triggers, the largest `known` map, the longest error;
 * a journal entry with inputs, actions, triggers and error at their worst. Measured as DynamoDB
 * counts item size (lib/store/itemSize.ts): first on an item built from the bounds alone, then on
 * the items the DynamoDB store writes on a real DynamoDB-API server (dynalite, which refuses an
 * item over 400 KB as DynamoDB does) when driven to those bounds.
 */
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { EnvelopeBound } from '../../lib/events/envelope.ts';
import { DetailType, EventBound, MAX_OBJECTS_PER_EVENT } from '../../lib/events/schema.ts';
import { boundedError, MAX_CARRIED_TRIGGERS } from '../../lib/reconcile/reconcileJobSet.ts';
import { MAX_KNOWN_OBJECTS } from '../../lib/reconcile/snapshot.ts';
import { DynamoCheckpointStore } from '../../lib/store/dynamoStore.ts';
import { ensureCheckpointTable, startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { dynamoItemBytes } from '../../lib/store/itemSize.ts';
import { journalAttributes, journalItemChars } from '../../lib/store/items.ts';
import { journalEntryToKeep, MAX_PENDING_TRIGGERS } from '../../lib/store/rules.ts';
import { Attr, KeyPart, LIST_INDEX, RESYNC_INDEX, TABLE_KEY, TTL_ATTRIBUTE, jobSetPk, journalSk, listPkOfCluster, listSkOfJobSet, resyncShardOf } from '../../lib/store/table.ts';
import { objectRef, type JobSetKey, type JournalEntry, type JournalEvent } from '../../lib/store/types.ts';
import { T0, TTL, makeJournalEntry } from './storeBehaviour.ts';

/** DynamoDB's item size limit: 400 KB, names and values. */
const DYNAMO_MAX_ITEM_BYTES = 400 * 1024;
/** The latest epoch ms with 13 digits: every time attribute at its longest. */
const LATEST = 9_999_999_999_999;

/** A JobSet key at its bounds: cluster id, namespace and name of 63 characters each. */
const KEY: JobSetKey = { cluster: 'c'.repeat(63), namespace: 'n'.repeat(EventBound.namespace), name: 'j'.repeat(EventBound.jobSet) };

/** padded: `prefix` filled to `length` with `fill`, so each bounded value is distinct and at its bound. */
const padded = (prefix: string, length: number, fill: string): string => prefix.padEnd(length, fill);

/** maxTrigger: a trigger with every field at its longest, naming object `index`. */
const maxTrigger = (index: number): JournalEvent => ({
  id: padded(`${index}-`, EnvelopeBound.id, 'i'),
  detailType: DetailType.JobSetChanged,
  kind: 'JobSet',
  name: padded(`${index}-`, EventBound.name, 'n'),
  resourceVersion: padded(`${index}`, EventBound.resourceVersion, '9'),
  watchType: 'MODIFIED',
  time: LATEST,
  replayName: 'r'.repeat(EnvelopeBound.replayName),
});

/** maxKnown: the largest `known` map a release writes: MAX_KNOWN_OBJECTS objects, names and versions at their bounds. */
const maxKnown = (): Record<string, string> =>
  Object.fromEntries(Array.from({ length: MAX_KNOWN_OBJECTS }, (_, index) => [objectRef('JobSet', padded(`${index}-`, EventBound.name, 'k')), padded(`${index}`, EventBound.resourceVersion, '9')]));

/** A lease owner at its longest: `reconciler-<log stream name>/<uuid>` with room. */
const OWNER = 'o'.repeat(256);
/** A snapshot token at its longest (`<uuid>.<sequence>`, with room). */
const SNAPSHOT = 's'.repeat(64);
/** The longest error a state item or journal entry keeps. */
const ERROR = boundedError('e'.repeat(1_000_000));

/**
 * worstStateItem: a state item with every attribute the DynamoDB store writes at its bound at once
 * (some never meet: failLease removes `known`); its pending list one whole event over the bound, as
 * an append leaves it until the note's own trim.
 */
const worstStateItem = (): Record<string, unknown> => {
  const pk = jobSetPk(KEY);
  return {
    [TABLE_KEY.partitionKey]: pk,
    [TABLE_KEY.sortKey]: KeyPart.state,
    [Attr.cluster]: KEY.cluster,
    [Attr.namespace]: KEY.namespace,
    [Attr.name]: KEY.name,
    [LIST_INDEX.partitionKey]: listPkOfCluster(KEY.cluster),
    [LIST_INDEX.sortKey]: listSkOfJobSet(KEY),
    [RESYNC_INDEX.partitionKey]: resyncShardOf(pk),
    [RESYNC_INDEX.sortKey]: LATEST,
    [Attr.dirty]: Number.MAX_SAFE_INTEGER,
    [Attr.reconciled]: Number.MAX_SAFE_INTEGER,
    [Attr.leaseOwner]: OWNER,
    [Attr.leaseExpiresAt]: LATEST,
    [Attr.lastError]: ERROR,
    [Attr.lastErrorAt]: LATEST,
    [Attr.wakeAt]: LATEST,
    [Attr.finished]: true,
    [Attr.updatedAt]: LATEST,
    [Attr.pending]: Array.from({ length: MAX_PENDING_TRIGGERS + MAX_OBJECTS_PER_EVENT }, (_, index) => maxTrigger(index)),
    [Attr.pendingDropped]: Number.MAX_SAFE_INTEGER,
    [Attr.carried]: Array.from({ length: MAX_CARRIED_TRIGGERS }, (_, index) => maxTrigger(1_000 + index)),
    [Attr.known]: maxKnown(),
    [Attr.snapshot]: SNAPSHOT,
    [Attr.inputsDigest]: 'f'.repeat(16),
  };
};

/** worstJournalEntry: an entry whose inputs, actions, triggers, reason and error are each at or far past what fits. */
const worstJournalEntry = (at: number): JournalEntry =>
  makeJournalEntry(KEY, at, {
    plannerVersion: '9.9.9+ffffffffffff',
    triggers: Array.from({ length: MAX_PENDING_TRIGGERS }, (_, index) => maxTrigger(index)),
    timings: { seenAt: LATEST, eventAt: LATEST, receivedAt: LATEST, passStartedAt: LATEST, writesDoneAt: LATEST },
    inputsKept: 'stored',
    // Random bytes do not compress: 1 MB of inputs stays 1 MB in the packed item.
    inputs: randomBytes(1024 * 1024).toString('base64'),
    actions: Array.from({ length: 20_000 }, (_, index) => ({
      kind: 'CreatePersistentVolumeClaim',
      target: padded(`${index}-`, EventBound.name, 't'),
      code: 'VolumeClaimMissing',
      message: randomBytes(150).toString('base64'),
      digest: randomBytes(6).toString('hex'),
    })),
    reason: randomBytes(3_000).toString('base64'),
    error: ERROR,
  });

/** journalItem: an entry's item as the DynamoDB store writes it (journalEntryToKeep, then its packed attributes). */
const journalItem = (entry: JournalEntry): Record<string, unknown> => ({
  [TABLE_KEY.partitionKey]: jobSetPk(entry.key),
  [TABLE_KEY.sortKey]: journalSk(entry.at, `${'9'.repeat(8)}${'f'.repeat(8)}`),
  ...journalAttributes(journalEntryToKeep(entry, journalItemChars)),
  [TTL_ATTRIBUTE]: Math.ceil(LATEST / 1000),
});

describe('store item bounds: under 400 KB at every bound', () => {
  describe('from the bounds alone', () => {
    it('a state item with every attribute at its bound at once', () => {
      const bytes = dynamoItemBytes(worstStateItem());
      assert.ok(bytes < DYNAMO_MAX_ITEM_BYTES / 2, `${bytes} bytes: under half the limit`);
    });

    it('a pending list is most of the state item only when nothing bounds it: a hundred events of maximal triggers pass the limit', () => {
      const unbounded = { ...worstStateItem(), [Attr.pending]: Array.from({ length: 100 * MAX_OBJECTS_PER_EVENT }, (_, index) => maxTrigger(index)) };
      assert.ok(dynamoItemBytes(unbounded) > DYNAMO_MAX_ITEM_BYTES, 'what the bound prevents');
    });

    it('a journal entry as journalEntryToKeep keeps it', () => {
      const item = journalItem(worstJournalEntry(T0));
      const bytes = dynamoItemBytes(item);
      assert.ok(bytes < DYNAMO_MAX_ITEM_BYTES, `${bytes} bytes`);
    });
  });

  describe('as the DynamoDB store writes them (dynalite)', () => {
    let dynamo: EmbeddedDynamo | undefined;
    before(async () => {
      dynamo = await startEmbeddedDynamo();
    });
    after(async () => {
      await dynamo?.stop();
    });

    /** freshStore: the store on a new table, and a reader of its raw items. */
    const freshStore = async (name: string) => {
      assert.ok(dynamo, 'dynalite did not start');
      await ensureCheckpointTable(dynamo.client, name);
      const documents = DynamoDBDocumentClient.from(dynamo.client);
      const stateItem = async (): Promise<Record<string, unknown>> => {
        const output = await documents.send(new GetCommand({ TableName: name, Key: { [TABLE_KEY.partitionKey]: jobSetPk(KEY), [TABLE_KEY.sortKey]: KeyPart.state }, ConsistentRead: true }));
        assert.ok(output.Item, 'the state item exists');
        return output.Item;
      };
      return { store: new DynamoCheckpointStore({ client: dynamo.client, tableName: name }), documents, stateItem };
    };

    /** fill: note maximal triggers from `owner` until the pending list is past its bound, the last event naming MAX_OBJECTS_PER_EVENT objects. */
    const fill = async (store: DynamoCheckpointStore, first: number, now: number): Promise<void> => {
      for (let index = first; index < first + MAX_PENDING_TRIGGERS + 10; index += 1) await store.noteEvent(KEY, { triggers: [maxTrigger(index)], owner: OWNER, now, ttlMs: TTL });
      const last = first + MAX_PENDING_TRIGGERS + 10;
      await store.noteEvent(KEY, { triggers: Array.from({ length: MAX_OBJECTS_PER_EVENT }, (_, index) => maxTrigger(last + index)), owner: OWNER, now, ttlMs: TTL });
    };

    it('a state item driven to its bounds: full pending list, carried triggers, the largest known map; then after a failed loop, the longest error', async () => {
      const { store, stateItem } = await freshStore('item-bounds-state');
      const worst = dynamoItemBytes(worstStateItem());
      // A loop ends knowing the most objects, carrying the most triggers, to wake later.
      await fill(store, 0, T0);
      const dirty = (await store.getState(KEY))?.dirty ?? 0;
      const released = await store.releaseLease(KEY, { owner: OWNER, reconciledDirty: dirty, now: T0 + 1, ttlMs: TTL, wakeAt: LATEST, loop: {
        carry: Array.from({ length: MAX_CARRIED_TRIGGERS }, (_, index) => maxTrigger(1_000 + index)),
        known: maxKnown(),
        snapshot: SNAPSHOT,
        inputsDigest: 'f'.repeat(16),
        finished: true,
      } });
      assert.equal(released.outcome, 'released');
      // Events about objects it does not know fill the list again while the next loop runs.
      await fill(store, 2_000, T0 + 2);
      const withKnown = await stateItem();
      assert.equal((withKnown[Attr.pending] as unknown[]).length, MAX_PENDING_TRIGGERS);
      assert.equal(Object.keys(withKnown[Attr.known] as object).length, MAX_KNOWN_OBJECTS);
      // That loop fails; more events come before the resync's.
      await store.failLease(KEY, { owner: OWNER, error: ERROR, now: T0 + 3 });
      await fill(store, 4_000, T0 + 4);
      const withError = await stateItem();
      assert.equal(withError[Attr.lastError], ERROR);
      assert.ok(Number(withError[Attr.pendingDropped]) > 0, 'the bound dropped triggers');
      for (const item of [withKnown, withError]) {
        const bytes = dynamoItemBytes(item);
        assert.ok(bytes <= worst && bytes < DYNAMO_MAX_ITEM_BYTES / 2, `${bytes} bytes, within the ${worst} bytes computed from the bounds`);
      }
    });

    it('a journal entry far over the limit is stored within it, without its inputs and the actions that do not fit', async () => {
      const { store, documents } = await freshStore('item-bounds-journal');
      await store.appendJournal(worstJournalEntry(T0));
      const output = await documents.send(
        new QueryCommand({ TableName: 'item-bounds-journal', KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': TABLE_KEY.partitionKey }, ExpressionAttributeValues: { ':pk': jobSetPk(KEY) } }),
      );
      const [item] = output.Items ?? [];
      assert.ok(item, 'the entry was written');
      const bytes = dynamoItemBytes(item);
      assert.ok(bytes < DYNAMO_MAX_ITEM_BYTES, `${bytes} bytes`);
      const [entry] = await store.listJournal(KEY);
      assert.equal(entry?.inputsKept, 'too-large');
      assert.ok((entry?.actionsOmitted ?? 0) > 0, 'actions cut');
      assert.equal(entry?.triggers.length, MAX_PENDING_TRIGGERS);
      assert.equal(entry?.error, ERROR);
    });
  });
});
