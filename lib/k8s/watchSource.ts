/**
 * KubeWatchSource: the forwarder's WatchSource over a real API server — paged lists and raw
 * watches (lib/k8s/watchStream.ts, no informer: the forwarder owns resumption, checkpoints and
 * re-lists), across all namespaces.
 */
import * as z from 'zod';
import { Label } from '../jobset/api.ts';
import { CounterName, type CounterSink } from '../counters.ts';
import { JobSchema, JobSetSchema } from '../jobset/schema.ts';
import type { Log } from '../log.ts';
import type { ListResult, WatchEnd, WatchEvent, WatchedKind, WatchedObject, WatchSource } from '../forwarder/types.ts';
import type { KubeEndpoint } from './endpoint.ts';
import { httpStatusOf, parseStatus, statusToLineupError, toLineupError } from './errors.ts';
import { KubeRestClient, resourcePath } from './rest.ts';
import type { Query } from './rest.ts';
import { WATCH_IDLE_MS, WatchIdleError, watchEvents } from './watchStream.ts';
import { KubeResource, kubeRetryPolicy, parseObject } from './gateway.ts';
import type { RetryTuning } from './gateway.ts';
import { withRetry } from './retry.ts';
import { LineupError, UnavailableError } from '../errors.ts';

/** Items per page of the forwarder's list requests (limit/continue), so a large cluster is not read in one response. */
export const KUBE_LIST_PAGE_SIZE = 500;

/** ACCESS_CHECK_DEADLINE_MS: how long checkAccess waits for its answers before calling the server unreachable. */
export const ACCESS_CHECK_DEADLINE_MS = 20_000;

/** What is listed and watched per kind: the API path, the label selector, the schema. */
const watched = {
  JobSet: { resource: KubeResource.JobSet, labelSelector: undefined, schema: JobSetSchema, what: 'jobsets' },
  // Existence selector: every Job a JobSet controller created, whatever its JobSet.
  Job: { resource: KubeResource.Job, labelSelector: Label.JobSetName, schema: JobSchema, what: 'jobs' },
} as const;

/** ListPageSchema: the envelope of a list page (items are parsed one by one with the kind's schema). */
const ListPageSchema = z.looseObject({
  metadata: z.looseObject({ resourceVersion: z.string().optional(), continue: z.string().optional() }).optional(),
  items: z.array(z.unknown()).optional(),
});

/** BookmarkObjectSchema: a BOOKMARK event's object carries only its kind and metadata.resourceVersion. */
const BookmarkObjectSchema = z.looseObject({ metadata: z.looseObject({ resourceVersion: z.string() }) });

/** WatchPhase: the `type` values of a watch event. */
const WatchPhase = {
  Added: 'ADDED',
  Modified: 'MODIFIED',
  Deleted: 'DELETED',
  Bookmark: 'BOOKMARK',
  Error: 'ERROR',
} as const;

/** KubeWatchSourceOptions: the cluster, where request counts go, list paging and watch length. */
export interface KubeWatchSourceOptions {
  /** The cluster (lib/k8s/auth.ts clusterAccessFor, or a kubeconfig's through lib/k8s/kubeConfigFile.ts). */
  readonly endpoint: KubeEndpoint;
  readonly counters: CounterSink;
  /** Items per list page. @default KUBE_LIST_PAGE_SIZE */
  readonly pageSize?: number | undefined;
  /**
   * Ask the server to end each watch after this many seconds ('closed'); a Lambda watch session
   * sets it below its remaining time. Shortly before the end the server sends a bookmark, when
   * the resourceVersion moved on since the watch's last event.
   * @default the server's own (--min-request-timeout, 30 to 60 minutes)
   */
  readonly timeoutSeconds?: number | undefined;
  /**
   * Where an object Lineup cannot read is reported. Such an object is skipped (and counted as
   * `k8s.unreadable`) instead of failing the watch: re-reading the same event forever would stop
   * every other change of the cluster from being forwarded.
   */
  readonly log?: Log | undefined;
  /**
   * List and watch this namespace only (namespace-scoped RBAC suffices then). The many-clusters
   * benchmark runs one forwarder per namespace, each standing in for a cluster.
   * @default every namespace
   */
  readonly namespace?: string | undefined;
  /** How long a watch connection may stay silent before it is taken as lost ('closed'). @default WATCH_IDLE_MS */
  readonly idleMs?: number | undefined;
}

