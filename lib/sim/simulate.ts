/**
 * `lineup simulate`'s engine: the real planner against the simulated cluster, in virtual time.
 * A deterministic discrete-event loop: cluster work (the Job controller, garbage collection,
 * behaviour actions) and reconcile passes sit on one queue ordered by (time, phase, sequence),
 * so the same inputs always give the same timeline, byte for byte.
 */
import { ConditionType } from '../jobset/api.ts';
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
 * SimulationRun: one run's loop state and its steps — a change schedules a pass (or its perturbed
 * deliveries), a pass observes, plans and applies, the run ends in a result. Lives only inside simulate().
 */
class SimulationRun {
  readonly namespace: string;
  readonly name: string;
  readonly queue = new EventQueue();
  readonly cluster: SimCluster;
  private readonly planner: NonNullable<SimulateOptions['planner']>;
  /** The one pass scheduled, if any: passes coalesce to the earliest. */
  private pending: { at: number; handle: EventHandle } | undefined;
  /** The JobSet as last stored, so a run that ends with the JobSet deleted still reports its status. */
  private lastJobSet: JobSet | undefined;
  /** Events delivered since the last pass; the next pass is run for them. */
  private inbox: DeliveredEvent[] = [];
  private passes = 0;
  private readonly passLog: PassRecord[] = [];
  private controllerWrites = 0;
  private readonly actions = new Map<ActionKind, number>();
  private readonly errors: PassError[] = [];
  private backoff = RETRY_BACKOFF_MS;
  private instant = { at: -1, passes: 0 };
  private startupForm: StartupForm | undefined;

  private readonly behaviour: Behaviour;
  private readonly options: SimulateOptions;

  constructor(jobSet: JobSet, behaviour: Behaviour, options: SimulateOptions) {
    this.behaviour = behaviour;
    this.options = options;
    this.namespace = jobSet.metadata.namespace ?? DEFAULT_NAMESPACE;
    this.name = jobSet.metadata.name ?? '';
    this.planner = options.planner ?? plan;
    this.cluster = new SimCluster({
      queue: this.queue,
      timing: options.timing ?? ((job) => resolveBehaviour(behaviour, job)),
      onChange: (changedNamespace, changedName, change) => this.onChange(changedNamespace, changedName, change),
    });
  }

  /** start: the JobSet created at virtual time 0, the behaviour's outside actions scheduled. */
  start(jobSet: JobSet): void {
    this.cluster.createJobSet({ ...jobSet, metadata: { ...jobSet.metadata, namespace: this.namespace } }, 0);
    scheduleBehaviourActions(this.queue, this.cluster, [{ namespace: this.namespace, name: this.name }], this.behaviour.actions);
  }

  /** onChange: a change to this JobSet, its Jobs or its Service: its pass `latency` later, or its perturbed deliveries. */
  private onChange(changedNamespace: string, changedName: string, change: ClusterChange): void {
    if (changedNamespace !== this.namespace || changedName !== this.name) return;
    this.lastJobSet = this.cluster.getJobSet(this.namespace, this.name) ?? this.lastJobSet;
    if (this.options.delivery) this.deliver(this.options.delivery, change, this.queue.now());
    else this.schedulePass(this.queue.now() + this.options.latency);
  }

  /** schedulePass: a pass at `at`, unless one is already due by then. */
  private schedulePass(at: number): void {
    if (this.pending && this.pending.at <= at) return;
    if (this.pending) this.queue.cancel(this.pending.handle);
    this.pending = { at, handle: this.queue.schedule(at, Phase.Reconcile, (passAt) => this.runPass(passAt)) };
  }

  /** deliver: a change's event arrives after each of its delays; a dropped one is recovered by a resync pass. */
  private deliver(delivery: EventDelivery, change: ClusterChange, changedAt: number): void {
    const delays = delivery.delays(change, changedAt);
    if (delays.length === 0) {
      this.queue.schedule(changedAt + delivery.resyncAfterMs, Phase.Reconcile, (at) => this.arrive({ change: undefined, changedAt, deliveredAt: at }));
    }
    for (const delay of delays) this.queue.schedule(changedAt + delay, Phase.Reconcile, (at) => this.arrive({ change, changedAt, deliveredAt: at }));
  }

  private arrive(event: DeliveredEvent): void {
    this.inbox.push(event);
    this.schedulePass(event.deliveredAt);
  }

