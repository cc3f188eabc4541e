/**
 * The forwarder: lists and watches JobSets and their Jobs, forwards a slim
 * event when something a decision depends on changed, and checkpoints the resourceVersion it
 * reached so the next run (a restarted Deployment, the next Lambda watch session) resumes there.
 *
 * Delivery is at-least-once: a kind's resourceVersion is checkpointed only after every event
 * up to it was put, so a crash re-sends (never loses) what was in flight. Events are hints, so
 * a repeat only costs a reconcile pass that finds nothing to do.
 *
 * It never ends on its own error: a failed list, watch or checkpoint is logged and retried
 * with bounded backoff. It ends when its signal aborts, after flushing what it accepted.
 *
 * Retry layers: each kind's loop here is the ONE layer that retries lists and watches (the
 * source sends each request once); the batcher is the one layer that retries puts. Both wait on
 * the project's one policy (lib/retry.ts).
 */
import { ForwarderLog } from './forwarderLog.ts';
import { CounterName } from '../counters.ts';
import { EventTooLargeError, toPutEventsEntry } from '../events/envelope.ts';
import { mergeEntries } from '../events/merge.ts';
import { CLUSTER_ID_PATTERN, type LineupEvent } from '../events/schema.ts';
import { ErrorCode, InvalidInputError, LineupError, UnavailableError } from '../errors.ts';
import type { Job, JobSet } from '../jobset/schema.ts';
import { isManagedByLineup } from '../jobset/managedBy.ts';
import type { PlanOptions } from '../plan/types.ts';
import type { BookmarkStore } from '../store/types.ts';
import type { CounterSink } from '../counters.ts';
import type { Log } from '../log.ts';
import { Backoff, sleep, type RetryPolicy, type Sleep } from '../retry.ts';
import { Batcher, reportOversize } from './batcher.ts';
import { runHeartbeats } from './heartbeat.ts';
import {
  changeOf,
  filterEvent,
  objectUid,
  seenOf,
  syncEvent,
  syncEventFor,
  vanishedEvent,
  type FilterContext,
  type SeenObject,
} from './filter.ts';
import type { EventSink, ListResult, WatchEvent, WatchSource, WatchedKind } from './types.ts';
import { jobSetFactsOf, ProgressIndex, progressWaits, type JobSetFacts } from './progress.ts';

/** Entries waiting in the batcher above which the forwarder stops taking watch events until puts catch up. */
export const FORWARDER_MAX_PENDING_ENTRIES = 1_000;
/** Pause before reconnecting a watch the server closed (API servers end watches every 5–10 minutes). */
export const WATCH_RECONNECT_DELAY_MS = 100;
/**
 * WATCH_RETRY: after a failed list or a watch that broke, the forwarder tries again until it
 * succeeds, the delay doubling from baseDelayMs up to maxDelayMs; a server's Retry-After replaces
 * the delay. Not jittered: one forwarder per cluster is the API server's only such caller.
 */
export const WATCH_RETRY = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 200, maxDelayMs: 30_000, jitter: 'none' } as const satisfies RetryPolicy;
/**
 * Least time between two checkpoint writes of one watched kind; bounds store writes under a
 * steady event stream (at 1 s they were most of a startup's DynamoDB writes). A forwarder that
 * crashes re-sends at most this much, which costs passes that find nothing to do; far below
 * etcd's 5-minute compaction, so a resume does not meet 410 Gone for it.
 */
export const WATCH_CHECKPOINT_INTERVAL_MS = 10_000;

/** Longest Lambda watch session: under Lambda's 15-minute limit, leaving a minute to flush and checkpoint. */
export const WATCH_SESSION_MAX_MS = 14 * 60 * 1000;

/** BookmarkResource: the `resource` under which the forwarder checkpoints each watched kind's resourceVersion. */
export const BookmarkResource = {
  JobSet: 'jobsets',
  Job: 'jobs',
} as const;

