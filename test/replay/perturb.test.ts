import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { replayCommand } from '../../lib/cli/replay.ts';
import { Label } from '../../lib/jobset/api.ts';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import { plan } from '../../lib/plan/planner.ts';
import { mulberry32, perturb, perturbedRun, type PlannerFactory } from '../../lib/replay/perturb.ts';
import { recordedRunOf, type RecordedRun } from '../../lib/replay/recordedRun.ts';
import { observedOfPass, recordingOf, type Recording } from '../../lib/replay/recording.ts';
import { EMPTY_BEHAVIOUR, type TimingOverrides } from '../../lib/sim/behaviour.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { story2 } from '../reconcile/fixtures.ts';
import { KEY, NAME, recordStartup, type SimWorld } from './fixtures.ts';

/**
 * trustsReadyEvents: a planted ordering bug. It counts "one more Job ready" for every Job event
 * that shows a Job ready, and gates on that count instead of on the Jobs it read: right when each
 * event arrives once, wrong when one arrives twice (too many: a gate opens early) or never.
 */
const trustsReadyEvents: PlannerFactory = () => {
  const ready = new Map<string, number>();
  return (observed, options, delivered) => {
    for (const { change } of delivered) {
      const job = change?.kind === 'Job' ? (change.object as Job | undefined) : undefined;
      const replicatedJob = job?.metadata.labels?.[Label.ReplicatedJobName];
      if (replicatedJob !== undefined && (job?.status?.ready ?? 0) > 0) ready.set(replicatedJob, (ready.get(replicatedJob) ?? 0) + 1);
    }
    const seen = new Map<string, number>();
    const jobs = observed.jobs.map((job) => {
      const replicatedJob = job.metadata.labels?.[Label.ReplicatedJobName] ?? '';
      const index = seen.get(replicatedJob) ?? 0;
      seen.set(replicatedJob, index + 1);
      const finished = (job.status?.succeeded ?? 0) > 0 || (job.status?.failed ?? 0) > 0;
      return finished ? job : { ...job, status: { ...job.status, ready: index < (ready.get(replicatedJob) ?? 0) ? (job.spec.parallelism ?? 1) : 0 } };
    });
    return plan({ ...observed, jobs }, options);
  };
};

/**
 * story 2 recorded by the real reconcile loop, one event per virtual second, so each Job's ready
 * time is in the inputs; the second driver is slower (ready 8 s after its resume), as one pod
 * often is, which leaves a window where a gate counted wrongly opens early.
 */
const recordFine = async (steps = 60, outside?: (step: number, world: SimWorld) => void, variant?: { jobSet: JobSet; jobs: Record<string, TimingOverrides> }): Promise<Recording> => {
  const store = new MemoryCheckpointStore();
  const behaviour = { ...EMPTY_BEHAVIOUR, jobs: new Map(Object.entries({ [`${NAME}-driver-1`]: { readyAfter: 8_000 }, ...variant?.jobs })) };
  await recordStartup(store, { stepMs: 1_000, steps, behaviour, ...(outside === undefined ? {} : { outside }), ...(variant === undefined ? {} : { jobSet: variant.jobSet }) });
  return recordingOf(KEY, await store.listJournal(KEY));
};

/** At `step`, as a user would: the JobSet's spec.suspend set to `suspend`. */
const suspendAt = (steps: ReadonlyMap<number, boolean>) => (step: number, world: SimWorld): void => {
  const suspend = steps.get(step);
  if (suspend !== undefined) world.cluster.setJobSetSuspend('default', NAME, suspend, world.queue.now());
};

const capture = () => {
  let out = '';
  let err = '';
  return {
    io: { stdout: (text: string) => void (out += text), stderr: (text: string) => void (err += text), readFile: (path: string) => readFileSync(path, 'utf8') },
    stdout: () => out,
    stderr: () => err,
  };
};

const seeds = (count: number): number[] => Array.from({ length: count }, (_, index) => index + 1);

