/**
 * Comparing Lineup and upstream JobSet under Kueue, JobSet by JobSet. Pure. On top of
 * compare.ts's start order and final status: the start order within each admission (a JobSet
 * Kueue evicts and admits again starts over), how the JobSet ended (Completed, Failed, or
 * suspended by Kueue), its Workload's conditions and its evictions. The Kueue table of docs/kueue.md is
 * `kueueTable` of a run (test/integration/kueue/differential.test.ts checks they agree). The
 * flavors whose node labels the Jobs carry are worked out by the test, which knows the flavors.
 */
import { compareRuns, startOrder, STAGE_GAP_MS, type Difference, type RunRecord } from './compare.ts';
import type { Verdict } from '../../bench/pipeline/figures.ts';
import type { JsonObject } from './generate.ts';
import { isObject } from '../../lib/json.ts';

/** StartEvent: a Job of `replicatedJob` began to run (created unsuspended, or un-suspended). */
export interface StartEvent {
  readonly replicatedJob: string;
  readonly at: number;
}

/** KueueRecord: what one controller did with one JobSet under Kueue. */
export interface KueueRecord extends RunRecord {
  /** Every time one of its Jobs began to run, oldest first. */
  readonly startEvents: readonly StartEvent[];
  /** When the JobSet, having run, was suspended again (Kueue evicting it), oldest first. */
  readonly suspendedAt: readonly number[];
  /** Its Workload as last seen; undefined when Kueue made none. */
  readonly workload: JsonObject | undefined;
  /** Which flavors' node labels its Jobs carry at the end ("flavor-a"; "mq: flavor-a+flavor-b; driver workers: flavor-b"). */
  readonly jobFlavors?: string;
}

const at = (value: unknown, ...path: string[]): unknown => path.reduce<unknown>((current, key) => (isObject(current) ? current[key] : undefined), value);
const listAt = (value: unknown, ...path: string[]): JsonObject[] => {
  const list = at(value, ...path);
  return Array.isArray(list) ? list.filter(isObject) : [];
};

/** ADMISSION_SEPARATOR: between the start orders of successive admissions. */
export const ADMISSION_SEPARATOR = ' ⟲ ';

/**
 * ordersByAdmission: the start order (compare.ts startOrder) of each stretch between the
 * JobSet's suspensions, joined by ADMISSION_SEPARATOR: "mq | driver | workers" for a JobSet
 * admitted once, "mq ⟲ mq | driver | workers" for one evicted during its first stage and
 * admitted again. A stretch that started nothing is "(none)"; a trailing one is left out.
 */
export const ordersByAdmission = (record: Pick<KueueRecord, 'startEvents' | 'suspendedAt'>, gapMs: number = STAGE_GAP_MS): string => {
  const bounds = [...record.suspendedAt, Number.POSITIVE_INFINITY];
  const stretches = bounds.map((end, index) => {
    const begin = index === 0 ? Number.NEGATIVE_INFINITY : (bounds[index - 1] ?? Number.NEGATIVE_INFINITY);
    const firsts: Record<string, number> = {};
    for (const event of record.startEvents) if (event.at >= begin && event.at < end) firsts[event.replicatedJob] ??= event.at;
    return startOrder(firsts, gapMs);
  });
  while (stretches.length > 1 && stretches.at(-1) === '') stretches.pop();
  return stretches.map((order) => (order === '' ? '(none)' : order)).join(ADMISSION_SEPARATOR);
};

/** endState: Completed or Failed (a True condition), else Suspended (spec.suspend), else Running; "(not seen)" without a JobSet. */
export const endState = (jobSet: JsonObject | undefined): string => {
  if (jobSet === undefined) return '(not seen)';
  const ended = ['Completed', 'Failed'].find((type) => listAt(jobSet, 'status', 'conditions').some((c) => c.type === type && c.status === 'True'));
  if (ended !== undefined) return ended;
  return at(jobSet, 'spec', 'suspend') === true ? 'Suspended' : 'Running';
};

