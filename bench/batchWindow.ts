/**
 * Benchmark: the forwarder's batch window — the latency it adds against the events and PutEvents
 * calls it saves. The real Forwarder (filter, per-JobSet coalescing, batcher) watches a scripted
 * cluster that plays, in real time, the watch changes of KEP-104 story 2 (messagequeue → 2
 * drivers → 2 workers, InOrder) as bench/pipeline.ts's cluster writes them: the user creates the
 * JobSet; Lineup creates its 5 Jobs (4 suspended), resumes each stage and writes the JobSet's
 * status, each REACTION_MS after the change that caused it reached the bus; a Job is ready
 * READY_AFTER_MS (+ up to READY_JITTER_MS) after it runs; all complete COMPLETE_AFTER_MS after
 * the last is ready. Every write carries managedFields as kube-apiserver records them. The sink
 * answers each PutEvents after PUT_LATENCY_MS (moto's unloaded p50).
 *
 * Per window: events put and PutEvents calls per startup, and the latency from each change a
 * decision depends on (the JobSet created, each Job ready or complete) to the put that delivered
 * it, p50 / p99 — for gates (the last Job of a stage turning ready) too. Lineup's own status
 * writes to the JobSet are played but not measured: the forwarder drops them (OwnStatusWrite in
 * lib/forwarder/filter.ts), since the pass that wrote them already acted.
 * Added latency is the difference with window 0. One JobSet at a time, then a burst of JobSets
 * created within BURST_SPREAD_MS (Lineup reacting within BURST_REACTION_MS, as when its queue is busy).
 *
 *   node bench/batchWindow.ts [--windows 0,10,25,50,100,200,400] [--jobsets 100] [--json]
 *
 * Makes no assertions.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { DEFAULT_CONTROLLER_NAME } from '../lib/jobset/managedBy.ts';
import { JOBSET_API_VERSION, Label } from '../lib/jobset/api.ts';
import { KUBE_FIELD_MANAGER } from '../lib/k8s/fieldManager.ts';
import { CounterName, Counters } from '../lib/counters.ts';
import type { PutEventsEntry } from '../lib/events/envelope.ts';
import { Forwarder } from '../lib/forwarder/forwarder.ts';
import type { EventSink, ListResult, PutResult, WatchEnd, WatchEvent, WatchSource, WatchedKind, WatchedObject } from '../lib/forwarder/types.ts';
import type { Job, JobSet } from '../lib/jobset/schema.ts';
import { silentLog } from '../lib/log.ts';
import { MemoryCheckpointStore } from '../lib/store/memoryStore.ts';

/** Lineup's reaction: from a change on the bus to its writes (bus → pass starts → writes, as bench/pipeline.ts measured one at a time). */
export const REACTION_MS = 100;
/** In the burst, Lineup's reaction is drawn up to this (its queue and the test servers are busy). */
export const BURST_REACTION_MS = 1_000;
/** A Job is ready this long after it runs, plus up to READY_JITTER_MS (bench/pipeline.ts: 200 ms). */
export const READY_AFTER_MS = 200;
export const READY_JITTER_MS = 20;
/** All Jobs of a JobSet complete this long after its last is ready (shorter than bench/pipeline.ts's 10 s: only its being ≫ the window matters). */
export const COMPLETE_AFTER_MS = 2_000;
/** How long moto's PutEvents answers in (its unloaded p50). */
export const PUT_LATENCY_MS = 20;
/** JobSets one after another, and how far apart. */
export const SOLO_JOBSETS = 5;
/** The burst's JobSets are created within this span. */
export const BURST_SPREAD_MS = 1_000;
export const DEFAULT_WINDOWS = [0, 10, 25, 50, 100, 200, 400];
export const DEFAULT_BURST = 100;

const NS = 'bench';
const STAGES = [
  { name: 'messagequeue', replicas: 1 },
  { name: 'driver', replicas: 2 },
  { name: 'worker', replicas: 2 },
] as const;

