/**
 * KubeClusterGateway: the ClusterGateway of a real cluster, over Lineup's REST client
 * (lib/k8s/rest.ts). It reads what a
 * pass decides from and carries out the planner's Actions with the semantics the simulated
 * cluster (lib/sim/cluster.ts SimCluster.apply) models: resourceVersion preconditions,
 * AlreadyExists, deletes of missing objects that succeed, the 1.32+ Job status rules.
 *
 * Transport: every object goes and comes as the JSON the API server speaks, read only by the zod
 * schemas (the wire format): no generated model drops a field it does not know (a pod-template
 * field newer than Lineup would vanish from a created Job, a status field would be erased by the
 * startTime read-modify-write) or turns timestamps into Dates.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { EVENT_ACTION, JOBSET_API_VERSION, JOBSET_KIND, Label } from '../jobset/api.ts';
import { KUBE_FIELD_MANAGER } from './fieldManager.ts';
import { CounterName } from '../counters.ts';
import { AlreadyExistsError, ConflictError, ErrorCode, InvalidObjectError, LineupError, NotFoundError, UnauthenticatedError } from '../errors.ts';
import { eventNote } from './eventNote.ts';
import { subdomainOf } from '../jobset/keys.ts';
import { JobSchema, JobSetSchema, ServiceSchema } from '../jobset/schema.ts';
import type { Job, JobSet, JobStatus, ObjectMeta, PersistentVolumeClaim, Service } from '../jobset/schema.ts';
import type { Action, ActionKind, Observed } from '../plan/types.ts';
import type { ClusterGateway, ObserveSince, Written } from '../reconcile/types.ts';
import type { CounterSink } from '../counters.ts';
import type { RetryPolicy, RetrySeams } from '../retry.ts';
import type { KubeEndpoint } from './endpoint.ts';
import { httpStatusOf, toLineupError } from './errors.ts';
import { KubeRestClient, resourcePath } from './rest.ts';
import type { TokenRefresher } from './secretToken.ts';
import { withRetry } from './retry.ts';

/** Reporting component name of Lineup's Kubernetes Events. */
export const EVENT_REPORTER = 'lineup';

/**
 * KUBE_RETRY: every Kubernetes request is tried up to maxAttempts times on 429, 5xx and dropped
 * connections, waiting baseDelayMs doubled per attempt (with jitter), at most maxDelayMs — also
 * the most a Retry-After is honoured, since a reconcile pass has a deadline and the resync
 * picks up what it leaves.
 */
export const KUBE_RETRY = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 10_000, jitter: 'equal' } as const satisfies RetryPolicy;

/**
 * KUBE_RMW_ATTEMPTS: attempts of an operation Lineup restarts itself after losing a race the
 * caller did not ask to guard — an unconditional read-modify-write (finalizer removal, status
 * replace), a paged list whose continue token expired.
 */
export const KUBE_RMW_ATTEMPTS = 3;

/** KubeVerb: the Kubernetes API verbs Lineup uses (RBAC's words). */
export type KubeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

/** ApiAccess: verbs on one resource (and subresource) of one API group; group '' is core. */
export interface ApiAccess {
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly verbs: readonly KubeVerb[];
}

/** The API coordinates of the resources Lineup touches. */
export const KubeResource = {
  JobSet: { group: 'jobset.x-k8s.io', version: 'v1alpha2', plural: 'jobsets' },
  Job: { group: 'batch', version: 'v1', plural: 'jobs' },
  Service: { group: '', version: 'v1', plural: 'services' },
  PersistentVolumeClaim: { group: '', version: 'v1', plural: 'persistentvolumeclaims' },
  Event: { group: '', version: 'v1', plural: 'events' },
} as const;

const jobSets = (verbs: readonly KubeVerb[], subresource?: string): ApiAccess => ({
  group: KubeResource.JobSet.group,
  resource: KubeResource.JobSet.plural,
  ...(subresource === undefined ? {} : { subresource }),
  verbs,
});
const jobs = (verbs: readonly KubeVerb[], subresource?: string): ApiAccess => ({
  group: KubeResource.Job.group,
  resource: KubeResource.Job.plural,
  ...(subresource === undefined ? {} : { subresource }),
  verbs,
});

