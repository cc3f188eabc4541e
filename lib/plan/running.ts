/**
 * A running (or suspended) JobSet's pass: its headless Service, its gates, the Jobs to create,
 * suspend or resume, and the status and conditions that result.
 */
import { ConditionType, EventReason, Message, Reason } from '../jobset/api.ts';
import { jobName } from '../jobset/keys.ts';
import type { ReplicatedJob } from '../jobset/schema.ts';
import { countReplicatedJobs, isDeleting, isSuspended, replicatedJobOf, type ChildJobs } from './childJobs.ts';
import { dnsHostnamesEnabled, headlessService } from './constructJob.ts';
import { announceDeferredCreation, createMissingJobs, createVolumeClaims, MAX_CREATES_PER_PASS, type Creation } from './creation.ts';
import { decideGates, type Gates } from './gates.ts';
import { applyCondition, finish, tag, type CountedPass, type Pass } from './pass.ts';
import { ActionReasonCode } from './reasons.ts';
import { podTemplateMerge } from './resume.ts';
import { applyStartupConditions } from './startupConditions.ts';
import type { Action, Plan } from './types.ts';

/** headlessServiceIfMissing: the headless Service, (re)created whenever it is missing. */
const headlessServiceIfMissing = (pass: Pass): Action[] =>
  dnsHostnamesEnabled(pass.jobSet) && pass.observed.service === undefined ? [{ kind: 'CreateService', service: headlessService(pass.jobSet) }] : [];

/** suspendJobs: a suspended JobSet suspends its running Jobs and says so in its conditions. */
const suspendJobs = (pass: CountedPass): Action[] => {
  const transitions: Action[] = [];
  for (const job of pass.children.active) {
    if (isSuspended(job) || isDeleting(job)) continue;
    transitions.push(
      tag(pass, { kind: 'SuspendJob', name: job.metadata.name ?? '', replicatedJob: replicatedJobOf(job) ?? '', resourceVersion: job.metadata.resourceVersion }, ActionReasonCode.JobSetSuspended, 'spec.suspend is true'),
    );
  }
  applyCondition(pass.draft, { type: ConditionType.Suspended, status: 'True', reason: Reason.SuspendedJobs, message: Message.SuspendedJobs });
  applyCondition(pass.draft, { type: ConditionType.RestartingJobSet, status: 'False', reason: Reason.JobSetSuspended, message: Message.JobSetSuspended });
  return transitions;
};

/**
 * resumeReleasedJobs: a running JobSet resumes the suspended Jobs whose gate is open, announces
 * each released replicatedJob once, and reports how far startup has come in its conditions.
 */
const resumeReleasedJobs = (pass: CountedPass, gates: Gates, creation: Creation): Action[] => {
  const transitions: Action[] = [];
  const rjobByName = new Map<string, ReplicatedJob>(pass.replicatedJobs.map((rjob) => [rjob.name, rjob]));
  const resumedBy = new Map<string, number>();
  let remainingSuspended = 0;
  for (const job of pass.children.active) {
    if (!isSuspended(job) || isDeleting(job)) continue;
    const rjobName = replicatedJobOf(job);
    const rjob = rjobName === undefined ? undefined : rjobByName.get(rjobName);
    if (!rjob || !gates.released(rjob.name)) {
      remainingSuspended += 1;
      continue;
    }
    const reason = gates.reasonFor(rjob.name);
    transitions.push(
      tag(
        pass,
        {
          kind: 'ResumeJob',
          name: job.metadata.name ?? '',
          replicatedJob: rjob.name,
          resourceVersion: job.metadata.resourceVersion,
          clearStartTime: job.status?.startTime !== undefined,
          podTemplate: podTemplateMerge(job, rjob),
        },
        reason.code,
        reason.message,
      ),
    );
    resumedBy.set(rjob.name, (resumedBy.get(rjob.name) ?? 0) + 1);
  }
  for (const rjob of pass.replicatedJobs) {
    const count = resumedBy.get(rjob.name);
    if (count === undefined) continue;
    const reason = gates.reasonFor(rjob.name);
    pass.draft.events.push(
      tag(pass, { kind: 'EmitEvent', eventType: 'Normal', reason: EventReason.ReplicatedJobReleased, message: `released ${rjob.name}: resumed ${count} ${count === 1 ? 'job' : 'jobs'}` }, reason.code, reason.message),
    );
  }
  // DEVIATION: Suspended turns False as soon as the JobSet is resumed; the startup
  // conditions, not Suspended, show how far an in-order resume has come.
  applyCondition(pass.draft, { type: ConditionType.Suspended, status: 'False', reason: Reason.ResumeJobs, message: Message.ResumeJobs });
  applyStartupConditions(pass.draft, gates.evaluation, {
    stillComplete: creation.createdGated === 0 && creation.deferredGated === 0 && remainingSuspended === 0 && pass.children.previous.length === 0,
  });
  return transitions;
};

