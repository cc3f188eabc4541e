/**
 * The record of finished child Jobs kept in the JobSet annotation `lineup.dev/finished-jobs`.
 * Upstream re-creates a finished Job that its own ttlSecondsAfterFinished deleted, re-running
 * work and re-closing gates (kubernetes-sigs/jobset#360). Lineup holds a finalizer on such Jobs until
 * their outcome is recorded here, and counts recorded Jobs that are gone. Indices are stored as
 * ranges ("0-49,51") so a 1,000-replica replicatedJob fits comfortably in an annotation.
 */
import * as z from 'zod';

/**
 * Most child Jobs the finished-jobs record may list. A hand-edited range beyond it is a
 * malformed record, not a reason to expand billions of indices on every pass.
 */
export const MAX_RECORDED_JOBS = 1_000_000;

/** FinishedJobsRecord: Job indices per replicatedJob that finished in one restart attempt. */
export interface FinishedJobsRecord {
  readonly restartAttempt: number;
  readonly succeeded: ReadonlyMap<string, ReadonlySet<number>>;
  readonly failed: ReadonlyMap<string, ReadonlySet<number>>;
}

const RecordSchema = z.object({
  restartAttempt: z.number().int().min(0),
  succeeded: z.record(z.string(), z.string()),
  failed: z.record(z.string(), z.string()),
});

/** emptyRecord: nothing recorded for `restartAttempt`. */
export const emptyRecord = (restartAttempt: number): FinishedJobsRecord => ({ restartAttempt, succeeded: new Map(), failed: new Map() });

/** formatRanges: sorted indices as "0-3,5". */
export const formatRanges = (indices: ReadonlySet<number>): string => {
  const sorted = [...indices].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j += 1;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
};

/** parseRanges: "0-3,5" back to indices; undefined when malformed or longer than `limit`. */
export const parseRanges = (text: string, limit = MAX_RECORDED_JOBS): Set<number> | undefined => {
  const indices = new Set<number>();
  if (text === '') return indices;
  for (const part of text.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) return undefined;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from || indices.size + (to - from + 1) > limit) return undefined;
    for (let index = from; index <= to; index += 1) indices.add(index);
  }
  return indices;
};

/**
 * parseRecord: the record in the annotation for `restartAttempt`. An absent annotation, one for
 * another attempt, or a malformed one (reported in `problem`) yields an empty record that the
 * next write replaces.
 */
export const parseRecord = (
  annotation: string | undefined,
  restartAttempt: number,
): { record: FinishedJobsRecord; problem?: string } => {
  if (annotation === undefined) return { record: emptyRecord(restartAttempt) };
  let raw: unknown;
  try {
    raw = JSON.parse(annotation);
  } catch (error) {
    return { record: emptyRecord(restartAttempt), problem: `finished-jobs annotation is not JSON: ${(error as Error).message}` };
  }
  const parsed = RecordSchema.safeParse(raw);
  if (!parsed.success) return { record: emptyRecord(restartAttempt), problem: `finished-jobs annotation is malformed: ${parsed.error.message}` };
  if (parsed.data.restartAttempt !== restartAttempt) return { record: emptyRecord(restartAttempt) };
  let budget = MAX_RECORDED_JOBS;
  const toMap = (byName: Record<string, string>): Map<string, Set<number>> | undefined => {
    const map = new Map<string, Set<number>>();
    for (const [name, ranges] of Object.entries(byName)) {
      const indices = parseRanges(ranges, budget);
      if (!indices) return undefined;
      budget -= indices.size;
      map.set(name, indices);
    }
    return map;
  };
  const succeeded = toMap(parsed.data.succeeded);
  const failed = toMap(parsed.data.failed);
  if (!succeeded || !failed) return { record: emptyRecord(restartAttempt), problem: 'finished-jobs annotation has malformed index ranges' };
  return { record: { restartAttempt, succeeded, failed } };
};

/** formatRecord: the annotation value for a record (keys sorted, so equal records format equally). */
export const formatRecord = (record: FinishedJobsRecord): string => {
  const toObject = (map: ReadonlyMap<string, ReadonlySet<number>>): Record<string, string> =>
    Object.fromEntries([...map.entries()].filter(([, set]) => set.size > 0).sort(([a], [b]) => a.localeCompare(b)).map(([name, set]) => [name, formatRanges(set)]));
  return JSON.stringify({ restartAttempt: record.restartAttempt, succeeded: toObject(record.succeeded), failed: toObject(record.failed) });
};

/** recordHas: whether the record holds a Job. */
export const recordHas = (record: FinishedJobsRecord, outcome: 'succeeded' | 'failed', replicatedJob: string, index: number): boolean =>
  record[outcome].get(replicatedJob)?.has(index) ?? false;

/** withRecorded: a new record with the given Jobs added. */
export const withRecorded = (
  record: FinishedJobsRecord,
  additions: readonly { outcome: 'succeeded' | 'failed'; replicatedJob: string; index: number }[],
): FinishedJobsRecord => {
  const copy = (map: ReadonlyMap<string, ReadonlySet<number>>): Map<string, Set<number>> =>
    new Map([...map.entries()].map(([name, set]) => [name, new Set(set)]));
  const next = { succeeded: copy(record.succeeded), failed: copy(record.failed) };
  for (const addition of additions) {
    const set = next[addition.outcome].get(addition.replicatedJob) ?? new Set<number>();
    set.add(addition.index);
    next[addition.outcome].set(addition.replicatedJob, set);
  }
  return { restartAttempt: record.restartAttempt, ...next };
};
