import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { historyDrawing, replayDrawing } from '../../lib/render/historyDrawing.ts';
import { recordingOf, type Recording } from '../../lib/replay/recording.ts';
import { replayRecording } from '../../lib/replay/replay.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { KEY, NAME, recordStartup, workersAtOnce } from '../replay/fixtures.ts';

/** recorded: story 2's startup as the journal keeps it (a pass a virtual minute, 8 passes). */
const recorded = async (): Promise<Recording> => {
  const store = new MemoryCheckpointStore();
  await recordStartup(store);
  return recordingOf(KEY, await store.listJournal(KEY));
};

const MINUTE = 60_000;

const statesOf = (recording: Recording, drawing = historyDrawing(recording)) =>
  Object.fromEntries(drawing.lanes.flatMap((lane) => lane.jobs.map((job) => [job.label, job.segments.map((segment) => `${segment.state}@${String(segment.from / MINUTE)}`)])));

describe('historyDrawing', () => {
  it('draws a lane per replicatedJob in the JobSet spec order, a row per Job from the recorded inputs', async () => {
    const drawing = historyDrawing(await recorded());
    assert.deepEqual(
      drawing.lanes.map((lane) => [lane.replicatedJob, lane.jobs.map((job) => job.label)]),
      [
        ['messagequeue', ['messagequeue-0']],
        ['driver', ['driver-0', 'driver-1']],
        ['worker', ['worker-0', 'worker-1']],
      ],
    );
    assert.equal(drawing.title, `lineup history ${KEY.cluster}/default/${NAME}`);
    assert.match(drawing.subtitle, /^5 passes from 2026-\S+Z over 4m, planner 0\.1\.0\+[0-9a-f]{12}$/);
  });

  it('changes a Job state at the pass that wrote it or read it: held suspended until its gate opened, then running, then succeeded', async () => {
    // The fixture's Jobs never report ready: each is running until a minute later it has succeeded.
    assert.deepEqual(statesOf(await recorded()), {
      'messagequeue-0': ['running@0', 'succeeded@1'],
      'driver-0': ['suspended@0', 'running@1', 'succeeded@2'],
      'driver-1': ['suspended@0', 'running@1', 'succeeded@2'],
      'worker-0': ['suspended@0', 'running@2', 'succeeded@3'],
      'worker-1': ['suspended@0', 'running@2', 'succeeded@3'],
    });
  });

  it('marks each gate on its lane at the pass that opened it, labelled with its reason code and message', async () => {
    const drawing = historyDrawing(await recorded());
    assert.deepEqual(
      drawing.markers.filter((marker) => marker.kind === 'gate').map((marker) => [marker.at / MINUTE, marker.lane, marker.label]),
      [
        [0, 'messagequeue', 'GateOpened: InOrder: first replicatedJob'],
        [1, 'driver', 'GateOpened: InOrder: messagequeue Ready 1/1'],
        [2, 'worker', 'GateOpened: InOrder: driver Ready 2/2'],
      ],
    );
    const driverGate = drawing.markers.find((marker) => marker.lane === 'driver');
    assert.match(driverGate?.detail ?? '', new RegExp(`pass 2: GateOpened for driver: InOrder: messagequeue Ready 1/1 → ResumeJob ${NAME}-driver-0, ResumeJob ${NAME}-driver-1$`));
    const others = drawing.markers.filter((marker) => marker.kind !== 'gate').map((marker) => [marker.at / MINUTE, marker.kind, marker.label.split(':')[0]]);
    assert.deepEqual(others, [
      [0, 'condition', 'ConditionChanged'],
      [1, 'condition', 'ConditionChanged'],
      [2, 'condition', 'ConditionChanged'],
      [3, 'condition', 'SuccessPolicyMet'],
    ]);
  });

  it('draws a tick per pass with its reason, trigger, hops and actions with their reasons on hover; none differs', async () => {
    const recording = await recorded();
    const drawing = historyDrawing(recording);
    assert.deepEqual(drawing.ticks.map((tick) => [tick.at / MINUTE, tick.label, tick.differs]), recording.passes.map((_, index) => [index, `pass ${String(index + 1)}`, false]));
    const first = (drawing.ticks[0]?.detail ?? '').split('\n');
    assert.match(first[0] ?? '', /^0s \(00:00:00\.000Z\) pass 1: created 5 jobs \(4 suspended\); waiting for messagequeue to be Ready: 0\/1 jobs ready$/);
    assert.match(first[1] ?? '', new RegExp(`^after JobSet Changed JobSet ${NAME} rv recorder-0; .*pass \\d+ ms$`));
    assert.ok(first.includes('CreateJob×4 StartupRuleHeld: InOrder: waiting for messagequeue to be Ready: 0/1 jobs ready'), first.join('\n'));
    assert.equal(drawing.endAt, 4 * MINUTE);
  });

  it('a pass whose inputs were too large still draws what its writes did', async () => {
    const recording = await recorded();
    // Pass 2 (the drivers' resume) kept no inputs; pass 3's refer to nothing that is kept either.
    const passes = recording.passes.map((pass, index) => (index === 1 ? { ...pass, inputsKept: 'too-large' as const, inputs: undefined } : pass));
    const states = statesOf({ ...recording, passes });
    assert.deepEqual(states['driver-0'], ['suspended@0', 'running@1', 'succeeded@2']);
  });
});

describe('replayDrawing', () => {
  it('highlights exactly the passes a planner differing in one rule decides differently, with the differences on hover', async () => {
    const recording = await recorded();
    const drawing = replayDrawing(recording, replayRecording(recording, { planner: workersAtOnce, plannerVersion: 'variant' }));
    assert.deepEqual(drawing.ticks.filter((tick) => tick.differs).map((tick) => tick.label), ['pass 1']);
    const detail = drawing.ticks[0]?.detail ?? '';
    assert.match(detail, /\nreplay: DIFFERENT \(8 actions recorded, 8 replayed\)\n/);
    assert.match(detail, /\nCreateJob messagequeue-driver-worker-worker-0: code recorded "StartupRuleHeld", replayed "GateOpened"; [^\n]+\n {2}spec\.suspend: recorded true, replayed false\n/);
    assert.match(drawing.ticks[1]?.detail ?? '', /\nreplay: same$/);
    assert.equal(drawing.title, `lineup replay ${KEY.cluster}/default/${NAME}`);
    assert.match(drawing.subtitle, /^4 same, 1 different, 0 unreplayable: 5 passes .* replayed with variant$/);
    // The picture of what happened is the recording's, whatever the replay found.
    assert.deepEqual(drawing.lanes, historyDrawing(recording).lanes);
  });

  it("today's planner highlights no pass", async () => {
    const recording = await recorded();
    assert.deepEqual(replayDrawing(recording, replayRecording(recording)).ticks.filter((tick) => tick.differs), []);
  });
});
