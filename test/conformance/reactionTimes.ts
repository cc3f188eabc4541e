/**
 * How fast each side reacted, from the evidence a differential run records (evidence.ts): a
 * controller's reaction is from the API server receiving the Job controller's write that
 * finished the deciding Job (the last Job of the final attempt finished before the terminal
 * write) to it receiving the controller's terminal write; the Job controller's lag is from a
 * Job's last Pod ending to the API server receiving its write marking the Job Complete or Failed.
 * Pure.
 */
import { median, round } from '../../bench/pipeline/figures.ts';
import { finalAttempt, finishOf, terminalWriteAt, type Evidence } from './evidence.ts';

/** Spread: how many, their median and their maximum (ms, to 0.1). */
export interface Spread {
  readonly count: number;
  readonly medianMs: number;
  readonly maxMs: number;
}

/** spreadOf: the count, median and maximum of `values`. */
export const spreadOf = (values: readonly number[]): Spread => ({ count: values.length, medianMs: median(values), maxMs: values.length === 0 ? Number.NaN : round(Math.max(...values)) });

/** reactionMs: from the deciding Job's finish to the terminal write; undefined when the JobSet did not end, or ended with no Job finished before. */
export const reactionMs = (evidence: Evidence): number | undefined => {
  const terminal = terminalWriteAt(evidence);
  if (terminal === undefined) return undefined;
  const attempt = finalAttempt(evidence);
  const finishes = evidence.jobs.filter((job) => job.attempt === attempt).flatMap((job) => {
    const at = finishOf(job)?.receivedAt;
    return at !== undefined && at <= terminal ? [at] : [];
  });
  return finishes.length === 0 ? undefined : terminal - Math.max(...finishes);
};

/** jobControllerLagsMs: per Job that finished with its Pods ended before, from its last Pod's end to the Job controller's finishing write. */
export const jobControllerLagsMs = (evidence: Evidence): number[] =>
  evidence.jobs.flatMap((job) => {
    const finished = finishOf(job)?.receivedAt;
    const ended = job.podsEndedAt.filter((at) => finished !== undefined && at <= finished);
    return finished === undefined || ended.length === 0 ? [] : [finished - Math.max(...ended)];
  });
