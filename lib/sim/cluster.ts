/**
 * An in-memory Kubernetes API server plus the parts of kube-controller-manager a JobSet run
 * needs (the Job controller, garbage collection, the TTL-after-finished controller), in virtual
 * time. It carries out the planner's Actions the way the real gateway (lib/k8s/gateway.ts) does
 * against a real API server — AlreadyExists, resourceVersion conflicts, foreground deletion with
 * finalizers, the Job status rules, the JobSet CRD's status schema — and fails with the same
 * Lineup errors (test/k8s/gatewayBehaviour.ts runs the same cases against both), so
 * `lineup simulate` exercises the real reconcile code against realistic answers.
 *
 * Objects are never mutated: every write replaces the stored object with a new one (sharing
 * the unchanged parts), so the planner can be handed the stored objects without copying.
 */
import { ConditionType, JobConditionType, Label } from '../jobset/api.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { subdomainOf } from '../jobset/keys.ts';
import type { Job, JobCondition, JobSet, JobSetStatus, JobStatus, ObjectMeta, PersistentVolumeClaim, PodTemplateSpec, Service } from '../jobset/schema.ts';
import { eventNote } from '../k8s/eventNote.ts';
import type { Action, ActionKind, Observed, PodTemplateMerge } from '../plan/types.ts';
import { resolveBehaviour, EMPTY_BEHAVIOUR } from './behaviour.ts';
import type { JobTiming } from './behaviour.ts';
import { DEFAULT_NAMESPACE, DeleteReason, FOREGROUND_FINALIZER, JobMessage, JobReason, POD_TERMINATION_MS, SIM_EPOCH_MS } from './constants.ts';
import { alreadyExists, invalidObject } from './errors.ts';
import { jobSetStatusViolations } from './jobSetStatusRules.ts';
import { jobIsFinished, jobStatusViolations } from './jobStatusRules.ts';
import { Phase } from './queue.ts';
import type { EventHandle, EventQueue } from './queue.ts';
import { conditionChanges, timelineCondition, TimelineType } from './timeline.ts';
import type { TimelineEntry } from './timeline.ts';

/**
 * toTimestamp: the RFC 3339 form of a virtual time, seconds precision like metav1.Time, on a
 * cluster whose virtual t=0 is `epochMs`.
 */
export const toTimestamp = (virtualMs: number, epochMs: number = SIM_EPOCH_MS): string =>
  `${new Date(epochMs + Math.floor(virtualMs / 1000) * 1000).toISOString().slice(0, 19)}Z`;

