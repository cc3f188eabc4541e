/**
 * Benchmark: what the journal of event-replay debugging costs to keep and to use. For story 2 and
 * an InOrder 10 × 50 JobSet (500 Jobs), each run through the demo's pipeline (the real forwarder,
 * bus rule and reconciler against the simulated cluster) with its journal kept in a state
 * directory: how many entries one run writes (keyframes, deltas, references), how large they are
 * (as DynamoDB counts an item, lib/store/items.ts journalItemChars) and how many write units they
 * take, how large the recording `lineup export` prints is, and how long `lineup replay --perturb
 * 200` takes in process (the CLI's start comes on top). Prints figures only.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_CONTROLLER_NAME } from '../lib/jobset/managedBy.ts';
import { DEMO_CLUSTER, runDemo } from '../lib/hosts/demo.ts';
import { openStateDirForReading, openStateDirForWriting } from '../lib/hosts/stateDir.ts';
import { loadedJobSets, loadJobSets } from '../lib/jobset/load.ts';
import type { JobSet } from '../lib/jobset/schema.ts';
import { silentLog } from '../lib/log.ts';
import { perturb } from '../lib/replay/perturb.ts';
import { recordedRunOf } from '../lib/replay/recordedRun.ts';
import { recordingOf } from '../lib/replay/recording.ts';
import { EMPTY_BEHAVIOUR } from '../lib/sim/behaviour.ts';
import { journalItemChars } from '../lib/store/items.ts';

/** DynamoDB bills a write unit per started KB of the item. */
const WRITE_UNIT_BYTES = 1024;
/** Runs of `--perturb` timed for story 2 (docs/debugging.md's figure is for 200), and for 10 × 50 (each re-enacts 500 Jobs). */
const PERTURB_RUNS = 200;
const LARGE_PERTURB_RUNS = 5;
/** Real ms per virtual second of the demo run: `lineup demo`'s default --speed. */
const DEMO_MS_PER_VIRTUAL_SECOND = 40;

/** inOrderJobSet: `replicatedJobs` × `replicas` single-pod Jobs, started in order. */
const inOrderJobSet = (replicatedJobs: number, replicas: number): JobSet => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2',
  kind: 'JobSet',
  metadata: { name: `bench-${replicatedJobs}x${replicas}`, namespace: 'default' },
  spec: {
    managedBy: DEFAULT_CONTROLLER_NAME,
    startupPolicy: { startupPolicyOrder: 'InOrder' },
    replicatedJobs: Array.from({ length: replicatedJobs }, (_, i) => ({
      name: `rjob${i}`,
      replicas,
      template: { spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'bash:latest' }] } } } },
    })),
  },
});

/** story2: the story-2 example JobSet. */
export const story2 = (): JobSet => {
  const path = new URL('../examples/story2-messagequeue-driver-worker.yaml', import.meta.url);
  const [jobSet] = loadedJobSets(loadJobSets(readFileSync(path, 'utf8'), path.pathname));
  if (jobSet === undefined) throw new Error(`no JobSet in ${path.pathname}`);
  return jobSet;
};

/** JournalSizeFigure: one JobSet's journal and recording. */
export interface JournalSizeFigure {
  readonly jobSet: string;
  readonly jobs: number;
  readonly entries: number;
  /** Entries whose inputs refer to an earlier pass's (unchanged), and so keep no inputs of their own. */
  readonly unchanged: number;
  /** Entries keeping their inputs whole (keyframes), and only what changed since the previous entry (deltas). */
  readonly keyframes: number;
  readonly deltas: number;
  readonly entryBytes: { readonly min: number; readonly median: number; readonly max: number };
  readonly writeUnits: number;
  /** `lineup export`'s output, bytes. */
  readonly recordingBytes: number;
  readonly perturbRuns: number;
  readonly perturbMs: number;
  /** CPU time of the same, which a loaded machine stretches less than the wall time. */
  readonly perturbCpuMs: number;
  readonly perturbPassed: number;
}

