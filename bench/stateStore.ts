/**
 * What a pass's writes cost in a local state directory: the SQLite database `lineup run` and
 * `lineup demo --state-dir` keep (lib/store/sqliteStore.ts), beside the embedded DynamoDB-API
 * server on LevelDB (dynalite). The passes are story 2's, as the demo's
 * pipeline journals them; each is written as a reconciler writes one: note the event (taking the
 * lease), append the journal entry, release the lease.
 *
 *   node bench/stateStore.ts [--passes N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CONTROLLER_NAME } from '../lib/jobset/managedBy.ts';
import { DEMO_CLUSTER, runDemo } from '../lib/hosts/demo.ts';
import { openStateDirForReading, openStateDirForWriting } from '../lib/hosts/stateDir.ts';
import { EMPTY_BEHAVIOUR } from '../lib/sim/behaviour.ts';
import { DynamoCheckpointStore } from '../lib/store/dynamoStore.ts';
import { startEmbeddedDynamo } from '../lib/store/embedded.ts';
import type { JournalEntry, JournalStore, LeaseStore } from '../lib/store/types.ts';
import { story2 } from './journalSize.ts';

/** How many passes each store writes (story 2's, repeated). */
const DEFAULT_PASSES = 300;
const LEASE_TTL_MS = 30_000;

/** StateStoreFigure: one store's cost per pass. */
export interface StateStoreFigure {
  readonly store: string;
  readonly passes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
}

/** story2Passes: the journal entries of story 2 run through the demo's pipeline. */
const story2Passes = async (): Promise<JournalEntry[]> => {
  const stateDir = join(mkdtempSync(join(tmpdir(), 'lineup-bench-state-')), 'state');
  try {
    const jobSet = story2();
    const kept = openStateDirForWriting(stateDir, { command: 'bench state store' });
    await runDemo({
      jobSets: [jobSet],
      behaviour: EMPTY_BEHAVIOUR,
      planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true },
      realMsPerVirtualSecond: 0,
      until: Infinity,
      onEntry: () => undefined,
      log: () => undefined,
      keptState: kept.database,
    }).finally(() => kept.close());
    const reader = openStateDirForReading(stateDir, 'bench state store');
    try {
      return await reader.store.listJournal({ cluster: DEMO_CLUSTER, namespace: jobSet.metadata.namespace ?? 'default', name: jobSet.metadata.name ?? '' });
    } finally {
      reader.close();
    }
  } finally {
    rmSync(join(stateDir, '..'), { recursive: true, force: true });
  }
};

/** timePasses: write `count` passes (cycling through `entries`) and time each. */
const timePasses = async (name: string, store: LeaseStore & JournalStore, entries: readonly JournalEntry[], count: number): Promise<StateStoreFigure> => {
  const times: number[] = [];
  for (let pass = 0; pass < count; pass += 1) {
    const entry = entries[pass % entries.length];
    if (entry === undefined) throw new Error('bench state store: the demo journaled no pass');
    const at = entry.at + pass;
    const started = performance.now();
    const note = await store.noteEvent(entry.key, { triggers: entry.triggers, owner: 'bench', now: at, ttlMs: LEASE_TTL_MS });
    await store.appendJournal({ ...entry, at });
    if (note.outcome === 'leased') await store.releaseLease(entry.key, { owner: 'bench', reconciledDirty: note.lease.dirty, now: at, ttlMs: LEASE_TTL_MS });
    times.push(performance.now() - started);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number): number => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 100) / 100;
  return { store: name, passes: count, p50Ms: at(0.5), p99Ms: at(0.99), meanMs: Math.round((times.reduce((sum, t) => sum + t, 0) / times.length) * 100) / 100 };
};

/** runStateStoreBench: both stores, each in a fresh directory. */
export const runStateStoreBench = async (passes: number = DEFAULT_PASSES): Promise<StateStoreFigure[]> => {
  const entries = await story2Passes();
  const root = mkdtempSync(join(tmpdir(), 'lineup-bench-stores-'));
  try {
    const sqlite = openStateDirForWriting(join(root, 'sqlite'), { command: 'bench state store' });
    const sqliteFigure = await timePasses('SQLite (WAL, synchronous FULL)', sqlite.store, entries, passes).finally(() => sqlite.close());
    const dynamo = await startEmbeddedDynamo({ path: join(root, 'dynalite') });
    const dynamoStore = new DynamoCheckpointStore({ client: dynamo.client, tableName: dynamo.tableName });
    const dynaliteFigure = await timePasses('dynalite on LevelDB', dynamoStore, entries, passes).finally(() => dynamo.stop());
    return [sqliteFigure, dynaliteFigure];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};

/** renderStateStoreFigures: one line per store. */
export const renderStateStoreFigures = (figures: readonly StateStoreFigure[]): string[] =>
  figures.map((f) => `state directory, a pass's writes (note, journal, release) on ${f.store}: p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, mean ${f.meanMs} ms over ${f.passes} passes`);

if (import.meta.main) {
  const { values } = parseArgs({ options: { passes: { type: 'string', default: String(DEFAULT_PASSES) } } });
  const passes = Number(values.passes);
  if (!Number.isInteger(passes) || passes < 1) {
    process.stderr.write(`bench state store: --passes must be a whole number ≥ 1, got ${values.passes}\n`);
    process.exit(2);
  }
  console.log(renderStateStoreFigures(await runStateStoreBench(passes)).join('\n'));
}