/**
 * actionVerbs: exactly the API verbs each Action uses — the one source of truth the RBAC
 * ClusterRole is generated from. The gateway's integration test checks every request it counts
 * against this table.
 */
export const actionVerbs: Readonly<Record<ActionKind, readonly ApiAccess[]>> = {
  CreateJob: [jobs(['create'])],
  // The Job is read only when startTime must be cleared (status read-modify-write).
  ResumeJob: [jobs(['get', 'patch']), jobs(['update'], 'status')],
  SuspendJob: [jobs(['patch'])],
  DeleteJob: [jobs(['delete'])],
  // A merge patch replaces the finalizer list, so the current list is read first.
  RemoveJobFinalizer: [jobs(['get', 'patch'])],
  // A Service that exists already is read, so the pass knows what it holds.
  CreateService: [{ group: KubeResource.Service.group, resource: KubeResource.Service.plural, verbs: ['create', 'get'] }],
  // A claim that exists already is kept (AlreadyExists is success), so create is the only verb.
  CreatePersistentVolumeClaim: [{ group: KubeResource.PersistentVolumeClaim.group, resource: KubeResource.PersistentVolumeClaim.plural, verbs: ['create'] }],
  PatchJobSetAnnotations: [jobSets(['patch'])],
  // The JobSet is read only when the action carries no resourceVersion to replace against.
  UpdateJobSetStatus: [jobSets(['get']), jobSets(['update'], 'status')],
  // The JobSet is read only when observe() has not seen its uid (involvedObject.uid).
  EmitEvent: [{ group: KubeResource.Event.group, resource: KubeResource.Event.plural, verbs: ['create'] }, jobSets(['get'])],
  DeleteJobSet: [jobSets(['delete'])],
};

/** observeVerbs: what ClusterGateway.observe uses. */
export const observeVerbs: readonly ApiAccess[] = [
  jobSets(['get']),
  jobs(['list']),
  { group: KubeResource.Service.group, resource: KubeResource.Service.plural, verbs: ['get'] },
];

/** watchVerbs: what the forwarder's KubeWatchSource uses (all namespaces). */
export const watchVerbs: readonly ApiAccess[] = [jobSets(['list', 'watch']), jobs(['list', 'watch'])];

/** RetryTuning: the retry knobs a host may change (defaults KUBE_RETRY) and the seams tests replace. */
export interface RetryTuning extends RetrySeams {
  readonly maxAttempts?: number | undefined;
  readonly baseDelayMs?: number | undefined;
  readonly maxDelayMs?: number | undefined;
}

/** kubeRetryPolicy: KUBE_RETRY with a host's tuning applied. */
export const kubeRetryPolicy = (tuning: RetryTuning): RetryPolicy => ({
  maxAttempts: tuning.maxAttempts ?? KUBE_RETRY.maxAttempts,
  baseDelayMs: tuning.baseDelayMs ?? KUBE_RETRY.baseDelayMs,
  maxDelayMs: tuning.maxDelayMs ?? KUBE_RETRY.maxDelayMs,
  jitter: KUBE_RETRY.jitter,
});

/** KubeClusterGatewayOptions: the cluster, where request counts go, and retry tuning. */
export interface KubeClusterGatewayOptions {
  /** The cluster (lib/k8s/auth.ts endpointFor, or a kubeconfig's through lib/k8s/kubeConfigFile.ts). */
  readonly endpoint: KubeEndpoint;
  readonly counters: CounterSink;
  /** @default KUBE_RETRY */
  readonly retry?: RetryTuning | undefined;
  /** reportingInstance of the Events Lineup records (which host wrote them). @default EVENT_REPORTER */
  readonly reportingInstance?: string | undefined;
  /** Re-reads a token kept in a secret after a 401 (lib/k8s/secretToken.ts). @default none: a 401 is final */
  readonly refresher?: TokenRefresher | undefined;
}

/** FIELD_MANAGER: the query every write carries, so managedFields name Lineup. */
const FIELD_MANAGER = { fieldManager: KUBE_FIELD_MANAGER } as const;

