/**
 * What the forwarder logs, shared by its batcher (lib/forwarder/batcher.ts), its watch loop
 * (lib/forwarder/forwarder.ts), whose checkpoint writes are its heartbeat; tests and
 * benchmarks look for the same lines.
 */

/** ForwarderLog: what the forwarder logs, each under a note of when. */
export const ForwarderLog = {
  /** An entry alone is over the entry limit: it is dropped whole (never cut) and counted. */
  entryTooLarge: 'event too large for EventBridge, dropped',
  /** Some entries of a put failed; exactly those are retried. */
  putPartiallyFailed: 'put events partially failed, retrying the failed entries',
  /** A put threw (network, throttling, credentials); the whole call is retried. */
  putFailed: 'put events failed, retrying the whole call',
  /** A watch ended with a transport error; it reconnects after a backoff. */
  watchFailed: 'watch failed, reconnecting after backoff',
  /** A list failed (initial or after 410); it is retried after a backoff. */
  listFailed: 'list failed, retrying after backoff',
  /** Reading the checkpointed resourceVersion failed; the kind is re-listed instead. */
  bookmarkReadFailed: 'reading the watch checkpoint failed, listing instead',
  /** Writing a checkpoint failed; the next flush writes a later one (events may be sent again after a crash). */
  bookmarkWriteFailed: 'writing the watch checkpoint failed',
  /** The watch's resourceVersion was compacted (410 Gone): re-list and sync every JobSet. */
  watchExpired: 'watch expired (410 Gone), re-listing',
  /** A watch started from the checkpointed resourceVersion, without a list. */
  resumed: 'resuming watch from checkpoint',
  /** A list finished and the watch starts from its resourceVersion. */
  listed: 'listed, watching from the list resourceVersion',
  /** A watch event could not be turned into a Lineup event (a detail the shared schema refuses); it is dropped and counted. */
  eventFailed: 'watch event not forwarded: it makes no valid event',
  /** The forwarder stopped (abort or end of the watch session) after flushing. */
  stopped: 'forwarder stopped',
} as const;
