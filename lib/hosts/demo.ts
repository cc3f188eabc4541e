/**
 * `lineup demo`: JobSets through the whole pipeline — the real forwarder watching the simulated
 * cluster, the in-process bus applying the deployed rule pattern, the real reconciler batch
 * handler with its lease and dirty counter in a real DynamoDB-API server (embedded dynalite) —
 * in accelerated virtual time, with a live timeline and a summary of what it cost.
 *
 * Virtual time only moves when the pipeline is quiet: after every step the host waits until no
 * event is queued, in flight or being written, then runs the cluster's next instant. So every
 * pass sees the cluster exactly as a controller that keeps up would.
 */
import { ConditionType } from '../jobset/api.ts';
import { CounterName, Counters } from '../counters.ts';
import { reconcilerRulePattern } from '../events/pattern.ts';
import { HEARTBEAT_INTERVAL_MS } from '../forwarder/heartbeat.ts';
import { Forwarder } from '../forwarder/forwarder.ts';
import type { EventSink } from '../forwarder/types.ts';
import type { JobSet, JobSetStatus } from '../jobset/schema.ts';
import type { Log } from '../log.ts';
import type { Action, PlanOptions } from '../plan/types.ts';
import type { ClusterGateway } from '../reconcile/types.ts';
import { InProcessBus } from '../bus/inProcessBus.ts';
import { sleep } from '../retry.ts';
import { InputsMemory } from '../reconcile/inputsMemory.ts';
import { makeSqsBatchHandler, type BatchDeps } from '../reconcile/sqsBatch.ts';
import { scheduleBehaviourActions } from '../sim/actions.ts';
import { resolveBehaviour, type Behaviour } from '../sim/behaviour.ts';
import { SimCluster } from '../sim/cluster.ts';
import { DEFAULT_NAMESPACE, UNTIL_NEVER_LIMIT_MS } from '../sim/constants.ts';
import { SimClusterGateway, SimWatchSource } from '../sim/gateway.ts';
import { EventQueue } from '../sim/queue.ts';
import type { TimelineEntry } from '../sim/timeline.ts';
import { DynamoCheckpointStore } from '../store/dynamoStore.ts';
import { startEmbeddedDynamo } from '../store/embedded.ts';
import { SqliteCheckpointStore, type StateDatabase } from '../store/sqliteStore.ts';
import type { BookmarkStore, CheckpointStore } from '../store/types.ts';

/** The cluster id the demo's simulated cluster registers as: `lineup run`'s default, so the commands read alike. */
export const DEMO_CLUSTER = 'local';

/** The registry entry of the demo's cluster in a kept state directory: it has no endpoint to reach. */
const DEMO_CLUSTER_RECORD = { id: DEMO_CLUSTER, endpoint: 'https://simulated.invalid', auth: { type: 'token' } } as const;

/** DemoOptions: what to run and how to show it. */
export interface DemoOptions {
  readonly jobSets: readonly JobSet[];
  /**
   * How each Job behaves, and the outside actions (suspend, deleteJob) done at their virtual
   * times to every JobSet of the demo, as `lineup simulate` does them to its one
   * (lib/sim/actions.ts).
   */
  readonly behaviour: Behaviour;
  readonly planOptions: PlanOptions;
  /** Real milliseconds per virtual second (0: as fast as the pipeline goes). */
  readonly realMsPerVirtualSecond: number;
  /**
   * Stop at this virtual time even if JobSets are still running. Infinity (`--until never`):
   * until nothing more is scheduled, at most UNTIL_NEVER_LIMIT_MS.
   */
  readonly until: number;
  /** How far an infinite `until` runs at most. @default UNTIL_NEVER_LIMIT_MS */
  readonly untilNeverLimit?: number | undefined;
  /** A live timeline line. */
  readonly onEntry: (jobSet: string, entry: TimelineEntry) => void;
  readonly log: Log;
  /**
   * Keep the store (leases, journal, bookmarks) in this state database, as `lineup run` does, so
   * that `lineup history`, `export` and `replay` read the demo's journal, also while it runs. The
   * simulated cluster is registered in it as DEMO_CLUSTER; the caller opened it (a state
   * directory taken for writing: lib/hosts/stateDir.ts) and closes it. @default in memory, gone when the demo ends
   */
  readonly keptState?: StateDatabase | undefined;
  /** Keep containers' environment values in the journal (lib/reconcile/redact.ts). @default false: redacted */
  readonly journalKeepEnv?: boolean | undefined;
  /**
   * Wall-clock time (epoch ms) the virtual clock starts at, floored to a whole second as the
   * cluster's timestamps are: the journal, heartbeats and objects read as the day the demo ran,
   * so `lineup clusters status` on a kept state directory sees a fresh heartbeat. Passed in so a
   * test's run is the same every time. @default the wall clock when the demo starts
   */
  readonly startedAt?: number | undefined;
}

