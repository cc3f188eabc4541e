/**
 * What a recording says about the run it recorded, in the terms the simulator re-enacts it with:
 * the JobSet as first observed, how long each Job took to become ready, succeed or fail after it
 * was resumed (from the recorded planner inputs), what was done from outside the controller (a
 * user suspending, resuming, editing or deleting the JobSet, a Job deleted by someone else), and
 * the final state the run reached.
 */
import { ConditionType, JobConditionType, Label } from '../jobset/api.ts';
import { InvalidInputError } from '../errors.ts';
import type { Job, JobSet } from '../jobset/schema.ts';
import { plan } from '../plan/planner.ts';
import type { Observed, PlanOptions } from '../plan/types.ts';
import { canonicalJson } from '../reconcile/journal.ts';
import type { BehaviourAction, JobTiming } from '../sim/behaviour.ts';
import type { JobRef } from '../sim/cluster.ts';
import { DEFAULT_FAIL_MESSAGE, DEFAULT_FAIL_REASON } from '../sim/constants.ts';
import { observedOfPass, type Recording } from './recording.ts';

/** RecordedFinal: what a re-enactment must reach. */
export interface RecordedFinal {
  readonly terminalState: 'Completed' | 'Failed' | null;
  readonly restarts: number;
  /** The JobSet's Suspended condition holds (a user suspended it and did not resume it). */
  readonly suspended: boolean;
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
  /**
   * What was done from outside the controller, in virtual ms from the first replayable pass, each
   * at the first pass that saw it (an upper bound, as the ready times are): a flip of spec.suspend,
   * another change of the spec, the JobSet's deletion, a Job deleted by someone else.
   */
  readonly outsideActions: readonly BehaviourAction[];
}

const NO_PROGRESS: JobTiming = { readyAfter: Infinity, succeedAfter: Infinity, failAfter: Infinity, failReason: DEFAULT_FAIL_REASON, failMessage: DEFAULT_FAIL_MESSAGE };

// A Job of each restart attempt has the same name; its attempt label tells them apart.
const attemptKey = (name: string, restartAttempt: string | undefined): string => `${restartAttempt ?? ''}/${name}`;

const conditionTime = (job: Job, type: string): { at: number; reason: string; message: string } | undefined => {
  const condition = (job.status?.conditions ?? []).find((c) => c.type === type && c.status === 'True');
  const at = condition?.lastTransitionTime === undefined ? Number.NaN : Date.parse(condition.lastTransitionTime);
  return condition && Number.isFinite(at) ? { at, reason: condition.reason ?? '', message: condition.message ?? '' } : undefined;
};

/**
 * finalAfter: where the last recorded pass left the JobSet — its inputs are what it saw before its
 * writes, so when it wrote the status (as the pass that finishes a JobSet does, and no later pass
 * need be journaled) the status it wrote, planned again from those inputs (the planner is pure).
 */
const finalAfter = (observed: Observed, actions: readonly { readonly kind: string }[], planOptions: PlanOptions): RecordedFinal => {
  if (!actions.some((action) => action.kind === 'UpdateJobSetStatus')) return finalOf(observed.jobSet);
  const written = plan(observed, planOptions).actions.find((action) => action.kind === 'UpdateJobSetStatus');
  return finalOf(written?.kind === 'UpdateJobSetStatus' ? { status: written.status } : observed.jobSet);
};

/** finalOf: what a JobSet's status says it reached. */
export const finalOf = (jobSet: Pick<JobSet, 'status'>): RecordedFinal => {
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
  return { terminalState, restarts: status?.restarts ?? 0, suspended: holds(ConditionType.Suspended) };
};

/** A pass's observation, with the index of its pass in the recording. */
interface Observation {
  readonly index: number;
  readonly observed: Observed;
}

const isFinished = (job: Job): boolean =>
  (job.status?.conditions ?? []).some((c) => (c.type === JobConditionType.Complete || c.type === JobConditionType.Failed) && c.status === 'True');

const specWithoutSuspend = (jobSet: JobSet): string => {
  const { suspend: _suspend, ...rest } = jobSet.spec;
  return canonicalJson(rest);
};

/**
 * outsideActionsOf: what changed between consecutive observations that the controller did not do.
 * The planner writes the JobSet's status and annotations, never its spec, so a spec change is a
 * user's. A Job that went away (or got a deletionTimestamp) is someone else's deletion unless a
 * recorded pass since it was first seen deleted it, its own ttlSecondsAfterFinished did (the
 * cluster's TTL controller, which the simulator plays too), or it went with its JobSet. A JobSet
 * that got a deletionTimestamp is a user's deletion unless a pass deleted it (its TTL).
 */
