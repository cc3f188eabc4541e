/**
 * Lineup's own writes, told apart by the API server's managedFields: every write Lineup makes
 * carries fieldManager KUBE_FIELD_MANAGER, and for an Update the server records the fields that
 * write changed under that manager, taking them from every other manager. So a field owned by
 * Lineup alone was last changed by Lineup.
 *
 * The forwarder uses it to hold back the echo of a child Job Lineup created or suspended/resumed
 * (no gate waits on it: the pass that wrote it decided with it) until the JobSet's next change,
 * usually the Job controller's reaction, and to send both as one event. Without managedFields
 * (a simulated cluster, an object someone stripped) nothing counts as Lineup's: it goes at once.
 */
import * as z from 'zod';
import { KUBE_FIELD_MANAGER } from '../k8s/fieldManager.ts';

/** ManagedFieldsSchema: the part of metadata.managedFields read here. */
const ManagedFieldsSchema = z.array(
  z.looseObject({
    manager: z.string().optional(),
    operation: z.string().optional(),
    fieldsV1: z.record(z.string(), z.unknown()).optional(),
  }),
);
type ManagedFieldsEntry = z.infer<typeof ManagedFieldsSchema>[number];

/** managedFieldsOf: the object's managedFields, or undefined when it has none or they cannot be read. */
const managedFieldsOf = (metadata: Readonly<Record<string, unknown>>): readonly ManagedFieldsEntry[] | undefined => {
  const parsed = ManagedFieldsSchema.safeParse(metadata.managedFields);
  return parsed.success && parsed.data.length > 0 ? parsed.data : undefined;
};

/** ownsPath: whether an entry's fieldsV1 names the field at `path` (e.g. ['f:spec', 'f:suspend']). */
const ownsPath = (entry: ManagedFieldsEntry, path: readonly string[]): boolean => {
  let node: unknown = entry.fieldsV1;
  for (const step of path) {
    if (node === null || typeof node !== 'object' || !(step in node)) return false;
    node = (node as Record<string, unknown>)[step];
  }
  return true;
};

/** writtenByLineupAlone: every manager recorded for the object is Lineup's: Lineup created it and nobody else wrote it since. */
export const writtenByLineupAlone = (metadata: Readonly<Record<string, unknown>>): boolean => {
  const entries = managedFieldsOf(metadata);
  return entries !== undefined && entries.every((entry) => entry.manager === KUBE_FIELD_MANAGER);
};

/**
 * fieldLastWrittenByLineup: the field at `path` (fieldsV1 keys, e.g. ['f:spec', 'f:suspend']) is
 * owned by Lineup alone. Shared ownership (a server-side apply that set the same value) or no
 * record is not Lineup's.
 */
export const fieldLastWrittenByLineup = (metadata: Readonly<Record<string, unknown>>, path: readonly string[]): boolean => {
  const owners = (managedFieldsOf(metadata) ?? []).filter((entry) => ownsPath(entry, path));
  return owners.length > 0 && owners.every((entry) => entry.manager === KUBE_FIELD_MANAGER);
};

/** SUSPEND_FIELD: a Job's spec.suspend in managedFields' fieldsV1. */
export const SUSPEND_FIELD: readonly string[] = ['f:spec', 'f:suspend'];
