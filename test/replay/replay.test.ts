import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plannerVersion } from '../../lib/plannerVersion.ts';
import { recordingOf } from '../../lib/replay/recording.ts';
import { differenceLines } from '../../lib/replay/actionDiff.ts';
import { actionDifferences, replayRecording } from '../../lib/replay/replay.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { KEY, NAME, oneWorkerEarly, recordStartup, workersAtOnce } from './fixtures.ts';

const recorded = async () => {
  const store = new MemoryCheckpointStore();
  await recordStartup(store);
  return recordingOf(KEY, await store.listJournal(KEY));
};

describe('replay: the planner over recorded passes', () => {
  it("today's planner decides every recorded pass of a startup the same", async () => {
    const recording = await recorded();
    const report = replayRecording(recording);
    assert.ok(recording.passes.length >= 4, `${recording.passes.length} passes`);
    assert.deepEqual(report.passes.map((outcome) => outcome.result), recording.passes.map(() => 'same'));
    assert.deepEqual([report.same, report.different, report.unreplayable], [recording.passes.length, 0, 0]);
    assert.equal(report.plannerVersion, plannerVersion());
    assert.deepEqual(report.recordedPlannerVersions, [plannerVersion()]);
  });

  it('a planner differing in one rule is reported on exactly the passes that rule changes, each action by the Job it creates, with the field that differs', async () => {
    const recording = await recorded();
    // The rule only changes passes that created a worker held back by its gate.
    const expected = recording.passes.flatMap((pass, index) =>
      pass.actions.some((action) => action.kind === 'CreateJob' && action.target.startsWith(`${NAME}-worker-`) && action.code === 'StartupRuleHeld') ? [index + 1] : [],
    );
    assert.deepEqual(expected, [1], 'story 2 creates its held workers in its first pass');
    const report = replayRecording(recording, { planner: workersAtOnce, plannerVersion: 'variant' });
    assert.deepEqual(report.passes.filter((outcome) => outcome.result === 'different').map((outcome) => outcome.pass), expected);
    const [different] = report.passes.filter((outcome) => outcome.result === 'different');
    assert.ok(different?.result === 'different');
    assert.deepEqual(
      different.differences.map((difference) => (difference.kind === 'changed' ? [difference.recorded.target, difference.fields, difference.paths] : difference.kind)),
      [0, 1].map((index) => [`${NAME}-worker-${index}`, ['code', 'message', 'digest'], [{ path: 'spec.suspend', recorded: 'true', replayed: 'false' }]]),
    );
    assert.equal(report.firstDivergence?.pass, 1);
    assert.deepEqual(report.firstDivergence?.difference, different.differences[0]);
  });

  it('a planner that resumes one extra Job: the diff names that Job and nothing else, and the pass the recording resumed it in', async () => {
    const recording = await recorded();
    const report = replayRecording(recording, { planner: oneWorkerEarly, plannerVersion: 'variant' });
    const different = report.passes.filter((outcome) => outcome.result === 'different');
    assert.equal(different.length, 1, JSON.stringify(report.passes.map((outcome) => outcome.result)));
    const [outcome] = different;
    assert.ok(outcome?.result === 'different');
    const recordedAt = recording.passes.findIndex((pass) => pass.actions.some((action) => action.kind === 'ResumeJob' && action.target === `${NAME}-worker-0`)) + 1;
    assert.ok(recordedAt > outcome.pass, 'the recording resumed the worker later');
    assert.deepEqual(outcome.differences.map((difference) => [difference.kind, difference.kind === 'changed' ? difference.recorded.target : difference.action.target, difference.kind === 'only-replayed' ? difference.recordedAtPass : undefined]), [
      ['only-replayed', `${NAME}-worker-0`, recordedAt],
    ]);
    assert.deepEqual(differenceLines(outcome.differences[0] ?? assert.fail('a difference'), outcome.pass), [
      `ResumeJob ${NAME}-worker-0: replayed at pass ${outcome.pass}, recorded at pass ${recordedAt} (GateOpened: variant: one worker early)`,
    ]);
  });

  it('a pass whose inputs were too large is unreplayable, saying why, and counts as no difference', async () => {
    const recording = await recorded();
    const cut = { ...recording, passes: recording.passes.map((pass, index) => (index === 0 ? { ...pass, inputsKept: 'too-large' as const, inputs: undefined } : pass)) };
    const report = replayRecording(cut);
    assert.deepEqual(report.passes[0], { pass: 1, at: recording.passes[0]?.at, result: 'unreplayable', why: 'inputs were too large to keep' });
    assert.equal(report.different, 0);
  });

  it('actionDifferences (the archive replay compares a pass with its original by position) lists an action only one side has, every field against undefined', () => {
    const action = { kind: 'CreateJob', target: 'js-a-0', code: 'GateOpened', message: 'AnyOrder: no gate', digest: 'abc' };
    assert.deepEqual(actionDifferences([action], [action]), []);
    assert.deepEqual(actionDifferences([], [action]), [
      { action: 1, field: 'kind', recorded: undefined, replayed: 'CreateJob' },
      { action: 1, field: 'target', recorded: undefined, replayed: 'js-a-0' },
      { action: 1, field: 'code', recorded: undefined, replayed: 'GateOpened' },
      { action: 1, field: 'message', recorded: undefined, replayed: 'AnyOrder: no gate' },
      { action: 1, field: 'digest', recorded: undefined, replayed: 'abc' },
    ]);
  });
});