/** One scripted change: when (ms from the run's start), which watch, what; `decisive` marks a change a decision depends on (its latency is measured). */
interface Change {
  readonly at: number;
  readonly kind: WatchedKind;
  readonly type: 'ADDED' | 'MODIFIED';
  readonly object: JobSet | Job;
  readonly decisive?: 'change' | 'gate' | undefined;
}

/** A managedFields entry as kube-apiserver records it. */
const managed = (manager: string, fields: Record<string, unknown>, subresource?: string) => ({ manager, operation: 'Update', ...(subresource ? { subresource } : {}), fieldsV1: fields });
const LINEUP_JOB_FIELDS = managed(KUBE_FIELD_MANAGER, { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:suspend': {}, 'f:template': {} } });
const JOB_CONTROLLER_FIELDS = managed('kube-controller-manager', { 'f:status': { 'f:active': {}, 'f:ready': {} } }, 'status');

/** StoryScript: the changes of one JobSet's startup, Lineup's reactions timed from when the change that caused them was delivered. */
class StoryScript {
  readonly changes: Change[] = [];
  private rv = 0;
  private readonly name: string;
  private conditions: { type: string; status: 'True' | 'False'; reason: string }[] = [];
  private terminalState: string | undefined;
  private readonly jobs = new Map<string, Job>();

  constructor(name: string) {
    this.name = name;
  }

  private nextRv(): string {
    this.rv += 1;
    return `${this.name}-${this.rv}`;
  }

  jobSet(at: number, type: 'ADDED' | 'MODIFIED', decisive?: 'change'): void {
    const object: JobSet = {
      apiVersion: JOBSET_API_VERSION,
      kind: 'JobSet',
      metadata: { name: this.name, namespace: NS, uid: `uid-${this.name}`, resourceVersion: this.nextRv(), generation: 1 },
      spec: {
        managedBy: DEFAULT_CONTROLLER_NAME,
        startupPolicy: { startupPolicyOrder: 'InOrder' },
        replicatedJobs: STAGES.map((s) => ({ name: s.name, replicas: s.replicas, template: { spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } } } })),
      },
      status: { restarts: 0, conditions: this.conditions.map((c) => ({ ...c, message: `${c.type} at ${at}`, lastTransitionTime: '2026-01-01T00:00:00Z' })), ...(this.terminalState ? { terminalState: this.terminalState } : {}) },
    };
    this.changes.push({ at, kind: 'JobSet', type, object, decisive });
  }

  condition(type: string, status: 'True' | 'False'): void {
    this.conditions = [...this.conditions.filter((c) => c.type !== type), { type, status, reason: type }];
  }

  finish(): void {
    this.terminalState = 'Completed';
  }

  job(at: number, type: 'ADDED' | 'MODIFIED', name: string, stage: string, change: (job: Job) => void, decisive?: 'change' | 'gate'): void {
    const job: Job = structuredClone(
      this.jobs.get(name) ?? {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name,
          namespace: NS,
          uid: `uid-${name}`,
          labels: { [Label.JobSetName]: this.name, [Label.JobSetUid]: `uid-${this.name}`, [Label.ReplicatedJobName]: stage, [Label.RestartAttempt]: '0' },
        },
        spec: { parallelism: 1, completions: 1, suspend: true, template: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
      },
    );
    change(job);
    job.metadata.resourceVersion = this.nextRv();
    this.jobs.set(name, job);
    this.changes.push({ at, kind: 'Job', type, object: job, decisive });
  }
}

/**
 * storyChanges: story 2 for JobSet `name` created at `start`; `delivered(t)` is when a change at
 * t reaches the bus with window W (t + W, the put's own latency added by the caller), `reaction()`
 * Lineup's reaction time.
 */
