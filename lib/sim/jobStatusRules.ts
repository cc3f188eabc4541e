/**
 * The Job status rules a Kubernetes 1.36 API server enforces on every write of the Job status
 * subresource (reference/real-servers.md, "Faking Job status"; upstream
 * `pkg/apis/batch/validation` ValidateJobStatusUpdate, with the options
 * `pkg/registry/batch/job/strategy.go` getStatusValidationOptions sets now that JobManagedBy is
 * GA). The simulated cluster runs them on every Job status write, its own and the controller's,
 * and refuses a write that breaks one with the field causes a real server lists in its 422
 * answer, so a status a real server would refuse fails the same way in the simulation.
 *
 * Most rules only run when a field they look at changes, as upstream's do: a stored status that
 * breaks a rule does not block unrelated writes.
 */
import { JobConditionType } from '../jobset/api.ts';
import type { FieldError } from '../errors.ts';
import type { Job, JobCondition, JobStatus } from '../jobset/schema.ts';

const isTrue = (conditions: readonly JobCondition[] | undefined, type: string): boolean =>
  (conditions ?? []).some((condition) => condition.type === type && condition.status === 'True');

const isFalse = (conditions: readonly JobCondition[] | undefined, type: string): boolean =>
  (conditions ?? []).some((condition) => condition.type === type && condition.status === 'False');

/** jobIsFinished: a Complete or Failed condition is True (the Job will never run again). */
export const jobIsFinished = (status: JobStatus | undefined): boolean =>
  isTrue(status?.conditions, JobConditionType.Complete) || isTrue(status?.conditions, JobConditionType.Failed);

const millis = (timestamp: string): number => Date.parse(timestamp);

