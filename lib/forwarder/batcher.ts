/**
 * The forwarder's batcher: collects PutEvents entries and puts them to an EventSink in calls of
 * at most PUT_EVENTS_MAX_ENTRIES entries and PUT_EVENTS_MAX_BYTES bytes. The first entry to wait
 * opens a window; when it closes, everything in it goes, in as many calls as it takes. An entry
 * added with a hold (the forwarder's echoes of Lineup's own writes) waits longer, for an entry of
 * its key to join and go with at that one's window, and goes alone when its hold ends. Entries
 * added with the same key while one waits coalesce into one in its place: the newest replaces it,
 * or the `merge` option folds them (the forwarder keys by JobSet and folds its objects' changes
 * into one event, lib/events/merge.ts), and every add it stands for resolves when it is delivered. It never drops an entry it accepted: a partial failure
 * retries exactly the failed entries, a put that throws is retried whole, both with bounded
 * exponential backoff, until they succeed. The only entries refused are those that alone are
 * over EventBridge's entry limit — logged with their size and counted, never cut.
 */
import { ForwarderLog } from './forwarderLog.ts';
import { CounterName } from '../counters.ts';
import { entrySize, type PutEventsEntry } from '../events/envelope.ts';
import { MAX_EVENT_BYTES } from '../events/schema.ts';
import { Backoff, sleep, type RetryPolicy, type Sleep } from '../retry.ts';
import type { EventSink } from './types.ts';

import type { CounterSink } from '../counters.ts';
import type { Log } from '../log.ts';

/** Most entries one PutEvents call takes (EventBridge quota). */
export const PUT_EVENTS_MAX_ENTRIES = 10;
/** Most bytes of entries one PutEvents request carries (EventBridge's request limit, entries sized as entrySize counts them). */
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;
/**
 * How long the batcher waits for more entries before a put (a JobSet's changes within it are one
 * event). Chosen by bench/batchWindow.ts (docs/benchmarks.md): story 2 puts 5 events per startup
 * whatever the window (the filter already folds what a window would); a window only saves
 * PutEvents calls when many JobSets change at once (1.6 per startup at 25 ms in a 100-JobSet
 * burst, 4.5 at 0, 0.8 at 100 ms), for its latency on every stage.
 */
export const FORWARDER_BATCH_WINDOW_MS = 25;
/**
 * PUT_RETRY: the failed entries of a put (or a put that threw) are retried until they succeed,
 * the delay doubling from baseDelayMs up to maxDelayMs. Jittered: every cluster's forwarder puts
 * to one bus, and EventBridge throttles per account, so a throttled fleet must not come back together.
 */
export const PUT_RETRY = { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 100, maxDelayMs: 5_000, jitter: 'equal' } as const satisfies RetryPolicy;
/** Puts in flight at once; more calls wait, so a failing sink is not hammered by every new batch. */
export const PUT_MAX_CONCURRENCY = 4;

/** BatcherOptions: where entries go and how they are grouped and retried. */
export interface BatcherOptions {
  readonly sink: EventSink;
  readonly counters: CounterSink;
  readonly log: Log;
  /** How long the first waiting entry waits for company (and a key's later entries for coalescing) before a put. @default FORWARDER_BATCH_WINDOW_MS */
  readonly windowMs?: number | undefined;
  /** Most entries per put. @default PUT_EVENTS_MAX_ENTRIES */
  readonly maxEntries?: number | undefined;
  /** Most bytes of entries per put (an entry alone above it still goes, alone). @default PUT_EVENTS_MAX_BYTES */
  readonly maxBytes?: number | undefined;
  /** Puts in flight at once. @default PUT_MAX_CONCURRENCY */
  readonly maxConcurrency?: number | undefined;
  /** Retry delays of failed puts; its maxAttempts is not used: an accepted entry is retried until delivered. @default PUT_RETRY */
  readonly retry?: RetryPolicy | undefined;
  /** @default sleep */
  readonly sleep?: Sleep | undefined;
  /** Epoch ms, for windows and holds. @default Date.now */
  readonly now?: (() => number) | undefined;
  /** Source of the retry delays' jitter, in [0, 1). @default Math.random */
  readonly random?: (() => number) | undefined;
  /**
   * How an entry joins the waiting one of its key: the entry that goes in their place, or
   * undefined when they must go apart (the waiting one then goes as it is, and the new one waits
   * for the later adds of the key). @default the newest replaces the waiting one
   */
  readonly merge?: ((waiting: PutEventsEntry, incoming: PutEventsEntry) => PutEventsEntry | undefined) | undefined;
}

/** One accepted entry (the newest of its key's, while it waits) and whom to tell when it is delivered. */
interface Pending {
  entry: PutEventsEntry;
  bytes: number;
  readonly key: string | undefined;
  readonly delivered: (() => void)[];
  /** When it goes: the close of the window it joined, or the end of its hold. */
  dueAt: number;
}

