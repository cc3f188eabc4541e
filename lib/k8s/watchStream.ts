/**
 * watchEvents: the events of one Kubernetes watch response — newline-delimited JSON, one
 * `{type, object}` per line — read as they arrive, with an idle timeout.
 *
 * Why the idle timeout: a connection that dies without a FIN or RST (a NAT that forgot it, a
 * node that vanished) would leave the watch waiting for ever. The API server sends a bookmark
 * about once a minute on a quiet watch only when asked for bookmarks; a connection silent for
 * WATCH_IDLE_MS is taken as lost and ends with WatchIdleError, which the watch source reads as
 * "closed": the caller reconnects from the last resourceVersion it took in. The clock runs only
 * while the reader waits for bytes, never while the caller handles an event.
 */
import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import * as z from 'zod';

/** WATCH_IDLE_MS: how long a watch connection may stay silent before it is taken as lost (client-node's Watch waited as long). */
export const WATCH_IDLE_MS = 30_000;

/** WatchLine: one event of a watch stream, its object not yet read by any schema. */
export interface WatchLine {
  readonly type: string;
  readonly object: unknown;
}

/** WatchLineSchema: the envelope of a watch event. */
const WatchLineSchema = z.looseObject({ type: z.string(), object: z.unknown() });

/** WatchIdleError: the connection was silent for `idleMs`. */
export class WatchIdleError extends Error {
  override readonly name = 'WatchIdleError';
  constructor(idleMs: number) {
    super(`watch: no byte for ${idleMs} ms, expected an event or a bookmark; taking the connection as lost`);
  }
}

/** WatchLineError: a line of the stream that is not a watch event. */
export class WatchLineError extends Error {
  override readonly name = 'WatchLineError';
}

/**
 * parseWatchLine: one line of a watch stream as its event; WatchLineError naming the line (cut
 * to 200 characters) when it is not JSON or not `{type, object}`.
 */
export const parseWatchLine = (line: string): WatchLine => {
  let value: unknown;
  try {
    value = JSON.parse(line) as unknown;
  } catch (error) {
    throw new WatchLineError(`watch: a line that is not JSON: ${line.slice(0, 200)}, expected {"type": …, "object": …}`, { cause: error });
  }
  const parsed = WatchLineSchema.safeParse(value);
  if (!parsed.success) throw new WatchLineError(`watch: a line that is not a watch event: ${line.slice(0, 200)}, expected {"type": …, "object": …}`);
  return { type: parsed.data.type, object: parsed.data.object };
};

/**
 * splitLines: the complete lines of `buffered` (blank ones dropped) and the rest, a line still
 * arriving.
 */
export const splitLines = (buffered: string): { readonly lines: string[]; readonly rest: string } => {
  const parts = buffered.split('\n');
  const rest = parts.pop() ?? '';
  return { lines: parts.map((line) => line.trim()).filter((line) => line !== ''), rest };
};

/**
 * watchEvents: the response's events in order; ends when the server ends the response, throws
 * WatchIdleError after `idleMs` of silence, WatchLineError on a line that is not an event, or
 * the socket's error. Leaving the loop early destroys an unfinished response.
 *
 * @example
 * for await (const { type, object } of watchEvents(await client.stream(spec))) …
 */
export async function* watchEvents(response: IncomingMessage, idleMs: number = WATCH_IDLE_MS): AsyncGenerator<WatchLine> {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => response.destroy(new WatchIdleError(idleMs)), idleMs);
  };
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  try {
    arm();
    for await (const chunk of response) {
      clearTimeout(timer);
      const { lines, rest } = splitLines(buffered + decoder.write(chunk as Buffer));
      buffered = rest;
      for (const line of lines) yield parseWatchLine(line);
      arm();
    }
    const last = (buffered + decoder.end()).trim();
    if (last !== '') yield parseWatchLine(last);
  } finally {
    clearTimeout(timer);
    if (!response.complete) response.destroy();
  }
}