/**
 * KubeWatchSource: list and watch JobSets and labelled Jobs in all namespaces (or one). Each list page
 * (`k8s.list`) and each watch (`k8s.watch`) is ONE request: a failure goes back to the caller as a
 * Lineup error — UnavailableError for "not now" (429, 5xx, no connection, with the server's
 * Retry-After) — and the forwarder's loop, which retries until it succeeds, is the one layer that
 * retries it. Retrying here as well would multiply the two policies (a failing list once made
 * about 40 requests in 11 s).
 *
 * @example
 * const source = new KubeWatchSource({ endpoint, counters });
 * const { items, resourceVersion } = await source.list('JobSet');
 * const end = await source.watch('JobSet', resourceVersion, onEvent, signal); // 'closed' | 'expired'
 */
export class KubeWatchSource implements WatchSource {
  private readonly client: KubeRestClient;
  private readonly idleMs: number;
  private readonly counters: CounterSink;
  private readonly pageSize: number;
  private readonly timeoutSeconds: number | undefined;
  private readonly log: Log;
  private readonly namespace: string | undefined;

  constructor(options: KubeWatchSourceOptions) {
    this.namespace = options.namespace;
    this.log = options.log ?? (() => undefined);
    this.client = new KubeRestClient(options.endpoint);
    this.idleMs = options.idleMs ?? WATCH_IDLE_MS;
    this.counters = options.counters;
    this.pageSize = options.pageSize ?? KUBE_LIST_PAGE_SIZE;
    this.timeoutSeconds = options.timeoutSeconds;
  }

