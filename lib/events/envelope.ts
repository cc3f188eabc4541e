/**
 * The EventBridge envelope of a Lineup event. Powertools' EventBridge envelope would hand over
 * only `detail` and lose `replay-name`, so the schema extends an envelope schema instead: this
 * module's own, the fields of Powertools' EventBridgeSchema, because that one imports
 * `{ z } from 'zod'`, which keeps all of zod (its locales too) in every bundle that uses it.
 */
import * as z from 'zod';
import { DETAIL_TYPES, LineupEventDetailSchema, MAX_EVENT_BYTES, type LineupEvent } from './schema.ts';
import { LineupError, ErrorCode } from '../errors.ts';

/** EventBridgeEnvelopeSchema: any EventBridge event as a target receives it (Powertools' EventBridgeSchema). */
export const EventBridgeEnvelopeSchema = z.object({
  version: z.string(),
  id: z.string(),
  source: z.string(),
  account: z.string(),
  time: z.iso.datetime(),
  region: z.string(),
  resources: z.array(z.string()),
  'detail-type': z.string(),
  detail: z.unknown(),
  'replay-name': z.string().optional(),
});

/**
 * Bounds on what of the envelope a JobSet's state item keeps with each trigger: an EventBridge
 * event id is a UUID (36 characters), a replay name at most 64 characters (EventBridge's limit).
 */
export const EnvelopeBound = { id: 128, replayName: 64 } as const;

/** LineupEventBridgeSchema: a whole EventBridge event carrying a Lineup detail. */
export const LineupEventBridgeSchema = EventBridgeEnvelopeSchema.extend({
  id: z.string().max(EnvelopeBound.id),
  'replay-name': z.string().max(EnvelopeBound.replayName).optional(),
  // Lineup never reads the account; moto's EventBridge (the test tier's server) omits it.
  account: z.string().optional(),
  'detail-type': z.enum(DETAIL_TYPES),
  detail: LineupEventDetailSchema,
});
export type LineupEventBridgeEvent = z.infer<typeof LineupEventBridgeSchema>;

/** EventTooLargeError: an event over EventBridge's 1 MB entry limit (never cut silently). */
export class EventTooLargeError extends LineupError {
  readonly bytes: number;
  constructor(bytes: number, what: string) {
    super(ErrorCode.INVALID_INPUT, `event for ${what} is ${bytes} bytes, over the ${MAX_EVENT_BYTES}-byte EventBridge limit`);
    this.bytes = bytes;
  }
}

/** PutEventsEntry: the shape PutEvents takes for one entry. */
export interface PutEventsEntry {
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
  readonly EventBusName?: string | undefined;
}

/**
 * entrySize: EventBridge's size of an entry — UTF-8 bytes of Source, DetailType, Detail,
 * EventBusName (and Time, Resources, which Lineup does not send).
 */
export const entrySize = (entry: PutEventsEntry): number =>
  Buffer.byteLength(entry.Source) + Buffer.byteLength(entry.DetailType) + Buffer.byteLength(entry.Detail) + Buffer.byteLength(entry.EventBusName ?? '');

/** toPutEventsEntry: a Lineup event as a PutEvents entry; throws EventTooLargeError above 1 MB. */
export const toPutEventsEntry = (event: LineupEvent, eventBusName?: string): PutEventsEntry => {
  const entry: PutEventsEntry = {
    Source: event.source,
    DetailType: event.detailType,
    Detail: JSON.stringify(LineupEventDetailSchema.parse(event.detail)),
    EventBusName: eventBusName,
  };
  const bytes = entrySize(entry);
  if (bytes > MAX_EVENT_BYTES) throw new EventTooLargeError(bytes, `${event.detail.kind} ${event.detail.namespace}/${event.detail.name}`);
  return entry;
};
