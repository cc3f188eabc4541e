/**
 * A check per verdict: given what the run recorded of both twins (evidence.ts), is the
 * explanation of a final-status difference true of this pair? Each check returns the verdict
 * with the facts it rests on, or "not explained" with the fact that contradicts it — whatever a
 * rule matched against the values alone would have said. Pure.
 *
 * - counters: every Job counted by one side only finished before that side's terminal write (or
 *   before its next write after it, which deleted the Jobs still active) and was unfinished when
 *   the other side decided to delete it (or never made by it); each side's final counters
 *   recount from its Jobs left;
 * - startup conditions: the side without StartupPolicyCompleted True never had the whole last
 *   stage ready in its final attempt before its terminal write, or wrote no status between the
 *   two; or it is upstream, which wrote it True in its final attempt and re-opened its walk (the
 *   "gate closes again" row, cited when that is the whole difference);
 * - Suspended: the side without the condition never wrote it (a refused write counts as not
 *   written, and says so);
 * - first failed Job: the named Job has the earliest failure time among the Jobs Failed at the
 *   terminal write (Lineup breaks ties by name among those its pass had seen).
 */
import type { Verdict } from '../../bench/pipeline/figures.ts';
import {
  attemptStartedAt,
  finalAttempt,
  finalConditionStatus,
  finishOf,
  nextWriteAfter,
  jobsOfAttempt,
  jobsLeft,
  relative,
  sightingWith,
  terminalWriteAt,
  type Evidence,
  type JobHistory,
} from './evidence.ts';

/** Side: which twin. */
type Side = 'lineup' | 'upstream';
const SIDE_NAME: Readonly<Record<Side, string>> = { lineup: 'Lineup', upstream: 'upstream' };

/** Pair: both twins' evidence. */
export interface Pair {
  readonly lineup: Evidence;
  readonly upstream: Evidence;
}

/** Judged: a verdict and the facts it rests on, one line each. */
export interface Judged {
  readonly verdict: Verdict;
  readonly evidence: readonly string[];
}

/** COUNTERS_FINISHED_FIRST: the verdict on succeeded/failed counters whose Jobs check out. */
export const COUNTERS_FINISHED_FIRST: Verdict = {
  kind: 'timing',
  why:
    'deviation "a finished JobSet\'s still-active Jobs are deleted on the next pass" — same rule on both sides: a Job counts where the Job controller marked it finished before that ' +
    "side's terminal write (or its next write, which deleted the Jobs still active), and not where it was deleted unfinished; the Job controller's queue, not either controller's speed, decides which Jobs those are",
};

/** STARTUP_NEVER_READY: the side without StartupPolicyCompleted True never saw the last stage ready before it ended. */
export const STARTUP_NEVER_READY: Verdict = {
  kind: 'timing',
  why: 'deviation "a JobSet that ends, or restarts, before its controller sees the last stage ready" — the last stage was not all ready before that side\'s terminal write, or that side wrote no status in between',
};

/** STARTUP_REOPENED: both wrote StartupPolicyCompleted True; upstream's walk re-opened when a gate closed again. */
export const STARTUP_REOPENED: Verdict = {
  kind: 'documented',
  why: 'deviation "a gate that closes again" → "StartupPolicyCompleted stays True while nothing is held back": both wrote StartupPolicyCompleted True in the final attempt; upstream turned it False again when a ready count dropped',
};

/** STARTUP_DEPENDS_ON: upstream writes no startup condition for dependsOn. */
export const STARTUP_DEPENDS_ON: Verdict = {
  kind: 'documented',
  why: 'deviation "conditions only for InOrder" → "StartupPolicyInProgress/Completed for InOrder (upstream reasons), dependsOn and ordered rules": upstream writes none for dependsOn',
};

/** STARTUP_MESSAGE: Lineup's startup messages say what is awaited. */
export const STARTUP_MESSAGE: Verdict = {
  kind: 'documented',
  why: 'deviation "conditions only for InOrder" → "…; the user sees what is awaited": Lineup\'s StartupPolicyInProgress message names what is awaited',
};

/** SUSPENDED_NEVER_WRITTEN: one side never wrote Suspended during a short suspension. */
export const SUSPENDED_NEVER_WRITTEN: Verdict = {
  kind: 'timing',
  why:
    'deviation "a JobSet suspended and resumed within seconds shows Suspended only if a reconcile wrote it during the suspension" — ' +
    "the side without the condition never wrote it during the suspension (it did not reconcile then, or its write was refused because the user's resume landed first)",
};

