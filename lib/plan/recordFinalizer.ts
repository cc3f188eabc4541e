/**
 * Lineup's finished-record finalizer, pass by pass: a finished Job that holds it has its outcome
 * written to the JobSet's record (lib/plan/finishedJobs.ts) and only then loses the finalizer, so
 * a Job its own TTL deletes is still counted; Jobs of an earlier attempt and Jobs deleted
 * unfinished lose it at once.
 */
import { LineupKey } from '../jobset/api.ts';
import { jobName } from '../jobset/keys.ts';
import type { Job } from '../jobset/schema.ts';
import type { FinishedJobRef } from '../policy/successPolicy.ts';
import { isDeleting, jobIndexOf, replicatedJobOf, type ChildJobs } from './childJobs.ts';
import { formatRecord, recordHas, withRecorded, type FinishedJobsRecord } from './finishedJobs.ts';
import type { Action } from './types.ts';

/** holdsRecordFinalizer: the Job carries Lineup's finished-record finalizer. */
export const holdsRecordFinalizer = (job: Job): boolean => (job.metadata.finalizers ?? []).includes(LineupKey.FinishedRecordFinalizer);

/** releaseOf: the action that takes Lineup's finished-record finalizer off the Job, as observed. */
export const releaseOf = (job: Job): Action => ({
  kind: 'RemoveJobFinalizer',
  name: job.metadata.name ?? '',
  resourceVersion: job.metadata.resourceVersion,
  finalizer: LineupKey.FinishedRecordFinalizer,
});

/** Bookkeeping for Jobs that hold Lineup's finalizer: what to record, which finalizers to release. */
export interface RecordWork {
  readonly patch: Action | undefined;
  /** Releases after the record is written: a Job's outcome is recorded before its finalizer goes. */
  readonly releases: Action[];
  /** Releases from Jobs of an earlier attempt, ahead of the pass's deletes (nothing to record). */
  readonly previousReleases: Action[];
}

/**
 * recordFinishedJobs: record the outcome of finished Jobs that carry the finalizer, then release
 * it; release it at once from Jobs of an earlier attempt and from Jobs being deleted unfinished.
 */
export const recordFinishedJobs = (children: ChildJobs, record: FinishedJobsRecord): RecordWork => {
  const additions: { outcome: 'succeeded' | 'failed'; replicatedJob: string; index: number }[] = [];
  const releases: Action[] = [];
  const previousReleases: Action[] = [];
  const release = (job: Job): void => {
    releases.push(releaseOf(job));
  };
  for (const [jobs, outcome] of [
    [children.successful, 'succeeded'],
    [children.failed, 'failed'],
  ] as const) {
    for (const job of jobs) {
      if (!holdsRecordFinalizer(job)) continue;
      const replicatedJob = replicatedJobOf(job);
      const index = jobIndexOf(job);
      if (replicatedJob !== undefined && index !== undefined && !recordHas(record, outcome, replicatedJob, index)) {
        additions.push({ outcome, replicatedJob, index });
      }
      release(job);
    }
  }
  // Before the pass deletes them: a delete writes the Job (deletionTimestamp), so a release
  // conditional on the resourceVersion observed would come after it and be refused (409).
  for (const job of children.previous) if (holdsRecordFinalizer(job)) previousReleases.push(releaseOf(job));
  for (const job of children.active) if (holdsRecordFinalizer(job) && isDeleting(job)) release(job);
  const patch: Action | undefined =
    additions.length > 0
      ? {
          kind: 'PatchJobSetAnnotations',
          // Written after the status update of the same pass, which changes the resourceVersion;
          // the per-JobSet lease (not a precondition) keeps this read-modify-write single-writer.
          resourceVersion: undefined,
          annotations: { [LineupKey.FinishedJobsAnnotation]: formatRecord(withRecorded(record, additions)) },
        }
      : undefined;
  return { patch, releases, previousReleases };
};

/** recordedRefs: recorded successful Jobs that are gone from the cluster (deleted by their TTL). */
export const recordedGoneRefs = (record: FinishedJobsRecord, children: ChildJobs, jobSetName: string): FinishedJobRef[] => {
  const refs: FinishedJobRef[] = [];
  for (const [rjob, indices] of record.succeeded) {
    for (const index of indices) {
      const name = jobName(jobSetName, rjob, index);
      if (!children.byName.has(name)) refs.push({ name, replicatedJob: rjob });
    }
  }
  return refs;
};
