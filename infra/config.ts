/**
 * The stack's configuration: what an operator writes in CDK context (`lineup:config`) or in a
 * JSON/YAML file named by `lineup:configFile`, validated by one zod schema so a bad value fails
 * `cdk synth` with a message naming the field, the value and what was expected.
 *
 * Every default lives here once, as a named constant; doc comments name the constant instead of
 * repeating its value.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { DEFAULT_STACK_NAME } from '../lib/constants.ts';
import { DEFAULT_CONTROLLER_NAME } from '../lib/jobset/managedBy.ts';
import { DEFAULT_MAX_JOBS_PER_JOBSET, DEFAULT_MAX_PODS_PER_JOBSET } from '../lib/jobset/size.ts';
import { MAX_MANAGED_BY_LENGTH } from '../lib/jobset/admission.ts';
import { CLUSTER_ID_PATTERN } from '../lib/events/schema.ts';

/** CONFIG_CONTEXT_KEY: the CDK context key holding the configuration (an object, or its JSON text from `-c`). */
export const CONFIG_CONTEXT_KEY = 'lineup:config';
/** CONFIG_FILE_CONTEXT_KEY: the CDK context key naming a JSON or YAML configuration file (used when CONFIG_CONTEXT_KEY is absent). */
export const CONFIG_FILE_CONTEXT_KEY = 'lineup:configFile';

export { DEFAULT_STACK_NAME };
/** DEFAULT_ARCHIVE_RETENTION_DAYS: how long the bus archive keeps events for replay. */
export const DEFAULT_ARCHIVE_RETENTION_DAYS = 14;
/** DEFAULT_RECONCILER_MAX_CONCURRENCY: most reconciler invocations the SQS event source runs at once. */
export const DEFAULT_RECONCILER_MAX_CONCURRENCY = 10;
/** MIN_RECONCILER_MAX_CONCURRENCY: the lowest ScalingConfig.MaximumConcurrency Lambda accepts. */
export const MIN_RECONCILER_MAX_CONCURRENCY = 2;
/** MAX_RECONCILER_MAX_CONCURRENCY: the highest ScalingConfig.MaximumConcurrency Lambda accepts. */
export const MAX_RECONCILER_MAX_CONCURRENCY = 1000;
export { DEFAULT_MAX_JOBS_PER_JOBSET, DEFAULT_MAX_PODS_PER_JOBSET };
/** DEFAULT_BATCHING_WINDOW_SECONDS: how long the event source gathers records before invoking the reconciler. */
export const DEFAULT_BATCHING_WINDOW_SECONDS = 1;
/** MAX_BATCHING_WINDOW_SECONDS: Lambda's limit on MaximumBatchingWindowInSeconds. */
export const MAX_BATCHING_WINDOW_SECONDS = 300;
/** DEFAULT_RESYNC_MINUTES: minutes between two resync runs (expired leases, failed passes, due wake-ups). */
export const DEFAULT_RESYNC_MINUTES = 1;
/** DEFAULT_FULL_RESYNC_HOURS: hours between two full re-lists of every known JobSet. */
export const DEFAULT_FULL_RESYNC_HOURS = 24;
/** DEFAULT_LOG_RETENTION_DAYS: how long the functions' log groups keep logs. */
export const DEFAULT_LOG_RETENTION_DAYS = 30;
/** DEFAULT_HEARTBEAT_MISSING_MINUTES: minutes without a forwarder checkpoint after which the resync treats a cluster as unwatched (and counts it in UnwatchedClusters). */
export const DEFAULT_HEARTBEAT_MISSING_MINUTES = 5;
/** DEFAULT_OLDEST_MESSAGE_ALARM_SECONDS: age of the queue's oldest message above which the backlog alarm fires. */
export const DEFAULT_OLDEST_MESSAGE_ALARM_SECONDS = 300;