/** required: a cause as the API server words a missing field (field.Required). */
const required = (path: string, detail: string): FieldError => ({ path, message: `Required value: ${detail}` });
/** invalid: a cause as the API server words a bad field (field.Invalid), with the value when it names one. */
const invalid = (path: string, detail: string, value?: unknown): FieldError => ({
  path,
  message: value === undefined ? `Invalid value: ${detail}` : `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});

/** What one status write changes, as getStatusValidationOptions tells it (old status {} on create). */
interface StatusWrite {
  readonly next: JobStatus;
  readonly old: JobStatus;
  readonly spec: Job['spec'] | undefined;
  /** A condition type whose True-ness differs between old and next. */
  readonly flipped: (type: string) => boolean;
}

/** One rule: the cause it reports when the write breaks it, or undefined. */
type StatusRule = (write: StatusWrite) => FieldError | undefined;

const STATUS = 'status';
const complete = (status: JobStatus): boolean => isTrue(status.conditions, JobConditionType.Complete);
const failed = (status: JobStatus): boolean => isTrue(status.conditions, JobConditionType.Failed);
const successCriteriaMet = (status: JobStatus): boolean => isTrue(status.conditions, JobConditionType.SuccessCriteriaMet);
const failureTarget = (status: JobStatus): boolean => isTrue(status.conditions, JobConditionType.FailureTarget);

const rules: readonly StatusRule[] = [
  // validateJobStatus, each behind the option getStatusValidationOptions sets for it.
  ({ next, flipped }) =>
    (flipped(JobConditionType.Complete) || flipped(JobConditionType.Failed)) && complete(next) && failed(next)
      ? invalid(`${STATUS}.conditions`, 'cannot set Complete=True and Failed=true conditions')
      : undefined,
  ({ next, flipped }) =>
    (flipped(JobConditionType.Complete) || flipped(JobConditionType.FailureTarget)) && complete(next) && failureTarget(next)
      ? invalid(`${STATUS}.conditions`, 'cannot set Complete=True and FailureTarget=true conditions')
      : undefined,
  ({ next, old, flipped }) =>
    (flipped(JobConditionType.Complete) || next.completionTime !== old.completionTime) && next.completionTime !== undefined && !complete(next)
      ? invalid(`${STATUS}.completionTime`, 'cannot set completionTime when there is no Complete=True condition', next.completionTime)
      : undefined,
  ({ next, old, flipped }) =>
    (flipped(JobConditionType.Complete) || next.completionTime !== old.completionTime) && next.completionTime === undefined && complete(next)
      ? required(`${STATUS}.completionTime`, 'completionTime is required for Complete jobs')
      : undefined,
  ({ next, old }) =>
    (next.startTime !== old.startTime || next.completionTime !== old.completionTime) &&
    next.startTime !== undefined &&
    next.completionTime !== undefined &&
    millis(next.completionTime) < millis(next.startTime)
      ? invalid(`${STATUS}.completionTime`, 'must be equal to or after `startTime`', next.completionTime)
      : undefined,
  ({ next, flipped }) =>
    flipped(JobConditionType.Failed) && failed(next) && !failureTarget(next)
      ? invalid(`${STATUS}.conditions`, 'cannot set Failed=True condition without the FailureTarget=true condition')
      : undefined,
  ({ next, flipped }) =>
    (flipped(JobConditionType.Complete) || flipped(JobConditionType.SuccessCriteriaMet)) && complete(next) && !successCriteriaMet(next)
      ? invalid(`${STATUS}.conditions`, 'cannot set Complete=True condition without the SuccessCriteriaMet=true condition')
      : undefined,
  ({ next, old }) =>
    (jobIsFinished(next) !== jobIsFinished(old) || (next.active ?? 0) !== (old.active ?? 0)) && (next.active ?? 0) > 0 && jobIsFinished(next)
      ? invalid(`${STATUS}.active`, 'active>0 is invalid for finished job', next.active)
      : undefined,
  ({ next, old, spec }) => {
    // A suspended Job of zero completions may finish without ever starting.
    const suspendedWithZeroCompletions = spec?.suspend === true && spec.completions === 0;
    const watched = jobIsFinished(next) !== jobIsFinished(old) || next.startTime !== old.startTime;
    return watched && !suspendedWithZeroCompletions && next.startTime === undefined && jobIsFinished(next)
      ? required(`${STATUS}.startTime`, 'startTime is required for finished job')
      : undefined;
  },
  ({ next, old }) =>
    ((next.ready ?? 0) !== (old.ready ?? 0) || (next.active ?? 0) !== (old.active ?? 0)) && next.ready !== undefined && next.ready > (next.active ?? 0)
      ? invalid(`${STATUS}.ready`, 'cannot set more ready pods than active', next.ready)
      : undefined,
  ({ next }) =>
    successCriteriaMet(next) && failed(next) ? invalid(`${STATUS}.conditions`, 'cannot set SuccessCriteriaMet=True and Failed=true conditions') : undefined,
  ({ next }) =>
    successCriteriaMet(next) && failureTarget(next)
      ? invalid(`${STATUS}.conditions`, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions')
      : undefined,
  // ValidateJobStatusUpdate: transitions from the stored status.
  ({ next, old }) => {
    const disabled = [JobConditionType.Failed, JobConditionType.Complete, JobConditionType.FailureTarget].filter(
      (type) => isTrue(old.conditions, type) && !isTrue(next.conditions, type),
    );
    return disabled.length > 0 ? invalid(`${STATUS}.conditions`, `cannot disable the terminal ${disabled[0]}=True condition`) : undefined;
  },
  ({ next, old }) => ((next.failed ?? 0) < (old.failed ?? 0) ? invalid(`${STATUS}.failed`, 'cannot decrease the failed counter', next.failed ?? 0) : undefined),
  ({ next, old, spec }) => {
    // Indexed Jobs with completions = parallelism may be scaled down, and lose succeeded pods with it.
    const scalable = spec?.completionMode === 'Indexed' && spec.completions === spec.parallelism;
    return !scalable && (next.succeeded ?? 0) < (old.succeeded ?? 0)
      ? invalid(`${STATUS}.succeeded`, 'cannot decrease the succeeded counter', next.succeeded ?? 0)
      : undefined;
  },
  ({ next, old }) =>
    next.completionTime !== undefined && old.completionTime !== undefined && millis(next.completionTime) !== millis(old.completionTime)
      ? invalid(`${STATUS}.completionTime`, 'field is immutable', next.completionTime)
      : undefined,
  ({ next, old, spec }) => {
    // Clearing or moving startTime is allowed only while the Job is suspended (or being resumed);
    // that is why upstream's resume clears it before it sets suspend=false.
    const resuming = isTrue(old.conditions, JobConditionType.Suspended) && isFalse(next.conditions, JobConditionType.Suspended);
    return old.startTime !== undefined && next.startTime !== old.startTime && !resuming && spec?.suspend !== true
      ? invalid(`${STATUS}.startTime`, 'field is immutable for unsuspended job once set', next.startTime ?? null)
      : undefined;
  },
  ({ next, old }) =>
    successCriteriaMet(old) && !successCriteriaMet(next) ? invalid(`${STATUS}.conditions`, 'cannot disable the SuccessCriteriaMet=True condition') : undefined,
  ({ next, old }) =>
    complete(old) && !successCriteriaMet(old) && successCriteriaMet(next)
      ? invalid(`${STATUS}.conditions`, 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions')
      : undefined,
];

/**
 * jobStatusViolations: the causes a 1.36 API server lists when it refuses `next` as the status of
 * `old`, the stored Job before the write (undefined on create). Empty when it accepts the write.
 */
export const jobStatusViolations = (old: Job | undefined, next: JobStatus): FieldError[] => {
  const before = old?.status ?? {};
  const write: StatusWrite = {
    next,
    old: before,
    spec: old?.spec,
    flipped: (type) => isTrue(before.conditions, type) !== isTrue(next.conditions, type),
  };
  return rules.map((rule) => rule(write)).filter((cause): cause is FieldError => cause !== undefined);
};
