/**
 * What one process remembers between a JobSet's pass loops: the observed state its last loop left
 * behind (a snapshot, named by a token on the state item, so a later loop starts from it instead
 * of reading everything) and the last journal entry it wrote (what the next entry's inputs delta
 * is taken against: ./journal.ts journalEntryOf).
 */
import { randomUUID } from 'node:crypto';
import type { Observed } from '../plan/types.ts';
import type { JobSetKey, JournalEntry } from '../store/types.ts';
import type { EntryChain, EntryChains } from './journal.ts';

/** JobSets whose last snapshot one process remembers (a warm Lambda serves many). */
export const INPUTS_MEMORY_SIZE = 10_000;

/** RecalledSnapshot: a kept snapshot, the wakeAt its loop released the JobSet with, and whether the planner had nothing to do on it. */
export interface RecalledSnapshot {
  readonly observed: Observed;
  readonly wakeAt: number | undefined;
  readonly settled: boolean;
}

/**
 * InputsMemory: per JobSet, the observed state this process's last pass loop left behind (its
 * inputs with its own writes applied, lib/reconcile/snapshot.ts) under a token the loop's release
 * writes to the state item. A later loop, in this process or another, starts from it only when
 * the item still names that token — no other process has run a pass since. Bounded: the oldest
 * JobSet is forgotten first (its next pass then reads everything).
 */
export class InputsMemory implements EntryChains {
  private readonly snapshots = new Map<string, RecalledSnapshot & { readonly token: string }>();
  /** Per JobSet, the last entry this process wrote: what a delta after it needs. */
  private readonly chains = new Map<string, EntryChain>();
  /** Entries built but not yet written, with the chain they start once written (null: none, the next entry is a keyframe). */
  private readonly staged = new WeakMap<JournalEntry, EntryChain | null>();
  private readonly capacity: number;
  /** Tells this memory's tokens from every other process's. */
  private readonly instance = randomUUID();
  private sequence = 0;

  constructor(capacity: number = INPUTS_MEMORY_SIZE) {
    this.capacity = capacity;
  }

  private static id(key: JobSetKey): string {
    return `${key.cluster}/${key.namespace}/${key.name}`;
  }

  /** recall: the snapshot kept for `key` under `token`, if this process holds that one. */
  recall(key: JobSetKey, token: string | undefined): RecalledSnapshot | undefined {
    if (token === undefined) return undefined;
    const kept = this.snapshots.get(InputsMemory.id(key));
    return kept?.token === token ? { observed: kept.observed, wakeAt: kept.wakeAt, settled: kept.settled } : undefined;
  }

  /** keep: remember `snapshot` for `key`; the token naming it. */
  keep(key: JobSetKey, snapshot: RecalledSnapshot): string {
    const id = InputsMemory.id(key);
    this.sequence += 1;
    const token = `${this.instance}.${this.sequence}`;
    this.snapshots.delete(id);
    this.snapshots.set(id, { token, ...snapshot });
    if (this.snapshots.size > this.capacity) {
      const oldest = this.snapshots.keys().next().value;
      if (oldest !== undefined) this.snapshots.delete(oldest);
    }
    return token;
  }

  /** forget: drop what is kept for `key`. */
  forget(key: JobSetKey): void {
    this.snapshots.delete(InputsMemory.id(key));
    this.chains.delete(InputsMemory.id(key));
  }

  /**
   * chainAfter: what this process knows of the entry whose inputs digest is `previousDigest` (the
   * JobSet's last, as the state item names it) — undefined when this process did not write it.
   */
  chainAfter(key: JobSetKey, previousDigest: string | undefined): EntryChain | undefined {
    if (previousDigest === undefined) return undefined;
    const chain = this.chains.get(InputsMemory.id(key));
    return chain?.inputsDigest === previousDigest ? chain : undefined;
  }

  /** stage: the chain `entry` starts once it is written (undefined: the next entry must be a keyframe). */
  stage(entry: JournalEntry, chain: EntryChain | undefined): void {
    this.staged.set(entry, chain ?? null);
  }

  /**
   * entryWritten: `entry` is in the journal now, so the next entry may build on it. Only after the
   * write: an entry that failed to be written must not be the base of a delta. An entry this
   * memory did not stage (a replayed event's, built without it) changes nothing: the chain goes
   * on past it.
   */
  entryWritten(entry: JournalEntry): void {
    if (!this.staged.has(entry)) return;
    const id = InputsMemory.id(entry.key);
    const chain = this.staged.get(entry);
    this.chains.delete(id);
    if (chain === undefined || chain === null) return;
    this.chains.set(id, chain);
    if (this.chains.size > this.capacity) {
      const oldest = this.chains.keys().next().value;
      if (oldest !== undefined) this.chains.delete(oldest);
    }
  }
}