/** ForwarderMode: where a cluster's forwarder runs and how it gets AWS credentials. */
export const ForwarderMode = {
  /** A Deployment in the cluster (infra/manifests/forwarder.yaml); the stack associates its ServiceAccount with a role by EKS Pod Identity. */
  PodIdentity: 'pod-identity',
  /** A Deployment in the cluster whose ServiceAccount is annotated with a role trusted through the cluster's IAM OIDC provider (IRSA). */
  Irsa: 'irsa',
  /** A Lambda "watch session" started every WATCH_SESSION_MAX_MS by EventBridge Scheduler; nothing runs in the cluster. */
  Lambda: 'lambda',
  /** No forwarder from this stack (events come from elsewhere, e.g. `lineup run`, or the cluster is only resynced). */
  None: 'none',
} as const;
export type ForwarderModeName = (typeof ForwarderMode)[keyof typeof ForwarderMode];

/** DEFAULT_FORWARDER_MODE: the forwarder of a cluster that names none. */
export const DEFAULT_FORWARDER_MODE: ForwarderModeName = ForwarderMode.PodIdentity;

const ARN_PATTERN = /^arn:aws[a-z-]*:/;
const roleArn = z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/.+$/, { error: (issue) => `expected an IAM role ARN, got ${JSON.stringify(issue.input)}` });

/**
 * SECRET_ARN_PATTERN: a Secrets Manager secret's full ARN (with the six characters Secrets Manager
 * appends to the name), so the reconciler's grant names exactly that secret.
 */
const SECRET_ARN_PATTERN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:.+-[A-Za-z0-9]{6}$/;

