/** Shared fixtures for the reconcile tests: a simulated cluster behind the gateway interface, and events. */
import { readFileSync } from 'node:fs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { Counters } from '../../lib/counters.ts';
import { DetailType, eventSource, type LineupEventDetail } from '../../lib/events/schema.ts';
import { loadedJobSets, loadJobSets } from '../../lib/jobset/load.ts';
import type { JobSet } from '../../lib/jobset/schema.ts';
import { collectingLog } from '../../lib/log.ts';
import { DEFAULT_PLAN_OPTIONS } from '../../lib/plan/planner.ts';
import type { BatchDeps } from '../../lib/reconcile/sqsBatch.ts';
import type { ClusterGateway, Written } from '../../lib/reconcile/types.ts';
import { EMPTY_BEHAVIOUR, resolveBehaviour, type Behaviour } from '../../lib/sim/behaviour.ts';
import { SimCluster } from '../../lib/sim/cluster.ts';
import { SIM_EPOCH_MS } from '../../lib/sim/constants.ts';
import { SimClusterGateway } from '../../lib/sim/gateway.ts';
import { EventQueue } from '../../lib/sim/queue.ts';
import { examplePath } from '../repoFiles.ts';

export const CLUSTER = 'test-cluster';

/** story2: the KEP story 2 JobSet from examples/. */
export const story2 = (): JobSet => {
  const path = examplePath('story2-messagequeue-driver-worker.yaml');
  const [jobSet] = loadedJobSets(loadJobSets(readFileSync(path, 'utf8'), path));
  if (!jobSet) throw new Error(`no JobSet in ${path}`);
  return jobSet;
};

/** simWorld: a simulated cluster holding `jobSets` (its Jobs timed by `behaviour`), its gateway, and a virtual clock. */
export const simWorld = (jobSets: readonly JobSet[], behaviour: Behaviour = EMPTY_BEHAVIOUR) => {
  const queue = new EventQueue();
  const cluster = new SimCluster({ queue, timing: (job) => resolveBehaviour(behaviour, job) });
  for (const jobSet of jobSets) cluster.createJobSet(jobSet, 0);
  const gateway = new SimClusterGateway(cluster);
  return { queue, cluster, gateway, now: () => SIM_EPOCH_MS + queue.now() };
};

/** Reads: what an answering gateway was asked to read. */
export interface Reads {
  /** observe() calls that read everything. */
  full: number;
  /** GETs of the JobSet and LISTs of its Jobs by observe() with `since`. */
  jobSet: number;
  jobLists: number;
}

/**
 * answeringGateway: the simulated cluster behind a gateway that answers as the Kubernetes one
 * does — each write with the object it left, and observe(since) reading only the JobSet when it
 * changed and the Jobs when one did — counting what it reads.
 */
export const answeringGateway = (world: ReturnType<typeof simWorld>): { gateway: ClusterGateway; reads: Reads } => {
  const reads: Reads = { full: 0, jobSet: 0, jobLists: 0 };
  const gateway: ClusterGateway = {
    observe: async (namespace, name, now, since) => {
      if (since === undefined) {
        reads.full += 1;
        return world.gateway.observe(namespace, name, now);
      }
      if (since.jobSetChanged) reads.jobSet += 1;
      const jobSet = since.jobSetChanged ? world.cluster.getJobSet(namespace, name) : since.observed.jobSet;
      if (jobSet === undefined) return undefined;
      if (since.jobs.length > 0) reads.jobLists += 1;
      const jobs = since.jobs.length > 0 ? structuredClone(world.cluster.jobsOf(namespace, name)) : since.observed.jobs;
      return { jobSet: structuredClone(jobSet), jobs, service: since.observed.service, now };
    },
    apply: async (namespace, name, action, now): Promise<Written | void> => {
      await world.gateway.apply(namespace, name, action, now);
      switch (action.kind) {
        case 'CreateJob':
        case 'ResumeJob':
        case 'SuspendJob': {
          const job = world.cluster.getJob(namespace, action.kind === 'CreateJob' ? (action.job.metadata.name ?? '') : action.name);
          return job === undefined ? undefined : { kind: 'Job', job: structuredClone(job) };
        }
        case 'UpdateJobSetStatus':
        case 'PatchJobSetAnnotations': {
          const jobSet = world.cluster.getJobSet(namespace, name);
          return jobSet === undefined ? undefined : { kind: 'JobSet', jobSet: structuredClone(jobSet) };
        }
        case 'CreateService': {
          const service = world.cluster.getService(namespace, action.service.metadata.name ?? '');
          return service === undefined ? undefined : { kind: 'Service', service: structuredClone(service) };
        }
        case 'EmitEvent':
          return { kind: 'Unchanged' };
        default:
          return undefined;
      }
    },
  };
  return { gateway, reads };
};

/** reconcileDeps: deps over one registered cluster, logging into `lines`. */
export const reconcileDeps = (store: BatchDeps['store'], gateway: ClusterGateway, now: () => number, owner = 'test-owner', extra: Partial<BatchDeps> = {}) => {
  const { log, lines } = collectingLog();
  const counters = new Counters();
  const deps: BatchDeps = {
    store,
    resolveCluster: async (id) => (id === CLUSTER ? gateway : undefined),
    planOptions: DEFAULT_PLAN_OPTIONS,
    owner,
    now,
    counters,
    log,
    ...extra,
  };
  return { deps, lines, counters };
};

/** detailFor: an event detail about JobSet default/<name>. */
export const detailFor = (name: string, overrides: Partial<LineupEventDetail> = {}): LineupEventDetail => ({
  cluster: CLUSTER,
  namespace: 'default',
  jobSet: name,
  kind: 'JobSet',
  name,
  uid: 'uid-1',
  resourceVersion: '1',
  watchType: 'MODIFIED',
  ...overrides,
});

/** eventBridgeEvent: the EventBridge event an SQS target delivers, as JSON. */
export const eventBridgeEvent = (detail: LineupEventDetail, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  version: '0',
  id: `id-${Math.random().toString(16).slice(2)}`,
  'detail-type': detail.kind === 'Job' ? DetailType.JobChanged : DetailType.JobSetChanged,
  source: eventSource(detail.cluster),
  account: '123456789012',
  time: '2026-01-01T00:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail,
  ...extra,
});

/** sqsEvent: an SQS batch whose records carry the given bodies. */
export const sqsEvent = (bodies: readonly string[]): SQSEvent => ({
  Records: bodies.map(
    (body, index): SQSRecord => ({
      messageId: `m${index}`,
      receiptHandle: `r${index}`,
      body,
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:lineup',
      awsRegion: 'us-east-1',
    }),
  ),
});
