/**
 * The benches' own watch of every JobSet's Jobs, in every namespace (bench/pipeline.ts: both
 * controllers'; bench/manyClusters.ts: each cluster's): when each Job was first seen running and
 * first seen ready, as the real Job controller reports it. It writes nothing; in the pipeline
 * bench the audit log says which write each observation follows from (timeline.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Counters } from '../../lib/counters.ts';
import { UnavailableError, WatchExpiredError } from '../../lib/errors.ts';
import type { Job } from '../../lib/jobset/schema.ts';
import { kubeConfigEndpoint } from '../../lib/k8s/kubeConfigFile.ts';
import { KubeWatchSource } from '../../lib/k8s/watchSource.ts';
import { retry, type RetryPolicy } from '../../lib/retry.ts';
import type { KubeServer } from '../../test/integration/harness/index.ts';
import { jobKey } from './story.ts';

/**
 * LIST_RETRY: the watch's Job lists, retried while the API server answers 429/5xx, drops the
 * connection or expires a continue token (KubeWatchSource leaves retrying to its caller).
 */
const LIST_RETRY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 100, maxDelayMs: 2_000, jitter: 'none' };
/** WATCH_FAILED_DELAY_MS: the pause after a failed watch before listing again. */
const WATCH_FAILED_DELAY_MS = 100;

/** isRunning: the Job may run its pods — not suspended, not being deleted. */
const isRunning = (job: Job): boolean => job.metadata.deletionTimestamp === undefined && job.spec.suspend !== true;

/**
 * isReady: every pod the Job runs at once is ready, or already succeeded — the Job controller's
 * counts that the JobSet controllers' InOrder startup reads (a pod that finished counts as started).
 */
const isReady = (job: Job): boolean => (job.status?.ready ?? 0) + (job.status?.succeeded ?? 0) >= (job.spec.parallelism ?? 1);

/**
 * JobWatch: it lists and watches labelled Jobs as the admin (lib's own KubeWatchSource) and
 * records, by `namespace/name`, when it first saw each Job running (spec.suspend not true) and
 * first saw it ready (status.ready + status.succeeded ≥ spec.parallelism).
 */
export class JobWatch {
  /** When the watch first saw each Job running (epoch ms). */
  readonly runningAt = new Map<string, number>();
  /** When the watch first saw each Job's pods all ready (epoch ms). */
  readonly readyAt = new Map<string, number>();
  /** What went wrong (a list that kept failing, a watch that broke); the watch listed again each time. */
  readonly problems: string[] = [];
  private readonly abort = new AbortController();
  private readonly source: KubeWatchSource;
  private running: Promise<void> = Promise.resolve();

  constructor(kube: KubeServer) {
    this.source = new KubeWatchSource({ endpoint: kubeConfigEndpoint(kube.kubeConfig('admin')), counters: new Counters() });
  }

  /** start: list, then watch until stopped (re-listing when the watch expires or fails). Resolves once the first list is handled. */
  async start(): Promise<void> {
    this.running = this.watchFrom(await this.listJobs());
  }

  /**
   * listJobs: every Job, each handed to onJob; the list's resourceVersion. Retried on LIST_RETRY;
   * a list that still fails rejects (the caller records it and lists again on its next turn).
   */
  private async listJobs(): Promise<string> {
    const listed = await retry(() => this.source.list('Job'), {
      policy: LIST_RETRY,
      classify: (error) => ({ retry: error instanceof UnavailableError || error instanceof WatchExpiredError }),
      onRetry: ({ attempt, error }) => this.problems.push(`job list attempt ${attempt} failed, retrying: ${(error as Error).message}`),
      signal: this.abort.signal,
    });
    for (const job of listed.items) this.onJob(job);
    return listed.resourceVersion;
  }

  private async watchFrom(initial: string): Promise<void> {
    let resourceVersion = initial;
    // Set when a watch failed or expired: the next turn lists first (a failed list leaves it set).
    let relist = false;
    while (!this.abort.signal.aborted) {
      try {
        if (relist) {
          resourceVersion = await this.listJobs();
          relist = false;
        }
        const end = await this.source.watch(
          'Job',
          resourceVersion,
          (event) => {
            if (event.type === 'BOOKMARK') resourceVersion = event.resourceVersion;
            else {
              resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
              if (event.type !== 'DELETED') this.onJob(event.object);
            }
          },
          this.abort.signal,
        );
        if (end === 'expired') relist = true;
      } catch (error) {
        if (this.abort.signal.aborted) return;
        this.problems.push(`job ${relist ? 'list' : 'watch'} failed, listing again: ${(error as Error).message}`);
        relist = true;
        await sleep(WATCH_FAILED_DELAY_MS);
      }
    }
  }

  /** onJob: the first sight of a Job running, and of it ready. */
  private onJob(job: Job): void {
    const key = jobKey(job.metadata.namespace, job.metadata.name);
    const now = Date.now();
    if (!this.runningAt.has(key) && isRunning(job)) this.runningAt.set(key, now);
    if (!this.readyAt.has(key) && isRunning(job) && isReady(job)) this.readyAt.set(key, now);
  }

  /** stop: the watch. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }
}
