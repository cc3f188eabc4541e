/**
 * The one event Lineup sends through EventBridge, validated by the same zod
 * schema in the forwarder that produces it and the reconciler that consumes it. An event is a
 * hint — "JobSet X in cluster C may have changed" — never the input of a decision.
 */
import * as z from 'zod';

/** detail-type values. */
export const DetailType = {
  /** A JobSet Lineup manages changed in a way a decision depends on (or was deleted). */
  JobSetChanged: 'JobSet Changed',
  /** A child Job changed in a way a decision depends on (or was deleted). */
  JobChanged: 'Job Changed',
  /** Periodic or post-410 re-list: reconcile this JobSet whatever happened. */
  JobSetSync: 'JobSet Sync',
} as const;
export type DetailTypeName = (typeof DetailType)[keyof typeof DetailType];
export const DETAIL_TYPES = Object.values(DetailType) as [DetailTypeName, ...DetailTypeName[]];

/** Prefix of every event source; the full source is `lineup.<clusterId>`. */
export const EVENT_SOURCE_PREFIX = 'lineup.';

/** Cluster ids: what may follow the source prefix (also used in IAM conditions and DynamoDB keys). */
export const CLUSTER_ID_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Bounds on the names and versions an event carries, as Kubernetes has them (a longer value can
 * only come from a forged or broken sender: the event is refused, and the reconciler drops it as a
 * poison record, lib/reconcile/sqsBatch.ts). They bound what a trigger adds to a JobSet's state
 * item (lib/store/rules.ts MAX_PENDING_TRIGGERS) and its table keys, and the patterns keep the
 * `#` that separates key parts (lib/store/table.ts) out of names.
 */
export const EventBound = {
  /** A namespace: a DNS-1123 label (Kubernetes ValidateNamespaceName). */
  namespace: 63,
  /**
   * A JobSet's name: its child Jobs carry it as the jobset-name label value (at most 63
   * characters), and upstream's webhook requires every generated Job name to be a DNS-1035 label
   * (lib/jobset/validation.ts validateGeneratedNames), so no workable JobSet has a longer one.
   */
  jobSet: 63,
  /** An object's name: a DNS-1123 subdomain, what Kubernetes allows any object (child Jobs are at most 63 by the rule above). */
  name: 253,
  /** A uid: a UUID (36) as the API server assigns it, with room. */
  uid: 128,
  /** A resourceVersion: opaque to clients, an etcd revision (at most 20 digits) on every server Lineup knows, with room. */
  resourceVersion: 64,
} as const;

/** DNS-1123 label (namespaces) and subdomain (object names), Kubernetes' patterns. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** eventSource: the EventBridge source of a cluster's events. */
export const eventSource = (clusterId: string): string => `${EVENT_SOURCE_PREFIX}${clusterId}`;

/** clusterOfSource: the cluster id a source names, or undefined when it is not Lineup's. */
export const clusterOfSource = (source: string): string | undefined =>
  source.startsWith(EVENT_SOURCE_PREFIX) ? source.slice(EVENT_SOURCE_PREFIX.length) : undefined;

/** Largest EventBridge entry (the whole PutEvents entry counts); larger events are an error, never cut. */
export const MAX_EVENT_BYTES = 1024 * 1024;

/** The slim condition kept in events: enough to see a transition. */
const SlimConditionSchema = z.object({ type: z.string(), status: z.string(), reason: z.string().optional() });

/** Slim JobSet: what its decisions depend on — suspend, manager, deletion, status summary. */
export const SlimJobSetSchema = z.object({
  kind: z.literal('JobSet'),
  generation: z.number().int().optional(),
  deleting: z.boolean(),
  suspend: z.boolean(),
  managedBy: z.string().optional(),
  restarts: z.number().int(),
  terminalState: z.string().optional(),
  conditions: z.array(SlimConditionSchema),
});

/** Slim Job: the counters and flags gating and the policies read. */
export const SlimJobSchema = z.object({
  kind: z.literal('Job'),
  replicatedJob: z.string().optional(),
  restartAttempt: z.string().optional(),
  deleting: z.boolean(),
  suspend: z.boolean(),
  active: z.number().int(),
  ready: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  /** The planner's "ready": succeeded + ready pods reach min(parallelism, completions). */
  jobReady: z.boolean(),
  finalizers: z.number().int(),
  conditions: z.array(SlimConditionSchema),
});

/** Most objects one event names (its own and `also`): a JobSet's changes beyond it go as another event. */
export const MAX_OBJECTS_PER_EVENT = 32;

/**
 * One more object of the same JobSet that changed in the forwarder's window, as the event's own
 * object is named: the forwarder coalesces a JobSet's changes into one event per window, and the
 * reconciler reads again every object an event names.
 */
export const ObjectChangeSchema = z.object({
  kind: z.enum(['JobSet', 'Job']),
  name: z.string().min(1).max(EventBound.name).regex(DNS1123_SUBDOMAIN, 'name must be a DNS-1123 subdomain'),
  uid: z.string().max(EventBound.uid),
  resourceVersion: z.string().max(EventBound.resourceVersion),
  watchType: z.enum(['ADDED', 'MODIFIED', 'DELETED', 'SYNC']),
  observed: z.discriminatedUnion('kind', [SlimJobSetSchema, SlimJobSchema]).optional(),
});

/** The `detail` of every Lineup event. */
export const LineupEventDetailSchema = z.object({
  cluster: z.string().regex(CLUSTER_ID_PATTERN, 'cluster id must be a DNS label'),
  namespace: z.string().min(1).max(EventBound.namespace).regex(DNS1123_LABEL, 'namespace must be a DNS-1123 label'),
  jobSet: z.string().min(1).max(EventBound.jobSet).regex(DNS1123_SUBDOMAIN, 'jobSet must be a DNS-1123 subdomain'),
  /** The event's own object: kind, name, uid, resourceVersion, watchType, observed. */
  ...ObjectChangeSchema.shape,
  /** When the forwarder saw the change (epoch ms; the earliest, when the event names several), for the journal's per-hop latency; absent from older forwarders. */
  seenAt: z.number().int().nonnegative().optional(),
  /** Other objects of the JobSet that changed in the same window, newest state each (never the event's own object). */
  also: z.array(ObjectChangeSchema).max(MAX_OBJECTS_PER_EVENT - 1).optional(),
});

export type SlimJobSet = z.infer<typeof SlimJobSetSchema>;
export type SlimJob = z.infer<typeof SlimJobSchema>;
export type LineupEventDetail = z.infer<typeof LineupEventDetailSchema>;
export type ObjectChange = z.infer<typeof ObjectChangeSchema>;

/** An event as the forwarder puts it (before EventBridge adds id, time, account, region). */
export interface LineupEvent {
  readonly source: string;
  readonly detailType: DetailTypeName;
  readonly detail: LineupEventDetail;
}