/**
 * withoutManagedFields: `raw` without metadata.managedFields — about half of a Job's bytes, read
 * by no decision, so neither the planner inputs kept in memory nor those the journal stores carry
 * them. (An update that sends no managedFields leaves the server's as they are.)
 */
const withoutManagedFields = (raw: unknown): unknown => {
  if (raw === null || typeof raw !== 'object' || !('metadata' in raw)) return raw;
  const { metadata } = raw;
  if (metadata === null || typeof metadata !== 'object' || !('managedFields' in metadata)) return raw;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...raw, metadata: rest };
};

/**
 * parseObject: `raw` as the schema says, or InvalidObjectError naming what the server sent — a
 * version skew between the cluster's objects and Lineup's schemas, not something to retry.
 */
export const parseObject = <S extends z.ZodType>(schema: S, raw: unknown, what: string): z.infer<S> => {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const causes = parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  throw new InvalidObjectError(`${what}: the server returned an object Lineup cannot read: ${causes.map((c) => `${c.path}: ${c.message}`).join('; ')}`, causes);
};

/** parseForPlanner: parseObject of what the gateway reads or a write answers, without managedFields (the watch keeps them: the forwarder reads them). */
const parseForPlanner = <S extends z.ZodType>(schema: S, raw: unknown, what: string): z.infer<S> => parseObject(schema, withoutManagedFields(raw), what);

/** isCode: the error is a Lineup error with this code. */
const isCode = (error: unknown, code: string): boolean => error instanceof LineupError && error.code === code;

/** withoutStartTime: a Job status minus startTime (upstream resumeJob clears it before changing the template). */
const withoutStartTime = (status: JobStatus | undefined): JobStatus => {
  const { startTime: _cleared, ...rest } = status ?? {};
  return rest;
};

/**
 * isTemplateNotYetMutable: a 422 on the pod template of a suspended Job. Since Kubernetes 1.36
 * the API accepts template changes only once the Job controller has marked the Job Suspended;
 * until then the refusal is temporary, so it is reported as a conflict: re-observe and re-plan
 * later. Decided from the Status's structured field causes, never from message text.
 */
const isTemplateNotYetMutable = (error: unknown): boolean =>
  error instanceof InvalidObjectError && error.causes.some((cause) => cause.path === 'spec.template' || cause.path.startsWith('spec.template.'));

/** The per-kind appliers' shared signature: what the write left, when the answer says. */
type Applier<K extends ActionKind> = (namespace: string, jobSetName: string, action: Extract<Action, { kind: K }>, now: number) => Promise<Written | void>;

/** UNCHANGED: a write of nothing a pass reads (an Event). */
const UNCHANGED: Written = { kind: 'Unchanged' };

/**
 * KubeClusterGateway: one cluster behind the ClusterGateway contract. Every request goes
 * through withRetry and is counted as `k8s.<verb>` (each attempt), retries as `k8s.retries`.
 *
 * @example
 * const gateway = new KubeClusterGateway({ endpoint: (await clusterAccessFor(record)).endpoint, counters });
 * const observed = await gateway.observe('default', 'training', Date.now());
 */
export class KubeClusterGateway implements ClusterGateway {
  private readonly client: KubeRestClient;
  private readonly counters: CounterSink;
  private readonly retry: RetryTuning;
  private readonly reportingInstance: string;
  private readonly refresher: TokenRefresher | undefined;
  /** JobSet uids seen by observe(), by `namespace/name`: EmitEvent names its JobSet by uid without reading it again. */
  private readonly uids = new Map<string, string>();

  constructor(options: KubeClusterGatewayOptions) {
    this.client = new KubeRestClient(options.endpoint);
    this.counters = options.counters;
    this.retry = options.retry ?? {};
    this.reportingInstance = options.reportingInstance ?? EVENT_REPORTER;
    this.refresher = options.refresher;
  }

  // ---- reads ---------------------------------------------------------------------------------

