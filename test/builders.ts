/** Test builders: each case shows only the fields that matter to it. */
import { DEFAULT_CONTROLLER_NAME } from '../lib/jobset/managedBy.ts';
import { JOBSET_API_VERSION, JOBSET_KIND } from '../lib/jobset/api.ts';
import type { DependsOn, Job, JobSet, JobSpec, ReplicatedJob } from '../lib/jobset/schema.ts';

export interface ReplicatedJobOptions {
  readonly parallelism?: number;
  readonly completions?: number;
  readonly dependsOn?: DependsOn[];
  readonly groupName?: string;
  readonly jobSpec?: Partial<JobSpec>;
}

/** JobSetBuilder: chainable setters ending in obj(). */
export class JobSetBuilder {
  private readonly jobSet: JobSet;
  constructor(name: string, namespace: string) {
    this.jobSet = {
      apiVersion: JOBSET_API_VERSION,
      kind: JOBSET_KIND,
      metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: '1' },
      spec: { managedBy: DEFAULT_CONTROLLER_NAME, replicatedJobs: [] },
    };
  }
  replicatedJob(name: string, replicas: number, options: ReplicatedJobOptions = {}): this {
    const rjob: ReplicatedJob = {
      name,
      replicas,
      template: {
        spec: {
          parallelism: options.parallelism ?? 1,
          completions: options.completions ?? options.parallelism ?? 1,
          ...options.jobSpec,
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
        },
      },
    };
    if (options.dependsOn) rjob.dependsOn = options.dependsOn;
    if (options.groupName) rjob.groupName = options.groupName;
    this.jobSet.spec.replicatedJobs = [...(this.jobSet.spec.replicatedJobs ?? []), rjob];
    return this;
  }
  inOrder(): this {
    this.jobSet.spec.startupPolicy = { startupPolicyOrder: 'InOrder' };
    return this;
  }
  anyOrder(): this {
    this.jobSet.spec.startupPolicy = { startupPolicyOrder: 'AnyOrder' };
    return this;
  }
  suspend(suspended = true): this {
    this.jobSet.spec.suspend = suspended;
    return this;
  }
  managedBy(controller: string | undefined): this {
    if (controller === undefined) delete this.jobSet.spec.managedBy;
    else this.jobSet.spec.managedBy = controller;
    return this;
  }
  annotation(key: string, value: string): this {
    this.jobSet.metadata.annotations = { ...this.jobSet.metadata.annotations, [key]: value };
    return this;
  }
  spec(patch: Partial<JobSet['spec']>): this {
    Object.assign(this.jobSet.spec, patch);
    return this;
  }
  status(patch: NonNullable<JobSet['status']>): this {
    this.jobSet.status = { ...this.jobSet.status, ...patch };
    return this;
  }
  obj(): JobSet {
    return structuredClone(this.jobSet);
  }
}

/** makeJobSet: a Lineup-managed JobSet with no replicatedJobs yet. */
export const makeJobSet = (name: string, namespace = 'default'): JobSetBuilder => new JobSetBuilder(name, namespace);

/** withJobStatus: a copy of a Job with a status merged in. */
export const withJobStatus = (job: Job, status: NonNullable<Job['status']>): Job => ({ ...job, status: { ...job.status, ...status } });

/**
 * fatalThenRestartJobSet: JobSet js, one replicatedJob a, maxRestarts 3, and upstream's two-rule
 * failure policy: a Job failed by PodFailurePolicy fails the JobSet (rule fatal), any other
 * failure restarts it without counting (rule again).
 */
export const fatalThenRestartJobSet = (): JobSet =>
  makeJobSet('js')
    .replicatedJob('a', 1)
    .spec({
      failurePolicy: {
        maxRestarts: 3,
        rules: [
          { name: 'fatal', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy'] },
          { name: 'again', action: 'RestartJobSetAndIgnoreMaxRestarts' },
        ],
      },
    })
    .obj();
