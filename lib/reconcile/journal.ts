/**
 * The journal entry of one reconcile pass: the events that triggered it,
 * when each hop happened, the planner inputs (compressed: whole in a keyframe, else only the
 * objects that changed since the JobSet's previous entry, or a reference by digest when nothing
 * did), the planner version, and every action with its reason. Also the way back: a
 * recorded entry's inputs as the planner's Observed, rebuilt from its keyframe forward.
 *
 * The inputs are kept without the tenant data no decision reads (./redact.ts: containers'
 * environment values, kubectl's last-applied annotation) unless the host opts in (keepEnv), and
 * each action's digest is taken over its redacted form either way, so a replay of redacted
 * inputs decides exactly what was recorded (docs/security.md).
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod';
import { InvalidInputError } from '../errors.ts';
import { isObject } from '../json.ts';
import { JobSchema, JobSetSchema, ServiceSchema, type Job, type JobSet, type Service } from '../jobset/schema.ts';
import type { Action, Observed, Plan, PlanOptions } from '../plan/types.ts';
import { plannerVersion } from '../plannerVersion.ts';
import { MAX_JOURNAL_ITEM_CHARS } from '../store/rules.ts';
import { journalItemChars } from '../store/items.ts';
import { redactTenantData } from './redact.ts';
import type { InputsKept, JobSetKey, JournalAction, JournalEntry, JournalEvent, JournalTimings } from '../store/types.ts';

/** Hex characters kept of an inputs digest. */
const INPUTS_DIGEST_CHARS = 16;
/** Hex characters kept of an action digest. */
const ACTION_DIGEST_CHARS = 12;
/**
 * A JobSet's entries store their inputs whole at least every this many entries: the
 * rebuilding of an entry's inputs walks back at most this far, and a lost or expired entry leaves
 * at most this many unreadable.
 */
export const KEYFRAME_INTERVAL = 8;

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

/**
 * journalInputsOf: the inputs a journal entry keeps of what the planner saw — without the tenant
 * data no decision reads (./redact.ts: containers' environment values) unless `keepEnv`. The
 * entry's inputsDigest is taken over them, so it is the digest of what the entry stores.
 */
export const journalInputsOf = (observed: Observed, keepEnv = false): RecordedInputs =>
  keepEnv ? inputsOf(observed) : redactTenantData(inputsOf(observed));

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

/** The digest of each object of one entry's inputs: what a delta after it compares with. */
export interface ObjectDigests {
  readonly jobSet: string;
  readonly service: string | undefined;
  /** Job name to digest, in the inputs' order. */
  readonly jobs: ReadonlyMap<string, string>;
}

/**
 * EntryChain: what writing a delta after an entry needs: its inputs digest, its inputs (to diff
 * each changed object with: references to what the pass observed, not copies), its objects'
 * digests, and how many entries follow its keyframe.
 */
export interface EntryChain {
  readonly inputsDigest: string;
  readonly inputs: RecordedInputs;
  readonly objects: ObjectDigests;
  /** 0 for a keyframe. */
  readonly sinceKeyframe: number;
}

/**
 * How one object changed: a JSON merge patch (RFC 7386) to the base's object, or the object
 * whole (a new one, or a change a merge patch cannot say: a value set to null).
 */
const ObjectChangeSchema = z.union([z.strictObject({ patch: z.unknown() }), z.strictObject({ whole: z.unknown() })]);
const JobChangeSchema = z.union([z.strictObject({ name: z.string(), patch: z.unknown() }), z.strictObject({ name: z.string(), whole: z.unknown() })]);
export type ObjectChange = z.infer<typeof ObjectChangeSchema>;

/** InputsDelta: what a `delta` entry stores: how the objects changed since the entry whose inputs digest is `base`. */
const InputsDeltaSchema = z.strictObject({
  base: z.string(),
  jobSet: ObjectChangeSchema.optional(),
  /** Jobs new or changed, in the inputs' order. */
  jobs: z.array(JobChangeSchema).optional(),
  /** Names of the Jobs gone. */
  gone: z.array(z.string()).optional(),
  /** null when the Service is gone. */
  service: ObjectChangeSchema.nullable().optional(),
  /** Every Job's name in the inputs' order, only when it is not the base's order with the gone left out and the new appended. */
  order: z.array(z.string()).optional(),
});
export type InputsDelta = z.infer<typeof InputsDeltaSchema>;

const objectDigest = (value: unknown): string => sha256(canonicalJson(value)).slice(0, INPUTS_DIGEST_CHARS);

