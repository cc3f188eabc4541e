/**
 * The checkpoint table's layout: key schema, attribute names, item keys and the CreateTable input.
 * Three parties create this table — the CDK stack (production), `lineup run`'s embedded server
 * and the tests — and all three take it from here, so they cannot drift apart.
 *
 * One table, single-table design:
 *
 * | item | pk | sk |
 * |---|---|---|
 * | JobSet state (dirty counter, lease) | `JOBSET#<cluster>#<namespace>#<name>` | `STATE` |
 * | journal entry (one reconcile pass) | same pk | `JOURNAL#<13-digit epoch ms>#<seq><random>` |
 * | watch bookmark | `FORWARDER#<id>` | `BOOKMARK#<resource>` |
 * | cluster registry entry | `CLUSTER#<id>` | `REGISTRY` |
 * | a cluster's reconciler slots (lib/store/dynamoClusterSlots.ts) | `SLOTS#<id>` | `SLOTS` |
 *
 * Who writes what (infra/permissions.ts grants it; docs/security.md): the partition key is the only part
 * of a key IAM can scope (dynamodb:LeadingKeys), so each writer's items have a partition key of
 * their own kind. A forwarder writes only its bookmarks, under `FORWARDER#<id>` (PutItem scoped to
 * that key and to BOOKMARK_ATTRIBUTES); everything under `CLUSTER#<id>` — the registry entry the
 * reconciler trusts for a cluster's endpoint, CA and credentials — is written by the stack's
 * registration or `lineup clusters add`, never by a forwarder. Bookmarks written under
 * `CLUSTER#<id>` by earlier versions are not read any more.
 *
 * Two sparse global secondary indexes, both KEYS_ONLY:
 * - `list` (`listPk`, `listSk`): only state items (`JOBSETS#<cluster>`, `<namespace>#<name>`) and
 *   registry items (`CLUSTERS`, `<id>`) carry these attributes; it answers listJobSets and
 *   listClusters without a Scan over the journal. Its keys never change after the item is
 *   created, so with KEYS_ONLY it costs no index write on the hot path (noteEvent, lease writes);
 *   the listing pays a BatchGetItem instead, and listings are rare.
 * - `resync` (`resyncShard`, `resyncAt`): see RESYNC_INDEX for why it exists and what it holds.
 *
 * Journal items carry `expiresAt` (epoch SECONDS), the attribute the CDK stack names as the
 * table's TTL attribute. CreateTable has no TTL field, and dynalite has no UpdateTimeToLive, so
 * TTL is not part of tableDefinition(): the embedded store keeps expired journal entries until
 * `.lineup/` is removed, and readers must not assume expired items are gone (DynamoDB itself
 * deletes them within days, not at `expiresAt`).
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { JobSetKey } from './types.ts';

/** TABLE_KEY: the table's key attributes (both strings). */
export const TABLE_KEY = { partitionKey: 'pk', sortKey: 'sk' } as const;

/** TTL_ATTRIBUTE: the TTL attribute of journal entries, epoch seconds (the CDK stack sets it as the table's TTL). */
export const TTL_ATTRIBUTE = 'expiresAt';

/** DEFAULT_TABLE_NAME: the table name of the embedded store and the tests; production takes the CDK stack's name. */
export const DEFAULT_TABLE_NAME = 'lineup-checkpoints';

