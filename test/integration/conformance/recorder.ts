/**
 * What the conformance bed records for the checks behind each differential verdict
 * (test/conformance/evidence.ts): the watches' sightings of every Job, Pod and JobSet change,
 * matched afterwards against the API server's audit log (who wrote what, when it was received)
 * and Lineup's pass records. A sighting is matched to the write it follows from as the pipeline
 * benchmark does (bench/pipeline/timeline.ts): the last matching write the API server received
 * before the watch saw the change.
 */
import { Label } from '../../../lib/jobset/api.ts';
import { actorOf, type Actor } from '../../../bench/pipeline/timeline.ts';
import type { Evidence, JobCondition, JobHistory, JobSetSighting, LineupPass, StageShape } from '../../conformance/evidence.ts';
import { isObject, type JsonObject } from '../../../lib/json.ts';
import type { PassRecord } from '../e2e/pipeline.ts';
import type { AuditedWrite } from '../harness/upstream.ts';

const at = (value: unknown, ...path: string[]): unknown => path.reduce<unknown>((current, key) => (isObject(current) ? current[key] : undefined), value);
const conditionsOf = (object: unknown): JsonObject[] => {
  const conditions = at(object, 'status', 'conditions');
  return Array.isArray(conditions) ? conditions.filter(isObject) : [];
};

/** JobSighting: one Job (uid) as the watch saw it change. */
interface JobSighting {
  readonly namespace: string;
  readonly name: string;
  readonly jobSet: string;
  readonly replicatedJob: string;
  readonly attempt: number;
  readonly firstSeenAt: number;
  runningSeenAt?: number;
  readySeenAt?: number;
  readonly conditions: { type: string; status: string; lastTransitionTime?: string | undefined; seenAt: number }[];
  deletionSeenAt?: number;
  goneAt?: number;
}

/** isReady: not suspended, not being deleted, and ready + succeeded ≥ parallelism (what the controllers' gates read). */
const isReady = (job: unknown): boolean =>
  at(job, 'spec', 'suspend') !== true && at(job, 'metadata', 'deletionTimestamp') === undefined && Number(at(job, 'status', 'ready') ?? 0) + Number(at(job, 'status', 'succeeded') ?? 0) >= Number(at(job, 'spec', 'parallelism') ?? 1);

/** Recorder: the sightings, by uid (Jobs, Pods) and by `namespace/name` (JobSets). */
export class Recorder {
  private readonly jobs = new Map<string, JobSighting>();
  private readonly podEnds = new Map<string, Map<string, number>>();
  private readonly jobSets = new Map<string, JobSetSighting[]>();
  /** When each JobSet was first seen being deleted. */
  private readonly jobSetDeletions = new Map<string, number>();

  /** onJob: a Job watch event. */
  onJob(type: string, job: unknown): void {
    const now = Date.now();
    const uid = at(job, 'metadata', 'uid');
    const labels = at(job, 'metadata', 'labels');
    if (typeof uid !== 'string' || !isObject(labels) || typeof labels[Label.JobSetName] !== 'string') return;
    const seen: JobSighting = this.jobs.get(uid) ?? {
      namespace: String(at(job, 'metadata', 'namespace')),
      name: String(at(job, 'metadata', 'name')),
      jobSet: String(labels[Label.JobSetName]),
      replicatedJob: String(labels[Label.ReplicatedJobName] ?? ''),
      attempt: Number(labels[Label.RestartAttempt] ?? 0),
      firstSeenAt: now,
      conditions: [],
    };
    this.jobs.set(uid, seen);
    if (type === 'DELETED') {
      seen.goneAt ??= now;
      seen.deletionSeenAt ??= now;
      return;
    }
    if (at(job, 'metadata', 'deletionTimestamp') !== undefined) seen.deletionSeenAt ??= now;
    if (at(job, 'spec', 'suspend') !== true && seen.deletionSeenAt === undefined) seen.runningSeenAt ??= now;
    if (seen.deletionSeenAt === undefined && isReady(job)) seen.readySeenAt ??= now;
    for (const condition of conditionsOf(job)) {
      const last = seen.conditions.filter((c) => c.type === condition.type).at(-1);
      if (last?.status === String(condition.status)) continue;
      seen.conditions.push({ type: String(condition.type), status: String(condition.status), lastTransitionTime: typeof condition.lastTransitionTime === 'string' ? condition.lastTransitionTime : undefined, seenAt: now });
    }
  }

