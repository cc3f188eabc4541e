/**
 * executePlan: carry out a plan's actions in order, stopping at the first failure — so the
 * status write and its events (last in every plan) happen only when every Job write before
 * them did (jobset-behaviour.md §8.9). Runs of the same Job action are sent in parallel, at
 * most MAX_PARALLELISM at a time, as upstream creates and deletes Jobs.
 */
import { EventReason, MAX_PARALLELISM } from '../constants.ts';
import { ErrorCode, LineupError } from '../errors.ts';
import type { Action, ActionKind, Plan } from '../plan/types.ts';
import type { ClusterGateway } from './types.ts';

/** Job actions that are independent of each other within a run and may go in parallel. */
const PARALLEL_KINDS = new Set<ActionKind>(['CreateJob', 'ResumeJob', 'SuspendJob', 'DeleteJob', 'RemoveJobFinalizer']);

/** ExecutionResult: how far the plan got. */
export interface ExecutionResult {
  /** Actions carried out. */
  readonly applied: number;
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

/** executePlan: apply `plan` through `gateway` at time `now`. Never throws; the result says what failed. */
export const executePlan = async (gateway: ClusterGateway, plan: Plan, now: number): Promise<ExecutionResult> => {
  let applied = 0;
  for (const group of runs(plan.actions)) {
    for (let start = 0; start < group.length; start += MAX_PARALLELISM) {
      const slice = group.slice(start, start + MAX_PARALLELISM);
      const outcomes = await Promise.allSettled(slice.map((action) => gateway.apply(plan.namespace, plan.name, action, now)));
      const failureIndex = outcomes.findIndex((outcome) => outcome.status === 'rejected');
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
      return { applied, error, failedAction };
    }
  }
  return { applied };
};