/** ClusterConfigSchema: one cluster Lineup serves: an EKS cluster, or (with tokenSecretArn) any cluster reached with a bearer token. */
export const ClusterConfigSchema = z
  .strictObject({
    /** Cluster id: the `lineup.<id>` event source, the registry key and part of construct IDs, so it never changes. */
    id: z.string().regex(CLUSTER_ID_PATTERN, { error: (issue) => `cluster id must be a DNS label (${CLUSTER_ID_PATTERN.source}), got ${JSON.stringify(issue.input)}` }),
    /** The EKS cluster name: EKS tokens are signed for it, and access entries name it. Required unless tokenSecretArn is given. */
    clusterName: z.string().min(1).optional(),
    /**
     * A cluster that is not EKS (or an EKS cluster reached without IAM): the full ARN of the
     * Secrets Manager secret whose text is the bearer token of Lineup's identity in it. Needs
     * endpoint and caData; the reconciler (and a `lambda` forwarder) may read exactly this
     * secret; a secret encrypted with a customer-managed KMS key needs that key's kms:Decrypt
     * granted to them as well (not done by the stack). @default none: an EKS cluster
     */
    tokenSecretArn: z
      .string()
      .regex(SECRET_ARN_PATTERN, { error: (issue) => `expected a Secrets Manager secret's full ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), got ${JSON.stringify(issue.input)}` })
      .optional(),
    /** Region of the EKS cluster. @default the stack's region */
    region: z.string().min(1).optional(),
    /**
     * API server endpoint. With caData, the stack registers the cluster without asking EKS.
     * @default read from eks:DescribeCluster at deploy time
     */
    endpoint: z.url({ protocol: /^https$/ }).optional(),
    /** Base64 PEM of the cluster's certificate authority. @default read from eks:DescribeCluster with the endpoint */
    caData: z.string().min(1).optional(),
    /**
     * A role the reconciler assumes to sign EKS tokens (a cluster in another account maps this
     * role in its own access entry). @default none: the reconciler signs with its own role
     */
    accessRoleArn: roleArn.optional(),
    /**
     * Create the EKS access entries (and the Pod Identity association) in this stack. Only for
     * clusters in the stack's account and region whose authentication mode includes API.
     * @default true for an EKS cluster, false (and only false) for a token cluster
     */
    manageAccess: z.boolean().optional(),
    /** Where the cluster's forwarder runs. @default DEFAULT_FORWARDER_MODE for an EKS cluster, `none` for a token cluster */
    forwarder: z.enum(ForwarderMode).optional(),
    /** ARN of the cluster's IAM OIDC provider; required with forwarder `irsa`. */
    oidcProviderArn: z.string().regex(/^arn:aws[a-z-]*:iam::\d{12}:oidc-provider\/.+$/).optional(),
    /**
     * Roles outside this stack that run this cluster's forwarder (typically in the cluster's own
     * account). Each gets a bus policy statement allowing PutEvents with source `lineup.<id>`
     * only, and a table policy statement allowing only this cluster's checkpoint items.
     * @default none
     */
    forwarderRoleArns: z.array(roleArn).default([]),
    /**
     * Count the cluster in the fleet's UnwatchedClusters alarm when its forwarder writes no
     * checkpoint for heartbeatMissingMinutes. Off for a cluster no Lineup forwarder watches (the
     * resync polls it all the same). @default true
     */
    heartbeatAlarm: z.boolean().default(true),
  })
  .transform((cluster) => {
    const token = cluster.tokenSecretArn !== undefined;
    return {
      ...cluster,
      manageAccess: cluster.manageAccess ?? !token,
      forwarder: cluster.forwarder ?? (token ? ForwarderMode.None : DEFAULT_FORWARDER_MODE),
    };
  })
  .superRefine((cluster, ctx) => {
    if (cluster.tokenSecretArn === undefined && cluster.clusterName === undefined) {
      ctx.addIssue({ code: 'custom', path: ['clusterName'], message: `an EKS cluster needs clusterName (or a token cluster tokenSecretArn), got neither (cluster ${cluster.id})` });
    }
    if (cluster.tokenSecretArn !== undefined) {
      if (cluster.endpoint === undefined) {
        ctx.addIssue({ code: 'custom', path: ['endpoint'], message: `a token cluster needs endpoint and caData (nothing can look them up), got no endpoint (cluster ${cluster.id})` });
      }
      if (cluster.manageAccess) {
        ctx.addIssue({ code: 'custom', path: ['manageAccess'], message: `a token cluster has no EKS access entries to manage, got manageAccess true (cluster ${cluster.id})` });
      }
      if (cluster.forwarder !== ForwarderMode.None && cluster.forwarder !== ForwarderMode.Lambda) {
        ctx.addIssue({ code: 'custom', path: ['forwarder'], message: `a token cluster's forwarder is none or lambda (${cluster.forwarder} needs EKS), got ${cluster.forwarder} (cluster ${cluster.id})` });
      }
    }
    if (cluster.forwarder === ForwarderMode.Irsa && cluster.oidcProviderArn === undefined) {
      ctx.addIssue({ code: 'custom', path: ['oidcProviderArn'], message: `forwarder irsa needs oidcProviderArn, got none (cluster ${cluster.id})` });
    }
    if ((cluster.endpoint === undefined) !== (cluster.caData === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['caData'], message: `endpoint and caData go together, got only ${cluster.endpoint === undefined ? 'caData' : 'endpoint'} (cluster ${cluster.id})` });
    }
    if (cluster.forwarder === ForwarderMode.PodIdentity && !cluster.manageAccess) {
      ctx.addIssue({ code: 'custom', path: ['forwarder'], message: `forwarder pod-identity needs manageAccess (the stack creates the association), got manageAccess false (cluster ${cluster.id})` });
    }
  });
export type ClusterConfig = z.infer<typeof ClusterConfigSchema>;

/** eksClusterName: the EKS name of a cluster that needs one (access entries, DescribeCluster); the schema ensures every EKS cluster has it. */
export const eksClusterName = (cluster: ClusterConfig): string => {
  if (cluster.clusterName === undefined) throw new Error(`cluster ${cluster.id} has no clusterName, expected one for an EKS cluster`);
  return cluster.clusterName;
};

/**
 * VpcConfigSchema: private endpoints — the reconciler and the resync run in these subnets with
 * these security groups (docs/deploy.md "Private endpoints"). The subnets need no route to the
 * internet: the stack adds the VPC endpoints the two functions call (createEndpoints).
 */
