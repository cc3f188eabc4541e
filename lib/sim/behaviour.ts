/**
 * The behaviour file of `lineup simulate`: how long each simulated Job takes to
 * become ready, succeed or fail once it is un-suspended, and changes made from outside at
 * virtual times. Unknown keys are errors, so a typo is never silently ignored.
 */
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { JobSetDefault } from '../jobset/defaults.ts';
import { InvalidInputError } from '../errors.ts';
import { errorDetail } from '../jobset/issues.ts';
import { jobName } from '../jobset/keys.ts';
import { readErrorDetail, LoadMessage } from '../jobset/load.ts';
import { MAX_YAML_NESTING, tooDeeplyNested } from '../jobset/nesting.ts';
import type { JobSet } from '../jobset/schema.ts';
import { DEFAULT_FAIL_MESSAGE, DEFAULT_FAIL_REASON, DEFAULT_TIMING } from './constants.ts';
import { parseDuration } from '../duration.ts';

/** BehaviourMessage: why a behaviour file (`--behaviour B`) cannot be used (exit 2). */
export const BehaviourMessage = {
  unreadable: (file: string, detail: string): string => `cannot read behaviour file ${file}: ${detail}`,
  /** One kind of unknown name: `jobs: a-x-0, a-y-0 (expected one of a-driver-0, a-workers-0..2)`. */
  unknownNames: (where: string, unknown: readonly string[], known: readonly string[]): string =>
    `${where}: ${unknown.join(', ')} (expected one of ${known.length > 0 ? known.join(', ') : '(none)'})`,
  namesWhatIsNotThere: (file: string, jobSets: number, problems: readonly string[]): string =>
    `${file}: the behaviour file names what ${jobSets === 1 ? 'the JobSet does not have' : 'none of the JobSets has'}: ${problems.join('; ')}`,
} as const;

/** JobTiming: what one Job does, counted in virtual milliseconds from the moment it is un-suspended. */
export interface JobTiming {
  readonly readyAfter: number;
  readonly succeedAfter: number;
  readonly failAfter: number;
  /** Reason of the Job's FailureTarget/Failed conditions (failure-policy rules match on it). */
  readonly failReason: string;
  readonly failMessage: string;
}

/** TimingOverrides: one level of the behaviour file (default, a replicatedJob or a Job); unset fields fall through. */
export type TimingOverrides = { readonly [K in keyof JobTiming]?: JobTiming[K] | undefined };

/** BehaviourAction: a change made from outside the controller at a virtual time. */
export type BehaviourAction =
  /** Set the JobSet's spec.suspend. */
  | { readonly at: number; readonly kind: 'suspend'; readonly suspend: boolean }
  /** Delete a Job (Background propagation), as a user or another controller would. */
  | { readonly at: number; readonly kind: 'deleteJob'; readonly job: string }
  /** Replace the JobSet's spec, as a user's edit would (a re-enacted recording's; a behaviour file cannot say it). */
  | { readonly at: number; readonly kind: 'updateSpec'; readonly spec: JobSet['spec'] }
  /** Delete the JobSet, as a user would (a re-enacted recording's; a behaviour file cannot say it). */
  | { readonly at: number; readonly kind: 'deleteJobSet' };

/** Behaviour: a parsed behaviour file; levels are Maps so a Job named `constructor` is just a name. */
export interface Behaviour {
  readonly default: TimingOverrides;
  readonly replicatedJobs: ReadonlyMap<string, TimingOverrides>;
  readonly jobs: ReadonlyMap<string, TimingOverrides>;
  /** Sorted by `at`; actions at the same time keep file order. */
  readonly actions: readonly BehaviourAction[];
}

/** EMPTY_BEHAVIOUR: no file given; every Job follows DEFAULT_TIMING. */
export const EMPTY_BEHAVIOUR: Behaviour = { default: {}, replicatedJobs: new Map(), jobs: new Map(), actions: [] };

const unknownKeys =
  (expected: readonly string[]) =>
  (issue: { code?: string; keys?: readonly string[] }): string | undefined =>
    issue.code === 'unrecognized_keys'
      ? `unknown key ${(issue.keys ?? []).map((key) => JSON.stringify(key)).join(', ')} (expected ${expected.join(', ')})`
      : undefined;

const DurationSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
  try {
    return parseDuration(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const TIMING_KEYS = ['readyAfter', 'succeedAfter', 'failAfter', 'failReason', 'failMessage'] as const;
const TimingSchema = z.strictObject(
  {
    readyAfter: DurationSchema.optional(),
    succeedAfter: DurationSchema.optional(),
    failAfter: DurationSchema.optional(),
    failReason: z.string().min(1).optional(),
    failMessage: z.string().optional(),
  },
  { error: unknownKeys(TIMING_KEYS) },
);

const ACTION_KEYS = ['at', 'suspend', 'deleteJob'] as const;
const ActionSchema = z
  .strictObject(
    {
      at: DurationSchema.refine((ms) => Number.isFinite(ms), { message: 'an action happens at a finite time (never is not allowed)' }),
      suspend: z.boolean().optional(),
      deleteJob: z.string().min(1).optional(),
    },
    { error: unknownKeys(ACTION_KEYS) },
  )
  .superRefine((action, ctx) => {
    const given = [action.suspend !== undefined, action.deleteJob !== undefined].filter(Boolean).length;
    if (given !== 1) ctx.addIssue({ code: 'custom', message: `an action sets exactly one of suspend, deleteJob (got ${given})` });
  });

const FILE_KEYS = ['default', 'replicatedJobs', 'jobs', 'actions'] as const;
/** BehaviourFileSchema: the behaviour file as written (durations already in milliseconds). */
export const BehaviourFileSchema = z.strictObject(
  {
    default: TimingSchema.optional(),
    replicatedJobs: z.record(z.string(), TimingSchema).optional(),
    jobs: z.record(z.string(), TimingSchema).optional(),
    actions: z.array(ActionSchema).optional(),
  },
  { error: unknownKeys(FILE_KEYS) },
);
/** BehaviourFile: the parsed file before it is normalised into a Behaviour. */
export type BehaviourFile = z.infer<typeof BehaviourFileSchema>;

const toAction = (action: z.infer<typeof ActionSchema>): BehaviourAction =>
  action.deleteJob !== undefined
    ? { at: action.at, kind: 'deleteJob', job: action.deleteJob }
    : { at: action.at, kind: 'suspend', suspend: action.suspend === true };

const issuePath = (path: readonly PropertyKey[]): string => (path.length === 0 ? '(root)' : path.map(String).join('.'));

/**
 * parseBehaviour: a Behaviour from an already-parsed document (null or undefined = empty).
 * Throws InvalidInputError listing every problem as `path: message`.
 */
export const parseBehaviour = (document: unknown, source = 'behaviour'): Behaviour => {
  if (document === null || document === undefined) return EMPTY_BEHAVIOUR;
  const result = BehaviourFileSchema.safeParse(document);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issuePath(issue.path)}: ${issue.message}`);
    throw new InvalidInputError(`${source}: invalid behaviour file: ${problems.join('; ')}`, { cause: result.error });
  }
  const file = result.data;
  return {
    default: file.default ?? {},
    replicatedJobs: new Map(Object.entries(file.replicatedJobs ?? {})),
    jobs: new Map(Object.entries(file.jobs ?? {})),
    // Array.prototype.sort is stable, so same-time actions keep the order they were written in.
    actions: (file.actions ?? []).map(toAction).sort((a, b) => a.at - b.at),
  };
};

/**
 * loadBehaviour: parse a behaviour file's YAML (or JSON) text. Throws InvalidInputError naming
 * the file when the text is not YAML or not a valid behaviour file.
 *
 * @example loadBehaviour('default: {readyAfter: 2s}', 'b.yaml').default.readyAfter // 2000
 */
export const loadBehaviour = (text: string, file: string): Behaviour => {
  // Measured first: composing YAML nested hundreds of levels deep overflows the call stack.
  const tooDeep = tooDeeplyNested(text);
  if (tooDeep !== undefined) throw new InvalidInputError(`${file}: behaviour file: ${LoadMessage.tooDeep(MAX_YAML_NESTING, tooDeep.line, tooDeep.column)}`);
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    // The first line only: the yaml package follows it with a code frame, and the CLI prints one line.
    throw new InvalidInputError(`${file}: behaviour file is not valid YAML: ${errorDetail(error)}`, { cause: error });
  }
  return parseBehaviour(document, file);
};

/**
 * readBehaviourFile: loadBehaviour on a file's content, read with the given function (never fs
 * directly, as readJobSetFile). Throws InvalidInputError with one line when the file cannot be
 * read (`cannot read behaviour file b.yaml: no such file`), is not YAML or not a behaviour file.
 */
export const readBehaviourFile = (file: string, readFile: (path: string) => string): Behaviour => {
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    throw new InvalidInputError(BehaviourMessage.unreadable(file, readErrorDetail(error)), { cause: error });
  }
  return loadBehaviour(text, file);
};

/** ReplicatedJobShape: what the name check needs of one replicatedJob of one JobSet. */
interface ReplicatedJobShape {
  readonly jobSet: string;
  readonly name: string;
  readonly replicas: number;
}

const shapesOf = (jobSets: readonly JobSet[]): ReplicatedJobShape[] =>
  jobSets.flatMap((jobSet) =>
    (jobSet.spec.replicatedJobs ?? []).map((rjob) => ({ jobSet: jobSet.metadata.name ?? '', name: rjob.name, replicas: rjob.replicas ?? JobSetDefault.replicas })),
  );

/** hasJob: whether `name` is the Job of some index below the replicas of one of the shapes. */
const hasJob = (shapes: readonly ReplicatedJobShape[], name: string): boolean => {
  // Job names end in the index in plain decimal: `-01` or `-1e2` name no Job.
  const match = /-(0|[1-9]\d*)$/.exec(name);
  if (!match) return false;
  const index = Number(match[1]);
  return shapes.some((shape) => index < shape.replicas && jobName(shape.jobSet, shape.name, index) === name);
};

/** jobNamesShown: every Job name, one replicatedJob's written as a range (`js-workers-0..2`) so 10,000 Jobs stay one line. */
const jobNamesShown = (shapes: readonly ReplicatedJobShape[]): string[] =>
  shapes
    .filter((shape) => shape.replicas > 0)
    .map((shape) => `${jobName(shape.jobSet, shape.name, 0)}${shape.replicas > 1 ? `..${shape.replicas - 1}` : ''}`);

/**
 * unknownBehaviourNames: the places where a behaviour file names a replicatedJob or a Job that
 * none of `jobSets` has (under `replicatedJobs`, `jobs`, or as an action's `deleteJob`), one
 * message per place with the names that do exist; empty when every name is known. Such an entry
 * would silently do nothing, so callers treat it as unusable input.
 *
 * @example unknownBehaviourNames(loadBehaviour('jobs: {js-wrker-0: {failAfter: 1s}}', 'b'), [jobSet]) // ['jobs: js-wrker-0 (expected one of …)']
 */
export const unknownBehaviourNames = (behaviour: Behaviour, jobSets: readonly JobSet[]): string[] => {
  const shapes = shapesOf(jobSets);
  const replicatedJobNames = [...new Set(shapes.map((shape) => shape.name))];
  const problems: string[] = [];
  const report = (where: string, unknown: readonly string[], known: readonly string[]): void => {
    const distinct = [...new Set(unknown)];
    if (distinct.length > 0) problems.push(BehaviourMessage.unknownNames(where, distinct, known));
  };
  report('replicatedJobs', [...behaviour.replicatedJobs.keys()].filter((name) => !replicatedJobNames.includes(name)), replicatedJobNames);
  report('jobs', [...behaviour.jobs.keys()].filter((name) => !hasJob(shapes, name)), jobNamesShown(shapes));
  const deleted = behaviour.actions.flatMap((action) => (action.kind === 'deleteJob' ? [action.job] : []));
  report('actions deleteJob', deleted.filter((name) => !hasJob(shapes, name)), jobNamesShown(shapes));
  return problems;
};

/**
 * checkBehaviourNames: throws InvalidInputError naming the file, every unknown name and the
 * names that exist, when the behaviour file names what `jobSets` do not have.
 */
export const checkBehaviourNames = (behaviour: Behaviour, jobSets: readonly JobSet[], file: string): void => {
  const problems = unknownBehaviourNames(behaviour, jobSets);
  if (problems.length > 0) throw new InvalidInputError(BehaviourMessage.namesWhatIsNotThere(file, jobSets.length, problems));
};

const pick = <K extends keyof JobTiming>(levels: readonly (TimingOverrides | undefined)[], key: K, fallback: JobTiming[K]): JobTiming[K] => {
  for (const level of levels) {
    const value = level?.[key];
    if (value !== undefined) return value as JobTiming[K];
  }
  return fallback;
};

/**
 * resolveBehaviour: the timing of one Job, field by field with precedence
 * jobs[name] > replicatedJobs[replicatedJob] > default > DEFAULT_TIMING.
 */
export const resolveBehaviour = (behaviour: Behaviour, job: { readonly name: string; readonly replicatedJob?: string | undefined }): JobTiming => {
  const levels = [
    behaviour.jobs.get(job.name),
    job.replicatedJob === undefined ? undefined : behaviour.replicatedJobs.get(job.replicatedJob),
    behaviour.default,
  ];
  return {
    readyAfter: pick(levels, 'readyAfter', DEFAULT_TIMING.readyAfter),
    succeedAfter: pick(levels, 'succeedAfter', DEFAULT_TIMING.succeedAfter),
    failAfter: pick(levels, 'failAfter', DEFAULT_TIMING.failAfter),
    failReason: pick(levels, 'failReason', DEFAULT_FAIL_REASON),
    failMessage: pick(levels, 'failMessage', DEFAULT_FAIL_MESSAGE),
  };
};