  /** runPass: observe, plan, apply; a refused action ends the pass and retries it after a backoff. */
  private runPass(at: number): void {
    const { namespace, name } = this;
    this.pending = undefined;
    const delivered = this.inbox;
    this.inbox = [];
    this.passes += 1;
    this.instant = this.instant.at === at ? { at, passes: this.instant.passes + 1 } : { at, passes: 1 };
    const observed = this.cluster.observe(namespace, name, at);
    if (!observed) return;
    const decided = this.planner(observed, this.options.planOptions, delivered);
    if (this.instant.passes > MAX_PASSES_PER_INSTANT) {
      throw new SimulationDivergedError(
        `jobset ${namespace}/${name} did not settle: more than ${MAX_PASSES_PER_INSTANT} reconcile passes at ${at}ms (last: ${decided.reason})`,
      );
    }
    this.startupForm = decided.startup?.form ?? this.startupForm;
    const carriedOut: ActionKind[] = [];
    this.passLog.push({ at, reason: decided.reason, actions: carriedOut });
    if (!this.applyActions(decided, at, carriedOut)) {
      this.schedulePass(at + this.backoff);
      this.backoff = Math.min(this.backoff * 2, MAX_RETRY_BACKOFF_MS);
      return;
    }
    this.backoff = RETRY_BACKOFF_MS;
    if (decided.requeueAfterMs !== undefined) this.schedulePass(at + Math.max(0, decided.requeueAfterMs));
  }

  /** applyActions: the plan's actions in order, counted; false when the API server refused one (recorded in errors). */
  private applyActions(decided: Plan, at: number, carriedOut: ActionKind[]): boolean {
    for (const action of decided.actions) {
      const writesBefore = this.cluster.writes();
      try {
        this.cluster.apply(this.namespace, this.name, action, at);
      } catch (error) {
        // Only refusals the API server gives are part of the simulated world; anything else is a bug.
        if (!(error instanceof LineupError)) throw error;
        this.controllerWrites += this.cluster.writes() - writesBefore;
        this.errors.push({ at, action: action.kind, code: error.code, message: error.message });
        return false;
      }
      this.controllerWrites += this.cluster.writes() - writesBefore;
      this.actions.set(action.kind, (this.actions.get(action.kind) ?? 0) + 1);
      carriedOut.push(action.kind);
    }
    return true;
  }

  /**
   * runUntil: every event up to `stopAt`; when it happened the last event run, or `stopAt` when
   * events were left (cut off). Run by hand rather than queue.runUntil so a quiescent run reports
   * when its last event happened.
   */
  runUntil(stopAt: number): { endedAt: number; cutOff: boolean } {
    let endedAt = 0;
    for (let next = this.queue.peekTime(); next !== undefined && next <= stopAt; next = this.queue.peekTime()) {
      this.queue.runNext();
      endedAt = next;
    }
    const cutOff = this.queue.size() > 0;
    return { endedAt: cutOff ? stopAt : endedAt, cutOff };
  }

  /** result: the timeline, the JobSet's final status and the controller's work. */
  result(end: { endedAt: number; cutOff: boolean }, bounded: boolean): SimulationResult {
    const { namespace, name } = this;
    const finalJobSet = this.cluster.getJobSet(namespace, name);
    const status = (finalJobSet ?? this.lastJobSet)?.status;
    const counted = [...this.actions.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      jobSet: `${namespace}/${name}`,
      timeline: [...this.cluster.timeline(namespace, name)],
      final: {
        conditions: status?.conditions ?? [],
        replicatedJobsStatus: status?.replicatedJobsStatus ?? [],
        restarts: status?.restarts ?? 0,
        terminalState: terminalStateOf(finalJobSet ?? this.lastJobSet),
      },
      counters: { passes: this.passes, writes: this.controllerWrites, actions: Object.fromEntries(counted), errors: this.errors.length },
      passes: this.passLog,
      errors: this.errors,
      endedAt: end.endedAt,
      stoppedBy: end.cutOff ? (bounded ? 'until' : 'limit') : finalJobSet ? 'quiescent' : 'deleted',
      startupForm: this.startupForm,
    };
  }
}

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
  const run = new SimulationRun(jobSet, behaviour, options);
  run.start(jobSet);
  const bounded = Number.isFinite(options.until);
  return run.result(run.runUntil(bounded ? options.until : UNTIL_NEVER_LIMIT_MS), bounded);
};