describe('replay --perturb: the recording re-enacted with its event stream perturbed', () => {
  let recording: Recording;
  let run: RecordedRun;
  let scratch = '';
  let file = '';

  before(async () => {
    recording = await recordFine();
    run = recordedRunOf(recording, 'rec.json');
    scratch = mkdtempSync(join(tmpdir(), 'lineup-perturb-'));
    file = join(scratch, 'rec.json');
    writeFileSync(file, JSON.stringify(recording));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('derives the JobSet, each Job\'s progress after its resume, and the final state from the recorded inputs', () => {
    assert.equal(run.jobSet.metadata.name, NAME);
    assert.equal(run.jobSet.status, undefined);
    assert.deepEqual(run.final, { terminalState: 'Completed', restarts: 0, suspended: false });
    const timing = (name: string, restartAttempt: string | undefined) => run.timing({ name: `${NAME}-${name}`, replicatedJob: undefined, restartAttempt });
    // The simulator's default Job: ready 1 s after its resume (seen by the next one-second pass), succeeded at 30 s.
    const driver = timing('driver-0', '0');
    assert.ok(driver.readyAfter >= 1_000 && driver.readyAfter <= 2_000, JSON.stringify(driver));
    assert.equal(driver.succeedAfter, 30_000);
    assert.equal(driver.failAfter, Infinity);
    // The slow driver, as recorded; a restart attempt the recording never saw never progresses.
    assert.ok(timing('driver-1', '0').readyAfter >= 8_000 && timing('driver-1', '0').readyAfter <= 9_000);
    assert.deepEqual([timing('driver-0', '1').readyAfter, timing('driver-0', '1').succeedAfter, timing('driver-0', '1').failAfter], [Infinity, Infinity, Infinity]);
    // Nothing was done from outside the controller: nothing to re-enact.
    assert.deepEqual(run.outsideActions, []);
  });

  it('passes on the real planner for 50 seeds, and the seeds really perturb (drops, duplicates, reordering)', () => {
    const report = perturb(run, seeds(50));
    assert.equal(report.failure, undefined, report.failure?.problem);
    assert.equal(report.passed, 50);
    const stream = seeds(10).flatMap((seed) => perturbedRun(run, seed).stream);
    assert.ok(stream.some((entry) => entry.deliveredAt.length === 0), 'an event was dropped');
    assert.ok(stream.some((entry) => entry.deliveredAt.length === 2), 'an event was duplicated');
    const arrivals = stream.flatMap((entry) => entry.deliveredAt.map((at) => ({ at, changedAt: entry.changedAt })));
    arrivals.sort((a, b) => a.at - b.at);
    assert.ok(arrivals.some((arrival, index) => index > 0 && arrival.changedAt < (arrivals[index - 1]?.changedAt ?? 0)), 'an event overtook a later one');
  });

  it('a seed re-runs exactly: the same stream and the same outcome', () => {
    assert.deepEqual(perturbedRun(run, 12345, trustsReadyEvents), perturbedRun(run, 12345, trustsReadyEvents));
    const random = mulberry32(1);
    assert.deepEqual([random(), random()], [0.6270739405881613, 0.002735721180215478]);
  });

  it('finds the planted ordering bug: the first failing seed, with the event order that broke it', () => {
    const report = perturb(run, seeds(50), trustsReadyEvents);
    assert.ok(report.failure, 'the variant passed every seed');
    assert.ok(report.passed > 0, 'the variant fails only when the stream is perturbed (some seeds pass)');
    assert.match(report.failure.problem, /^messagequeue-driver-worker-worker-\d started at \d+\.\d{3}s before its gate held: InOrder needs driver Ready 2\/2, had 1\/2$/);
  });

  it('the CLI prints the failing seed and its event order (exit 1), --seed re-runs that one (exit 1), and the real planner passes it (exit 0)', async () => {
    const failing = capture();
    assert.equal(await replayCommand(file, { stateDir: scratch, output: 'text', perturb: '50', perturbPlanner: trustsReadyEvents }, failing.io), 1, failing.stderr());
    const seed = /seed (\d+) failed/.exec(failing.stdout())?.[1];
    assert.ok(seed, failing.stdout());
    assert.match(failing.stdout(), /events in the order the reconciler got them/);
    assert.match(failing.stdout(), new RegExp(`re-run it: lineup replay ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} --seed ${seed}`));
    const problem = /failed after \d+ passing runs: (.*)/.exec(failing.stdout())?.[1];
    const again = capture();
    assert.equal(await replayCommand(file, { stateDir: scratch, output: 'text', seed, perturbPlanner: trustsReadyEvents }, again.io), 1);
    assert.equal(/failed after \d+ passing runs: (.*)/.exec(again.stdout())?.[1], problem);
    const fixed = capture();
    assert.equal(await replayCommand(file, { stateDir: scratch, output: 'text', seed }, fixed.io), 0, fixed.stdout());
    assert.match(fixed.stdout(), new RegExp(`1 perturbed runs \\(seed ${seed}\\) kept the startup order and ended Completed with 0 restarts`));
  });

  it('the CLI exits 0 when every run passes, and 2 for a bad --perturb or --seed, a truncated file, or a recording without inputs', async () => {
    const ok = capture();
    assert.equal(await replayCommand(file, { stateDir: scratch, output: 'text', perturb: '20' }, ok.io), 0, ok.stdout());
    assert.match(ok.stdout(), /20 perturbed runs \(seeds 1–20\) kept the startup order and ended Completed with 0 restarts, as recorded/);
    const json = capture();
    assert.equal(await replayCommand(file, { stateDir: scratch, output: 'json', perturb: '3' }, json.io), 0);
    const [perturbed] = (JSON.parse(json.stdout()) as { perturbed: { key: unknown; report: { seeds: number[]; passed: number; final: unknown } }[] }).perturbed;
    assert.deepEqual([perturbed?.key, perturbed?.report.seeds, perturbed?.report.passed, perturbed?.report.final], [KEY, [1, 2, 3], 3, { terminalState: 'Completed', restarts: 0, suspended: false }]);
    for (const flags of [{ perturb: '0' }, { perturb: 'ten' }, { seed: '-1' }]) {
      const bad = capture();
      assert.equal(await replayCommand(file, { stateDir: scratch, output: 'text', ...flags }, bad.io), 2, JSON.stringify(flags));
      assert.match(bad.stderr(), /^lineup replay: --(perturb|seed) expects an integer ≥ [01], got "/);
    }
    const truncated = join(scratch, 'truncated.json');
    writeFileSync(truncated, readFileSync(file, 'utf8').slice(0, 500));
    const cut = capture();
    assert.equal(await replayCommand(truncated, { stateDir: scratch, output: 'text', perturb: '5' }, cut.io), 2);
    assert.match(cut.stderr(), /not a recording: its JSON does not parse/);
    const noInputs = join(scratch, 'no-inputs.json');
    writeFileSync(noInputs, JSON.stringify({ ...recording, passes: recording.passes.map(({ inputs: _inputs, ...pass }) => ({ ...pass, inputsKept: 'too-large' })) }));
    const empty = capture();
    assert.equal(await replayCommand(noInputs, { stateDir: scratch, output: 'text', perturb: '5' }, empty.io), 2);
    assert.equal(empty.stderr(), `lineup replay: ${noInputs}: no pass keeps its planner inputs, so the run cannot be re-enacted\n`);
  });
});

describe('replay --perturb: what was done from outside the controller is re-enacted at its recorded time', () => {
  it('a suspend and resume mid-startup: found in the recorded JobSet, re-enacted, every seed reaches the recorded final state; the planted bug is still found', async () => {
    // Arrange: the user suspends the JobSet at 5 s (the drivers running, one ready) and resumes it at 15 s.
    const recording = await recordFine(80, suspendAt(new Map([[5, true], [15, false]])));
    const run = recordedRunOf(recording, 'rec.json');
    // Assess: the flips, at the passes that saw them (one event a second from the first pass).
    assert.deepEqual(run.outsideActions, [
      { at: 5_000, kind: 'suspend', suspend: true },
      { at: 15_000, kind: 'suspend', suspend: false },
    ]);
    assert.deepEqual(run.final, { terminalState: 'Completed', restarts: 0, suspended: false });
    // Each Job's clock counts from its latest resume: driver-0 ran twice, ready about 1 s after each.
    const driver = run.timing({ name: `${NAME}-driver-0`, replicatedJob: undefined, restartAttempt: '0' });
    assert.ok(driver.readyAfter >= 1_000 && driver.readyAfter <= 2_000 && driver.succeedAfter === 30_000, JSON.stringify(driver));
    const report = perturb(run, seeds(50));
    assert.equal(report.failure, undefined, report.failure?.problem);
    assert.deepEqual(report.outside, run.outsideActions);
    // The re-enacted suspension is in each run's stream: a JobSet change at 5 s and at 15 s.
    const stream = perturbedRun(run, 1).stream;
    assert.ok(stream.some((entry) => entry.kind === 'JobSet' && entry.changedAt === 5_000) && stream.some((entry) => entry.kind === 'JobSet' && entry.changedAt === 15_000));
    const planted = perturb(run, seeds(50), trustsReadyEvents);
    assert.ok(planted.failure, 'the variant passed every seed');
    // Counting ready events across the suspension, it opens the drivers' or the workers' gate early.
    assert.match(planted.failure.problem, /^messagequeue-driver-worker-(driver|worker)-\d started at \d+\.\d{3}s before its gate held: InOrder needs (messagequeue Ready 1\/1, had 0\/1|driver Ready 2\/2, had [01]\/2)$/);
    // The CLI says what it re-enacted, and shows it in the failing run's event order.
    const scratch = mkdtempSync(join(tmpdir(), 'lineup-perturb-outside-'));
    try {
      const file = join(scratch, 'rec.json');
      writeFileSync(file, JSON.stringify(recording));
      const ok = capture();
      assert.equal(await replayCommand(file, { output: 'text', perturb: '3' }, ok.io), 0, ok.stdout());
      assert.match(ok.stdout(), /ended Completed with 0 restarts, as recorded; each re-enacted, as recorded: the JobSet suspended at 5\.000s, the JobSet resumed at 15\.000s\n$/);
      const failing = capture();
      assert.equal(await replayCommand(file, { output: 'text', perturb: '50', perturbPlanner: trustsReadyEvents }, failing.io), 1);
      assert.match(failing.stdout(), /\n {2} +5\.000s {2}from outside, as recorded: the JobSet suspended\n/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('a suspend never undone: the runs stay suspended, as recorded, only because it is re-enacted', async () => {
    const run = recordedRunOf(await recordFine(25, suspendAt(new Map([[5, true]]))), 'rec.json');
    assert.deepEqual(run.outsideActions, [{ at: 5_000, kind: 'suspend', suspend: true }]);
    assert.deepEqual(run.final, { terminalState: null, restarts: 0, suspended: true });
    const report = perturb(run, seeds(20));
    assert.equal(report.failure, undefined, report.failure?.problem);
    const unaware = perturbedRun({ ...run, outsideActions: [] }, 1);
    assert.equal(unaware.ok ? undefined : unaware.problem, 'the run ended not finished, 0 restarts, the recording not finished, 0 restarts, suspended');
  });

  it("a Job deleted by someone else, a change of the spec and the JobSet's deletion are found and re-enacted", async () => {
    // Arrange: someone deletes a running worker at 20 s; the user suspends at 25 s, relabels the
    // workers' pods while suspended at 27 s, resumes at 30 s, and deletes the JobSet at 40 s.
    const recording = await recordFine(60, (step, world) => {
      const now = world.queue.now();
      if (step === 20) world.cluster.deleteJob('default', `${NAME}-worker-0`, 'Background', now);
      if (step === 25) world.cluster.setJobSetSuspend('default', NAME, true, now);
      if (step === 27) {
        const spec = world.cluster.getJobSet('default', NAME)?.spec;
        assert.ok(spec);
        const replicatedJobs = (spec.replicatedJobs ?? []).map((replicatedJob) =>
          replicatedJob.name !== 'worker'
            ? replicatedJob
            : { ...replicatedJob, template: { ...replicatedJob.template, spec: { ...replicatedJob.template.spec, template: { ...replicatedJob.template.spec.template, metadata: { labels: { team: 'b' } } } } } },
        );
        world.cluster.updateJobSetSpec('default', NAME, { ...spec, replicatedJobs }, now);
      }
      if (step === 30) world.cluster.setJobSetSuspend('default', NAME, false, now);
      if (step === 40) world.cluster.deleteJobSetAsUser('default', NAME, now);
    });
    const run = recordedRunOf(recording, 'rec.json');
    assert.deepEqual(
      run.outsideActions.map((action) => (action.kind === 'updateSpec' ? { at: action.at, kind: action.kind, labels: action.spec.replicatedJobs?.find((r) => r.name === 'worker')?.template.spec.template.metadata?.labels } : action)),
      [
        { at: 20_000, kind: 'deleteJob', job: `${NAME}-worker-0` },
        { at: 25_000, kind: 'suspend', suspend: true },
        { at: 27_000, kind: 'updateSpec', labels: { team: 'b' } },
        { at: 30_000, kind: 'suspend', suspend: false },
        { at: 40_000, kind: 'deleteJobSet' },
      ],
    );
    const report = perturb(run, seeds(20));
    assert.equal(report.failure, undefined, report.failure?.problem);
  });

  it("the controller's own deletions are not outside actions: a restart's Jobs, the JobSet deleted by its TTL", async () => {
    // Arrange: worker-0 fails 3 s after each resume; the failure policy restarts once, then the JobSet fails and its TTL deletes it.
    const jobSet = story2();
    const variant = { jobSet: { ...jobSet, spec: { ...jobSet.spec, failurePolicy: { maxRestarts: 1 }, ttlSecondsAfterFinished: 5 } }, jobs: { [`${NAME}-worker-0`]: { failAfter: 3_000 } } };
    const recording = await recordFine(80, undefined, variant);
    assert.ok(recording.passes.some((pass) => pass.actions.some((action) => action.kind === 'DeleteJob')), 'the restart deleted Jobs');
    assert.ok(recording.passes.some((pass) => pass.actions.some((action) => action.kind === 'DeleteJobSet')), 'the TTL deleted the JobSet');
    const run = recordedRunOf(recording, 'rec.json');
    assert.deepEqual(run.outsideActions, []);
    assert.deepEqual(run.final, { terminalState: 'Failed', restarts: 1, suspended: false });
    const report = perturb(run, seeds(20));
    assert.equal(report.failure, undefined, report.failure?.problem);
  });

  it('nor is a Job deleted by its own ttlSecondsAfterFinished, even when it finished and went between two passes', async () => {
    // Arrange: the message queue's Job succeeds 5 s after its resume and its TTL (0 s) deletes it at once.
    const jobSet = story2();
    const replicatedJobs = (jobSet.spec.replicatedJobs ?? []).map((replicatedJob) =>
      replicatedJob.name === 'messagequeue' ? { ...replicatedJob, template: { ...replicatedJob.template, spec: { ...replicatedJob.template.spec, ttlSecondsAfterFinished: 0 } } } : replicatedJob,
    );
    const recording = await recordFine(80, undefined, { jobSet: { ...jobSet, spec: { ...jobSet.spec, replicatedJobs } }, jobs: { [`${NAME}-messagequeue-0`]: { succeedAfter: 5_000 } } });
    const observedNames = recording.passes.map((_, index) => {
      const observed = observedOfPass(recording, index);
      return typeof observed === 'string' ? [] : observed.jobs.map((job) => job.metadata.name);
    });
    assert.ok(observedNames.some((names) => names.includes(`${NAME}-messagequeue-0`)) && observedNames.at(-1)?.includes(`${NAME}-messagequeue-0`) === false, 'the TTL deleted the Job');
    const run = recordedRunOf(recording, 'rec.json');
    assert.deepEqual(run.outsideActions, []);
    assert.deepEqual(run.final, { terminalState: 'Completed', restarts: 0, suspended: false });
    const report = perturb(run, seeds(20));
    assert.equal(report.failure, undefined, report.failure?.problem);
  });
});
