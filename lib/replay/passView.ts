/**
 * What one recorded pass judged, rebuilt from its recorded inputs (`lineup history`): the counts
 * per replicatedJob as the planner reads them, the startup gate with its numbers, and what its
 * status write changed. Every reading goes through the planner's and lib/policy's own functions
 * (bucketJobs, countReplicatedJobs, startupPolicySpecOf, evaluateStartup, plan), so history
 * cannot count a Job differently from the pass it describes.
 */
import { LineupKey } from '../jobset/api.ts';
import { applyDefaults } from '../jobset/defaults.ts';
import { jobName } from '../jobset/keys.ts';
import type { Job, JobSetStatus } from '../jobset/schema.ts';
import { bucketJobs, countReplicatedJobs, replicatedJobOf } from '../plan/childJobs.ts';
import { parseRecord } from '../plan/finishedJobs.ts';
import { plan } from '../plan/planner.ts';
import { startupPolicySpecOf } from '../plan/startupSpec.ts';
import type { Observed, Plan, PlanOptions } from '../plan/types.ts';
import { evaluateStartup, NO_PROGRESS, reachedStatus, startupStages, waitFor } from '../policy/index.ts';
import type { AwaitedStatus, ReplicatedJobProgress, StartupEvaluation, StartupForm, StartupPolicySpec } from '../policy/types.ts';
import { actionDigest } from '../reconcile/journal.ts';
import type { JournalAction } from '../store/types.ts';

/** The counts of one replicatedJob as the pass judged them (the status counters the planner computes). */
export interface ReplicatedJobCounts {
  readonly replicatedJob: string;
  readonly replicas: number;
  /** Jobs of the current restart attempt that exist (active, succeeded or failed). */
  readonly jobs: number;
  /** Jobs with a pod active. */
  readonly active: number;
  /** Jobs whose ready and succeeded pods reach min(parallelism, completions). */
  readonly ready: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly suspended: number;
  /** Jobs of an earlier restart attempt still there (the pass deletes them); absent when none. */
  readonly previousAttempt?: number | undefined;
}

/** One awaited fact of a gate with its numbers, e.g. driver Ready 0/2, not met. */
export interface GateCheck {
  readonly replicatedJob: string;
  readonly status: AwaitedStatus;
  readonly have: number;
  readonly need: number;
  readonly met: boolean;
}

/** The facts that release some replicatedJobs together, and whether they all held. */
export interface GateStep {
  /** The replicatedJobs these checks release. */
  readonly replicatedJobs: readonly string[];
  readonly checks: readonly GateCheck[];
  readonly open: boolean;
}

/** The startup gate a pass evaluated, with its numbers. */
export interface PassGate {
  readonly form: StartupForm;
  /**
   * InOrder and startup rules: each stage's facts in start order, up to the first that does not
   * hold (the evaluation stops there). dependsOn: each replicatedJob that has dependencies.
   */
  readonly steps: readonly GateStep[];
  /** The replicatedJobs the gate holds back, in spec order. */
  readonly held: readonly string[];
  /** e.g. "InOrder: messagequeue Ready 1/1 ✓, driver Ready 0/2 ✗ → hold worker". */
  readonly text: string;
}

/** A condition whose status or reason the status write changed (or added). */
export interface ConditionWritten {
  readonly type: string;
  readonly status: string;
  readonly reason?: string | undefined;
}

/** A counter of status.replicatedJobsStatus the status write changed. */
export interface CountWritten {
  readonly replicatedJob: string;
  readonly field: 'ready' | 'succeeded' | 'failed' | 'active' | 'suspended';
  readonly from: number;
  readonly to: number;
}

/** What a pass's UpdateJobSetStatus changed in the status it read. */
export interface StatusWrite {
  readonly conditions: readonly ConditionWritten[];
  /** Conditions whose message alone changed (a startup count moved). */
  readonly messages: readonly string[];
  readonly counts: readonly CountWritten[];
  readonly restarts?: { readonly from: number; readonly to: number } | undefined;
  readonly terminalState?: string | undefined;
}