/** Outcome of one JobSet in the demo. */
export interface DemoJobSetResult {
  readonly name: string;
  readonly terminalState: string | null;
  readonly restarts: number;
  /** Only for a JobSet the controller rejected (nothing of it ran): why, as its Rejected condition says. */
  readonly rejected?: string;
}

/**
 * Why the demo stopped: every JobSet finished or was rejected; nothing more was scheduled; the
 * `until` time came; or UNTIL_NEVER_LIMIT_MS came under an infinite `until`.
 */
export type DemoStopReason = 'finished' | 'quiescent' | 'until' | 'limit';

/** DemoSummary: where every JobSet ended, and what the pipeline did to get there. */
export interface DemoSummary {
  readonly jobSets: readonly DemoJobSetResult[];
  /** Virtual time of the last event run, or the time the run was cut off at (`until`, UNTIL_NEVER_LIMIT_MS). */
  readonly endedAt: number;
  readonly stoppedBy: DemoStopReason;
  readonly counters: Readonly<Record<string, number>>;
  /** Kubernetes writes the controller made (creates, patches, status updates, deletes; Events included). */
  readonly kubeWrites: number;
  readonly deadLetters: number;
}

/** countingSink: passes entries on, counting what is in flight so the host knows when the pipeline is quiet. */
const countingSink = (inner: EventSink): EventSink & { inFlight: () => number } => {
  let inFlight = 0;
  return {
    inFlight: () => inFlight,
    put: async (entries) => {
      inFlight += 1;
      try {
        return await inner.put(entries);
      } finally {
        inFlight -= 1;
      }
    },
  };
};

/** rejectionOf: the message of a JobSet's Rejected=True condition, or undefined when it was not rejected. */
const rejectionOf = (status: JobSetStatus | undefined): string | undefined =>
  status?.conditions?.find((condition) => condition.type === ConditionType.Rejected && condition.status === 'True')?.message ?? undefined;

/** tick: one turn of the event loop's timers, for the quiet check to look again. */
const tick = (): Promise<void> => sleep(0);

/** DemoCluster: the simulated cluster in virtual time, and the watch source the forwarder reads it through. */
interface DemoCluster {
  readonly queue: EventQueue;
  readonly cluster: SimCluster;
  readonly source: SimWatchSource;
  /** The virtual clock's start, epoch ms. */
  readonly epochMs: number;
  /** The virtual clock, epoch ms. */
  readonly now: () => number;
  /** Errors the watch source met: the next quiet check throws the first. */
  readonly failures: unknown[];
}

/** simulatedCluster: a SimCluster on a fresh event queue whose changes wake the watch source. */
const simulatedCluster = (options: DemoOptions): DemoCluster => {
  const queue = new EventQueue();
  const epochMs = Math.floor((options.startedAt ?? Date.now()) / 1000) * 1000;
  const failures: unknown[] = [];
  let source: SimWatchSource | undefined;
  const cluster = new SimCluster({
    queue,
    timing: (job) => resolveBehaviour(options.behaviour, job),
    onChange: (namespace, name) => source?.notify(namespace, name),
    epochMs,
  });
  source = new SimWatchSource(cluster, (error) => failures.push(error));
  return { queue, cluster, source, epochMs, now: () => epochMs + queue.now(), failures };
};

