/**
 * The alarms the stack creates, by name, and how many there are for a configuration — shared
 * by the monitoring construct (which creates them) and the cost model (which prices them), so
 * the cost of alarms follows the stack.
 */

/** FixedAlarm: the alarms every deployment has. */
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

/** heartbeatAlarmId: the construct id of a cluster's missing-heartbeat alarm. */
export const heartbeatAlarmId = (clusterId: string): string => `HeartbeatMissingAlarm-${clusterId}`;

/**
 * alarmCount: the alarms of a deployment with `lambdaForwarders` Lambda watch sessions (each has
 * an errors alarm) and `heartbeatClusters` clusters with a heartbeat alarm.
 */
export const alarmCount = (lambdaForwarders: number, heartbeatClusters = 0): number => Object.keys(FixedAlarm).length + lambdaForwarders + heartbeatClusters;
