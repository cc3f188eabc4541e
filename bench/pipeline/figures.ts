/**
 * The pipeline benchmark's figures: their shapes (what `npm run bench -- --json` prints under
 * `pipeline`) and the arithmetic that makes them.
 */
import type { CountsFile } from '../../infra/cost/costModel.ts';
import type { Controller } from './story.ts';

/** StageFigure: one stage transition's latency over the JobSets of one controller. */
export interface StageFigure {
  readonly transition: string;
  /** JobSets that made the transition (the others are left out of the percentiles). */
  readonly jobSets: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** ApiFigure: one controller's API requests per startup, from the audit log. */
export interface ApiFigure {
  readonly writesPerStartup: number;
  readonly readsPerStartup: number;
  /** "12 writes: 5 create jobs, …" for the whole phase. */
  readonly writes: string;
  readonly reads: string;
  /** Requests the API server refused (code ≥ 400), e.g. conflicts. */
  readonly failed: string;
}

/** ControllerFigures: what is measured for both controllers. */
export interface ControllerFigures {
  readonly jobSetsCompleted: number;
  readonly stages: readonly StageFigure[];
  readonly api: ApiFigure;
}

/** SegmentFigure: one transition of Lineup's cut into parts, medians over the JobSets. */
export interface SegmentFigure {
  readonly transition: string;
  /** The change on the bus: the forwarder's PutEvents that carried it returned. */
  readonly toBusP50Ms: number;
  /** From the bus to the start of the pass that started the next stage: moto's rule and queue, a poller's receive, the handler, noteEvent and the lease. */
  readonly toPassP50Ms: number;
  /** The pass: observe (reads), plan, and its writes up to the last Job running. */
  readonly passP50Ms: number;
  /**
   * Lineup's own share: from the reconciler receiving the event of the pass that ran the next
   * stage's last Job (the journal's receivedAt; a later pass of a lease loop keeps no event, so
   * from the start of that pass; never before the transition began) to the write that ran it:
   * the handler, lease, reads, plan and writes, without the watch, the bus and the queue.
   */
  readonly ownShareP50Ms: number;
}

/** LineupFigures: Lineup's own counts per startup besides. */
export interface LineupFigures extends ControllerFigures {
  readonly eventsPerStartup: number;
  readonly passesPerStartup: number;
  readonly invocationsPerStartup: number;
  /** DynamoDB requests per startup, counted by the SDK middleware. */
  readonly dynamoPerStartup: number;
  readonly dynamoByOperation: Readonly<Record<string, number>>;
  /** DynamoDB write capacity units per startup, as the server reported them (ReturnConsumedCapacity). */
  readonly dynamoWriteUnitsPerStartup: number;
  /** Lineup's own Kubernetes request counters per startup (k8s.get, …), to set beside the audit. */
  readonly kubeCountersPerStartup: Readonly<Record<string, number>>;
  /** Raw watch events per startup; includes the upstream namespace's Jobs, which the forwarder drops. */
  readonly watchEventsPerStartup: number;
  readonly recordsFailed: number;
  /** Where Lineup's stage latency goes. */
  readonly segments: readonly SegmentFigure[];
}

/** ServerCallFigure: one kind of call to a test server (moto, dynalite), its count and time. */
export interface ServerCallFigure {
  readonly operation: string;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** PhaseFigures: one phase — JobSets one at a time, or N at once. */
export interface PhaseFigures {
  readonly phase: string;
  readonly jobSets: number;
  readonly runMs: number;
  readonly lineup: LineupFigures;
  readonly upstream: ControllerFigures;
  /** Lineup/upstream per figure (NaN when upstream's is 0). */
  readonly ratios: Readonly<Record<string, number>>;
  /** The pipeline's calls to moto and dynalite: what the test servers add to Lineup's latency. */
  readonly serverCalls: readonly ServerCallFigure[];
}

/**
 * Verdict: why twins differ — a deviation row documents it, both controllers follow the same rule
 * and only timing differs, nothing explains it, or (where the run recorded what happened) the
 * recorded data contradict the explanation a rule would give: not explained, with `why`.
 */
export type Verdict =
  | { readonly kind: 'documented' | 'timing'; readonly why: string }
  | { readonly kind: 'not documented' }
  | { readonly kind: 'not explained'; readonly why: string };

/** StatusDifference: one difference between the final status of a Lineup JobSet and its upstream twin, and how many pairs show it. */
export interface StatusDifference {
  readonly field: string;
  readonly lineup: string;
  readonly upstream: string;
  readonly jobSets: number;
  readonly examples: readonly string[];
  readonly verdict: Verdict;
  /** Per JobSet showing it, what the recorded data say (absent where nothing was recorded: the verdict rests on a rule). */
  readonly evidence?: Readonly<Record<string, readonly string[]>>;
}

/** PipelineFigures: the whole benchmark. */
export interface PipelineFigures {
  readonly upstreamVersion: string;
  /** How long after it is scheduled a pod is Running and Ready (kwok). */
  readonly readyAfterMs: number;
  /** How long after it is Running a pod Succeeds (kwok). */
  readonly completeAfterMs: number;
  readonly pollers: number;
  readonly ruleFrom: string;
  /** SOLO_JOBSETS JobSets per controller, one after another: the latency without a queue. */
  readonly solo: PhaseFigures;
  /** N JobSets per controller at once: the scenario; its counts go to the cost model. */
  readonly burst: PhaseFigures;
  /** Each controller's requests before the first JobSet (informers' or the forwarder's list and watch, discovery): fixed, not per startup. */
  readonly setupRequests: Readonly<Record<Controller, string>>;
  /** Final status of every Lineup JobSet (both phases) beside its upstream twin. */
  readonly statusPairsCompared: number;
  readonly statusDifferences: readonly StatusDifference[];
  /** What went wrong with the bench's own Job watch (it listed again each time). */
  readonly jobWatchProblems: readonly string[];
  readonly countsFile: string;
  readonly counts: CountsFile;
  readonly wallMs: number;
}

export const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
/** ratio: a / b to two decimals; NaN when b is not positive (no meaningful ratio). */
export const ratio = (a: number, b: number): number => (b > 0 ? round(a / b, 2) : Number.NaN);
/** percentile: nearest rank of `p` in ascending `sorted`; NaN when empty. */
export const percentile = (sorted: readonly number[], p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
/** median: the 50th percentile of unsorted values, to 0.1. */
export const median = (values: readonly number[]): number => round(percentile([...values].sort((a, b) => a - b), 50));