/** Attr: every other attribute name the store writes, so the CDK stack, queries and readers agree. */
export const Attr = {
  // JobSet state items.
  cluster: 'cluster',
  namespace: 'namespace',
  name: 'name',
  dirty: 'dirty',
  reconciled: 'reconciled',
  leaseOwner: 'leaseOwner',
  /** Epoch ms. */
  leaseExpiresAt: 'leaseExpiresAt',
  lastError: 'lastError',
  /** Epoch ms. */
  lastErrorAt: 'lastErrorAt',
  /** Epoch ms. */
  wakeAt: 'wakeAt',
  /** true when the last pass left the JobSet finished, without ttlSecondsAfterFinished (reconcileJobSet settledFinished); absent otherwise. */
  finished: 'finished',
  /** Epoch ms; on every item the store writes. */
  updatedAt: 'updatedAt',
  /** Triggers of the events noted since the last release (list of maps). */
  pending: 'pending',
  /** Triggers trimmed out of `pending` since the last release (lib/store/rules.ts trimPending); absent: none. */
  pendingDropped: 'pendingDropped',
  /** Triggers handled by pass loops that wrote no journal entry (list of maps). */
  carried: 'carried',
  /** objectRef → resourceVersion the last pass loop ended knowing (map). */
  known: 'known',
  /** The post-write snapshot the last pass loop's process remembers. */
  snapshot: 'snapshot',
  // Journal items (one per reconcile pass).
  at: 'at',
  plannerVersion: 'plannerVersion',
  planOptions: 'planOptions',
  triggers: 'triggers',
  timings: 'timings',
  inputsDigest: 'inputsDigest',
  inputsKept: 'inputsKept',
  actions: 'actions',
  actionsOmitted: 'actionsOmitted',
  reason: 'reason',
  applied: 'applied',
  replayName: 'replayName',
  error: 'error',
  inputs: 'inputs',
  /** Everything of a journal item but its time, as one gzip'd JSON binary (journalAttributes). */
  packed: 'packed',
  // Bookmark items.
  resourceVersion: 'resourceVersion',
  // Registry items.
  id: 'id',
  endpoint: 'endpoint',
  caData: 'caData',
  auth: 'auth',
  // Cluster slot items.
  /** Holder id → epoch ms its slot expires at (map). */
  holders: 'holders',
} as const;

/** LIST_INDEX: the sparse KEYS_ONLY index listing a cluster's JobSets and the registered clusters. */
export const LIST_INDEX = { name: 'list', partitionKey: 'listPk', sortKey: 'listSk' } as const;

/**
 * RESYNC_INDEX: the sparse KEYS_ONLY index the resync λ queries (listNeedingResync).
 *
 * Why an index and not a Scan: a Scan reads every item of the table — every JobSet of every
 * cluster and 14 days of journal entries — on every resync tick, so its cost grows with the fleet's
 * history, while the JobSets that need attention are the few in flight. Only items that are not
 * quiescent carry `resyncShard` and `resyncAt`, so the index holds exactly those and a tick costs
 * one Query per shard plus a BatchGetItem of the candidates.
 *
 * `resyncAt` is a lower bound of the first moment the item may need a resync, kept with single
 * unconditional writes (there is no min() in an update expression):
 * - noting an event (noteEvent) and taking a lease set it to the write's `now`, so from then on the
 *   item is a candidate — whatever its lease expiry, error or wakeAt, it can never be missed (a note
 *   cannot keep an earlier value: it may be a later wakeAt, and the bump needs attention now);
 * - a 'released' release is the only write that knows the item is quiescent: it removes both
 *   attributes, or sets `resyncAt` to the new wakeAt;
 * - a renewal and failLease leave them alone: they need the lease, and taking it made the item
 *   a candidate already.
 * Candidates are therefore a superset: listNeedingResync reads them and keeps those that pass
 * needsResync (lib/store/rules.ts), the same predicate the in-memory store applies. A JobSet in
 * flight is read and dropped on each tick until its holder releases — bounded by the work in
 * flight, not by the table's size.
 *
 * `resyncShard` spreads the index over RESYNC_SHARD_COUNT partition key values because noteEvent
 * writes `resyncAt` on every event, and a single index partition key value would throttle (and
 * through index back-pressure, throttle the table) at fleet-wide event rates.
 */
export const RESYNC_INDEX = { name: 'resync', partitionKey: 'resyncShard', sortKey: 'resyncAt' } as const;

/**
 * RESYNC_SHARD_COUNT: how many `resyncShard` values exist. It may grow, never shrink: items keep
 * the shard they were written with, and listNeedingResync queries shards 0..count-1 only.
 */
export const RESYNC_SHARD_COUNT = 16;

/** KeyPart: the prefixes and fixed sort keys of the item kinds. */
export const KeyPart = {
  jobSet: 'JOBSET#',
  cluster: 'CLUSTER#',
  forwarder: 'FORWARDER#',
  state: 'STATE',
  journal: 'JOURNAL#',
  bookmark: 'BOOKMARK#',
  registry: 'REGISTRY',
  listJobSets: 'JOBSETS#',
  listClusters: 'CLUSTERS',
  resyncShard: 'RESYNC#',
  slots: 'SLOTS#',
  slotsItem: 'SLOTS',
} as const;

/** JOURNAL_TIME_DIGITS: width of the zero-padded epoch ms in a journal entry's sort key (13 digits last until the year 2286). */
export const JOURNAL_TIME_DIGITS = 13;