  /** onPod: a Pod watch event: the first sighting of each Pod ended, by its Job's uid. */
  onPod(type: string, pod: unknown): void {
    const phase = at(pod, 'status', 'phase');
    if (type === 'DELETED' || (phase !== 'Succeeded' && phase !== 'Failed')) return;
    const owners = at(pod, 'metadata', 'ownerReferences');
    const owner = Array.isArray(owners) ? owners.find((reference: unknown) => isObject(reference) && reference.kind === 'Job') : undefined;
    const podUid = at(pod, 'metadata', 'uid');
    if (!isObject(owner) || typeof owner.uid !== 'string' || typeof podUid !== 'string') return;
    const ends = this.podEnds.get(owner.uid) ?? new Map<string, number>();
    if (!ends.has(podUid)) ends.set(podUid, Date.now());
    this.podEnds.set(owner.uid, ends);
  }

  /** onJobSet: a JobSet watch event: a sighting whenever its restarts or conditions changed. */
  onJobSet(type: string, jobSet: unknown): void {
    const key = `${String(at(jobSet, 'metadata', 'namespace'))}/${String(at(jobSet, 'metadata', 'name'))}`;
    if (type === 'DELETED' || at(jobSet, 'metadata', 'deletionTimestamp') !== undefined) {
      if (!this.jobSetDeletions.has(key)) this.jobSetDeletions.set(key, Date.now());
      if (type === 'DELETED') return;
    }
    const sighting: JobSetSighting = {
      at: Date.now(),
      restarts: Number(at(jobSet, 'status', 'restarts') ?? 0),
      conditions: conditionsOf(jobSet).map((c) => ({ type: String(c.type), status: String(c.status), reason: typeof c.reason === 'string' ? c.reason : undefined })),
    };
    const history = this.jobSets.get(key) ?? [];
    const last = history.at(-1);
    if (last === undefined || JSON.stringify([last.restarts, last.conditions]) !== JSON.stringify([sighting.restarts, sighting.conditions])) history.push(sighting);
    this.jobSets.set(key, history);
  }

  /** beingDeleted: Jobs in `namespaces` whose deletion began and which are not gone yet. */
  beingDeleted(namespaces: readonly string[]): string[] {
    return [...this.jobs.values()].filter((job) => namespaces.includes(job.namespace) && job.deletionSeenAt !== undefined && job.goneAt === undefined).map((job) => `${job.namespace}/${job.name}`);
  }

