/**
 * `node infra/cost/report.ts [--clusters 50] [--startups-per-day 1000] [--counts FILE] [--forwarder pod|lambda] [--json]`
 *
 * Prints what Lineup costs a month and per 1,000 JobSet startups at list prices
 * (infra/cost/costModel.ts), from the operation counts in FILE (default: the story 2 counts
 * infra/cost/measure.ts wrote), beside the upstream controller as a pod in every cluster.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CountsFileSchema, DAYS_PER_MONTH, UPSTREAM_POD, costReport, startupWork } from './costModel.ts';
import type { CostReport, ForwarderHost } from './costModel.ts';

/** round2: a count per startup as people read it (sums of averages carry float noise). */
const round2 = (value: number): number => Math.round(value * 100) / 100;

/** DEFAULT_COUNTS_FILE: the committed story 2 counts (re-measure with `node infra/cost/measure.ts`; the report prints their date and command). */
export const DEFAULT_COUNTS_FILE = fileURLToPath(new URL('story2-counts.json', import.meta.url));
/** DEFAULT_CLUSTERS and DEFAULT_STARTUPS_PER_DAY: the fleet the issue asks about. */
export const DEFAULT_CLUSTERS = 50;
export const DEFAULT_STARTUPS_PER_DAY = 1000;

const dollars = (value: number, digits = 2): string => `$${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;

/** CountsOrigin: when and how the priced counts were measured (a counts file's producedAt and producedBy). */
export interface CountsOrigin {
  readonly producedAt: string;
  readonly producedBy: string;
}

/** renderTable: the report as text; `origin` says beside the price when and by which command the counts were measured. */
export const renderTable = (report: CostReport, countsFile: string, origin?: CountsOrigin): string => {
  const per1000 = (monthly: number): string => dollars((monthly / report.startupsPerMonth) * 1000, 4);
  const upstreamLabel = `upstream: ${report.fleet.clusters} controller pods × ${UPSTREAM_POD.cpuMillis}m CPU + ${UPSTREAM_POD.memoryMiB} Mi (Fargate arm64 rates)`;
  const width = Math.max(...report.lineup.map((line) => line.item.length + 2), upstreamLabel.length) + 2;
  const row = (item: string, monthly: string, per: string): string => `  ${item.padEnd(width)}${monthly.padStart(12)}${per.padStart(20)}`;
  const work = report.work;
  const lines = [
    `Lineup cost model: us-east-1 list prices (2025), free tiers ignored, ${report.fleet.forwarder === 'pod' ? 'in-cluster forwarder pods' : 'Lambda forwarders'}`,
    `fleet: ${report.fleet.clusters} clusters, ${report.fleet.startupsPerDay.toLocaleString('en-US')} JobSet startups a day (${Math.round(report.startupsPerMonth).toLocaleString('en-US')} a month of ${DAYS_PER_MONTH.toFixed(2)} days)`,
    `per startup (${countsFile}): ${round2(work.events)} events, ${round2(work.reconcilerInvocations)} reconciler invocations, ${round2(work.kubeRequests)} Kubernetes requests, ` +
      `${round2(work.dynamoRequests)} DynamoDB requests (${work.dynamoWriteUnits.toFixed(1)} WRU, ${work.dynamoReadUnits.toFixed(1)} RRU)`,
    ...(origin === undefined ? [] : [`counts measured on ${origin.producedAt} by: ${origin.producedBy}`]),
    '',
    row('', 'per month', 'per 1,000 startups'),
    ...['startup', 'fixed'].flatMap((kind) => [
      `  ${kind === 'startup' ? 'grows with startups' : 'fixed for the fleet'}`,
      ...report.lineup.filter((line) => line.kind === kind).map((line) => row(`  ${line.item}`, dollars(line.monthly), per1000(line.monthly))),
    ]),
    row('Lineup total', dollars(report.lineupMonthly), dollars(report.lineupPer1000Startups, 4)),
    row(upstreamLabel, dollars(report.upstreamMonthly), dollars(report.upstreamPer1000Startups, 4)),
    '',
  ];
  return lines.join('\n');
};

/** main: parse flags, price, print; returns the exit code. */
export const main = (argv: readonly string[]): number => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      clusters: { type: 'string', default: String(DEFAULT_CLUSTERS) },
      'startups-per-day': { type: 'string', default: String(DEFAULT_STARTUPS_PER_DAY) },
      counts: { type: 'string', default: DEFAULT_COUNTS_FILE },
      forwarder: { type: 'string', default: 'pod' },
      json: { type: 'boolean', default: false },
    },
  });
  const clusters = Number(values.clusters);
  const startupsPerDay = Number(values['startups-per-day']);
  const forwarder = values.forwarder;
  if (!Number.isInteger(clusters) || clusters < 1 || !(startupsPerDay > 0) || (forwarder !== 'pod' && forwarder !== 'lambda')) {
    process.stderr.write(`lineup cost: expected --clusters ≥ 1, --startups-per-day > 0 and --forwarder pod|lambda, got ${values.clusters}, ${values['startups-per-day']}, ${forwarder}\n`);
    return 2;
  }
  const counts = CountsFileSchema.parse(JSON.parse(readFileSync(values.counts, 'utf8')));
  const report = costReport({ clusters, startupsPerDay, forwarder: forwarder as ForwarderHost }, startupWork(counts));
  process.stdout.write(values.json ? `${JSON.stringify({ counts: values.counts, ...report }, null, 2)}\n` : renderTable(report, values.counts, counts));
  return 0;
};

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
