/**
 * The journal entry of one reconcile pass (DESIGN §2, issue 10): the events that triggered it,
 * when each hop happened, the planner inputs (compressed; referenced by digest when unchanged
 * since the JobSet's previous entry), the planner version, and every action with
 * its reason. Also the way back: a recorded entry's inputs as the planner's Observed.
 */
import { createHash, randomUUID } from 'node:crypto';
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
/** JobSets whose last snapshot one process remembers (a warm Lambda serves many). */
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

/** RecalledSnapshot: a kept snapshot, the wakeAt its loop released the JobSet with, and whether the planner had nothing to do on it. */
export interface RecalledSnapshot {
  readonly observed: Observed;
  readonly wakeAt: number | undefined;
  readonly settled: boolean;
}

/**
 * InputsMemory: per JobSet, the observed state this process's last pass loop left behind (its
 * inputs with its own writes applied, lib/reconcile/snapshot.ts) under a token the loop's release
 * writes to the state item. A later loop, in this process or another, starts from it only when
 * the item still names that token — no other process has run a pass since. Bounded: the oldest
 * JobSet is forgotten first (its next pass then reads everything).
 */
export class InputsMemory {
  private readonly snapshots = new Map<string, RecalledSnapshot & { readonly token: string }>();
  private readonly capacity: number;
  /** Tells this memory's tokens from every other process's. */
  private readonly instance = randomUUID();
  private sequence = 0;

  constructor(capacity: number = INPUTS_MEMORY_SIZE) {
    this.capacity = capacity;
  }

  private static id(key: JobSetKey): string {
    return `${key.cluster}/${key.namespace}/${key.name}`;
  }

  /** recall: the snapshot kept for `key` under `token`, if this process holds that one. */
  recall(key: JobSetKey, token: string | undefined): RecalledSnapshot | undefined {
    if (token === undefined) return undefined;
    const kept = this.snapshots.get(InputsMemory.id(key));
    return kept?.token === token ? { observed: kept.observed, wakeAt: kept.wakeAt, settled: kept.settled } : undefined;
  }

  /** keep: remember `snapshot` for `key`; the token naming it. */
  keep(key: JobSetKey, snapshot: RecalledSnapshot): string {
    const id = InputsMemory.id(key);
    this.sequence += 1;
    const token = `${this.instance}.${this.sequence}`;
    this.snapshots.delete(id);
    this.snapshots.set(id, { token, ...snapshot });
    if (this.snapshots.size > this.capacity) {
      const oldest = this.snapshots.keys().next().value;
      if (oldest !== undefined) this.snapshots.delete(oldest);
    }
    return token;
  }

  /** forget: drop what is kept for `key`. */
  forget(key: JobSetKey): void {
    this.snapshots.delete(InputsMemory.id(key));
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
 * journalEntryOf: the entry of one pass; its inputs are stored unless they equal those of the
 * JobSet's previous entry, whose digest is `previousDigest` (kept on the state item, so this
 * holds across processes): then inputsKept is `unchanged` and the entry refers to them.
 */
export const journalEntryOf = (pass: PassRecord, previousDigest: string | undefined): JournalEntry => {
  const inputs = inputsOf(pass.observed);
  const digest = inputsDigest(inputs);
  const unchanged = previousDigest === digest;
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