/** FIRST_FAILED: the named Job is one of the earliest to fail. */
export const FIRST_FAILED: Verdict = {
  kind: 'timing',
  why:
    'deviation "the Failed message names the first failed Job" — each side names a Job with the earliest failure time among those Failed at its terminal write; failure times have ' +
    'one-second resolution, and Jobs failing within one second tie (Lineup names the first by name, upstream the first its cache lists)',
};

/** CHECKED_VERDICTS: every verdict a check can give (the deviation rows they quote are checked to exist). */
export const CHECKED_VERDICTS: readonly Verdict[] = [COUNTERS_FINISHED_FIRST, STARTUP_NEVER_READY, STARTUP_REOPENED, STARTUP_DEPENDS_ON, STARTUP_MESSAGE, SUSPENDED_NEVER_WRITTEN, FIRST_FAILED];

const notExplained = (why: string, evidence: readonly string[] = []): Judged => ({ verdict: { kind: 'not explained', why }, evidence: [...evidence, why] });
const sides = (pair: Pair): [Side, Evidence, Side, Evidence][] => [
  ['lineup', pair.lineup, 'upstream', pair.upstream],
  ['upstream', pair.upstream, 'lineup', pair.lineup],
];
const at = (evidence: Evidence, time: number): string => relative(time, evidence.createdAt);

// ---------------------------------------------------------------------------------------------
// Counters.

/** COUNTER_FIELD: replicatedJobsStatus[<name>].<succeeded|failed>. */
const COUNTER_FIELD = /^replicatedJobsStatus\[(.*)\]\.(succeeded|failed)$/;

/** countedJobs: the final attempt's Jobs of `replicatedJob` left at the end (jobsLeft) and ended `type`. */
const countedJobs = (evidence: Evidence, replicatedJob: string, type: string): Map<string, JobHistory> => {
  const attempt = finalAttempt(evidence);
  return new Map(jobsLeft(evidence).filter((job) => job.replicatedJob === replicatedJob && job.attempt === attempt && finishOf(job)?.type === type).map((job) => [job.name, job]));
};

/** checkCounters: the recount on both sides, then every Job counted by one side only. */
export const checkCounters = (field: string, values: Readonly<Record<Side, string>>, pair: Pair): Judged | undefined => {
  const match = COUNTER_FIELD.exec(field);
  if (match === null) return undefined;
  const replicatedJob = match[1] ?? '';
  const type = match[2] === 'succeeded' ? 'Complete' : 'Failed';
  const counted = { lineup: countedJobs(pair.lineup, replicatedJob, type), upstream: countedJobs(pair.upstream, replicatedJob, type) };
  const evidence: string[] = [];
  for (const [side] of sides(pair)) {
    const value = Number(values[side] === '(absent)' ? 0 : values[side]);
    if (value !== counted[side].size) {
      return notExplained(`${SIDE_NAME[side]}'s final ${field} is ${value}, but ${counted[side].size} of its ${replicatedJob} Jobs were left ${type}`, evidence);
    }
  }
  evidence.push(`final counters recount from the Jobs left: Lineup ${counted.lineup.size}, upstream ${counted.upstream.size} ${type}`);
  for (const [side, mine, otherSide, other] of sides(pair)) {
    const terminal = terminalWriteAt(mine);
    if (terminal === undefined) return notExplained(`${SIDE_NAME[side]}'s twin never ended`, evidence);
    const next = nextWriteAfter(mine, terminal);
    const theirs = jobsOfAttempt(other, replicatedJob);
    for (const [name, job] of counted[side]) {
      if (counted[otherSide].has(name)) continue;
      // Finished before a write: the Job controller's write was received before it (no earlier can it have been read).
      const finished = finishOf(job)?.receivedAt ?? Number.POSITIVE_INFINITY;
      const before =
        finished < terminal
          ? `finished at ${at(mine, finished)}, before ${SIDE_NAME[side]}'s terminal write at ${at(mine, terminal)}`
          : next !== undefined && finished < next
            ? `finished at ${at(mine, finished)}, after ${SIDE_NAME[side]}'s terminal write at ${at(mine, terminal)} but before its next write at ${at(mine, next)}, which deleted the Jobs still active`
            : undefined;
      if (before === undefined) {
        return notExplained(
          `${name} counted by ${SIDE_NAME[side]} only finished at ${at(mine, finished)}, after ${SIDE_NAME[side]}'s terminal write at ${at(mine, terminal)}${next === undefined ? '' : ` and its next write at ${at(mine, next)}`}`,
          evidence,
        );
      }
      const twin = theirs.get(name);
      let there: string;
      if (twin === undefined) there = `${SIDE_NAME[otherSide]} never made it`;
      else {
        const twinFinish = finishOf(twin);
        if (twin.deletionAt === undefined) return notExplained(`${name} counted by ${SIDE_NAME[side]} only was never deleted by ${SIDE_NAME[otherSide]}, and not counted there`, evidence);
        // Unfinished when the deleter decided to delete it (what it had read), else when the delete was sent.
        const decided = twin.deletionDecidedAt ?? twin.deletionAt;
        if (twinFinish !== undefined && twinFinish.at <= decided) {
          return notExplained(`${name} counted by ${SIDE_NAME[side]} only had ended ${twinFinish.type} at ${at(other, twinFinish.at)} under ${SIDE_NAME[otherSide]}, before its deletion was decided at ${at(other, decided)}`, evidence);
        }
        there = `${SIDE_NAME[otherSide]} deleted it unfinished at ${at(other, twin.deletionAt)}${decided === twin.deletionAt ? '' : ` (decided at ${at(other, decided)})`}${twinFinish === undefined ? '' : `, ${twinFinish.type} at ${at(other, twinFinish.at)}`}`;
      }
      evidence.push(`${name}: counted by ${SIDE_NAME[side]} only — ${before}; ${there}`);
    }
  }
  return { verdict: COUNTERS_FINISHED_FIRST, evidence };
};

