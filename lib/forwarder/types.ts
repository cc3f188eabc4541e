/**
 * What the forwarder needs: a watchable source of JobSets and Jobs (a Kubernetes API server, or
 * the simulated cluster) and a sink for events (EventBridge PutEvents, or the in-process bus).
 */
import type { Job, JobSet } from '../jobset/schema.ts';
import type { PutEventsEntry } from '../events/envelope.ts';

/** The two resources the forwarder watches. */
export type WatchedKind = 'JobSet' | 'Job';

/** Objects of a watched kind. */
export type WatchedObject<K extends WatchedKind> = K extends 'JobSet' ? JobSet : Job;

/** ListResult: a consistent snapshot and the resourceVersion to watch from. */
export interface ListResult<K extends WatchedKind> {
  readonly items: readonly WatchedObject<K>[];
  readonly resourceVersion: string;
}

/** WatchEvent: one change, or a bookmark that only advances the resourceVersion. */
export type WatchEvent<K extends WatchedKind> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: WatchedObject<K> }
  | { readonly type: 'BOOKMARK'; readonly resourceVersion: string };

/** How a watch ended without an error of the transport. */
export type WatchEnd = 'closed' | 'expired';

/**
 * WatchSource: list and watch JobSets (all namespaces) and Jobs carrying the
 * jobset.sigs.k8s.io/jobset-name label (all namespaces).
 */
export interface WatchSource {
  list<K extends WatchedKind>(kind: K): Promise<ListResult<K>>;
  /**
   * listPages: the snapshot `list` returns, a page at a time (each page's resourceVersion is the
   * snapshot's), so the caller holds one page of objects, not all of them: a source that pages
   * its lists offers it, and the forwarder then uses it instead of `list`.
   */
  listPages?<K extends WatchedKind>(kind: K): AsyncIterable<ListResult<K>>;
  /**
   * watch: stream changes after `resourceVersion` to `onEvent` until the server closes the
   * watch ('closed': reconnect from the last resourceVersion seen), the resourceVersion is too
   * old ('expired', HTTP 410: re-list), or `signal` aborts ('closed'). Transport failures reject.
   */
  watch<K extends WatchedKind>(
    kind: K,
    resourceVersion: string,
    onEvent: (event: WatchEvent<K>) => void | Promise<void>,
    signal: AbortSignal,
  ): Promise<WatchEnd>;
}

/** PutResult: which entries of a put failed, by index into the entries given. */
export interface PutResult {
  readonly failed: readonly { readonly index: number; readonly code: string; readonly message: string }[];
}

/** EventSink: where events go — at most 10 entries per call, like PutEvents. */
export interface EventSink {
  put(entries: readonly PutEventsEntry[]): Promise<PutResult>;
}