export const VpcConfigSchema = z.strictObject({
  /** The VPC the subnets belong to (the endpoints are created in it). */
  vpcId: z.string().regex(/^vpc-([0-9a-f]{8}|[0-9a-f]{17})$/, { error: (issue) => `expected a VPC id (vpc-…), got ${JSON.stringify(issue.input)}` }),
  /** Private subnets, one per availability zone the functions should use. */
  subnetIds: z.array(z.string().regex(/^subnet-([0-9a-f]{8}|[0-9a-f]{17})$/, { error: (issue) => `expected a subnet id (subnet-…), got ${JSON.stringify(issue.input)}` })).min(1),
  /**
   * Security groups of the functions and of the interface endpoints: they must allow HTTPS (443)
   * between their members and out to the clusters' API endpoints.
   */
  securityGroupIds: z.array(z.string().regex(/^sg-([0-9a-f]{8}|[0-9a-f]{17})$/, { error: (issue) => `expected a security group id (sg-…), got ${JSON.stringify(issue.input)}` })).min(1),
  /** Route tables of the subnets: the DynamoDB gateway endpoint is attached to them. Required with createEndpoints. */
  routeTableIds: z.array(z.string().regex(/^rtb-([0-9a-f]{8}|[0-9a-f]{17})$/, { error: (issue) => `expected a route table id (rtb-…), got ${JSON.stringify(issue.input)}` })).default([]),
  /** Create the VPC endpoints the functions need; false when the VPC already has them (shared networking). @default true */
  createEndpoints: z.boolean().default(true),
});
export type VpcConfig = z.infer<typeof VpcConfigSchema>;

