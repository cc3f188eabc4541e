import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { actionLines, historyDrawing, replayDrawing, rowSummary } from '../../lib/render/historyDrawing.ts';
import { plan } from '../../lib/plan/planner.ts';
import type { Planner } from '../../lib/replay/replay.ts';
import { loadBehaviour } from '../../lib/sim/behaviour.ts';
import { story2 } from '../reconcile/fixtures.ts';
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
const SECOND = 1000;

/**
 * failedAfterRestart: story 2 allowed one restart, its workers failing 20 s after they run, one
 * event every 10 s: it starts, restarts (attempt 1), starts again and fails.
 */
const failedAfterRestart = async (): Promise<Recording> => {
  const store = new MemoryCheckpointStore();
  const base = story2();
  const jobSet = { ...base, spec: { ...base.spec, failurePolicy: { maxRestarts: 1 } } };
  await recordStartup(store, { behaviour: loadBehaviour('replicatedJobs: {worker: {failAfter: 20s}}\n', 'behaviour.yaml'), jobSet, stepMs: 10 * SECOND, steps: 14 });
  return recordingOf(KEY, await store.listJournal(KEY));
};

/** resumeWordedOtherwise: a planner that gives every resume another message, so each pass that resumes differs. */
const resumeWordedOtherwise: Planner = (observed, options) => {
  const result = plan(observed, options);
  return { ...result, reasons: result.reasons.map((reason, index) => (result.actions[index]?.kind === 'ResumeJob' ? { ...reason, message: `${reason.message} (variant)` } : reason)) };
};

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
    assert.match(drawing.subtitle, /^4 same, 1 different, 0 unreplayable \(first divergence: pass 1\): 5 passes .* replayed with variant$/);
    // The picture of what happened is the recording's, whatever the replay found.
    assert.deepEqual(drawing.lanes, historyDrawing(recording).lanes);
  });

  it("today's planner highlights no pass", async () => {
    const recording = await recorded();
    assert.deepEqual(replayDrawing(recording, replayRecording(recording)).ticks.filter((tick) => tick.differs), []);
  });
});

describe('historyDrawing of a JobSet that failed after one restart', () => {
  it('marks the restart with its attempt at the pass that decided it, and the failure at the pass that failed it', async () => {
    const recording = await failedAfterRestart();
    const drawing = historyDrawing(recording);
    const restarts = drawing.markers.filter((marker) => marker.kind === 'restart');
    assert.deepEqual(restarts.map((marker) => [marker.at / SECOND, marker.attempt, marker.label]), [[40, 1, 'restart, attempt 1']]);
    assert.match(restarts[0]?.detail ?? '', /pass 5: restart, attempt 1 begins: restarting \(attempt 1\)/);
    const failed = drawing.markers.filter((marker) => marker.kind === 'failed');
    assert.deepEqual(failed.map((marker) => [marker.at / SECOND, marker.label]), [[90, 'Failed: ReachedMaxRestarts']]);
    // The workers are failed from the pass that read them so to the end.
    const worker = drawing.lanes.find((lane) => lane.replicatedJob === 'worker')?.jobs[0];
    assert.equal(worker?.segments.at(-1)?.state, 'failed');
    // Gates open again after the restart: two per lane.
    assert.equal(drawing.markers.filter((marker) => marker.kind === 'gate' && marker.lane === 'driver').length, 2);
  });

  it('ends the stretch drawn wide where the last startup completed', async () => {
    assert.equal(historyDrawing(await failedAfterRestart()).startupEnd, 80 * SECOND);
    // The fixture's story 2 never reports its Jobs ready, so no startup completes: its last gate, two minutes in, ends it.
    assert.equal(historyDrawing(await recorded()).startupEnd, 2 * MINUTE);
  });

  it('has a table row per pass: number, time, trigger, reason, and its actions grouped with their Jobs named compactly', async () => {
    const rows = historyDrawing(await failedAfterRestart()).passes ?? [];
    assert.equal(rows.length, 12);
    const [first] = rows;
    assert.deepEqual([first?.pass, first?.time, first?.clock, first?.trigger], [1, '0s', '00:00:00.000Z', 'JobSet rv recorder-0 MODIFIED']);
    assert.equal(first?.reason, 'created 5 jobs (4 suspended); waiting for messagequeue to be Ready: 0/1 jobs ready');
    assert.deepEqual(
      first?.actions.map((line) => [line.kind, line.count, line.targets, line.why, line.minor ?? false]),
      [
        ['CreateService', 1, NAME, 'ServiceMissing: service does not exist', false],
        ['CreateJob', 1, 'messagequeue-0', 'GateOpened: InOrder: first replicatedJob', false],
        ['CreateJob', 4, 'driver-0, driver-1, worker-0, worker-1', 'StartupRuleHeld: InOrder: waiting for messagequeue to be Ready: 0/1 jobs ready', false],
        ['UpdateJobSetStatus', 1, '', 'StatusChanged', true],
        ['EmitEvent', 1, '', 'ConditionChanged: InOrderStartupPolicyInProgress', true],
      ],
    );
    // The restart's five deletions are one line, the name each message repeats left out.
    const deletions = rows[5]?.actions[0];
    assert.deepEqual([deletions?.kind, deletions?.count, deletions?.targets, deletions?.why], ['DeleteJob', 5, 'messagequeue-0, driver-0, driver-1, worker-0, worker-1', 'PreviousAttempt: belongs to an earlier restart attempt (now 1)']);
    assert.equal(rows[5]?.trigger, '(no event of its own: a later pass of its loop)');
  });
});

