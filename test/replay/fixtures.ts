/** Shared fixtures for the replay tests: a recorded story-2 startup and a planner variant. */
import { plan } from '../../lib/plan/planner.ts';
import { InputsMemory } from '../../lib/reconcile/inputsMemory.ts';
import { packInputs, unpackInputs } from '../../lib/reconcile/journal.ts';
import { handleEvent } from '../../lib/reconcile/reconcileJobSet.ts';
import type { RecordedPass, Recording } from '../../lib/replay/recording.ts';
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

/**
 * oneWorkerEarly: a planner that differs in one Job — in the pass that releases story 2's drivers,
 * it also resumes the first worker, which today's planner resumes a stage later.
 */
export const oneWorkerEarly: Planner = (observed, options) => {
  const result = plan(observed, options);
  const releasesDrivers = result.actions.some((action) => action.kind === 'ResumeJob' && action.replicatedJob === 'driver');
  const worker = observed.jobs.find((job) => job.metadata.name === `${NAME}-worker-0` && job.spec.suspend === true);
  if (!releasesDrivers || worker === undefined) return result;
  const resume = { kind: 'ResumeJob' as const, name: worker.metadata.name ?? '', replicatedJob: 'worker', resourceVersion: worker.metadata.resourceVersion, clearStartTime: false, podTemplate: undefined };
  const at = result.actions.findLastIndex((action) => action.kind === 'ResumeJob') + 1;
  return {
    ...result,
    actions: [...result.actions.slice(0, at), resume, ...result.actions.slice(at)],
    reasons: [...result.reasons.slice(0, at), { code: 'GateOpened' as const, message: 'variant: one worker early' }, ...result.reasons.slice(at)],
  };
};

/** Tampering: a recording edited after the fact, and the pass a check must name. */
export interface Tampering {
  readonly name: string;
  readonly pass: number;
  readonly recording: Recording;
}

/**
 * tamperings: `recording` edited each way a hand or a bad tool could: a pass given another
 * pass's inputs (its digest left as it was), a Job's status edited in a pass's inputs, a
 * reference to inputs no pass holds, a pass dated before the first, a renamed JobSet.
 */
export const tamperings = (recording: Recording): Tampering[] => {
  const stored = recording.passes.flatMap((pass, index) => (pass.inputs !== undefined ? [index] : []));
  const [first, second] = stored;
  if (first === undefined || second === undefined) throw new Error('tamperings: the recording needs two passes with stored inputs');
  const edit = (index: number, change: (pass: RecordedPass) => RecordedPass): Recording => ({ ...recording, passes: recording.passes.map((pass, at) => (at === index ? change(pass) : pass)) });
  const withReadyEdited = (pass: RecordedPass): RecordedPass => {
    const inputs = unpackInputs(pass.inputs ?? '');
    const [job, ...rest] = inputs.jobs;
    if (job === undefined) throw new Error('tamperings: a pass with a Job');
    const edited = { ...job, status: { ...job.status, ready: (job.status?.ready ?? 0) + 1 } };
    return { ...pass, inputs: packInputs({ ...inputs, jobs: [edited, ...rest] }) };
  };
  const last = recording.passes.length - 1;
  return [
    { name: 'another pass inputs', pass: second + 1, recording: edit(second, (pass) => ({ ...pass, inputs: recording.passes[first]?.inputs })) },
    { name: 'a Job status edited', pass: second + 1, recording: edit(second, withReadyEdited) },
    { name: 'a dangling reference', pass: last + 1, recording: edit(last, (pass) => ({ ...pass, inputsKept: 'unchanged', inputsDigest: 'feedfacefeedface', inputs: undefined })) },
    { name: 'a pass before the first', pass: last + 1, recording: edit(last, (pass) => ({ ...pass, at: (recording.passes[0]?.at ?? 0) - 1_000 })) },
    { name: 'a renamed JobSet', pass: first + 1, recording: { ...recording, jobSet: { ...recording.jobSet, name: `${recording.jobSet.name}-renamed` } } },
  ];
};
