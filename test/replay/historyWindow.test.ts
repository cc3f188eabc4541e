import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newestPasses } from '../../lib/replay/historyWindow.ts';
import { observedOfPass, recordingOf, type Recording } from '../../lib/replay/recording.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { KEY, recordStartup } from './fixtures.ts';

const recorded = async (): Promise<Recording> => {
  const store = new MemoryCheckpointStore();
  await recordStartup(store);
  return recordingOf(KEY, await store.listJournal(KEY));
};

describe('replay/historyWindow: the newest passes of a recording, for history --limit --output html', () => {
  it('keeps the newest N passes; all of them when N covers the recording', async () => {
    const recording = await recorded();
    const total = recording.passes.length;
    assert.deepEqual(newestPasses(recording, 2).passes, recording.passes.slice(total - 2));
    assert.equal(newestPasses(recording, total), recording);
    assert.equal(newestPasses(recording, total + 5), recording);
  });

  it('a kept pass that refers to inputs only a left-out pass holds gets them inline', async () => {
    // Prepare: pass 2 again, a minute later, with the same inputs referred to by digest.
    const recording = await recorded();
    const [first, second] = recording.passes;
    assert.ok(first && second && second.inputs !== undefined);
    const { inputs: _inputs, ...reference } = second;
    const withReference: Recording = { ...recording, passes: [first, second, { ...reference, at: second.at + 60_000, inputsKept: 'unchanged' }] };
    // Act
    const window = newestPasses(withReference, 1);
    // Assess
    assert.equal(window.passes.length, 1);
    assert.equal(window.passes[0]?.inputsKept, 'stored');
    assert.deepEqual(observedOfPass(window, 0), observedOfPass(withReference, 2));
    // Both in the window: the reference stays a reference.
    assert.equal(newestPasses(withReference, 2).passes[1]?.inputs, undefined);
  });
});
