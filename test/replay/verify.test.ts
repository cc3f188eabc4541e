/** Checking a recording before replaying it: each way it can be edited after the fact is named by its pass. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordingOf } from '../../lib/replay/recording.ts';
import { recordingFault } from '../../lib/replay/verify.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { KEY, recordStartup, tamperings } from './fixtures.ts';

const recorded = async () => {
  const store = new MemoryCheckpointStore();
  await recordStartup(store);
  return recordingOf(KEY, await store.listJournal(KEY));
};

describe('recordingFault', () => {
  it('finds nothing wrong with a recording as it was made', async () => {
    assert.equal(recordingFault(await recorded()), undefined);
  });

  it('names the pass and what fails for each tampering', async () => {
    const expected: Record<string, RegExp> = {
      'another pass inputs': /^its inputs digest to [0-9a-f]+, not to the [0-9a-f]+ it records: they were changed after the pass$/,
      'a Job status edited': /^its inputs digest to [0-9a-f]+, not to the [0-9a-f]+ it records: they were changed after the pass$/,
      'a dangling reference': /^it refers to inputs feedfacefeedface, which no earlier pass holds$/,
      'a pass before the first': /^its time \S+ is before pass \d+'s \S+: passes do not go back in time$/,
      'a renamed JobSet': /^its inputs are JobSet default\/messagequeue-driver-worker, but the recording names default\/messagequeue-driver-worker-renamed$/,
    };
    const cases = tamperings(await recorded());
    assert.deepEqual(cases.map((tampering) => tampering.name).sort(), Object.keys(expected).sort());
    for (const tampering of cases) {
      const fault = recordingFault(tampering.recording);
      assert.equal(fault?.pass, tampering.pass, tampering.name);
      assert.match(fault?.problem ?? '', expected[tampering.name] ?? /^$/, tampering.name);
    }
  });

  it('lets passes whose inputs were not kept through: they are unreplayable, not tampered', async () => {
    const recording = await recorded();
    const cut = { ...recording, passes: recording.passes.map((pass, index) => (index === 1 ? { ...pass, inputsKept: 'too-large' as const, inputs: undefined } : index === 2 ? { ...pass, inputsKept: 'expired' as const, inputs: undefined } : pass)) };
    assert.equal(recordingFault(cut), undefined);
  });
});