describe('actionLines', () => {
  const action = (kind: string, target: string, code: string, message: string) => ({ kind, target, code, message, digest: '' });
  it('folds an Event emitted for the same reason as an action into its line, and marks the lines a replay disagrees on', () => {
    const lines = actionLines(
      [action('ResumeJob', 'js-d-0', 'GateOpened', 'InOrder: m Ready 1/1'), action('ResumeJob', 'js-d-1', 'GateOpened', 'InOrder: m Ready 1/1'), action('EmitEvent', '', 'GateOpened', 'InOrder: m Ready 1/1')],
      'js',
      'resumed 2 jobs',
      new Set(['ResumeJob js-d-1']),
    );
    assert.deepEqual(lines, [{ kind: 'ResumeJob', count: 2, targets: 'd-0, d-1', why: 'GateOpened: InOrder: m Ready 1/1', events: 1, differs: true }]);
  });
});

describe('replayDrawing: recorded and replayed side by side', () => {
  it('gives each differing pass its replayed actions and difference lines, the differing actions highlighted on both sides', async () => {
    const recording = await failedAfterRestart();
    const drawing = replayDrawing(recording, replayRecording(recording, { planner: resumeWordedOtherwise, plannerVersion: 'variant' }));
    const differing = (drawing.passes ?? []).filter((row) => row.replay?.outcome === 'different');
    assert.deepEqual(differing.map((row) => row.pass), [2, 3, 8, 9]);
    const row = differing[0];
    assert.deepEqual(row?.actions.filter((line) => line.differs === true).map((line) => [line.kind, line.targets]), [['ResumeJob', 'driver-0, driver-1']]);
    assert.deepEqual(row?.replay?.actions.filter((line) => line.differs === true).map((line) => [line.kind, line.targets, line.why]), [['ResumeJob', 'driver-0, driver-1', 'GateOpened: InOrder: messagequeue Ready 1/1 (variant)']]);
    assert.deepEqual(row?.replay?.lines, [
      'ResumeJob driver-0: message recorded "InOrder: messagequeue Ready 1/1", replayed "InOrder: messagequeue Ready 1/1 (variant)"',
      'ResumeJob driver-1: message recorded "InOrder: messagequeue Ready 1/1", replayed "InOrder: messagequeue Ready 1/1 (variant)"',
    ]);
    assert.deepEqual(drawing.replay, { jobSet: `${KEY.cluster}/default/${NAME}`, passes: 12, same: 8, different: 4, unreplayable: 0, firstDivergence: 2 });
    assert.deepEqual(drawing.ticks.filter((tick) => tick.outcome === 'different').map((tick) => tick.pass), [2, 3, 8, 9]);
  });
});

describe('rowSummary', () => {
  it('keeps of a status write the conditions it turned True, and any other summary whole', () => {
    assert.equal(
      rowSummary('wrote status: StartupPolicyInProgress=False (InOrderStartupPolicyInProgress), StartupPolicyCompleted=True (InOrderStartupPolicyCompleted); worker ready 0→2'),
      'wrote status: StartupPolicyCompleted=True',
    );
    assert.equal(rowSummary('wrote status: messagequeue active 1→0'), 'wrote status: messagequeue active 1→0');
    assert.equal(rowSummary('wrote status: Suspended=False (ResumeJobs)'), 'wrote status: Suspended=False');
    assert.equal(rowSummary('resumed 2 jobs; waiting for worker'), 'resumed 2 jobs; waiting for worker');
  });
});
