/**
 * executePlan: carry out a plan's actions in order, stopping at the first failure — so the
 * status write and its events (last in every plan) happen only when every Job write before
 * them did. Runs of the same Job action are sent in parallel, at
 * most MAX_PARALLELISM at a time, as upstream creates and deletes Jobs.
 *
 * Kubernetes Events are written where upstream v0.12.0 writes one (a condition set or changed:
 * its setCondition; a failure-policy action; a Job or the Service that could not be created):
 * not Lineup's own ReplicatedJobReleased (the journal and the condition's message say it), nor a
 * condition whose status and reason stay as they were and only its message moves on (Lineup's
 * startup message names the stage awaited; upstream's never changes, so it announces it once).
 */
import { EventReason } from '../jobset/api.ts';
import { ErrorCode, LineupError } from '../errors.ts';
import type { Condition } from '../jobset/schema.ts';
import type { Action, ActionKind, Observed, Plan } from '../plan/types.ts';
import type { ClusterGateway, Written } from './types.ts';

/** Concurrency limit upstream uses when creating or deleting many Jobs at once. */
export const MAX_PARALLELISM = 50;

/** Job actions that are independent of each other within a run and may go in parallel. */
const PARALLEL_KINDS = new Set<ActionKind>(['CreateJob', 'ResumeJob', 'SuspendJob', 'DeleteJob', 'RemoveJobFinalizer']);

/** ExecutionResult: how far the plan got. */
export interface ExecutionResult {
  /** Actions carried out. */
  readonly applied: number;
  /** What each action carried out wrote, as the gateway answered (nothing: it could not say), in plan order. */
  readonly written: readonly (Written | void)[];
  /** Events of the plan not written (see the module comment). */
  readonly eventsSkipped: number;
  /** The first failure, when the plan stopped early. */
  readonly error?: LineupError | undefined;
  readonly failedAction?: Action | undefined;
}

/** runs: consecutive actions grouped into runs that may execute together. */
const runs = (actions: readonly Action[]): Action[][] => {
  const groups: Action[][] = [];
  for (const action of actions) {
    const last = groups.at(-1);
    if (last && PARALLEL_KINDS.has(action.kind) && last[0]?.kind === action.kind) last.push(action);
    else groups.push([action]);
  }
  return groups;
};

/** asLineupError: errors from a gateway are Lineup errors; anything else is a bug worth its own code. */
const asLineupError = (error: unknown): LineupError =>
  error instanceof LineupError ? error : new LineupError(ErrorCode.UNAVAILABLE, `unexpected error: ${(error as Error)?.message ?? String(error)}`, { cause: error });

/** creationFailureEvent: the Warning upstream emits at once when Jobs, the Service or a volume claim cannot be created. */
const creationFailureEvent = (action: Action, error: LineupError): Extract<Action, { kind: 'EmitEvent' }> | undefined => {
  if (action.kind === 'CreateJob') return { kind: 'EmitEvent', eventType: 'Warning', reason: EventReason.JobCreationFailed, message: `job "${action.job.metadata.name ?? ''}" creation failed with error: ${error.message}` };
  // Upstream's message is the error alone.
  if (action.kind === 'CreatePersistentVolumeClaim') return { kind: 'EmitEvent', eventType: 'Warning', reason: EventReason.PVCCreationFailed, message: error.message };
  if (action.kind === 'CreateService') return { kind: 'EmitEvent', eventType: 'Warning', reason: EventReason.HeadlessServiceCreationFailed, message: `headless service creation failed with error: ${error.message}` };
  return undefined;
};

/** plannedConditions: the conditions the plan's status write leaves, or undefined when the plan writes no status. */
const plannedConditions = (plan: Plan): readonly Condition[] | undefined => {
  for (const action of plan.actions) if (action.kind === 'UpdateJobSetStatus') return action.status.conditions ?? [];
  return undefined;
};

/**
 * eventWritten: whether an EmitEvent of `plan`, decided from `observed`, is written (see the
 * module comment): a condition's event only when the condition is new or its status or reason
 * changed, never ReplicatedJobReleased.
 */
export const eventWritten = (action: Extract<Action, { kind: 'EmitEvent' }>, plan: Plan, observed: Observed): boolean => {
  if (action.reason === EventReason.ReplicatedJobReleased) return false;
  const after = plannedConditions(plan)?.find((condition) => condition.reason === action.reason);
  const before = observed.jobSet.status?.conditions?.find((condition) => condition.type === after?.type);
  return after === undefined || before === undefined || before.status !== after.status || before.reason !== after.reason;
};

/** executePlan: apply `plan`, decided from `observed`, through `gateway` at time `now`. Never throws; the result says what failed. */
export const executePlan = async (gateway: ClusterGateway, plan: Plan, observed: Observed, now: number): Promise<ExecutionResult> => {
  let applied = 0;
  const written: (Written | void)[] = [];
  const toWrite = plan.actions.filter((action) => action.kind !== 'EmitEvent' || eventWritten(action, plan, observed));
  const eventsSkipped = plan.actions.length - toWrite.length;
  for (const group of runs(toWrite)) {
    for (let start = 0; start < group.length; start += MAX_PARALLELISM) {
      const slice = group.slice(start, start + MAX_PARALLELISM);
      const outcomes = await Promise.allSettled(slice.map((action) => gateway.apply(plan.namespace, plan.name, action, now)));
      const failureIndex = outcomes.findIndex((outcome) => outcome.status === 'rejected');
      for (const outcome of outcomes) if (outcome.status === 'fulfilled') written.push(outcome.value);
      applied += outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
      if (failureIndex === -1) continue;
      const failed = outcomes[failureIndex];
      const error = asLineupError(failed?.status === 'rejected' ? failed.reason : undefined);
      const failedAction = slice[failureIndex];
      const warning = failedAction && error.code !== ErrorCode.STALE_RESOURCE_VERSION ? creationFailureEvent(failedAction, error) : undefined;
      if (warning) {
        // Best effort, as upstream: the event tells the user; the pass fails either way.
        await gateway.apply(plan.namespace, plan.name, warning, now).then(
          () => undefined,
          (eventError: unknown) => {
            error.message += `; and the ${warning.reason} event could not be recorded: ${(eventError as Error)?.message ?? String(eventError)}`;
          },
        );
      }
      return { applied, written, eventsSkipped, error, failedAction };
    }
  }
  return { applied, written, eventsSkipped };
};