const storyChanges = (name: string, start: number, windowMs: number, reaction: () => number, jitter: () => number): Change[] => {
  const story = new StoryScript(name);
  const lineupActs = (cause: number) => cause + windowMs + PUT_LATENCY_MS + reaction();
  const jobName = (stage: string, index: number) => `${name}-${stage}-${index}`;
  story.jobSet(start, 'ADDED', 'change');
  // Pass 1: every Job created (the first stage running), the startup condition written.
  let at = lineupActs(start);
  for (const [stageIndex, stage] of STAGES.entries()) {
    for (let index = 0; index < stage.replicas; index += 1) {
      story.job(at, 'ADDED', jobName(stage.name, index), stage.name, (job) => {
        job.spec.suspend = stageIndex > 0;
        Object.assign(job.metadata, { managedFields: [LINEUP_JOB_FIELDS] });
      });
      at += 2;
    }
  }
  story.condition('StartupPolicyInProgress', 'True');
  story.jobSet(at + 5, 'MODIFIED');
  let running = at;
  let lastReady = 0;
  for (const [stageIndex, stage] of STAGES.entries()) {
    if (stageIndex > 0) {
      // The pass after the previous stage's gate: resume this stage, rewrite the condition's message.
      let resumeAt = lineupActs(lastReady);
      for (let index = 0; index < stage.replicas; index += 1) {
        story.job(resumeAt, 'MODIFIED', jobName(stage.name, index), stage.name, (job) => (job.spec.suspend = false));
        resumeAt += 2;
      }
      story.jobSet(resumeAt + 5, 'MODIFIED');
      running = resumeAt;
    }
    const readyTimes = Array.from({ length: stage.replicas }, () => running + READY_AFTER_MS + jitter());
    const lastOfStage = Math.max(...readyTimes);
    for (const [index, readyAt] of readyTimes.entries()) {
      story.job(
        readyAt,
        'MODIFIED',
        jobName(stage.name, index),
        stage.name,
        (job) => {
          job.status = { active: 1, ready: 1, startTime: '2026-01-01T00:00:00Z' };
          Object.assign(job.metadata, { managedFields: [LINEUP_JOB_FIELDS, JOB_CONTROLLER_FIELDS] });
        },
        readyAt === lastOfStage ? 'gate' : 'change',
      );
    }
    lastReady = lastOfStage;
  }
  // The pass after the last stage is ready: the startup conditions flip.
  story.condition('StartupPolicyInProgress', 'False');
  story.condition('StartupPolicyCompleted', 'True');
  story.jobSet(lineupActs(lastReady), 'MODIFIED');
  // Every Job completes; Lineup writes Completed; the next pass finds nothing to do.
  const completeAt = lastReady + COMPLETE_AFTER_MS;
  let offset = 0;
  for (const stage of STAGES) {
    for (let index = 0; index < stage.replicas; index += 1) {
      story.job(
        completeAt + offset,
        'MODIFIED',
        jobName(stage.name, index),
        stage.name,
        (job) => (job.status = { active: 0, ready: 0, succeeded: 1, conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }] }),
        'change',
      );
      offset += 1;
    }
  }
  story.condition('Completed', 'True');
  story.finish();
  story.jobSet(lineupActs(completeAt + offset), 'MODIFIED');
  return story.changes;
};

/** ScriptedCluster: plays the changes in real time on their kind's watch; `done` resolves after the last. */
class ScriptedCluster implements WatchSource {
  /** When each change was emitted (performance.now()), by its JobSet. */
  readonly emitted = new Map<string, { at: number; decisive: 'change' | 'gate' }[]>();
  private readonly changes: readonly Change[];
  private finished = 0;
  private markDone: () => void = () => undefined;
  readonly done = new Promise<void>((resolve) => (this.markDone = resolve));

  constructor(changes: readonly Change[]) {
    this.changes = [...changes].sort((a, b) => a.at - b.at);
  }