  /**
   * evidence: what was recorded of JobSet `name` in `namespace`, run by `controller`, its writes
   * matched in `audit` (every request of the run), with Lineup's `passes` over it.
   */
  evidence(options: {
    namespace: string;
    name: string;
    controller: 'lineup' | 'upstream';
    audit: readonly AuditedWrite[];
    passes?: readonly PassRecord[];
    lastStage: readonly StageShape[];
    /** The user's actions on the JobSet in the order they were sent: suspend (true) or resume. */
    actions: readonly boolean[];
  }): Evidence {
    const { namespace, name, controller, audit } = options;
    const byObject = new Map<string, AuditedWrite[]>();
    for (const record of audit) {
      if (record.namespace !== namespace || record.name === undefined || !['create', 'update', 'patch', 'delete'].includes(record.verb)) continue;
      const key = `${record.resource}/${record.subresource ?? ''}/${record.name}`;
      byObject.set(key, [...(byObject.get(key) ?? []), record]);
    }
    const writes = (resource: string, subresource: string, object: string, actor?: Actor): AuditedWrite[] =>
      (byObject.get(`${resource}/${subresource}/${object}`) ?? []).filter((record) => actor === undefined || actorOf(record) === actor);
    /** lastBefore: the last accepted write received before `seen`. */
    const lastBefore = (candidates: readonly AuditedWrite[], seen: number | undefined): AuditedWrite | undefined =>
      seen === undefined ? undefined : candidates.filter((record) => record.code < 300 && record.receivedAt <= seen).at(-1);
    /**
     * decidedAt: when the deleter decided a delete, from what it had read: Lineup's pass that
     * deleted the Job began then (its reads follow); upstream's reconciles read its cache, which
     * at best holds what it saw when it sent its last status write before the delete.
     */
    const controllerStatusWrites = writes('jobsets', 'status', name, controller).filter((record) => record.code < 300);
    const decidedAt = (deletion: AuditedWrite, job: string): number | undefined => {
      if (actorOf(deletion) !== controller) return undefined;
      if (controller === 'lineup') {
        // A later pass of a lease loop lists the Jobs again only when one of them changed
        // (lib/k8s/gateway.ts observe): what it read is at least as old as its loop's first
        // pass, the one an event triggered.
        const passes = options.passes ?? [];
        const deleting = passes.findLastIndex((pass) => pass.decision.timings.passStartedAt <= deletion.receivedAt && pass.plan.actions.some((action) => action.kind === 'DeleteJob' && action.name === job));
        if (deleting < 0) return undefined;
        const loopStart = passes.slice(0, deleting + 1).findLast((pass) => pass.decision.triggers.length > 0) ?? passes[deleting];
        return loopStart?.decision.timings.passStartedAt;
      }
      return controllerStatusWrites.filter((record) => record.receivedAt <= deletion.receivedAt).at(-1)?.receivedAt;
    };
    const jobs: JobHistory[] = [...this.jobs.entries()]
      .filter(([, job]) => job.namespace === namespace && job.jobSet === name)
      .map(([uid, job]) => {
        const statusWrites = writes('jobs', 'status', job.name, 'jobController');
        const jobWrites = writes('jobs', '', job.name);
        // The write that set a condition: the Job controller's first status write received from its
        // lastTransitionTime (whole seconds, stamped just before the write) to the sighting; the
        // last one before the sighting would be a later write whenever the watch lags.
        // A condition seen in a later event than the one before it came from a later write.
        let previous: { seenAt: number; write: AuditedWrite | undefined } | undefined;
        const conditionWrite = (c: JobSighting['conditions'][number]): AuditedWrite | undefined => {
          if (previous !== undefined && previous.seenAt === c.seenAt) return previous.write;
          const stamped = c.lastTransitionTime === undefined ? Number.NaN : Date.parse(c.lastTransitionTime);
          const after = previous?.write?.receivedAt ?? Number.NEGATIVE_INFINITY;
          const first = Number.isNaN(stamped) ? undefined : statusWrites.find((record) => record.code < 300 && record.receivedAt >= stamped && record.receivedAt > after && record.receivedAt <= c.seenAt);
          const write = first ?? lastBefore(statusWrites, c.seenAt);
          previous = { seenAt: c.seenAt, write };
          return write;
        };
        const conditions: JobCondition[] = [...job.conditions]
          .sort((a, b) => a.seenAt - b.seenAt)
          .map((c) => {
            const write = conditionWrite(c);
            return { type: c.type, status: c.status, lastTransitionTime: c.lastTransitionTime, receivedAt: write?.receivedAt ?? c.seenAt, at: write?.at ?? c.seenAt, seenAt: c.seenAt };
          });
        // This uid's create: the last one received before the watch first saw it (a restart re-creates the name).
        const created = lastBefore(jobWrites.filter((record) => record.verb === 'create'), job.firstSeenAt)?.receivedAt ?? 0;
        const deletion = jobWrites.find((record) => record.verb === 'delete' && record.code < 300 && record.receivedAt >= created && record.receivedAt <= (job.deletionSeenAt ?? 0));
        const deletionAt = job.deletionSeenAt === undefined ? undefined : (deletion?.receivedAt ?? job.deletionSeenAt);
        return {
          name: job.name,
          replicatedJob: job.replicatedJob,
          attempt: job.attempt,
          runRequestedAt: job.runningSeenAt === undefined ? undefined : (lastBefore(jobWrites.filter((record) => record.verb !== 'delete' && actorOf(record) === controller), job.runningSeenAt)?.receivedAt ?? job.runningSeenAt),
          readyAt: job.readySeenAt === undefined ? undefined : (lastBefore(statusWrites, job.readySeenAt)?.at ?? job.readySeenAt),
          conditions,
          deletionAt,
          deletedBy: deletion === undefined ? undefined : actorOf(deletion),
          deletionDecidedAt: deletionAt === undefined || deletion === undefined ? undefined : decidedAt(deletion, job.name),
          goneAt: job.goneAt,
          podsEndedAt: [...(this.podEnds.get(uid)?.values() ?? [])].sort((a, b) => a - b),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name) || a.attempt - b.attempt);
    const jobSetWrites = writes('jobsets', '', name);
    const jobNames = new Set(jobs.map((job) => job.name));
    const passes: LineupPass[] | undefined = options.passes?.map((pass) => {
      const status = pass.plan.actions.find((action) => action.kind === 'UpdateJobSetStatus');
      return {
        startedAt: pass.decision.timings.passStartedAt,
        writesDoneAt: pass.decision.timings.writesDoneAt,
        statusConditions: status?.kind === 'UpdateJobSetStatus' ? (status.status.conditions ?? []).map((c) => ({ type: c.type, status: c.status })) : undefined,
        deletes: pass.plan.actions.flatMap((action) => (action.kind === 'DeleteJob' ? [action.name] : [])),
        error: pass.decision.error,
      };
    });
    return {
      createdAt: jobSetWrites.find((record) => record.verb === 'create')?.receivedAt ?? this.jobSets.get(`${namespace}/${name}`)?.[0]?.at ?? 0,
      jobs,
      jobSet: this.jobSets.get(`${namespace}/${name}`) ?? [],
      deletedAt: this.jobSetDeletions.get(`${namespace}/${name}`),
      statusWrites: writes('jobsets', 'status', name, controller).map((record) => ({ receivedAt: record.receivedAt, at: record.at, code: record.code })),
      jobDeletes: [...jobNames]
        .flatMap((job) => writes('jobs', '', job, controller).filter((record) => record.verb === 'delete'))
        .map((record) => ({ name: record.name ?? '', receivedAt: record.receivedAt, at: record.at, code: record.code }))
        .sort((a, b) => a.receivedAt - b.receivedAt),
      userActions: jobSetWrites
        .filter((record) => record.verb === 'patch' && record.code < 300 && actorOf(record) !== 'lineup' && actorOf(record) !== 'upstream')
        .flatMap((record, index) => {
          const suspend = options.actions[index];
          return suspend === undefined ? [] : [{ receivedAt: record.receivedAt, at: record.at, code: record.code, suspend }];
        }),
      lastStage: options.lastStage,
      ...(passes === undefined ? {} : { passes }),
    };
  }
}

/**
 * requestStarts: when each replicatedJob's first Job was requested to run (its runRequestedAt),
 * in the first attempt that ran it.
 */
export const requestStarts = (evidence: Evidence): Record<string, number> => {
  const starts: Record<string, number> = {};
  for (const job of evidence.jobs) {
    if (job.runRequestedAt === undefined) continue;
    const known = starts[job.replicatedJob];
    if (known === undefined || job.runRequestedAt < known) starts[job.replicatedJob] = job.runRequestedAt;
  }
  return starts;
};
