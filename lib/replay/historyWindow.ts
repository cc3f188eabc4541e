/**
 * The newest passes of a recording, for `lineup history --limit N --output html`, which draws a
 * recording: the text and JSON show the newest N passes, so the drawing does too.
 */
import { packInputs } from '../reconcile/journal.ts';
import { observedOfPass, type RecordedPass, type Recording } from './recording.ts';

/**
 * newestPasses: `recording` with only its newest `limit` passes. A pass that refers by digest to
 * inputs only a left-out pass holds gets them inline, so every pass kept draws from its own inputs
 * as it would in the whole recording.
 */
export const newestPasses = (recording: Recording, limit: number): Recording => {
  const from = Math.max(0, recording.passes.length - limit);
  if (from === 0) return recording;
  const passes = recording.passes.slice(from).map((pass, offset): RecordedPass => {
    if (pass.inputs !== undefined || pass.inputsKept !== 'unchanged') return pass;
    const index = from + offset;
    const keptInWindow = recording.passes.slice(from, index).some((earlier) => earlier.inputsDigest === pass.inputsDigest && earlier.inputs !== undefined);
    if (keptInWindow) return pass;
    const observed = observedOfPass(recording, index);
    if (typeof observed === 'string') return pass;
    return { ...pass, inputsKept: 'stored', inputs: packInputs({ jobSet: observed.jobSet, jobs: observed.jobs, service: observed.service }) };
  });
  return { ...recording, passes };
};