/** Batcher: groups entries into PutEvents calls and delivers every one it accepted. */
export class Batcher {
  private readonly sink: EventSink;
  private readonly counters: CounterSink;
  private readonly log: Log;
  private readonly windowMs: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly maxConcurrency: number;
  private readonly retry: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly merge: (waiting: PutEventsEntry, incoming: PutEventsEntry) => PutEventsEntry | undefined;
  private waiting: Pending[] = [];
  /** The waiting entry of each key (not yet taken into a put). */
  private readonly waitingByKey = new Map<string, Pending>();
  /** When the open window closes; a window opens with the first entry after the last one closed. */
  private windowClosesAt: number | undefined;
  /** Set by flush(): everything waiting goes now, until nothing waits. */
  private flushing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt: number | undefined;
  private inFlight = 0;
  /** Entries accepted and not yet delivered (waiting or in a put that has not succeeded); coalesced adds count once. */
  private undelivered = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(options: BatcherOptions) {
    this.sink = options.sink;
    this.counters = options.counters;
    this.log = options.log;
    this.windowMs = options.windowMs ?? FORWARDER_BATCH_WINDOW_MS;
    this.maxEntries = options.maxEntries ?? PUT_EVENTS_MAX_ENTRIES;
    this.maxBytes = options.maxBytes ?? PUT_EVENTS_MAX_BYTES;
    this.maxConcurrency = options.maxConcurrency ?? PUT_MAX_CONCURRENCY;
    this.retry = { ...(options.retry ?? PUT_RETRY), maxAttempts: Number.POSITIVE_INFINITY };
    this.sleep = options.sleep ?? sleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.merge = options.merge ?? ((_waiting, incoming) => incoming);
  }

  /** pending: entries accepted and not yet delivered; the forwarder pauses reading above a bound. */
  get pending(): number {
    return this.undelivered;
  }

  /**
   * add: accept an entry; resolves once a put delivered it (or the entry of the same `key` that
   * replaced it while waiting). It goes when the open window closes (opening one if none is
   * open) or, with `holdMs`, when its hold ends — unless an entry of its key joins a window
   * first, and it goes with that. An entry waiting under the key `absorbs` (another key than
   * `key`) is folded into this one (as the older of the two, by `merge`) and goes with it, its
   * adds resolving with this one's delivery: the forwarder holds the changes of a JobSet that no
   * decision waits for under a key of their own, and the JobSet's next change takes them along.
   * Never rejects: an entry over the entry limit resolves at once after being logged and
   * counted as dropped-oversize.
   *
   * @example
   * await batcher.add(toPutEventsEntry(event), 'ml/train'); // delivered
   */
  add(entry: PutEventsEntry, key?: string, holdMs?: number, absorbs?: string): Promise<void> {
    const bytes = entrySize(entry);
    if (bytes > MAX_EVENT_BYTES) {
      reportOversize(this.log, this.counters, bytes, entry.DetailType);
      return Promise.resolve();
    }
    const now = this.now();
    const dueAt = holdMs === undefined ? this.windowCloseFrom(now) : now + holdMs;
    return new Promise<void>((resolve) => {
      const waiting = key === undefined ? undefined : this.waitingByKey.get(key);
      const merged = waiting === undefined ? undefined : this.merge(waiting.entry, entry);
      let taker: Pending;
      if (waiting !== undefined && merged !== undefined) {
        waiting.entry = merged;
        waiting.bytes = entrySize(merged);
        waiting.dueAt = Math.min(waiting.dueAt, dueAt);
        waiting.delivered.push(resolve);
        this.counters.add(CounterName.EventsCoalesced);
        taker = waiting;
      } else {
        taker = { entry, bytes, key, delivered: [resolve], dueAt };
        this.undelivered += 1;
        this.waiting.push(taker);
        if (key !== undefined) this.waitingByKey.set(key, taker);
      }
      const absorbed = absorbs === undefined || absorbs === key ? undefined : this.waitingByKey.get(absorbs);
      const folded = absorbed === undefined ? undefined : this.merge(absorbed.entry, taker.entry);
      if (absorbed !== undefined && folded !== undefined) {
        taker.entry = folded;
        taker.bytes = entrySize(folded);
        this.waitingByKey.delete(absorbs ?? '');
        this.waiting = this.waiting.filter((pending) => pending !== absorbed);
        this.undelivered -= 1;
        taker.delivered.push(...absorbed.delivered);
        this.counters.add(CounterName.EventsCoalesced);
      }
      // Not pump(): entries added in one turn of the event loop go together even with window 0.
      // A timer already set to fire by then serves this entry too (no scan of the waiting entries).
      if (this.timerAt === undefined || this.timerAt > dueAt) this.arm();
    });
  }

