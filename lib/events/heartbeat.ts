/**
 * The forwarder's heartbeat: every HEARTBEAT_INTERVAL_MS each forwarder puts one
 * `Heartbeat` event saying "the watch of cluster C is alive". It travels the reconciler's rule and
 * queue like every Lineup event, so a recorded heartbeat proves the whole path from the cluster's
 * forwarder to the reconciler; the reconciler keeps the newest per cluster (lib/fleet/heartbeatRecorder.ts).
 */
import * as z from 'zod';
import { EventBridgeEnvelopeSchema, type PutEventsEntry } from './envelope.ts';
import { CLUSTER_ID_PATTERN, eventSource } from './schema.ts';

/** HEARTBEAT_DETAIL_TYPE: the detail-type of a heartbeat. */
export const HEARTBEAT_DETAIL_TYPE = 'Heartbeat';

/** HeartbeatDetailSchema: what a heartbeat says. */
export const HeartbeatDetailSchema = z.object({
  cluster: z.string().regex(CLUSTER_ID_PATTERN, 'cluster id must be a DNS label'),
  /** Epoch ms the forwarder sent it at. */
  sentAt: z.number().int().nonnegative(),
  /** The forwarder's interval, ms: how soon the next one is due. */
  intervalMs: z.number().int().positive(),
});
export type HeartbeatDetail = z.infer<typeof HeartbeatDetailSchema>;

/** HeartbeatEventBridgeSchema: a whole EventBridge event carrying a heartbeat. */
export const HeartbeatEventBridgeSchema = EventBridgeEnvelopeSchema.extend({
  // moto's EventBridge (the test tier's server) omits the account.
  account: z.string().optional(),
  'detail-type': z.literal(HEARTBEAT_DETAIL_TYPE),
  detail: HeartbeatDetailSchema,
});
export type HeartbeatEvent = z.infer<typeof HeartbeatEventBridgeSchema>;

/** heartbeatEntry: the PutEvents entry of one heartbeat of `cluster`, sent at `sentAt`. */
export const heartbeatEntry = (detail: HeartbeatDetail, eventBusName?: string): PutEventsEntry => ({
  Source: eventSource(detail.cluster),
  DetailType: HEARTBEAT_DETAIL_TYPE,
  Detail: JSON.stringify(HeartbeatDetailSchema.parse(detail)),
  EventBusName: eventBusName,
});

/** isHeartbeatBody: whether a raw event (a parsed SQS body) is a heartbeat, so it is parsed as one. */
export const isHeartbeatBody = (raw: unknown): boolean =>
  typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>)['detail-type'] === HEARTBEAT_DETAIL_TYPE;
