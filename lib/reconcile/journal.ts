/**
 * The journal entry of one reconcile pass (DESIGN §2, issue 10): the events that triggered it,
 * when each hop happened, the planner inputs (compressed; referenced by digest when unchanged
 * since this process's previous pass of the JobSet), the planner version, and every action with
 * its reason. Also the way back: a recorded entry's inputs as the planner's Observed.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { InvalidInputError } from '../errors.ts';
import { JobSchema, JobSetSchema, ServiceSchema, type Job, type JobSet, type Service } from '../jobset/schema.ts';
import type { Action, Observed, Plan, PlanOptions } from '../plan/types.ts';
import { PLANNER_VERSION } from '../plan/version.ts';
import type { InputsKept, JobSetKey, JournalAction, JournalEntry, JournalEvent, JournalTimings } from '../store/types.ts';

/** Hex characters kept of an inputs digest. */
const INPUTS_DIGEST_CHARS = 16;
/** Hex characters kept of an action digest. */
const ACTION_DIGEST_CHARS = 12;
/** JobSets whose last inputs digest one process remembers (a warm Lambda serves many). */
export const INPUTS_MEMORY_SIZE = 10_000;

/** RecordedInputs: the planner inputs without the clock (the entry's `at` is the planner's now). */
export interface RecordedInputs {
  readonly jobSet: JobSet;
  readonly jobs: readonly Job[];
  readonly service: Service | undefined;
}

/** canonicalJson: JSON with object keys sorted, so equal values digest equally whatever their key order. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** inputsOf: what the planner saw, without its clock. */
export const inputsOf = (observed: Observed): RecordedInputs => ({ jobSet: observed.jobSet, jobs: observed.jobs, service: observed.service });

/** inputsDigest: digest of the planner inputs' content (every field, not just resourceVersions). */
export const inputsDigest = (inputs: RecordedInputs): string => sha256(canonicalJson(inputs)).slice(0, INPUTS_DIGEST_CHARS);

/** packInputs: gzip+base64 of the inputs' JSON. */
export const packInputs = (inputs: RecordedInputs): string => gzipSync(JSON.stringify(inputs)).toString('base64');

const RecordedInputsSchema = z.object({ jobSet: JobSetSchema, jobs: z.array(JobSchema), service: ServiceSchema.optional() });

