/**
 * The text form of a simulation, for people: a header, one aligned line per timeline entry
 * (identical Job entries at one instant grouped, so 500-Job runs stay readable), and a
 * summary. The JSON form never groups; this one may change freely.
 */
import { UntilNeverText } from './constants.ts';
import type { JobSet } from '../jobset/schema.ts';
import { allReadyAt, KueueMessage, kueueQueueOf } from '../kueue.ts';
import { formatDuration } from '../duration.ts';
import type { SimulationResult } from './simulate.ts';
import { TimelineType } from './timeline.ts';
import type { TimelineEntry } from './timeline.ts';

/** TextContext: what the text form says about the run besides the result. */
export interface TextContext {
  readonly jobSet: JobSet;
  readonly until: number;
  readonly latency: number;
  readonly behaviourFile?: string | undefined;
}

const TIME_WIDTH = 10;
const TYPE_WIDTH = 16;
const SUBJECT_MAX_WIDTH = 44;

/** formatVirtualTime: `   12.000s`, seconds with milliseconds, right-aligned. */
export const formatVirtualTime = (ms: number): string => `${(ms / 1000).toFixed(3)}s`.padStart(TIME_WIDTH);

const JOB_TYPES = new Set<string>([
  TimelineType.JobCreated,
  TimelineType.JobResumed,
  TimelineType.JobSuspended,
  TimelineType.JobReady,
  TimelineType.JobSucceeded,
  TimelineType.JobFailed,
  TimelineType.JobDeleted,
]);

/** One printed line: possibly several timeline entries grouped. */
interface Line {
  readonly at: number;
  readonly type: string;
  readonly subject: string;
  readonly details: string;
}

const detailsOf = (entry: TimelineEntry): string => {
  if (entry.condition) return [entry.condition.reason, entry.condition.message].filter((part) => part !== '').join(': ');
  if (entry.suspended !== undefined) return entry.suspended ? 'suspended' : 'running';
  return entry.message ?? '';
};

const sameGroup = (a: TimelineEntry, b: TimelineEntry): boolean =>
  JOB_TYPES.has(a.type) &&
  a.at === b.at &&
  a.type === b.type &&
  a.replicatedJob === b.replicatedJob &&
  a.suspended === b.suspended &&
  a.message === b.message;

/** compressIndices: sorted indices as `0..3,5,7..9`. */
const compressIndices = (indices: readonly number[]): string => {
  const sorted = [...indices].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j += 1;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}..${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
};

/** groupSubject: `worker-0..49 (50 jobs)` for Jobs named `<prefix>-<index>`, else the first name and a count. */
const groupSubject = (names: readonly string[]): string => {
  if (names.length === 1) return names[0] ?? '';
  const parsed = names.map((name) => /^(.*)-(\d+)$/.exec(name));
  const prefix = parsed[0]?.[1];
  if (prefix !== undefined && parsed.every((match) => match?.[1] === prefix)) {
    return `${prefix}-${compressIndices(parsed.map((match) => Number(match?.[2])))} (${names.length} jobs)`;
  }
  return `${names[0]} +${names.length - 1} more (${names.length} jobs)`;
};

/** timelineLines: the timeline as printed lines, grouping runs of identical Job entries. */
const timelineLines = (timeline: readonly TimelineEntry[], jobSetName: string): Line[] => {
  const shortName = (job: string | undefined): string =>
    job === undefined ? '' : job.startsWith(`${jobSetName}-`) ? job.slice(jobSetName.length + 1) : job;
  const lines: Line[] = [];
  for (let i = 0; i < timeline.length; ) {
    const first = timeline[i]!;
    let j = i + 1;
    while (j < timeline.length && sameGroup(first, timeline[j]!)) j += 1;
    const group = timeline.slice(i, j);
    const subject = first.condition
      ? `${first.condition.type}=${first.condition.status}`
      : JOB_TYPES.has(first.type)
        ? groupSubject(group.map((entry) => shortName(entry.job)))
        : '';
    lines.push({ at: first.at, type: first.type, subject, details: detailsOf(first) });
    i = j;
  }
  return lines;
};

const table = (rows: readonly (readonly string[])[]): string[] => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
};

