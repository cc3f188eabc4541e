/**
 * The `summary` of `npm run bench -- --json`: the headline figures in one shape that stays the
 * same from run to run (docs/benchmarks.md). Every key is always present; a figure that was not
 * measured (its benchmark skipped with --skip-pipeline or --skip-cold-start, a stage no JobSet
 * got through, a ratio without a denominator) is null. Built from the benchmarks' own figures,
 * with nothing measured here.
 */
import type { ColdStartFigures } from './coldStart.ts';
import type { CostFigures } from './cost.ts';
import type { PhaseFigures, PipelineFigures, StageFigure } from './pipeline/figures.ts';

/** STORY_STAGES: the stages of KEP-104 story 2, in order (messagequeue, driver, worker): the length of every per-stage list. */
export const STORY_STAGES = 3;
/** SUMMARY_FUNCTIONS: the Lambda functions whose bundles and imports the summary names. */
export const SUMMARY_FUNCTIONS = ['reconciler', 'resync', 'forwarder'] as const;

/** Figure: a number, or null when it was not measured. */
export type Figure = number | null;
/** PerStage: one figure per stage of the story, in order. */
export type PerStage = readonly Figure[];
/** PerFunction: one figure per Lambda function. */
export type PerFunction = Readonly<Record<(typeof SUMMARY_FUNCTIONS)[number], Figure>>;

/** StageLatencySummary: each stage's latency — one JobSet at a time (medians), and the burst's p50 and p99. */
export interface StageLatencySummary {
  readonly solo: PerStage;
  readonly burstP50: PerStage;
  readonly burstP99: PerStage;
}

/** BenchSummary: the summary's shape; fields are only ever added. */
export interface BenchSummary {
  readonly lineup: {
    readonly eventsPerStartup: Figure;
    readonly passesPerStartup: Figure;
    readonly apiReadsPerStartup: Figure;
    readonly apiWritesPerStartup: Figure;
    readonly dynamoRequestsPerStartup: Figure;
    readonly dynamoWriteUnitsPerStartup: Figure;
    readonly stageLatencyMs: StageLatencySummary;
    /** Lineup's own share of each stage, event received → writes done, one JobSet at a time (medians). */
    readonly ownShareMs: PerStage;
  };
  readonly upstream: {
    readonly apiReadsPerStartup: Figure;
    readonly apiWritesPerStartup: Figure;
    readonly stageLatencyMs: StageLatencySummary;
  };
  readonly bundleZippedKiB: PerFunction;
  readonly importMs: PerFunction;
  readonly costPer1000Startups: { readonly marginal: Figure; readonly allIn: Figure };
  readonly statusDifferences: { readonly pairs: Figure; readonly undocumented: Figure };
}

/** SummaryInputs: the figures of one `npm run bench`; undefined for a benchmark that was skipped. */
export interface SummaryInputs {
  readonly pipeline: PipelineFigures | undefined;
  readonly coldStart: ColdStartFigures | undefined;
  readonly cost: CostFigures | undefined;
}

/** figure: a finite number rounded to `digits`, else null. */
const figure = (value: number | undefined, digits = 2): Figure => (value === undefined || !Number.isFinite(value) ? null : Math.round(value * 10 ** digits) / 10 ** digits);

/** perStage: `pick` of each stage, STORY_STAGES long (null where the phase has no such stage). */
const perStage = <T>(items: readonly T[] | undefined, pick: (item: T) => number): PerStage =>
  Array.from({ length: STORY_STAGES }, (_, index) => {
    const item = items?.[index];
    return item === undefined ? null : figure(pick(item), 1);
  });

/** stageLatency: a controller's stages in both phases. */
const stageLatency = (solo: readonly StageFigure[] | undefined, burst: readonly StageFigure[] | undefined): StageLatencySummary => ({
  solo: perStage(solo, (stage) => stage.p50Ms),
  burstP50: perStage(burst, (stage) => stage.p50Ms),
  burstP99: perStage(burst, (stage) => stage.p99Ms),
});

/** perFunction: `pick` of each function's cold-start figure (null when absent). */
const perFunction = (coldStart: ColdStartFigures | undefined, pick: (fn: ColdStartFigures['functions'][number]) => number, digits: number): PerFunction => {
  const of = (name: string): Figure => {
    const fn = coldStart?.functions.find((candidate) => candidate.function === name);
    return fn === undefined ? null : figure(pick(fn), digits);
  };
  return { reconciler: of('reconciler'), resync: of('resync'), forwarder: of('forwarder') };
};

/**
 * buildSummary: the summary of one run. Per-startup counts are the burst's (N JobSets at once,
 * the figures the cost model prices); stage latency is given for both phases; Lineup's own share
 * is one JobSet at a time, where no queue adds to it.
 */
export const buildSummary = ({ pipeline, coldStart, cost }: SummaryInputs): BenchSummary => {
  const solo: PhaseFigures | undefined = pipeline?.solo;
  const burst: PhaseFigures | undefined = pipeline?.burst;
  return {
    lineup: {
      eventsPerStartup: figure(burst?.lineup.eventsPerStartup),
      passesPerStartup: figure(burst?.lineup.passesPerStartup),
      apiReadsPerStartup: figure(burst?.lineup.api.readsPerStartup),
      apiWritesPerStartup: figure(burst?.lineup.api.writesPerStartup),
      dynamoRequestsPerStartup: figure(burst?.lineup.dynamoPerStartup),
      dynamoWriteUnitsPerStartup: figure(burst?.lineup.dynamoWriteUnitsPerStartup),
      stageLatencyMs: stageLatency(solo?.lineup.stages, burst?.lineup.stages),
      ownShareMs: perStage(solo?.lineup.segments, (segment) => segment.ownShareP50Ms),
    },
    upstream: {
      apiReadsPerStartup: figure(burst?.upstream.api.readsPerStartup),
      apiWritesPerStartup: figure(burst?.upstream.api.writesPerStartup),
      stageLatencyMs: stageLatency(solo?.upstream.stages, burst?.upstream.stages),
    },
    bundleZippedKiB: perFunction(coldStart, (fn) => fn.zippedBytes / 1024, 0),
    importMs: perFunction(coldStart, (fn) => fn.importP50Ms, 1),
    costPer1000Startups: { marginal: figure(cost?.marginalPer1000Startups, 4), allIn: figure(cost?.lineupPer1000Startups, 4) },
    statusDifferences: {
      pairs: pipeline === undefined ? null : pipeline.statusPairsCompared,
      undocumented: pipeline === undefined ? null : pipeline.statusDifferences.filter((difference) => difference.verdict.kind === 'not documented').length,
    },
  };
};
