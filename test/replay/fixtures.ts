/** Shared fixtures for the replay tests: a recorded story-2 startup and a planner variant. */
import { plan } from '../../lib/plan/planner.ts';
import { InputsMemory } from '../../lib/reconcile/journal.ts';
import { handleEvent } from '../../lib/reconcile/reconcileJobSet.ts';
import type { Planner } from '../../lib/replay/replay.ts';
import { EMPTY_BEHAVIOUR } from '../../lib/sim/behaviour.ts';
import type { CheckpointStore, JobSetKey } from '../../lib/store/types.ts';
import { CLUSTER, detailFor, reconcileDeps, simWorld, story2 } from '../reconcile/fixtures.ts';

export const NAME = 'messagequeue-driver-worker';
export const KEY: JobSetKey = { cluster: CLUSTER, namespace: 'default', name: NAME };

/** SimWorld: the simulated cluster a recording is made against. */
export type SimWorld = ReturnType<typeof simWorld>;

/**
 * recordStartup: story 2 through the real reconcile loop against the simulated cluster, one event
 * per virtual minute (or per `stepMs`, `steps` times, its Jobs timed by `behaviour`; or `jobSet`, a variant of it) until it
 * completed, every pass journaled in `store`. `outside` acts on the cluster before a step's event,
 * as a user would; the recording ends early when the JobSet is gone (a user deleted it).
 */
export const recordStartup = async (
  store: CheckpointStore,
  { stepMs = 60_000, steps = 8, behaviour = EMPTY_BEHAVIOUR, outside = (_step: number, _world: SimWorld): void => undefined, jobSet = story2() } = {},
): Promise<void> => {
  const world = simWorld([jobSet], behaviour);
  const { deps } = reconcileDeps(store, world.gateway, world.now, 'recorder', { inputsMemory: new InputsMemory() });
  for (let step = 0; step < steps; step += 1) {
    outside(step, world);
    const outcome = await handleEvent(
      { source: `lineup.${CLUSTER}`, detail: { ...detailFor(NAME), resourceVersion: `recorder-${step}` }, id: `event-${step}`, detailType: 'JobSet Changed', time: new Date(world.now()).toISOString() },
      deps,
    );
    if (outcome === 'gone') return;
    if (outcome !== 'reconciled') throw new Error(`step ${step}: ${outcome}`);
    world.queue.runUntil(world.queue.now() + stepMs);
  }
};

/** workersAtOnce: a planner that differs in one rule — story 2's workers are never held back by their gate. */
export const workersAtOnce: Planner = (observed, options) => {
  const result = plan(observed, options);
  const actions = result.actions.map((action) =>
    action.kind === 'CreateJob' && action.replicatedJob === 'worker' && action.job.spec.suspend === true
      ? { ...action, job: { ...action.job, spec: { ...action.job.spec, suspend: false } } }
      : action,
  );
  const reasons = result.reasons.map((reason, index) => (actions[index] === result.actions[index] ? reason : { code: 'GateOpened' as const, message: 'variant: workers start at once' }));
  return { ...result, actions, reasons };
};
