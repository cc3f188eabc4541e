/**
 * The Lambda functions' configuration, read from the environment the CDK app sets — the one
 * place the functions read process.env, validated with zod so a bad deployment fails at cold
 * start with a clear message instead of mid-reconcile.
 */
import * as z from 'zod';
import { DEFAULT_CONTROLLER_NAME } from '../jobset/managedBy.ts';
import { DEFAULT_MAX_JOBS_PER_JOBSET, DEFAULT_MAX_PODS_PER_JOBSET, JobSetLimitEnv } from '../jobset/size.ts';
import type { JobSetLimits } from '../jobset/size.ts';
import { HEARTBEAT_MISSING_MS } from '../fleet/status.ts';
import { HEARTBEAT_INTERVAL_MS } from '../forwarder/heartbeat.ts';

/** Environment variable names, shared with infra/ so both sides agree. */
export const EnvVar = {
  TableName: 'LINEUP_TABLE_NAME',
  EventBusName: 'LINEUP_EVENT_BUS_NAME',
  ControllerName: 'LINEUP_CONTROLLER_NAME',
  ClaimUnmanaged: 'LINEUP_CLAIM_UNMANAGED',
  ApplyReplays: 'LINEUP_APPLY_REPLAYS',
  /** JSON list of ClusterRecord, for clusters configured statically in the stack. */
  StaticClusters: 'LINEUP_STATIC_CLUSTERS',
  /** The cluster id a forwarder watch session serves. */
  ForwarderCluster: 'LINEUP_FORWARDER_CLUSTER',
  /** The longest a forwarder goes without writing a checkpoint, its heartbeat (milliseconds). */
  HeartbeatIntervalMs: 'LINEUP_HEARTBEAT_INTERVAL_MS',
  /** Milliseconds without a heartbeat after which the resync treats a cluster as unwatched. */
  HeartbeatMissingMs: 'LINEUP_HEARTBEAT_MISSING_MS',
  /** The resync only: comma-separated ids of clusters no Lineup forwarder watches, left out of the UnwatchedClusters metric. */
  UnalarmedClusters: 'LINEUP_UNALARMED_CLUSTERS',
  /** The reconciler only: the most Jobs one JobSet may make (more is rejected as invalid). */
  MaxJobsPerJobSet: JobSetLimitEnv.maxJobs,
  /** The reconciler only: the most Pods one JobSet may run at once (more is rejected as invalid). */
  MaxPodsPerJobSet: JobSetLimitEnv.maxPods,
  /** The reconciler only: the queue it reads, where it puts back the records of a cluster over its share. */
  ReconcilerQueueUrl: 'LINEUP_RECONCILER_QUEUE_URL',
  /** The reconciler only: how many invocations may work for one cluster at once (absent: no share). */
  SlotsPerCluster: 'LINEUP_SLOTS_PER_CLUSTER',
  /** `true`: the reconciler's journal keeps containers' environment values (lib/reconcile/redact.ts); default: redacted. */
  JournalKeepEnv: 'LINEUP_JOURNAL_KEEP_ENV',
} as const;

const flag = z.enum(['true', 'false']).default('false').transform((value) => value === 'true');

const ClusterAuthSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('eks'), clusterName: z.string().min(1), region: z.string().min(1), roleArn: z.string().optional() }),
  z.object({ type: z.literal('token'), tokenSecretArn: z.string().optional(), token: z.string().optional() }),
  z.object({ type: z.literal('kubeconfig'), path: z.string().min(1), context: z.string().optional() }),
]);

/** ClusterRecordSchema: a cluster registry entry as configuration carries it. */
export const ClusterRecordSchema = z.object({
  id: z.string().min(1),
  endpoint: z.string().url(),
  caData: z.string().optional(),
  auth: ClusterAuthSchema,
});

