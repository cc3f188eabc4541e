/**
 * A small in-memory stand-in for the API server, for unit tests of the planner only: it applies
 * a plan's actions to plain objects and lets a test set Job status the way upstream's
 * integration tests do (ready: active = ready = parallelism; complete: SuccessCriteriaMet +
 * Complete; failed: FailureTarget + Failed). The real API server tier tests the same paths.
 */
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import type { Job, JobSet, PersistentVolumeClaim, Service } from '../../lib/jobset/schema.ts';
import { rfc3339Seconds } from '../../lib/plan/conditions.ts';
import { plan } from '../../lib/plan/planner.ts';
import type { Action, Plan, PlanOptions } from '../../lib/plan/types.ts';

export const lineupOptions: PlanOptions = { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false };

export class TestCluster {
  jobSet: JobSet | undefined;
  readonly jobs = new Map<string, Job>();
  service: Service | undefined;
  readonly events: { reason: string; message: string; eventType: string }[] = [];
  /** Volume claims by name, as created (one that exists is kept, as the gateways do). */
  readonly claims = new Map<string, PersistentVolumeClaim>();
  now = Date.parse('2026-01-01T00:00:00Z');
  private version = 1;
  readonly options: PlanOptions;

  constructor(jobSet: JobSet, options: PlanOptions = lineupOptions) {
    this.jobSet = structuredClone(jobSet);
    this.options = options;
  }

  private nextVersion(): string {
    this.version += 1;
    return String(this.version);
  }

  /** pass: one reconcile pass, its actions applied. */
  pass(): Plan {
    if (!this.jobSet) throw new Error('jobset is gone');
    const result = plan({ jobSet: this.jobSet, jobs: [...this.jobs.values()], service: this.service, now: this.now }, this.options);
    for (const action of result.actions) this.apply(action);
    return result;
  }

  /** settle: passes until one takes no action; returns every plan. */
  settle(limit = 20): Plan[] {
    const plans: Plan[] = [];
    for (let i = 0; i < limit; i += 1) {
      const result = this.pass();
      plans.push(result);
      if (result.actions.length === 0) return plans;
    }
    throw new Error(`no fixed point after ${limit} passes: ${plans.at(-1)?.reason}`);
  }

  apply(action: Action): void {
    const jobSet = this.jobSet;
    if (!jobSet) throw new Error('jobset is gone');
    switch (action.kind) {
      case 'CreateJob': {
        const name = action.job.metadata.name ?? '';
        if (this.jobs.has(name)) throw new Error(`job ${name} already exists`);
        this.jobs.set(name, { ...structuredClone(action.job), metadata: { ...action.job.metadata, uid: `uid-${name}-${this.version}`, resourceVersion: this.nextVersion() } });
        return;
      }
      case 'ResumeJob':
      case 'SuspendJob': {
        const job = this.job(action.name);
        const suspend = action.kind === 'SuspendJob';
        const status = { ...job.status };
        if (action.kind === 'ResumeJob' && action.clearStartTime) delete status.startTime;
        if (suspend) {
          status.active = 0;
          status.ready = 0;
        }
        this.jobs.set(action.name, { ...job, metadata: { ...job.metadata, resourceVersion: this.nextVersion() }, spec: { ...job.spec, suspend }, status });
        return;
      }
      case 'DeleteJob':
        // As the API server: a Job held by a finalizer stays, with a deletionTimestamp (a write).
        if (this.jobs.has(action.name)) this.deleteJob(action.name);
        return;
      case 'RemoveJobFinalizer': {
        // As the gateway: a Job already gone has nothing to release; a stale resourceVersion is refused.
        const job = this.jobs.get(action.name);
        if (!job) return;
        if (action.resourceVersion !== undefined && action.resourceVersion !== job.metadata.resourceVersion) {
          throw new Error(`conflict: job ${action.name} resourceVersion ${action.resourceVersion} expected, ${job.metadata.resourceVersion ?? 'none'} stored`);
        }
        const finalizers = (job.metadata.finalizers ?? []).filter((f) => f !== action.finalizer);
        if (job.metadata.deletionTimestamp !== undefined && finalizers.length === 0) this.jobs.delete(action.name);
        else this.jobs.set(action.name, { ...job, metadata: { ...job.metadata, finalizers, resourceVersion: this.nextVersion() } });
        return;
      }
      case 'CreateService':
        this.service = action.service;
        return;
      case 'CreatePersistentVolumeClaim':
        if (!this.claims.has(action.claim.metadata.name ?? '')) this.claims.set(action.claim.metadata.name ?? '', action.claim);
        return;
      case 'PatchJobSetAnnotations': {
        const annotations: Record<string, string> = { ...jobSet.metadata.annotations };
        for (const [key, value] of Object.entries(action.annotations)) {
          if (value === null) delete annotations[key];
          else annotations[key] = value;
        }
        this.jobSet = { ...jobSet, metadata: { ...jobSet.metadata, annotations, resourceVersion: this.nextVersion() } };
        return;
      }
      case 'UpdateJobSetStatus':
        if (action.resourceVersion !== jobSet.metadata.resourceVersion) throw new Error('conflict');
        this.jobSet = { ...jobSet, metadata: { ...jobSet.metadata, resourceVersion: this.nextVersion() }, status: structuredClone(action.status) };
        return;
      case 'EmitEvent':
        this.events.push({ reason: action.reason, message: action.message, eventType: action.eventType });
        return;
      case 'DeleteJobSet':
        this.jobSet = undefined;
        this.jobs.clear();
        return;
    }
  }

