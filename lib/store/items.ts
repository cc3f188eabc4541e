/**
 * How the store's records look as DynamoDB items (document-client form) and back. Reading is
 * validated with zod: an item written by an older Lineup or edited by hand that does not parse is
 * a StoreInvalidError naming the item, never a half-filled record.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod';
import { StoreInvalidError } from '../errors.ts';
import { definedOnly } from './rules.ts';
import { Attr, TABLE_KEY } from './table.ts';
import type { BookmarkRecord, ClusterRecord, HeldLease, JournalAction, JournalEntry, JobSetState } from './types.ts';

/** Item: an item as the document client reads and writes it. */
export type Item = Record<string, unknown>;

const StateItemSchema = z.object({
  [Attr.cluster]: z.string(),
  [Attr.namespace]: z.string(),
  [Attr.name]: z.string(),
  [Attr.dirty]: z.number().optional(),
  [Attr.reconciled]: z.number().optional(),
  [Attr.leaseOwner]: z.string().optional(),
  [Attr.leaseExpiresAt]: z.number().optional(),
  [Attr.lastError]: z.string().optional(),
  [Attr.wakeAt]: z.number().optional(),
  [Attr.finished]: z.boolean().optional(),
  [Attr.updatedAt]: z.number().optional(),
});

/** JournalEventSchema: a journal entry's triggering event, as the store and recordings keep it. */
export const JournalEventSchema = z.object({
  id: z.string().optional(),
  detailType: z.string(),
  kind: z.enum(['JobSet', 'Job']),
  name: z.string(),
  resourceVersion: z.string(),
  watchType: z.string(),
  time: z.number().optional(),
  replayName: z.string().optional(),
});

/** LoopItemSchema: what a state item carries for the pass loop (HeldLease's pending and checkpoint). */
const LoopItemSchema = z.object({
  [Attr.pending]: z.array(JournalEventSchema).optional(),
  [Attr.pendingDropped]: z.number().optional(),
  [Attr.carried]: z.array(JournalEventSchema).optional(),
  [Attr.known]: z.record(z.string(), z.string()).optional(),
  [Attr.snapshot]: z.string().optional(),
  [Attr.inputsDigest]: z.string().optional(),
  [Attr.dirty]: z.number().optional(),
});

/** JournalTimingsSchema: a journal entry's hop times. */
export const JournalTimingsSchema = z.object({
  seenAt: z.number().optional(),
  eventAt: z.number().optional(),
  receivedAt: z.number().optional(),
  passStartedAt: z.number(),
  writesDoneAt: z.number(),
});

/** JournalActionSchema: one action of a journal entry with its reason. */
export const JournalActionSchema = z.object({ kind: z.string(), target: z.string(), code: z.string(), message: z.string(), digest: z.string() });

/**
 * JournalPlanOptionsSchema: the planner's options a journal entry keeps — which JobSets are
 * Lineup's, and the JobSet bounds when the host set them (replay must reject what the pass
 * rejected, and accept what it accepted under a raised bound).
 */
export const JournalPlanOptionsSchema = z.object({
  controllerName: z.string(),
  claimUnmanaged: z.boolean(),
  limits: z.object({ maxJobs: z.number().int().positive(), maxPods: z.number().int().positive() }).optional(),
});

/**
 * JournalPassSchema: what a journal entry says of its pass, but its time, its inputs and how they
 * were kept — shared by the packed journal item and the recordings `lineup export` writes.
 */
export const JournalPassSchema = z.object({
  plannerVersion: z.string(),
  planOptions: JournalPlanOptionsSchema,
  triggers: z.array(JournalEventSchema),
  timings: JournalTimingsSchema,
  inputsDigest: z.string(),
  actions: z.array(JournalActionSchema),
  actionsOmitted: z.number().optional(),
  reason: z.string(),
  applied: z.boolean(),
  replayName: z.string().optional(),
  error: z.string().optional(),
});

