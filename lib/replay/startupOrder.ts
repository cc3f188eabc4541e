/**
 * The startup-order check of `lineup replay --perturb`: did any Job start running before its
 * replicatedJob's gate held? Deliberately independent of lib/policy (which decided the run being
 * checked): it walks the simulated cluster's timeline, keeps each live Job's state, and at every
 * start re-evaluates the gate from the recorded startup form with its own few lines of counting.
 */
import type { AwaitedStatus, StartupPolicySpec } from '../policy/types.ts';
import { DeleteReason } from '../sim/constants.ts';
import { TimelineType, type TimelineEntry } from '../sim/timeline.ts';

/** OrderViolation: a Job that started while its gate was closed, and what the gate needed. */
export interface OrderViolation {
  readonly at: number;
  readonly job: string;
  readonly replicatedJob: string;
  /** e.g. "InOrder needs driver Ready 2/2, had 1/2". */
  readonly unmet: string;
}

type JobState = 'running' | 'ready' | 'succeeded' | 'failed';

/**
 * firstOrderViolation: the first Job start in `timeline` (created unsuspended, or resumed) whose
 * gate under `spec` did not hold at that moment, or undefined when the order was kept. A Job
 * counts toward Ready once ready, succeeded or failed, toward Complete once succeeded; a deleted
 * or suspended Job (a restart, a suspended JobSet) counts no more, except a finished Job deleted
 * by its own ttlSecondsAfterFinished, which Lineup records and keeps counting (docs/conformance.md#where-lineup-differs-from-upstream-and-why, where
 * Lineup differs from upstream).
 */
export const firstOrderViolation = (spec: StartupPolicySpec, timeline: readonly TimelineEntry[]): OrderViolation | undefined => {
  const jobs = new Map<string, { replicatedJob: string; state: JobState }>();
  const replicas = new Map(spec.replicatedJobs.map((rjob) => [rjob.name, rjob.replicas]));
  const count = (replicatedJob: string, status: AwaitedStatus): number => {
    let have = 0;
    for (const job of jobs.values()) {
      if (job.replicatedJob !== replicatedJob) continue;
      if (status === 'Complete' ? job.state === 'succeeded' : job.state !== 'running') have += 1;
    }
    return have;
  };
  // The first requirement of `needs` that does not hold, as text, or undefined when all hold.
  const unmetOf = (form: string, needs: readonly { name: string; status: AwaitedStatus }[]): string | undefined => {
    for (const need of needs) {
      const have = count(need.name, need.status);
      const want = replicas.get(need.name) ?? 1;
      if (have < want) return `${form} needs ${need.name} ${need.status} ${want}/${want}, had ${have}/${want}`;
    }
    return undefined;
  };
  const gateOf = (replicatedJob: string): string | undefined => {
    const index = spec.replicatedJobs.findIndex((rjob) => rjob.name === replicatedJob);
    if (spec.form === 'InOrder') {
      return unmetOf('InOrder', spec.replicatedJobs.slice(0, Math.max(0, index)).map((rjob) => ({ name: rjob.name, status: 'Ready' as const })));
    }
    if (spec.form === 'DependsOn') return unmetOf('dependsOn', spec.replicatedJobs[index]?.dependsOn ?? []);
    if (spec.form === 'Rules') {
      const rules = spec.rules ?? [];
      // A replicatedJob starts with the first rule naming it; one named by no rule after the last.
      const own = rules.findIndex((rule) => rule.targetReplicatedJobs.includes(replicatedJob));
      const earlier = rules.slice(0, own === -1 ? rules.length : own);
      return unmetOf('startup rules', earlier.flatMap((rule) => rule.targetReplicatedJobs.map((name) => ({ name, status: rule.status }))));
    }
    return undefined;
  };
  for (const entry of timeline) {
    const name = entry.job;
    if (name === undefined) continue;
    const known = jobs.get(name);
    const starts = (entry.type === TimelineType.JobCreated && entry.suspended === false) || entry.type === TimelineType.JobResumed;
    if (starts) {
      const replicatedJob = entry.replicatedJob ?? '';
      const unmet = gateOf(replicatedJob);
      if (unmet !== undefined) return { at: entry.at, job: name, replicatedJob, unmet };
      jobs.set(name, { replicatedJob, state: 'running' });
    } else if (entry.type === TimelineType.JobDeleted) {
      const finished = known?.state === 'succeeded' || known?.state === 'failed';
      if (!(finished && entry.message === DeleteReason.TtlAfterFinished)) jobs.delete(name);
    }
    // A suspended Job's pods are gone: it counts again only once resumed and ready.
    else if (entry.type === TimelineType.JobSuspended && (known?.state === 'running' || known?.state === 'ready')) jobs.delete(name);
    else if (known && entry.type === TimelineType.JobReady && known.state === 'running') known.state = 'ready';
    else if (known && entry.type === TimelineType.JobSucceeded) known.state = 'succeeded';
    else if (known && entry.type === TimelineType.JobFailed) known.state = 'failed';
  }
  return undefined;
};