  /**
   * checkAccess: within `deadlineMs`, one list request of at most one object per kind, retried on KUBE_RETRY (or
   * `tuning`): for a host that must stop with a clear error when the server cannot be reached,
   * refuses the credentials or the verbs, or serves no JobSets (`lineup run`), where the forwarder
   * would retry for ever. Rejects with the request's Lineup error (UnavailableError once the
   * retries are used up, UnauthenticatedError, ForbiddenError, NotFoundError).
   */
  async checkAccess(tuning: RetryTuning = {}, deadlineMs = ACCESS_CHECK_DEADLINE_MS): Promise<void> {
    // A server that accepts the connection and never answers would hang the check through its
    // retries. Past the deadline the check fails as an unreachable server does.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new UnavailableError(`list jobsets: no answer within ${String(deadlineMs / 1000)} s`)), deadlineMs);
    });
    try {
      await Promise.race([this.listOneOfEach(tuning), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** listOneOfEach: checkAccess's requests, one list of at most one object per kind. */
  private async listOneOfEach(tuning: RetryTuning): Promise<void> {
    for (const kind of ['JobSet', 'Job'] as const) {
      const target = watched[kind];
      const what = `list ${target.what}`;
      try {
        await withRetry(
          () => {
            this.counters.add(`${CounterName.KubePrefix}list`);
            return this.client.get(resourcePath(target.resource), { labelSelector: target.labelSelector, limit: 1 });
          },
          { counters: this.counters, policy: kubeRetryPolicy(tuning), sleep: tuning.sleep, random: tuning.random, what },
        );
      } catch (error) {
        throw toLineupError(error, what);
      }
    }
  }

  /** readable: the object parsed, or undefined (reported and counted) when Lineup cannot read it. */
  private readable<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.infer<S> | undefined {
    try {
      return parseObject(schema, raw, what);
    } catch (error) {
      this.counters.add(CounterName.KubeUnreadable);
      this.log('error', 'skipped an object Lineup cannot read', { error: (error as Error).message });
      return undefined;
    }
  }

  /**
   * list: every object of the kind (listPages, collected). A failed page fails the list (a
   * continue token that expired is WatchExpiredError): the caller lists again from the first page.
   */
  async list<K extends WatchedKind>(kind: K): Promise<ListResult<K>> {
    const items: WatchedObject<K>[] = [];
    let resourceVersion = '';
    for await (const page of this.listPages(kind)) {
      items.push(...page.items);
      resourceVersion = page.resourceVersion;
    }
    return { items, resourceVersion };
  }

  /**
   * listPages: every object of the kind, one page (`limit` pageSize, then `continue`) at a time,
   * each page parsed only when the caller asks for it; every page carries the first page's
   * resourceVersion (the snapshot the pages belong to). A failed page rejects the iteration.
   */
  async *listPages<K extends WatchedKind>(kind: K): AsyncGenerator<ListResult<K>> {
    const target = watched[kind];
    const what = `list ${target.what}`;
    let resourceVersion: string | undefined;
    let token: string | undefined;
    do {
      const continueToken = token;
      const query: Query = { labelSelector: target.labelSelector, limit: this.pageSize, continue: continueToken };
      const raw = await this.request(what, () => this.client.get(resourcePath(target.resource, this.namespace), query));
      const page = parseObject(ListPageSchema, raw, what);
      resourceVersion ??= page.metadata?.resourceVersion;
      const items: WatchedObject<K>[] = [];
      for (const [index, item] of (page.items ?? []).entries()) {
        const object = this.readable(target.schema, item, `${what}: item ${index}`);
        if (object !== undefined) items.push(object as WatchedObject<K>);
      }
      token = page.metadata?.continue || undefined;
      yield { items, resourceVersion: resourceVersion ?? '' };
    } while (token !== undefined);
  }

  /**
   * watch: one watch from `resourceVersion` with bookmarks. Events reach `onEvent` one at a time,
   * in order (a slow handler holds the rest back: the stream is read no further meanwhile). Ends
   * 'expired' on a 410 answer or an ERROR event with code 410; 'closed' when the server ends the
   * watch, the connection goes silent for idleMs (WATCH_IDLE_MS: reconnect from the last
   * resourceVersion) or `signal` aborts (after the event in hand is handled; no further one is).
   * Rejects with a Lineup error on a refused watch (UnavailableError for 429/5xx/connection,
   * e.g. the 429 a CRD's watch cache answers while it initialises, with its Retry-After), other
   * ERROR events, a transport failure and a throwing `onEvent`; the caller reconnects from the
   * last resourceVersion it took in.
   */
  async watch<K extends WatchedKind>(
    kind: K,
    resourceVersion: string,
    onEvent: (event: WatchEvent<K>) => void | Promise<void>,
    signal: AbortSignal,
  ): Promise<WatchEnd> {
    if (signal.aborted) return 'closed';
    const target = watched[kind];
    const what = `watch ${target.what}`;
    this.counters.add(`${CounterName.KubePrefix}watch`);
    const query: Query = {
      watch: true,
      resourceVersion,
      allowWatchBookmarks: true,
      labelSelector: target.labelSelector,
      timeoutSeconds: this.timeoutSeconds,
    };
    let response;
    try {
      response = await this.client.stream({ method: 'GET', path: resourcePath(target.resource, this.namespace), query, signal });
    } catch (error) {
      if (signal.aborted) return 'closed';
      if (httpStatusOf(error) === 410) return 'expired';
      throw toLineupError(error, what);
    }
    const opened = response;
    const onAbort = (): void => {
      opened.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const { type, object } of watchEvents(opened, this.idleMs)) {
        if (signal.aborted) return 'closed';
        const event = this.eventOf(target, what, type, object);
        if (event === 'expired') return 'expired';
        if (event === undefined) continue;
        try {
          await onEvent(event as WatchEvent<K>);
        } catch (error) {
          throw toLineupError(error, `${what}: event handler`);
        }
      }
      return 'closed';
    } catch (error) {
      if (error instanceof LineupError) throw error;
      // Aborted, or a watch that was flowing and went silent: reconnected, like a server-side close.
      if (signal.aborted || error instanceof WatchIdleError) return 'closed';
      throw toLineupError(error, what);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * eventOf: a watch line as the event handed over; undefined for an object Lineup cannot read
   * (skipped, reported) or a type it does not know; 'expired' for ERROR 410. Another ERROR
   * event throws its Lineup error.
   */
  private eventOf(target: (typeof watched)[WatchedKind], what: string, type: string, object: unknown): WatchEvent<WatchedKind> | 'expired' | undefined {
    if (type === WatchPhase.Added || type === WatchPhase.Modified || type === WatchPhase.Deleted) {
      const readable = this.readable(target.schema, object, `${what}: ${type} event`);
      return readable === undefined ? undefined : ({ type, object: readable } as WatchEvent<WatchedKind>);
    }
    if (type === WatchPhase.Bookmark) {
      const bookmark = parseObject(BookmarkObjectSchema, object, `${what}: BOOKMARK event`);
      return { type: 'BOOKMARK', resourceVersion: bookmark.metadata.resourceVersion };
    }
    if (type === WatchPhase.Error) {
      const status = parseStatus(object);
      const code = status?.code ?? 500;
      if (code === 410) return 'expired';
      throw statusToLineupError(code, status, what, object);
    }
    return undefined;
  }

  /** request: one list request (counted as k8s.list, never retried here), its failure as a Lineup error. */
  private async request<T>(what: string, send: () => Promise<T>): Promise<T> {
    this.counters.add(`${CounterName.KubePrefix}list`);
    try {
      return await send();
    } catch (error) {
      throw toLineupError(error, what);
    }
  }
}
