/**
 * Comparing two runs of the same scenarios, JobSet by JobSet: the order in which replicatedJobs
 * started and the final status. Pure. The final-status comparison is the pipeline benchmark's
 * (bench/pipeline/statusComparison.ts), whose verdicts name the README rows; an order difference
 * or a TTL deletion on one side only has no verdict but "not documented".
 */
import { compareStatuses } from '../../bench/pipeline/statusComparison.ts';
import type { StatusDifference } from '../../bench/pipeline/figures.ts';
import type { JsonObject } from './generate.ts';

/**
 * STAGE_GAP_MS: starts closer together than this are one stage. Gated stages start at least a
 * Pod's ready time (POD_READY_AFTER_MS, 1.5 s) apart; one pass starting several replicatedJobs
 * spreads them over milliseconds, on a loaded machine a few hundred.
 */
export const STAGE_GAP_MS = 700;

/** RunRecord: what one controller did with one JobSet. */
export interface RunRecord {
  /** When each replicatedJob's first Job first ran (un-suspended), in milliseconds on one clock. */
  readonly starts: Readonly<Record<string, number>>;
  /** The JobSet as last seen (its status is compared); undefined when never seen. */
  readonly final: JsonObject | undefined;
  /** The JobSet was deleted (its TTL). */
  readonly deleted: boolean;
}

/**
 * startOrder: the replicatedJobs in the order they started, a stage per group of starts less
 * than `gapMs` apart, names sorted within a stage: "mq | driver | workers", "leader tail workers".
 * Replicated jobs that never started are left out.
 */
export const startOrder = (starts: Readonly<Record<string, number>>, gapMs: number = STAGE_GAP_MS): string => {
  const sorted = Object.entries(starts).sort(([a, x], [b, y]) => x - y || a.localeCompare(b));
  const stages: string[][] = [];
  let previous = Number.NEGATIVE_INFINITY;
  for (const [name, at] of sorted) {
    if (at - previous >= gapMs || stages.length === 0) stages.push([name]);
    else stages.at(-1)?.push(name);
    previous = at;
  }
  return stages.map((stage) => stage.sort().join(' ')).join(' | ');
};

/** Difference: one way the two runs differ, grouped over the JobSets that show it (StatusDifference, also for order and deletion). */
export type Difference = StatusDifference;

/** groupBy: differences of one field and values, over the JobSets that show them. */
const grouped = (rows: readonly { name: string; field: string; a: string; b: string }[]): Difference[] => {
  const groups = new Map<string, { field: string; a: string; b: string; names: string[] }>();
  for (const row of rows) {
    const key = JSON.stringify([row.field, row.a, row.b]);
    const group = groups.get(key) ?? { field: row.field, a: row.a, b: row.b, names: [] };
    group.names.push(row.name);
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => ({ field: g.field, lineup: g.a, upstream: g.b, jobSets: g.names.length, examples: g.names.sort().slice(0, 3), verdict: { kind: 'not documented' } }));
};

/**
 * compareRuns: every difference between `ours` (Lineup) and `theirs` (the reference: upstream,
 * or the real pipeline for the simulator), per JobSet name present in either: start order,
 * deletion, then the final status (compareStatuses, with its verdicts).
 */
export const compareRuns = (ours: ReadonlyMap<string, RunRecord>, theirs: ReadonlyMap<string, RunRecord>, gapMs: number = STAGE_GAP_MS): Difference[] => {
  const rows: { name: string; field: string; a: string; b: string }[] = [];
  const names = [...new Set([...ours.keys(), ...theirs.keys()])].sort();
  for (const name of names) {
    const a = ours.get(name);
    const b = theirs.get(name);
    const orderA = a === undefined ? '(not run)' : startOrder(a.starts, gapMs);
    const orderB = b === undefined ? '(not run)' : startOrder(b.starts, gapMs);
    if (orderA !== orderB) rows.push({ name, field: 'start order', a: orderA, b: orderB });
    if ((a?.deleted ?? false) !== (b?.deleted ?? false)) rows.push({ name, field: 'deleted (TTL)', a: String(a?.deleted ?? false), b: String(b?.deleted ?? false) });
  }
  const finals = (runs: ReadonlyMap<string, RunRecord>): Map<string, JsonObject> =>
    new Map(names.map((name) => [name, runs.get(name)?.final ?? {}]));
  return [...grouped(rows), ...compareStatuses(finals(ours), finals(theirs))];
};

/** undocumented: the differences no README row or timing effect explains. */
export const undocumented = (differences: readonly Difference[]): Difference[] => differences.filter((d) => d.verdict.kind === 'not documented');

/** differenceTable: a Markdown table of the differences (field, Lineup, reference, JobSets, verdict). */
export const differenceTable = (differences: readonly Difference[], reference = 'upstream'): string[] => [
  `| field | Lineup | ${reference} | JobSets | verdict |`,
  '|---|---|---|---|---|',
  ...differences.map(
    (d) =>
      `| ${d.field} | ${d.lineup.replaceAll('|', '\\|')} | ${d.upstream.replaceAll('|', '\\|')} | ${d.jobSets} (${d.examples.join(', ')}) | ${d.verdict.kind}${d.verdict.kind === 'not documented' ? '' : `: ${d.verdict.why}`} |`,
  ),
];
