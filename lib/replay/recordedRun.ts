/**
 * What a recording says about the run it recorded, in the terms the simulator re-enacts it with:
 * the JobSet as first observed, how long each Job took to become ready, succeed or fail after it
 * was resumed (from the recorded planner inputs), and the final state the run reached.
 */
import { ConditionType, JobConditionType, Label } from '../constants.ts';
import { InvalidInputError } from '../errors.ts';
import type { Job, JobSet } from '../jobset/schema.ts';
import type { PlanOptions } from '../plan/types.ts';
import type { JobTiming } from '../sim/behaviour.ts';
import type { JobRef } from '../sim/cluster.ts';
import { DEFAULT_FAIL_MESSAGE, DEFAULT_FAIL_REASON } from '../sim/constants.ts';
import { observedOfPass, type Recording } from './recording.ts';

/** RecordedFinal: what a re-enactment must reach. */
export interface RecordedFinal {
  readonly terminalState: 'Completed' | 'Failed' | null;
  readonly restarts: number;
}

/** RecordedRun: a recording as the simulator's inputs. */
export interface RecordedRun {
  /** The JobSet as the first replayable pass read it, without status or server-set metadata. */
  readonly jobSet: JobSet;
  readonly planOptions: PlanOptions;
  /** Per Job and restart attempt, its recorded times after its resume; a Job never seen running never progresses. */
  readonly timing: (job: JobRef) => JobTiming;
  /** The state the last replayable pass observed. */
  readonly final: RecordedFinal;
}

const NO_PROGRESS: JobTiming = { readyAfter: Infinity, succeedAfter: Infinity, failAfter: Infinity, failReason: DEFAULT_FAIL_REASON, failMessage: DEFAULT_FAIL_MESSAGE };

// A Job of each restart attempt has the same name; its attempt label tells them apart.
const attemptKey = (name: string, restartAttempt: string | undefined): string => `${restartAttempt ?? ''}/${name}`;

const conditionTime = (job: Job, type: string): { at: number; reason: string; message: string } | undefined => {
  const condition = (job.status?.conditions ?? []).find((c) => c.type === type && c.status === 'True');
  const at = condition?.lastTransitionTime === undefined ? Number.NaN : Date.parse(condition.lastTransitionTime);
  return condition && Number.isFinite(at) ? { at, reason: condition.reason ?? '', message: condition.message ?? '' } : undefined;
};

const finalOf = (jobSet: JobSet): RecordedFinal => {
  const status = jobSet.status;
  const conditions = status?.conditions ?? [];
  const holds = (type: string): boolean => conditions.some((c) => c.type === type && c.status === 'True');
  const terminalState =
    status?.terminalState === 'Completed' || status?.terminalState === 'Failed'
      ? status.terminalState
      : holds(ConditionType.Completed)
        ? 'Completed'
        : holds(ConditionType.Failed)
          ? 'Failed'
          : null;
  return { terminalState, restarts: status?.restarts ?? 0 };
};

/**
 * recordedRunOf: the recording's JobSet, Job timings and final state; InvalidInputError when no
 * pass has inputs. A Job's times, per restart attempt, come from its first resume in that attempt:
 * its status.startTime (the resume),
 * the first pass that saw it ready (an upper bound: the recorded reconciler saw it no earlier),
 * and its Complete or Failed condition's transition time (whole seconds, as Kubernetes keeps it).
 */
export const recordedRunOf = (recording: Recording, source: string): RecordedRun => {
  const observations = recording.passes.flatMap((_, index) => {
    const observed = observedOfPass(recording, index);
    return typeof observed === 'string' ? [] : [observed];
  });
  const first = observations[0];
  const last = observations.at(-1);
  const firstPass = recording.passes.find((_, index) => typeof observedOfPass(recording, index) !== 'string');
  if (first === undefined || last === undefined || firstPass === undefined) {
    throw new InvalidInputError(`${source}: no pass keeps its planner inputs, so the run cannot be re-enacted`);
  }
  const timings = new Map<string, { start: number; ready?: number; succeeded?: number; failed?: number; failReason?: string; failMessage?: string }>();
  for (const observed of observations) {
    for (const job of observed.jobs) {
      const name = attemptKey(job.metadata.name ?? '', job.metadata.labels?.[Label.RestartAttempt]);
      const start = job.status?.startTime === undefined ? Number.NaN : Date.parse(job.status.startTime);
      if (!Number.isFinite(start)) continue;
      const timing = timings.get(name) ?? { start };
      // A resume after a suspension restarts the clock; the first run's times are kept.
      if (timing.start !== start) continue;
      timings.set(name, timing);
      if ((job.status?.ready ?? 0) > 0) timing.ready ??= observed.now;
      const succeeded = conditionTime(job, JobConditionType.Complete);
      if (succeeded) timing.succeeded ??= succeeded.at;
      const failed = conditionTime(job, JobConditionType.Failed);
      if (failed && timing.failed === undefined) Object.assign(timing, { failed: failed.at, failReason: failed.reason || undefined, failMessage: failed.message });
    }
  }
  const jobs = new Map<string, JobTiming>();
  for (const [name, timing] of timings) {
    const after = (at: number | undefined): number => (at === undefined ? Infinity : Math.max(0, at - timing.start));
    const succeedAfter = after(timing.succeeded);
    const failAfter = after(timing.failed);
    jobs.set(name, {
      readyAfter: Math.min(after(timing.ready), succeedAfter, failAfter),
      succeedAfter,
      failAfter,
      failReason: timing.failReason ?? DEFAULT_FAIL_REASON,
      failMessage: timing.failMessage ?? DEFAULT_FAIL_MESSAGE,
    });
  }
  const { metadata, spec } = first.jobSet;
  const jobSet: JobSet = {
    apiVersion: first.jobSet.apiVersion,
    kind: first.jobSet.kind,
    metadata: {
      name: metadata.name,
      namespace: metadata.namespace,
      ...(metadata.labels === undefined ? {} : { labels: metadata.labels }),
      ...(metadata.annotations === undefined ? {} : { annotations: metadata.annotations }),
    },
    spec,
  };
  return {
    jobSet,
    planOptions: firstPass.planOptions,
    timing: (job) => jobs.get(attemptKey(job.name, job.restartAttempt)) ?? NO_PROGRESS,
    final: finalOf(last.jobSet),
  };
};
