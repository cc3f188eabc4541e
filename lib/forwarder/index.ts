/** The forwarder adapter: cluster watch → filter → batched PutEvents, resuming from checkpoints. */
export { Batcher, backoffDelay, realSleep, reportOversize } from './batcher.ts';
export type { Backoff, BatcherOptions, Sleep } from './batcher.ts';
export { EventBridgeSink, MISSING_RESULT_CODE } from './eventBridgeSink.ts';
export type { EventBridgeSinkOptions } from './eventBridgeSink.ts';
export {
  DropReason,
  changeOf,
  filterEvent,
  objectUid,
  ownerJobSetOf,
  seenOf,
  syncEvent,
  syncEventFor,
  vanishedEvent,
} from './filter.ts';
export type { DropReasonName, FilterContext, FilterDecision, ObservedChange, SeenObject } from './filter.ts';
export { Forwarder, abortableSleep } from './forwarder.ts';
export type { AbortableSleep, ForwarderOptions } from './forwarder.ts';
export type { EventSink, ListResult, PutResult, WatchEnd, WatchEvent, WatchSource, WatchedKind, WatchedObject } from './types.ts';