// ---------------------------------------------------------------------------------------------
// Startup conditions.

const STARTUP_CONDITIONS = ['StartupPolicyInProgress', 'StartupPolicyCompleted'];
const COMPLETED = 'StartupPolicyCompleted';

/** lastStageReadyAt: when the final attempt's last stage was first all ready (each Job ready or Complete, none deleted before); undefined if never, with how many were. */
const lastStageReadyAt = (evidence: Evidence): { at: number | undefined; ready: number; total: number } => {
  let latest = 0;
  let ready = 0;
  let total = 0;
  let all = true;
  for (const stage of evidence.lastStage) {
    const jobs = [...jobsOfAttempt(evidence, stage.name).values()];
    total += stage.replicas;
    if (jobs.length < stage.replicas) all = false;
    for (const job of jobs) {
      const finish = finishOf(job);
      const readyAt = job.readyAt ?? (finish?.type === 'Complete' ? finish.at : undefined);
      if (readyAt === undefined || (job.deletionAt !== undefined && job.deletionAt <= readyAt)) {
        all = false;
        continue;
      }
      ready += 1;
      latest = Math.max(latest, readyAt);
    }
  }
  return { at: all && total > 0 ? latest : undefined, ready, total };
};

/** hadStartupCondition: the side's JobSet ever showed a startup condition. */
const hadStartupCondition = (evidence: Evidence): boolean => evidence.jobSet.some((s) => s.conditions.some((c) => STARTUP_CONDITIONS.includes(c.type)));

