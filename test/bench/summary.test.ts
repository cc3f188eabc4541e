/**
 * The summary of `npm run bench -- --json` (bench/summary.ts): built from fixed figures, every
 * field is where docs/benchmarks.md says and holds the figure it names; a skipped benchmark leaves its
 * fields null, never absent. No benchmark runs here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ColdStartFigure, ColdStartFigures } from '../../bench/coldStart.ts';
import type { CostFigures } from '../../bench/cost.ts';
import type { ControllerFigures, LineupFigures, PhaseFigures, PipelineFigures, StageFigure, StatusDifference } from '../../bench/pipeline/figures.ts';
import { STORY_STAGES, buildSummary, type BenchSummary } from '../../bench/summary.ts';

const TRANSITIONS = ['JobSet created → messagequeue running', 'messagequeue ready → driver running', 'driver ready → worker running'];

/** stages: three StageFigures whose p50s and p99s are the given numbers. */
const stages = (p50s: readonly number[], p99s: readonly number[]): StageFigure[] =>
  TRANSITIONS.map((transition, index) => ({ transition, jobSets: 5, p50Ms: p50s[index] ?? Number.NaN, p99Ms: p99s[index] ?? Number.NaN }));

const api = (writesPerStartup: number, readsPerStartup: number): ControllerFigures['api'] => ({ writesPerStartup, readsPerStartup, writes: '', reads: '', failed: 'none' });

/** phase: a phase whose every figure is distinct, offset by `base`, so a field read from the wrong place shows. */
const phase = (base: number): PhaseFigures => {
  const lineup: LineupFigures = {
    jobSetsCompleted: 5,
    stages: stages([base + 1, base + 2, base + 3], [base + 4, base + 5, base + 6]),
    api: api(base + 7, base + 8),
    eventsPerStartup: base + 9,
    passesPerStartup: base + 10,
    invocationsPerStartup: base + 11,
    dynamoPerStartup: base + 12,
    dynamoByOperation: { PutItem: 1, UpdateItem: 2 },
    dynamoWriteUnitsPerStartup: base + 13,
    kubeCountersPerStartup: {},
    watchEventsPerStartup: 0,
    recordsFailed: 0,
    segments: TRANSITIONS.map((transition, index) => ({ transition, toBusP50Ms: 0, toPassP50Ms: 0, passP50Ms: 0, ownShareP50Ms: base + 14 + index })),
  };
  const upstream: ControllerFigures = { jobSetsCompleted: 5, stages: stages([base + 21, base + 22, base + 23], [base + 24, base + 25, base + 26]), api: api(base + 27, base + 28) };
  return { phase: `phase ${base}`, jobSets: 5, runMs: 1, lineup, upstream, ratios: {}, serverCalls: [] };
};

const difference = (kind: 'documented' | 'not documented'): StatusDifference => ({
  field: 'conditions[Suspended]',
  lineup: 'False',
  upstream: 'True',
  jobSets: 2,
  examples: [],
  verdict: kind === 'documented' ? { kind, why: 'deviation' } : { kind },
});

const PIPELINE: PipelineFigures = {
  upstreamVersion: 'v0.12.0',
  readyAfterMs: 200,
  completeAfterMs: 10_000,
  pollers: 10,
  ruleFrom: 'template',
  solo: phase(100),
  burst: phase(200),
  setupRequests: { lineup: '', upstream: '' },
  statusPairsCompared: 15,
  statusDifferences: [difference('documented'), difference('not documented'), difference('not documented')],
  jobWatchProblems: [],
  countsFile: 'counts.json',
  counts: { description: '', producedBy: '', producedAt: '', source: '', startupsPerRun: 10, counters: {}, dynamoCapacity: {} },
  wallMs: 1,
};

const coldStartFunction = (name: string, zippedBytes: number, importP50Ms: number): ColdStartFigure => ({
  function: name,
  logicalId: `${name}Function`,
  entry: `functions/${name}.ts`,
  memoryMb: 512,
  bundleBytes: 0,
  sourceMapBytes: 0,
  zippedBytes,
  nodeOptions: '',
  importP50Ms,
  importMinMs: 0,
  importMaxMs: 0,
  sinceStartP50Ms: 0,
  processWallP50Ms: 0,
  importCpuP50Ms: 0,
  importNoSourceMapsP50Ms: 0,
  lambdaInit: { unavailable: 'not measured in this test' },
});