/** What one pass judged. */
export interface PassView {
  /** Per replicatedJob, in spec order. */
  readonly counts: readonly ReplicatedJobCounts[];
  /** The gate, when the pass's planner got as far as evaluating it (not for a finished, failing, invalid or deleted JobSet). */
  readonly gate?: PassGate | undefined;
  /**
   * What the pass's status write changed: planned again from its inputs and used only when the
   * action's digest is the recorded one, so it is what was written; absent otherwise.
   */
  readonly statusWrite?: StatusWrite | undefined;
  /** The restart attempt the pass read (status.restarts): a new one starts every stage again. */
  readonly attempt: number;
  /** Whether every one of `replicatedJobs` has all its replicas started, as a gate counts Ready. */
  readonly ready: (replicatedJobs: readonly string[]) => boolean;
  /** Whether a Job of `replicatedJobs` has a pod active, ready or finished. */
  readonly ran: (replicatedJobs: readonly string[]) => boolean;
  /** The replicatedJob a Job (by name) belongs to: its label, or the name the planner gives its Jobs. */
  readonly replicatedJobOfJob: (name: string) => string | undefined;
}

/** checkMark: ✓ for a fact that holds, ✗ for one that does not. */
const checkMark = (met: boolean): string => (met ? '✓' : '✗');

/** checkText: "driver Ready 0/2 ✗". */
export const checkText = (check: GateCheck): string => `${check.replicatedJob} ${check.status} ${check.have}/${check.need} ${checkMark(check.met)}`;

/** outcomeText: "hold worker" or "release all". */
const outcomeText = (held: readonly string[]): string => (held.length > 0 ? `hold ${held.join(', ')}` : 'release all');

/**
 * gateOf: the gate of `policy` on `progress` (the gating counters) — the evaluation is lib/policy's
 * evaluateStartup; the steps list what it weighed, each fact counted by lib/policy's waitFor and
 * judged by its reachedStatus.
 */
export const gateOf = (policy: StartupPolicySpec, progress: ReadonlyMap<string, ReplicatedJobProgress>, evaluation: StartupEvaluation = evaluateStartup(policy, progress)): PassGate => {
  const replicas = new Map(policy.replicatedJobs.map((rjob) => [rjob.name, rjob.replicas]));
  const check = (name: string, status: AwaitedStatus): GateCheck => {
    const need = replicas.get(name);
    const done = progress.get(name) ?? NO_PROGRESS;
    // A dependency naming no replicatedJob never holds (validation rejects it before a pass runs).
    if (need === undefined) return { replicatedJob: name, status, have: 0, need: 0, met: false };
    const wait = waitFor(name, status, need, done);
    return { replicatedJob: name, status, have: wait.have, need: wait.need, met: reachedStatus(status, need, done) };
  };
  const held = evaluation.gates.filter((gate) => !gate.released).map((gate) => gate.replicatedJob);
  const releasedByName = new Map(evaluation.gates.map((gate) => [gate.replicatedJob, gate.released]));
  const stages = startupStages(policy);
  const steps: GateStep[] = [];
  switch (policy.form) {
    case 'AnyOrder':
      return { form: policy.form, steps, held, text: 'AnyOrder: no gate' };
    case 'DependsOn': {
      for (const stage of stages) {
        for (const rjob of stage.replicatedJobs) {
          if (rjob.after.length === 0) continue;
          steps.push({ replicatedJobs: [rjob.name], checks: rjob.after.map((fact) => check(fact.replicatedJob, fact.status)), open: releasedByName.get(rjob.name) === true });
        }
      }
      const parts = steps.map((step) => `${step.replicatedJobs.join(', ')} needs ${step.checks.map(checkText).join(', ')} → ${step.open ? 'release' : 'hold'} ${step.replicatedJobs.join(', ')}`);
      return { form: policy.form, steps, held, text: `dependsOn: ${parts.length > 0 ? parts.join('; ') : 'no dependencies → release all'}` };
    }
    case 'InOrder':
    case 'Rules': {
      // Stage k waits on what stage k-1 started (startupStages); the walk stops at the first stage
      // still waiting, as the evaluation does: later stages wait on it in turn.
      for (const stage of stages.slice(1)) {
        const facts = stage.replicatedJobs[0]?.after ?? [];
        const checks = facts.map((fact) => check(fact.replicatedJob, fact.status));
        const open = checks.every((one) => one.met);
        steps.push({ replicatedJobs: stage.replicatedJobs.map((rjob) => rjob.name), checks, open });
        if (!open) break;
      }
      const facts =
        policy.form === 'InOrder'
          ? steps.flatMap((step) => step.checks.map(checkText)).join(', ')
          : steps.map((step, index) => `rule ${index + 1} ${step.checks.map(checkText).join(', ')}`).join('; ');
      const label = policy.form === 'InOrder' ? 'InOrder' : 'startup rules';
      return { form: policy.form, steps, held, text: `${label}: ${facts === '' ? 'nothing to wait for' : facts} → ${outcomeText(held)}` };
    }
  }
};