/** checkStartup: the startup conditions' difference, from both sides' condition histories and the last stage's Jobs. */
export const checkStartup = (field: string, values: Readonly<Record<Side, string>>, pair: Pair, statusAlsoDiffers: boolean): Judged | undefined => {
  if (!STARTUP_CONDITIONS.some((condition) => field.startsWith(`conditions[${condition}]`))) return undefined;
  if (!hadStartupCondition(pair.upstream) && /^(True|False) DependsOn/.test(values.lineup)) {
    return { verdict: STARTUP_DEPENDS_ON, evidence: [`upstream showed no startup condition in any of its ${pair.upstream.jobSet.length} status sightings`] };
  }
  if (field.endsWith('.message') && !statusAlsoDiffers) {
    return values.lineup !== '(absent)' && values.upstream !== '(absent)'
      ? { verdict: STARTUP_MESSAGE, evidence: [`Lineup: ${values.lineup}; upstream: ${values.upstream}`] }
      : notExplained(`only one side has ${field}`);
  }
  const without = sides(pair).filter(([, evidence]) => finalConditionStatus(evidence, COMPLETED) !== 'True');
  if (without.length === 0) return notExplained(`both ended with ${COMPLETED} True, yet ${field} differs`);
  const evidence: string[] = [];
  // The re-opened walk's row only when no side's difference comes from never seeing the last stage ready.
  let neverReady = false;
  for (const [side, mine, otherSide, other] of without) {
    const attempt = finalAttempt(mine);
    const wroteTrue = sightingWith(mine, COMPLETED, 'True', attemptStartedAt(mine));
    if (wroteTrue !== undefined) {
      // Lineup keeps StartupPolicyCompleted True once written; only upstream re-opens its walk.
      if (side !== 'upstream') {
        return notExplained(`${SIDE_NAME[side]} showed ${COMPLETED} True at ${at(mine, wroteTrue.at)} in attempt ${attempt} and ended with it ${finalConditionStatus(mine, COMPLETED) ?? 'absent'}`, evidence);
      }
      const otherTrue = sightingWith(other, COMPLETED, 'True', attemptStartedAt(other));
      const reopened = mine.jobSet.find((s) => s.at > wroteTrue.at && s.conditions.some((c) => c.type === COMPLETED && c.status !== 'True'));
      evidence.push(
        `${otherTrue === undefined ? `upstream showed ${COMPLETED} True` : `both showed ${COMPLETED} True`} in their final attempt (${otherTrue === undefined ? '' : `${SIDE_NAME[otherSide]} at ${at(other, otherTrue.at)}, `}upstream at ${at(mine, wroteTrue.at)}); upstream's turned ${reopened === undefined ? 'absent' : `False at ${at(mine, reopened.at)}`}`,
      );
      continue;
    }
    neverReady = true;
    const terminal = terminalWriteAt(mine);
    if (terminal === undefined) return notExplained(`${SIDE_NAME[side]}'s twin never ended`, evidence);
    const ready = lastStageReadyAt(mine);
    const stage = mine.lastStage.map((s) => s.name).join(', ');
    if (ready.at === undefined || ready.at >= terminal) {
      evidence.push(
        `${SIDE_NAME[side]}: the last stage (${stage}) of attempt ${attempt} was ${ready.at === undefined ? `never all ready (${ready.ready} of ${ready.total} Jobs ever were)` : `all ready only at ${at(mine, ready.at)}`}, its terminal write at ${at(mine, terminal)}`,
      );
      continue;
    }
    const readyAt = ready.at;
    const between = mine.statusWrites.filter((w) => w.code < 300 && w.receivedAt > readyAt && w.receivedAt < terminal);
    if (between.length > 0) {
      return notExplained(
        `${SIDE_NAME[side]}'s last stage (${stage}) was all ready at ${at(mine, readyAt)} and it wrote its status ${between.length} times before its terminal write at ${at(mine, terminal)} without ${COMPLETED} True`,
        evidence,
      );
    }
    evidence.push(`${SIDE_NAME[side]}: the last stage (${stage}) was all ready at ${at(mine, readyAt)}, ${Math.round(terminal - readyAt)} ms before its terminal write at ${at(mine, terminal)}, with no status write between`);
  }
  return { verdict: neverReady ? STARTUP_NEVER_READY : STARTUP_REOPENED, evidence };
};

// ---------------------------------------------------------------------------------------------
// Suspended.

/** checkSuspended: the side without Suspended never wrote it; its refused writes are named. */
export const checkSuspended = (field: string, values: Readonly<Record<Side, string>>, pair: Pair): Judged | undefined => {
  if (!field.startsWith('conditions[Suspended]')) return undefined;
  const evidence: string[] = [];
  const absent = sides(pair).filter(([side]) => values[side] === '(absent)');
  if (absent.length === 0) return notExplained(`both have ${field}, with different values`);
  for (const [side, mine] of absent) {
    const seen = mine.jobSet.find((s) => s.conditions.some((c) => c.type === 'Suspended'));
    if (seen !== undefined) return notExplained(`${SIDE_NAME[side]}'s JobSet showed Suspended at ${at(mine, seen.at)}, and it ended without it`, evidence);
    const suspend = mine.userActions.find((a) => a.suspend);
    const resume = mine.userActions.find((a) => !a.suspend && (suspend === undefined || a.receivedAt > suspend.receivedAt));
    const from = suspend?.receivedAt ?? Number.POSITIVE_INFINITY;
    const to = resume?.receivedAt ?? Number.POSITIVE_INFINITY;
    const accepted = mine.statusWrites.filter((w) => w.code < 300 && w.receivedAt >= from && w.receivedAt <= to).length;
    // A write decided during the suspension can reach the API server after the resume, and be refused for it: up to the next accepted write.
    const nextAccepted = mine.statusWrites.find((w) => w.code < 300 && w.receivedAt > to)?.receivedAt ?? Number.POSITIVE_INFINITY;
    const refused = mine.statusWrites.filter((w) => w.code >= 300 && w.receivedAt >= from && w.receivedAt < nextAccepted).length;
    const planned = (mine.passes ?? []).filter((p) => p.statusConditions?.some((c) => c.type === 'Suspended' && c.status === 'True'));
    const written = planned.filter((p) => p.error === undefined);
    if (written.length > 0) return notExplained(`${SIDE_NAME[side]} wrote Suspended=True at ${at(mine, written[0]?.startedAt ?? 0)} (its write not refused), yet the JobSet never showed it`, evidence);
    const window = suspend === undefined ? 'no suspend was recorded' : `between the user's suspend at ${at(mine, suspend.receivedAt)} and ${resume === undefined ? 'the end' : `resume at ${at(mine, resume.receivedAt)}`}`;
    evidence.push(
      `${SIDE_NAME[side]} never wrote Suspended: ${accepted} status writes accepted ${window}, ${refused} refused from the suspend to its next accepted write` +
        (planned.length === 0 ? '' : `; ${planned.length} pass${planned.length === 1 ? '' : 'es'} planned Suspended=True and the write was refused: ${planned.map((p) => (p.error ?? '').slice(0, 120)).join('; ')}`),
    );
  }
  return { verdict: SUSPENDED_NEVER_WRITTEN, evidence };
};

