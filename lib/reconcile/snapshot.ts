/**
 * The observed state a pass loop leaves behind: what it read, with its own writes
 * applied as the API server answered them. The next pass of the JobSet starts from it and reads
 * again only the objects events say changed since — the state item's pending triggers name them,
 * and a trigger at the resourceVersion the snapshot already holds (the echo of a write of its
 * own) names nothing. A pass whose write meets a conflict reads everything again.
 */
import type { Job, JobSet } from '../jobset/schema.ts';
import type { Observed } from '../plan/types.ts';
import { objectRef, type JournalEvent } from '../store/types.ts';
import type { ObserveSince, Written } from './types.ts';

/** Objects a snapshot's `known` map may name: beyond this the map is left out (echoes then cost a pass, not a read). */
export const MAX_KNOWN_OBJECTS = 200;

/** byName: Jobs ordered by name, as a LIST returns them (etcd key order). */
const byName = (a: Job, b: Job): number => {
  const left = a.metadata.name ?? '';
  const right = b.metadata.name ?? '';
  return left < right ? -1 : left > right ? 1 : 0;
};

/** withJob: the Jobs with `job` in place of the one of its name (or added), in name order. */
export const withJob = (jobs: readonly Job[], job: Job): Job[] =>
  [...jobs.filter((existing) => existing.metadata.name !== job.metadata.name), job].sort(byName);

/**
 * afterWrites: `observed` with every write's answer applied — undefined when one write's outcome
 * is unknown (the gateway could not say), so the next pass reads everything.
 */
export const afterWrites = (observed: Observed, written: readonly (Written | void)[]): Observed | undefined => {
  let { jobSet, jobs, service } = observed;
  for (const result of written) {
    if (result === undefined) return undefined;
    switch (result.kind) {
      case 'Job':
        jobs = withJob(jobs, result.job);
        break;
      case 'JobSet':
        jobSet = result.jobSet;
        break;
      case 'Service':
        service = result.service;
        break;
      case 'Unchanged':
        break;
    }
  }
  return { jobSet, jobs, service, now: observed.now };
};

/**
 * changedSince: what `triggers` say changed since `snapshot` was taken — undefined when they
 * cannot say (a Sync event, which asks for a pass on everything, or another JobSet's name).
 * A trigger at the resourceVersion the snapshot holds for its object names nothing.
 */
export const changedSince = (snapshot: Observed, triggers: readonly JournalEvent[]): Omit<ObserveSince, 'observed'> | undefined => {
  let jobSetChanged = false;
  const jobs = new Set<string>();
  for (const trigger of triggers) {
    if (trigger.watchType === 'SYNC' || trigger.resourceVersion === '') return undefined;
    if (trigger.kind === 'JobSet') {
      if (trigger.name !== snapshot.jobSet.metadata.name || trigger.watchType === 'DELETED') return undefined;
      if (trigger.resourceVersion !== snapshot.jobSet.metadata.resourceVersion) jobSetChanged = true;
      continue;
    }
    const held = snapshot.jobs.find((job) => job.metadata.name === trigger.name);
    // A deletion may carry the last version seen of the Job: read it again whatever its version.
    if (trigger.watchType === 'DELETED' || held?.metadata.resourceVersion !== trigger.resourceVersion) jobs.add(trigger.name);
  }
  return { jobSetChanged, jobs: [...jobs].sort() };
};

/** nothingChanged: the triggers name no object the snapshot does not already hold as it is. */
export const nothingChanged = (changed: Omit<ObserveSince, 'observed'>): boolean => !changed.jobSetChanged && changed.jobs.length === 0;

/**
 * knownOf: the resourceVersion of every object of `observed` by objectRef — what the state item
 * keeps so the echo of a write is dropped by the event's own write; undefined when there are
 * more than MAX_KNOWN_OBJECTS or one has no resourceVersion.
 */
export const knownOf = (observed: Observed): Record<string, string> | undefined => {
  if (observed.jobs.length + 1 > MAX_KNOWN_OBJECTS) return undefined;
  const known: Record<string, string> = {};
  const objects = [{ kind: 'JobSet' as const, metadata: observed.jobSet.metadata }, ...observed.jobs.map((job) => ({ kind: 'Job' as const, metadata: job.metadata }))];
  for (const { kind, metadata } of objects) {
    if (metadata.name === undefined || metadata.resourceVersion === undefined || metadata.resourceVersion === '') return undefined;
    known[objectRef(kind, metadata.name)] = metadata.resourceVersion;
  }
  return known;
};

/**
 * freshSince: what a JobSet's first pass ever may assume — no Jobs and no Service yet, only the
 * JobSet to read (its `jobSetChanged` makes every gateway read it; the placeholder is never
 * planned on). A pass on it stands only if its first write creates a child (lib/reconcile's
 * runPass checks): a child that exists after all (a crashed first pass made it) then answers
 * AlreadyExists, and the pass reads everything again.
 */
export const freshSince = (namespace: string, name: string, now: number): ObserveSince => {
  const placeholder: JobSet = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { namespace, name }, spec: {} };
  return { observed: { jobSet: placeholder, jobs: [], service: undefined, now }, jobSetChanged: true, jobs: [] };
};

/** CREATE_ACTIONS: the writes that create a child: a plan starting with one fails first on a child assumed missing that exists. */
export const CREATE_ACTIONS: ReadonlySet<string> = new Set(['CreateService', 'CreatePersistentVolumeClaim', 'CreateJob']);