/** COUNT_FIELDS: status.replicatedJobsStatus's counters, in the order history prints them. */
const COUNT_FIELDS = ['active', 'ready', 'succeeded', 'failed', 'suspended'] as const;

/** statusWriteOf: what `after` changes in `before`, in the terms a person reads (times left out). */
export const statusWriteOf = (before: JobSetStatus | undefined, after: JobSetStatus, order: readonly string[]): StatusWrite => {
  const conditions: ConditionWritten[] = [];
  const messages: string[] = [];
  for (const condition of after.conditions ?? []) {
    const earlier = (before?.conditions ?? []).find((one) => one.type === condition.type);
    if (earlier === undefined || earlier.status !== condition.status || earlier.reason !== condition.reason) {
      conditions.push({ type: condition.type, status: condition.status, ...(condition.reason !== undefined ? { reason: condition.reason } : {}) });
    } else if (earlier.message !== condition.message) messages.push(condition.type);
  }
  const beforeCounts = new Map((before?.replicatedJobsStatus ?? []).map((status) => [status.name, status]));
  const position = (name: string): number => {
    const index = order.indexOf(name);
    return index === -1 ? order.length : index;
  };
  const counts: CountWritten[] = [];
  for (const status of [...(after.replicatedJobsStatus ?? [])].sort((a, b) => position(a.name) - position(b.name))) {
    for (const field of COUNT_FIELDS) {
      const from = beforeCounts.get(status.name)?.[field] ?? 0;
      if (from !== status[field]) counts.push({ replicatedJob: status.name, field, from, to: status[field] });
    }
  }
  const restartsBefore = before?.restarts ?? 0;
  const restartsAfter = after.restarts ?? 0;
  return {
    conditions,
    messages,
    counts,
    ...(restartsBefore !== restartsAfter ? { restarts: { from: restartsBefore, to: restartsAfter } } : {}),
    ...(after.terminalState !== undefined && after.terminalState !== before?.terminalState ? { terminalState: after.terminalState } : {}),
  };
};

