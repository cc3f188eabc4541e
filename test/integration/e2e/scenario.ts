/**
 * One scenario of the end-to-end tests: a JobSet in a namespace of its own, the pipeline that
 * runs it, and the steps and waits the scenarios share. Every wait is bounded and says what it
 * waited for and what it saw last.
 */
import assert from 'node:assert/strict';
import { ConditionType, Label } from '../../../lib/jobset/api.ts';
import type { JobSet } from '../../../lib/jobset/schema.ts';
import { eventually } from '../k8s/support.ts';
import { asCreated, conditionOf, HELD_FOR_EVER, jobNameOf, withPodBehaviour, type E2eCluster, type Flags } from './cluster.ts';
import type { Pipeline } from './pipeline.ts';

/** STEP_TIMEOUT_MS: how long one step of a scenario may take to show through the whole pipeline. */
export const STEP_TIMEOUT_MS = 30_000;

/** Scenario: a JobSet in its own namespace, driven through the pipeline. */
export class Scenario {
  readonly namespace: string;
  readonly name: string;
  readonly cluster: E2eCluster;
  readonly pipeline: Pipeline;

  constructor(cluster: E2eCluster, pipeline: Pipeline, namespace: string, name: string) {
    this.cluster = cluster;
    this.pipeline = pipeline;
    this.namespace = namespace;
    this.name = name;
  }

  /**
   * start: the namespace, then the JobSet as a user creates it (server-side apply). Its Pods are
   * held Pending until `markReady`/`markComplete`/`markFailed` release them.
   */
  static async start(cluster: E2eCluster, pipeline: Pipeline, namespace: string, jobSet: JobSet): Promise<Scenario> {
    const name = jobSet.metadata.name ?? '';
    await cluster.admin.createNamespace(namespace);
    const created = asCreated(withPodBehaviour(jobSet, HELD_FOR_EVER));
    await cluster.admin.createJobSet({ ...created, metadata: { ...created.metadata, namespace } }, namespace);
    return new Scenario(cluster, pipeline, namespace, name);
  }

  /** job: the child Job name of replicatedJob `rjob`, index `index`. */
  job(rjob: string, index = 0): string {
    return jobNameOf(this.name, rjob, index);
  }

  /** jobSet: the stored JobSet (which must exist). */
  async jobSet(): Promise<JobSet> {
    const jobSet = await this.cluster.admin.getJobSet(this.namespace, this.name);
    assert.ok(jobSet, `jobset ${this.namespace}/${this.name} exists`);
    return jobSet;
  }

  /** flags: the suspend flags of every child Job (see Flags). */
  flags(): Promise<Flags> {
    return this.cluster.jobs.flags(this.namespace, this.name);
  }

  /** expectFlags: wait until the Jobs show `want` (e.g. {driver: 'R', workers: 'SS'}). */
  async expectFlags(what: string, want: Flags, timeoutMs = STEP_TIMEOUT_MS): Promise<void> {
    await eventually(`${this.namespace}/${this.name}: ${what}`, async () => assert.deepEqual(await this.flags(), want), timeoutMs, 150);
  }

  /**
   * expectHeld: once the pipeline has settled, the Jobs still show `want` — a gate that must
   * stay closed was given every chance to open.
   */
  async expectHeld(what: string, want: Flags): Promise<void> {
    await this.pipeline.settle(`${this.namespace}/${this.name}: ${what}`);
    assert.deepEqual(await this.flags(), want, `${this.namespace}/${this.name}: ${what}`);
  }

  /** expectCondition: wait until the JobSet condition `type` has `status` and `reason` (and a message matching `message`). */
  async expectCondition(type: string, want: { status: string; reason: string; message?: RegExp }, timeoutMs = STEP_TIMEOUT_MS): Promise<void> {
    await eventually(
      `${this.namespace}/${this.name}: condition ${type} ${want.status} (${want.reason})`,
      async () => {
        const condition = conditionOf(await this.jobSet(), type);
        assert.ok(condition, `no ${type} condition yet`);
        assert.deepEqual({ status: condition.status, reason: condition.reason }, { status: want.status, reason: want.reason });
        if (want.message) assert.match(condition.message ?? '', want.message);
      },
      timeoutMs,
      150,
    );
  }

  /** expectStartupCompleted: StartupPolicyCompleted True with `reason`, and StartupPolicyInProgress no longer True. */
  async expectStartupCompleted(reason: string): Promise<void> {
    await this.expectCondition(ConditionType.StartupPolicyCompleted, { status: 'True', reason });
    const inProgress = conditionOf(await this.jobSet(), ConditionType.StartupPolicyInProgress);
    assert.notEqual(inProgress?.status, 'True', `StartupPolicyInProgress is still True: ${JSON.stringify(inProgress)}`);
  }

  /** markReady: every Job of `rjob` ready (all must be running). */
  async markReady(rjob: string): Promise<void> {
    for (const name of await this.cluster.jobs.namesOf(this.namespace, this.name, rjob)) await this.cluster.jobs.markReady(this.namespace, name);
  }

  /** markComplete: every Job of `rjob` complete. */
  async markComplete(rjob: string): Promise<void> {
    for (const name of await this.cluster.jobs.namesOf(this.namespace, this.name, rjob)) await this.cluster.jobs.markComplete(this.namespace, name);
  }

  /** restartAttempts: the restart-attempt label of every Job, by name. */
  async restartAttempts(): Promise<Record<string, string | undefined>> {
    const jobs = await this.cluster.jobs.list(this.namespace, this.name);
    return Object.fromEntries(jobs.map((job) => [job.metadata.name ?? '', job.metadata.labels?.[Label.RestartAttempt]]).sort(([a], [b]) => String(a).localeCompare(String(b))));
  }

  /** uids: every Job's uid, by name (a re-created Job has a new one). */
  async uids(): Promise<Record<string, string | undefined>> {
    const jobs = await this.cluster.jobs.list(this.namespace, this.name);
    return Object.fromEntries(jobs.map((job) => [job.metadata.name ?? '', job.metadata.uid]));
  }

  /** expectNoProblems: the pipeline logged no warning or error about this JobSet. */
  expectNoProblems(): void {
    assert.deepEqual(this.pipeline.problems(this.namespace), [], `the pipeline logged problems about ${this.namespace}/${this.name}`);
  }
}
