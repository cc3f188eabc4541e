/** The checkpoint store: its roles (types.ts), the DynamoDB store, the embedded server and the in-memory stand-in. */
export type {
  BookmarkRecord,
  BookmarkStore,
  CheckpointStore,
  ClusterRegistry,
  EventNoteRequest,
  ForwarderStore,
  JobSetStateStore,
  JournalStore,
  LeaseFailure,
  LeaseRelease,
  LeaseStore,
  StoreReader,
  ClusterHeartbeat,
  ClusterAuth,
  ClusterRecord,
  InputsKept,
  JobSetKey,
  JournalAction,
  JournalEntry,
  JournalEvent,
  JournalTimings,
  JobSetState,
  Lease,
  ReleaseOutcome,
} from './types.ts';
export { DynamoCheckpointStore } from './dynamoStore.ts';
export type { DynamoCheckpointStoreOptions } from './dynamoStore.ts';
export { MemoryCheckpointStore } from './memoryStore.ts';
export type { MemoryCheckpointStoreOptions } from './memoryStore.ts';
export { ensureCheckpointTable, startEmbeddedDynamo } from './embedded.ts';
export type { EmbeddedDynamo, EmbeddedDynamoOptions } from './embedded.ts';
export {
  Attr,
  JOURNAL_TIME_DIGITS,
  DEFAULT_TABLE_NAME,
  KeyPart,
  LIST_INDEX,
  RESYNC_INDEX,
  RESYNC_SHARD_COUNT,
  TABLE_KEY,
  TTL_ATTRIBUTE,
  BOOKMARK_ATTRIBUTES,
  bookmarkSk,
  clusterPk,
  forwarderPk,
  journalSk,
  jobSetPk,
  listPkOfCluster,
  listSkOfJobSet,
  resyncShardOf,
  resyncShards,
  tableDefinition,
} from './table.ts';
export {
  compareClusters,
  compareJobSetKeys,
  journalExpiresAt,
  dirtyWithoutLease,
  lastPassFailed,
  leaseExpired,
  leaseIsFree,
  needsResync,
  wakeDue,
} from './rules.ts';
