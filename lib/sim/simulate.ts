/**
 * `lineup simulate`'s engine: the real planner against the simulated cluster, in virtual time.
 * A deterministic discrete-event loop: cluster work (the Job controller, garbage collection,
 * behaviour actions) and reconcile passes sit on one queue ordered by (time, phase, sequence),
 * so the same inputs always give the same timeline, byte for byte.
 */
import { ConditionType } from '../constants.ts';
import { LineupError, SimulationDivergedError } from '../errors.ts';
import type { Condition, JobSet, ReplicatedJobStatus } from '../jobset/schema.ts';
import { plan } from '../plan/planner.ts';
import type { ActionKind, Observed, Plan, PlanOptions } from '../plan/types.ts';
import type { StartupForm } from '../policy/types.ts';
import { scheduleBehaviourActions } from './actions.ts';
import { resolveBehaviour } from './behaviour.ts';
import type { Behaviour, JobTiming } from './behaviour.ts';
import { SimCluster } from './cluster.ts';
import type { ClusterChange, JobRef } from './cluster.ts';
import { DEFAULT_NAMESPACE, MAX_PASSES_PER_INSTANT, MAX_RETRY_BACKOFF_MS, RETRY_BACKOFF_MS, UNTIL_NEVER_LIMIT_MS } from './constants.ts';
import { EventQueue, Phase } from './queue.ts';
import type { EventHandle } from './queue.ts';
import type { TimelineEntry } from './timeline.ts';

/** SimulateOptions: how long to run, how late the controller sees changes, which JobSets are Lineup's. */
export interface SimulateOptions {
  /**
   * Virtual milliseconds after which the run stops (events at exactly `until` still happen).
   * Infinity (`--until never`): until nothing more is scheduled, at most UNTIL_NEVER_LIMIT_MS.
   */
  readonly until: number;
  /** Virtual milliseconds between a change and the reconcile pass that sees it. */
  readonly latency: number;
  readonly planOptions: PlanOptions;
  /**
   * The planner to run. @default plan (lib/plan/planner.ts); another one is for tests of the
   * loop itself (retries, divergence) and for comparing planners on the same cluster.
   */
  readonly planner?: ((observed: Observed, options: PlanOptions, delivered: readonly DeliveredEvent[]) => Plan) | undefined;
  /**
   * How each change's watch event reaches the controller (`lineup replay --perturb`). @default
   * every change delivered once, `latency` after it, which is all a planner that reads the whole
   * state needs.
   */
  readonly delivery?: EventDelivery | undefined;
  /**
   * How each Job behaves once resumed, when it depends on more than the behaviour file can say
   * (a re-enacted recording times each restart attempt as recorded). @default from `behaviour`
   */
  readonly timing?: ((job: JobRef) => JobTiming) | undefined;
}

/**
 * EventDelivery: the event stream between the simulated cluster and the reconciler, perturbed.
 * `delays` says after how many virtual ms each delivery of a change's event arrives: none drops
 * it, two duplicate it, and unequal delays across changes reorder them. A dropped event is
 * recovered only by a resync pass `resyncAfterMs` after the change, as the deployed resync does.
 */
export interface EventDelivery {
  delays(change: ClusterChange, at: number): readonly number[];
  readonly resyncAfterMs: number;
}

/** DeliveredEvent: what a pass was run for: a change's event (or a resync pass, `change` undefined), when it happened and arrived. */
export interface DeliveredEvent {
  readonly change: ClusterChange | undefined;
  readonly changedAt: number;
  readonly deliveredAt: number;
}

/** FinalState: the JobSet's status when the run stopped. */
export interface FinalState {
  readonly conditions: readonly Condition[];
  readonly replicatedJobsStatus: readonly ReplicatedJobStatus[];
  readonly restarts: number;
  readonly terminalState: 'Completed' | 'Failed' | null;
}

/** SimulationReport: exactly the JSON `lineup simulate --output json` prints (docs/simulate.md); other tools read it, keep it stable. */
export interface SimulationReport {
  /** `namespace/name`. */
  readonly jobSet: string;
  readonly timeline: readonly TimelineEntry[];
  readonly final: FinalState;
}

/** PassError: an action the simulated API server refused; the pass stopped there and was retried. */
export interface PassError {
  readonly at: number;
  readonly action: ActionKind;
  readonly code: string | undefined;
  readonly message: string;
}