  /**
   * observe: with `since`, only what changed since it was taken — the JobSet when it changed, the
   * Jobs (one LIST) when one of them did — and the rest, the Service included, as `since` holds
   * it; nothing at all when nothing changed.
   */
  async observe(namespace: string, name: string, now: number, since?: ObserveSince): Promise<Observed | undefined> {
    if (since === undefined) return this.observeAll(namespace, name, now);
    const jobSet = since.jobSetChanged ? await this.getJobSet(namespace, name) : since.observed.jobSet;
    if (!jobSet) {
      this.uids.delete(`${namespace}/${name}`);
      return undefined;
    }
    if (jobSet.metadata.uid !== undefined) this.uids.set(`${namespace}/${name}`, jobSet.metadata.uid);
    // One LIST costs what one GET does and also folds in the changes whose events are still on
    // their way: their passes then find nothing new (fewer passes, fewer status writes).
    const jobs = since.jobs.length > 0 ? await this.listJobs(namespace, name) : since.observed.jobs;
    return { jobSet, jobs, service: since.observed.service, now };
  }

  /** observeAll: the JobSet, its Jobs and its Service, read now. */
  private async observeAll(namespace: string, name: string, now: number): Promise<Observed | undefined> {
    const jobSet = await this.getJobSet(namespace, name);
    const key = `${namespace}/${name}`;
    if (!jobSet) {
      this.uids.delete(key);
      return undefined;
    }
    if (jobSet.metadata.uid !== undefined) this.uids.set(key, jobSet.metadata.uid);
    const [jobList, service] = await Promise.all([this.listJobs(namespace, name), this.getService(namespace, subdomainOf(jobSet))]);
    return { jobSet, jobs: jobList, service, now };
  }

  /** getJobSet: the JobSet, or undefined when there is none. */
  async getJobSet(namespace: string, name: string): Promise<JobSet | undefined> {
    const what = `jobset ${namespace}/${name}`;
    const raw = await this.orUndefined(
      this.call('get', what, () => this.client.get(resourcePath(KubeResource.JobSet, namespace, name))),
    );
    return raw === undefined ? undefined : parseForPlanner(JobSetSchema, raw, what);
  }

  /** getJob: the Job, or undefined when there is none. */
  async getJob(namespace: string, name: string): Promise<Job | undefined> {
    const what = `job ${namespace}/${name}`;
    const raw = await this.orUndefined(
      this.call('get', what, () => this.client.get(resourcePath(KubeResource.Job, namespace, name))),
    );
    return raw === undefined ? undefined : parseForPlanner(JobSchema, raw, what);
  }

  /** listJobs: the Jobs labelled jobset.sigs.k8s.io/jobset-name=<name> in the namespace. */
  async listJobs(namespace: string, jobSetName: string): Promise<Job[]> {
    const what = `jobs of jobset ${namespace}/${jobSetName}`;
    const raw: unknown = await this.call('list', what, () =>
      this.client.get(resourcePath(KubeResource.Job, namespace), { labelSelector: `${Label.JobSetName}=${jobSetName}` }),
    );
    const items = raw !== null && typeof raw === 'object' && 'items' in raw && Array.isArray(raw.items) ? (raw.items as unknown[]) : [];
    // A list's items carry no apiVersion and kind; a GET's and a write's answer do. Given here,
    // a Job reads the same whichever way it came (the snapshot mixes them).
    return items.map((item, index) => parseForPlanner(JobSchema, { apiVersion: 'batch/v1', kind: 'Job', ...(item as object) }, `${what}: item ${index}`));
  }

  /** getService: the Service, or undefined. */
  async getService(namespace: string, name: string): Promise<Service | undefined> {
    const what = `service ${namespace}/${name}`;
    const raw = await this.orUndefined(this.call('get', what, () => this.client.get(resourcePath(KubeResource.Service, namespace, name))));
    return raw === undefined ? undefined : parseForPlanner(ServiceSchema, raw, what);
  }

  // ---- writes --------------------------------------------------------------------------------

  async apply(namespace: string, jobSetName: string, action: Action, now: number): Promise<Written | void> {
    const applier = this.appliers[action.kind] as Applier<ActionKind>;
    return applier(namespace, jobSetName, action as Extract<Action, { kind: ActionKind }>, now);
  }

