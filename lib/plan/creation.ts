/**
 * Creating a JobSet's missing Jobs and the volume claims they mount, at most MAX_CREATES_PER_PASS
 * Jobs a pass; a Job whose gate holds it back is created suspended.
 */
import { creatingJobsMessage, EventReason } from '../jobset/api.ts';
import { jobName } from '../jobset/keys.ts';
import { constructJob, replicaLayout } from './constructJob.ts';
import { recordHas } from './finishedJobs.ts';
import type { Gates } from './gates.ts';
import { tag, type CountedPass, type Pass } from './pass.ts';
import { ActionReasonCode } from './reasons.ts';
import type { Action } from './types.ts';
import { volumeClaims } from './volumeClaims.ts';

/**
 * MAX_CREATES_PER_PASS: the most Jobs one pass creates. The planner creates the first missing
 * ones in the order it always has (replicatedJobs in spec order, index ascending), and the passes
 * after it the rest: the reconcile loop runs the next pass at once, since its re-plan on this
 * pass's writes finds Jobs still missing (lib/reconcile/reconcileJobSet.ts), and the created Jobs'
 * watch events wake the JobSet too. Gates are unaffected: a gate reads the replicatedJob's replicas
 * from the spec, so a Job not yet created keeps the gates after it closed.
 * Why 500: a pass must end well within the reconciler's timeout (60 s, FunctionSizing) with its
 * reads, its status write and its journal entry, a conflict's re-plan included. At upstream's
 * client rate of 500 requests a second (its --kube-api-qps), 500 creates take 1 s; at a tenth of
 * that — an API server under load, or the share its priority and fairness gives one client —
 * 10 s, a sixth of the timeout. One pass's plan is then about 1.4 MB of actions, not the 299 MB
 * a JobSet of 100,001 Jobs planned in one pass.
 */
export const MAX_CREATES_PER_PASS = 500;

/** Creation: the Jobs this pass creates, and those it leaves to the next passes. */
export interface Creation {
  readonly creates: Action[];
  /** Created suspended because a gate holds them back (or the JobSet is suspended). */
  readonly createdGated: number;
  /** Missing Jobs left to the next passes (MAX_CREATES_PER_PASS), and how many of them a gate holds back. */
  readonly deferred: number;
  readonly deferredGated: number;
}

/**
 * createMissingJobs: every missing Job of the current attempt, up to MAX_CREATES_PER_PASS a pass,
 * in spec order and index ascending; a held-back one is created suspended.
 */
export const createMissingJobs = (pass: CountedPass, gates: Gates): Creation => {
  const { jobSet, children, record, replicatedJobs } = pass;
  const suspended = jobSet.spec.suspend === true;
  const creation = { creates: [] as Action[], createdGated: 0, deferred: 0, deferredGated: 0 };
  // upstream: with BlockingRecreate nothing is built while any Job of an older attempt exists.
  if (jobSet.spec.failurePolicy?.restartStrategy === 'BlockingRecreate' && children.previous.length > 0) return creation;
  const layout = replicaLayout(replicatedJobs);
  for (const rjob of replicatedJobs) {
    const holdBack = suspended || !gates.released(rjob.name);
    for (let index = 0; index < (rjob.replicas ?? 1); index += 1) {
      const name = jobName(pass.base.name, rjob.name, index);
      // upstream: skip any name an owned Job already has, whatever its bucket.
      if (children.byName.has(name)) continue;
      // DEVIATION (kubernetes-sigs/jobset#360): a Job that finished and was deleted by its own TTL
      // is recorded, not re-created — its work is done and the gates it opened stay open.
      if (recordHas(record, 'succeeded', rjob.name, index) || recordHas(record, 'failed', rjob.name, index)) continue;
      if (creation.creates.length >= MAX_CREATES_PER_PASS) {
        creation.deferred += 1;
        if (holdBack) creation.deferredGated += 1;
        continue;
      }
      // DEVIATION: every Job is created at once — also while the JobSet is
      // suspended, for dependsOn as for InOrder — and a gated one is created suspended.
      const reason = gates.reasonFor(rjob.name);
      creation.creates.push(tag(pass, { kind: 'CreateJob', job: constructJob(jobSet, rjob, index, holdBack, layout), replicatedJob: rjob.name }, reason.code, reason.message));
      if (holdBack) creation.createdGated += 1;
    }
  }
  return creation;
};

/**
 * createVolumeClaims: upstream reconcileVolumeClaimPolicies: the claims exist before any Job that
 * mounts them. A pass that creates Jobs (the first, and each after a restart) creates them; one
 * that exists is kept.
 */
export const createVolumeClaims = (pass: Pass, creation: Creation): Action[] =>
  creation.creates.length === 0
    ? []
    : volumeClaims(pass.jobSet).map((claim) =>
        tag(
          pass,
          { kind: 'CreatePersistentVolumeClaim', claim },
          ActionReasonCode.VolumeClaimPolicy,
          `${claim.metadata.name ?? ''}: created before the jobs that mount it (${claim.metadata.ownerReferences === undefined ? 'Retain: kept when the jobset is deleted' : 'Delete: owned by the jobset'})`,
        ),
      );

/** announceDeferredCreation: how far creation got, in an Event: upstream's status has no field for it. */
export const announceDeferredCreation = (pass: CountedPass, creation: Creation): void => {
  if (creation.deferred === 0) return;
  pass.draft.events.push(
    tag(
      pass,
      { kind: 'EmitEvent', eventType: 'Normal', reason: EventReason.CreatingJobs, message: creatingJobsMessage(pass.totalReplicas - creation.deferred, pass.totalReplicas) },
      ActionReasonCode.CreationContinues,
      `a pass creates at most ${MAX_CREATES_PER_PASS} jobs: ${creation.deferred} more in the next passes`,
    ),
  );
};