/** ForwarderOptions: the cluster, its source, where events and checkpoints go, and timings. */
export interface ForwarderOptions {
  /** Cluster id: names the event source `lineup.<cluster>` and keys the checkpoints. */
  readonly cluster: string;
  readonly source: WatchSource;
  readonly sink: EventSink;
  readonly bookmarks: Pick<BookmarkStore, 'getBookmark' | 'putBookmark'>;
  /** Which JobSets are Lineup's (the same options the reconciler plans with). */
  readonly planOptions: PlanOptions;
  readonly counters: CounterSink;
  readonly log: Log;
  /** Epoch ms, for checkpoint timestamps and their spacing. */
  readonly now: () => number;
  /** Batch window of the puts. @default FORWARDER_BATCH_WINDOW_MS */
  readonly batchWindowMs?: number | undefined;
  /** How long the echo of Lineup's own Job write waits for its JobSet's next change. @default OWN_WRITE_HOLD_MS */
  readonly ownWriteHoldMs?: number | undefined;
  /**
   * Re-list JobSets this often and send a `JobSet Sync` for each managed one, even without a
   * 410. @default undefined — no periodic re-list: the resync Lambda already re-queues JobSets
   * whose last pass failed or whose lease lapsed.
   */
  readonly resyncIntervalMs?: number | undefined;
  /**
   * Rewrite the checkpoint when none was written for this long, as the forwarder's heartbeat
   * (lib/forwarder/heartbeat.ts; hosts pass HEARTBEAT_INTERVAL_MS). @default undefined — none
   */
  readonly heartbeatIntervalMs?: number | undefined;
  /** EventBusName written into every entry (and counted in its size). @default undefined — the sink's bus */
  readonly eventBusName?: string | undefined;
  /** Pause before reconnecting a watch the server closed. @default WATCH_RECONNECT_DELAY_MS */
  readonly reconnectDelayMs?: number | undefined;
  /**
   * Retry delays after a watch transport error or a failed list (its Retry-After honoured); its
   * maxAttempts is not used: the forwarder retries until it succeeds. @default WATCH_RETRY
   */
  readonly watchRetry?: RetryPolicy | undefined;
  /** Retry delays of failed puts. @default PUT_RETRY */
  readonly putRetry?: RetryPolicy | undefined;
  /** Least time between two checkpoint writes per kind. @default WATCH_CHECKPOINT_INTERVAL_MS */
  readonly checkpointIntervalMs?: number | undefined;
  /** Undelivered entries above which watch events wait for puts to catch up. @default FORWARDER_MAX_PENDING_ENTRIES */
  readonly maxPendingEntries?: number | undefined;
  /** @default sleep */
  readonly sleep?: Sleep | undefined;
  /** Source of the retry delays' jitter, in [0, 1). @default Math.random */
  readonly random?: (() => number) | undefined;
}

/**
 * OWN_WRITE_HOLD_MS: how long the echo of Lineup's own write to a child Job (created, suspended,
 * resumed) waits for its JobSet's next change before it goes alone. What follows it is usually
 * the Job controller's reaction (pods created, a Suspended condition) within a second; folded
 * into that, it costs no event. No gate waits on it — only the status counters the next pass
 * writes, which lag by at most this long.
 */
export const OWN_WRITE_HOLD_MS = 2_000;

/** The kinds watched, each in its own loop. */
const WATCHED_KINDS: readonly WatchedKind[] = ['JobSet', 'Job'];

/** retryAfterOf: the wait a failed list or watch asked for (a 429's Retry-After), when it did. */
const retryAfterOf = (error: unknown): number | undefined => (error instanceof UnavailableError ? error.retryAfterMs : undefined);

/** jobSetKey: the key of the managed-JobSet map. */
const jobSetKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** coalescingKey: the batcher's key of an event: its JobSet (its objects' changes in a window go as one event). */
const coalescingKey = (event: LineupEvent): string => jobSetKey(event.detail.namespace, event.detail.jobSet);
/** heldKey: the batcher's key of a JobSet's changes no decision waits for, which its next change takes along. */
const heldKey = (event: LineupEvent): string => `${coalescingKey(event)}#held`;

/** KindState: one watched kind's progress within a run. */
interface KindState {
  readonly kind: WatchedKind;
  /** The resourceVersion to watch from: of the last event (or bookmark, or list) taken in. */
  resourceVersion: string | undefined;
  /** What was last forwarded (or listed) per object uid. */
  seen: ProgressIndex<SeenObject>;
  /** Resolves when every entry of the events taken in so far was put (then `delivered` names the last). */
  chain: Promise<void>;
  /** The resourceVersion whose events, and all before it, were put. */
  delivered: string | undefined;
  /** The resourceVersion last written to the checkpoint store. */
  checkpointed: string | undefined;
  lastCheckpointAt: number;
  /** The running checkpoint writer, when one runs. */
  writing: Promise<void> | undefined;
  /** Wakes the running writer from its wait for the checkpoint interval: the forwarder is stopping. */
  hurry: AbortController | undefined;
  /** A heartbeat asks the writer to rewrite the checkpoint though it did not move. */
  beatDue: boolean;
}