const JournalItemSchema = z.object({
  [Attr.at]: z.number(),
  [Attr.plannerVersion]: z.string(),
  [Attr.planOptions]: JournalPlanOptionsSchema,
  [Attr.triggers]: z.array(JournalEventSchema),
  [Attr.timings]: JournalTimingsSchema,
  [Attr.inputsDigest]: z.string(),
  [Attr.inputsKept]: z.enum(['stored', 'delta', 'unchanged', 'too-large']),
  // gzip+base64 JSON of the actions: hundreds of near-identical CreateJob lines compress well.
  [Attr.actions]: z.string(),
  [Attr.actionsOmitted]: z.number().optional(),
  [Attr.reason]: z.string(),
  [Attr.applied]: z.boolean(),
  [Attr.replayName]: z.string().optional(),
  [Attr.error]: z.string().optional(),
  [Attr.inputs]: z.string().optional(),
});

/** PackedItemSchema: a journal item as written since entries are packed: its time and the rest in one binary. */
const PackedItemSchema = z.object({ [Attr.at]: z.number(), [Attr.packed]: z.instanceof(Uint8Array) });

/** packActions / unpackActions: the actions' stored form in items written before entries were packed (gzip+base64 of their JSON). */
const packActions = (actions: readonly JournalAction[]): string => gzipSync(JSON.stringify(actions)).toString('base64');
const unpackActions = (packed: string, where: string): JournalAction[] => {
  let raw: unknown;
  try {
    raw = JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8'));
  } catch (error) {
    throw new StoreInvalidError(`journal item ${where}: actions are not gzip+base64 JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = z.array(JournalActionSchema).safeParse(raw);
  if (!parsed.success) throw new StoreInvalidError(`journal item ${where}: actions do not parse: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`);
  return parsed.data;
};

const ClusterAuthSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('eks'), clusterName: z.string(), region: z.string(), roleArn: z.string().optional() }),
  z.object({ type: z.literal('token'), tokenSecretArn: z.string().optional(), token: z.string().optional() }),
  z.object({ type: z.literal('kubeconfig'), path: z.string(), context: z.string().optional() }),
]);

const ClusterItemSchema = z.object({
  [Attr.id]: z.string(),
  [Attr.endpoint]: z.string(),
  [Attr.caData]: z.string().optional(),
  [Attr.auth]: ClusterAuthSchema,
});

/** parseItem: the item parsed by `schema`, or a StoreInvalidError naming the item's key and the first problem. */
const parseItem = <T>(schema: z.ZodType<T>, item: Item, what: string): T => {
  const parsed = schema.safeParse(item);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = `${String(item[TABLE_KEY.partitionKey])} ${String(item[TABLE_KEY.sortKey])}`;
  throw new StoreInvalidError(
    `${what} item ${where} does not parse: ${issue === undefined ? 'unknown problem' : `${issue.path.join('.') || '(item)'}: ${issue.message}`}`,
    { cause: parsed.error },
  );
};

/** stateFromItem: the JobSet state a state item records; counters default to 0 (an item created by a lease take alone). */
export const stateFromItem = (item: Item): JobSetState => {
  const parsed = parseItem(StateItemSchema, item, 'jobset state');
  const owner = parsed[Attr.leaseOwner];
  const expiresAt = parsed[Attr.leaseExpiresAt];
  return {
    key: { cluster: parsed[Attr.cluster], namespace: parsed[Attr.namespace], name: parsed[Attr.name] },
    dirty: parsed[Attr.dirty] ?? 0,
    reconciled: parsed[Attr.reconciled] ?? 0,
    ...(owner !== undefined && expiresAt !== undefined ? { lease: { owner, expiresAt } } : {}),
    ...(parsed[Attr.lastError] !== undefined ? { lastError: parsed[Attr.lastError] } : {}),
    ...(parsed[Attr.wakeAt] !== undefined ? { wakeAt: parsed[Attr.wakeAt] } : {}),
    ...(parsed[Attr.finished] === true ? { finished: true } : {}),
    updatedAt: parsed[Attr.updatedAt] ?? 0,
  };
};

/**
 * heldLeaseFromItem: the lease `owner` holds until `expiresAt` as a state item's full image shows
 * it, with the item's pending triggers and loop checkpoint (dirty counts from 0 on an item created
 * by a lease write alone).
 */
export const heldLeaseFromItem = (item: Item, owner: string, expiresAt: number): HeldLease => {
  const parsed = parseItem(LoopItemSchema, item, 'jobset state');
  const known = parsed[Attr.known];
  const snapshot = parsed[Attr.snapshot];
  const inputsDigest = parsed[Attr.inputsDigest];
  return {
    owner,
    expiresAt,
    dirty: parsed[Attr.dirty] ?? 0,
    pending: (parsed[Attr.pending] ?? []).map((trigger) => definedOnly(trigger)),
    ...((parsed[Attr.pendingDropped] ?? 0) > 0 ? { pendingDropped: parsed[Attr.pendingDropped] } : {}),
    carried: (parsed[Attr.carried] ?? []).map((trigger) => definedOnly(trigger)),
    checkpoint: {
      ...(known !== undefined ? { known } : {}),
      ...(snapshot !== undefined ? { snapshot } : {}),
      ...(inputsDigest !== undefined ? { inputsDigest } : {}),
    },
  };
};

/**
 * PackedJournalSchema: what a journal item's `packed` attribute holds — the entry but its key and
 * time, with its actions and its inputs as plain JSON (they were gzip+base64 attributes of their
 * own: compressing them together with the rest, once, and storing binary instead of base64 takes a
 * story-2 entry from about 1.5 KB, 2 write units, to under 1 KB, one).
 */
const PackedJournalSchema = JournalPassSchema.extend({
  inputsKept: z.enum(['stored', 'delta', 'unchanged', 'too-large']),
  /** The inputs' (or their delta's) JSON text: JournalEntry.inputs without its gzip+base64. */
  inputsJson: z.string().optional(),
  /** JournalEntry.inputs as given, when it is not gzip+base64 JSON. */
  inputs: z.string().optional(),
});

/** packJournal: an entry's `packed` attribute (gzip of its JSON, binary). */
const packJournal = (entry: JournalEntry): Uint8Array => {
  const { key: _key, at: _at, inputs, ...rest } = entry;
  const packed = {
    ...definedOnly(rest),
    triggers: entry.triggers.map((trigger) => definedOnly({ ...trigger })),
    timings: definedOnly({ ...entry.timings }),
    ...(inputs === undefined ? {} : inputsForPacking(inputs)),
  };
  return new Uint8Array(gzipSync(JSON.stringify(packed)));
};

/**
 * inputsForPacking: the inputs as their JSON text when they are gzip+base64 of it that reads back
 * exactly (what the journal writes), so they compress with the rest; any other string as it is.
 */
const inputsForPacking = (inputs: string): { inputsJson: string } | { inputs: string } => {
  try {
    const text = gunzipSync(Buffer.from(inputs, 'base64')).toString('utf8');
    if (gzipSync(text).toString('base64') === inputs) return { inputsJson: text };
  } catch {
    // Not gzip+base64: kept as the string it is, below.
  }
  return { inputs };
};

/** unpackJournal: the entry a `packed` attribute holds (StoreInvalidError naming the item when it does not parse). */
const unpackJournal = (packed: Uint8Array, where: string): z.infer<typeof PackedJournalSchema> => {
  let raw: unknown;
  try {
    raw = JSON.parse(gunzipSync(packed).toString('utf8'));
  } catch (error) {
    throw new StoreInvalidError(`journal item ${where}: packed is not gzip'd JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = PackedJournalSchema.safeParse(raw);
  if (!parsed.success) throw new StoreInvalidError(`journal item ${where}: packed does not parse: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`);
  return parsed.data;
};

/** journalAttributes: an entry's own attributes as stored (no keys, no TTL): its time and the rest packed. */
export const journalAttributes = (entry: JournalEntry): Item => ({ [Attr.at]: entry.at, [Attr.packed]: packJournal(entry) });

/**
 * journalItemChars: the size of an entry's stored attributes as DynamoDB counts an item (names
 * plus values: a number about 8 bytes, a binary its length).
 */
export const journalItemChars = (entry: JournalEntry): number => Attr.at.length + 8 + Attr.packed.length + packJournal(entry).byteLength;

/** legacyJournalAttributes: the attributes journal items had before they were packed (still read, for items written then; tests write them). */
export const legacyJournalAttributes = (entry: JournalEntry): Item =>
  definedOnly({
    [Attr.at]: entry.at,
    [Attr.plannerVersion]: entry.plannerVersion,
    [Attr.planOptions]: { controllerName: entry.planOptions.controllerName, claimUnmanaged: entry.planOptions.claimUnmanaged },
    [Attr.triggers]: entry.triggers.map((trigger) => definedOnly({ ...trigger })),
    [Attr.timings]: definedOnly({ ...entry.timings }),
    [Attr.inputsDigest]: entry.inputsDigest,
    [Attr.inputsKept]: entry.inputsKept,
    [Attr.actions]: packActions(entry.actions),
    [Attr.actionsOmitted]: entry.actionsOmitted,
    [Attr.reason]: entry.reason,
    [Attr.applied]: entry.applied,
    [Attr.replayName]: entry.replayName,
    [Attr.error]: entry.error,
    [Attr.inputs]: entry.inputs,
  });

/** journalEntryFromItem: the entry a journal item records, for the JobSet whose partition it was read from. */
export const journalEntryFromItem = (item: Item, key: JournalEntry['key']): JournalEntry => {
  const where = `${String(item[TABLE_KEY.partitionKey])} ${String(item[TABLE_KEY.sortKey])}`;
  if (item[Attr.packed] !== undefined) {
    const parsed = parseItem(PackedItemSchema, item, 'journal');
    const { inputsJson, inputs, ...rest } = unpackJournal(parsed[Attr.packed], where);
    return {
      key,
      at: parsed[Attr.at],
      ...definedOnly(rest),
      triggers: rest.triggers.map((trigger) => definedOnly(trigger)),
      timings: definedOnly(rest.timings),
      ...(inputsJson === undefined ? {} : { inputs: gzipSync(inputsJson).toString('base64') }),
      ...(inputs === undefined ? {} : { inputs }),
    };
  }
  const parsed = parseItem(JournalItemSchema, item, 'journal');
  return {
    key,
    at: parsed[Attr.at],
    plannerVersion: parsed[Attr.plannerVersion],
    planOptions: parsed[Attr.planOptions],
    triggers: parsed[Attr.triggers].map((trigger) => definedOnly(trigger)),
    timings: definedOnly(parsed[Attr.timings]),
    inputsDigest: parsed[Attr.inputsDigest],
    inputsKept: parsed[Attr.inputsKept],
    actions: unpackActions(parsed[Attr.actions], where),
    ...(parsed[Attr.actionsOmitted] !== undefined ? { actionsOmitted: parsed[Attr.actionsOmitted] } : {}),
    reason: parsed[Attr.reason],
    applied: parsed[Attr.applied],
    ...(parsed[Attr.replayName] !== undefined ? { replayName: parsed[Attr.replayName] } : {}),
    ...(parsed[Attr.error] !== undefined ? { error: parsed[Attr.error] } : {}),
    ...(parsed[Attr.inputs] !== undefined ? { inputs: parsed[Attr.inputs] } : {}),
  };
};

/** clusterAttributes: a registry record's attributes, leaving out what is undefined (also inside auth). */
export const clusterAttributes = (record: ClusterRecord): Item =>
  definedOnly({
    [Attr.id]: record.id,
    [Attr.endpoint]: record.endpoint,
    [Attr.caData]: record.caData,
    [Attr.auth]: definedOnly({ ...record.auth }),
  });

/** clusterFromItem: the registry record a registry item holds. */
export const clusterFromItem = (item: Item): ClusterRecord => {
  const parsed = parseItem(ClusterItemSchema, item, 'cluster registry');
  return {
    id: parsed[Attr.id],
    endpoint: parsed[Attr.endpoint],
    ...(parsed[Attr.caData] !== undefined ? { caData: parsed[Attr.caData] } : {}),
    auth: definedOnly(parsed[Attr.auth]),
  };
};

const BookmarkItemSchema = z.object({
  [TABLE_KEY.sortKey]: z.string(),
  [Attr.resourceVersion]: z.string(),
  [Attr.updatedAt]: z.number().optional(),
});

/** bookmarkFromItem: the bookmark a bookmark item holds; `resource` is its sort key after `prefix` (one written without a time reads as time 0). */
export const bookmarkFromItem = (item: Item, prefix: string): BookmarkRecord => {
  const parsed = parseItem(BookmarkItemSchema, item, 'bookmark');
  return { resource: parsed[TABLE_KEY.sortKey].slice(prefix.length), resourceVersion: parsed[Attr.resourceVersion], updatedAt: parsed[Attr.updatedAt] ?? 0 };
};
