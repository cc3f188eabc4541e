/** Matching recorded and replayed actions by what they act on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffActions, differenceLines, identityOf, leafDifferences } from '../../lib/replay/actionDiff.ts';

const action = (kind: string, target: string, extra: Partial<{ code: string; message: string; digest: string }> = {}) => ({ kind, target, code: 'GateOpened', message: 'm', digest: `${kind}-${target}`, ...extra });

describe('diffActions', () => {
  it('finds nothing when both sides do the same things, whatever the order', () => {
    const a = [action('CreateJob', 'js-a-0'), action('ResumeJob', 'js-b-0'), action('UpdateJobSetStatus', '')];
    assert.deepEqual(diffActions(a, [...a].reverse()), []);
  });

  it('an extra action is one difference, not a shift of every later one', () => {
    const recorded = [action('ResumeJob', 'js-b-0'), action('UpdateJobSetStatus', ''), action('EmitEvent', 'Started')];
    const extra = action('ResumeJob', 'js-c-0');
    const replayed = [recorded[0], extra, recorded[1], recorded[2]].filter((value) => value !== undefined);
    assert.deepEqual(diffActions(recorded, replayed), [{ kind: 'only-replayed', action: extra }]);
    assert.deepEqual(diffActions(replayed, recorded), [{ kind: 'only-recorded', action: extra }]);
  });

  it('the same action done differently lists the fields that differ; several of one identity pair in order', () => {
    const recorded = [action('EmitEvent', 'Started', { message: 'one' }), action('EmitEvent', 'Started', { message: 'two' })];
    const replayed = [action('EmitEvent', 'Started', { message: 'one' }), action('EmitEvent', 'Started', { message: 'three', digest: 'x' })];
    assert.deepEqual(diffActions(recorded, replayed), [{ kind: 'changed', recorded: recorded[1], replayed: replayed[1], fields: ['message', 'digest'] }]);
    assert.equal(identityOf(action('UpdateJobSetStatus', '')), 'UpdateJobSetStatus');
  });
});

describe('leafDifferences and differenceLines', () => {
  it('walks only what the replay writes: fields the API server added are no difference', () => {
    const stored = { metadata: { name: 'j', uid: 'u-1' }, spec: { suspend: true, template: { spec: { nodeSelector: { pool: 'a' } } } }, status: {} };
    const written = { metadata: { name: 'j' }, spec: { suspend: false, template: { spec: { nodeSelector: { pool: 'b' } } } } };
    assert.deepEqual(leafDifferences(stored, written), [
      { path: 'spec.suspend', recorded: 'true', replayed: 'false' },
      { path: 'spec.template.spec.nodeSelector.pool', recorded: '"a"', replayed: '"b"' },
    ]);
  });

  it('words each kind of difference with the action it names', () => {
    const resume = action('ResumeJob', 'js-w-0', { message: 'early' });
    assert.deepEqual(differenceLines({ kind: 'only-replayed', action: resume, recordedAtPass: 4 }, 2), ['ResumeJob js-w-0: replayed at pass 2, recorded at pass 4 (GateOpened: early)']);
    assert.deepEqual(differenceLines({ kind: 'only-recorded', action: resume }, 2), ['ResumeJob js-w-0: only in the recording (GateOpened: early)']);
    assert.deepEqual(
      differenceLines({ kind: 'changed', recorded: action('CreateJob', 'js-a-0'), replayed: action('CreateJob', 'js-a-0', { digest: 'y' }), fields: ['digest'], paths: [{ path: 'spec.suspend', recorded: 'true', replayed: 'false' }] }, 1),
      ['CreateJob js-a-0: what it writes differs:', '  spec.suspend: recorded true, replayed false'],
    );
  });
});
