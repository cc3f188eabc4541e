/**
 * The discrete-event queue of the simulation: a binary heap ordered by (virtual time, phase,
 * sequence). Phases let every state change at an instant happen before the reconcile pass at
 * that instant; the sequence makes equal keys run in the order they were scheduled, so a run
 * is deterministic.
 */

/** Phase: what kind of work an event is; lower phases run first at the same instant. */
export const Phase = {
  /** Cluster-side work: the Job controller, garbage collection, TTL, behaviour actions. */
  Cluster: 0,
  /** A reconcile pass of the controller under test. */
  Reconcile: 1,
} as const;
/** PhaseValue: one of the Phase numbers. */
export type PhaseValue = (typeof Phase)[keyof typeof Phase];

interface Entry {
  readonly at: number;
  readonly phase: PhaseValue;
  readonly seq: number;
  readonly run: (at: number) => void;
}

/** EventHandle: what schedule returns, to cancel the event later. */
export type EventHandle = number;

const before = (a: Entry, b: Entry): boolean =>
  a.at !== b.at ? a.at < b.at : a.phase !== b.phase ? a.phase < b.phase : a.seq < b.seq;

/** EventQueue: a cancellable priority queue of timed callbacks with a virtual clock. */
export class EventQueue {
  private readonly heap: Entry[] = [];
  // Events scheduled and neither run nor cancelled; cancelled entries stay in the heap until they surface.
  private readonly live = new Set<number>();
  private nextSeq = 0;
  private clock = 0;

  /** now: the virtual time of the event being run (or last run). */
  now(): number {
    return this.clock;
  }

  /** size: events scheduled and not cancelled. */
  size(): number {
    return this.live.size;
  }

  /** schedule: run `run` at virtual time `at` (never earlier than now) in `phase`. */
  schedule(at: number, phase: PhaseValue, run: (at: number) => void): EventHandle {
    if (Number.isNaN(at)) throw new RangeError('event time is NaN');
    // An event can never happen in the past: time only moves forward.
    const entry: Entry = { at: Math.max(at, this.clock), phase, seq: this.nextSeq++, run };
    this.push(entry);
    this.live.add(entry.seq);
    return entry.seq;
  }

  /** cancel: forget a scheduled event; cancelling one that already ran is harmless. */
  cancel(handle: EventHandle): void {
    this.live.delete(handle);
  }

  /** peekTime: virtual time of the next live event, or undefined when none is left. */
  peekTime(): number | undefined {
    this.dropCancelled();
    return this.heap[0]?.at;
  }

  /** runNext: advance the clock to the next live event and run it; false when the queue is empty. */
  runNext(): boolean {
    this.dropCancelled();
    const entry = this.pop();
    if (!entry) return false;
    this.live.delete(entry.seq);
    this.clock = entry.at;
    entry.run(entry.at);
    return true;
  }

  /** runUntil: run every event due at or before `until`, then move the clock to `until` when it is finite. */
  runUntil(until: number): void {
    for (let at = this.peekTime(); at !== undefined && at <= until; at = this.peekTime()) this.runNext();
    if (Number.isFinite(until) && until > this.clock) this.clock = until;
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && !this.live.has(this.heap[0]!.seq)) this.pop();
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): Entry | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) break;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
    return top;
  }
}