  private readonly appliers: { readonly [K in ActionKind]: Applier<K> } = {
    CreateJob: async (namespace, _jobSetName, action) => {
      const jobNamespace = action.job.metadata.namespace ?? namespace;
      const body: Job = { ...action.job, apiVersion: 'batch/v1', kind: 'Job', metadata: { ...action.job.metadata, namespace: jobNamespace } };
      const what = `job ${jobNamespace}/${action.job.metadata.name ?? ''}`;
      const created: unknown = await this.call('create', what, () =>
        this.client.create(resourcePath(KubeResource.Job, jobNamespace), body, FIELD_MANAGER),
      );
      // A Job in another namespace is none of the JobSet's observed Jobs.
      return jobNamespace === namespace ? { kind: 'Job', job: parseForPlanner(JobSchema, created, what) } : undefined;
    },
    ResumeJob: (namespace, _jobSetName, action) => this.resumeJob(namespace, action),
    SuspendJob: (namespace, _jobSetName, action) => this.patchJob(namespace, action.name, { ...this.precondition(action.resourceVersion), spec: { suspend: true } }),
    DeleteJob: async (namespace, _jobSetName, action) => {
      await this.ignoreNotFound(
        this.call('delete', `job ${namespace}/${action.name}`, () =>
          this.client.delete(resourcePath(KubeResource.Job, namespace, action.name), deleteOptions(action.propagation, action.uid)),
        ),
      );
    },
    RemoveJobFinalizer: (namespace, _jobSetName, action) => this.removeJobFinalizer(namespace, action),
    CreateService: async (namespace, _jobSetName, action) => {
      const serviceNamespace = action.service.metadata.namespace ?? namespace;
      const what = `service ${serviceNamespace}/${action.service.metadata.name ?? ''}`;
      // Upstream never updates an existing Service: one of this name is the one wanted (not read
      // here, so the answer is unknown).
      const created = await this.ignoreAlreadyExists(
        this.call('create', what, () =>
          this.client.create(resourcePath(KubeResource.Service, serviceNamespace), serviceBody(action.service, serviceNamespace), FIELD_MANAGER),
        ),
      );
      if (serviceNamespace !== namespace) return undefined;
      // One that existed is read, so the pass still knows what it holds (rare: a first pass that assumed none).
      const service = created === undefined ? await this.getService(serviceNamespace, action.service.metadata.name ?? '') : parseForPlanner(ServiceSchema, created, what);
      return service === undefined ? undefined : { kind: 'Service', service };
    },
    CreatePersistentVolumeClaim: async (namespace, _jobSetName, action) => {
      const claimNamespace = action.claim.metadata.namespace || namespace;
      // Upstream's createPVCsIfNecessary: a claim of this name that exists is the one wanted. The
      // planner reads no claim, so the answer changes nothing it holds.
      await this.ignoreAlreadyExists(
        this.call('create', `persistentvolumeclaim ${claimNamespace}/${action.claim.metadata.name ?? ''}`, () =>
          this.client.create(resourcePath(KubeResource.PersistentVolumeClaim, claimNamespace), claimBody(action.claim, claimNamespace), FIELD_MANAGER),
        ),
      );
      return UNCHANGED;
    },
    PatchJobSetAnnotations: async (namespace, jobSetName, action) => {
      const body = { metadata: { annotations: action.annotations, ...this.precondition(action.resourceVersion).metadata } };
      const what = `jobset ${namespace}/${jobSetName}`;
      const patched: unknown = await this.call('patch', what, () =>
        this.client.mergePatch(resourcePath(KubeResource.JobSet, namespace, jobSetName), body, FIELD_MANAGER),
      );
      return { kind: 'JobSet', jobSet: parseForPlanner(JobSetSchema, patched, what) };
    },
    UpdateJobSetStatus: (namespace, jobSetName, action) => this.updateJobSetStatus(namespace, jobSetName, action),
    EmitEvent: async (namespace, jobSetName, action, now) => {
      await this.emitEvent(namespace, jobSetName, action, now);
      return UNCHANGED;
    },
    DeleteJobSet: async (namespace, jobSetName, action) => {
      await this.ignoreNotFound(
        this.call('delete', `jobset ${namespace}/${jobSetName}`, () =>
          this.client.delete(resourcePath(KubeResource.JobSet, namespace, jobSetName), deleteOptions(action.propagation, action.uid)),
        ),
      );
    },
  };