/** SimulationCounters: how much work the controller did. */
export interface SimulationCounters {
  readonly passes: number;
  /** Writes (resourceVersions) caused by the controller's actions; the cluster's own are not counted. */
  readonly writes: number;
  /** Actions carried out, by kind, in ActionKind name order. */
  readonly actions: Readonly<Partial<Record<ActionKind, number>>>;
  /** Actions refused (the passes they ended were retried). */
  readonly errors: number;
}

/** PassRecord: one reconcile pass of the run: when, what the planner said, which actions it carried out. */
export interface PassRecord {
  readonly at: number;
  /** The planner's one-line reason for the pass. */
  readonly reason: string;
  /** The actions carried out, in order (a refused action ends the list; see errors). */
  readonly actions: readonly ActionKind[];
}

/** Why the run stopped: nothing left to happen, `until` reached, the JobSet gone, or UNTIL_NEVER_LIMIT_MS reached under an infinite `until`. */
export type StopReason = 'quiescent' | 'until' | 'deleted' | 'limit';

/** SimulationResult: the report plus what is not part of the JSON contract. */
export interface SimulationResult extends SimulationReport {
  readonly counters: SimulationCounters;
  /** Every pass that observed the JobSet, in order. */
  readonly passes: readonly PassRecord[];
  readonly errors: readonly PassError[];
  /** Virtual time of the last event run (or `until`, or UNTIL_NEVER_LIMIT_MS, when the run was cut off). */
  readonly endedAt: number;
  readonly stoppedBy: StopReason;
  /** The startup form the planner decided with (absent when it never got that far, e.g. rejected). */
  readonly startupForm: StartupForm | undefined;
}

/** simulationReport: the `--output json` shape of a result, and nothing else. */
export const simulationReport = (result: SimulationResult): SimulationReport => ({
  jobSet: result.jobSet,
  timeline: result.timeline,
  final: result.final,
});

const terminalStateOf = (jobSet: JobSet | undefined): 'Completed' | 'Failed' | null => {
  const status = jobSet?.status;
  if (status?.terminalState === 'Completed' || status?.terminalState === 'Failed') return status.terminalState;
  const conditions = status?.conditions ?? [];
  if (conditions.some((c) => c.type === ConditionType.Completed && c.status === 'True')) return 'Completed';
  if (conditions.some((c) => c.type === ConditionType.Failed && c.status === 'True')) return 'Failed';
  return null;
};

/**
 * simulate: run one JobSet through the real planner on a simulated cluster until nothing is
 * left to happen or `until`. Every change to the JobSet, its Jobs or its Service schedules one
 * reconcile pass `latency` later (coalesced: at most one pending); a pass observes, plans and
 * applies the actions in order, stopping at the first refused one and retrying after a backoff
 * (RETRY_BACKOFF_MS doubling to MAX_RETRY_BACKOFF_MS). An infinite `until` runs until nothing is
 * scheduled, at most UNTIL_NEVER_LIMIT_MS (stoppedBy 'limit' when that cut it off). Throws
 * SimulationDivergedError when more than MAX_PASSES_PER_INSTANT passes run at one virtual instant.
 *
 * @example simulate(jobSet, EMPTY_BEHAVIOUR, { until: 86_400_000, latency: 0, planOptions: DEFAULT_PLAN_OPTIONS })
 */
