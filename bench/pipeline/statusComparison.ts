/**
 * The final status of each Lineup JobSet beside its upstream twin: every difference, grouped, with
 * its verdict — documented (a row of the deviations table, docs/conformance.md), timing (the same rule on both sides), or not documented.
 */
import { isObject, type JsonObject } from '../../lib/json.ts';
import { ConditionType } from '../../lib/jobset/api.ts';
import { COUNTERS_FINISHED_FIRST, FIRST_FAILED, STARTUP_DEPENDS_ON, STARTUP_MESSAGE, STARTUP_NEVER_READY } from '../../test/conformance/verdictChecks.ts';
import type { StatusDifference, Verdict } from './figures.ts';

/** StatusView: the parts of a JobSet's final status that are compared. */
type StatusView = Map<string, string>;

/** statusView: field → value — replicatedJobsStatus counters, each condition's status/reason and message, terminalState, restarts. */
const statusView = (jobSet: JsonObject | undefined): StatusView => {
  const view: StatusView = new Map();
  const status = isObject(jobSet?.status) ? jobSet.status : {};
  for (const rjob of Array.isArray(status.replicatedJobsStatus) ? status.replicatedJobsStatus.filter(isObject) : []) {
    for (const counter of ['ready', 'succeeded', 'failed', 'active', 'suspended']) view.set(`replicatedJobsStatus[${String(rjob.name)}].${counter}`, String(rjob[counter] ?? 0));
  }
  for (const condition of Array.isArray(status.conditions) ? status.conditions.filter(isObject) : []) {
    view.set(`conditions[${String(condition.type)}]`, `${String(condition.status)} ${String(condition.reason ?? '')}`);
    view.set(`conditions[${String(condition.type)}].message`, JSON.stringify(condition.message ?? ''));
  }
  for (const field of ['terminalState', 'restarts', 'restartsCountTowardsMax']) {
    if (status[field] !== undefined) view.set(field, String(status[field]));
  }
  return view;
};

/** PairContext: what is known about the pair a difference comes from. */
interface PairContext {
  /** The side finished (Completed or Failed) while its StartupPolicyCompleted was not True: its controller never saw the last stage ready before the end. */
  readonly lineupFinishedFirst: boolean;
  readonly upstreamFinishedFirst: boolean;
  /** The side's controller saw the last stage ready at some time: StartupPolicyCompleted is there (True, or False after a restart or failure re-opened the walk). */
  readonly lineupSawLastStage: boolean;
  readonly upstreamSawLastStage: boolean;
  /** Both sides ended in the same terminal state (Completed or Failed). */
  readonly sameEnd: boolean;
}

/** Values: the field's value on each side ('(absent)' when missing). */
export interface Values {
  readonly lineup: string;
  readonly upstream: string;
}

/** Explanation: a verdict and the differences it covers. */
interface Explanation {
  readonly verdict: Verdict;
  readonly explains: (field: string, context: PairContext, values: Values) => boolean;
}

/** STARTUP_CONDITIONS: the conditions the InOrder walk writes. */
const STARTUP_CONDITIONS = [ConditionType.StartupPolicyInProgress, ConditionType.StartupPolicyCompleted].map((type) => `conditions[${type}]`);

/** FIRST_FAILED_JOB: the part of upstream's Failed message naming the first failed Job (`<jobset>-<replicatedJob>-<index>`). */
const FIRST_FAILED_JOB = /\(first failed job: (.*)-\d+\)"$/;

/** sameButFirstFailedJob: two Failed messages that differ only in which Job of the same replicatedJob they name as the first to fail. */
const sameButFirstFailedJob = (values: Values): boolean => {
  const a = FIRST_FAILED_JOB.exec(values.lineup);
  const b = FIRST_FAILED_JOB.exec(values.upstream);
  return a !== null && b !== null && a[1] === b[1] && values.lineup.replace(FIRST_FAILED_JOB, '') === values.upstream.replace(FIRST_FAILED_JOB, '');
};

/**
 * EXPLANATIONS: the rows of "Where Lineup differs from upstream" (docs/conformance.md) a final-status difference
 * can come from, matched against the values alone, for runs that record nothing else (the
 * pipeline benchmark, the simulator and Kueue comparisons). Their verdicts are those of the
 * checks a differential run applies to its recorded data (test/conformance/verdictChecks.ts).
 * A difference none explains is reported as not documented.
 */
const EXPLANATIONS: readonly Explanation[] = [
  // First: upstream never writes the startup conditions for dependsOn, whatever the timing.
  {
    verdict: STARTUP_DEPENDS_ON,
    explains: (field, _context, values) => STARTUP_CONDITIONS.includes(field) && values.upstream === '(absent)' && /^(True|False) DependsOn/.test(values.lineup),
  },
  {
    verdict: STARTUP_NEVER_READY,
    explains: (field, context) =>
      (context.lineupFinishedFirst !== context.upstreamFinishedFirst || context.lineupSawLastStage !== context.upstreamSawLastStage) &&
      STARTUP_CONDITIONS.some((condition) => field.startsWith(condition)),
  },
  {
    verdict: COUNTERS_FINISHED_FIRST,
    explains: (field, context) => context.sameEnd && /^replicatedJobsStatus\[.*\]\.(succeeded|failed)$/.test(field),
  },
  {
    verdict: FIRST_FAILED,
    explains: (field, context, values) => context.sameEnd && field === `conditions[${ConditionType.Failed}].message` && sameButFirstFailedJob(values),
  },
  {
    verdict: STARTUP_MESSAGE,
    explains: (field) => STARTUP_CONDITIONS.some((condition) => field === `${condition}.message`),
  },
  {
    verdict: { kind: 'documented', why: 'deviation "InOrder keeps Suspended=True until the whole resume walk is done" → "Suspended turns False on resume"' },
    explains: (field) => field.startsWith(`conditions[${ConditionType.Suspended}]`),
  },
];