/** measure: run `jobSet` through the demo's pipeline with a kept journal, then size and perturb what it kept. */
const measure = async (jobSet: JobSet, perturbRuns: number): Promise<JournalSizeFigure> => {
  const stage = (what: string): void => void process.stderr.write(`bench journal ${jobSet.metadata.name}: ${what}\n`);
  stage('the demo pipeline, journal kept');
  const stateDir = mkdtempSync(join(tmpdir(), 'lineup-bench-journal-'));
  rmSync(stateDir, { recursive: true });
  try {
    const kept = openStateDirForWriting(stateDir, { command: 'bench journal' });
    const summary = await runDemo({
      jobSets: [jobSet],
      behaviour: EMPTY_BEHAVIOUR,
      planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true },
      // lineup demo's default pace: at 0 (as fast as it goes) a loaded machine has seen the demo stop before the end.
      realMsPerVirtualSecond: DEMO_MS_PER_VIRTUAL_SECOND,
      until: Infinity,
      onEntry: () => undefined,
      log: silentLog,
      keptState: kept.database,
    }).finally(() => kept.close());
    const name = jobSet.metadata.name ?? '';
    const result = summary.jobSets[0];
    if (result?.terminalState !== 'Completed') throw new Error(`bench journal: ${name} did not complete: ${result === undefined ? 'no result' : `terminal state ${String(result.terminalState)}`}, the demo stopped ${summary.stoppedBy} at ${summary.endedAt} ms virtual`);
    const key = { cluster: DEMO_CLUSTER, namespace: jobSet.metadata.namespace ?? 'default', name };
    const { close, store } = openStateDirForReading(stateDir, 'bench journal');
    const entries = await store.listJournal(key).finally(close);
    const sizes = entries.map((entry) => journalItemChars(entry)).sort((a, b) => a - b);
    stage(`${entries.length} entries; --perturb ${perturbRuns}`);
    const recording = recordingOf(key, entries);
    const run = recordedRunOf(recording, name);
    const seeds = Array.from({ length: perturbRuns }, (_, index) => index + 1);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const report = perturb(run, seeds);
    const cpu = process.cpuUsage(cpuBefore);
    const perturbMs = performance.now() - started;
    return {
      jobSet: name,
      jobs: (jobSet.spec.replicatedJobs ?? []).reduce((sum, replicatedJob) => sum + (replicatedJob.replicas ?? 1), 0),
      entries: entries.length,
      unchanged: entries.filter((entry) => entry.inputsKept === 'unchanged').length,
      keyframes: entries.filter((entry) => entry.inputsKept === 'stored').length,
      deltas: entries.filter((entry) => entry.inputsKept === 'delta').length,
      entryBytes: { min: sizes[0] ?? 0, median: sizes[Math.floor(sizes.length / 2)] ?? 0, max: sizes.at(-1) ?? 0 },
      writeUnits: sizes.reduce((sum, size) => sum + Math.ceil(size / WRITE_UNIT_BYTES), 0),
      // As `lineup export` prints it.
      recordingBytes: Buffer.byteLength(`${JSON.stringify(recording, null, 2)}\n`),
      perturbRuns,
      perturbMs: Math.round(perturbMs),
      perturbCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      perturbPassed: report.passed,
    };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
};

/** runJournalSizeBench: the figures for story 2 and an InOrder 10 × 50 JobSet. */
export const runJournalSizeBench = async (): Promise<JournalSizeFigure[]> => [await measure(story2(), PERTURB_RUNS), await measure(inOrderJobSet(10, 50), LARGE_PERTURB_RUNS)];

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

/** renderJournalSizeFigures: one line per JobSet. */
export const renderJournalSizeFigures = (figures: readonly JournalSizeFigure[]): string[] =>
  figures.map(
    (f) =>
      `journal ${f.jobSet} (${f.jobs} jobs): ${f.entries} entries (${f.keyframes} keyframes, ${f.deltas} deltas, ${f.unchanged} with unchanged inputs), ${kb(f.entryBytes.min)}–${kb(f.entryBytes.max)} each (median ${kb(f.entryBytes.median)}), ` +
      `${f.writeUnits} write units; recording ${kb(f.recordingBytes)}; --perturb ${f.perturbRuns}: ${f.perturbMs} ms wall (${f.perturbCpuMs} ms CPU) in process, ${f.perturbPassed} passed`,
  );

if (import.meta.main) console.log(renderJournalSizeFigures(await runJournalSizeBench()).join('\n'));