/**
 * openDemoStore: kept state goes to the state directory's database, as lineup run's; otherwise a
 * real DynamoDB-API server in memory, so the summary's request counts are the deployed store's.
 */
const openDemoStore = async (kept: StateDatabase | undefined, counters: Counters): Promise<{ close: () => Promise<unknown>; store: CheckpointStore }> =>
  kept === undefined
    ? await startEmbeddedDynamo().then((embedded) => ({
        close: () => embedded.stop(),
        store: new DynamoCheckpointStore({ client: embedded.client, tableName: embedded.tableName, counters }),
      }))
    : { close: async () => undefined, store: new SqliteCheckpointStore(kept, { counters }) };

/** kubeVerbOf: the Kubernetes verb an action's write is, as the Kubernetes gateway counts requests. */
const kubeVerbOf = (action: Action): string =>
  action.kind === 'CreateJob' || action.kind === 'CreateService' || action.kind === 'CreatePersistentVolumeClaim' || action.kind === 'EmitEvent'
    ? 'create'
    : action.kind === 'DeleteJob' || action.kind === 'DeleteJobSet'
      ? 'delete'
      : action.kind === 'UpdateJobSetStatus'
        ? 'update'
        : 'patch';

/**
 * countingGateway: the simulated cluster's gateway, counting what the reconciler asks of it the way
 * the Kubernetes gateway counts requests: a pass reads the JobSet, lists its Jobs and gets its
 * Service; every action is one write.
 */
const countingGateway = (cluster: SimCluster, counters: Counters): ClusterGateway => {
  const simGateway = new SimClusterGateway(cluster);
  return {
    observe: (namespace, name, at) => {
      counters.add(`${CounterName.KubePrefix}get`, 2);
      counters.add(`${CounterName.KubePrefix}list`);
      return simGateway.observe(namespace, name, at);
    },
    apply: (namespace, name, action, at) => {
      // Un-suspending a Job that ran before first rewrites its status without startTime.
      if (action.kind === 'ResumeJob' && action.clearStartTime) counters.add(`${CounterName.KubePrefix}update`);
      counters.add(`${CounterName.KubePrefix}${kubeVerbOf(action)}`);
      return simGateway.apply(namespace, name, action, at);
    },
  };
};

/** demoBus: the in-process bus applying the deployed rule pattern, delivering to the real reconciler batch handler. */
const demoBus = (options: DemoOptions, sim: DemoCluster, store: BatchDeps['store'], counters: Counters): InProcessBus => {
  const gateway = countingGateway(sim.cluster, counters);
  const handler = makeSqsBatchHandler({
    store,
    resolveCluster: async (id) => (id === DEMO_CLUSTER ? gateway : undefined),
    planOptions: options.planOptions,
    owner: 'lineup-demo',
    inputsMemory: new InputsMemory(),
    now: sim.now,
    counters,
    log: options.log,
    journalKeepEnv: options.journalKeepEnv,
  });
  return new InProcessBus({ pattern: reconcilerRulePattern(), handler, log: options.log, now: sim.now, redelivery: 'manual' });
};

/** demoForwarder: the real forwarder watching the simulated cluster, putting to `sink` at once (no batch window). */
const demoForwarder = (options: DemoOptions, sim: DemoCluster, sink: EventSink, store: BookmarkStore, counters: Counters): Forwarder =>
  new Forwarder({
    cluster: DEMO_CLUSTER,
    source: sim.source,
    sink,
    bookmarks: store,
    planOptions: options.planOptions,
    counters,
    log: options.log,
    now: sim.now,
    batchWindowMs: 0,
    reconnectDelayMs: 0,
    // Kept state gets the heartbeats `lineup clusters status` reads (the first at once, stamped in virtual time).
    heartbeatIntervalMs: options.keptState === undefined ? undefined : HEARTBEAT_INTERVAL_MS,
  });

