/**
 * The checkpoint store's contract, by role: leases (LeaseStore) and the JobSet state items they
 * live on (JobSetStateStore), the journal of reconcile passes (JournalStore), the forwarders'
 * watch bookmarks (BookmarkStore: their newest write is also the forwarder's heartbeat) and the
 * cluster registry (ClusterRegistry). Every role is kept in one DynamoDB table with conditional single-item writes
 * only (no transactions, so it runs on any DynamoDB-API server), or in one SQLite state
 * directory with the same semantics; CheckpointStore is all of them, and each caller asks only
 * for the roles it uses. An in-memory store with the same semantics serves unit tests of the
 * code above the store only.
 */

/** The JobSet a record is about. */
export interface JobSetKey {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

/** The lease a reconciler holds while it runs passes for one JobSet. */
export interface Lease {
  readonly owner: string;
  /** Epoch ms after which anybody may take the lease. */
  readonly expiresAt: number;
  /** The dirty counter when the lease was taken or last renewed: what the holder reconciles to. */
  readonly dirty: number;
}

/**
 * What a pass loop leaves on the state item for the next one: read back by the next
 * event's write at no extra request.
 */
export interface LoopCheckpoint {
  /**
   * The resourceVersion of each object the loop ended knowing, keyed by objectRef: an event naming
   * one of them at that version tells nothing new (the echo of the loop's own write, or a change
   * it already read) and is dropped by the event's own conditional write. Absent when the loop
   * could not know every object after its writes.
   */
  readonly known?: Readonly<Record<string, string>> | undefined;
  /** Names the post-write snapshot the loop's process remembers (lib/reconcile/snapshot.ts); absent: none. */
  readonly snapshot?: string | undefined;
  /** inputsDigest of the last journal entry written for the JobSet (kept until another entry is written). */
  readonly inputsDigest?: string | undefined;
}

/** objectRef: the key of an object in LoopCheckpoint.known — `JobSet/<name>` or `Job/<name>`. */
export const objectRef = (kind: 'JobSet' | 'Job', name: string): string => `${kind}/${name}`;

/** A lease as its holder sees it: the lease, and what the state item carries for the pass loop. */
export interface HeldLease extends Lease {
  /** The triggers of the events noted since the last release, oldest first: the objects that may have changed. */
  readonly pending: readonly JournalEvent[];
  /**
   * Triggers left out of `pending` since the last release to keep it within MAX_PENDING_TRIGGERS
   * (lib/store/rules.ts trimPending), absent when none: the objects they named may have changed
   * without `pending` saying so, so the loop reads everything.
   */
  readonly pendingDropped?: number | undefined;
  /** Triggers earlier loops handled without a journal entry: the next entry names them too. */
  readonly carried: readonly JournalEvent[];
  readonly checkpoint: LoopCheckpoint;
}

/** How many triggers noting an event left out of the pending list (lib/store/rules.ts trimPending); absent from a note when none. */
export interface PendingTrimmed {
  readonly coalesced: number;
  readonly dropped: number;
}

/** What noting one event did. */
export type EventNote =
  /** The state item already knows the event's object at its resourceVersion: nothing was written. */
  | { readonly outcome: 'echo' }
  /** Counted and queued for the holder of the lease. */
  | { readonly outcome: 'deferred'; readonly trimmed?: PendingTrimmed | undefined }
  /** Counted, queued, and the lease is the caller's. */
  | { readonly outcome: 'leased'; readonly lease: HeldLease; readonly trimmed?: PendingTrimmed | undefined };

/** The per-JobSet state item. */
export interface JobSetState {
  readonly key: JobSetKey;
  /** Bumped by every event about the JobSet. */
  readonly dirty: number;
  /** The dirty value the last completed pass loop reconciled. */
  readonly reconciled: number;
  readonly lease?: { readonly owner: string; readonly expiresAt: number } | undefined;
  /** Set when the last pass loop ended in an error; cleared by the next successful release. */
  readonly lastError?: string | undefined;
  /** Epoch ms at which the JobSet wants a pass even without events (TTL after finished). */
  readonly wakeAt?: number | undefined;
  /** The last pass left the JobSet finished (Completed or Failed), without ttlSecondsAfterFinished and not being deleted: a full resync re-queues it only now and then (lib/reconcile/resync.ts). */
  readonly finished?: boolean | undefined;
  readonly updatedAt: number;
}

/** What a released pass loop leaves behind (LoopCheckpoint) and which triggers it carries to the next journal entry. */
export interface LoopRelease extends LoopCheckpoint {
  /** Triggers no journal entry of the loop took (its passes changed nothing), at most MAX_CARRIED_TRIGGERS. */
  readonly carry?: readonly JournalEvent[] | undefined;
  /** The loop's last pass left the JobSet settled finished (see settledFinished): a full resync may skip it. */
  readonly finished?: boolean | undefined;
}

/** Outcome of releasing a lease after a pass loop. */
export type ReleaseOutcome =
  /** Released: nothing happened since `reconciled` was read. */
  | 'released'
  /** Not released: the dirty counter moved on; run another pass, the lease is still yours (renewed). */
  | 'dirty'
  /** Not released: the lease is no longer yours (it expired and was taken). Stop. */
  | 'lost';

/** An event that triggered a pass, as the journal keeps it. */
export interface JournalEvent {
  /** EventBridge's event id. */
  readonly id?: string | undefined;
  /** detail-type, e.g. "Job Changed". */
  readonly detailType: string;
  readonly kind: 'JobSet' | 'Job';
  readonly name: string;
  readonly resourceVersion: string;
  readonly watchType: string;
  /** EventBridge's event time (epoch ms; EventBridge keeps whole seconds). */
  readonly time?: number | undefined;
  /** The archive replay that re-sent the event, if any. */
  readonly replayName?: string | undefined;
}

/** When each hop of a pass happened, epoch ms; hops a pass cannot know are absent. */
export interface JournalTimings {
  /** The forwarder saw the change (the event detail's seenAt). */
  readonly seenAt?: number | undefined;
  /** EventBridge's event time (put on the bus; whole seconds). */
  readonly eventAt?: number | undefined;
  /** The reconciler received the event. */
  readonly receivedAt?: number | undefined;
  /** The pass started: the planner's now. */
  readonly passStartedAt: number;
  /** The pass's writes were done (or failed). */
  readonly writesDoneAt: number;
}

/** One action of a pass with its reason (lib/plan/reasons.ts). */
export interface JournalAction {
  readonly kind: string;
  /** What the action writes: a Job's name, the Service's name, or '' for the JobSet itself. */
  readonly target: string;
  /** ActionReasonCode. */
  readonly code: string;
  readonly message: string;
  /** Digest of the whole action, so a replay sees a change in any field of it. */
  readonly digest: string;
}

/**
 * How a pass's planner inputs are kept: `stored` (whole in `inputs`: a keyframe), `delta` (in
 * `inputs`, only the objects that changed since an earlier entry of this JobSet, named by its
 * inputsDigest: lib/reconcile/journal.ts), `unchanged` (identical to the inputs of an earlier
 * entry of this JobSet with the same inputsDigest), `too-large` (over the item limit: this pass
 * cannot be replayed).
 */
export type InputsKept = 'stored' | 'delta' | 'unchanged' | 'too-large';

/** One journal entry: what one reconcile pass saw, decided and why. */
export interface JournalEntry {
  readonly key: JobSetKey;
  /** Epoch ms of the pass: the planner's now. */
  readonly at: number;
  /** The planner version (lib/plannerVersion.ts) of the planner that decided. */
  readonly plannerVersion: string;
  /** The planner's options (which JobSets are Lineup's, the JobSet bounds when the host set them): part of its inputs. */
  readonly planOptions: {
    readonly controllerName: string;
    readonly claimUnmanaged: boolean;
    readonly limits?: { readonly maxJobs: number; readonly maxPods: number } | undefined;
  };
  /** The events that triggered the pass (the first pass of a loop: the handled event; later ones: none). */
  readonly triggers: readonly JournalEvent[];
  readonly timings: JournalTimings;
  /** sha256 (hex, 16) of the planner inputs (JobSet, Jobs, Service as observed). */
  readonly inputsDigest: string;
  readonly inputsKept: InputsKept;
  /** gzip+base64 of the inputs' JSON {jobSet, jobs, service} when inputsKept is `stored`, of their InputsDelta when `delta`. */
  readonly inputs?: string | undefined;
  /** Every action, in plan order, with its reason. */
  readonly actions: readonly JournalAction[];
  /** Trailing actions left out to keep the item under its size limit (absent: none). */
  readonly actionsOmitted?: number | undefined;
  /** The plan's one-line reason. */
  readonly reason: string;
  /** Whether the actions were applied (false for a replayed event evaluated only). */
  readonly applied: boolean;
  /** The replay name when the pass was triggered by a replayed event. */
  readonly replayName?: string | undefined;
  /** Error message when carrying out the plan failed. */
  readonly error?: string | undefined;
}

/** A cluster's connection details in the registry. */
export type ClusterAuth =
  | { readonly type: 'eks'; readonly clusterName: string; readonly region: string; readonly roleArn?: string | undefined }
  | { readonly type: 'token'; readonly tokenSecretArn?: string | undefined; readonly token?: string | undefined }
  | { readonly type: 'kubeconfig'; readonly path: string; readonly context?: string | undefined };

/** A registered cluster. */
export interface ClusterRecord {
  readonly id: string;
  readonly endpoint: string;
  /** PEM of the cluster CA (base64 as in a kubeconfig is accepted too). */
  readonly caData?: string | undefined;
  readonly auth: ClusterAuth;
}

/** A forwarder's watch bookmark with when it was written: its age is how far the forwarder lags (`lineup clusters status`). */
export interface BookmarkRecord {
  /** The watched resource kind (BookmarkResource). */
  readonly resource: string;
  readonly resourceVersion: string;
  /** Epoch ms of the write. */
  readonly updatedAt: number;
}

/**
 * A cluster's heartbeat: its forwarder's newest checkpoint write (lib/fleet/status.ts
 * checkpointHeartbeat reads it from the bookmarks; no item of its own holds it).
 */
export interface ClusterHeartbeat {
  readonly cluster: string;
  /** Epoch ms the forwarder sent it at. */
  readonly sentAt: number;
  /** Epoch ms it was recorded at: for a checkpoint, its write time (sentAt). */
  readonly receivedAt: number;
  /** The forwarder's heartbeat interval, ms: a heartbeat older than a few of these is missing. */
  readonly intervalMs: number;
}

/** What noting one event takes: the objects it names, who would hold the lease, and for how long. */
export interface EventNoteRequest {
  /** One trigger per object the event names (its own first). */
  readonly triggers: readonly JournalEvent[];
  /** Who takes the lease when it is free. */
  readonly owner: string;
  readonly now: number;
  /** How long a lease taken lasts without renewal. */
  readonly ttlMs: number;
}

/** What releasing a lease after a pass loop takes. */
export interface LeaseRelease {
  /** Who holds the lease. */
  readonly owner: string;
  /** The dirty counter the loop reconciled to (the lease's `dirty` when its last pass began). */
  readonly reconciledDirty: number;
  readonly now: number;
  /** How long the renewed lease lasts when the counter moved on. */
  readonly ttlMs: number;
  /** Epoch ms at which the JobSet wants a pass without events; absent: none. */
  readonly wakeAt?: number | undefined;
  /** What the loop leaves on the state item. @default nothing (no checkpoint, no carried triggers, not finished) */
  readonly loop?: LoopRelease | undefined;
}

/** What giving a lease up after an error takes. */
export interface LeaseFailure {
  /** Who holds the lease. */
  readonly owner: string;
  /** The error, as the state item keeps it (lastError). */
  readonly error: string;
  readonly now: number;
  /** inputsDigest of the last journal entry the loop wrote; absent: the item's stays. */
  readonly inputsDigest?: string | undefined;
}

/** LeaseStore: the reconciler's per-JobSet lease, taken by noting an event and given up by release, failure or forgetting. */
export interface LeaseStore {
  /**
   * noteEvent: one conditional write per event — unless the item knows every object the event's
   * `triggers` name (one per object) at its resourceVersion ('echo', nothing written): bump the
   * dirty counter, append the triggers to the pending list, and take the lease when nobody holds
   * it or it expired ('leased', with what the item carries) — else 'deferred' (the holder's next
   * release sees the bump). A list over MAX_PENDING_TRIGGERS is trimmed (rules.ts trimPending:
   * coalesced by object, then the oldest dropped and counted in `pendingDropped` until the next
   * release), which the note reports as `trimmed`.
   */
  noteEvent(key: JobSetKey, note: EventNoteRequest): Promise<EventNote>;
  /**
   * releaseLease: give the lease up if `owner` holds it and the dirty counter still equals
   * `reconciledDirty` (recording it as reconciled, clearing lastError, setting wakeAt, replacing
   * the pending list, keeping `loop.carry`, and the checkpoint's known and snapshot by `loop`'s,
   * its inputsDigest when given, and `finished` as `loop.finished` says); when the counter moved,
   * renew the lease and return 'dirty' with the new lease and everything pending.
   */
  releaseLease(key: JobSetKey, release: LeaseRelease): Promise<{ outcome: ReleaseOutcome; lease?: HeldLease | undefined }>;
  /**
   * failLease: give the lease up after an error, keeping the JobSet dirty and recording the error
   * (resync retries it); the checkpoint's known and snapshot go (the loop's view is not to be
   * trusted); `inputsDigest`, when given, is the digest of the last journal entry the loop wrote.
   */
  failLease(key: JobSetKey, failure: LeaseFailure): Promise<void>;
  /**
   * forgetJobSet: delete the state item of a JobSet that no longer exists, if `owner` holds its
   * lease (so a JobSet re-created meanwhile, whose events bump the item, is not forgotten); its
   * journal entries stay until their TTL. Without this, full resyncs would re-queue every JobSet ever seen.
   */
  forgetJobSet(key: JobSetKey, owner: string): Promise<boolean>;
}

/** JobSetStateStore: reading the per-JobSet state items the leases live on. */
export interface JobSetStateStore {
  /** getState: the JobSet's state item, if any. */
  getState(key: JobSetKey): Promise<JobSetState | undefined>;
  /**
   * listNeedingResync: JobSets whose lease expired while held, whose last pass failed, whose
   * dirty counter is ahead of reconciled with no lease, or whose wakeAt has come.
   */
  listNeedingResync(now: number): Promise<JobSetState[]>;
  /** listJobSets: every JobSet item of one cluster (for periodic re-lists and `lineup history`). */
  listJobSets(cluster: string): Promise<JobSetState[]>;
}

/** JournalStore: the journal, one entry per reconcile pass that wrote or showed something. */
export interface JournalStore {
  /**
   * appendJournal: append one pass's entry (items expire after the configured retention). An
   * entry too large for an item keeps everything but its inputs (inputsKept `too-large`).
   */
  appendJournal(entry: JournalEntry): Promise<void>;
  /** listJournal: a JobSet's journal entries, oldest first, at most `limit`. */
  listJournal(key: JobSetKey, limit?: number): Promise<JournalEntry[]>;
}

/** BookmarkStore: the forwarder's watch bookmark per cluster and resource kind; the newest write of a cluster's is its forwarder's heartbeat. */
export interface BookmarkStore {
  /** getBookmark / putBookmark: the forwarder's resourceVersion per cluster and resource kind. */
  getBookmark(cluster: string, resource: string): Promise<string | undefined>;
  putBookmark(cluster: string, resource: string, resourceVersion: string, now: number): Promise<void>;
  /** listBookmarks: every bookmark of a cluster with its write time, ordered by resource. */
  listBookmarks(cluster: string): Promise<BookmarkRecord[]>;
}

/** ClusterRegistry: the registered clusters and how to reach them. */
export interface ClusterRegistry {
  getCluster(id: string): Promise<ClusterRecord | undefined>;
  putCluster(record: ClusterRecord): Promise<void>;
  /** addCluster: one conditional write registering `record` unless its id is registered already; returns whether it was added. */
  addCluster(record: ClusterRecord): Promise<boolean>;
  listClusters(): Promise<ClusterRecord[]>;
  deleteCluster(id: string): Promise<void>;
}

/**
 * StoreReader: every read of every role — what `lineup history`, `clusters status`, `replay`
 * and the other commands that only look are given.
 */
export type StoreReader = JobSetStateStore &
  Pick<JournalStore, 'listJournal'> &
  Pick<BookmarkStore, 'getBookmark' | 'listBookmarks'> &
  Pick<ClusterRegistry, 'getCluster' | 'listClusters'>;

/** ForwarderStore: what a forwarder uses: its bookmarks, and its cluster's registry entry (for hosts given no endpoint). */
export type ForwarderStore = Pick<BookmarkStore, 'getBookmark' | 'putBookmark'> & Pick<ClusterRegistry, 'getCluster'>;

/** CheckpointStore: every role, everything the pipeline keeps between invocations, as one table or one state directory keeps it. */
export interface CheckpointStore extends LeaseStore, JobSetStateStore, JournalStore, BookmarkStore, ClusterRegistry {}