/** statusWriteText: "StartupPolicyCompleted=True (InOrderStartupPolicyCompleted); worker ready 0→2, active 0→2". */
export const statusWriteText = (write: StatusWrite): string => {
  const perReplicatedJob = new Map<string, string[]>();
  for (const count of write.counts) perReplicatedJob.set(count.replicatedJob, [...(perReplicatedJob.get(count.replicatedJob) ?? []), `${count.field} ${count.from}→${count.to}`]);
  const parts = [
    write.conditions.map((condition) => `${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason})` : ''}`).join(', '),
    [...perReplicatedJob].map(([name, changes]) => `${name} ${changes.join(', ')}`).join('; '),
    write.restarts ? `restarts ${write.restarts.from}→${write.restarts.to}` : '',
    write.terminalState ? `terminalState ${write.terminalState}` : '',
    write.messages.length > 0 ? `new message for ${write.messages.join(', ')}` : '',
  ].filter((part) => part !== '');
  return parts.length > 0 ? parts.join('; ') : 'no field changed but times';
};

/** plannedAgain: the plan today's planner makes of the inputs, or undefined if it cannot (it should not throw). */
const plannedAgain = (observed: Observed, options: PlanOptions): Plan | undefined => {
  try {
    return plan(observed, options);
  } catch {
    return undefined;
  }
};

/** passViewOf: what the pass that read `observed` judged; `actions` are its recorded ones. */
export const passViewOf = (observed: Observed, options: PlanOptions, actions: readonly JournalAction[]): PassView => {
  // As the planner reads a JobSet: with upstream's webhook defaults applied.
  const jobSet = applyDefaults(observed.jobSet);
  const jobSetName = observed.jobSet.metadata.name ?? '';
  const replicatedJobs = (jobSet.spec.replicatedJobs ?? []).map((rjob) => ({ name: rjob.name, replicas: rjob.replicas ?? 1 }));
  const names = replicatedJobs.map((rjob) => rjob.name);
  const children = bucketJobs(jobSet, observed.jobs);
  const { record } = parseRecord(observed.jobSet.metadata.annotations?.[LineupKey.FinishedJobsAnnotation], observed.jobSet.status?.restarts ?? 0);
  const counters = countReplicatedJobs(names, children, record, (rjob, index) => jobName(jobSetName, rjob, index));
  const tally = (jobs: readonly Job[]): Map<string, number> => {
    const byName = new Map<string, number>();
    for (const job of jobs) {
      const rjob = replicatedJobOf(job);
      if (rjob !== undefined) byName.set(rjob, (byName.get(rjob) ?? 0) + 1);
    }
    return byName;
  };
  const current = tally([...children.active, ...children.successful, ...children.failed]);
  const previous = tally(children.previous);
  const status = new Map(counters.status.map((one) => [one.name, one]));
  const counts = replicatedJobs.map((rjob): ReplicatedJobCounts => {
    const one = status.get(rjob.name);
    const earlier = previous.get(rjob.name);
    return {
      replicatedJob: rjob.name,
      replicas: rjob.replicas,
      jobs: current.get(rjob.name) ?? 0,
      active: one?.active ?? 0,
      ready: one?.ready ?? 0,
      succeeded: one?.succeeded ?? 0,
      failed: one?.failed ?? 0,
      suspended: one?.suspended ?? 0,
      ...(earlier !== undefined ? { previousAttempt: earlier } : {}),
    };
  });
  // Planned again only to learn what the pass reached (the gates?) and what its status write was.
  const planned = plannedAgain(observed, options);
  const policy = startupPolicySpecOf(jobSet);
  const gate = planned?.startup === undefined ? undefined : gateOf(policy, counters.gating);
  const recordedStatus = actions.find((action) => action.kind === 'UpdateJobSetStatus');
  const plannedStatus = planned?.actions.find((action) => action.kind === 'UpdateJobSetStatus');
  const statusWrite =
    recordedStatus !== undefined && plannedStatus?.kind === 'UpdateJobSetStatus' && actionDigest(plannedStatus) === recordedStatus.digest
      ? statusWriteOf(observed.jobSet.status, plannedStatus.status, names)
      : undefined;
  const replicas = new Map(replicatedJobs.map((rjob) => [rjob.name, rjob.replicas]));
  const countsByName = new Map(counts.map((one) => [one.replicatedJob, one]));
  let jobNames: Map<string, string> | undefined;
  return {
    counts,
    ...(gate !== undefined ? { gate } : {}),
    ...(statusWrite !== undefined ? { statusWrite } : {}),
    attempt: observed.jobSet.status?.restarts ?? 0,
    ready: (rjobs) => rjobs.every((name) => reachedStatus('Ready', replicas.get(name) ?? 0, counters.gating.get(name) ?? NO_PROGRESS)),
    ran: (rjobs) =>
      rjobs.some((name) => {
        const one = countsByName.get(name);
        return one !== undefined && one.active + one.ready + one.succeeded + one.failed > 0;
      }),
    replicatedJobOfJob: (name) => {
      // Built on first use: most passes name no Job a gate released.
      if (jobNames === undefined) {
        jobNames = new Map();
        for (const rjob of replicatedJobs) for (let index = 0; index < rjob.replicas; index += 1) jobNames.set(jobName(jobSetName, rjob.name, index), rjob.name);
        for (const job of observed.jobs) {
          const rjob = replicatedJobOf(job);
          if (rjob !== undefined) jobNames.set(job.metadata.name ?? '', rjob);
        }
      }
      return jobNames.get(name);
    },
  };
};
