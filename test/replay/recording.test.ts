import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { RECORDING_FORMAT, observedOfPass, parseRecording, recordingOf } from '../../lib/replay/recording.ts';
import { inputsDigest, inputsOf } from '../../lib/reconcile/journal.ts';
import { replayRecording } from '../../lib/replay/replay.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { KEY, recordStartup } from './fixtures.ts';

const recorded = async () => {
  const store = new MemoryCheckpointStore();
  await recordStartup(store);
  return { recording: recordingOf(KEY, await store.listJournal(KEY)), entries: await store.listJournal(KEY) };
};

describe('replay/recording: a self-contained recording of one JobSet', () => {
  it('holds the format, the JobSet and every pass with its inputs; JSON text round-trips', async () => {
    const { recording, entries } = await recorded();
    assert.equal(recording.format, 'lineup.dev/recording/v1');
    assert.deepEqual(recording.jobSet, KEY);
    assert.equal(recording.passes.length, entries.length);
    for (const [index, pass] of recording.passes.entries()) {
      assert.equal(pass.at, entries[index]?.at);
      assert.deepEqual(pass.actions, entries[index]?.actions);
      assert.deepEqual(pass.timings, entries[index]?.timings);
      const observed = observedOfPass(recording, index);
      assert.ok(typeof observed !== 'string', String(observed));
      assert.equal(inputsDigest(inputsOf(observed)), pass.inputsDigest, `pass ${index + 1}: the inputs are the recorded ones`);
    }
    assert.deepEqual(parseRecording(JSON.stringify(recording, null, 2), 'rec.json'), recording);
  });

  it('keeps the inputs of an entry stored as a delta whole, so the file needs no journal; a broken chain becomes an expired pass', async () => {
    const { recording, entries } = await recorded();
    assert.ok(entries.some((entry) => entry.inputsKept === 'delta'), 'one process recorded the startup: its later entries are deltas');
    assert.ok(recording.passes.every((pass) => pass.inputsKept === 'stored' || pass.inputsKept === 'unchanged'));
    const broken = entries.findIndex((entry, index) => index > 0 && entry.inputsKept === 'delta' && entries[index - 1]?.inputsKept === 'delta');
    assert.ok(broken > 1, 'two deltas in a row');
    const lost = entries.filter((_, index) => index !== broken - 1);
    const gap = recordingOf(KEY, lost);
    const pass = gap.passes[broken - 1];
    assert.deepEqual([pass?.inputsKept, pass?.inputs], ['expired', undefined]);
    assert.equal(observedOfPass(gap, broken - 1), 'inputs were kept as changes to an entry that had expired from the journal');
    assert.deepEqual(replayRecording(gap).passes[broken - 1], { pass: broken, at: pass?.at, result: 'unreplayable', why: observedOfPass(gap, broken - 1) });
    assert.equal(replayRecording(recording).different, 0);
  });

  it('refuses a truncated file, another format version and a pass whose inputs do not parse, in one line', async () => {
    const { recording } = await recorded();
    const text = JSON.stringify(recording);
    assert.throws(() => parseRecording(text.slice(0, text.length / 2), 'rec.json'), (error: Error) => {
      assert.match(error.message, /^rec\.json: not a recording: its JSON does not parse \(truncated\?\): /);
      assert.ok(!error.message.includes('\n'));
      return true;
    });
    assert.throws(() => parseRecording(JSON.stringify({ ...recording, format: 'lineup.dev/recording/v9' }), 'rec.json'), {
      message: `rec.json: unknown recording format "lineup.dev/recording/v9", expected "${RECORDING_FORMAT}"`,
    });
    assert.throws(() => parseRecording('[]', 'rec.json'), { message: `rec.json: unknown recording format null, expected "${RECORDING_FORMAT}"` });
    const wrongInputs = gzipSync(JSON.stringify({ jobSet: 'x', jobs: [] })).toString('base64');
    const broken = { ...recording, passes: recording.passes.map((pass, index) => (index === 0 ? { ...pass, inputs: wrongInputs } : pass)) };
    assert.throws(() => parseRecording(JSON.stringify(broken), 'rec.json'), /^InvalidInputError: rec\.json: pass 1: recorded inputs do not parse: jobSet: /);
  });
});