export const simulate = (jobSet: JobSet, behaviour: Behaviour, options: SimulateOptions): SimulationResult => {
  const namespace = jobSet.metadata.namespace ?? DEFAULT_NAMESPACE;
  const name = jobSet.metadata.name ?? '';
  const queue = new EventQueue();
  const planner = options.planner ?? plan;

  let pending: { at: number; handle: EventHandle } | undefined;
  // The JobSet as last stored, so a run that ends with the JobSet deleted still reports its status.
  let lastJobSet: JobSet | undefined;
  const schedulePass = (at: number): void => {
    if (pending && pending.at <= at) return;
    if (pending) queue.cancel(pending.handle);
    pending = { at, handle: queue.schedule(at, Phase.Reconcile, runPass) };
  };

  const cluster = new SimCluster({
    queue,
    timing: options.timing ?? ((job) => resolveBehaviour(behaviour, job)),
    onChange: (changedNamespace, changedName, change) => {
      if (changedNamespace !== namespace || changedName !== name) return;
      lastJobSet = cluster.getJobSet(namespace, name) ?? lastJobSet;
      if (options.delivery) deliver(options.delivery, change, queue.now());
      else schedulePass(queue.now() + options.latency);
    },
  });

  // Events delivered since the last pass; the next pass is run for them.
  let inbox: DeliveredEvent[] = [];
  const arrive = (event: DeliveredEvent): void => {
    inbox.push(event);
    schedulePass(event.deliveredAt);
  };
  function deliver(delivery: EventDelivery, change: ClusterChange, changedAt: number): void {
    const delays = delivery.delays(change, changedAt);
    if (delays.length === 0) {
      queue.schedule(changedAt + delivery.resyncAfterMs, Phase.Reconcile, (at) => arrive({ change: undefined, changedAt, deliveredAt: at }));
    }
    for (const delay of delays) queue.schedule(changedAt + delay, Phase.Reconcile, (at) => arrive({ change, changedAt, deliveredAt: at }));
  }

  let passes = 0;
  const passLog: PassRecord[] = [];
  let controllerWrites = 0;
  const actions = new Map<ActionKind, number>();
  const errors: PassError[] = [];
  let backoff = RETRY_BACKOFF_MS;
  let instant = { at: -1, passes: 0 };
  let startupForm: StartupForm | undefined;

  function runPass(at: number): void {
    pending = undefined;
    const delivered = inbox;
    inbox = [];
    passes += 1;
    instant = instant.at === at ? { at, passes: instant.passes + 1 } : { at, passes: 1 };
    const observed = cluster.observe(namespace, name, at);
    if (!observed) return;
    const decided = planner(observed, options.planOptions, delivered);
    if (instant.passes > MAX_PASSES_PER_INSTANT) {
      throw new SimulationDivergedError(
        `jobset ${namespace}/${name} did not settle: more than ${MAX_PASSES_PER_INSTANT} reconcile passes at ${at}ms (last: ${decided.reason})`,
      );
    }
    startupForm = decided.startup?.form ?? startupForm;
    const carriedOut: ActionKind[] = [];
    passLog.push({ at, reason: decided.reason, actions: carriedOut });
    for (const action of decided.actions) {
      const writesBefore = cluster.writes();
      try {
        cluster.apply(namespace, name, action, at);
      } catch (error) {
        // Only refusals the API server gives are part of the simulated world; anything else is a bug.
        if (!(error instanceof LineupError)) throw error;
        controllerWrites += cluster.writes() - writesBefore;
        errors.push({ at, action: action.kind, code: error.code, message: error.message });
        schedulePass(at + backoff);
        backoff = Math.min(backoff * 2, MAX_RETRY_BACKOFF_MS);
        return;
      }
      controllerWrites += cluster.writes() - writesBefore;
      actions.set(action.kind, (actions.get(action.kind) ?? 0) + 1);
      carriedOut.push(action.kind);
    }
    backoff = RETRY_BACKOFF_MS;
    if (decided.requeueAfterMs !== undefined) schedulePass(at + Math.max(0, decided.requeueAfterMs));
  }

  cluster.createJobSet({ ...jobSet, metadata: { ...jobSet.metadata, namespace } }, 0);
  scheduleBehaviourActions(queue, cluster, [{ namespace, name }], behaviour.actions);

  // Run by hand rather than queue.runUntil so a quiescent run reports when its last event happened.
  const bounded = Number.isFinite(options.until);
  const stopAt = bounded ? options.until : UNTIL_NEVER_LIMIT_MS;
  let endedAt = 0;
  for (let next = queue.peekTime(); next !== undefined && next <= stopAt; next = queue.peekTime()) {
    queue.runNext();
    endedAt = next;
  }
  const cutOff = queue.size() > 0;
  if (cutOff) endedAt = stopAt;
  const finalJobSet = cluster.getJobSet(namespace, name);
  const status = (finalJobSet ?? lastJobSet)?.status;
  const counted = [...actions.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    jobSet: `${namespace}/${name}`,
    timeline: [...cluster.timeline(namespace, name)],
    final: {
      conditions: status?.conditions ?? [],
      replicatedJobsStatus: status?.replicatedJobsStatus ?? [],
      restarts: status?.restarts ?? 0,
      terminalState: terminalStateOf(finalJobSet ?? lastJobSet),
    },
    counters: { passes, writes: controllerWrites, actions: Object.fromEntries(counted), errors: errors.length },
    passes: passLog,
    errors,
    endedAt,
    stoppedBy: cutOff ? (bounded ? 'until' : 'limit') : finalJobSet ? 'quiescent' : 'deleted',
    startupForm,
  };
};
