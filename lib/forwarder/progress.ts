/**
 * Which step of a Job's progress a decision waits for.
 *
 * Every gate reads a replicatedJob as a whole (upstream's allReplicasStarted: all its replicas
 * ready, succeeded or failed; dependsOn Complete: all succeeded), and success policy All reads the
 * JobSet's target Jobs as a whole. So of a stage's n Jobs turning ready one by one only the last
 * can open a gate, and of a JobSet's Jobs completing one by one only the last (of its targets)
 * can complete it. The forwarder sees every Job, so it lets the others' changes wait, up to the
 * hold, for the one that decides, which takes them along: a stage costs one pass, not n.
 *
 * Holding is only ever a delay of at most the hold (the changes still go), so where the forwarder
 * cannot tell — the JobSet's spec not yet seen, a replicatedJob it does not name, the ordered-rules
 * form, success policy Any, a Job a `dependsOn: Complete` names, a failure — the change goes at once.
 */
import { JobConditionType, LineupKey } from '../jobset/api.ts';
import type { JobSet } from '../jobset/schema.ts';
import type { SlimJob } from '../events/schema.ts';

/** JobSetFacts: what of a JobSet's spec tells which Job progress can change a decision. */
export interface JobSetFacts {
  /** Replicas per replicatedJob (1 where unset). */
  readonly replicas: ReadonlyMap<string, number>;
  /** Whether any Job's completion may decide alone (success policy Any, the ordered-rules form). */
  readonly everyCompletionDecides: boolean;
  /** replicatedJobs a `dependsOn` waits on to be Complete: each completion among them may open a gate. */
  readonly awaitedComplete: ReadonlySet<string>;
  /** The replicatedJobs whose success completes the JobSet (success policy All): every one where no targets are named. */
  readonly successTargets: readonly string[];
}

/** jobSetFactsOf: the facts of a JobSet's spec. */
export const jobSetFactsOf = (jobSet: JobSet): JobSetFacts => {
  const replicatedJobs = jobSet.spec.replicatedJobs ?? [];
  const replicas = new Map(replicatedJobs.map((rjob) => [rjob.name, rjob.replicas ?? 1]));
  const awaitedComplete = new Set(replicatedJobs.flatMap((rjob) => (rjob.dependsOn ?? []).filter((d) => d.status === 'Complete').map((d) => d.name)));
  const policy = jobSet.spec.successPolicy;
  const targets = policy?.targetReplicatedJobs ?? [];
  return {
    replicas,
    everyCompletionDecides: policy?.operator === 'Any' || jobSet.metadata.annotations?.[LineupKey.StartupRulesAnnotation] !== undefined,
    awaitedComplete,
    successTargets: targets.length > 0 ? targets : [...replicas.keys()],
  };
};

/** JobProgress: where one Job stands, as the index counts it. */
export interface JobProgress {
  readonly replicatedJob: string;
  readonly attempt: string;
  /** Counts as started for a gate: not suspended, and ready, succeeded or failed. */
  readonly started: boolean;
  /** Its Complete condition is True. */
  readonly complete: boolean;
  /** What a decision reads of it besides started and complete: a change here goes at once. */
  readonly rest: string;
}

const isTrue = (slim: SlimJob, type: string): boolean => slim.conditions.some((c) => c.type === type && c.status === 'True');

/** jobProgressOf: a Job's progress from its slim projection; undefined without a replicatedJob label. */
export const jobProgressOf = (slim: SlimJob): JobProgress | undefined => {
  if (slim.replicatedJob === undefined) return undefined;
  const complete = isTrue(slim, JobConditionType.Complete);
  const failed = isTrue(slim, JobConditionType.Failed);
  const { active: _active, ready: _ready, succeeded: _succeeded, failed: _failedPods, jobReady, conditions, ...others } = slim;
  const rest = JSON.stringify({ ...others, failed, conditions: conditions.filter((c) => c.type === JobConditionType.Failed) });
  return { replicatedJob: slim.replicatedJob, attempt: slim.restartAttempt ?? '', started: !slim.suspend && (jobReady || complete || failed), complete, rest };
};