/**
 * countAfterWrites: the status counts the Jobs as this pass's writes leave them (created, resumed,
 * suspended), which run before it and stop the pass if one fails: the pass that sees their echoes
 * then finds the status right, and the loop settles on the writes' answers without another status write.
 */
const countAfterWrites = (pass: CountedPass, creation: Creation, transitions: readonly Action[]): void => {
  if (creation.creates.length === 0 && transitions.length === 0) return;
  pass.statusCounts = countReplicatedJobs(
    pass.replicatedJobs.map((rjob) => rjob.name),
    childrenAfter(pass.children, creation.creates, transitions),
    pass.record,
    (rjob, index) => jobName(pass.base.name, rjob, index),
  ).status;
};

/**
 * childrenAfter: the JobSet's Jobs as `creates` and `transitions` (ResumeJob, SuspendJob) leave
 * them — a created Job as constructed, a resumed or suspended one with its new spec.suspend.
 */
const childrenAfter = (children: ChildJobs, creates: readonly Action[], transitions: readonly Action[]): ChildJobs => {
  const suspendAfter = new Map<string, boolean>();
  for (const action of transitions) {
    if (action.kind === 'ResumeJob') suspendAfter.set(action.name, false);
    else if (action.kind === 'SuspendJob') suspendAfter.set(action.name, true);
  }
  const created = creates.flatMap((action) => (action.kind === 'CreateJob' ? [action.job] : []));
  const active = [
    ...children.active.map((job) => {
      const suspend = suspendAfter.get(job.metadata.name ?? '');
      return suspend === undefined ? job : { ...job, spec: { ...job.spec, suspend } };
    }),
    ...created,
  ];
  const byName = new Map(children.byName);
  for (const job of created) byName.set(job.metadata.name ?? '', job);
  return { ...children, active, byName };
};

/** runningSummary: the reason of a pass that created, resumed or suspended, or found nothing to do. */
const runningSummary = (pass: CountedPass, gates: Gates, creation: Creation, claims: readonly Action[], transitions: readonly Action[]): string => {
  const suspended = pass.jobSet.spec.suspend === true;
  const { creates, createdGated, deferred } = creation;
  const summary = [
    claims.length > 0 ? `created ${claims.length} volume claims` : undefined,
    creates.length > 0 ? `created ${creates.length} jobs (${createdGated + (suspended ? creates.length - createdGated : 0)} suspended)` : undefined,
    deferred > 0 ? `${deferred} more jobs in the next passes (at most ${MAX_CREATES_PER_PASS} a pass)` : undefined,
    transitions.length > 0 ? `${suspended ? 'suspended' : 'resumed'} ${transitions.length} jobs` : undefined,
    gates.evaluation.waitingOn && !suspended ? gates.evaluation.waitingOn.message : undefined,
    suspended ? 'jobset suspended' : undefined,
  ].filter((part): part is string => part !== undefined);
  return summary.length > 0 ? summary.join('; ') : 'nothing to do';
};

/**
 * runJobSet: a running (or suspended) JobSet: its Service, gates, Job creation, suspend or resume,
 * and the status that results.
 */
export const runJobSet = (pass: CountedPass): Plan => {
  const service = headlessServiceIfMissing(pass);
  const gates = decideGates(pass);
  const creation = createMissingJobs(pass, gates);
  const claims = createVolumeClaims(pass, creation);
  const transitions = pass.jobSet.spec.suspend === true ? suspendJobs(pass) : resumeReleasedJobs(pass, gates, creation);
  announceDeferredCreation(pass, creation);
  const reason = runningSummary(pass, gates, creation, claims, transitions);
  countAfterWrites(pass, creation, transitions);
  const result = finish(pass, [...service, ...claims, ...creation.creates, ...transitions], reason);
  return { ...result, startup: { form: gates.evaluation.form, gates: gates.evaluation.gates } };
};