// ---------------------------------------------------------------------------------------------
// The first failed Job.

/** FIRST_FAILED_JOB: the Job a Failed message names. */
const FIRST_FAILED_JOB = /\(first failed job: ([^)]*)\)"?$/;

/** checkFirstFailed: each side's named Job has the earliest failure time among its Jobs Failed at its terminal write. */
export const checkFirstFailed = (field: string, values: Readonly<Record<Side, string>>, pair: Pair): Judged | undefined => {
  if (field !== 'conditions[Failed].message') return undefined;
  const evidence: string[] = [];
  for (const [side, mine] of sides(pair)) {
    const named = FIRST_FAILED_JOB.exec(values[side])?.[1];
    if (named === undefined) return notExplained(`${SIDE_NAME[side]}'s Failed message names no first failed Job`, evidence);
    const terminal = terminalWriteAt(mine);
    if (terminal === undefined) return notExplained(`${SIDE_NAME[side]}'s twin never ended`, evidence);
    const attempt = finalAttempt(mine);
    const failed = mine.jobs.filter((job) => job.attempt === attempt && finishOf(job)?.type === 'Failed' && (finishOf(job)?.receivedAt ?? Number.POSITIVE_INFINITY) <= terminal);
    const timeOf = (job: JobHistory): string => finishOf(job)?.lastTransitionTime ?? '';
    const job = failed.find((j) => j.name === named);
    if (job === undefined) return notExplained(`${named}, named by ${SIDE_NAME[side]}, was not Failed at its terminal write at ${at(mine, terminal)}`, evidence);
    const earliest = failed.map(timeOf).sort()[0] ?? '';
    if (timeOf(job) !== earliest) return notExplained(`${named}, named by ${SIDE_NAME[side]}, failed at ${timeOf(job)}, after ${failed.filter((j) => timeOf(j) === earliest).map((j) => j.name).join(', ')} at ${earliest}`, evidence);
    const tied = failed.filter((j) => timeOf(j) === earliest).map((j) => j.name).sort();
    if (side === 'lineup') {
      const pass = (mine.passes ?? []).find((p) => p.error === undefined && p.statusConditions?.some((c) => c.type === 'Failed' && c.status === 'True'));
      // Lineup's pass read its Jobs after it began: a tied Job whose Failed write was complete by then was in what it read.
      const seenBefore = tied.filter((name) => name < named && (finishOf(failed.find((j) => j.name === name) as JobHistory)?.at ?? 0) < (pass?.startedAt ?? Number.POSITIVE_INFINITY));
      if (seenBefore.length > 0) return notExplained(`Lineup named ${named}, but ${seenBefore.join(', ')} failed in the same second, comes first by name and had failed before its pass began`, evidence);
    }
    evidence.push(`${SIDE_NAME[side]} named ${named}: failed at ${earliest}${tied.length > 1 ? `, tied with ${tied.filter((n) => n !== named).join(', ')}` : ', the only one'} (of ${failed.length} Failed at its terminal write at ${at(mine, terminal)})`);
  }
  return { verdict: FIRST_FAILED, evidence };
};

/**
 * judgeByEvidence: the check for a field's difference, or undefined when no check covers the
 * field (the rule's verdict then stands: a difference no rule explains stays not documented).
 * `statusAlsoDiffers`: for a message field, the condition's status or reason differs too.
 */
export const judgeByEvidence = (field: string, values: Readonly<Record<Side, string>>, pair: Pair, statusAlsoDiffers: boolean): Judged | undefined =>
  checkCounters(field, values, pair) ?? checkStartup(field, values, pair, statusAlsoDiffers) ?? checkSuspended(field, values, pair) ?? checkFirstFailed(field, values, pair);