/** mergePatchOf: the JSON merge patch (RFC 7386) that makes `after` of `before`: changed members only, null for those removed. */
export const mergePatchOf = (before: unknown, after: unknown): unknown => {
  if (!isObject(before) || !isObject(after)) return after;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (before[key] !== undefined && after[key] === undefined) patch[key] = null;
  for (const [key, value] of Object.entries(after)) {
    if (value === undefined || isDeepStrictEqual(before[key], value)) continue;
    patch[key] = mergePatchOf(before[key], value);
  }
  return patch;
};

/** applyMergePatch: `target` with the JSON merge patch `patch` applied (RFC 7386), `target` left as it was. */
export const applyMergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
};

/**
 * changeOf: how `after` (whose digest is `digest`) differs from `before` (whose digest the previous
 * entry recorded as `beforeDigest`): a merge patch when applying it gives `after` back exactly,
 * else `after` whole — also when `before` is not as that entry recorded it (changed in place since).
 */
const changeOf = (before: unknown, beforeDigest: string | undefined, after: unknown, digest: string): ObjectChange => {
  if (before === undefined || objectDigest(before) !== beforeDigest) return { whole: after };
  const patch = mergePatchOf(before, after);
  return objectDigest(applyMergePatch(before, patch)) === digest ? { patch } : { whole: after };
};

const applyChange = (before: unknown, change: ObjectChange): unknown => ('whole' in change ? change.whole : applyMergePatch(before, change.patch));

/** objectDigestsOf: each object's digest; undefined when the Jobs cannot be told apart by name (then only a keyframe will do). */
export const objectDigestsOf = (inputs: RecordedInputs): ObjectDigests | undefined => {
  const jobs = new Map<string, string>();
  for (const job of inputs.jobs) {
    const name = job.metadata.name;
    if (name === undefined || jobs.has(name)) return undefined;
    jobs.set(name, objectDigest(job));
  }
  return { jobSet: objectDigest(inputs.jobSet), service: inputs.service === undefined ? undefined : objectDigest(inputs.service), jobs };
};

/** expectedOrder: the base's Job names without those gone, then the new ones in the order given. */
const expectedOrder = (baseNames: Iterable<string>, gone: ReadonlySet<string>, changed: readonly string[]): string[] => {
  const names = [...baseNames].filter((name) => !gone.has(name));
  const known = new Set(names);
  return [...names, ...changed.filter((name) => !known.has(name))];
};

/** deltaOf: how the objects of `inputs` (whose digests are `objects`) differ from `previous`'s: those whose digests differ, and the Jobs gone. */
export const deltaOf = (previous: EntryChain, objects: ObjectDigests, inputs: RecordedInputs): InputsDelta => {
  const base = previous.objects;
  const before = new Map(previous.inputs.jobs.map((job) => [job.metadata.name ?? '', job] as const));
  const jobs = inputs.jobs.flatMap((job) => {
    const name = job.metadata.name ?? '';
    const digest = objects.jobs.get(name) ?? '';
    const baseDigest = base.jobs.get(name);
    return baseDigest === digest ? [] : [{ name, ...changeOf(before.get(name), baseDigest, job, digest) }];
  });
  const gone = [...base.jobs.keys()].filter((name) => !objects.jobs.has(name));
  const names = [...objects.jobs.keys()];
  const order = expectedOrder(base.jobs.keys(), new Set(gone), jobs.map((job) => job.name));
  const reordered = order.length !== names.length || order.some((name, index) => name !== names[index]);
  const service = objects.service === base.service ? undefined : inputs.service === undefined ? null : changeOf(previous.inputs.service, base.service, inputs.service, objects.service ?? '');
  return {
    base: previous.inputsDigest,
    ...(objects.jobSet !== base.jobSet ? { jobSet: changeOf(previous.inputs.jobSet, base.jobSet, inputs.jobSet, objects.jobSet) } : {}),
    ...(jobs.length > 0 ? { jobs } : {}),
    ...(gone.length > 0 ? { gone } : {}),
    ...(service !== undefined ? { service } : {}),
    ...(reordered ? { order: names } : {}),
  };
};

/** packDelta: gzip+base64 of a delta's JSON. */
export const packDelta = (delta: InputsDelta): string => gzipSync(JSON.stringify(delta)).toString('base64');

/** unpackDelta: the delta a packed string holds, or InvalidInputError saying why it cannot be read. */
export const unpackDelta = (packed: string): InputsDelta => {
  let raw: unknown;
  try {
    raw = JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8'));
  } catch (error) {
    throw new InvalidInputError(`recorded inputs delta is not gzip+base64 JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = InputsDeltaSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(`recorded inputs delta does not parse: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unknown problem'}`);
  }
  return parsed.data;
};

/** parsedObject: `value` checked against `schema`, or InvalidInputError naming `what` and the first problem. */
const parsedObject = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InvalidInputError(`recorded inputs delta makes ${what} that does not parse: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unknown problem'}`);
};

