/**
 * What Lineup knows of Kueue, the queueing controller most ML clusters run: the labels that put
 * a JobSet in a queue, and when Kueue would count a simulated JobSet's pods ready. Pure.
 *
 * Kueue holds a JobSet that names a LocalQueue suspended until it admits it; Lineup starts it
 * once admitted (docs/kueue.md). With `waitForPodsReady`, Kueue evicts a JobSet whose pods are not
 * all ready within a timeout, and it reads "all ready" off the JobSet's status: for every
 * replicatedJob, ready plus succeeded Jobs, summed, equal to the replicas summed (Kueue v0.17.0,
 * pkg/controller/jobs/jobset, `PodsReady`). A staged startup is not "all ready" until its last
 * stage is, so that timeout must be longer than the whole startup.
 */
import type { JobSet } from './jobset/schema.ts';
import { TimelineType, type TimelineEntry } from './sim/timeline.ts';

/** KUEUE_QUEUE_LABEL: names the LocalQueue a JobSet waits in. */
export const KUEUE_QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';
/** KUEUE_PRIORITY_LABEL: names the JobSet's WorkloadPriorityClass. */
export const KUEUE_PRIORITY_LABEL = 'kueue.x-k8s.io/priority-class';

/** KueueQueue: the queue a JobSet names, and its priority class when it names one. */
export interface KueueQueue {
  readonly queue: string;
  readonly priorityClass: string | undefined;
}

/** kueueQueueOf: the queue the JobSet names, or undefined when it names none (Kueue leaves it alone then, unless configured to manage every JobSet). */
export const kueueQueueOf = (jobSet: JobSet): KueueQueue | undefined => {
  const labels = jobSet.metadata.labels ?? {};
  const queue = labels[KUEUE_QUEUE_LABEL];
  if (queue === undefined || queue === '') return undefined;
  return { queue, priorityClass: labels[KUEUE_PRIORITY_LABEL] };
};

/** describeQueue: "queue team-a" or "queue team-a, priority class high". */
export const describeQueue = (queue: KueueQueue): string => `queue ${queue.queue}${queue.priorityClass === undefined ? '' : `, priority class ${queue.priorityClass}`}`;

/** KueueMessage: what the commands say about a JobSet that names a queue. */
export const KueueMessage = {
  /** `lineup validate`, on stderr after the verdict line. */
  validateNote: (queue: KueueQueue): string =>
    `note: names Kueue ${describeQueue(queue)}: Kueue holds it suspended until it admits it, then Lineup starts it; with waitForPodsReady, set the timeout longer than its whole startup (lineup simulate prints it)`,
  /** `lineup simulate`, in the header. */
  simulateAssumption: (queue: KueueQueue): string => `kueue ${describeQueue(queue)}: simulated as admitted at once, never preempted or evicted`,
  /** `lineup simulate`, after the result: when every Job was ready or succeeded. */
  simulateAllReady: (at: string | undefined): string =>
    at === undefined
      ? 'Kueue: never every Job ready or succeeded at once: with waitForPodsReady, Kueue would evict it after the timeout'
      : `Kueue: every Job ready or succeeded at ${at}: a waitForPodsReady timeout shorter than that evicts it mid-startup`,
} as const;

/**
 * allReadyAt: the first virtual time at which each of `totalJobs` Jobs was ready or had
 * succeeded, as Kueue's PodsReady reads the JobSet's status; undefined when that never happened.
 * A Job that fails or is deleted stops counting until it is ready again.
 */
export const allReadyAt = (timeline: readonly TimelineEntry[], totalJobs: number): number | undefined => {
  const counted = new Set<string>();
  for (const entry of timeline) {
    if (entry.job === undefined) continue;
    if (entry.type === TimelineType.JobReady || entry.type === TimelineType.JobSucceeded) counted.add(entry.job);
    else if (entry.type === TimelineType.JobFailed || entry.type === TimelineType.JobDeleted || entry.type === TimelineType.JobSuspended) counted.delete(entry.job);
    if (totalJobs > 0 && counted.size === totalJobs) return entry.at;
  }
  return undefined;
};