  job(name: string): Job {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`no job ${name}`);
    return job;
  }

  jobsOf(replicatedJob: string): Job[] {
    return [...this.jobs.values()].filter((job) => job.metadata.labels?.['jobset.sigs.k8s.io/replicatedjob-name'] === replicatedJob);
  }

  private existingJobsOf(replicatedJob: string): Job[] {
    const jobs = this.jobsOf(replicatedJob);
    if (jobs.length === 0) throw new Error(`no Job of replicatedJob ${replicatedJob} exists`);
    return jobs;
  }

  private setStatus(name: string, status: Job['status']): void {
    const job = this.job(name);
    this.jobs.set(name, { ...job, metadata: { ...job.metadata, resourceVersion: this.nextVersion() }, status });
  }

  /** ready: active = ready = parallelism, as upstream's integration tests fake it. */
  ready(name: string): void {
    const job = this.job(name);
    const parallelism = job.spec.parallelism ?? 1;
    this.setStatus(name, { ...job.status, startTime: job.status?.startTime ?? rfc3339Seconds(this.now), active: parallelism, ready: parallelism });
  }

  /** readyAll: every Job of `replicatedJob` ready; throws when it has none, so a misspelt name cannot pass as "nothing to do". */
  readyAll(replicatedJob: string): void {
    for (const job of this.existingJobsOf(replicatedJob)) this.ready(job.metadata.name ?? '');
  }

  complete(name: string): void {
    const job = this.job(name);
    const at = rfc3339Seconds(this.now);
    this.setStatus(name, {
      startTime: job.status?.startTime ?? at,
      completionTime: at,
      active: 0,
      ready: 0,
      succeeded: job.spec.completions ?? job.spec.parallelism ?? 1,
      conditions: [
        ...(job.status?.conditions ?? []),
        { type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: at },
        { type: 'Complete', status: 'True', lastTransitionTime: at },
      ],
    });
  }

  /** completeAll: every Job of `replicatedJob` complete; throws when it has none. */
  completeAll(replicatedJob: string): void {
    for (const job of this.existingJobsOf(replicatedJob)) this.complete(job.metadata.name ?? '');
  }

  fail(name: string, reason = 'BackoffLimitExceeded', message = 'Job has reached the specified backoff limit'): void {
    const job = this.job(name);
    const at = rfc3339Seconds(this.now);
    this.setStatus(name, {
      startTime: job.status?.startTime ?? at,
      active: 0,
      ready: 0,
      failed: 1,
      conditions: [
        ...(job.status?.conditions ?? []),
        { type: 'FailureTarget', status: 'True', reason, message, lastTransitionTime: at },
        { type: 'Failed', status: 'True', reason, message, lastTransitionTime: at },
      ],
    });
  }

  /** deleteJob: delete a Job; while finalizers remain it stays, with a deletionTimestamp. */
  deleteJob(name: string): void {
    const job = this.job(name);
    if ((job.metadata.finalizers ?? []).length === 0) {
      this.jobs.delete(name);
      return;
    }
    if (job.metadata.deletionTimestamp !== undefined) return;
    this.jobs.set(name, { ...job, metadata: { ...job.metadata, deletionTimestamp: rfc3339Seconds(this.now), resourceVersion: this.nextVersion() } });
  }

  setSuspend(suspend: boolean): void {
    if (!this.jobSet) throw new Error('jobset is gone');
    this.jobSet = { ...this.jobSet, spec: { ...this.jobSet.spec, suspend }, metadata: { ...this.jobSet.metadata, resourceVersion: this.nextVersion() } };
  }

  condition(type: string): { status: string; reason?: string | undefined; message?: string | undefined } | undefined {
    return this.jobSet?.status?.conditions?.find((c) => c.type === type);
  }

  suspendedNames(): string[] {
    return [...this.jobs.values()].filter((j) => j.spec.suspend === true).map((j) => j.metadata.name ?? '').sort();
  }

  runningNames(): string[] {
    return [...this.jobs.values()].filter((j) => j.spec.suspend !== true).map((j) => j.metadata.name ?? '').sort();
  }
}