/** LineupConfigSchema: the whole stack configuration. */
export const LineupConfigSchema = z
  .strictObject({
    /** CloudFormation stack name. @default DEFAULT_STACK_NAME */
    stackName: z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,127}$/).default(DEFAULT_STACK_NAME),
    /** spec.managedBy value that makes a JobSet Lineup's. @default DEFAULT_CONTROLLER_NAME */
    controllerName: z.string().min(1).max(MAX_MANAGED_BY_LENGTH).default(DEFAULT_CONTROLLER_NAME),
    /** Also manage JobSets without spec.managedBy (clusters without the upstream controller). @default false */
    claimUnmanaged: z.boolean().default(false),
    /** Apply the actions of events replayed from the archive instead of only recording them. @default false */
    applyReplays: z.boolean().default(false),
    /** The clusters this deployment serves. @default none */
    clusters: z.array(ClusterConfigSchema).default([]),
    /** Refuse to delete the checkpoint table (CloudFormation DeletionProtectionEnabled). @default true */
    tableDeletionProtection: z.boolean().default(true),
    /** Days the bus archive keeps events. @default DEFAULT_ARCHIVE_RETENTION_DAYS */
    archiveRetentionDays: z.number().int().min(1).default(DEFAULT_ARCHIVE_RETENTION_DAYS),
    /** Most concurrent reconciler invocations. @default DEFAULT_RECONCILER_MAX_CONCURRENCY */
    reconcilerMaxConcurrency: z.number().int().min(MIN_RECONCILER_MAX_CONCURRENCY).max(MAX_RECONCILER_MAX_CONCURRENCY).default(DEFAULT_RECONCILER_MAX_CONCURRENCY),
    /**
     * The reconciler's reserved concurrency: a number at least reconcilerMaxConcurrency, or false to
     * reserve none (an account whose concurrency quota cannot spare it: Lambda keeps 100 unreserved).
     * @default reconcilerMaxConcurrency (see the transform below)
     */
    reconcilerReservedConcurrency: z.union([z.number().int().min(MIN_RECONCILER_MAX_CONCURRENCY), z.literal(false)]).optional(),
    /**
     * How many reconciler invocations may work for one cluster at once, so that one cluster's backlog
     * cannot hold them all (lib/reconcile/fairShare.ts); false: no share (a deployment serving one
     * cluster gives it every invocation). At most reconcilerMaxConcurrency.
     * @default half of reconcilerMaxConcurrency, rounded up (see the transform below)
     */
    reconcilerSlotsPerCluster: z.union([z.number().int().min(1), z.literal(false)]).optional(),
    /** Keep containers' environment values in the reconciler's journal and recordings (LINEUP_JOURNAL_KEEP_ENV; docs/security.md). @default false: redacted */
    journalKeepEnv: z.boolean().default(false),
    /** The most Jobs one JobSet may make; a bigger one is rejected (LINEUP_MAX_JOBS_PER_JOBSET). @default DEFAULT_MAX_JOBS_PER_JOBSET */
    maxJobsPerJobSet: z.number().int().min(1).default(DEFAULT_MAX_JOBS_PER_JOBSET),
    /** The most Pods one JobSet may run at once; a bigger one is rejected (LINEUP_MAX_PODS_PER_JOBSET). @default DEFAULT_MAX_PODS_PER_JOBSET */
    maxPodsPerJobSet: z.number().int().min(1).default(DEFAULT_MAX_PODS_PER_JOBSET),
    /** Seconds the event source gathers a batch. @default DEFAULT_BATCHING_WINDOW_SECONDS */
    batchingWindowSeconds: z.number().int().min(0).max(MAX_BATCHING_WINDOW_SECONDS).default(DEFAULT_BATCHING_WINDOW_SECONDS),
    /** Minutes between resync runs. @default DEFAULT_RESYNC_MINUTES */
    resyncMinutes: z.number().int().min(1).default(DEFAULT_RESYNC_MINUTES),
    /** Hours between full re-lists. @default DEFAULT_FULL_RESYNC_HOURS */
    fullResyncHours: z.number().int().min(1).default(DEFAULT_FULL_RESYNC_HOURS),
    /** Days the functions' logs are kept. @default DEFAULT_LOG_RETENTION_DAYS */
    logRetentionDays: z.number().int().min(1).default(DEFAULT_LOG_RETENTION_DAYS),
    /** Put each function's source map in its zip and run it with --enable-source-maps (stack traces in source terms, a zip twice the size). @default false */
    sourceMaps: z.boolean().default(false),
    /** Age of the oldest queued message that raises the backlog alarm. @default DEFAULT_OLDEST_MESSAGE_ALARM_SECONDS */
    oldestMessageAlarmSeconds: z.number().int().min(60).default(DEFAULT_OLDEST_MESSAGE_ALARM_SECONDS),
    /** Minutes without a forwarder checkpoint that make the resync treat a cluster as unwatched (counted in the UnwatchedClusters alarm). @default DEFAULT_HEARTBEAT_MISSING_MINUTES */
    heartbeatMissingMinutes: z.number().int().min(2).default(DEFAULT_HEARTBEAT_MISSING_MINUTES),
    /** SNS topic every alarm notifies. @default none: alarms only change state */
    alarmTopicArn: z.string().regex(ARN_PATTERN).optional(),
    /** Run the reconciler and the resync in a VPC (private endpoints). @default none: Lambda's own network */
    vpc: VpcConfigSchema.optional(),
  })
  .superRefine((config, ctx) => {
    const reserved = config.reconcilerReservedConcurrency;
    if (typeof reserved === 'number' && reserved < config.reconcilerMaxConcurrency) {
      ctx.addIssue({
        code: 'custom',
        path: ['reconcilerReservedConcurrency'],
        message: `reconcilerReservedConcurrency must be at least reconcilerMaxConcurrency (${config.reconcilerMaxConcurrency}), got ${reserved}: the event source would be throttled, and a throttled batch returns to the queue counting toward the dead-letter queue (or set false to reserve none)`,
      });
    }
    const slots = config.reconcilerSlotsPerCluster;
    if (typeof slots === 'number' && slots > config.reconcilerMaxConcurrency) {
      ctx.addIssue({
        code: 'custom',
        path: ['reconcilerSlotsPerCluster'],
        message: `reconcilerSlotsPerCluster must be at most reconcilerMaxConcurrency (${config.reconcilerMaxConcurrency}), got ${slots}: a cluster can never hold more invocations than the event source makes (or set false for no share)`,
      });
    }
    if (config.vpc?.createEndpoints === true && config.vpc.routeTableIds.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['vpc', 'routeTableIds'], message: 'createEndpoints needs the subnets\' routeTableIds for the DynamoDB gateway endpoint, got none (or set createEndpoints false when the VPC has its endpoints)' });
    }
    const seen = new Map<string, number>();
    config.clusters.forEach((cluster, index) => {
      const first = seen.get(cluster.id);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['clusters', index, 'id'], message: `duplicate cluster id ${JSON.stringify(cluster.id)}, already used by clusters[${first}]` });
      else seen.set(cluster.id, index);
    });
  })
  // The reconciler's reserved concurrency defaults to its event source's MaximumConcurrency.
  // Reserved concurrency both guarantees the function that many concurrent executions (the
  // account's other functions cannot take them) and caps it there (it cannot take theirs). The
  // event source never invokes more than MaximumConcurrency, so reserving as many throttles none of
  // its invocations and holds back no more than it uses; below it, the event source's invocations
  // would be throttled, and a throttled batch goes back to the queue counting toward its records'
  // receive count (docs/deploy.md "Concurrency").
  .transform((config) => ({
    ...config,
    reconcilerReservedConcurrency: config.reconcilerReservedConcurrency ?? config.reconcilerMaxConcurrency,
    reconcilerSlotsPerCluster: config.reconcilerSlotsPerCluster ?? defaultSlotsPerCluster(config.reconcilerMaxConcurrency),
  }));

