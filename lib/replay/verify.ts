/**
 * Checking a recording before replaying it, so a replay's verdict is about the planner and not
 * about an edited or broken file. Pure. Every pass's inputs must digest to the inputsDigest it
 * records (the digest the reconciler took over what it stored); a pass that refers to earlier
 * inputs must find them; passes must not go back in time; and every pass's inputs must be the
 * JobSet the recording names. A pass whose inputs were not kept (too large, or expired from the
 * journal) cannot be checked or replayed: that is not a fault of the file, and replay reports it.
 */
import { inputsDigest, unpackInputs } from '../reconcile/journal.ts';
import type { Recording } from './recording.ts';

/** RecordingFault: the first thing wrong with a recording: the 1-based pass and what fails. */
export interface RecordingFault {
  readonly pass: number;
  readonly problem: string;
}

const iso = (epochMs: number): string => new Date(epochMs).toISOString();

/**
 * recordingFault: the first pass (oldest first) whose inputs, reference, time or JobSet do not
 * hold, or undefined when the recording is sound.
 */
export const recordingFault = (recording: Recording): RecordingFault | undefined => {
  const named = `${recording.jobSet.namespace}/${recording.jobSet.name}`;
  for (const [index, pass] of recording.passes.entries()) {
    const number = index + 1;
    const previous = recording.passes[index - 1];
    if (previous !== undefined && pass.at < previous.at) {
      return { pass: number, problem: `its time ${iso(pass.at)} is before pass ${index}'s ${iso(previous.at)}: passes do not go back in time` };
    }
    if (pass.inputsKept === 'unchanged') {
      const holder = recording.passes.slice(0, index).some((earlier) => earlier.inputsDigest === pass.inputsDigest && earlier.inputs !== undefined);
      if (!holder) return { pass: number, problem: `it refers to inputs ${pass.inputsDigest}, which no earlier pass holds` };
      continue;
    }
    if (pass.inputsKept !== 'stored') continue;
    if (pass.inputs === undefined) return { pass: number, problem: 'it says its inputs are stored but holds none' };
    const inputs = unpackInputs(pass.inputs);
    const digest = inputsDigest(inputs);
    if (digest !== pass.inputsDigest) {
      return { pass: number, problem: `its inputs digest to ${digest}, not to the ${pass.inputsDigest} it records: they were changed after the pass` };
    }
    const observed = `${inputs.jobSet.metadata.namespace ?? ''}/${inputs.jobSet.metadata.name ?? ''}`;
    if (observed !== named) return { pass: number, problem: `its inputs are JobSet ${observed}, but the recording names ${named}` };
  }
  return undefined;
};
