import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { loadedJobSets, loadJobSets } from '../../lib/jobset/load.ts';
import { simulationDrawing } from '../../lib/render/simulationDrawing.ts';
import { EMPTY_BEHAVIOUR, loadBehaviour } from '../../lib/sim/behaviour.ts';
import { simulate } from '../../lib/sim/simulate.ts';
import { examplePath } from '../repoFiles.ts';

const story2 = () => {
  const path = examplePath('story2-messagequeue-driver-worker.yaml');
  const [jobSet] = loadedJobSets(loadJobSets(readFileSync(path, 'utf8'), path));
  assert.ok(jobSet, 'story 2 does not load');
  return { ...jobSet, metadata: { ...jobSet.metadata, namespace: 'default' } };
};

const run = (behaviourYaml = '', jobSet = story2()) =>
  simulate(jobSet, behaviourYaml === '' ? EMPTY_BEHAVIOUR : loadBehaviour(behaviourYaml, 'behaviour.yaml'), {
    until: 86_400_000,
    latency: 0,
    planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true },
  });

describe('simulationDrawing', () => {
  it('draws a lane per replicatedJob in startup order, a row per Job labelled without the JobSet prefix', () => {
    const drawing = simulationDrawing(run());
    assert.deepEqual(
      drawing.lanes.map((lane) => [lane.replicatedJob, lane.jobs.map((job) => job.label)]),
      [
        ['messagequeue', ['messagequeue-0']],
        ['driver', ['driver-0', 'driver-1']],
        ['worker', ['worker-0', 'worker-1']],
      ],
    );
  });

  it('shows a gated Job suspended until its gate opens, then running, ready and succeeded', () => {
    // Prepare: drivers ready 1 s after they run, everything succeeds 30 s after it runs.
    const drawing = simulationDrawing(run());
    const driver = drawing.lanes.find((lane) => lane.replicatedJob === 'driver')?.jobs[0];
    assert.ok(driver, 'no driver row');
    assert.deepEqual(
      driver.segments.map((segment) => [segment.state, segment.from]),
      [
        ['suspended', 0],
        ['running', 1000],
        ['ready', 2000],
        ['succeeded', 31_000],
      ],
    );
  });

  it('marks each gate where its replicatedJob started, with what the JobSet was waiting for before', () => {
    const gates = simulationDrawing(run()).markers.filter((marker) => marker.kind === 'gate');
    assert.deepEqual(
      gates.map((gate) => [gate.lane, gate.at]),
      [
        ['messagequeue', 0],
        ['driver', 1000],
        ['worker', 2000],
      ],
    );
    assert.match(gates[1]?.detail ?? '', /gate open for driver; before it the JobSet said: .*waiting for messagequeue to be Ready: 0\/1 jobs ready/);
  });

  it('has a tick per reconcile pass with its actions, and the terminal condition as a marker', () => {
    const result = run();
    const drawing = simulationDrawing(result);
    assert.equal(drawing.ticks.length, result.passes.length);
    assert.ok(result.passes.length > 3, `only ${String(result.passes.length)} passes`);
    assert.match(drawing.ticks[0]?.detail ?? '', /pass 1: .*CreateJob ×5/);
    assert.ok(drawing.markers.some((marker) => marker.kind === 'condition' && marker.label === 'Completed=True'));
    assert.match(drawing.subtitle, /^Completed after 32s/);
  });

  it('draws a failed Job as failed to the end', () => {
    const drawing = simulationDrawing(run('jobs: {messagequeue-driver-worker-worker-1: {failAfter: 3s}}\n'));
    const worker = drawing.lanes.find((lane) => lane.replicatedJob === 'worker')?.jobs.find((job) => job.label === 'worker-1');
    assert.equal(worker?.segments.at(-1)?.state, 'failed');
  });
});

describe('simulationDrawing: restarts, failure, the startup window and the pass table', () => {
  const failingAfterRestart = () => {
    const jobSet = story2();
    return run('replicatedJobs: {worker: {failAfter: 2s}}\n', { ...jobSet, spec: { ...jobSet.spec, failurePolicy: { maxRestarts: 1 } } });
  };

  it('marks a restart with its attempt where the earlier attempt\'s Jobs are deleted, and the failure', () => {
    const drawing = simulationDrawing(failingAfterRestart());
    assert.deepEqual(drawing.markers.filter((marker) => marker.kind === 'restart').map((marker) => [marker.at, marker.attempt, marker.label]), [[4000, 1, 'restart, attempt 1']]);
    assert.deepEqual(drawing.markers.filter((marker) => marker.kind === 'failed').map((marker) => [marker.at, marker.label]), [[9000, 'Failed: ReachedMaxRestarts']]);
    // The gates open again in the new attempt.
    assert.deepEqual(drawing.markers.filter((marker) => marker.kind === 'gate' && marker.lane === 'worker').map((marker) => [marker.at, marker.label]), [
      [2000, 'worker starts'],
      [7000, 'worker starts (attempt 1)'],
    ]);
  });

  it('ends the stretch drawn wide where the startup completed', () => {
    assert.equal(simulationDrawing(run()).startupEnd, 3000);
  });

  it('lists every pass with its reason and its actions counted by kind', () => {
    const result = run();
    const rows = simulationDrawing(result).passes ?? [];
    assert.equal(rows.length, result.passes.length);
    assert.deepEqual([rows[0]?.pass, rows[0]?.time, rows[0]?.trigger], [1, '0s', undefined]);
    assert.match(rows[0]?.reason ?? '', /^created 5 jobs \(4 suspended\)/);
    assert.deepEqual(rows[0]?.actions.find((line) => line.kind === 'CreateJob'), { kind: 'CreateJob', count: 5, targets: '', why: '' });
  });
});
