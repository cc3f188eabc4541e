/**
 * EventBridgeSink: the EventSink over EventBridge PutEvents. It reports which entries failed by
 * index, so the batcher retries exactly those; client errors are turned into Lineup errors at this
 * boundary (the batcher retries them whole). The call itself is given: the SDK's client in the
 * Lambda functions (lib/hosts/lambdaAwsClients.ts sdkPutEvents), a signed request without the SDK
 * in the in-cluster forwarder (signedPutEvents), so this module imports neither.
 */
import * as z from 'zod';
import type { AwsJsonClient } from '../aws/jsonClient.ts';
import type { PutEventsEntry } from '../events/envelope.ts';
import { ForbiddenError, UnavailableError } from '../errors.ts';
import type { EventSink, PutResult } from './types.ts';

/** PutEventsRequest: the PutEvents input this sink sends (the API's field names). */
export interface PutEventsRequest {
  readonly Entries: { readonly Source: string; readonly DetailType: string; readonly Detail: string; readonly EventBusName?: string | undefined }[];
}

/** PutEventsAnswerSchema: the part of the PutEvents output read here. */
const PutEventsAnswerSchema = z.object({
  FailedEntryCount: z.number().optional(),
  Entries: z.array(z.object({ EventId: z.string().optional(), ErrorCode: z.string().optional(), ErrorMessage: z.string().optional() })).optional(),
});
export type PutEventsAnswer = z.infer<typeof PutEventsAnswerSchema>;

/** PutEvents: one PutEvents call. */
export type PutEvents = (request: PutEventsRequest) => Promise<PutEventsAnswer>;

/** signedPutEvents: PutEvents as a signed request of `client` (an EVENTBRIDGE AwsJsonClient); an answer of another shape is an error. */
export const signedPutEvents =
  (client: AwsJsonClient): PutEvents =>
  async (request) => {
    const answer = PutEventsAnswerSchema.safeParse(await client.call('PutEvents', request));
    if (!answer.success) throw new Error(`the PutEvents answer is not what the API documents: ${z.prettifyError(answer.error)}`);
    return answer.data;
  };

/** EventBridgeSinkOptions: the call and the bus. */
export interface EventBridgeSinkOptions {
  /** The call; make its client once per process (warm Lambda invocations reuse it). */
  readonly putEvents: PutEvents;
  /** Bus for entries that name none. @default undefined — the account's default bus */
  readonly eventBusName?: string | undefined;
}

/** Error code reported for an entry PutEvents answered for without an ErrorCode or EventId. */
export const MISSING_RESULT_CODE = 'MissingResult';

/** Status codes and SDK error names that say the caller is not allowed; retrying as-is will not help. */
const FORBIDDEN_STATUS = new Set([401, 403]);
const FORBIDDEN_NAMES = new Set(['AccessDeniedException', 'UnrecognizedClientException', 'InvalidSignatureException']);

/** asLineupError: a failed PutEvents (an SDK exception, or an AwsServiceError shaped like one) as a Lineup error, keeping it as the cause. */
const asLineupError = (error: unknown, entries: number): Error => {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  const name = error instanceof Error ? error.name : 'Error';
  const message = `put events of ${entries} entries failed: ${name}: ${error instanceof Error ? error.message : String(error)}`;
  return (status !== undefined && FORBIDDEN_STATUS.has(status)) || FORBIDDEN_NAMES.has(name)
    ? new ForbiddenError(message, { cause: error })
    : new UnavailableError(message, { cause: error });
};

/**
 * EventBridgeSink: puts entries with one PutEvents call and maps the answer's per-entry
 * ErrorCode (FailedEntryCount > 0) to PutResult.failed.
 *
 * @example
 * const sink = new EventBridgeSink({ putEvents: sdkPutEvents(new EventBridgeClient({})), eventBusName: 'lineup' });
 * const { failed } = await sink.put([toPutEventsEntry(event)]);
 */
export class EventBridgeSink implements EventSink {
  private readonly putEvents: PutEvents;
  private readonly eventBusName: string | undefined;

  constructor(options: EventBridgeSinkOptions) {
    this.putEvents = options.putEvents;
    this.eventBusName = options.eventBusName;
  }

  /** put: one PutEvents call (the caller keeps to 10 entries); throws ForbiddenError or UnavailableError when the call itself fails. */
  async put(entries: readonly PutEventsEntry[]): Promise<PutResult> {
    const request: PutEventsRequest['Entries'] = entries.map((entry) => ({
      Source: entry.Source,
      DetailType: entry.DetailType,
      Detail: entry.Detail,
      EventBusName: entry.EventBusName ?? this.eventBusName,
    }));
    let output;
    try {
      output = await this.putEvents({ Entries: request });
    } catch (error) {
      throw asLineupError(error, entries.length);
    }
    if (!output.FailedEntryCount) return { failed: [] };
    const results = output.Entries ?? [];
    const failed: { index: number; code: string; message: string }[] = [];
    entries.forEach((_, index) => {
      const result = results[index];
      if (result?.ErrorCode) {
        failed.push({ index, code: result.ErrorCode, message: result.ErrorMessage ?? '' });
      } else if (result?.EventId === undefined) {
        // FailedEntryCount says some failed, and this entry has neither an id nor an error:
        // count it failed, since retrying an event is harmless and losing one is not.
        failed.push({ index, code: MISSING_RESULT_CODE, message: 'no EventId or ErrorCode in the PutEvents answer' });
      }
    });
    return { failed };
  }
}
