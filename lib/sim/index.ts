/** The simulated cluster and `lineup simulate`'s engine (an adapter: imports the core, never the reverse). */
export { applyBehaviourAction, scheduleBehaviourActions } from './actions.ts';
export type { ActionTarget } from './actions.ts';
export { EMPTY_BEHAVIOUR, BehaviourFileSchema, loadBehaviour, parseBehaviour, resolveBehaviour } from './behaviour.ts';
export type { Behaviour, BehaviourAction, BehaviourFile, JobTiming, TimingOverrides } from './behaviour.ts';
export { SimCluster, objectKey, patchPodTemplate, toTimestamp } from './cluster.ts';
export type { ClusterChange, ClusterOptions, JobRef, SimEvent } from './cluster.ts';
export {
  DEFAULT_FAIL_MESSAGE,
  DEFAULT_FAIL_REASON,
  DEFAULT_NAMESPACE,
  DEFAULT_TIMING,
  DeleteReason,
  FOREGROUND_FINALIZER,
  JobMessage,
  JobReason,
  MAX_PASSES_PER_INSTANT,
  MAX_RETRY_BACKOFF_MS,
  POD_TERMINATION_MS,
  RETRY_BACKOFF_MS,
  SIM_EPOCH_MS,
  SIMULATE_OUTPUTS,
  SimulateDefaults,
} from './constants.ts';
export { formatSimulationText, formatVirtualTime } from './format.ts';
export type { TextContext } from './format.ts';
export { jobIsFinished, jobStatusViolations } from './jobStatusRules.ts';
export { EventQueue, Phase } from './queue.ts';
export type { EventHandle, PhaseValue } from './queue.ts';
export { simulate, simulationReport } from './simulate.ts';
export type { DeliveredEvent, EventDelivery, FinalState, PassError, SimulateOptions, SimulationCounters, SimulationReport, SimulationResult, StopReason } from './simulate.ts';
export { TimelineType, conditionChanges, timelineCondition } from './timeline.ts';
export type { TimelineCondition, TimelineEntry, TimelineTypeName } from './timeline.ts';