/** jobSetPk: the partition key of a JobSet's state item and journal entries. */
export const jobSetPk = (key: JobSetKey): string => `${KeyPart.jobSet}${key.cluster}#${key.namespace}#${key.name}`;

/** clusterPk: the partition key of a cluster's registry entry (no forwarder writes under it). */
export const clusterPk = (clusterId: string): string => `${KeyPart.cluster}${clusterId}`;

/** forwarderPk: the partition key of a cluster's forwarder's bookmarks, the only key its forwarder may write under. */
export const forwarderPk = (clusterId: string): string => `${KeyPart.forwarder}${clusterId}`;

/** slotsPk: the partition key of a cluster's reconciler slots (written by the reconciler only). */
export const slotsPk = (clusterId: string): string => `${KeyPart.slots}${clusterId}`;

/** bookmarkSk: the sort key of a forwarder's bookmark for one watched resource kind. */
export const bookmarkSk = (resource: string): string => `${KeyPart.bookmark}${resource}`;

/**
 * BOOKMARK_ATTRIBUTES: every attribute a bookmark item has — all a forwarder's PutItem may name
 * (infra/permissions.ts, dynamodb:Attributes), so it can put no index key (`listPk`, `resyncShard`)
 * and no registry attribute on the items it may write.
 */
export const BOOKMARK_ATTRIBUTES = [TABLE_KEY.partitionKey, TABLE_KEY.sortKey, Attr.resourceVersion, Attr.updatedAt] as const;

/** listPkOfCluster: the `list` index partition key under which a cluster's JobSets are found. */
export const listPkOfCluster = (clusterId: string): string => `${KeyPart.listJobSets}${clusterId}`;

/** listSkOfJobSet: the `list` index sort key of a JobSet within its cluster. */
export const listSkOfJobSet = (key: JobSetKey): string => `${key.namespace}#${key.name}`;

/**
 * journalSk: the sort key of a journal entry: zero-padded time first so a Query returns entries in
 * time order, then a suffix that keeps two entries of the same millisecond apart.
 */
export const journalSk = (at: number, suffix: string): string =>
  `${KeyPart.journal}${String(Math.max(0, Math.trunc(at))).padStart(JOURNAL_TIME_DIGITS, '0')}#${suffix}`;

/**
 * resyncShardOf: the `resync` index shard of a partition key — FNV-1a, so the same JobSet always
 * lands in the same shard and every writer computes it without coordination.
 */
export const resyncShardOf = (pk: string): string => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < pk.length; i += 1) {
    hash ^= pk.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${KeyPart.resyncShard}${hash % RESYNC_SHARD_COUNT}`;
};

/** resyncShards: every `resyncShard` value listNeedingResync queries. */
export const resyncShards = (): string[] =>
  Array.from({ length: RESYNC_SHARD_COUNT }, (_, shard) => `${KeyPart.resyncShard}${shard}`);

/**
 * tableDefinition: the CreateTable input of the checkpoint table — on-demand billing, the key
 * schema and both sparse indexes. The CDK stack mirrors it (and adds TTL on TTL_ATTRIBUTE);
 * `lineup run` and the tests create the table from it.
 */
export const tableDefinition = (tableName: string = DEFAULT_TABLE_NAME): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: [
    { AttributeName: TABLE_KEY.partitionKey, AttributeType: 'S' },
    { AttributeName: TABLE_KEY.sortKey, AttributeType: 'S' },
    { AttributeName: LIST_INDEX.partitionKey, AttributeType: 'S' },
    { AttributeName: LIST_INDEX.sortKey, AttributeType: 'S' },
    { AttributeName: RESYNC_INDEX.partitionKey, AttributeType: 'S' },
    { AttributeName: RESYNC_INDEX.sortKey, AttributeType: 'N' },
  ],
  KeySchema: [
    { AttributeName: TABLE_KEY.partitionKey, KeyType: 'HASH' },
    { AttributeName: TABLE_KEY.sortKey, KeyType: 'RANGE' },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: LIST_INDEX.name,
      KeySchema: [
        { AttributeName: LIST_INDEX.partitionKey, KeyType: 'HASH' },
        { AttributeName: LIST_INDEX.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    },
    {
      IndexName: RESYNC_INDEX.name,
      KeySchema: [
        { AttributeName: RESYNC_INDEX.partitionKey, KeyType: 'HASH' },
        { AttributeName: RESYNC_INDEX.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    },
  ],
});
