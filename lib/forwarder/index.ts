/** The forwarder adapter: cluster watch → filter → batched PutEvents, resuming from checkpoints. */
export { Batcher, reportOversize } from './batcher.ts';
export type { BatcherOptions } from './batcher.ts';
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
export { Forwarder } from './forwarder.ts';
export type { ForwarderOptions } from './forwarder.ts';
export type { EventSink, ListResult, PutResult, WatchEnd, WatchEvent, WatchSource, WatchedKind, WatchedObject } from './types.ts';
