/**
 * The alarms the stack creates, by name, and how many there are for a configuration — shared
 * by the monitoring construct (which creates them) and the cost model (which prices them), so
 * the cost of alarms follows the stack.
 */

/** FixedAlarm: the alarms of the pipeline every deployment has. */
export const FixedAlarm = {
  /** Records the reconciler failed MAX_RECEIVE_COUNT times sit in the dead-letter queue. */
  DeadLetters: 'DeadLettersAlarm',
  /** Events EventBridge could not deliver to the queue. */
  DeliveryDeadLetters: 'DeliveryDeadLettersAlarm',
  /** The oldest queued message is older than oldestMessageAlarmSeconds: the reconciler is not keeping up. */
  QueueBacklog: 'QueueBacklogAlarm',
  /** The reconciler threw (not per-record failures, which SQS retries). */
  ReconcilerErrors: 'ReconcilerErrorsAlarm',
  /** A resync run threw. */
  ResyncErrors: 'ResyncErrorsAlarm',
} as const;

/** FleetAlarm: the alarms over the whole fleet, one each however many clusters there are. */
export const FleetAlarm = {
  /** The resync's UnwatchedClusters is 1 or more (or missing: the resync is not running). Every deployment has it. */
  UnwatchedClusters: 'UnwatchedClustersAlarm',
  /** A Lambda forwarder's watch session failed; only when some cluster's forwarder runs as a Lambda. */
  ForwarderSessionErrors: 'ForwarderSessionErrorsAlarm',
} as const;

/**
 * alarmCount: the alarms of a deployment, `lambdaForwarders` of whose clusters have a Lambda watch
 * session: the fixed ones, the unwatched-clusters one, and one for every Lambda forwarder's errors
 * when there is any — never one per cluster.
 */
export const alarmCount = (lambdaForwarders: number): number => Object.keys(FixedAlarm).length + 1 + (lambdaForwarders > 0 ? 1 : 0);