/** DemoPipeline: the running pipeline, as the loop that advances virtual time watches it. */
interface DemoPipeline {
  readonly bus: InProcessBus;
  readonly sink: ReturnType<typeof countingSink>;
  readonly forwarder: Forwarder;
  readonly counters: Counters;
}

/** NamespacedName: one JobSet of the demo. */
type NamespacedName = { readonly namespace: string; readonly name: string };

/** createJobSets: every JobSet created at virtual time 0, and the behaviour's outside actions scheduled for each. */
const createJobSets = (options: DemoOptions, sim: DemoCluster): NamespacedName[] => {
  for (const jobSet of options.jobSets) sim.cluster.createJobSet(jobSet, 0);
  const names = options.jobSets.map((jobSet) => ({ namespace: jobSet.metadata.namespace ?? DEFAULT_NAMESPACE, name: jobSet.metadata.name ?? '' }));
  scheduleBehaviourActions(sim.queue, sim.cluster, names, options.behaviour.actions);
  return names;
};

/** timelinePrinter: hands each JobSet's timeline entries not yet shown to `onEntry`. */
const timelinePrinter = (options: DemoOptions, sim: DemoCluster, names: readonly NamespacedName[]): (() => void) => {
  const printed = new Map<string, number>();
  return () => {
    for (const { namespace, name } of names) {
      const entries = sim.cluster.timeline(namespace, name);
      for (const entry of entries.slice(printed.get(name) ?? 0)) options.onEntry(name, entry);
      printed.set(name, entries.length);
    }
  };
};

/** untilQuiet: wait until the pipeline has nothing queued, in flight or changing for several turns of the event loop. */
const untilQuiet = async (sim: DemoCluster, pipeline: DemoPipeline): Promise<void> => {
  const { bus, sink, forwarder, counters } = pipeline;
  let calm = 0;
  let last = '';
  while (calm < 5) {
    await tick();
    if (sim.failures.length > 0) throw sim.failures[0];
    const state = `${sim.cluster.writes()}/${bus.archive.length}/${counters.get(CounterName.WatchEvents)}/${counters.get(CounterName.Passes)}`;
    // The forwarder counts too, until its first lists are taken in and while events wait: its
    // start (bookmark reads in dynalite) and its window's timer can outlast five turns of the
    // event loop on a loaded machine, and a step would then end before its events were put.
    const busy = !forwarder.listedEveryKind || bus.visiblePending() > 0 || sink.inFlight() > 0 || forwarder.pendingEvents > 0;
    calm = !busy && state === last ? calm + 1 : 0;
    last = state;
    if (busy) bus.kick();
  }
};

/** allDone: every JobSet finished, or was rejected (as done as a finished one: nothing of it will ever run). */
const allDone = (sim: DemoCluster, names: readonly NamespacedName[]): boolean =>
  names.every(({ namespace, name }) => {
    const jobSet = sim.cluster.getJobSet(namespace, name);
    return !jobSet || jobSet.status?.terminalState === 'Completed' || jobSet.status?.terminalState === 'Failed' || rejectionOf(jobSet.status) !== undefined;
  });

/** nextInstant: the virtual time of the next cluster event or bus redelivery, whichever is first. */
const nextInstant = (sim: DemoCluster, bus: InProcessBus): number | undefined =>
  [sim.queue.peekTime(), bus.nextVisibleAt() === undefined ? undefined : (bus.nextVisibleAt() ?? 0) - sim.epochMs]
    .filter((time): time is number => time !== undefined)
    .reduce<number | undefined>((min, time) => (min === undefined || time < min ? time : min), undefined);

/**
 * advanceUntilDone: run the cluster instant by instant, letting the pipeline catch up after each,
 * until every JobSet is done, nothing more is scheduled, or the stop time comes.
 */