  async list<K extends WatchedKind>(_kind: K): Promise<ListResult<K>> {
    return { items: [], resourceVersion: '0' };
  }

  async watch<K extends WatchedKind>(kind: K, _from: string, onEvent: (event: WatchEvent<K>) => void | Promise<void>, signal: AbortSignal): Promise<WatchEnd> {
    const mine = this.changes.filter((change) => change.kind === kind);
    const started = performance.now();
    for (const change of mine) {
      const wait = started + change.at - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (signal.aborted) return 'closed';
      if (change.decisive !== undefined) {
        const key = `${NS}/${change.kind === 'JobSet' ? change.object.metadata.name : change.object.metadata.labels?.[Label.JobSetName]}`;
        this.emitted.set(key, [...(this.emitted.get(key) ?? []), { at: performance.now(), decisive: change.decisive }]);
      }
      await onEvent({ type: change.type, object: change.object as WatchedObject<K> });
    }
    this.finished += 1;
    if (this.finished === 2) this.markDone();
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    return 'closed';
  }
}

/** TimedSink: answers each put after PUT_LATENCY_MS and records, per JobSet, when each put carrying its event started and returned. */
class TimedSink implements EventSink {
  readonly deliveries = new Map<string, { started: number; returned: number }[]>();
  async put(entries: readonly PutEventsEntry[]): Promise<PutResult> {
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, PUT_LATENCY_MS));
    const returned = performance.now();
    for (const entry of entries) {
      const detail = JSON.parse(entry.Detail) as { namespace: string; jobSet: string };
      const key = `${detail.namespace}/${detail.jobSet}`;
      this.deliveries.set(key, [...(this.deliveries.get(key) ?? []), { started, returned }]);
    }
    return { failed: [] };
  }
}

/** WindowFigure: one window, one phase. */
export interface WindowFigure {
  readonly windowMs: number;
  readonly phase: string;
  readonly jobSets: number;
  readonly eventsPerStartup: number;
  readonly putCallsPerStartup: number;
  /** Change a decision depends on → the put that delivered its JobSet's event, ms. */
  readonly latencyP50: number;
  readonly latencyP99: number;
  /** The same for the gates only (the last Job of a stage turning ready). */
  readonly gateP50: number;
  readonly gateP99: number;
  /** Decisive changes no later put covered (must be 0). */
  readonly uncovered: number;
}

const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** measure: one phase of `jobSets` startups with window `windowMs`. */
const measure = async (windowMs: number, phase: 'one at a time' | 'burst', jobSets: number): Promise<WindowFigure> => {
  // A seeded PRNG (mulberry32): every window sees the same jitter.
  let seed = 20_261_201;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const jitter = () => random() * READY_JITTER_MS;
  const changes: Change[] = [];
  let start = 50;
  for (let i = 0; i < jobSets; i += 1) {
    const story = phase === 'burst'
      ? storyChanges(`story2-${i}`, 50 + random() * BURST_SPREAD_MS, windowMs, () => REACTION_MS + random() * (BURST_REACTION_MS - REACTION_MS), jitter)
      : storyChanges(`story2-${i}`, start, windowMs, () => REACTION_MS, jitter);
    changes.push(...story);
    start = Math.max(...story.map((c) => c.at)) + 500;
  }
  const counters = new Counters();
  const cluster = new ScriptedCluster(changes);
  const sink = new TimedSink();
  const forwarder = new Forwarder({
    cluster: 'bench',
    source: cluster,
    sink,
    bookmarks: new MemoryCheckpointStore(),
    planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false },
    counters,
    log: silentLog,
    now: Date.now,
    batchWindowMs: windowMs,
  });
  const abort = new AbortController();
  const running = forwarder.run(abort.signal);
  await cluster.done;
  abort.abort();
  await running;
  const latencies: number[] = [];
  const gates: number[] = [];
  let uncovered = 0;
  for (const [key, emitted] of cluster.emitted) {
    const delivered = sink.deliveries.get(key) ?? [];
    for (const change of emitted) {
      // The first put that started after the change carries it (or a newer event of its JobSet).
      const put = delivered.find((d) => d.started >= change.at);
      if (put === undefined) {
        uncovered += 1;
        continue;
      }
      latencies.push(put.returned - change.at);
      if (change.decisive === 'gate') gates.push(put.returned - change.at);
    }
  }
  return {
    windowMs,
    phase,
    jobSets,
    eventsPerStartup: counters.get(CounterName.EventsPut) / jobSets,
    putCallsPerStartup: counters.get(CounterName.PutEventsCalls) / jobSets,
    latencyP50: percentile(latencies, 50),
    latencyP99: percentile(latencies, 99),
    gateP50: percentile(gates, 50),
    gateP99: percentile(gates, 99),
    uncovered,
  };
};