  /**
   * resumeJob: upstream resumeJob. When clearStartTime, the Job is read and its status replaced
   * without startTime (a Job with a startTime may not change its pod template); the action's
   * resourceVersion guards that first write, and the write's own resourceVersion guards the
   * patch. Then one merge patch sets spec.suspend=false and the pod-template fields the planner
   * worked out (lib/plan/resume.ts) — the lists whole, since a merge patch replaces lists, and
   * each removed nodeSelector key as null.
   */
  private async resumeJob(namespace: string, action: Extract<Action, { kind: 'ResumeJob' }>): Promise<Written> {
    const what = `job ${namespace}/${action.name}`;
    let guard = action.resourceVersion;
    if (action.clearStartTime) guard = await this.clearStartTime(namespace, action.name, action.resourceVersion);
    const merge = action.podTemplate;
    const template =
      merge === undefined
        ? {}
        : {
            template: {
              metadata: { labels: merge.labels, annotations: merge.annotations },
              // null deletes a key in a merge patch.
              spec: { nodeSelector: { ...merge.nodeSelector, ...Object.fromEntries(merge.nodeSelectorRemoved.map((key) => [key, null])) }, tolerations: merge.tolerations, schedulingGates: merge.schedulingGates },
            },
          };
    try {
      return await this.patchJob(namespace, action.name, { ...this.precondition(guard), spec: { suspend: false, ...template } });
    } catch (error) {
      if (!isTemplateNotYetMutable(error)) throw error;
      throw new ConflictError(`${what}: the pod template cannot change yet (the job controller has not marked the job Suspended); re-plan later`, guard, {
        cause: error,
      });
    }
  }

  /** clearStartTime: replace the Job's status without startTime; the resourceVersion to guard the next write with. */
  private async clearStartTime(namespace: string, name: string, expected: string | undefined): Promise<string | undefined> {
    const what = `job ${namespace}/${name}`;
    const job = await this.getJob(namespace, name);
    if (!job) throw new NotFoundError(`${what} not found`);
    const current = job.metadata.resourceVersion;
    if (expected !== undefined && current !== expected) {
      throw new ConflictError(`${what}: the object has been modified (resourceVersion ${expected} expected, ${current ?? 'none'} stored)`, current);
    }
    if (job.status?.startTime === undefined) return expected;
    // The status subresource takes the whole status; metadata.resourceVersion makes it conditional.
    const written: unknown = await this.call('update', `${what} status`, () =>
      this.client.replace(resourcePath(KubeResource.Job, namespace, name, 'status'), { ...job, status: withoutStartTime(job.status) }, FIELD_MANAGER),
    );
    return parseForPlanner(JobSchema, written, what).metadata.resourceVersion;
  }