const advanceUntilDone = async (options: DemoOptions, sim: DemoCluster, pipeline: DemoPipeline, names: readonly NamespacedName[]): Promise<{ stoppedBy: DemoStopReason; stopAt: number }> => {
  const { queue } = sim;
  const bounded = Number.isFinite(options.until);
  const stopAt = bounded ? options.until : (options.untilNeverLimit ?? UNTIL_NEVER_LIMIT_MS);
  const printNew = timelinePrinter(options, sim, names);
  await untilQuiet(sim, pipeline);
  printNew();
  let stoppedBy: DemoStopReason;
  for (;;) {
    const next = nextInstant(sim, pipeline.bus);
    if (allDone(sim, names) && queue.peekTime() === undefined) {
      stoppedBy = 'finished';
      break;
    }
    if (next === undefined) {
      stoppedBy = 'quiescent';
      break;
    }
    if (next > stopAt) {
      stoppedBy = bounded ? 'until' : 'limit';
      break;
    }
    const wait = ((next - queue.now()) / 1000) * options.realMsPerVirtualSecond;
    if (wait > 0) await sleep(Math.min(wait, 2_000));
    // Run every cluster event of that instant, then let the pipeline catch up.
    while (queue.peekTime() !== undefined && (queue.peekTime() ?? Infinity) <= next) queue.runNext();
    pipeline.bus.kick();
    await untilQuiet(sim, pipeline);
    printNew();
    if (allDone(sim, names) && pipeline.bus.pending() === 0) {
      stoppedBy = 'finished';
      break;
    }
  }
  printNew();
  return { stoppedBy, stopAt };
};

/** summaryOf: where every JobSet ended, and what the pipeline did to get there. */
const summaryOf = (sim: DemoCluster, pipeline: DemoPipeline, names: readonly NamespacedName[], end: { stoppedBy: DemoStopReason; stopAt: number }): DemoSummary => {
  const { counters } = pipeline;
  return {
    jobSets: names.map(({ namespace, name }): DemoJobSetResult => {
      const jobSet = sim.cluster.getJobSet(namespace, name);
      const state = jobSet?.status?.terminalState;
      const rejected = rejectionOf(jobSet?.status);
      const result = { name, terminalState: state === 'Completed' || state === 'Failed' ? state : null, restarts: jobSet?.status?.restarts ?? 0 };
      return rejected === undefined ? result : { ...result, rejected };
    }),
    // A run cut off ends at the time it was cut off at, not at its last event before.
    endedAt: end.stoppedBy === 'until' || end.stoppedBy === 'limit' ? end.stopAt : sim.queue.now(),
    stoppedBy: end.stoppedBy,
    counters: counters.snapshot(),
    kubeWrites: ['create', 'update', 'patch', 'delete'].reduce((sum, verb) => sum + counters.get(`${CounterName.KubePrefix}${verb}`), 0),
    deadLetters: pipeline.bus.deadLetters.length,
  };
};

/** runDemo: run every JobSet to its end (or `until`) through the pipeline. */
export const runDemo = async (options: DemoOptions): Promise<DemoSummary> => {
  const counters = new Counters();
  const sim = simulatedCluster(options);
  const { close, store } = await openDemoStore(options.keptState, counters);
  const abort = new AbortController();
  let bus: InProcessBus | undefined;
  let forwarding: Promise<void> | undefined;
  try {
    // Registered so that `lineup replay --all` finds the demo's JobSets without being told the cluster.
    if (options.keptState !== undefined) await store.putCluster(DEMO_CLUSTER_RECORD);
    bus = demoBus(options, sim, store, counters);
    const sink = countingSink(bus);
    const forwarder = demoForwarder(options, sim, sink, store, counters);
    const names = createJobSets(options, sim);
    forwarding = forwarder.run(abort.signal);
    const pipeline: DemoPipeline = { bus, sink, forwarder, counters };
    return summaryOf(sim, pipeline, names, await advanceUntilDone(options, sim, pipeline, names));
  } finally {
    abort.abort();
    await forwarding;
    await bus?.stop();
    await close();
  }
};