/** Session: the state of one run — what the two kinds' loops share. */
interface Session {
  readonly signal: AbortSignal;
  readonly batcher: Batcher;
  /** JobSets by namespace/name: true when Lineup's, false when someone else's; absent when unknown. */
  jobSetManaged: Map<string, boolean>;
  /** Lineup's JobSets by namespace/name: what of their spec tells which Job progress a decision waits for. */
  jobSetFacts: Map<string, JobSetFacts>;
  readonly states: Record<WatchedKind, KindState>;
}

/**
 * Forwarder: cluster watch → filter → batched PutEvents, resuming from checkpoints.
 *
 * @example
 * const forwarder = new Forwarder({ cluster: 'dev', source, sink, bookmarks: store, planOptions, counters, log, now: Date.now });
 * process.once('SIGTERM', () => controller.abort());
 * await forwarder.run(controller.signal); // or, in a Lambda watch session: await forwarder.runFor(WATCH_SESSION_MAX_MS)
 */
export class Forwarder {
  private readonly options: ForwarderOptions;
  /** The kinds this forwarder has listed at least once (a host waiting for quiet needs both). */
  private readonly kindsListed = new Set<WatchedKind>();
  private readonly sleep: Sleep;
  /** The batcher of the run under way, if any. */
  private batcher: Batcher | undefined;

  constructor(options: ForwarderOptions) {
    if (!CLUSTER_ID_PATTERN.test(options.cluster)) {
      throw new InvalidInputError(`cluster id ${JSON.stringify(options.cluster)} is not a DNS label, expected ${CLUSTER_ID_PATTERN}`);
    }
    this.options = options;
    this.sleep = options.sleep ?? sleep;
  }

  /**
   * run: forward until `signal` aborts, then flush every accepted event, write the final
   * checkpoints and return. Never rejects on a source, sink or store error.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { sink, counters, log } = this.options;
    const batcher = new Batcher({
      sink,
      counters,
      log,
      windowMs: this.options.batchWindowMs,
      retry: this.options.putRetry,
      // Without a signal: put retries go on through shutdown, since accepted entries are never dropped.
      sleep: this.sleep,
      random: this.options.random,
      merge: mergeEntries,
    });
    this.batcher = batcher;
    const session: Session = {
      signal,
      batcher,
      jobSetManaged: new Map(),
      jobSetFacts: new Map(),
      states: { JobSet: newKindState('JobSet'), Job: newKindState('Job') },
    };
    const { heartbeatIntervalMs: intervalMs, now } = this.options;
    const startedAt = now();
    const heartbeats =
      intervalMs === undefined
        ? undefined
        : runHeartbeats(
            {
              intervalMs,
              now,
              sleep: this.sleep,
              lastWriteAt: () => Math.max(startedAt, ...WATCHED_KINDS.map((kind) => session.states[kind].lastCheckpointAt)),
              beat: () => this.beat(session),
            },
            signal,
          );
    await Promise.all(WATCHED_KINDS.map((kind) => this.runKind(session, session.states[kind])));
    await heartbeats;
    await batcher.flush();
    for (const state of Object.values(session.states)) {
      await state.chain;
      await this.writeCheckpoints(state, true);
    }
    log('info', ForwarderLog.stopped, {
      cluster: this.options.cluster,
      jobSetResourceVersion: session.states.JobSet.checkpointed,
      jobResourceVersion: session.states.Job.checkpointed,
    });
  }

  /**
   * pendingEvents: events accepted and not yet put — waiting for their window or hold, or in a
   * put under way (0 when no run is under way). A host waiting for quiet checks it is 0.
   */
  get pendingEvents(): number {
    return this.batcher?.pending ?? 0;
  }

  /** listedEveryKind: every watched kind was listed at least once and its events taken in. */
  get listedEveryKind(): boolean {
    return this.kindsListed.size === WATCHED_KINDS.length;
  }

