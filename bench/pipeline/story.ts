/**
 * The JobSets the pipeline benchmark runs: KEP-104 story 2 (messagequeue → driver → worker,
 * InOrder), the same spec in both controllers' namespaces but for managedBy, its pods steered by
 * the kwok node's annotations (test/integration/harness/controlPlane.ts).
 */
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import type { JsonObject } from '../../lib/json.ts';
import type { PodBehaviour } from '../../test/integration/harness/index.ts';
import { STORY2_EXAMPLE, story2Manifest as storyWithDefaults } from '../../test/integration/harness/story2.ts';

/** STORY: the example JobSet, KEP-104 story 2. */
export const STORY = STORY2_EXAMPLE;
/** READY_AFTER_MS: how long after the scheduler binds a pod kwok makes it Running and Ready. */
export const READY_AFTER_MS = 200;
/**
 * COMPLETE_AFTER_MS: how long after a pod is Running kwok makes it Succeeded, the same for every
 * stage: a JobSet's last Jobs (the workers) then complete this long after they are ready, and
 * its earlier stages no later. Long beside either controller's stage latency under this load,
 * so both have written the end of the startup before the Jobs finish (with 1 s, a controller
 * still catching up saw the Jobs succeed first, and either one then went to Completed leaving
 * StartupPolicyInProgress True and no StartupPolicyCompleted).
 */
export const COMPLETE_AFTER_MS = 10_000;
/** POD_BEHAVIOUR: how every pod of the story behaves: Ready, then Succeeded. */
const POD_BEHAVIOUR: PodBehaviour = { readyAfterMs: READY_AFTER_MS, finishAfterMs: COMPLETE_AFTER_MS, outcome: 'Succeeded' };

/** NAMESPACE: where each controller's JobSets live. */
export const NAMESPACE = { lineup: 'lineup', upstream: 'upstream' } as const;

/** Controller: which of the two controllers. */
export type Controller = keyof typeof NAMESPACE;

/** Stage: a replicatedJob in startup order and its Job count. */
export interface Stage {
  readonly name: string;
  readonly jobs: number;
}

/** jobKey: `namespace/name`. */
export const jobKey = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;

/** story2Manifest: story 2 as both controllers take it (test/integration/harness/story2.ts), its pods as POD_BEHAVIOUR says. */
export const story2Manifest = (): JsonObject => storyWithDefaults(POD_BEHAVIOUR);

/** manifestFor: the story under `name` in `controller`'s namespace, managed by it. */
export const manifestFor = (base: JsonObject, controller: Controller, name: string): JsonObject => ({
  ...base,
  metadata: { name, namespace: NAMESPACE[controller] },
  spec: controller === 'lineup' ? { ...(base.spec as JsonObject), managedBy: DEFAULT_CONTROLLER_NAME } : base.spec,
});

/** stagesOf: the replicatedJob names in order and their Job counts. */
export const stagesOf = (manifest: JsonObject): Stage[] =>
  ((manifest.spec as JsonObject).replicatedJobs as JsonObject[]).map((rjob) => ({ name: String(rjob.name), jobs: Number(rjob.replicas ?? 1) }));

/** jobSetName: the i-th JobSet of the burst. */
export const jobSetName = (index: number): string => `story2-${String(index).padStart(3, '0')}`;

/** soloJobSetName: the i-th JobSet started one at a time. */
export const soloJobSetName = (index: number): string => `solo-${index}`;

/** jobsOf: the names of a stage's Jobs (upstream's `<jobset>-<replicatedJob>-<index>`). */
export const jobsOf = (jobSet: string, stage: Stage): string[] => Array.from({ length: stage.jobs }, (_, index) => `${jobSet}-${stage.name}-${index}`);
