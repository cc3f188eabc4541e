/**
 * How the store's records look as DynamoDB items (document-client form) and back. Reading is
 * validated with zod: an item written by an older Lineup or edited by hand that does not parse is
 * a StoreInvalidError naming the item, never a half-filled record.
 */
import { z } from 'zod';
import { StoreInvalidError } from '../errors.ts';
import { definedOnly } from './rules.ts';
import { Attr, TABLE_KEY } from './table.ts';
import type { ClusterRecord, Decision, JobSetState } from './types.ts';

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
  [Attr.updatedAt]: z.number().optional(),
});

const DecisionItemSchema = z.object({
  [Attr.at]: z.number(),
  [Attr.inputsDigest]: z.string(),
  [Attr.actions]: z.record(z.string(), z.number()),
  [Attr.reason]: z.string(),
  [Attr.applied]: z.boolean(),
  [Attr.replayName]: z.string().optional(),
  [Attr.error]: z.string().optional(),
  [Attr.inputs]: z.string().optional(),
});

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

/** stateFromItem: the JobSet state a state item records; counters default to 0 (an item created by tryAcquireLease alone). */
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
    updatedAt: parsed[Attr.updatedAt] ?? 0,
  };
};

/** decisionAttributes: a decision's own attributes (no keys, no TTL), leaving out what is undefined. */
export const decisionAttributes = (decision: Decision): Item =>
  definedOnly({
    [Attr.at]: decision.at,
    [Attr.inputsDigest]: decision.inputsDigest,
    [Attr.actions]: { ...decision.actions },
    [Attr.reason]: decision.reason,
    [Attr.applied]: decision.applied,
    [Attr.replayName]: decision.replayName,
    [Attr.error]: decision.error,
    [Attr.inputs]: decision.inputs,
  });

/** decisionFromItem: the decision a decision item records, for the JobSet whose partition it was read from. */
export const decisionFromItem = (item: Item, key: Decision['key']): Decision => {
  const parsed = parseItem(DecisionItemSchema, item, 'decision');
  return {
    key,
    at: parsed[Attr.at],
    inputsDigest: parsed[Attr.inputsDigest],
    actions: parsed[Attr.actions],
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