/**
 * applyDelta: the inputs `delta` makes of `base` (only the changed objects are checked against
 * their schemas: the base's were), or a string naming the Job it lacks; InvalidInputError when a
 * changed object does not parse.
 */
export const applyDelta = (base: RecordedInputs, delta: InputsDelta): RecordedInputs | string => {
  const byName = new Map(base.jobs.map((job) => [job.metadata.name ?? '', job] as const));
  const gone = new Set(delta.gone ?? []);
  for (const name of gone) byName.delete(name);
  const changed = delta.jobs ?? [];
  for (const change of changed) byName.set(change.name, parsedObject(JobSchema, applyChange(byName.get(change.name), change), `job ${change.name}`));
  const order = delta.order ?? expectedOrder(base.jobs.map((job) => job.metadata.name ?? ''), gone, changed.map((change) => change.name));
  const jobs: Job[] = [];
  for (const name of order) {
    const job = byName.get(name);
    if (job === undefined) return `inputs delta on ${delta.base} names job ${JSON.stringify(name)}, which neither it nor its base holds`;
    jobs.push(job);
  }
  const jobSet = delta.jobSet === undefined ? base.jobSet : parsedObject(JobSetSchema, applyChange(base.jobSet, delta.jobSet), 'a jobset');
  const service =
    delta.service === null ? undefined : delta.service === undefined ? base.service : parsedObject(ServiceSchema, applyChange(base.service, delta.service), 'a service');
  return { jobSet, jobs, service };
};

/** What rebuilding an entry's inputs reads of it (a journal entry and a recording's pass both have these). */
export type KeptInputs = Pick<JournalEntry, 'inputsDigest' | 'inputsKept' | 'inputs'>;

/**
 * inputsResolver: the inputs of each of one JobSet's entries (oldest first), by index, or a string
 * saying why they cannot be had: a keyframe's own; for `unchanged`, those of the latest earlier
 * entry with the same digest; for a delta, those of the latest earlier entry with its base digest
 * (so a replayed event's entry in between does not break the chain) with the delta applied and the
 * result checked against the entry's digest. Memoized, so rebuilding every entry walks each once.
 */