/**
 * defaultSlotsPerCluster: half the reconciler's invocations, rounded up — a flooding cluster keeps
 * half the fleet's capacity (the bench's many-clusters flood run measures what the other half
 * gives the rest), and a deployment of one cluster loses half its burst capacity, which
 * `reconcilerSlotsPerCluster: false` gives back.
 */
export const defaultSlotsPerCluster = (maxConcurrency: number): number => Math.ceil(maxConcurrency / 2);

/** LineupConfig: the parsed configuration, every default filled in. */
export type LineupConfig = z.infer<typeof LineupConfigSchema>;
/** LineupConfigInput: the configuration as written (defaults optional). */
export type LineupConfigInput = z.input<typeof LineupConfigSchema>;

/** ConfigError: the configuration is unusable; the message lists every problem. */
export class ConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** parseConfig: `raw` validated with every default filled in, or ConfigError listing each problem as `path: message`. */
export const parseConfig = (raw: unknown, origin: string): LineupConfig => {
  const parsed = LineupConfigSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new ConfigError(`lineup: bad configuration in ${origin}: ${problems.join('; ')}`);
};

/**
 * configFromContext: the configuration a CDK app was given — context CONFIG_CONTEXT_KEY (an
 * object, or JSON text as `cdk -c` passes it), else the JSON/YAML file named by
 * CONFIG_FILE_CONTEXT_KEY, else the defaults (no clusters).
 *
 * @example
 * const config = configFromContext((key) => app.node.tryGetContext(key));
 */
export const configFromContext = (context: (key: string) => unknown, readFile: (path: string) => string = (path) => readFileSync(path, 'utf8')): LineupConfig => {
  const inline = context(CONFIG_CONTEXT_KEY);
  if (inline !== undefined) {
    if (typeof inline !== 'string') return parseConfig(inline, `context ${CONFIG_CONTEXT_KEY}`);
    let value: unknown;
    try {
      value = JSON.parse(inline) as unknown;
    } catch (error) {
      throw new ConfigError(`lineup: context ${CONFIG_CONTEXT_KEY} is not JSON: ${(error as Error).message}`, { cause: error });
    }
    return parseConfig(value, `context ${CONFIG_CONTEXT_KEY}`);
  }
  const file = context(CONFIG_FILE_CONTEXT_KEY);
  if (file === undefined) return parseConfig({}, 'the defaults');
  if (typeof file !== 'string') throw new ConfigError(`lineup: context ${CONFIG_FILE_CONTEXT_KEY} must be a file path, got ${JSON.stringify(file)}`);
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    throw new ConfigError(`lineup: cannot read ${file} (context ${CONFIG_FILE_CONTEXT_KEY}): ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    // JSON is YAML, so one parser reads both.
    value = parseYaml(text) as unknown;
  } catch (error) {
    throw new ConfigError(`lineup: ${file} is not JSON or YAML: ${(error as Error).message}`, { cause: error });
  }
  return parseConfig(value, file);
};