/** workloadState: the Workload's True conditions, sorted, and "inactive" when Kueue deactivated it; "(none)" without a Workload. */
export const workloadState = (workload: JsonObject | undefined): string => {
  if (workload === undefined) return '(none)';
  const conditions = listAt(workload, 'status', 'conditions')
    .filter((c) => c.status === 'True')
    .map((c) => String(c.type))
    .sort();
  return [...conditions, ...(at(workload, 'spec', 'active') === false ? ['inactive'] : [])].join(' ') || '(no condition)';
};

/** evictionsOf: the Workload's evictions by reason ("PodsReadyTimeout ×2, Preempted/InClusterQueue ×1"), "none" without any. */
export const evictionsOf = (workload: JsonObject | undefined): string => {
  const evictions = listAt(workload, 'status', 'schedulingStats', 'evictions')
    .map((e) => `${String(e.reason)}${typeof e.underlyingCause === 'string' && e.underlyingCause !== '' ? `/${e.underlyingCause}` : ''} ×${String(e.count)}`)
    .sort();
  return evictions.length === 0 ? 'none' : evictions.join(', ');
};

/** KueueView: the four things the table shows of one controller's JobSet. */
interface KueueView {
  readonly order: string;
  readonly end: string;
  readonly workload: string;
  readonly evictions: string;
  readonly flavors: string;
}

/** KUEUE_FIELDS: the table's columns, in order, and their names in a difference. */
const KUEUE_FIELDS: readonly (readonly [keyof KueueView, string])[] = [
  ['order', 'start order, per admission'],
  ['end', 'end'],
  ['workload', 'Workload'],
  ['evictions', 'evictions'],
  ['flavors', "Jobs' node labels"],
];

const viewOf = (record: KueueRecord): KueueView => ({
  order: ordersByAdmission(record),
  end: endState(record.final),
  workload: workloadState(record.workload),
  evictions: evictionsOf(record.workload),
  flavors: record.jobFlavors ?? '-',
});

/**
 * STALE_FLAVOR_LABELS: the verdict when upstream's Jobs carry two flavors' node labels where
 * Lineup's carry one: upstream merges the admitted template's nodeSelector into a Job it resumes,
 * so a Job created under one admission keeps that flavor's labels after Kueue admits the JobSet
 * again on another; Lineup writes the admitted template's (lib/plan/resume.ts).
 */
export const STALE_FLAVOR_LABELS: Verdict = {
  kind: 'documented',
  why: 'deviation "a Job resumed after Kueue admits the JobSet again carries only that admission\'s node labels"',
};

/**
 * CREATED_AT_ONCE: the verdict when a JobSet Kueue stopped mid-startup has, on Lineup's side
 * only, Jobs of later stages — suspended, never resumed, so without any flavor's labels — where
 * upstream, which creates a dependsOn stage's Jobs only when its turn comes, has none.
 */
export const CREATED_AT_ONCE: Verdict = {
  kind: 'documented',
  why: 'deviation "gated Jobs are created only when their turn comes" — Lineup created the later stage\'s Jobs suspended at once; Kueue stopped the JobSet before their turn',
};

/** withoutUnlabelled: a flavors value without its "(none)" group ("init: flavor-a; workers: (none)" → "flavor-a"). */
const withoutUnlabelled = (flavors: string): string => {
  const groups = flavors.split('; ').filter((group) => !group.endsWith(': (none)'));
  return groups.length === 1 ? (groups[0] ?? '').replace(/^[^:]*: /, '') : groups.join('; ');
};

/** kueueVerdict: STALE_FLAVOR_LABELS or CREATED_AT_ONCE where they explain a difference in the Jobs' node labels, else not documented. */
const kueueVerdict = (key: keyof KueueView, ours: string, theirs: string): Verdict => {
  if (key !== 'flavors') return { kind: 'not documented' };
  if (!ours.includes('+') && theirs.includes('+')) return STALE_FLAVOR_LABELS;
  if (ours.includes(': (none)') && withoutUnlabelled(ours) === theirs) return CREATED_AT_ONCE;
  return { kind: 'not documented' };
};

