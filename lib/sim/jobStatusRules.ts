/**
 * The Job status rules a Kubernetes 1.32+ API server enforces on every write of the Job status
 * subresource (reference/real-servers.md, "Faking Job status"; upstream
 * `pkg/apis/batch/validation` ValidateJobStatusUpdate with JobStatusValidationOptions). The
 * simulated cluster runs them on every Job status write, its own and the controller's, so a
 * status a real server would refuse fails loudly in the simulation too.
 */
import { JobConditionType } from '../constants.ts';
import type { Job, JobCondition, JobStatus } from '../jobset/schema.ts';

const isTrue = (conditions: readonly JobCondition[] | undefined, type: string): boolean =>
  (conditions ?? []).some((condition) => condition.type === type && condition.status === 'True');

/** jobIsFinished: a Complete or Failed condition is True (the Job will never run again). */
export const jobIsFinished = (status: JobStatus | undefined): boolean =>
  isTrue(status?.conditions, JobConditionType.Complete) || isTrue(status?.conditions, JobConditionType.Failed);

const millis = (timestamp: string): number => Date.parse(timestamp);

/** One rule: a short name and a check returning a violation message or undefined. */
interface StatusRule {
  readonly name: string;
  readonly check: (next: JobStatus, old: Job | undefined) => string | undefined;
}

const rules: readonly StatusRule[] = [
  {
    name: 'completionTime required for Complete',
    check: (next) =>
      isTrue(next.conditions, JobConditionType.Complete) && !next.completionTime
        ? 'completionTime is required for a Job with a Complete=True condition'
        : undefined,
  },
  {
    name: 'completionTime only for Complete',
    check: (next) =>
      next.completionTime && !isTrue(next.conditions, JobConditionType.Complete)
        ? `completionTime ${next.completionTime} is set on a Job that is not Complete`
        : undefined,
  },
  {
    name: 'completionTime not before startTime',
    check: (next) =>
      next.completionTime && next.startTime && millis(next.completionTime) < millis(next.startTime)
        ? `completionTime ${next.completionTime} is before startTime ${next.startTime}`
        : undefined,
  },
  {
    name: 'startTime required when finished',
    check: (next) => (jobIsFinished(next) && !next.startTime ? 'startTime is required for a finished Job' : undefined),
  },
  {
    name: 'Complete needs SuccessCriteriaMet',
    check: (next) =>
      isTrue(next.conditions, JobConditionType.Complete) && !isTrue(next.conditions, JobConditionType.SuccessCriteriaMet)
        ? 'a Complete=True condition needs a SuccessCriteriaMet=True condition'
        : undefined,
  },
  {
    name: 'Failed needs FailureTarget',
    check: (next) =>
      isTrue(next.conditions, JobConditionType.Failed) && !isTrue(next.conditions, JobConditionType.FailureTarget)
        ? 'a Failed=True condition needs a FailureTarget=True condition'
        : undefined,
  },
  {
    name: 'not both Complete and Failed',
    check: (next) =>
      isTrue(next.conditions, JobConditionType.Complete) && isTrue(next.conditions, JobConditionType.Failed)
        ? 'a Job cannot be both Complete and Failed'
        : undefined,
  },
  {
    name: 'not both SuccessCriteriaMet and FailureTarget',
    check: (next) =>
      isTrue(next.conditions, JobConditionType.SuccessCriteriaMet) && isTrue(next.conditions, JobConditionType.FailureTarget)
        ? 'a Job cannot have both SuccessCriteriaMet=True and FailureTarget=True'
        : undefined,
  },
  {
    name: 'no active pods when finished',
    check: (next) => (jobIsFinished(next) && (next.active ?? 0) > 0 ? `active is ${next.active} on a finished Job, expected 0` : undefined),
  },
  {
    name: 'succeeded never decreases',
    check: (next, old) =>
      (next.succeeded ?? 0) < (old?.status?.succeeded ?? 0)
        ? `succeeded decreased from ${old?.status?.succeeded} to ${next.succeeded ?? 0}`
        : undefined,
  },
  {
    name: 'failed never decreases',
    check: (next, old) =>
      (next.failed ?? 0) < (old?.status?.failed ?? 0) ? `failed decreased from ${old?.status?.failed} to ${next.failed ?? 0}` : undefined,
  },
  {
    name: 'completionTime cannot change',
    check: (next, old) =>
      old?.status?.completionTime && next.completionTime !== old.status.completionTime
        ? `completionTime cannot change once set (was ${old.status.completionTime}, got ${next.completionTime ?? 'none'})`
        : undefined,
  },
  {
    // Clearing or moving startTime is allowed only while the Job is suspended; that is why
    // upstream's resume clears it before it sets suspend=false (jobset-behaviour.md §6.5).
    name: 'startTime of an unsuspended Job cannot change',
    check: (next, old) =>
      old?.status?.startTime && old.spec.suspend !== true && next.startTime !== old.status.startTime
        ? `startTime of an unsuspended Job cannot change (was ${old.status.startTime}, got ${next.startTime ?? 'none'})`
        : undefined,
  },
  {
    name: 'terminal conditions cannot be removed',
    check: (next, old) => {
      const removed = [JobConditionType.Complete, JobConditionType.Failed].filter(
        (type) => isTrue(old?.status?.conditions, type) && !isTrue(next.conditions, type),
      );
      return removed.length > 0 ? `terminal condition ${removed.join(', ')}=True cannot be removed` : undefined;
    },
  },
  {
    name: 'terminal intent conditions cannot be removed',
    check: (next, old) => {
      const removed = [JobConditionType.SuccessCriteriaMet, JobConditionType.FailureTarget].filter(
        (type) => isTrue(old?.status?.conditions, type) && !isTrue(next.conditions, type),
      );
      return removed.length > 0 ? `condition ${removed.join(', ')}=True cannot be removed` : undefined;
    },
  },
];

/**
 * jobStatusViolations: every rule the new status of a Job breaks, given the stored Job before
 * the write (undefined on create). An empty list means a 1.32+ API server accepts the write.
 */
export const jobStatusViolations = (old: Job | undefined, next: JobStatus): string[] =>
  rules.map((rule) => rule.check(next, old)).filter((message): message is string => message !== undefined);