const LambdaEnvSchema = z.object({
  [EnvVar.TableName]: z.string().min(1),
  [EnvVar.EventBusName]: z.string().min(1).optional(),
  [EnvVar.ControllerName]: z.string().min(1).default(DEFAULT_CONTROLLER_NAME),
  [EnvVar.ClaimUnmanaged]: flag,
  [EnvVar.ApplyReplays]: flag,
  [EnvVar.StaticClusters]: z
    .string()
    .default('[]')
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `not JSON: ${(error as Error).message}` });
        return z.NEVER;
      }
    })
    .pipe(z.array(ClusterRecordSchema)),
  [EnvVar.ForwarderCluster]: z.string().min(1).optional(),
  [EnvVar.HeartbeatIntervalMs]: z.coerce.number().int().positive().default(HEARTBEAT_INTERVAL_MS),
  [EnvVar.HeartbeatMissingMs]: z.coerce.number().int().positive().default(HEARTBEAT_MISSING_MS),
  [EnvVar.UnalarmedClusters]: z
    .string()
    .default('')
    .transform((text) => text.split(',').map((id) => id.trim()).filter((id) => id.length > 0)),
  [EnvVar.MaxJobsPerJobSet]: z.coerce.number().int().positive().default(DEFAULT_MAX_JOBS_PER_JOBSET),
  [EnvVar.MaxPodsPerJobSet]: z.coerce.number().int().positive().default(DEFAULT_MAX_PODS_PER_JOBSET),
  [EnvVar.JournalKeepEnv]: flag,
  [EnvVar.ReconcilerQueueUrl]: z.string().url().optional(),
  [EnvVar.SlotsPerCluster]: z.coerce.number().int().positive().optional(),
}).refine((env) => (env[EnvVar.SlotsPerCluster] === undefined) === (env[EnvVar.ReconcilerQueueUrl] === undefined), {
  message: `${EnvVar.SlotsPerCluster} and ${EnvVar.ReconcilerQueueUrl} come together: a share needs the queue to put records back on`,
});

/** LambdaConfig: the parsed environment. */
export interface LambdaConfig {
  readonly tableName: string;
  readonly eventBusName: string | undefined;
  readonly controllerName: string;
  readonly claimUnmanaged: boolean;
  readonly applyReplays: boolean;
  readonly staticClusters: z.infer<typeof ClusterRecordSchema>[];
  readonly forwarderCluster: string | undefined;
  /** Forwarders only: the heartbeat interval. */
  readonly heartbeatIntervalMs: number;
  /** The resync only: how long without a heartbeat makes a cluster unwatched. */
  readonly heartbeatMissingMs: number;
  /** The resync only: clusters left out of the UnwatchedClusters metric (still polled when unwatched). */
  readonly unalarmedClusters: readonly string[];
  /** The reconciler only: the most Jobs and Pods one JobSet may make (the planner rejects a bigger one). */
  readonly jobSetLimits: JobSetLimits;
  /** The reconciler only: keep containers' environment values in the journal. */
  readonly journalKeepEnv: boolean;
  /** The reconciler only: each cluster's share of its invocations and the queue to put records back on; undefined: no share. */
  readonly fairShare: { readonly slotsPerCluster: number; readonly queueUrl: string } | undefined;
}

/** readLambdaConfig: parse `env`; throws one error listing every bad variable. */
export const readLambdaConfig = (env: Readonly<Record<string, string | undefined>>): LambdaConfig => {
  const parsed = LambdaEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`lineup: bad function configuration: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  const data = parsed.data;
  const slotsPerCluster = data[EnvVar.SlotsPerCluster];
  const queueUrl = data[EnvVar.ReconcilerQueueUrl];
  return {
    tableName: data[EnvVar.TableName],
    eventBusName: data[EnvVar.EventBusName],
    controllerName: data[EnvVar.ControllerName],
    claimUnmanaged: data[EnvVar.ClaimUnmanaged],
    applyReplays: data[EnvVar.ApplyReplays],
    staticClusters: data[EnvVar.StaticClusters],
    forwarderCluster: data[EnvVar.ForwarderCluster],
    heartbeatIntervalMs: data[EnvVar.HeartbeatIntervalMs],
    heartbeatMissingMs: data[EnvVar.HeartbeatMissingMs],
    unalarmedClusters: data[EnvVar.UnalarmedClusters],
    jobSetLimits: { maxJobs: data[EnvVar.MaxJobsPerJobSet], maxPods: data[EnvVar.MaxPodsPerJobSet] },
    journalKeepEnv: data[EnvVar.JournalKeepEnv],
    fairShare: slotsPerCluster !== undefined && queueUrl !== undefined ? { slotsPerCluster, queueUrl } : undefined,
  };
};