/** unpackInputs: the inputs a packed string holds, or InvalidInputError saying why they cannot be read. */
export const unpackInputs = (packed: string): RecordedInputs => {
  let raw: unknown;
  try {
    raw = JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8'));
  } catch (error) {
    throw new InvalidInputError(`recorded inputs are not gzip+base64 JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseInputs(raw);
};

/** parseInputs: recorded inputs checked against the JobSet, Job and Service schemas, or InvalidInputError. */
export const parseInputs = (raw: unknown): RecordedInputs => {
  const parsed = RecordedInputsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(`recorded inputs do not parse: ${issue ? `${issue.path.join('.')}: ${issue.message}` : 'unknown problem'}`);
  }
  return { jobSet: parsed.data.jobSet, jobs: parsed.data.jobs, service: parsed.data.service };
};

/** targetOf: the object an action writes, by name ('' for the JobSet itself). */
const targetOf = (action: Action): string => {
  switch (action.kind) {
    case 'CreateJob':
      return action.job.metadata.name ?? '';
    case 'CreateService':
      return action.service.metadata.name ?? '';
    case 'CreatePersistentVolumeClaim':
      return action.claim.metadata.name ?? '';
    case 'ResumeJob':
    case 'SuspendJob':
    case 'DeleteJob':
    case 'RemoveJobFinalizer':
      return action.name;
    default:
      return '';
  }
};

/** journalActionsOf: every action of a plan with its reason and a digest of the whole action. */
export const journalActionsOf = (plan: Plan): JournalAction[] =>
  plan.actions.map((action, index) => {
    const reason = plan.reasons[index];
    return {
      kind: action.kind,
      target: targetOf(action),
      code: reason?.code ?? 'Unexplained',
      message: reason?.message ?? '',
      digest: sha256(canonicalJson(action)).slice(0, ACTION_DIGEST_CHARS),
    };
  });

/**
 * InputsMemory: the inputs digest of the last entry this process wrote per JobSet, so an entry
 * whose inputs did not change refers to them instead of storing them again. Bounded: the oldest
 * JobSet is forgotten first (its next entry then stores its inputs again).
 */
export class InputsMemory {
  private readonly digests = new Map<string, string>();
  private readonly capacity: number;

  constructor(capacity: number = INPUTS_MEMORY_SIZE) {
    this.capacity = capacity;
  }

  private static id(key: JobSetKey): string {
    return `${key.cluster}/${key.namespace}/${key.name}`;
  }

  /** last: the digest of the last entry written for `key`, if this process remembers one. */
  last(key: JobSetKey): string | undefined {
    return this.digests.get(InputsMemory.id(key));
  }

  /** remember: `digest` is now the last written for `key`. */
  remember(key: JobSetKey, digest: string): void {
    const id = InputsMemory.id(key);
    this.digests.delete(id);
    this.digests.set(id, digest);
    if (this.digests.size > this.capacity) {
      const oldest = this.digests.keys().next().value;
      if (oldest !== undefined) this.digests.delete(oldest);
    }
  }
}

/** What one pass's journal entry is made of. */
export interface PassRecord {
  readonly key: JobSetKey;
  readonly observed: Observed;
  readonly planOptions: PlanOptions;
  readonly plan: Plan;
  readonly applied: boolean;
  readonly triggers: readonly JournalEvent[];
  readonly timings: JournalTimings;
  readonly replayName?: string | undefined;
  readonly error?: string | undefined;
}

/**
 * journalEntryOf: the entry of one pass; its inputs are stored unless `memory` knows they equal
 * the previous entry's (then inputsKept is `unchanged`, and `memory` learns this entry's digest).
 */
export const journalEntryOf = (pass: PassRecord, memory: InputsMemory | undefined): JournalEntry => {
  const inputs = inputsOf(pass.observed);
  const digest = inputsDigest(inputs);
  const unchanged = memory?.last(pass.key) === digest;
  memory?.remember(pass.key, digest);
  const kept: InputsKept = unchanged ? 'unchanged' : 'stored';
  return {
    key: pass.key,
    at: pass.observed.now,
    plannerVersion: PLANNER_VERSION,
    planOptions: { controllerName: pass.planOptions.controllerName, claimUnmanaged: pass.planOptions.claimUnmanaged },
    triggers: pass.triggers,
    timings: pass.timings,
    inputsDigest: digest,
    inputsKept: kept,
    ...(unchanged ? {} : { inputs: packInputs(inputs) }),
    actions: journalActionsOf(pass.plan),
    reason: pass.plan.reason,
    applied: pass.applied,
    ...(pass.replayName !== undefined ? { replayName: pass.replayName } : {}),
    ...(pass.error !== undefined ? { error: pass.error } : {}),
  };
};

/**
 * observedOfEntry: the planner inputs of `entries[index]` (entries of one JobSet, oldest first) —
 * its own, or for `unchanged` those of the latest earlier entry with the same digest that stored
 * them — with the entry's time as now; a string saying why not when they cannot be had.
 */
export const observedOfEntry = (entries: readonly JournalEntry[], index: number): Observed | string => {
  const entry = entries[index];
  if (entry === undefined) return `no entry ${index}`;
  if (entry.inputsKept === 'too-large') return 'inputs were too large to keep';
  let source: JournalEntry | undefined = entry;
  if (entry.inputsKept === 'unchanged' || entry.inputs === undefined) {
    source = undefined;
    for (let earlier = index - 1; earlier >= 0 && source === undefined; earlier -= 1) {
      const candidate = entries[earlier];
      if (candidate?.inputsDigest === entry.inputsDigest && candidate.inputs !== undefined) source = candidate;
    }
  }
  if (source?.inputs === undefined) return `inputs ${entry.inputsDigest} are referenced but no earlier entry stores them (expired?)`;
  try {
    return { ...unpackInputs(source.inputs), now: entry.at };
  } catch (error) {
    return (error as Error).message;
  }
};