/** EXPLANATION_VERDICTS: every verdict a difference can get but "not documented" (the deviation rows they quote are checked to exist). */
export const EXPLANATION_VERDICTS: readonly Verdict[] = EXPLANATIONS.map((explanation) => explanation.verdict);

/** finishedFirst: Completed or Failed, but StartupPolicyCompleted not True (never written, or re-opened by a restart; see EXPLANATIONS). */
const finishedFirst = (view: StatusView): boolean =>
  [ConditionType.Completed, ConditionType.Failed].some((type) => view.get(`conditions[${type}]`)?.startsWith('True') === true) &&
  view.get(`conditions[${ConditionType.StartupPolicyCompleted}]`)?.startsWith('True') !== true;

/** endOf: Completed or Failed, from terminalState or else the conditions; undefined while running. */
const endOf = (view: StatusView): string | undefined =>
  view.get('terminalState') ??
  [ConditionType.Completed, ConditionType.Failed].find((type) => view.get(`conditions[${type}]`)?.startsWith('True') === true);

/** Judgement: a verdict that rests on recorded data, with those data (test/conformance/verdictChecks.ts). */
export interface Judgement {
  readonly verdict: Verdict;
  readonly evidence: readonly string[];
}

/**
 * Judge: the verdict on one pair's difference in one field from what the run recorded, or
 * undefined when nothing recorded covers it (the rule's verdict stands). `statusAlsoDiffers`:
 * for a condition's message, its status or reason differs too.
 */
export type Judge = (name: string, field: string, values: Values, statusAlsoDiffers: boolean) => Judgement | undefined;

/**
 * compareStatuses: every difference between twin JobSets' final status, grouped by field, values
 * and verdict. With `judge` (a run that recorded what happened), its verdict replaces the rule's
 * wherever it gives one; a grouped difference keeps each pair's evidence.
 */
export const compareStatuses = (lineup: ReadonlyMap<string, JsonObject>, upstream: ReadonlyMap<string, JsonObject>, judge?: Judge): StatusDifference[] => {
  const groups = new Map<string, { field: string; lineup: string; upstream: string; verdict: Verdict; names: string[]; evidence: Record<string, readonly string[]> }>();
  for (const [name, ours] of lineup) {
    const mine = statusView(ours);
    const theirs = statusView(upstream.get(name));
    const context: PairContext = {
      lineupFinishedFirst: finishedFirst(mine),
      upstreamFinishedFirst: finishedFirst(theirs),
      lineupSawLastStage: mine.has(`conditions[${ConditionType.StartupPolicyCompleted}]`),
      upstreamSawLastStage: theirs.has(`conditions[${ConditionType.StartupPolicyCompleted}]`),
      sameEnd: endOf(mine) !== undefined && endOf(mine) === endOf(theirs),
    };
    for (const field of new Set([...mine.keys(), ...theirs.keys()])) {
      const a = mine.get(field) ?? '(absent)';
      const b = theirs.get(field) ?? '(absent)';
      if (a === b) continue;
      // A condition absent on one side is one difference, not two (its message follows it).
      if (field.endsWith('.message') && (a === '(absent)' || b === '(absent)')) continue;
      const ruled: Verdict = EXPLANATIONS.find((explanation) => explanation.explains(field, context, { lineup: a, upstream: b }))?.verdict ?? { kind: 'not documented' };
      const conditionField = field.replace(/\.message$/, '');
      const statusAlsoDiffers = field !== conditionField && (mine.get(conditionField) ?? '(absent)') !== (theirs.get(conditionField) ?? '(absent)');
      const judged = judge?.(name, field, { lineup: a, upstream: b }, statusAlsoDiffers);
      const verdict = judged?.verdict ?? ruled;
      const key = JSON.stringify([field, a, b, verdict.kind, verdict.kind === 'not documented' ? '' : verdict.why]);
      const group = groups.get(key) ?? { field, lineup: a, upstream: b, verdict, names: [], evidence: {} };
      group.names.push(name);
      if (judged !== undefined) group.evidence[name] = judged.evidence;
      groups.set(key, group);
    }
  }
  return [...groups.values()]
    .sort((x, y) => x.field.localeCompare(y.field) || y.names.length - x.names.length)
    .map((group) => ({
      field: group.field,
      lineup: group.lineup,
      upstream: group.upstream,
      jobSets: group.names.length,
      examples: group.names.sort().slice(0, 3),
      verdict: group.verdict,
      ...(Object.keys(group.evidence).length === 0 ? {} : { evidence: group.evidence }),
    }));
};