/**
 * formatSimulationText: the whole text report of a run, lines ending in "\n".
 *
 * @example io.stdout(formatSimulationText(result, { jobSet, until: 86_400_000, latency: 0 }))
 */
export const formatSimulationText = (result: SimulationResult, context: TextContext): string => {
  const replicatedJobs = context.jobSet.spec.replicatedJobs ?? [];
  const totalJobs = replicatedJobs.reduce((sum, rjob) => sum + (rjob.replicas ?? 1), 0);
  const out: string[] = [];
  out.push(`JobSet ${result.jobSet}`);
  out.push(
    `  startup ${result.startupForm ?? '-'}, ${replicatedJobs.length} replicatedJobs, ${totalJobs} jobs (${replicatedJobs
      .map((rjob) => `${rjob.name} x${rjob.replicas ?? 1}`)
      .join(', ')})`,
  );
  out.push(
    `  behaviour ${context.behaviourFile ?? 'built-in defaults'}, latency ${formatDuration(context.latency)}, until ${formatDuration(context.until)}`,
  );
  const queue = kueueQueueOf(context.jobSet);
  if (queue !== undefined) out.push(`  ${KueueMessage.simulateAssumption(queue)}`);
  out.push('');

  const lines = timelineLines(result.timeline, context.jobSet.metadata.name ?? '');
  // A fold, not Math.max(...lines): a long run has more lines than a call has room for arguments.
  const subjectWidth = Math.min(SUBJECT_MAX_WIDTH, lines.reduce((width, line) => Math.max(width, line.subject.length), 3));
  out.push(`${'at'.padStart(TIME_WIDTH)}  ${'event'.padEnd(TYPE_WIDTH)}  ${'job'.padEnd(subjectWidth)}  details`.trimEnd());
  for (const line of lines) {
    out.push(`${formatVirtualTime(line.at)}  ${line.type.padEnd(TYPE_WIDTH)}  ${line.subject.padEnd(subjectWidth)}  ${line.details}`.trimEnd());
  }
  if (lines.length === 0) out.push('  (nothing happened)');
  out.push('');

  const stopped =
    result.stoppedBy === 'until'
      ? `stopped at --until ${formatDuration(context.until)}`
      : result.stoppedBy === 'limit'
        ? UntilNeverText.stoppedAtLimit(formatDuration(result.endedAt))
      : result.stoppedBy === 'deleted'
        ? `jobset deleted at ${(result.endedAt / 1000).toFixed(3)}s`
        : `nothing left to happen after ${(result.endedAt / 1000).toFixed(3)}s`;
  const rejected = result.timeline.some((entry) => entry.type === TimelineType.Rejected);
  const outcome = result.final.terminalState ?? (rejected ? 'Rejected (nothing started)' : 'not finished');
  out.push(`Result: ${outcome}, restarts ${result.final.restarts} (${stopped})`);
  const byName = new Map(result.final.replicatedJobsStatus.map((status) => [status.name, status]));
  const rows: string[][] = [['  replicatedJob', 'ready', 'succeeded', 'failed', 'active', 'suspended']];
  for (const rjob of replicatedJobs) {
    const status = byName.get(rjob.name);
    rows.push([`  ${rjob.name}`, ...[status?.ready, status?.succeeded, status?.failed, status?.active, status?.suspended].map((n) => String(n ?? 0))]);
  }
  out.push(...table(rows));
  const actions = Object.entries(result.counters.actions)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ');
  out.push(`Controller: ${result.counters.passes} passes, ${result.counters.writes} writes${actions ? ` (${actions})` : ''}`);
  if (queue !== undefined) {
    const readyAt = allReadyAt(result.timeline, totalJobs);
    out.push(KueueMessage.simulateAllReady(readyAt === undefined ? undefined : `${(readyAt / 1000).toFixed(3)}s`));
  }
  if (result.errors.length > 0) {
    out.push(`Refused actions: ${result.errors.length}`);
    for (const error of result.errors.slice(0, 10)) out.push(`${formatVirtualTime(error.at)}  ${error.action}: ${error.message}`);
    if (result.errors.length > 10) out.push(`  ... and ${result.errors.length - 10} more`);
  }
  return `${out.join('\n')}\n`;
};