  /** flush: send everything waiting now and resolve when every accepted entry was delivered (retries included). */
  flush(): Promise<void> {
    this.flushing = true;
    this.pump();
    if (this.undelivered === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** windowCloseFrom: when the window open at `now` closes, opening one when none is. */
  private windowCloseFrom(now: number): number {
    if (this.windowClosesAt === undefined || this.windowClosesAt < now) this.windowClosesAt = now + this.windowMs;
    return this.windowClosesAt;
  }

  /** isDue: whether a waiting entry may go now. */
  private isDue(pending: Pending, now: number): boolean {
    return this.flushing || pending.dueAt <= now;
  }

  /**
   * pump: start the puts that are due, within the concurrency limit; then arm the timer for the
   * next entry to come due. Only a closed window, an ended hold or a flush sends: a full call
   * waiting does not go early, so a busy stream still coalesces each JobSet's changes over the
   * whole window.
   */
  private pump(): void {
    const now = this.now();
    while (this.inFlight < this.maxConcurrency) {
      const call = this.takeCall(now);
      if (call.length === 0) break;
      this.inFlight += 1;
      void this.deliver(call).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
    if (this.waiting.length === 0) this.flushing = false;
    this.arm();
  }

  /**
   * arm: a timer for when the earliest waiting entry comes due (at once, for one due already
   * while a put slot is free); none while nothing waits, so an idle batcher holds no timer
   * (and no process open). Due entries waiting for a slot are started by the put that frees it.
   */
  private arm(): void {
    const now = this.now();
    const slotFree = this.inFlight < this.maxConcurrency;
    let next = Number.POSITIVE_INFINITY;
    for (const pending of this.waiting) {
      const due = this.isDue(pending, now);
      if (due && slotFree) next = Math.min(next, now);
      else if (!due) next = Math.min(next, pending.dueAt);
    }
    if (next === Number.POSITIVE_INFINITY) {
      this.clearTimer();
      return;
    }
    if (this.timer !== undefined && this.timerAt !== undefined && this.timerAt <= next) return;
    this.clearTimer();
    this.timerAt = next;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = undefined;
      this.pump();
    }, Math.max(0, next - now));
  }

  /** takeCall: the due entries, in the order they came, that fit one put by count and bytes (at least one when any is due). */
  private takeCall(now: number): Pending[] {
    let bytes = 0;
    const call: Pending[] = [];
    for (const pending of this.waiting) {
      if (!this.isDue(pending, now)) continue;
      if (call.length >= this.maxEntries || (call.length > 0 && bytes + pending.bytes > this.maxBytes)) break;
      bytes += pending.bytes;
      call.push(pending);
    }
    if (call.length === 0) return call;
    const taken = new Set(call);
    this.waiting = this.waiting.filter((pending) => !taken.has(pending));
    // Taken into a put: a later entry of the same key waits on its own.
    for (const pending of call) if (pending.key !== undefined) this.waitingByKey.delete(pending.key);
    return call;
  }

  /**
   * deliver: put one call's entries until every one succeeded, retrying only what failed. This is
   * the one retry layer of puts: the deployed sink sends each call once (lambdaSink builds its
   * EventBridge client with maxAttempts 1), so the SDK's own retries do not run inside these.
   */
  private async deliver(call: readonly Pending[]): Promise<void> {
    let remaining = call;
    const backoff = new Backoff(this.retry, { sleep: this.sleep, random: this.random });
    for (let attempt = 0; remaining.length > 0; attempt += 1) {
      if (attempt > 0) {
        this.counters.add(CounterName.EventsRetried, remaining.length);
        await backoff.wait();
      }
      this.counters.add(CounterName.PutEventsCalls);
      let failed: ReadonlySet<number>;
      try {
        const result = await this.sink.put(remaining.map((p) => p.entry));
        failed = new Set(result.failed.map((f) => f.index));
        if (failed.size > 0) {
          this.log('warn', ForwarderLog.putPartiallyFailed, {
            failed: failed.size,
            of: remaining.length,
            attempt,
            codes: [...new Set(result.failed.map((f) => f.code))],
            message: result.failed[0]?.message,
          });
        }
      } catch (error) {
        this.log('warn', ForwarderLog.putFailed, { entries: remaining.length, attempt, error: String(error) });
        continue;
      }
      const delivered = remaining.filter((_, index) => !failed.has(index));
      for (const pending of delivered) for (const resolve of pending.delivered) resolve();
      this.counters.add(CounterName.EventsPut, delivered.length);
      this.settle(delivered.length);
      remaining = remaining.filter((_, index) => failed.has(index));
    }
  }

  /** settle: count delivered entries off and wake flush() callers when nothing is left. */
  private settle(delivered: number): void {
    this.undelivered -= delivered;
    if (this.undelivered > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /** clearTimer: disarm the timer. */
  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = undefined;
  }
}

/** reportOversize: log an entry over the entry limit with its size, and count it dropped (it is never cut). */
export const reportOversize = (log: Log, counters: CounterSink, bytes: number, what: string): void => {
  log('error', ForwarderLog.entryTooLarge, { bytes, limit: MAX_EVENT_BYTES, what });
  counters.add(CounterName.EventsDroppedOversize);
};
