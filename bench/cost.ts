/**
 * Benchmark: what the measured pipeline costs — the per-startup counts bench/pipeline.ts wrote
 * (N story-2 JobSets at once on a real kube-apiserver) fed into the cost model
 * (infra/cost/costModel.ts, us-east-1 list prices), per 1,000 startups and per month for a fleet
 * of FLEET.clusters clusters with FLEET.startupsPerDay startups a day across the fleet (as
 * infra/cost/report.ts counts them), beside the upstream controller's reserved 500m CPU and
 * 128 Mi in every cluster. Makes no assertions.
 *
 * `node bench/cost.ts [--counts FILE]` runs it alone (`node infra/cost/report.ts --counts FILE`
 * prints the same table).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CountsFileSchema, UPSTREAM_POD, costReport, podMonthly, startupWork, type CostReport } from '../infra/cost/costModel.ts';
import { DEFAULT_CLUSTERS, DEFAULT_COUNTS_FILE, DEFAULT_STARTUPS_PER_DAY, renderTable } from '../infra/cost/report.ts';
import { DEFAULT_COUNTS_OUT } from './pipeline.ts';

/** FLEET: the issue's fleet — 50 clusters, 1,000 startups a day across them (report.ts's defaults). */
export const FLEET = { clusters: DEFAULT_CLUSTERS, startupsPerDay: DEFAULT_STARTUPS_PER_DAY } as const;

/** CostLineFigure: one priced item per 1,000 startups. */
export interface CostLineFigure {
  readonly item: string;
  readonly per1000Startups: number;
}

/** CostFigures: the comparison, and where the counts came from. */
export interface CostFigures {
  readonly countsFile: string;
  /** Why the pipeline's own counts were not used, when they were not. */
  readonly fallback: string | undefined;
  readonly clusters: number;
  readonly startupsPerDay: number;
  readonly startupsPerMonth: number;
  readonly perStartup: CostReport['work'];
  /** The lines that grow with startups, per 1,000 (the marginal cost of a startup). */
  readonly marginalPer1000Startups: number;
  /** Everything Lineup costs the fleet, fixed lines included, per 1,000 startups. */
  readonly lineupPer1000Startups: number;
  readonly lineupMonthly: number;
  readonly upstreamMonthly: number;
  readonly upstreamPer1000Startups: number;
  readonly upstreamPerClusterMonthly: number;
  /** The largest lines that grow with startups, per 1,000 startups, largest first. */
  readonly largestPerStartup: readonly CostLineFigure[];
  /** infra/cost/report.ts's table for the same report. */
  readonly table: string;
}

/** runCostBench: price the counts in `countsFile` (bench/pipeline.ts's, or the committed demo counts when that file is missing). */
export const runCostBench = (countsFile: string = DEFAULT_COUNTS_OUT): CostFigures => {
  const fallback = existsSync(countsFile) ? undefined : `${countsFile} does not exist (the pipeline benchmark did not run): the committed demo counts are priced instead`;
  const file = fallback === undefined ? countsFile : DEFAULT_COUNTS_FILE;
  const counts = CountsFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const report = costReport({ clusters: FLEET.clusters, startupsPerDay: FLEET.startupsPerDay }, startupWork(counts));
  const per1000 = (monthly: number): number => (monthly / report.startupsPerMonth) * 1000;
  const growing = report.lineup.filter((line) => line.kind === 'startup');
  return {
    countsFile: file,
    fallback,
    clusters: report.fleet.clusters,
    startupsPerDay: report.fleet.startupsPerDay,
    startupsPerMonth: Math.round(report.startupsPerMonth),
    perStartup: report.work,
    marginalPer1000Startups: per1000(growing.reduce((sum, line) => sum + line.monthly, 0)),
    lineupPer1000Startups: report.lineupPer1000Startups,
    lineupMonthly: report.lineupMonthly,
    upstreamMonthly: report.upstreamMonthly,
    upstreamPer1000Startups: report.upstreamPer1000Startups,
    upstreamPerClusterMonthly: podMonthly(UPSTREAM_POD.cpuMillis, UPSTREAM_POD.memoryMiB),
    largestPerStartup: [...growing]
      .sort((a, b) => b.monthly - a.monthly)
      .slice(0, 3)
      .map((line) => ({ item: line.item, per1000Startups: per1000(line.monthly) })),
    table: renderTable(report, file, counts),
  };
};

const round2 = (value: number): number => Math.round(value * 100) / 100;
const dollars = (value: number, digits = 2): string => `$${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;

/** renderCostFigures: the figures as text lines, then report.ts's table. */
export const renderCostFigures = (f: CostFigures): string[] => [
  ...(f.fallback === undefined ? [] : [`cost: ${f.fallback}`]),
  `cost (${f.countsFile}): per startup ${f.perStartup.events} events, ${f.perStartup.reconcilerInvocations} reconciler invocations, ${round2(f.perStartup.kubeRequests)} Kubernetes requests, ${round2(f.perStartup.dynamoRequests)} DynamoDB requests`,
  `cost per 1,000 startups: Lineup ${dollars(f.marginalPer1000Startups, 4)} marginal (the lines that grow with startups), ${dollars(f.lineupPer1000Startups, 4)} all-in for the fleet below; upstream ${dollars(f.upstreamPer1000Startups, 4)}`,
  `cost per month, ${f.clusters} clusters, ${f.startupsPerDay.toLocaleString('en-US')} startups a day: Lineup ${dollars(f.lineupMonthly)}, upstream ${dollars(f.upstreamMonthly)} (${dollars(f.upstreamPerClusterMonthly)} per cluster for ${UPSTREAM_POD.cpuMillis}m CPU + ${UPSTREAM_POD.memoryMiB} Mi at Fargate arm64 rates)`,
  `cost: largest per startup: ${f.largestPerStartup.map((line) => `${line.item} ${dollars(line.per1000Startups, 4)}`).join('; ')} (per 1,000 startups)`,
  ...f.table.trimEnd().split('\n'),
];

if (import.meta.main) {
  const { values } = parseArgs({ options: { counts: { type: 'string', default: DEFAULT_COUNTS_OUT } } });
  console.log(renderCostFigures(runCostBench(values.counts)).join('\n'));
}