/** SUSPENDED_COUNT: a replicatedJob's suspended counter in a difference's field name. */
const SUSPENDED_COUNT = /^replicatedJobsStatus\[[^\]]+\]\.suspended$/;

/** explainCreatedAtOnce: CREATED_AT_ONCE for a suspended count upstream has as 0, in a JobSet that did not finish, that compareRuns left unexplained. */
const explainCreatedAtOnce = (difference: Difference, ours: ReadonlyMap<string, KueueRecord>): Difference => {
  const unfinished = difference.examples.every((name) => ['Suspended', 'Running'].includes(endState(ours.get(name)?.final)));
  return difference.verdict.kind === 'not documented' && SUSPENDED_COUNT.test(difference.field) && difference.upstream === '0' && unfinished ? { ...difference, verdict: CREATED_AT_ONCE } : difference;
};

/**
 * compareKueueRuns: compare.ts compareRuns (first start order, TTL deletion, final status with
 * the deviation verdicts), then each JobSet's Kueue view field by field; a Kueue field that
 * differs is "not documented" but for STALE_FLAVOR_LABELS and CREATED_AT_ONCE, which also
 * explains a later stage's suspended count in a JobSet Kueue stopped mid-startup.
 */
export const compareKueueRuns = (ours: ReadonlyMap<string, KueueRecord>, theirs: ReadonlyMap<string, KueueRecord>): Difference[] => {
  const differences: Difference[] = compareRuns(ours, theirs).map((difference) => explainCreatedAtOnce(difference, ours));
  for (const name of [...new Set([...ours.keys(), ...theirs.keys()])].sort()) {
    const a = ours.get(name);
    const b = theirs.get(name);
    const viewA = a === undefined ? undefined : viewOf(a);
    const viewB = b === undefined ? undefined : viewOf(b);
    for (const [key, field] of KUEUE_FIELDS) {
      const valueA = viewA?.[key] ?? '(not run)';
      const valueB = viewB?.[key] ?? '(not run)';
      if (valueA !== valueB) differences.push({ field, lineup: valueA, upstream: valueB, jobSets: 1, examples: [name], verdict: kueueVerdict(key, valueA, valueB) });
    }
  }
  return differences;
};

/** KueueTableRow: one JobSet of one scenario, as each controller ran it. */
export interface KueueTableRow {
  readonly scenario: string;
  readonly jobSet: string;
  readonly lineup: KueueRecord;
  readonly upstream: KueueRecord;
}

const cell = (text: string): string => text.replaceAll('|', '\\|');

/**
 * kueueTable: a Markdown table, a row per JobSet: Lineup's start order per admission, end,
 * Workload conditions, evictions and its Jobs' node labels, and in the last column "same" when
 * upstream's are the same, else upstream's differing values.
 */
export const kueueTable = (rows: readonly KueueTableRow[]): string[] => [
  `| scenario | JobSet | ${KUEUE_FIELDS.map(([, field]) => field).join(' | ')} | upstream JobSet |`,
  `|---|---|${KUEUE_FIELDS.map(() => '---|').join('')}---|`,
  ...rows.map((row) => {
    const ours = viewOf(row.lineup);
    const theirs = viewOf(row.upstream);
    const differing = KUEUE_FIELDS.filter(([key]) => ours[key] !== theirs[key]).map(([key, field]) => `${field}: ${theirs[key]}`);
    return `| ${row.scenario} | ${row.jobSet} | ${KUEUE_FIELDS.map(([key]) => cell(ours[key])).join(' | ')} | ${differing.length === 0 ? 'same' : cell(differing.join('; '))} |`;
  }),
];
