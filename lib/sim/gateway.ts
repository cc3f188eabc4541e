/**
 * The simulated cluster behind the pipeline's interfaces: a ClusterGateway for the reconciler
 * and a WatchSource for the forwarder, so `lineup demo` runs the real forwarder, bus and
 * reconciler against the virtual-time cluster.
 */
import type { Job, JobSet } from '../jobset/schema.ts';
import { Label } from '../jobset/api.ts';
import type { ListResult, WatchEnd, WatchEvent, WatchedKind, WatchedObject, WatchSource } from '../forwarder/types.ts';
import type { Action, Observed } from '../plan/types.ts';
import type { ClusterGateway, Written } from '../reconcile/types.ts';
import type { SimCluster } from './cluster.ts';

/** SimClusterGateway: the reconciler's view of a SimCluster; `now` arguments are epoch ms, on the cluster's epoch (SimCluster.epochMs). */
export class SimClusterGateway implements ClusterGateway {
  private readonly cluster: SimCluster;
  constructor(cluster: SimCluster) {
    this.cluster = cluster;
  }

  async observe(namespace: string, name: string, now: number): Promise<Observed | undefined> {
    return this.cluster.observe(namespace, name, now - this.cluster.epochMs);
  }

  /**
   * apply: carry out the action and answer as the Kubernetes gateway does — the Job, JobSet or
   * Service written, `Unchanged` for what the planner does not read (an Event, a volume claim),
   * nothing for a deletion — so a pass loop settles on its writes' answers here as on a cluster.
   */
  async apply(namespace: string, jobSetName: string, action: Action, now: number): Promise<Written | void> {
    this.cluster.apply(namespace, jobSetName, action, now - this.cluster.epochMs);
    switch (action.kind) {
      case 'CreateJob':
      case 'ResumeJob':
      case 'SuspendJob':
      case 'RemoveJobFinalizer': {
        const job = this.cluster.getJob(namespace, action.kind === 'CreateJob' ? (action.job.metadata.name ?? '') : action.name);
        return job === undefined ? undefined : { kind: 'Job', job: structuredClone(job) };
      }
      case 'UpdateJobSetStatus':
      case 'PatchJobSetAnnotations': {
        const jobSet = this.cluster.getJobSet(namespace, jobSetName);
        return jobSet === undefined ? undefined : { kind: 'JobSet', jobSet: structuredClone(jobSet) };
      }
      case 'CreateService': {
        const service = this.cluster.getService(action.service.metadata.namespace ?? namespace, action.service.metadata.name ?? '');
        return service === undefined || (action.service.metadata.namespace ?? namespace) !== namespace ? undefined : { kind: 'Service', service: structuredClone(service) };
      }
      case 'EmitEvent':
      case 'CreatePersistentVolumeClaim':
        return { kind: 'Unchanged' };
      case 'DeleteJob':
      case 'DeleteJobSet':
        return undefined;
    }
  }
}

type Listener = (event: WatchEvent<WatchedKind>) => void | Promise<void>;

/**
 * SimWatchSource: list and watch over a SimCluster. The cluster reports which JobSet a write
 * touched (`notify`); the source compares the JobSet and its Jobs with what it last delivered
 * and emits ADDED, MODIFIED and DELETED events as a watch would.
 */
export class SimWatchSource implements WatchSource {
  private readonly cluster: SimCluster;
  private readonly seen: Record<WatchedKind, Map<string, JobSet | Job>> = { JobSet: new Map(), Job: new Map() };
  private readonly listeners: Record<WatchedKind, Set<Listener>> = { JobSet: new Set(), Job: new Set() };
  private readonly jobSetKeys = new Set<string>();
  private readonly onListenerError: (error: unknown) => void;

  /** `onListenerError` receives a watcher's failure, which a real watch would surface as a broken stream. */
  constructor(cluster: SimCluster, onListenerError: (error: unknown) => void) {
    this.cluster = cluster;
    this.onListenerError = onListenerError;
  }

  /** notify: a write touched JobSet namespace/name or one of its Jobs (the cluster's onChange). */
  notify(namespace: string, name: string): void {
    this.jobSetKeys.add(`${namespace}/${name}`);
    const jobSet = this.cluster.getJobSet(namespace, name);
    this.diff('JobSet', `${namespace}/${name}`, jobSet ? [jobSet] : [], (object) => `${object.metadata.namespace}/${object.metadata.name}` === `${namespace}/${name}`);
    this.diff('Job', `${namespace}/${name}`, this.cluster.jobsOf(namespace, name), (object) => object.metadata.namespace === namespace && object.metadata.labels?.[Label.JobSetName] === name);
  }

  async list<K extends WatchedKind>(kind: K): Promise<ListResult<K>> {
    const items: (JobSet | Job)[] = [];
    for (const key of this.jobSetKeys) {
      const [namespace = '', name = ''] = key.split('/');
      if (kind === 'JobSet') {
        const jobSet = this.cluster.getJobSet(namespace, name);
        if (jobSet) items.push(jobSet);
      } else items.push(...this.cluster.jobsOf(namespace, name));
    }
    for (const item of items) this.seen[kind].set(item.metadata.uid ?? '', item);
    return { items: items as WatchedObject<K>[], resourceVersion: String(this.cluster.writes()) };
  }

  watch<K extends WatchedKind>(kind: K, _resourceVersion: string, onEvent: (event: WatchEvent<K>) => void | Promise<void>, signal: AbortSignal): Promise<WatchEnd> {
    const listener = onEvent as Listener;
    this.listeners[kind].add(listener);
    return new Promise((resolve) => {
      const end = (): void => {
        this.listeners[kind].delete(listener);
        resolve('closed');
      };
      if (signal.aborted) end();
      else signal.addEventListener('abort', end, { once: true });
    });
  }

  private diff(kind: WatchedKind, _scope: string, current: readonly (JobSet | Job)[], inScope: (object: JobSet | Job) => boolean): void {
    const seen = this.seen[kind];
    const present = new Set<string>();
    for (const object of current) {
      const uid = object.metadata.uid ?? '';
      present.add(uid);
      const before = seen.get(uid);
      if (before?.metadata.resourceVersion === object.metadata.resourceVersion) continue;
      seen.set(uid, object);
      this.emit(kind, { type: before ? 'MODIFIED' : 'ADDED', object } as WatchEvent<WatchedKind>);
    }
    for (const [uid, object] of seen) {
      if (present.has(uid) || !inScope(object)) continue;
      seen.delete(uid);
      this.emit(kind, { type: 'DELETED', object } as WatchEvent<WatchedKind>);
    }
  }

  private emit(kind: WatchedKind, event: WatchEvent<WatchedKind>): void {
    for (const listener of this.listeners[kind]) {
      try {
        const pending = listener(event);
        if (pending) pending.catch(this.onListenerError);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}
