/**
 * The demo host end to end: forwarder → in-process bus → reconciler (leases in dynalite) →
 * simulated cluster. Each link is load-bearing: without the forwarder nothing is reconciled,
 * without the bus no event reaches the handler, without the reconciler no Job is resumed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CounterName } from '../../lib/counters.ts';
import { runDemo } from '../../lib/hosts/demo.ts';
import { loadedJobSets, loadJobSets } from '../../lib/jobset/load.ts';
import type { JobSet } from '../../lib/jobset/schema.ts';
import { collectingLog } from '../../lib/log.ts';
import { DEFAULT_PLAN_OPTIONS } from '../../lib/plan/planner.ts';
import { EMPTY_BEHAVIOUR, loadBehaviour } from '../../lib/sim/behaviour.ts';
import { simulate } from '../../lib/sim/simulate.ts';
import type { TimelineEntry } from '../../lib/sim/timeline.ts';
import { makeJobSet } from '../builders.ts';
import { exampleFiles, examplePath } from '../repoFiles.ts';

const load = (path: string): JobSet[] => loadedJobSets(loadJobSets(readFileSync(path, 'utf8'), path));

describe('hosts/demo', () => {
  it('starts story 2 in order through the whole pipeline: messagequeue, then driver, then worker', async () => {
    // Prepare
    const entries: { jobSet: string; entry: TimelineEntry }[] = [];
    const { log, lines } = collectingLog();
    // Act
    const summary = await runDemo({
      jobSets: load(examplePath('story2-messagequeue-driver-worker.yaml')),
      behaviour: EMPTY_BEHAVIOUR,
      planOptions: DEFAULT_PLAN_OPTIONS,
      realMsPerVirtualSecond: 0,
      until: 3_600_000,
      onEntry: (jobSet, entry) => entries.push({ jobSet, entry }),
      log,
    });
    // Assess
    assert.deepEqual(summary.jobSets, [{ name: 'messagequeue-driver-worker', terminalState: 'Completed', restarts: 0 }]);
    // Every Job started once and became ready, so the min/max below are over non-empty lists.
    const jobsThat = (rjob: string, what: 'started' | 'ready'): { job: string; at: number }[] =>
      entries
        .map(({ entry }) => entry)
        .filter(
          (entry) =>
            entry.replicatedJob === rjob &&
            (what === 'ready' ? entry.type === 'JobReady' : entry.type === 'JobResumed' || (entry.type === 'JobCreated' && entry.suspended === false)),
        )
        .map((entry) => ({ job: entry.job ?? '', at: entry.at }));
    const expectedJobs = { messagequeue: 1, driver: 2, worker: 2 } as const;
    for (const [rjob, replicas] of Object.entries(expectedJobs)) {
      const names = Array.from({ length: replicas }, (_, index) => `messagequeue-driver-worker-${rjob}-${index}`);
      assert.deepEqual(jobsThat(rjob, 'started').map(({ job }) => job).sort(), names, `${rjob}: every Job started once`);
      assert.deepEqual(jobsThat(rjob, 'ready').map(({ job }) => job).sort(), names, `${rjob}: every Job became ready once`);
    }
    const firstRunning = (rjob: string): number => Math.min(...jobsThat(rjob, 'started').map(({ at }) => at));
    const lastReady = (rjob: string): number => Math.max(...jobsThat(rjob, 'ready').map(({ at }) => at));
    assert.ok(firstRunning('messagequeue') < lastReady('messagequeue'), 'messagequeue is ready some time after it starts');
    assert.ok(firstRunning('driver') >= lastReady('messagequeue'), `driver starts at ${firstRunning('driver')}, after messagequeue is ready at ${lastReady('messagequeue')}`);
    assert.ok(firstRunning('worker') >= lastReady('driver'), `worker starts at ${firstRunning('worker')}, after driver is ready at ${lastReady('driver')}`);
    assert.equal(summary.deadLetters, 0);
    const counters = summary.counters;
    assert.ok((counters[CounterName.WatchEvents] ?? 0) > (counters[CounterName.EventsPut] ?? 0), 'the forwarder drops changes nothing depends on');
    // Bursts collapse: the lease loop folds a JobSet's events into its passes (the forwarder folds
    // one object's changes within its window, test/forwarder).
    assert.ok((counters[CounterName.Passes] ?? 0) <= (counters[CounterName.Invocations] ?? 0), 'no more passes than events');
    assert.ok((counters['dynamodb.UpdateItem'] ?? 0) > 0, 'leases live in the DynamoDB-API server');
    assert.deepEqual(lines.filter((line) => line.level === 'error'), []);
  });

  it('runs every example to completion at once', async () => {
    const jobSets = exampleFiles().flatMap(load);
    const summary = await runDemo({
      jobSets,
      behaviour: EMPTY_BEHAVIOUR,
      planOptions: { ...DEFAULT_PLAN_OPTIONS, claimUnmanaged: true },
      realMsPerVirtualSecond: 0,
      until: 3_600_000,
      onEntry: () => undefined,
      log: collectingLog().log,
    });
    assert.deepEqual(
      summary.jobSets.map((js) => [js.name, js.terminalState]),
      jobSets.map((js) => [js.metadata.name, 'Completed']),
    );
  });

  it("applies a behaviour file's actions as lineup simulate does: the same timeline, entry for entry", async () => {
    // Prepare: a suspend, a Job deleted while suspended, a resume.
    const [jobSet] = load(examplePath('story2-messagequeue-driver-worker.yaml'));
    assert.ok(jobSet);
    const behaviour = loadBehaviour('actions: [{at: 3s, suspend: true}, {at: 4s, deleteJob: messagequeue-driver-worker-driver-0}, {at: 9s, suspend: false}]', 'b.yaml');
    const planOptions = { ...DEFAULT_PLAN_OPTIONS, claimUnmanaged: true };
    const entries: TimelineEntry[] = [];
    // Act
    const summary = await runDemo({ jobSets: [jobSet], behaviour, planOptions, realMsPerVirtualSecond: 0, until: 3_600_000, onEntry: (_, entry) => entries.push(entry), log: collectingLog().log });
    const simulated = simulate(jobSet, behaviour, { until: 3_600_000, latency: 0, planOptions });
    // Assess
    assert.equal(summary.jobSets[0]?.terminalState, 'Completed');
    assert.deepEqual(entries, simulated.timeline);
    assert.ok(entries.some((entry) => entry.type === 'JobDeleted' && entry.message === 'deleted by a behaviour action'));
    assert.deepEqual(entries.filter((entry) => entry.condition?.type === 'Suspended').map((entry) => [entry.at, entry.condition?.status]), [[3_000, 'True'], [9_000, 'False']]);
  });
});

describe('hosts/demo: rejected JobSets and how a run stops', () => {
  const HOUR = 3_600_000;
  const demo = (jobSets: readonly JobSet[], behaviourYaml: string, until: number, untilNeverLimit?: number) =>
    runDemo({
      jobSets,
      behaviour: behaviourYaml === '' ? EMPTY_BEHAVIOUR : loadBehaviour(behaviourYaml, 'test-behaviour.yaml'),
      planOptions: DEFAULT_PLAN_OPTIONS,
      realMsPerVirtualSecond: 0,
      until,
      untilNeverLimit,
      // Nothing may happen past where the run was to stop: fail then rather than run on for ever.
      onEntry: (_, entry) => assert.ok(entry.at <= (Number.isFinite(until) ? until : (untilNeverLimit ?? Infinity)), `${entry.type} at ${entry.at}ms, past the end of the run`),
      log: collectingLog().log,
    });

  it('reports a rejected JobSet as rejected, with the reason, beside one that completes', async () => {
    // A self-dependency: fits the schema, rejected by validation.
    const selfDependent = makeJobSet('self').replicatedJob('a', 1).replicatedJob('b', 1, { dependsOn: [{ name: 'b', status: 'Ready' }] }).obj();
    const fine = makeJobSet('fine').replicatedJob('a', 1).obj();
    const summary = await demo([selfDependent, fine], '', HOUR);
    const [rejected, completed] = summary.jobSets;
    assert.equal(rejected?.terminalState, null);
    assert.match(rejected?.rejected ?? '', /spec\.replicatedJobs\[1\]\.dependsOn\[0\]\.name: .*cannot depend on itself/);
    assert.deepEqual(completed, { name: 'fine', terminalState: 'Completed', restarts: 0 });
    assert.equal(summary.stoppedBy, 'finished');
  });

  it('stops an infinite until when nothing more is scheduled', async () => {
    const summary = await demo([makeJobSet('forever').replicatedJob('a', 1).obj()], 'default: {succeedAfter: never}', Infinity);
    assert.equal(summary.stoppedBy, 'quiescent');
    assert.equal(summary.endedAt, 1_000, 'the Job is ready after 1s and then nothing is left to happen');
    assert.deepEqual(summary.jobSets, [{ name: 'forever', terminalState: null, restarts: 0 }]);
  });

  it('stops an infinite until at its limit when a JobSet restarts forever, and a finite one at until', async () => {
    const restarting = makeJobSet('restarting').replicatedJob('a', 1).spec({ failurePolicy: { maxRestarts: 1_000_000_000 } }).obj();
    const behaviour = 'default: {failAfter: 1h, succeedAfter: never}';
    const limited = await demo([restarting], behaviour, Infinity, 3 * HOUR);
    assert.equal(limited.stoppedBy, 'limit');
    assert.equal(limited.endedAt, 3 * HOUR);
    assert.equal(limited.jobSets[0]?.restarts, 3);
    const cut = await demo([restarting], behaviour, 2 * HOUR);
    assert.equal(cut.stoppedBy, 'until');
    assert.equal(cut.endedAt, 2 * HOUR);
  });
});