export const inputsResolver = (entries: readonly KeptInputs[]): ((index: number) => RecordedInputs | string) => {
  const resolved = new Map<number, RecordedInputs | string>();
  const latestWith = (digest: string, before: number, usable: (entry: KeptInputs) => boolean): number | undefined => {
    for (let earlier = before - 1; earlier >= 0; earlier -= 1) {
      const candidate = entries[earlier];
      if (candidate?.inputsDigest === digest && usable(candidate)) return earlier;
    }
    return undefined;
  };
  const resolve = (index: number): RecordedInputs | string => {
    const known = resolved.get(index);
    if (known !== undefined) return known;
    const result = rebuild(index);
    resolved.set(index, result);
    return result;
  };
  const rebuild = (index: number): RecordedInputs | string => {
    const entry = entries[index];
    if (entry === undefined) return `no entry ${index}`;
    if (entry.inputsKept === 'too-large') return 'inputs were too large to keep';
    try {
      if (entry.inputs === undefined || entry.inputsKept === 'unchanged') {
        const source = latestWith(entry.inputsDigest, index, (candidate) => candidate.inputs !== undefined && candidate.inputsKept !== 'unchanged');
        return source === undefined ? `inputs ${entry.inputsDigest} are referenced but no earlier entry stores them (expired?)` : resolve(source);
      }
      if (entry.inputsKept === 'stored') return unpackInputs(entry.inputs);
      const delta = unpackDelta(entry.inputs);
      const source = latestWith(delta.base, index, () => true);
      if (source === undefined) return `inputs ${entry.inputsDigest} are stored as changes to inputs ${delta.base}, but no earlier entry holds those (expired?)`;
      const base = resolve(source);
      if (typeof base === 'string') return base;
      const inputs = applyDelta(base, delta);
      if (typeof inputs === 'string') return inputs;
      const digest = inputsDigest(inputs);
      return digest === entry.inputsDigest ? inputs : `inputs ${entry.inputsDigest} rebuilt from their changes to ${delta.base} digest to ${digest}`;
    } catch (error) {
      return (error as Error).message;
    }
  };
  return resolve;
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

/**
 * actionDigest: the digest of an action without the tenant data no decision reads (./redact.ts),
 * whether or not its entry keeps that data: a replay of inputs without it (the planner copies
 * the pod template as it finds it) digests the same. Any other field changed shows.
 */
export const actionDigest = (action: Action): string => sha256(canonicalJson(redactTenantData(action))).slice(0, ACTION_DIGEST_CHARS);

/** wholeActionDigest: the digest of the whole action, as entries written before environment values were redacted took it. */
export const wholeActionDigest = (action: Action): string => sha256(canonicalJson(action)).slice(0, ACTION_DIGEST_CHARS);

/** journalActionsOf: every action of a plan with its reason and its actionDigest. */
export const journalActionsOf = (plan: Plan): JournalAction[] =>
  plan.actions.map((action, index) => {
    const reason = plan.reasons[index];
    return {
      kind: action.kind,
      target: targetOf(action),
      code: reason?.code ?? 'Unexplained',
      message: reason?.message ?? '',
      digest: actionDigest(action),
    };
  });

/**
 * EntryChains: where journalEntryOf finds the entry a delta may build on and leaves the one it
 * builds (./inputsMemory.ts InputsMemory keeps them per process).
 */
export interface EntryChains {
  /** chainAfter: what this process knows of the JobSet's entry whose inputs digest is `previousDigest`; undefined when it did not write it. */
  chainAfter(key: JobSetKey, previousDigest: string | undefined): EntryChain | undefined;
  /** stage: the chain `entry` starts once it is written (undefined: the next entry must be a keyframe). */
  stage(entry: JournalEntry, chain: EntryChain | undefined): void;
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
  /** Keep the containers' environment values in the inputs (journalInputsOf); default: redacted. */
  readonly keepEnv?: boolean | undefined;
}

/**
 * journalEntryOf: the entry of one pass. Its inputs are kept as a reference when they equal those
 * of the JobSet's previous entry, whose digest is `previousDigest` (kept on the state item, so
 * this holds across processes); as a delta against that entry when `memory` holds its objects'
 * digests (this process wrote it) and fewer than KEYFRAME_INTERVAL entries follow its keyframe;
 * else whole (a keyframe). Staged in `memory`: once written (./inputsMemory.ts InputsMemory.entryWritten), the next
 * entry may build on it.
 */
export const journalEntryOf = (pass: PassRecord, previousDigest: string | undefined, memory?: EntryChains): JournalEntry => {
  const inputs = journalInputsOf(pass.observed, pass.keepEnv === true);
  const digest = inputsDigest(inputs);
  const previous = memory?.chainAfter(pass.key, previousDigest);
  // Without a memory every entry is a keyframe (a replayed event's): no digests needed.
  const objects = memory === undefined ? undefined : objectDigestsOf(inputs);
  let kept: InputsKept;
  let packed: string | undefined;
  let chain: EntryChain | undefined;
  if (previousDigest === digest) {
    kept = 'unchanged';
    chain = previous === undefined ? undefined : { ...previous, sinceKeyframe: previous.sinceKeyframe + 1 };
  } else if (previous !== undefined && objects !== undefined && previous.sinceKeyframe + 1 < KEYFRAME_INTERVAL) {
    kept = 'delta';
    packed = packDelta(deltaOf(previous, objects, inputs));
    chain = { inputsDigest: digest, inputs, objects, sinceKeyframe: previous.sinceKeyframe + 1 };
  } else {
    kept = 'stored';
    packed = packInputs(inputs);
    chain = objects === undefined ? undefined : { inputsDigest: digest, inputs, objects, sinceKeyframe: 0 };
  }
  const entry: JournalEntry = {
    key: pass.key,
    at: pass.observed.now,
    plannerVersion: plannerVersion(),
    planOptions: {
      controllerName: pass.planOptions.controllerName,
      claimUnmanaged: pass.planOptions.claimUnmanaged,
      ...(pass.planOptions.limits === undefined ? {} : { limits: { maxJobs: pass.planOptions.limits.maxJobs, maxPods: pass.planOptions.limits.maxPods } }),
    },
    triggers: pass.triggers,
    timings: pass.timings,
    inputsDigest: digest,
    inputsKept: kept,
    ...(packed === undefined ? {} : { inputs: packed }),
    actions: journalActionsOf(pass.plan),
    reason: pass.plan.reason,
    applied: pass.applied,
    ...(pass.replayName !== undefined ? { replayName: pass.replayName } : {}),
    ...(pass.error !== undefined ? { error: pass.error } : {}),
  };
  // The store keeps an entry over the item limit without its inputs: nothing can build on it.
  memory?.stage(entry, journalItemChars(entry) > MAX_JOURNAL_ITEM_CHARS ? undefined : chain);
  return entry;
};

/**
 * observedOfEntry: the planner inputs of `entries[index]` (entries of one JobSet, oldest first),
 * rebuilt from its keyframe forward (inputsResolver), with the entry's time as now; a string
 * saying why not when they cannot be had.
 */
export const observedOfEntry = (entries: readonly JournalEntry[], index: number): Observed | string => {
  const entry = entries[index];
  if (entry === undefined) return `no entry ${index}`;
  const inputs = inputsResolver(entries)(index);
  return typeof inputs === 'string' ? inputs : { ...inputs, now: entry.at };
};
