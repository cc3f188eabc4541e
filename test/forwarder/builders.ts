/** Forwarder test builders: child Jobs and watch-event stories, each case showing only what matters. */
import { Label } from '../../lib/jobset/api.ts';
import type { Job } from '../../lib/jobset/schema.ts';

/** JobBuilder: a child Job of a JobSet, with chainable setters ending in obj(). */
export class JobBuilder {
  private readonly job: Job;
  constructor(name: string, jobSet: string, namespace: string) {
    this.job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace,
        uid: `uid-${name}`,
        resourceVersion: '1',
        labels: { [Label.JobSetName]: jobSet, [Label.JobSetUid]: `uid-${jobSet}`, [Label.ReplicatedJobName]: 'workers' },
      },
      spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
    };
  }
  resourceVersion(resourceVersion: string): this {
    this.job.metadata.resourceVersion = resourceVersion;
    return this;
  }
  suspend(suspended: boolean): this {
    this.job.spec.suspend = suspended;
    return this;
  }
  status(patch: NonNullable<Job['status']>): this {
    this.job.status = { ...this.job.status, ...patch };
    return this;
  }
  labels(labels: Record<string, string> | undefined): this {
    if (labels === undefined) delete this.job.metadata.labels;
    else this.job.metadata.labels = labels;
    return this;
  }
  /** managed: metadata.managedFields as the API server records them (anything, to test unreadable ones). */
  managed(...entries: unknown[]): this {
    Object.assign(this.job.metadata, { managedFields: entries.length === 1 && typeof entries[0] === 'string' ? entries[0] : entries });
    return this;
  }
  /** noise: fields a status writer touches without changing anything a decision reads. */
  noise(stamp: string): this {
    this.job.metadata.annotations = { ...this.job.metadata.annotations, 'batch.kubernetes.io/touched': stamp };
    Object.assign(this.job.metadata, { managedFields: [{ manager: 'kube-controller-manager', time: stamp }] });
    this.job.status = { ...this.job.status, startTime: stamp };
    return this;
  }
  obj(): Job {
    return structuredClone(this.job);
  }
}

/** makeJob: a suspended child Job of `jobSet`, labelled as upstream labels it. */
export const makeJob = (name: string, jobSet: string, namespace = 'default'): JobBuilder => new JobBuilder(name, jobSet, namespace);