/** runBatchWindowBench: every window, one at a time and in a burst. */
export const runBatchWindowBench = async (windows: readonly number[] = DEFAULT_WINDOWS, burst = DEFAULT_BURST): Promise<WindowFigure[]> => {
  const figures: WindowFigure[] = [];
  for (const windowMs of windows) {
    figures.push(await measure(windowMs, 'one at a time', SOLO_JOBSETS));
    figures.push(await measure(windowMs, 'burst', burst));
  }
  return figures;
};

/** renderBatchWindowFigures: one line per window and phase, the added latency against window 0 (or the smallest measured). */
export const renderBatchWindowFigures = (figures: readonly WindowFigure[]): string[] => {
  const lines = [
    `batch window: story 2 through the real forwarder, Lineup reacting ${REACTION_MS} ms after delivery (burst: up to ${BURST_REACTION_MS} ms), Jobs ready ${READY_AFTER_MS}–${READY_AFTER_MS + READY_JITTER_MS} ms after they run, PutEvents ${PUT_LATENCY_MS} ms`,
  ];
  for (const phase of ['one at a time', 'burst']) {
    const rows = figures.filter((f) => f.phase === phase);
    const base = rows.reduce<WindowFigure | undefined>((min, f) => (min === undefined || f.windowMs < min.windowMs ? f : min), undefined);
    for (const f of rows) {
      const added = base === undefined ? Number.NaN : f.latencyP50 - base.latencyP50;
      lines.push(
        `  ${phase.padEnd(13)} window ${String(f.windowMs).padStart(4)} ms (${f.jobSets} JobSets): ${f.eventsPerStartup.toFixed(1)} events, ${f.putCallsPerStartup.toFixed(1)} PutEvents calls per startup; ` +
          `change → delivered p50 ${f.latencyP50.toFixed(0)} ms (+${added.toFixed(0)}), p99 ${f.latencyP99.toFixed(0)} ms; gates p50 ${f.gateP50.toFixed(0)} ms, p99 ${f.gateP99.toFixed(0)} ms` +
          (f.uncovered > 0 ? `; ${f.uncovered} changes never delivered` : ''),
      );
    }
  }
  return lines;
};

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      windows: { type: 'string', default: DEFAULT_WINDOWS.join(',') },
      jobsets: { type: 'string', default: String(DEFAULT_BURST) },
      json: { type: 'boolean', default: false },
    },
  });
  const windows = values.windows.split(',').map(Number);
  const burst = Number(values.jobsets);
  if (windows.some((w) => !Number.isInteger(w) || w < 0) || !Number.isInteger(burst) || burst < 1) {
    process.stderr.write(`batchWindow: --windows must be whole numbers ≥ 0 and --jobsets a whole number ≥ 1, got ${values.windows} and ${values.jobsets}\n`);
    process.exit(2);
  }
  const figures = await runBatchWindowBench(windows, burst);
  console.log(values.json ? JSON.stringify(figures, null, 2) : renderBatchWindowFigures(figures).join('\n'));
}
