/**
 * Comparing two runs of the same scenarios, JobSet by JobSet: the order in which replicatedJobs
 * started and the final status. Pure. The final-status comparison is the pipeline benchmark's
 * (bench/pipeline/statusComparison.ts), whose verdicts name the deviations table's rows (docs/conformance.md); an order difference
 * or a TTL deletion on one side only has no verdict but "not documented".
 */
import { compareStatuses, type Judge } from '../../bench/pipeline/statusComparison.ts';
import type { StatusDifference, Verdict } from '../../bench/pipeline/figures.ts';
import type { Evidence } from './evidence.ts';
import { POD_READY_AFTER_MS, type JsonObject } from './generate.ts';
import { judgeByEvidence } from './verdictChecks.ts';

/**
 * STAGE_GAP_MS: starts closer together than this are one stage. A gated replicatedJob starts only
 * once Pods of an earlier one are Ready, which takes POD_READY_AFTER_MS after their Job started
 * plus the Pod's creation and scheduling, so a real stage boundary is always a longer gap. Starts
 * of one stage are spread by the API server's latency: on the loaded 2-core test machine one
 * Lineup pass's parallel creates were seen to land more than 1.2 s apart.
 */
export const STAGE_GAP_MS = POD_READY_AFTER_MS;

/** RunRecord: what one controller did with one JobSet. */
export interface RunRecord {
  /**
   * When each replicatedJob's first Job first ran, in milliseconds on one clock: where the run
   * audits the API server, when it received the controller's request that made the Job run (a
   * create unsuspended, or the write that un-suspended it), else when a watch first saw it run.
   */
  readonly starts: Readonly<Record<string, number>>;
  /** The JobSet as last seen (its status is compared); undefined when never seen. */
  readonly final: JsonObject | undefined;
  /** The JobSet was deleted (its TTL). */
  readonly deleted: boolean;
  /** A user suspended and resumed the JobSet while it started. */
  readonly resumedByUser?: boolean;
  /** What the run recorded of it, for the checks behind each verdict (absent: the verdicts rest on rules). */
  readonly evidence?: Evidence;
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

/** Row: one JobSet's difference in one field, with its verdict and what it rests on. */
interface Row {
  readonly name: string;
  readonly field: string;
  readonly a: string;
  readonly b: string;
  readonly verdict: Verdict;
  readonly evidence?: readonly string[];
}

/** grouped: differences of one field, values and verdict, over the JobSets that show them. */
const grouped = (rows: readonly Row[]): Difference[] => {
  const groups = new Map<string, { row: Row; names: string[]; evidence: Record<string, readonly string[]> }>();
  for (const row of rows) {
    const key = JSON.stringify([row.field, row.a, row.b, row.verdict.kind]);
    const group = groups.get(key) ?? { row, names: [], evidence: {} };
    group.names.push(row.name);
    if (row.evidence !== undefined) group.evidence[row.name] = row.evidence;
    groups.set(key, group);
  }
  return [...groups.values()].map(({ row, names, evidence }) => ({
    field: row.field,
    lineup: row.a,
    upstream: row.b,
    jobSets: names.length,
    examples: names.sort().slice(0, 3),
    verdict: row.verdict,
    ...(Object.keys(evidence).length === 0 ? {} : { evidence }),
  }));
};

/** endOf: Completed or Failed, from status.terminalState or else the conditions; undefined while running or never seen. */
const endOf = (record: RunRecord | undefined): string | undefined => {
  const status = record?.final?.status as { terminalState?: unknown; conditions?: unknown } | undefined;
  if (typeof status?.terminalState === 'string') return status.terminalState;
  const conditions = Array.isArray(status?.conditions) ? (status.conditions as { type?: unknown; status?: unknown }[]) : [];
  return ['Completed', 'Failed'].find((type) => conditions.some((c) => c.type === type && c.status === 'True'));
};

/** isStagePrefix: the stages of `shorter` are the first stages of `longer`. */
const isStagePrefix = (shorter: string, longer: string): boolean => shorter !== longer && `${longer} | `.startsWith(`${shorter} | `);

/**
 * CUT_SHORT: the verdict on a start order that is a prefix of the other side's, in twins that
 * ended alike: the JobSet ended mid-startup (an earlier stage met its success policy or failed
 * it) and each controller started as many stages as its speed allowed before the end.
 */
export const CUT_SHORT: Verdict = {
  kind: 'timing',
  why: 'deviation "a JobSet that ends mid-startup starts no more stages" — same rule on both sides; the stages started before the end depend on each controller\'s speed',
};

/**
 * RESUMED_APART: the verdict on a Lineup start order that splits stages of the other side's into
 * consecutive stages, after a user's suspend and resume: Lineup resumes a Job created suspended
 * only once the Job controller has marked it Suspended, and a resume refused before that is
 * re-planned, so one stage's replicatedJobs can start passes apart.
 */
export const RESUMED_APART: Verdict = {
  kind: 'timing',
  why: 'deviation "a resume the API server refuses" — a resume refused (stale, or the Job not yet marked Suspended by the Job controller) is re-planned, so after a suspend and resume a stage may start over several passes',
};

/** stagesOf: an order's stages as sets of names. */
const stagesOf = (order: string): string[][] => (order === '' ? [] : order.split(' | ').map((stage) => stage.split(' ')));

/** isSplitOf: `finer` is `coarser` with some stages split into consecutive stages (the same names, in the same stage order). */
const isSplitOf = (finer: string, coarser: string): boolean => {
  const fine = stagesOf(finer);
  let index = 0;
  for (const stage of stagesOf(coarser)) {
    const wanted = new Set(stage);
    while (wanted.size > 0) {
      const next = fine[index];
      if (next === undefined || !next.every((name) => wanted.delete(name))) return false;
      index += 1;
    }
  }
  return index === fine.length && finer !== coarser;
};

/** orderVerdict: CUT_SHORT when one order is a stage prefix of the other and both ended alike; RESUMED_APART for Lineup's split stages after a resume; else not documented. */
const orderVerdict = (a: string, b: string, sameEnd: boolean, resumed: boolean): Verdict => {
  if (sameEnd && (isStagePrefix(a, b) || isStagePrefix(b, a))) return CUT_SHORT;
  if (resumed && isSplitOf(a, b)) return RESUMED_APART;
  return { kind: 'not documented' };
};

/**
 * compareRuns: every difference between `ours` (Lineup) and `theirs` (the reference: upstream,
 * or the real pipeline for the simulator), per JobSet name present in either: start order,
 * deletion, then the final status (compareStatuses, with its verdicts).
 */
export const compareRuns = (ours: ReadonlyMap<string, RunRecord>, theirs: ReadonlyMap<string, RunRecord>, gapMs: number = STAGE_GAP_MS): Difference[] => {
  const rows: Row[] = [];
  const names = [...new Set([...ours.keys(), ...theirs.keys()])].sort();
  for (const name of names) {
    const a = ours.get(name);
    const b = theirs.get(name);
    const orderA = a === undefined ? '(not run)' : startOrder(a.starts, gapMs);
    const orderB = b === undefined ? '(not run)' : startOrder(b.starts, gapMs);
    const sameEnd = endOf(a) !== undefined && endOf(a) === endOf(b);
    if (orderA !== orderB) {
      const verdict = orderVerdict(orderA, orderB, sameEnd, (a?.resumedByUser ?? false) || (b?.resumedByUser ?? false));
      const evidence = a?.evidence !== undefined && b?.evidence !== undefined ? [`Lineup ${startTimes(a.starts, a.evidence.createdAt)}`, `upstream ${startTimes(b.starts, b.evidence.createdAt)}`] : undefined;
      rows.push({ name, field: 'start order', a: orderA, b: orderB, verdict, ...(evidence === undefined ? {} : { evidence }) });
    }
    if ((a?.deleted ?? false) !== (b?.deleted ?? false)) {
      rows.push({ name, field: 'deleted (TTL)', a: String(a?.deleted ?? false), b: String(b?.deleted ?? false), verdict: { kind: 'not documented' } });
    }
  }
  const finals = (runs: ReadonlyMap<string, RunRecord>): Map<string, JsonObject> =>
    new Map(names.map((name) => [name, runs.get(name)?.final ?? {}]));
  const judge: Judge = (name, field, values, statusAlsoDiffers) => {
    const lineup = ours.get(name)?.evidence;
    const upstream = theirs.get(name)?.evidence;
    return lineup === undefined || upstream === undefined ? undefined : judgeByEvidence(field, values, { lineup, upstream }, statusAlsoDiffers);
  };
  return [...grouped(rows), ...compareStatuses(finals(ours), finals(theirs), judge)];
};

/** startTimes: "run requested: leader +0.31 s, workers +2.05 s" from a JobSet's creation. */
const startTimes = (starts: Readonly<Record<string, number>>, createdAt: number): string =>
  `run requested: ${Object.entries(starts)
    .sort(([, x], [, y]) => x - y)
    .map(([name, at]) => `${name} +${((at - createdAt) / 1000).toFixed(2)} s`)
    .join(', ')}`;

/** undocumented: the differences no deviation row or timing effect explains, and those whose recorded data contradict the explanation (not explained). */
export const undocumented = (differences: readonly Difference[]): Difference[] => differences.filter((d) => d.verdict.kind === 'not documented' || d.verdict.kind === 'not explained');

/** differenceTable: a Markdown table of the differences (field, Lineup, reference, JobSets, verdict). */
export const differenceTable = (differences: readonly Difference[], reference = 'upstream'): string[] => [
  `| field | Lineup | ${reference} | JobSets | verdict |`,
  '|---|---|---|---|---|',
  ...differences.map(
    (d) =>
      `| ${d.field} | ${d.lineup.replaceAll('|', '\\|')} | ${d.upstream.replaceAll('|', '\\|')} | ${d.jobSets} (${d.examples.join(', ')}) | ${d.verdict.kind}${d.verdict.kind === 'not documented' ? '' : `: ${d.verdict.why}`} |`,
  ),
];
