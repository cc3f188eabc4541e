/**
 * A recording: one JobSet's journal as a self-contained JSON file (`lineup export`), readable
 * without the table it came from. Each pass keeps its inputs whole (gzip+base64 JSON: a 500-Job
 * JobSet's inputs are 1.6 MB as plain JSON) — an entry that kept only a delta gets its inputs
 * rebuilt, so the file needs no other — or, when they were unchanged, refers to an earlier pass of
 * the file by digest.
 */
import * as z from 'zod';
import { InvalidInputError } from '../errors.ts';
import { inputsResolver, packInputs, unpackInputs } from '../reconcile/journal.ts';
import type { Observed } from '../plan/types.ts';
import { JournalPassSchema } from '../store/items.ts';
import type { JobSetKey, JournalEntry } from '../store/types.ts';

/** RECORDING_FORMAT: the format field of the recordings this Lineup writes and reads. */
export const RECORDING_FORMAT = 'lineup.dev/recording/v1';

/**
 * How a recorded pass keeps its inputs: `stored` (whole), `unchanged` (the same as an earlier
 * pass's with the same digest), `too-large` (not kept: over the journal item's limit), `expired`
 * (kept as changes to an earlier entry that had expired from the journal when it was exported).
 */
export type RecordedInputsKept = 'stored' | 'unchanged' | 'too-large' | 'expired';

/** One pass of a recording. */
export type RecordedPass = Omit<JournalEntry, 'key' | 'inputsKept'> & { readonly inputsKept: RecordedInputsKept };

/** A recording: the format, the JobSet, and every pass oldest first. */
export interface Recording {
  readonly format: typeof RECORDING_FORMAT;
  readonly jobSet: JobSetKey;
  readonly passes: readonly RecordedPass[];
}

/**
 * recordingOf: a JobSet's journal entries (oldest first) as a recording. A delta entry's inputs
 * are rebuilt and kept whole; one whose chain is broken (an earlier entry expired) is `expired`,
 * which replay reports as unreplayable.
 */
export const recordingOf = (key: JobSetKey, entries: readonly JournalEntry[]): Recording => {
  const resolve = inputsResolver(entries);
  return {
    format: RECORDING_FORMAT,
    jobSet: { cluster: key.cluster, namespace: key.namespace, name: key.name },
    passes: entries.map(({ key: _key, ...rest }, index): RecordedPass => {
      const { inputs: kept, ...withoutInputs } = rest;
      if (rest.inputsKept === 'unchanged') {
        // A reference whose holder expired from the journal cannot be followed in the file either.
        return typeof resolve(index) === 'string' ? { ...withoutInputs, inputsKept: 'expired' } : { ...withoutInputs, inputsKept: 'unchanged' };
      }
      if (rest.inputsKept !== 'delta') return { ...withoutInputs, inputsKept: rest.inputsKept, ...(kept === undefined ? {} : { inputs: kept }) };
      const inputs = resolve(index);
      return typeof inputs === 'string' ? { ...withoutInputs, inputsKept: 'expired' } : { ...withoutInputs, inputsKept: 'stored', inputs: packInputs(inputs) };
    }),
  };
};

/** RecordedPassSchema: a pass in a recording: a journal entry without its key (the recording names the JobSet once). */
const RecordedPassSchema = JournalPassSchema.extend({
  at: z.number(),
  inputsKept: z.enum(['stored', 'unchanged', 'too-large', 'expired']),
  inputs: z.string().optional(),
});

const RecordingSchema = z.object({
  format: z.literal(RECORDING_FORMAT),
  jobSet: z.object({ cluster: z.string(), namespace: z.string(), name: z.string() }),
  passes: z.array(RecordedPassSchema),
});

/**
 * parseRecording: the recording `text` holds, or InvalidInputError in one line: not JSON (a
 * truncated file), another format or version, or a pass that does not parse.
 */
export const parseRecording = (text: string, source: string): Recording => {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`${source}: not a recording: its JSON does not parse (truncated?): ${(error as Error).message}`, { cause: error });
  }
  const format = typeof raw === 'object' && raw !== null && 'format' in raw ? raw.format : undefined;
  if (format !== RECORDING_FORMAT) {
    throw new InvalidInputError(`${source}: unknown recording format ${JSON.stringify(format ?? null)}, expected ${JSON.stringify(RECORDING_FORMAT)}`);
  }
  const parsed = RecordingSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidInputError(`${source}: not a recording: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unknown problem'}`);
  }
  const passes = parsed.data.passes.map((pass, index): RecordedPass => {
    const { inputs, ...rest } = pass;
    if (inputs === undefined) return rest;
    try {
      unpackInputs(inputs);
      return { ...rest, inputs };
    } catch (error) {
      throw new InvalidInputError(`${source}: pass ${index + 1}: ${(error as Error).message}`, { cause: error });
    }
  });
  return { format: RECORDING_FORMAT, jobSet: parsed.data.jobSet, passes };
};

/**
 * observedOfPass: the planner inputs of pass `index` — its own, or for `unchanged` those of the
 * latest earlier pass with the same digest — at the pass's time, or a string saying why not.
 */
export const observedOfPass = (recording: Recording, index: number): Observed | string => {
  const pass = recording.passes[index];
  if (pass === undefined) return `no pass ${index + 1}`;
  if (pass.inputsKept === 'too-large') return 'inputs were too large to keep';
  if (pass.inputsKept === 'expired') return 'inputs were kept as changes to an entry that had expired from the journal';
  const source = pass.inputs !== undefined ? pass : recording.passes.slice(0, index).findLast((earlier) => earlier.inputsDigest === pass.inputsDigest && earlier.inputs !== undefined);
  if (source?.inputs === undefined) return `inputs ${pass.inputsDigest} are referenced but no earlier pass holds them`;
  return { ...unpackInputs(source.inputs), now: pass.at };
};