const COLD_START: ColdStartFigures = {
  synthMs: 1,
  node: '24',
  rie: 'not built in this test',
  functions: [coldStartFunction('reconciler', 1_378 * 1024, 191.04), coldStartFunction('resync', 1_113 * 1024 + 100, 169), coldStartFunction('forwarder', 1_313 * 1024, 183.26)],
};

const COST: CostFigures = {
  countsFile: 'counts.json',
  fallback: undefined,
  clusters: 50,
  startupsPerDay: 1_000,
  startupsPerMonth: 30_000,
  perStartup: { events: 0, reconcilerInvocations: 0, kubeRequests: 0, dynamoRequests: 0, dynamoWriteUnits: 0, dynamoReadUnits: 0, storedBytes: 0 },
  marginalPer1000Startups: 0.456789,
  lineupPer1000Startups: 2.291234,
  lineupMonthly: 0,
  upstreamMonthly: 0,
  upstreamPer1000Startups: 0,
  upstreamPerClusterMonthly: 0,
  largestPerStartup: [],
  table: '',
};

describe('buildSummary', () => {
  it('takes every field from the figure docs/benchmarks.md names: counts from the burst, latency from both phases, own share one at a time', () => {
    const expected: BenchSummary = {
      lineup: {
        eventsPerStartup: 209,
        passesPerStartup: 210,
        apiReadsPerStartup: 208,
        apiWritesPerStartup: 207,
        dynamoRequestsPerStartup: 212,
        dynamoWriteUnitsPerStartup: 213,
        stageLatencyMs: { solo: [101, 102, 103], burstP50: [201, 202, 203], burstP99: [204, 205, 206] },
        ownShareMs: [114, 115, 116],
      },
      upstream: {
        apiReadsPerStartup: 228,
        apiWritesPerStartup: 227,
        stageLatencyMs: { solo: [121, 122, 123], burstP50: [221, 222, 223], burstP99: [224, 225, 226] },
      },
      bundleZippedKiB: { reconciler: 1_378, resync: 1_113, forwarder: 1_313 },
      importMs: { reconciler: 191, resync: 169, forwarder: 183.3 },
      costPer1000Startups: { marginal: 0.4568, allIn: 2.2912 },
      statusDifferences: { pairs: 15, undocumented: 2 },
    };
    assert.deepEqual(buildSummary({ pipeline: PIPELINE, coldStart: COLD_START, cost: COST }), expected);
  });

  it('keeps every key when benchmarks were skipped: their figures are null, each per-stage list still STORY_STAGES long', () => {
    const nulls = Array.from({ length: STORY_STAGES }, () => null);
    const latency = { solo: nulls, burstP50: nulls, burstP99: nulls };
    const expected: BenchSummary = {
      lineup: {
        eventsPerStartup: null,
        passesPerStartup: null,
        apiReadsPerStartup: null,
        apiWritesPerStartup: null,
        dynamoRequestsPerStartup: null,
        dynamoWriteUnitsPerStartup: null,
        stageLatencyMs: latency,
        ownShareMs: nulls,
      },
      upstream: { apiReadsPerStartup: null, apiWritesPerStartup: null, stageLatencyMs: latency },
      bundleZippedKiB: { reconciler: null, resync: null, forwarder: null },
      importMs: { reconciler: null, resync: null, forwarder: null },
      costPer1000Startups: { marginal: null, allIn: null },
      statusDifferences: { pairs: null, undocumented: null },
    };
    const summary = buildSummary({ pipeline: undefined, coldStart: undefined, cost: undefined });
    assert.deepEqual(summary, expected);
    // The JSON printed has the same keys, nulls included.
    assert.deepEqual(JSON.parse(JSON.stringify(summary)), expected);
  });

  it('writes null for a figure that is not a number: a stage no JobSet got through (NaN), a function the synthesis did not produce', () => {
    const burst = phase(200);
    const pipeline: PipelineFigures = {
      ...PIPELINE,
      burst: { ...burst, lineup: { ...burst.lineup, stages: stages([1, Number.NaN, 3], [4, 5, Number.NaN]) } },
    };
    const summary = buildSummary({ pipeline, coldStart: { ...COLD_START, functions: COLD_START.functions.filter((fn) => fn.function !== 'forwarder') }, cost: COST });
    assert.deepEqual(summary.lineup.stageLatencyMs.burstP50, [1, null, 3]);
    assert.deepEqual(summary.lineup.stageLatencyMs.burstP99, [4, 5, null]);
    assert.deepEqual(summary.bundleZippedKiB, { reconciler: 1_378, resync: 1_113, forwarder: null });
    assert.equal(summary.importMs.forwarder, null);
  });
});
