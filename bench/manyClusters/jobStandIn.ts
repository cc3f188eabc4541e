/**
 * The many-clusters benchmark's Job-controller stand-in: what kube-controller-manager's Job
 * controller would write, for every Job a JobSet controller creates in any namespace. Kept here
 * (it was the pipeline benchmark's, which now runs the real control plane) because the real one
 * for 50 "clusters" would spend the machine's two cores on kube-controller-manager, the scheduler
 * and kwok's pods, and this benchmark measures Lineup's pipeline, not them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Label } from '../../lib/constants.ts';
import { Counters } from '../../lib/counters.ts';
import { UnavailableError, WatchExpiredError } from '../../lib/errors.ts';
import type { Job } from '../../lib/jobset/schema.ts';
import { kubeConfigEndpoint } from '../../lib/k8s/kubeConfigFile.ts';
import { KubeWatchSource } from '../../lib/k8s/watchSource.ts';
import { retry, type RetryPolicy } from '../../lib/retry.ts';
import type { KubeServer } from '../../test/integration/harness/index.ts';
import type { BenchKubeClient } from '../pipeline/kubeClient.ts';
import { jobKey, type JsonObject } from '../pipeline/story.ts';

/** READY_AFTER_MS: how long after a Job starts running the stand-in writes it ready (pods scheduled and ready). */
export const READY_AFTER_MS = 200;
/**
 * COMPLETE_AFTER_MS: how long after a JobSet's last Job is ready the stand-in completes all its
 * Jobs — long beside either controller's stage latency under this load, so both have written
 * the end of the startup before the Jobs finish (with 1 s, a controller still catching up saw
 * the Jobs succeed first, and either one then went to Completed leaving StartupPolicyInProgress
 * True and no StartupPolicyCompleted).
 */
export const COMPLETE_AFTER_MS = 10_000;
/**
 * LIST_RETRY: the stand-in's Job lists, retried while the API server answers 429/5xx, drops the
 * connection or expires a continue token (KubeWatchSource leaves retrying to its caller).
 */
const LIST_RETRY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 100, maxDelayMs: 2_000, jitter: 'none' };
/** WATCH_FAILED_DELAY_MS: the pause after a failed watch before listing again. */
const WATCH_FAILED_DELAY_MS = 100;

const nowSeconds = (): string => `${new Date().toISOString().slice(0, 19)}Z`;

/**
 * JobControllerStandIn: it watches Jobs as the admin (lib's own KubeWatchSource); a Job it sees
 * running for the first time (spec.suspend not true) is written ready (active = ready =
 * parallelism, startTime) READY_AFTER_MS later; once every Job of a JobSet is ready, all of them
 * are written complete (SuccessCriteriaMet and Complete, succeeded = completions,
 * completedIndexes) COMPLETE_AFTER_MS later. Writes are merge patches of the status
 * subresource, so they never conflict with the controllers' own writes. It records when it first
 * saw each Job running (the audit log says when the write that made it run happened).
 */
export class JobControllerStandIn {
  /** When the watch first saw each Job running (epoch ms). */
  readonly runningAt = new Map<string, number>();
  /** What went wrong (a write that kept failing, a watch that broke). */
  readonly problems: string[] = [];
  private readonly jobs = new Map<string, Job>();
  private readonly readyJobs = new Map<string, string[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  private readonly client: BenchKubeClient;
  private readonly source: KubeWatchSource;
  private readonly jobsPerJobSet: number;
  private running: Promise<void> = Promise.resolve();

  constructor(kube: KubeServer, client: BenchKubeClient, jobsPerJobSet: number) {
    this.client = client;
    this.jobsPerJobSet = jobsPerJobSet;
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

  private later(ms: number, action: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action().catch((error: unknown) => this.problems.push((error as Error).message));
    }, ms);
    this.timers.add(timer);
  }

  /** onJob: a Job seen running for the first time gets its pods ready READY_AFTER_MS later. */
  private onJob(job: Job): void {
    const key = jobKey(job.metadata.namespace, job.metadata.name);
    this.jobs.set(key, job);
    if (job.metadata.deletionTimestamp !== undefined || job.spec.suspend === true || this.runningAt.has(key)) return;
    this.runningAt.set(key, Date.now());
    this.later(READY_AFTER_MS, () => this.markReady(key));
  }

  private patchStatus(key: string, status: JsonObject): Promise<void> {
    const job = this.jobs.get(key);
    return this.client.patchJobStatus(job?.metadata.namespace ?? '', job?.metadata.name ?? '', status);
  }

  private async markReady(key: string): Promise<void> {
    const job = this.jobs.get(key);
    const parallelism = job?.spec.parallelism ?? 1;
    await this.patchStatus(key, { startTime: job?.status?.startTime ?? nowSeconds(), active: parallelism, ready: parallelism });
    const jobSet = jobKey(job?.metadata.namespace, job?.metadata.labels?.[Label.JobSetName]);
    const ready = [...(this.readyJobs.get(jobSet) ?? []), key];
    this.readyJobs.set(jobSet, ready);
    if (ready.length === this.jobsPerJobSet) this.later(COMPLETE_AFTER_MS, async () => void (await Promise.all(ready.map((jobKeyOf) => this.markComplete(jobKeyOf)))));
  }

  /** markComplete: what test/integration/e2e/cluster.ts's JobController.markComplete writes. */
  private async markComplete(key: string): Promise<void> {
    const job = this.jobs.get(key);
    const at = nowSeconds();
    const completions = job?.spec.completions ?? job?.spec.parallelism ?? 1;
    const indexed = job?.spec.completionMode === 'Indexed';
    const condition = (type: string) => ({ type, status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: at, lastTransitionTime: at });
    // startTime is left as the ready write set it: it is immutable once set on a running Job.
    await this.patchStatus(key, {
      completionTime: at,
      active: 0,
      ready: 0,
      succeeded: completions,
      ...(indexed ? { completedIndexes: completions === 1 ? '0' : `0-${completions - 1}` } : {}),
      conditions: [...(job?.status?.conditions ?? []), condition('SuccessCriteriaMet'), condition('Complete')],
    });
  }

  /** stop: the watch and every pending write. */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.running;
  }
}