  /**
   * removeJobFinalizer: a merge patch of metadata.finalizers without the finalizer. A merge patch
   * replaces the list, so it always carries the resourceVersion of the list it was computed from;
   * when the action asked for no precondition, losing that race is Lineup's own and is retried.
   */
  private async removeJobFinalizer(namespace: string, action: Extract<Action, { kind: 'RemoveJobFinalizer' }>): Promise<Written | void> {
    const what = `job ${namespace}/${action.name}`;
    for (let attempt = 1; ; attempt += 1) {
      const job = await this.getJob(namespace, action.name);
      // Gone: the pass's view of the Job is not the server's, and nothing says what is.
      if (!job) return;
      const current = job.metadata.resourceVersion;
      if (action.resourceVersion !== undefined && current !== action.resourceVersion) {
        throw new ConflictError(`${what}: the object has been modified (resourceVersion ${action.resourceVersion} expected, ${current ?? 'none'} stored)`, current);
      }
      const finalizers = job.metadata.finalizers ?? [];
      if (!finalizers.includes(action.finalizer)) return { kind: 'Job', job };
      const remaining = finalizers.filter((finalizer) => finalizer !== action.finalizer);
      try {
        return await this.orUndefined(this.patchJob(namespace, action.name, { metadata: { resourceVersion: current, finalizers: remaining } }));
      } catch (error) {
        const ownRace = action.resourceVersion === undefined && isCode(error, ErrorCode.STALE_RESOURCE_VERSION);
        if (!ownRace || attempt >= KUBE_RMW_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * updateJobSetStatus: replace the status subresource. With the action's resourceVersion the
   * write is conditional (409 → ConflictError); without one the current resourceVersion is read
   * first — the API refuses an update without one — and a lost race is retried.
   */
  private async updateJobSetStatus(namespace: string, name: string, action: Extract<Action, { kind: 'UpdateJobSetStatus' }>): Promise<Written> {
    const what = `jobset ${namespace}/${name}`;
    for (let attempt = 1; ; attempt += 1) {
      let resourceVersion = action.resourceVersion;
      if (resourceVersion === undefined) {
        const jobSet = await this.getJobSet(namespace, name);
        if (!jobSet) throw new NotFoundError(`${what} not found`);
        resourceVersion = jobSet.metadata.resourceVersion;
      }
      const body = { apiVersion: JOBSET_API_VERSION, kind: JOBSET_KIND, metadata: { name, namespace, resourceVersion }, status: action.status };
      try {
        const written: unknown = await this.call('update', `${what} status`, () =>
          this.client.replace(resourcePath(KubeResource.JobSet, namespace, name, 'status'), body, FIELD_MANAGER),
        );
        return { kind: 'JobSet', jobSet: parseForPlanner(JobSetSchema, written, what) };
      } catch (error) {
        const ownRace = action.resourceVersion === undefined && isCode(error, ErrorCode.STALE_RESOURCE_VERSION);
        if (!ownRace || attempt >= KUBE_RMW_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * emitEvent: a core/v1 Event on the JobSet, as client-go's recorder writes one (name
   * `<jobset>.<hex>`, count 1, source and reportingComponent Lineup) plus eventTime, so both
   * `kubectl describe` and events.k8s.io readers show it.
   */
  private async emitEvent(namespace: string, jobSetName: string, action: Extract<Action, { kind: 'EmitEvent' }>, now: number): Promise<void> {
    const uid = this.uids.get(`${namespace}/${jobSetName}`) ?? (await this.getJobSet(namespace, jobSetName))?.metadata.uid;
    const at = new Date(now);
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${jobSetName}.${randomBytes(8).toString('hex')}`, namespace },
      involvedObject: { apiVersion: JOBSET_API_VERSION, kind: JOBSET_KIND, name: jobSetName, namespace, ...(uid === undefined ? {} : { uid }) },
      type: action.eventType,
      reason: action.reason,
      message: eventNote(action.message),
      action: EVENT_ACTION,
      source: { component: EVENT_REPORTER },
      reportingComponent: EVENT_REPORTER,
      reportingInstance: this.reportingInstance,
      firstTimestamp: at.toISOString(),
      lastTimestamp: at.toISOString(),
      eventTime: microTime(at),
      count: 1,
    };
    await this.call('create', `event on jobset ${namespace}/${jobSetName}`, () => this.client.create(resourcePath(KubeResource.Event, namespace), body));
  }

  // ---- request plumbing ----------------------------------------------------------------------

  /** precondition: `{metadata: {resourceVersion}}` when there is one — a merge patch carrying it fails with 409 if it is stale. */
  private precondition(resourceVersion: string | undefined): { metadata?: { resourceVersion: string } } {
    return resourceVersion === undefined ? {} : { metadata: { resourceVersion } };
  }

  /** patchJob: a JSON merge patch of a Job (404 → NotFoundError: a write to a missing Job); the Job as patched. */
  private async patchJob(namespace: string, name: string, body: object): Promise<Written> {
    const what = `job ${namespace}/${name}`;
    const patched: unknown = await this.call('patch', what, () =>
      this.client.mergePatch(resourcePath(KubeResource.Job, namespace, name), body, FIELD_MANAGER),
    );
    return { kind: 'Job', job: parseForPlanner(JobSchema, patched, what) };
  }

  /**
   * call: one request through withRetry, each attempt counted as k8s.<verb>, failures as Lineup
   * errors. This is the one layer that retries 429/5xx/connection failures of a pass's requests.
   * The read-modify-write loops above (KUBE_RMW_ATTEMPTS) do not nest on the same failure: they
   * re-run only after a 409 lost to Lineup's own race, which withRetry never retries, and do not wait.
   */
  private async call<T>(verb: KubeVerb, what: string, request: () => Promise<T>): Promise<T> {
    const seen = await this.refresher?.ready();
    try {
      return await this.attempt(verb, what, request);
    } catch (error) {
      if (this.refresher === undefined || seen === undefined || httpStatusOf(error) !== 401) throw toLineupError(error, what);
      return this.afterUnauthenticated(this.refresher, seen, verb, what, request);
    }
  }

  /**
   * afterUnauthenticated: a 401 with a token kept in a secret — the secret may have been rotated
   * since it was read. One re-read, one more try; a secret that still holds the refused token,
   * or a second 401, is final.
   */
  private async afterUnauthenticated<T>(refresher: TokenRefresher, seen: number, verb: KubeVerb, what: string, request: () => Promise<T>): Promise<T> {
    if (!(await refresher.refresh(seen))) {
      throw new UnauthenticatedError(`${what}: the api server answered 401 and ${refresher.describe} still holds the token it refused, expected a token the server accepts`);
    }
    try {
      return await this.attempt(verb, what, request);
    } catch (error) {
      if (httpStatusOf(error) !== 401) throw toLineupError(error, what);
      throw new UnauthenticatedError(`${what}: the api server answered 401 again after the token was re-read from ${refresher.describe}, expected a token the server accepts`, {
        cause: error,
      });
    }
  }

  /** attempt: the request through withRetry, each attempt counted (raw REST client errors go back to call). */
  private attempt<T>(verb: KubeVerb, what: string, request: () => Promise<T>): Promise<T> {
    return withRetry(
      () => {
        this.counters.add(`${CounterName.KubePrefix}${verb}`);
        return request();
      },
      { counters: this.counters, policy: kubeRetryPolicy(this.retry), sleep: this.retry.sleep, random: this.retry.random, what: `${verb} ${what}` },
    );
  }

  /** orUndefined: the result, or undefined when the object does not exist. */
  private async orUndefined<T>(pending: Promise<T>): Promise<T | undefined> {
    try {
      return await pending;
    } catch (error) {
      if (isCode(error, ErrorCode.NOT_FOUND)) return undefined;
      throw error;
    }
  }

  /** ignoreNotFound: a delete (or finalizer removal) of an object already gone succeeded. */
  private async ignoreNotFound(pending: Promise<unknown>): Promise<void> {
    await this.orUndefined(pending);
  }

  /** ignoreAlreadyExists: a create that found its object already there succeeded (undefined: not what it created). */
  private async ignoreAlreadyExists<T>(pending: Promise<T>): Promise<T | undefined> {
    try {
      return await pending;
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
      return undefined;
    }
  }
}

/** deleteOptions: the DeleteOptions of a delete: how dependents go, and the uid the object must still have. */
const deleteOptions = (propagationPolicy: string, uid: string | undefined): object => ({
  apiVersion: 'v1',
  kind: 'DeleteOptions',
  propagationPolicy,
  ...(uid === undefined ? {} : { preconditions: { uid } }),
});

/**
 * microTime: metav1.MicroTime's wire form, RFC 3339 with microseconds (an Event's eventTime is
 * refused without them).
 */
export const microTime = (at: Date): string => at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** createdMeta: the name, labels, annotations and owners of a created object. */
const createdMeta = (metadata: ObjectMeta, namespace: string): object => ({
  ...(metadata.name === undefined ? {} : { name: metadata.name }),
  namespace,
  ...(metadata.labels === undefined ? {} : { labels: metadata.labels }),
  ...(metadata.annotations === undefined ? {} : { annotations: metadata.annotations }),
  ...(metadata.ownerReferences === undefined ? {} : { ownerReferences: metadata.ownerReferences }),
});

/** claimBody: a volumeClaimPolicies claim; its spec is the user's template spec, core/v1's own fields (the API server validates them). */
const claimBody = (claim: PersistentVolumeClaim, namespace: string): object => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: createdMeta(claim.metadata, namespace),
  spec: claim.spec ?? {},
});

/** serviceBody: the planner's headless Service. */
const serviceBody = (service: Service, namespace: string): object => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: createdMeta(service.metadata, namespace),
  spec: service.spec ?? {},
});