const outsideActionsOf = (recording: Recording, observations: readonly Observation[]): BehaviourAction[] => {
  const origin = observations[0]?.observed.now ?? 0;
  const deletedByPlanner = (kind: string, target: string, from: number, to: number): boolean =>
    recording.passes.slice(from, to).some((pass) => pass.actions.some((action) => action.kind === kind && action.target === target));
  const firstSeen = new Map<string, number>();
  const actions: BehaviourAction[] = [];
  for (const [position, { index, observed }] of observations.entries()) {
    for (const job of observed.jobs) if (!firstSeen.has(job.metadata.uid ?? '')) firstSeen.set(job.metadata.uid ?? '', index);
    const previous = observations[position - 1]?.observed;
    if (previous === undefined || previous.jobSet.metadata.deletionTimestamp !== undefined) continue;
    const at = Math.max(0, observed.now - origin);
    const before = previous.jobSet;
    const after = observed.jobSet;
    if (after.metadata.deletionTimestamp !== undefined) {
      if (!deletedByPlanner('DeleteJobSet', '', 0, index)) actions.push({ at, kind: 'deleteJobSet' });
      continue;
    }
    if (specWithoutSuspend(before) !== specWithoutSuspend(after)) actions.push({ at, kind: 'updateSpec', spec: after.spec });
    else if ((before.spec.suspend ?? false) !== (after.spec.suspend ?? false)) actions.push({ at, kind: 'suspend', suspend: after.spec.suspend === true });
    const now = new Map(observed.jobs.map((job) => [job.metadata.uid ?? '', job]));
    for (const job of previous.jobs) {
      if (job.metadata.deletionTimestamp !== undefined) continue;
      const later = now.get(job.metadata.uid ?? '');
      if (later !== undefined && later.metadata.deletionTimestamp === undefined) continue;
      const name = job.metadata.name ?? '';
      // It may have finished and been deleted between the two passes: judge by the latest state seen.
      const latest = later ?? job;
      const byTtl = isFinished(latest) && latest.spec.ttlSecondsAfterFinished !== undefined;
      if (!byTtl && !deletedByPlanner('DeleteJob', name, firstSeen.get(job.metadata.uid ?? '') ?? 0, index)) actions.push({ at, kind: 'deleteJob', job: name });
    }
  }
  return actions;
};

/**
 * recordedRunOf: the recording's JobSet, Job timings, outside actions and final state;
 * InvalidInputError when no pass has inputs. A Job's times, per restart attempt, are each
 * counted from its status.startTime (its latest resume) as the pass that measured them saw it:
 * the first pass that saw it ready (an upper bound: the recorded reconciler saw it no earlier),
 * and its Complete or Failed condition's transition time (whole seconds, as Kubernetes keeps it).
 * The simulator restarts a Job's clock on each resume, as the Job's pods restart.
 */
export const recordedRunOf = (recording: Recording, source: string): RecordedRun => {
  const observations = recording.passes.flatMap((_, index): Observation[] => {
    const observed = observedOfPass(recording, index);
    return typeof observed === 'string' ? [] : [{ index, observed }];
  });
  const first = observations[0];
  const last = observations.at(-1);
  if (first === undefined || last === undefined) {
    throw new InvalidInputError(`${source}: no pass keeps its planner inputs, so the run cannot be re-enacted`);
  }
  const firstPass = recording.passes[first.index]!;
  const timings = new Map<string, { ready?: number; succeeded?: number; failed?: number; failReason?: string; failMessage?: string }>();
  for (const { observed } of observations) {
    for (const job of observed.jobs) {
      const name = attemptKey(job.metadata.name ?? '', job.metadata.labels?.[Label.RestartAttempt]);
      const start = job.status?.startTime === undefined ? Number.NaN : Date.parse(job.status.startTime);
      if (!Number.isFinite(start)) continue;
      const timing = timings.get(name) ?? {};
      timings.set(name, timing);
      const after = (at: number): number => Math.max(0, at - start);
      if ((job.status?.ready ?? 0) > 0) timing.ready ??= after(observed.now);
      const succeeded = conditionTime(job, JobConditionType.Complete);
      if (succeeded) timing.succeeded ??= after(succeeded.at);
      const failed = conditionTime(job, JobConditionType.Failed);
      if (failed && timing.failed === undefined) Object.assign(timing, { failed: after(failed.at), failReason: failed.reason || undefined, failMessage: failed.message });
    }
  }
  const jobs = new Map<string, JobTiming>();
  for (const [name, timing] of timings) {
    const succeedAfter = timing.succeeded ?? Infinity;
    const failAfter = timing.failed ?? Infinity;
    jobs.set(name, {
      readyAfter: Math.min(timing.ready ?? Infinity, succeedAfter, failAfter),
      succeedAfter,
      failAfter,
      failReason: timing.failReason ?? DEFAULT_FAIL_REASON,
      failMessage: timing.failMessage ?? DEFAULT_FAIL_MESSAGE,
    });
  }
  const { metadata, spec } = first.observed.jobSet;
  const jobSet: JobSet = {
    apiVersion: first.observed.jobSet.apiVersion,
    kind: first.observed.jobSet.kind,
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
    final: finalAfter(last.observed, recording.passes[last.index]?.actions ?? [], recording.passes[last.index]?.planOptions ?? firstPass.planOptions),
    outsideActions: outsideActionsOf(recording, observations),
  };
};
