/**
 * The reconciler's side of the forwarders' heartbeats: a `Heartbeat` record from the
 * queue becomes the cluster's newest heartbeat item (one conditional PutItem; a redelivered or
 * reordered one changes nothing) and, in the Lambda, one `Heartbeats` metric per cluster that the
 * stack's per-cluster alarm watches. A heartbeat replayed from the archive says nothing about now
 * and is dropped; so is one whose source is not its cluster's (a forwarder speaks for itself only),
 * and one sent more than HEARTBEAT_CLOCK_SKEW_MS ahead of the reconciler's clock (a forwarder's
 * clock gone wrong, or a forged time: docs/security.md). The item keeps the reconciler's own receipt time,
 * `receivedAt`, which alone says whether the cluster is watched (lib/fleet/status.ts watchState);
 * no forwarder may write it (infra/permissions.ts).
 */
import type { SQSRecord } from 'aws-lambda';
import { CounterName, type CounterSink } from '../counters.ts';
import { InvalidInputError } from '../errors.ts';
import { HeartbeatEventBridgeSchema } from '../events/heartbeat.ts';
import { clusterOfSource } from '../events/schema.ts';
import type { Log } from '../log.ts';
import { HEARTBEAT_CLOCK_SKEW_MS } from '../store/rules.ts';
import type { CheckpointStore } from '../store/types.ts';

/**
 * HeartbeatMetric: the metric the reconciler Lambda publishes per live heartbeat (namespace
 * METRICS_NAMESPACE, dimensions service=reconciler and `cluster`), which the stack's
 * per-cluster heartbeat alarm and dashboard line read.
 */
export const HeartbeatMetric = { name: 'Heartbeats', clusterDimension: 'cluster' } as const;

/** What became of one heartbeat record. */
export type HeartbeatOutcome =
  /** Kept as the cluster's newest heartbeat. */
  | 'heartbeat-recorded'
  /** A newer one was kept already (a redelivery, or reordered by the queue). */
  | 'heartbeat-stale'
  /** Replayed from the archive, its source is not its cluster's, or sent ahead of the reconciler's clock: logged and dropped. */
  | 'heartbeat-dropped';

/** HeartbeatRecorderDeps: the store, the clock, and who hears of each heartbeat (the Lambda's metric). */
export interface HeartbeatRecorderDeps {
  readonly store: Pick<CheckpointStore, 'putHeartbeat'>;
  readonly now: () => number;
  readonly counters: CounterSink;
  readonly log: Log;
  /** Called for every live heartbeat of a cluster, kept or stale: the Lambda publishes the per-cluster metric the alarm watches. */
  readonly onHeartbeat?: ((cluster: string) => void) | undefined;
}

/** MalformedHeartbeatError: a record whose detail-type says Heartbeat but whose event does not parse as one. */
export class MalformedHeartbeatError extends InvalidInputError {}

/** recordHeartbeat: keep the heartbeat `raw` (an SQS record's parsed body) carries. */
export const recordHeartbeat = async (raw: unknown, record: Pick<SQSRecord, 'messageId'>, deps: HeartbeatRecorderDeps): Promise<HeartbeatOutcome> => {
  const parsed = HeartbeatEventBridgeSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    throw new MalformedHeartbeatError(`message ${record.messageId}: not a Lineup heartbeat: ${problems}`);
  }
  const event = parsed.data;
  const { cluster, sentAt, intervalMs } = event.detail;
  if (clusterOfSource(event.source) !== cluster) {
    deps.log('warn', 'heartbeat dropped: its source does not match its cluster', { cluster, source: event.source });
    return 'heartbeat-dropped';
  }
  if (event['replay-name'] !== undefined) {
    deps.log('info', 'heartbeat dropped: replayed from the archive, it says nothing about now', { cluster, replayName: event['replay-name'] });
    return 'heartbeat-dropped';
  }
  const receivedAt = deps.now();
  if (sentAt > receivedAt + HEARTBEAT_CLOCK_SKEW_MS) {
    deps.log('warn', 'heartbeat dropped: sent ahead of the reconciler clock by more than the allowed skew', {
      cluster,
      sentAt: new Date(sentAt).toISOString(),
      receivedAt: new Date(receivedAt).toISOString(),
      skewAllowedMs: HEARTBEAT_CLOCK_SKEW_MS,
    });
    return 'heartbeat-dropped';
  }
  deps.onHeartbeat?.(cluster);
  const kept = await deps.store.putHeartbeat({ cluster, sentAt, receivedAt, intervalMs });
  if (kept) deps.counters.add(CounterName.HeartbeatsRecorded);
  return kept ? 'heartbeat-recorded' : 'heartbeat-stale';
};