  /**
   * runFor: one watch session of at most `ms` (the Lambda host passes WATCH_SESSION_MAX_MS, so
   * the session ends under Lambda's 15 minutes with time to flush); the next session resumes
   * from the checkpoint. Ends early when `signal` aborts.
   */
  async runFor(ms: number = WATCH_SESSION_MAX_MS, signal?: AbortSignal): Promise<void> {
    const session = new AbortController();
    // A timer of our own, not AbortSignal.timeout: that one is unref'd and would not keep the
    // process alive while a quiet watch waits.
    const timer = setTimeout(() => session.abort(), ms);
    const onAbort = () => session.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) session.abort();
    try {
      await this.run(session.signal);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** runKind: one kind's loop — resume or list, watch, and on each end reconnect, re-list or back off. */
  private async runKind(session: Session, state: KindState): Promise<void> {
    const { source, counters, log, cluster } = this.options;
    const { kind } = state;
    const { signal } = session;
    const watchRetry = this.options.watchRetry ?? WATCH_RETRY;
    const seams = { sleep: this.sleep, random: this.options.random };
    // Never used up: the forwarder retries until it succeeds or its signal aborts.
    const errors = new Backoff({ ...watchRetry, maxAttempts: Number.POSITIVE_INFINITY }, seams);
    // A server that closes watches at once without events should not be hammered: reconnects back
    // off from reconnectDelayMs while watches end quiet, and start over after one that delivered.
    const closes = new Backoff({ ...watchRetry, baseDelayMs: this.options.reconnectDelayMs ?? WATCH_RECONNECT_DELAY_MS, maxAttempts: Number.POSITIVE_INFINITY }, seams);
    const resync = kind === 'JobSet' ? this.options.resyncIntervalMs : undefined;

    state.resourceVersion = await this.readBookmark(kind, signal);
    state.checkpointed = state.resourceVersion;
    if (state.resourceVersion !== undefined) log('info', ForwarderLog.resumed, { cluster, kind, resourceVersion: state.resourceVersion });
    let mustList = state.resourceVersion === undefined;
    while (!signal.aborted) {
      if (mustList) {
        try {
          await this.list(session, state);
          mustList = false;
          errors.reset();
        } catch (error) {
          const retryInMs = errors.next(retryAfterOf(error)) ?? 0;
          log('warn', ForwarderLog.listFailed, { cluster, kind, attempt: errors.failures, retryInMs, error: String(error) });
          await this.sleep(retryInMs, signal);
          continue;
        }
      }
      // resourceVersion is set: by the checkpoint or by the list just done.
      const from = state.resourceVersion ?? '';
      const resyncTimer = resync === undefined ? undefined : new AbortController();
      const timer = resyncTimer && setTimeout(() => resyncTimer.abort(), resync);
      const watchSignal = resyncTimer ? AbortSignal.any([signal, resyncTimer.signal]) : signal;
      let events = 0;
      try {
        const end = await source.watch(kind, from, (event: WatchEvent<typeof kind>) => {
          events += 1;
          return this.onEvent(session, state, event);
        }, watchSignal);
        if (signal.aborted) break;
        errors.reset();
        if (end === 'expired') {
          counters.add(CounterName.Relists);
          log('warn', ForwarderLog.watchExpired, { cluster, kind, resourceVersion: state.resourceVersion });
          mustList = true;
        } else if (resyncTimer?.signal.aborted) {
          mustList = true;
        } else {
          if (events > 0) closes.reset();
          await closes.wait(signal);
        }
      } catch (error) {
        if (signal.aborted) break;
        if (resyncTimer?.signal.aborted) {
          // A source may reject rather than return 'closed' when its signal aborts: the resync ended it.
          mustList = true;
          continue;
        }
        if (error instanceof LineupError && error.code === ErrorCode.WATCH_EXPIRED) {
          // A source that reports 410 as an error rather than as 'expired' means the same.
          counters.add(CounterName.Relists);
          log('warn', ForwarderLog.watchExpired, { cluster, kind, resourceVersion: state.resourceVersion });
          mustList = true;
          continue;
        }
        counters.add(CounterName.WatchErrors);
        // A watch that delivered before it broke shows the server was serving: reconnect soon.
        if (events > 0) errors.reset();
        const retryInMs = errors.next(retryAfterOf(error)) ?? 0;
        log('warn', ForwarderLog.watchFailed, { cluster, kind, resourceVersion: state.resourceVersion, attempt: errors.failures, retryInMs, error: String(error) });
        await this.sleep(retryInMs, signal);
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** readBookmark: the checkpointed resourceVersion of `kind`; undefined (so: list) when none or the store failed. */
  private async readBookmark(kind: WatchedKind, signal: AbortSignal): Promise<string | undefined> {
    if (signal.aborted) return undefined;
    try {
      return await this.options.bookmarks.getBookmark(this.options.cluster, BookmarkResource[kind]);
    } catch (error) {
      this.options.log('warn', ForwarderLog.bookmarkReadFailed, { cluster: this.options.cluster, kind, error: String(error) });
      return undefined;
    }
  }

  /**
   * list: take a consistent snapshot of `kind` after a start without checkpoint, a 410 or a
   * resync. Anything may have changed while no watch ran, so:
   * - JobSets: a `JobSet Sync` per managed JobSet, and a DELETED event per remembered JobSet
   *   that is gone;
   * - Jobs: a `JobSet Sync` per JobSet owning a Job whose projection differs from the last one
   *   forwarded (every Job on a first list), is new, or is gone — the reconciler of the JobSet
   *   reads all its Jobs, so one event per JobSet replaces one per Job.
   * The listed objects seed the digests the watch then compares against.
   */
  private async list(session: Session, state: KindState): Promise<void> {
    const { cluster, planOptions, log } = this.options;
    const seen = new ProgressIndex<SeenObject>();
    const events: LineupEvent[] = [];
    // Page by page: only each object's digest (and a JobSet's Sync) outlives its page. Nothing of
    // the session changes until the last page is in, so a failed page leaves the state as it was.
    const managed = new Map<string, boolean>();
    const facts = new Map<string, JobSetFacts>();
    const owners = new Map<string, { namespace: string; name: string; uid?: string | undefined }>();
    const touch = (job: SeenObject) => owners.set(jobSetKey(job.namespace, job.jobSet), { namespace: job.namespace, name: job.jobSet, uid: job.jobSetUid });
    let resourceVersion = '';
    let items = 0;
    const takePage = (page: ListResult<WatchedKind>): void => {
      resourceVersion = page.resourceVersion;
      items += page.items.length;
      if (state.kind === 'JobSet') {
        for (const jobSet of page.items as readonly JobSet[]) {
          const isManaged = isManagedByLineup(jobSet, planOptions);
          const remembered = seenOf({ kind: 'JobSet', type: 'ADDED', object: jobSet });
          if (remembered === undefined) continue;
          managed.set(jobSetKey(remembered.namespace, remembered.name), isManaged);
          if (!isManaged) continue;
          facts.set(jobSetKey(remembered.namespace, remembered.name), jobSetFactsOf(jobSet));
          seen.set(objectUid(jobSet), remembered);
          events.push(syncEvent(jobSet, cluster));
        }
      } else {
        for (const job of page.items as readonly Job[]) {
          const now = seenOf({ kind: 'Job', type: 'ADDED', object: job });
          if (now === undefined || session.jobSetManaged.get(jobSetKey(now.namespace, now.jobSet)) === false) continue;
          const uid = objectUid(job);
          seen.set(uid, now);
          if (state.seen.get(uid)?.digest !== now.digest) touch(now);
        }
      }
    };
    const { source } = this.options;
    if (source.listPages === undefined) takePage(await source.list(state.kind));
    else for await (const page of source.listPages(state.kind)) takePage(page);
    if (state.kind === 'JobSet') {
      for (const [uid, before] of state.seen) {
        if (!seen.has(uid)) events.push(vanishedEvent(uid, before, resourceVersion, cluster));
      }
      session.jobSetManaged = managed;
      session.jobSetFacts = facts;
    } else {
      for (const [uid, before] of state.seen) if (!seen.has(uid)) touch(before);
      for (const owner of owners.values()) events.push(syncEventFor(owner, resourceVersion, cluster));
    }
    state.seen = seen;
    state.resourceVersion = resourceVersion;
    log('info', ForwarderLog.listed, { cluster, kind: state.kind, items, events: events.length, resourceVersion });
    this.take(session, state, events, resourceVersion);
    this.kindsListed.add(state.kind);
  }

  /** onEvent: one watch event — filter, batch, and track its resourceVersion for the checkpoint. Never throws. */
  private onEvent<K extends WatchedKind>(session: Session, state: KindState, event: WatchEvent<K>): Promise<void> | undefined {
    const { counters, log, cluster, planOptions } = this.options;
    try {
      const change = changeOf(state.kind as K, event);
      if (change === undefined) {
        // BOOKMARK: nothing changed, but the resourceVersion moved on (no re-list after a quiet hour).
        if (event.type === 'BOOKMARK') state.resourceVersion = event.resourceVersion;
        this.take(session, state, [], state.resourceVersion);
        return undefined;
      }
      counters.add(CounterName.WatchEvents);
      if (change.kind === 'JobSet') {
        const { namespace, name } = change.object.metadata;
        if (namespace && name) {
          // A deleted JobSet is forgotten: its Jobs' deletions that follow are forwarded as unknown.
          const key = jobSetKey(namespace, name);
          const isManaged = change.type !== 'DELETED' && isManagedByLineup(change.object, planOptions);
          if (change.type === 'DELETED') session.jobSetManaged.delete(key);
          else session.jobSetManaged.set(key, isManaged);
          if (isManaged) session.jobSetFacts.set(key, jobSetFactsOf(change.object));
          else session.jobSetFacts.delete(key);
        }
      }
      const context: FilterContext = {
        cluster,
        planOptions,
        lastSeen: (uid) => state.seen.get(uid),
        jobSetManaged: (namespace, name) => session.jobSetManaged.get(jobSetKey(namespace, name)),
        progressWaits: (seen, last) =>
          seen.progress !== undefined &&
          last.progress !== undefined &&
          progressWaits(last.progress, seen.progress, session.jobSetFacts.get(jobSetKey(seen.namespace, seen.jobSet)), (replicatedJob) =>
            state.seen.countsOf(seen.namespace, seen.jobSet, seen.progress?.attempt ?? '', replicatedJob),
          ),
      };
      const decision = filterEvent(change, context);
      state.resourceVersion = change.object.metadata.resourceVersion ?? state.resourceVersion;
      if (!decision.forward) {
        counters.add(CounterName.EventsDropped);
        // An own status write moves what later changes compare with; other drops forget the object.
        if (decision.uid !== undefined && decision.seen !== undefined) state.seen.set(decision.uid, decision.seen);
        else if (decision.uid !== undefined && decision.reason !== 'Unchanged') state.seen.delete(decision.uid);
        this.take(session, state, [], state.resourceVersion);
      } else {
        if (change.type === 'DELETED') state.seen.delete(decision.uid);
        else state.seen.set(decision.uid, decision.seen);
        // seenAt starts the journal's per-hop latency (change seen → on the bus → reconciled).
        const event = { ...decision.event, detail: { ...decision.event.detail, seenAt: this.options.now() } };
        // Lineup's own write, or a change only the status counters report, waits for the JobSet's next change (a Job turning ready soon follows), up to the hold.
        this.take(session, state, [event], state.resourceVersion, decision.ownWrite || decision.statusOnly ? (this.options.ownWriteHoldMs ?? OWN_WRITE_HOLD_MS) : undefined);
      }
    } catch (error) {
      log('error', ForwarderLog.eventFailed, { cluster, kind: state.kind, error: String(error) });
    }
    // Back-pressure: a source that awaits onEvent stops reading while the sink is behind.
    const maxPending = this.options.maxPendingEntries ?? FORWARDER_MAX_PENDING_ENTRIES;
    return session.batcher.pending >= maxPending ? session.batcher.flush() : undefined;
  }

  /**
   * take: hand the events to the batcher and chain the checkpoint of `resourceVersion` behind
   * their delivery and that of everything taken before — so a checkpoint never passes an
   * event that was not put.
   */
  private take(session: Session, state: KindState, events: readonly LineupEvent[], resourceVersion: string | undefined, holdMs?: number): void {
    const deliveries: Promise<void>[] = [];
    const { log, counters, cluster } = this.options;
    for (const event of events) {
      const what = `${event.detail.kind} ${event.detail.namespace}/${event.detail.name}`;
      try {
        // A JobSet's events coalesce while they wait: one event names each object changed, at its
        // newest state (lib/events/merge.ts), since a pass reads again only the objects events name.
        // A change no decision waits for (Lineup's own write's echo, the Job controller's answer
        // to it) waits apart, up to the hold, for the JobSet's next change, which takes it along.
        const entry = toPutEventsEntry(event, this.options.eventBusName);
        deliveries.push(holdMs === undefined ? session.batcher.add(entry, coalescingKey(event), undefined, heldKey(event)) : session.batcher.add(entry, heldKey(event), holdMs));
      } catch (error) {
        if (error instanceof EventTooLargeError) {
          reportOversize(log, counters, error.bytes, what);
        } else {
          // A detail the shared schema refuses would be refused by every reconciler too.
          log('error', ForwarderLog.eventFailed, { cluster, kind: state.kind, what, error: String(error) });
          counters.add(CounterName.EventsDropped);
        }
      }
    }
    if (resourceVersion === undefined) return;
    state.chain = Promise.all([state.chain, ...deliveries]).then(() => {
      state.delivered = resourceVersion;
      void this.writeCheckpoints(state, false);
    });
  }

  /**
   * beat: rewrite a checkpoint as the forwarder's heartbeat — the first kind's that has one (the
   * resync reads the newest of the cluster's bookmarks). Before any kind has a checkpoint (still
   * listing, or every list failing) there is nothing to vouch for, and the cluster stays unwatched.
   */
  private beat(session: Session): Promise<void> {
    const state = WATCHED_KINDS.map((kind) => session.states[kind]).find((candidate) => (candidate.delivered ?? candidate.checkpointed) !== undefined);
    if (state === undefined) return Promise.resolve();
    // Resumed from a bookmark with nothing taken since: what was checkpointed was delivered by an earlier run.
    state.delivered ??= state.checkpointed;
    state.beatDue = true;
    return this.writeCheckpoints(state, false);
  }

  /**
   * writeCheckpoints: write the delivered resourceVersion of a kind, one write at a time and at
   * most one per checkpoint interval (each run of the writer ends with the newest). `final`
   * writes at once: the forwarder is stopping.
   */
  private writeCheckpoints(state: KindState, final: boolean): Promise<void> {
    if (state.writing !== undefined) {
      if (!final) return state.writing;
      // A stop must not wait out the interval (a pod's SIGTERM would take that long): the waiting writer writes now.
      state.hurry?.abort();
      return state.writing.then(() => this.writeCheckpoints(state, true));
    }
    const { bookmarks, cluster, counters, log, now } = this.options;
    const interval = this.options.checkpointIntervalMs ?? WATCH_CHECKPOINT_INTERVAL_MS;
    const write = async () => {
      while (state.delivered !== undefined && (state.delivered !== state.checkpointed || state.beatDue)) {
        const wait = state.lastCheckpointAt + interval - now();
        if (!final && wait > 0) {
          const hurry = new AbortController();
          state.hurry = hurry;
          await this.sleep(wait, hurry.signal);
          state.hurry = undefined;
        }
        const resourceVersion = state.delivered;
        const beat = resourceVersion === state.checkpointed;
        try {
          await bookmarks.putBookmark(cluster, BookmarkResource[state.kind], resourceVersion, now());
          state.checkpointed = resourceVersion;
          state.lastCheckpointAt = now();
          state.beatDue = false;
          counters.add(beat ? CounterName.HeartbeatsPut : CounterName.Checkpoints);
        } catch (error) {
          // The next delivery tries again; until then a crash re-sends a little more.
          log('warn', ForwarderLog.bookmarkWriteFailed, { cluster, kind: state.kind, resourceVersion, error: String(error) });
          return;
        }
      }
    };
    state.writing = write().finally(() => {
      state.writing = undefined;
    });
    return state.writing;
  }
}

/** newKindState: a kind's state before its first list or resume. */
const newKindState = (kind: WatchedKind): KindState => ({
  kind,
  resourceVersion: undefined,
  seen: new ProgressIndex(),
  chain: Promise.resolve(),
  delivered: undefined,
  checkpointed: undefined,
  lastCheckpointAt: Number.NEGATIVE_INFINITY,
  writing: undefined,
  hurry: undefined,
  beatDue: false,
});