/** ProgressCounts: how many of a replicatedJob's Jobs (of one attempt) have started and completed. */
export interface ProgressCounts {
  readonly started: number;
  readonly complete: number;
}

const NONE: ProgressCounts = { started: 0, complete: 0 };

/** progressKey: the index key of a replicatedJob of one attempt of a JobSet. */
const progressKey = (namespace: string, jobSet: string, attempt: string, replicatedJob: string): string => `${namespace}/${jobSet}#${attempt}#${replicatedJob}`;

/** What the index needs of a remembered object. */
interface Counted {
  readonly namespace: string;
  readonly jobSet: string;
  readonly progress?: JobProgress | undefined;
}

/**
 * ProgressIndex: the forwarder's memory of objects by uid (a Map), which also counts, per
 * replicatedJob and attempt, the Jobs started and completed — kept by every set and delete, so
 * no path that changes the memory can leave the counts behind.
 */
export class ProgressIndex<T extends Counted> extends Map<string, T> {
  // `declare`: no field initialiser, which would run after Map's constructor has called set()
  // for the entries it was given and wipe their counts.
  private declare counts: Map<string, { started: number; complete: number }> | undefined;

  override set(uid: string, value: T): this {
    this.count(super.get(uid), -1);
    super.set(uid, value);
    this.count(value, 1);
    return this;
  }

  override delete(uid: string): boolean {
    this.count(super.get(uid), -1);
    return super.delete(uid);
  }

  override clear(): void {
    this.counts?.clear();
    super.clear();
  }

  /** countsOf: the counts of a replicatedJob of one attempt of a JobSet. */
  countsOf(namespace: string, jobSet: string, attempt: string, replicatedJob: string): ProgressCounts {
    return this.counts?.get(progressKey(namespace, jobSet, attempt, replicatedJob)) ?? NONE;
  }

  private count(value: T | undefined, by: 1 | -1): void {
    const progress = value?.progress;
    if (value === undefined || progress === undefined || (!progress.started && !progress.complete)) return;
    this.counts ??= new Map();
    const key = progressKey(value.namespace, value.jobSet, progress.attempt, progress.replicatedJob);
    const counts = this.counts.get(key) ?? { started: 0, complete: 0 };
    counts.started += progress.started ? by : 0;
    counts.complete += progress.complete ? by : 0;
    if (counts.started === 0 && counts.complete === 0) this.counts.delete(key);
    else this.counts.set(key, counts);
  }
}

/**
 * progressWaits: whether a Job's change from `before` to `after` is a step no decision waits
 * for — a Job starting while others of its replicatedJob have not, or completing while others the
 * JobSet's success waits on have not. `counts` are the index's, still counting `before`.
 */
export const progressWaits = (
  before: JobProgress,
  after: JobProgress,
  facts: JobSetFacts | undefined,
  counts: (replicatedJob: string) => ProgressCounts,
): boolean => {
  if (facts === undefined || before.rest !== after.rest || before.replicatedJob !== after.replicatedJob || before.attempt !== after.attempt) return false;
  const startedNow = !before.started && after.started;
  const completeNow = !before.complete && after.complete;
  // Only a step forward waits: a Job no longer ready or complete goes at once.
  if ((before.started && !after.started) || (before.complete && !after.complete) || (!startedNow && !completeNow)) return false;
  const rjob = after.replicatedJob;
  if (startedNow) {
    const replicas = facts.replicas.get(rjob);
    if (replicas === undefined || counts(rjob).started + 1 >= replicas) return false;
  }
  if (completeNow) {
    if (facts.everyCompletionDecides || facts.awaitedComplete.has(rjob)) return false;
    if (facts.successTargets.includes(rjob)) {
      let needed = 0;
      let complete = 1;
      for (const target of facts.successTargets) {
        const replicas = facts.replicas.get(target);
        if (replicas === undefined) return false;
        needed += replicas;
        complete += counts(target).complete;
      }
      if (complete >= needed) return false;
    }
  }
  return true;
};