/** objectKey: `namespace/name`, the store's key for a namespaced object. */
export const objectKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** SimEvent: a Kubernetes Event recorded on a JobSet. */
export interface SimEvent {
  readonly at: number;
  readonly eventType: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** JobRef: what the behaviour lookup needs to know about a Job. */
export interface JobRef {
  readonly name: string;
  readonly replicatedJob: string | undefined;
  /** The JobSet restart attempt the Job belongs to (its restart-attempt label), when it has one. */
  readonly restartAttempt?: string | undefined;
}

/** ClusterOptions: the queue the cluster schedules its controllers on, and how Jobs behave. */
export interface ClusterOptions {
  readonly queue: EventQueue;
  /** Timing of a Job once un-suspended. @default DEFAULT_TIMING for every Job */
  readonly timing?: ((job: JobRef) => JobTiming) | undefined;
  /** Called after every write to a JobSet, or to a Job or Service labelled/named for one (a watch event). */
  readonly onChange?: ((namespace: string, jobSetName: string, change: ClusterChange) => void) | undefined;
  /**
   * Wall-clock time (epoch ms) of virtual t=0: objects' timestamps and a pass's `now` derive from
   * it. `lineup demo` passes the time it started, so what it records reads as today; `lineup
   * simulate` keeps the fixed one, so its output is the same on every run. @default SIM_EPOCH_MS
   */
  readonly epochMs?: number | undefined;
}

/**
 * ClusterChange: the object a write changed, as its watch event carries it (`object` undefined
 * when the write removed it). What the perturbation of `lineup replay --perturb` delivers late,
 * twice, out of order or never.
 */
export interface ClusterChange {
  readonly kind: 'JobSet' | 'Job' | 'Service';
  readonly name: string;
  readonly resourceVersion: string;
  readonly object: JobSet | Job | Service | undefined;
}

/** Per-Job bookkeeping of the simulated Job controller, beside the stored object. */
interface JobRecord {
  job: Job;
  /** `namespace/jobSetName` from the jobset-name label, when the Job has one. */
  readonly jobSetKey: string | undefined;
  /** Pods exist and the ready/finish timers are pending. */
  running: boolean;
  timers: EventHandle[];
  deleteReason: string | undefined;
}

const podsCount = (job: Job): number => Math.min(job.spec.parallelism ?? 1, job.spec.completions ?? job.spec.parallelism ?? 1);

const upsertCondition = (conditions: readonly JobCondition[] | undefined, condition: JobCondition): JobCondition[] => {
  const list = conditions ?? [];
  return list.some((existing) => existing.type === condition.type)
    ? list.map((existing) => (existing.type === condition.type ? condition : existing))
    : [...list, condition];
};

/** canonical: a JSON form with sorted keys and no empty containers, for "did this really change". */
const canonical = (value: unknown): string => JSON.stringify(normalise(value)) ?? '';
const normalise = (value: unknown): unknown => {
  if (Array.isArray(value)) {
    const items = value.map(normalise).filter((item) => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .map(([key, item]) => [key, normalise(item)] as const)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value;
};

/**
 * patchPodTemplate: a Job's pod template after the resume's JSON merge patch, as the real gateway
 * sends it (lib/k8s/gateway.ts resumeJob): labels, annotations and nodeSelector merged key by key
 * (the removed nodeSelector keys deleted), tolerations and schedulingGates replaced whole — a
 * merge patch replaces lists, and the planner already worked them out (lib/plan/resume.ts).
 */
export const patchPodTemplate = (template: PodTemplateSpec, merge: PodTemplateMerge): PodTemplateSpec => ({
  ...template,
  metadata: {
    ...template.metadata,
    labels: { ...template.metadata?.labels, ...merge.labels },
    annotations: { ...template.metadata?.annotations, ...merge.annotations },
  },
  spec: {
    ...template.spec,
    nodeSelector: Object.fromEntries(Object.entries({ ...template.spec?.nodeSelector, ...merge.nodeSelector }).filter(([key]) => !merge.nodeSelectorRemoved.includes(key))),
    tolerations: [...merge.tolerations],
    schedulingGates: [...merge.schedulingGates],
  },
});

/**
 * templateMutable: whether a 1.36 API server lets a Job's pod template change (the scheduling
 * directives resume merges): only while the Job is suspended, has no pods, and either never
 * started or has been marked Suspended by the Job controller (pkg/registry/batch/job
 * shouldAllowMutablePodTemplate, MutableSchedulingDirectivesForSuspendedJobs on by default).
 */
const templateMutable = (job: Job): boolean =>
  job.spec.suspend === true &&
  (job.status?.startTime === undefined || (job.status.conditions ?? []).some((c) => c.type === JobConditionType.Suspended && c.status === 'True')) &&
  (job.status?.active ?? 0) === 0;

const isControlledBy = (meta: ObjectMeta, uid: string | undefined): boolean =>
  uid !== undefined && (meta.ownerReferences ?? []).some((ref) => ref.controller === true && ref.uid === uid);

/** The per-kind appliers' shared signature. */
type Applier<K extends ActionKind> = (namespace: string, jobSetName: string, action: Extract<Action, { kind: K }>, now: number) => void;

/**
 * SimCluster: the simulated API server and controllers. Reads return the stored objects
 * themselves (never mutate them); writes bump one resourceVersion counter.
 *
 * @example
 * const queue = new EventQueue();
 * const cluster = new SimCluster({ queue });
 * cluster.createJob(job, 0);
 * queue.runUntil(30_000); // the Job has succeeded
 */
export class SimCluster {
  /** Wall-clock time (epoch ms) of virtual t=0 (ClusterOptions.epochMs). */
  readonly epochMs: number;
  private readonly queue: EventQueue;
  private readonly timing: (job: JobRef) => JobTiming;
  private readonly onChange: (namespace: string, jobSetName: string, change: ClusterChange) => void;
  private resourceVersion = 0;
  private uids = 0;
  private readonly jobSets = new Map<string, JobSet>();
  private readonly jobs = new Map<string, JobRecord>();
  /** Jobs per `namespace/jobSetName` label value, in creation order (the observe order); records, so a pass reads them without lookups. */
  private readonly jobsByJobSet = new Map<string, Set<JobRecord>>();
  private readonly services = new Map<string, Service>();
  private readonly claims = new Map<string, PersistentVolumeClaim>();
  private readonly eventLog = new Map<string, SimEvent[]>();
  private readonly timelines = new Map<string, TimelineEntry[]>();

  constructor(options: ClusterOptions) {
    this.queue = options.queue;
    this.timing = options.timing ?? ((job) => resolveBehaviour(EMPTY_BEHAVIOUR, job));
    this.onChange = options.onChange ?? (() => undefined);
    this.epochMs = options.epochMs ?? SIM_EPOCH_MS;
  }

  // ---- reads -------------------------------------------------------------------------------

  /** writes: how many writes the store has taken (the last resourceVersion handed out). */
  writes(): number {
    return this.resourceVersion;
  }

  /** getJobSet: the stored JobSet, if any. */
  getJobSet(namespace: string, name: string): JobSet | undefined {
    return this.jobSets.get(objectKey(namespace, name));
  }

  /** getJob: the stored Job, if any. */
  getJob(namespace: string, name: string): Job | undefined {
    return this.jobs.get(objectKey(namespace, name))?.job;
  }

  /** getService: the stored Service, if any. */
  getService(namespace: string, name: string): Service | undefined {
    return this.services.get(objectKey(namespace, name));
  }

  /** getPersistentVolumeClaim: the stored claim, if any. */
  getPersistentVolumeClaim(namespace: string, name: string): PersistentVolumeClaim | undefined {
    return this.claims.get(objectKey(namespace, name));
  }

  /** jobsOf: the Jobs labelled jobset-name=<jobSetName> in the namespace, in creation order. */
  jobsOf(namespace: string, jobSetName: string): Job[] {
    const records = this.jobsByJobSet.get(objectKey(namespace, jobSetName));
    const out: Job[] = [];
    if (records) for (const record of records) out.push(record.job);
    return out;
  }

  /** events: the Kubernetes Events recorded on a JobSet, oldest first. */
  events(namespace: string, jobSetName: string): readonly SimEvent[] {
    return this.eventLog.get(objectKey(namespace, jobSetName)) ?? [];
  }

  /** timeline: what happened to a JobSet and its Jobs, oldest first. */
  timeline(namespace: string, jobSetName: string): readonly TimelineEntry[] {
    return this.timelines.get(objectKey(namespace, jobSetName)) ?? [];
  }

  /**
   * observe: what one reconcile pass of JobSet namespace/name sees at virtual time `now`: the
   * JobSet, the Jobs labelled with its name, and the Service named after its subdomain;
   * undefined once the JobSet is gone.
   */
  observe(namespace: string, name: string, now: number): Observed | undefined {
    const jobSet = this.getJobSet(namespace, name);
    if (!jobSet) return undefined;
    return {
      jobSet,
      jobs: this.jobsOf(namespace, name),
      service: this.getService(namespace, subdomainOf(jobSet)),
      now: this.epochMs + now,
    };
  }

  // ---- writes from outside the controller -------------------------------------------------

  /**
   * createJobSet: store a JobSet as the API server would on create: a uid when it has none,
   * resourceVersion, generation 1, creationTimestamp, and no status (status is a subresource).
   */
  createJobSet(jobSet: JobSet, now: number): JobSet {
    const namespace = jobSet.metadata.namespace ?? DEFAULT_NAMESPACE;
    const name = jobSet.metadata.name ?? '';
    const key = objectKey(namespace, name);
    if (this.jobSets.has(key)) throw alreadyExists('JobSet', namespace, name);
    const { status: _ignored, ...rest } = jobSet;
    const stored: JobSet = {
      ...rest,
      metadata: {
        ...jobSet.metadata,
        namespace,
        uid: jobSet.metadata.uid ?? this.nextUid(),
        resourceVersion: this.nextResourceVersion(),
        generation: 1,
        creationTimestamp: toTimestamp(now, this.epochMs),
      },
    };
    this.jobSets.set(key, stored);
    this.onChange(namespace, name, { kind: 'JobSet', name, resourceVersion: String(this.resourceVersion), object: stored });
    return stored;
  }

  /** setJobSetSuspend: a user's update of spec.suspend (bumps generation like any spec change). */
  setJobSetSuspend(namespace: string, name: string, suspend: boolean, now: number): void {
    const jobSet = this.requireJobSet(namespace, name);
    if ((jobSet.spec.suspend ?? false) === suspend) return;
    this.updateJobSetSpec(namespace, name, { ...jobSet.spec, suspend }, now);
  }

  /** updateJobSetSpec: a user's replacement of the JobSet's spec (bumps generation). */
  updateJobSetSpec(namespace: string, name: string, spec: JobSet['spec'], _now: number): void {
    const jobSet = this.requireJobSet(namespace, name);
    this.storeJobSet({
      ...jobSet,
      metadata: { ...jobSet.metadata, generation: (jobSet.metadata.generation ?? 1) + 1 },
      spec,
    });
  }

  /** deleteJobSetAsUser: a user's delete of the JobSet (Foreground, as the controller's TTL delete). */
  deleteJobSetAsUser(namespace: string, name: string, now: number): void {
    this.deleteJobSet(namespace, name, undefined, now);
  }

  /**
   * createJob: store a Job as the API server would on create (AlreadyExists on a taken name,
   * batch/v1 defaults, empty status) and let the Job controller see it.
   */
  createJob(job: Job, now: number): Job {
    const namespace = job.metadata.namespace ?? DEFAULT_NAMESPACE;
    const name = job.metadata.name ?? '';
    const key = objectKey(namespace, name);
    if (this.jobs.has(key)) throw alreadyExists('Job', namespace, name);
    const spec = job.spec;
    // batch/v1 defaulting: both unset means one pod to one completion; parallelism alone is a work queue.
    const parallelism = spec.parallelism ?? 1;
    const completions = spec.completions ?? (spec.parallelism === undefined ? 1 : undefined);
    const stored: Job = {
      ...job,
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        ...job.metadata,
        namespace,
        uid: this.nextUid(),
        resourceVersion: this.nextResourceVersion(),
        generation: 1,
        creationTimestamp: toTimestamp(now, this.epochMs),
      },
      spec: {
        ...spec,
        parallelism,
        ...(completions === undefined ? {} : { completions }),
        completionMode: spec.completionMode ?? 'NonIndexed',
        backoffLimit: spec.backoffLimit ?? 6,
        suspend: spec.suspend ?? false,
      },
      status: {},
    };
    const jobSetName = stored.metadata.labels?.[Label.JobSetName];
    const jobSetKey = jobSetName === undefined ? undefined : objectKey(namespace, jobSetName);
    const record: JobRecord = { job: stored, jobSetKey, running: false, timers: [], deleteReason: undefined };
    this.jobs.set(key, record);
    if (jobSetKey !== undefined) {
      let records = this.jobsByJobSet.get(jobSetKey);
      if (!records) this.jobsByJobSet.set(jobSetKey, (records = new Set()));
      records.add(record);
    }
    this.record(jobSetKey, { at: now, type: TimelineType.JobCreated, ...this.jobFields(stored), suspended: stored.spec.suspend === true });
    this.notifyJob(jobSetKey, stored.metadata.name ?? '', stored);
    this.scheduleSync(key, now);
    return stored;
  }

  /**
   * deleteJob: delete a Job. Foreground: deletionTimestamp and the foregroundDeletion finalizer,
   * pods killed, the Job gone once they are (POD_TERMINATION_MS) and no finalizer remains.
   * Background: gone at once unless finalizers hold it. A missing Job is already deleted.
   */
  deleteJob(namespace: string, name: string, propagation: 'Foreground' | 'Background', now: number, reason?: string): void {
    const key = objectKey(namespace, name);
    const record = this.jobs.get(key);
    if (!record || record.job.metadata.deletionTimestamp) return;
    record.deleteReason = reason;
    const hadPods = (record.job.status?.active ?? 0) > 0;
    this.stopTimers(record);
    const finalizers = record.job.metadata.finalizers ?? [];
    if (propagation === 'Background' && finalizers.length === 0) {
      this.removeJob(key, now);
      return;
    }
    this.storeJob(record, {
      ...record.job,
      metadata: {
        ...record.job.metadata,
        deletionTimestamp: toTimestamp(now, this.epochMs),
        finalizers: propagation === 'Foreground' ? [...finalizers, FOREGROUND_FINALIZER] : finalizers,
      },
    });
    const uid = record.job.metadata.uid;
    this.queue.schedule(now + (hadPods ? POD_TERMINATION_MS : 0), Phase.Cluster, (at) => this.podsGone(key, uid, at));
  }

  /** writeJobStatus: replace a Job's status through the status subresource (the 1.32+ rules apply). */
  writeJobStatus(namespace: string, name: string, status: JobStatus, _now: number): Job {
    const record = this.requireJob(namespace, name);
    return this.storeJobStatus(record, status);
  }

  // ---- the controller's writes ------------------------------------------------------------

  /**
   * apply: carry out one planner Action for JobSet namespace/jobSetName as the real gateway does
   * against an API server (the ClusterGateway contract, lib/reconcile/types.ts). Throws
   * ConflictError on a stale resourceVersion or uid precondition (and on a pod template the
   * server does not let change yet), AlreadyExistsError on a Job name that is taken,
   * NotFoundError on a write to a missing object, InvalidObjectError on a write a real server
   * refuses as invalid. Deleting a missing object, removing a finalizer from a missing Job and
   * creating a Service that exists succeed without a write.
   */
  apply(namespace: string, jobSetName: string, action: Action, now: number): void {
    const applier = this.appliers[action.kind] as Applier<ActionKind>;
    applier(namespace, jobSetName, action as Extract<Action, { kind: ActionKind }>, now);
  }

  private readonly appliers: { readonly [K in ActionKind]: Applier<K> } = {
    CreateJob: (namespace, _jobSetName, action, now) => {
      this.createJob({ ...action.job, metadata: { ...action.job.metadata, namespace: action.job.metadata.namespace ?? namespace } }, now);
    },
    ResumeJob: (namespace, _jobSetName, action, now) => this.resumeJob(namespace, action, now),
    SuspendJob: (namespace, _jobSetName, action, now) => {
      const record = this.requireJob(namespace, action.name);
      this.checkResourceVersion(record.job, action.resourceVersion, `job ${namespace}/${action.name}`);
      if (record.job.spec.suspend === true) return;
      const job = this.storeJob(record, { ...record.job, spec: { ...record.job.spec, suspend: true } });
      this.record(record.jobSetKey, { at: now, type: TimelineType.JobSuspended, ...this.jobFields(job) });
      this.scheduleSync(objectKey(namespace, action.name), now);
    },
    DeleteJob: (namespace, _jobSetName, action, now) => {
      const job = this.getJob(namespace, action.name);
      if (job && action.uid !== undefined && job.metadata.uid !== action.uid) {
        throw new ConflictError(`job ${namespace}/${action.name}: uid precondition ${action.uid} does not match ${job.metadata.uid}`);
      }
      this.deleteJob(namespace, action.name, action.propagation, now, action.reason);
    },
    RemoveJobFinalizer: (namespace, _jobSetName, action, now) => {
      // A Job that is gone holds no finalizer: nothing left to remove.
      const record = this.jobs.get(objectKey(namespace, action.name));
      if (!record) return;
      this.checkResourceVersion(record.job, action.resourceVersion, `job ${namespace}/${action.name}`);
      const finalizers = record.job.metadata.finalizers ?? [];
      if (!finalizers.includes(action.finalizer)) return;
      const remaining = finalizers.filter((finalizer) => finalizer !== action.finalizer);
      if (record.job.metadata.deletionTimestamp && remaining.length === 0) {
        this.removeJob(objectKey(namespace, action.name), now);
        return;
      }
      this.storeJob(record, { ...record.job, metadata: { ...record.job.metadata, finalizers: remaining } });
    },
    CreateService: (namespace, _jobSetName, action, now) => {
      const serviceNamespace = action.service.metadata.namespace ?? namespace;
      const name = action.service.metadata.name ?? '';
      const key = objectKey(serviceNamespace, name);
      // Upstream never updates an existing Service: one of this name is the one wanted.
      if (this.services.has(key)) return;
      this.services.set(key, {
        ...action.service,
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {
          ...action.service.metadata,
          namespace: serviceNamespace,
          uid: this.nextUid(),
          resourceVersion: this.nextResourceVersion(),
          creationTimestamp: toTimestamp(now, this.epochMs),
        },
      });
      this.notifyService(serviceNamespace, name, this.services.get(objectKey(serviceNamespace, name)));
    },
    CreatePersistentVolumeClaim: (namespace, jobSetName, action, now) => {
      const claimNamespace = action.claim.metadata.namespace || namespace;
      const name = action.claim.metadata.name ?? '';
      const key = objectKey(claimNamespace, name);
      // As upstream's controller and the Kubernetes gateway: a claim of this name is the one wanted.
      if (this.claims.has(key)) return;
      this.claims.set(key, {
        ...action.claim,
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { ...action.claim.metadata, namespace: claimNamespace, uid: this.nextUid(), resourceVersion: this.nextResourceVersion(), creationTimestamp: toTimestamp(now, this.epochMs) },
      });
      const retention = action.claim.metadata.ownerReferences === undefined ? 'retained after the jobset' : 'owned by the jobset';
      this.record(objectKey(namespace, jobSetName), { at: now, type: TimelineType.VolumeClaimCreated, message: `${name} (${retention})` });
    },
    PatchJobSetAnnotations: (namespace, jobSetName, action) => {
      const jobSet = this.requireJobSet(namespace, jobSetName);
      this.checkResourceVersion(jobSet, action.resourceVersion, `jobset ${namespace}/${jobSetName}`);
      const annotations: Record<string, string> = { ...jobSet.metadata.annotations };
      for (const [key, value] of Object.entries(action.annotations)) {
        if (value === null) delete annotations[key];
        else annotations[key] = value;
      }
      this.storeJobSet({ ...jobSet, metadata: { ...jobSet.metadata, annotations } });
    },
    UpdateJobSetStatus: (namespace, jobSetName, action, now) => this.updateJobSetStatus(namespace, jobSetName, action.status, action.resourceVersion, now),
    EmitEvent: (namespace, jobSetName, action, now) => {
      const key = objectKey(namespace, jobSetName);
      const list = this.eventLog.get(key) ?? [];
      list.push({ at: now, eventType: action.eventType, reason: action.reason, message: eventNote(action.message) });
      this.eventLog.set(key, list);
      // An Event is an object of its own: it takes a resourceVersion but is no JobSet change.
      this.nextResourceVersion();
    },
    DeleteJobSet: (namespace, jobSetName, action, now) => this.deleteJobSet(namespace, jobSetName, action.uid, now),
  };

  private resumeJob(namespace: string, action: Extract<Action, { kind: 'ResumeJob' }>, now: number): void {
    const what = `job ${namespace}/${action.name}`;
    const record = this.requireJob(namespace, action.name);
    this.checkResourceVersion(record.job, action.resourceVersion, what);
    // upstream resumeJob: clear startTime through the status subresource first, because the pod
    // template of a Job with a startTime is immutable.
    if (action.clearStartTime && record.job.status?.startTime !== undefined) {
      const { startTime: _cleared, ...status } = record.job.status;
      this.storeJobStatus(record, status);
    }
    const before = record.job;
    const template = action.podTemplate ? patchPodTemplate(before.spec.template, action.podTemplate) : before.spec.template;
    if (action.podTemplate && canonical(template) !== canonical(before.spec.template) && !templateMutable(before)) {
      // The server answers 422 on spec.template; the real gateway reports that refusal as a
      // conflict, because it lasts only until the Job controller marks the Job Suspended.
      const refusal = invalidObject(what, 'Job', action.name, [{ path: 'spec.template', message: 'Invalid value: field is immutable' }]);
      throw new ConflictError(
        `${what}: the pod template cannot change yet (suspend=${before.spec.suspend === true}, startTime=${before.status?.startTime ?? 'none'}, active=${before.status?.active ?? 0}); re-plan later`,
        before.metadata.resourceVersion,
        { cause: refusal },
      );
    }
    const wasSuspended = before.spec.suspend === true;
    const job = this.storeJob(record, { ...before, spec: { ...before.spec, template, suspend: false } });
    if (wasSuspended) {
      this.record(record.jobSetKey, { at: now, type: TimelineType.JobResumed, ...this.jobFields(job) });
      this.scheduleSync(objectKey(namespace, action.name), now);
    }
  }

  private updateJobSetStatus(namespace: string, name: string, status: JobSetStatus, resourceVersion: string | undefined, now: number): void {
    const what = `jobset ${namespace}/${name}`;
    const jobSet = this.requireJobSet(namespace, name);
    this.checkResourceVersion(jobSet, resourceVersion, what);
    const causes = jobSetStatusViolations(status);
    if (causes.length > 0) throw invalidObject(`${what} status`, 'JobSet', name, causes);
    const previous = jobSet.status?.conditions;
    this.storeJobSet({ ...jobSet, status });
    const key = objectKey(namespace, name);
    for (const condition of conditionChanges(previous, status.conditions)) {
      this.record(key, { at: now, type: TimelineType.ConditionChanged, condition: timelineCondition(condition) });
      const wasRejected = (previous ?? []).some((old) => old.type === ConditionType.Rejected && old.status === 'True');
      if (condition.type === ConditionType.Rejected && condition.status === 'True' && !wasRejected) {
        this.record(key, { at: now, type: TimelineType.Rejected, message: condition.message ?? '' });
      }
    }
  }

  private deleteJobSet(namespace: string, name: string, uid: string | undefined, now: number): void {
    const jobSet = this.getJobSet(namespace, name);
    if (!jobSet) return;
    if (uid !== undefined && jobSet.metadata.uid !== uid) {
      throw new ConflictError(`jobset ${namespace}/${name}: uid precondition ${uid} does not match ${jobSet.metadata.uid}`);
    }
    if (jobSet.metadata.deletionTimestamp) return;
    const ownerUid = jobSet.metadata.uid;
    this.storeJobSet({
      ...jobSet,
      metadata: {
        ...jobSet.metadata,
        deletionTimestamp: toTimestamp(now, this.epochMs),
        finalizers: [...(jobSet.metadata.finalizers ?? []), FOREGROUND_FINALIZER],
      },
    });
    // The garbage collector deletes the dependents; foreground propagation keeps the owner
    // until they are gone.
    for (const [key, service] of [...this.services]) {
      if (isControlledBy(service.metadata, ownerUid)) {
        this.services.delete(key);
        this.nextResourceVersion();
      }
    }
    for (const [key, claim] of [...this.claims]) {
      if (isControlledBy(claim.metadata, ownerUid)) {
        this.claims.delete(key);
        this.nextResourceVersion();
      }
    }
    for (const record of [...this.jobs.values()]) {
      if (isControlledBy(record.job.metadata, ownerUid)) {
        this.deleteJob(record.job.metadata.namespace ?? namespace, record.job.metadata.name ?? '', 'Foreground', now, DeleteReason.OwnerDeleted);
      }
    }
    this.collectJobSet(objectKey(namespace, name));
  }

  // ---- the Job controller -----------------------------------------------------------------

  private scheduleSync(key: string, now: number): void {
    this.queue.schedule(now, Phase.Cluster, (at) => this.syncJob(key, at));
  }

  /** syncJob: level-triggered like the real Job controller: make pods match spec.suspend. */
  private syncJob(key: string, at: number): void {
    const record = this.jobs.get(key);
    if (!record || record.job.metadata.deletionTimestamp || jobIsFinished(record.job.status)) return;
    const job = record.job;
    const status = job.status ?? {};
    if (job.spec.suspend === true) {
      const suspendedCondition = status.conditions?.some((c) => c.type === JobConditionType.Suspended && c.status === 'True');
      if (!record.running && suspendedCondition) return;
      this.stopTimers(record);
      this.storeJobStatus(record, {
        ...status,
        active: 0,
        ready: 0,
        ...(suspendedCondition
          ? {}
          : { conditions: upsertCondition(status.conditions, this.jobCondition(JobConditionType.Suspended, 'True', JobReason.JobSuspended, JobMessage.JobSuspended, at)) }),
      });
      return;
    }
    if (record.running) return;
    const wasSuspended = status.conditions?.some((c) => c.type === JobConditionType.Suspended && c.status === 'True');
    this.storeJobStatus(record, {
      ...status,
      startTime: status.startTime ?? toTimestamp(at, this.epochMs),
      active: job.spec.parallelism ?? 1,
      ready: 0,
      ...(wasSuspended
        ? { conditions: upsertCondition(status.conditions, this.jobCondition(JobConditionType.Suspended, 'False', JobReason.JobResumed, JobMessage.JobResumed, at)) }
        : {}),
    });
    record.running = true;
    this.startTimers(record, key, at);
  }

  private startTimers(record: JobRecord, key: string, at: number): void {
    const job = record.job;
    const timing = this.timing({
      name: job.metadata.name ?? '',
      replicatedJob: job.metadata.labels?.[Label.ReplicatedJobName],
      restartAttempt: job.metadata.labels?.[Label.RestartAttempt],
    });
    // Failure wins a tie with success: a behaviour that sets failAfter wants to see the failure.
    const fails = timing.failAfter <= timing.succeedAfter;
    const finishAfter = Math.min(timing.failAfter, timing.succeedAfter);
    const uid = job.metadata.uid;
    const guard = (run: (current: JobRecord, when: number) => void) => (when: number) => {
      const current = this.jobs.get(key);
      if (current && current.job.metadata.uid === uid && current.running) run(current, when);
    };
    if (timing.readyAfter < finishAfter) record.timers.push(this.queue.schedule(at + timing.readyAfter, Phase.Cluster, guard((r, when) => this.jobReady(r, when))));
    if (Number.isFinite(finishAfter)) {
      record.timers.push(
        this.queue.schedule(
          at + finishAfter,
          Phase.Cluster,
          guard((r, when) => (fails ? this.jobFailed(r, key, timing, when) : this.jobSucceeded(r, key, when))),
        ),
      );
    }
  }

  private stopTimers(record: JobRecord): void {
    for (const handle of record.timers) this.queue.cancel(handle);
    record.timers = [];
    record.running = false;
  }

  private jobReady(record: JobRecord, at: number): void {
    const job = this.storeJobStatus(record, { ...record.job.status, active: record.job.spec.parallelism ?? 1, ready: podsCount(record.job) });
    this.record(record.jobSetKey, { at, type: TimelineType.JobReady, ...this.jobFields(job) });
  }

  private jobSucceeded(record: JobRecord, key: string, at: number): void {
    const status = record.job.status ?? {};
    const spec = record.job.spec;
    let conditions = upsertCondition(
      status.conditions,
      this.jobCondition(JobConditionType.SuccessCriteriaMet, 'True', JobReason.CompletionsReached, JobMessage.CompletionsReached, at),
    );
    conditions = upsertCondition(conditions, this.jobCondition(JobConditionType.Complete, 'True', JobReason.CompletionsReached, JobMessage.CompletionsReached, at));
    this.stopTimers(record);
    const job = this.storeJobStatus(record, {
      ...status,
      active: 0,
      ready: 0,
      succeeded: Math.max(status.succeeded ?? 0, spec.completions ?? spec.parallelism ?? 1),
      completionTime: toTimestamp(at, this.epochMs),
      conditions,
    });
    this.record(record.jobSetKey, { at, type: TimelineType.JobSucceeded, ...this.jobFields(job) });
    this.scheduleTtl(record, key, at);
  }

  private jobFailed(record: JobRecord, key: string, timing: JobTiming, at: number): void {
    const status = record.job.status ?? {};
    let conditions = upsertCondition(status.conditions, this.jobCondition(JobConditionType.FailureTarget, 'True', timing.failReason, timing.failMessage, at));
    conditions = upsertCondition(conditions, this.jobCondition(JobConditionType.Failed, 'True', timing.failReason, timing.failMessage, at));
    this.stopTimers(record);
    const job = this.storeJobStatus(record, { ...status, active: 0, ready: 0, failed: (status.failed ?? 0) + 1, conditions });
    this.record(record.jobSetKey, { at, type: TimelineType.JobFailed, ...this.jobFields(job), message: `${timing.failReason}: ${timing.failMessage}` });
    this.scheduleTtl(record, key, at);
  }

  /** scheduleTtl: the TTL-after-finished controller deletes a finished Job ttl seconds after it finished (foreground, like upstream Kubernetes). */
  private scheduleTtl(record: JobRecord, key: string, finishedAt: number): void {
    const ttl = record.job.spec.ttlSecondsAfterFinished;
    if (ttl === undefined) return;
    const uid = record.job.metadata.uid;
    this.queue.schedule(finishedAt + ttl * 1000, Phase.Cluster, (at) => {
      const current = this.jobs.get(key);
      if (!current || current.job.metadata.uid !== uid) return;
      this.deleteJob(current.job.metadata.namespace ?? '', current.job.metadata.name ?? '', 'Foreground', at, DeleteReason.TtlAfterFinished);
    });
  }

  /** podsGone: the pods of a deleting Job have terminated; drop the foreground finalizer and remove the Job when nothing holds it. */
  private podsGone(key: string, uid: string | undefined, at: number): void {
    const record = this.jobs.get(key);
    if (!record || record.job.metadata.uid !== uid) return;
    const status = record.job.status ?? {};
    if (!jobIsFinished(status) && ((status.active ?? 0) > 0 || (status.ready ?? 0) > 0)) {
      this.storeJobStatus(record, { ...status, active: 0, ready: 0 });
    }
    const remaining = (record.job.metadata.finalizers ?? []).filter((finalizer) => finalizer !== FOREGROUND_FINALIZER);
    if (remaining.length === 0) {
      this.removeJob(key, at);
      return;
    }
    if (remaining.length !== (record.job.metadata.finalizers ?? []).length) {
      this.storeJob(record, { ...record.job, metadata: { ...record.job.metadata, finalizers: remaining } });
    }
  }

  private removeJob(key: string, at: number): void {
    const record = this.jobs.get(key);
    if (!record) return;
    this.stopTimers(record);
    this.jobs.delete(key);
    if (record.jobSetKey !== undefined) this.jobsByJobSet.get(record.jobSetKey)?.delete(record);
    const resourceVersion = this.nextResourceVersion();
    this.record(record.jobSetKey, {
      at,
      type: TimelineType.JobDeleted,
      ...this.jobFields(record.job),
      ...(record.deleteReason === undefined ? {} : { message: record.deleteReason }),
    });
    this.notifyJob(record.jobSetKey, record.job.metadata.name ?? '', undefined, resourceVersion);
    if (record.jobSetKey !== undefined) this.collectJobSet(record.jobSetKey);
  }

  /** collectJobSet: remove a JobSet being deleted in the foreground once no Job it controls is left. */
  private collectJobSet(jobSetKey: string): void {
    const jobSet = this.jobSets.get(jobSetKey);
    if (!jobSet?.metadata.deletionTimestamp) return;
    const uid = jobSet.metadata.uid;
    for (const record of this.jobs.values()) if (isControlledBy(record.job.metadata, uid)) return;
    const finalizers = (jobSet.metadata.finalizers ?? []).filter((finalizer) => finalizer !== FOREGROUND_FINALIZER);
    if (finalizers.length > 0) {
      this.storeJobSet({ ...jobSet, metadata: { ...jobSet.metadata, finalizers } });
      return;
    }
    this.jobSets.delete(jobSetKey);
    const resourceVersion = this.nextResourceVersion();
    this.onChange(jobSet.metadata.namespace ?? '', jobSet.metadata.name ?? '', { kind: 'JobSet', name: jobSet.metadata.name ?? '', resourceVersion, object: undefined });
  }

  // ---- store helpers ----------------------------------------------------------------------

  private jobCondition(type: string, status: 'True' | 'False', reason: string, message: string, at: number): JobCondition {
    const time = toTimestamp(at, this.epochMs);
    return { type, status, reason, message, lastProbeTime: time, lastTransitionTime: time };
  }

  private jobFields(job: Job): { job: string; replicatedJob?: string } {
    const replicatedJob = job.metadata.labels?.[Label.ReplicatedJobName];
    return replicatedJob === undefined ? { job: job.metadata.name ?? '' } : { job: job.metadata.name ?? '', replicatedJob };
  }

  private record(jobSetKey: string | undefined, entry: TimelineEntry): void {
    if (jobSetKey === undefined) return;
    let list = this.timelines.get(jobSetKey);
    if (!list) this.timelines.set(jobSetKey, (list = []));
    list.push(entry);
  }

  private nextResourceVersion(): string {
    this.resourceVersion += 1;
    return String(this.resourceVersion);
  }

  private nextUid(): string {
    this.uids += 1;
    // Deterministic, UUID-shaped, so two runs of the same input give byte-identical output.
    return `00000000-0000-4000-8000-${this.uids.toString(16).padStart(12, '0')}`;
  }

  private checkResourceVersion(object: { readonly metadata: ObjectMeta }, expected: string | undefined, what: string): void {
    if (expected !== undefined && object.metadata.resourceVersion !== expected) {
      throw new ConflictError(
        `${what}: the object has been modified (resourceVersion ${expected} expected, ${object.metadata.resourceVersion} stored)`,
        object.metadata.resourceVersion,
      );
    }
  }

  private requireJobSet(namespace: string, name: string): JobSet {
    const jobSet = this.getJobSet(namespace, name);
    if (!jobSet) throw new NotFoundError(`jobset ${namespace}/${name} not found`);
    return jobSet;
  }

  private requireJob(namespace: string, name: string): JobRecord {
    const record = this.jobs.get(objectKey(namespace, name));
    if (!record) throw new NotFoundError(`job ${namespace}/${name} not found`);
    return record;
  }

  private storeJobSet(jobSet: JobSet): void {
    const namespace = jobSet.metadata.namespace ?? DEFAULT_NAMESPACE;
    const name = jobSet.metadata.name ?? '';
    const stored: JobSet = { ...jobSet, metadata: { ...jobSet.metadata, resourceVersion: this.nextResourceVersion() } };
    this.jobSets.set(objectKey(namespace, name), stored);
    this.onChange(namespace, name, { kind: 'JobSet', name, resourceVersion: String(this.resourceVersion), object: stored });
  }

  private storeJob(record: JobRecord, job: Job): Job {
    record.job = { ...job, metadata: { ...job.metadata, resourceVersion: this.nextResourceVersion() } };
    this.notifyJob(record.jobSetKey, record.job.metadata.name ?? '', record.job);
    return record.job;
  }

  /** storeJobStatus: a write of the Job status subresource, refused when it breaks a 1.32+ rule. */
  private storeJobStatus(record: JobRecord, status: JobStatus): Job {
    const causes = jobStatusViolations(record.job, status);
    if (causes.length > 0) {
      const name = record.job.metadata.name ?? '';
      throw invalidObject(`job ${record.job.metadata.namespace ?? ''}/${name} status`, 'Job', name, causes);
    }
    return this.storeJob(record, { ...record.job, status });
  }

  private notifyJob(jobSetKey: string | undefined, name: string, job: Job | undefined, resourceVersion = String(this.resourceVersion)): void {
    if (jobSetKey === undefined) return;
    const slash = jobSetKey.indexOf('/');
    this.onChange(jobSetKey.slice(0, slash), jobSetKey.slice(slash + 1), { kind: 'Job', name, resourceVersion, object: job });
  }

  private notifyService(namespace: string, name: string, service: Service | undefined): void {
    // A Service matters to the JobSets whose subdomain it is named after.
    const change: ClusterChange = { kind: 'Service', name, resourceVersion: String(this.resourceVersion), object: service };
    for (const jobSet of this.jobSets.values()) {
      if (jobSet.metadata.namespace === namespace && subdomainOf(jobSet) === name) this.onChange(namespace, jobSet.metadata.name ?? '', change);
    }
  }
}
