/**
 * The pages the browser tests look at and the screenshots in docs/ show, built one way for both:
 * `lineup simulate` of story 2, story 2's journal from `lineup demo --state-dir` drawn by
 * `lineup history` and, one pass's recorded reason edited, by `lineup replay`; and a JobSet that
 * failed after one restart, recorded by the real reconciler over the simulated cluster and drawn
 * by `history` and by a replay with a planner that words every resume otherwise.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { plan } from '../../../lib/plan/planner.ts';
import { historyDrawing, replayDrawing } from '../../../lib/render/historyDrawing.ts';
import { renderTimelineHtml } from '../../../lib/render/timelineHtml.ts';
import { recordingOf, type Recording } from '../../../lib/replay/recording.ts';
import { replayRecording, type Planner } from '../../../lib/replay/replay.ts';
import { loadBehaviour } from '../../../lib/sim/behaviour.ts';
import { MemoryCheckpointStore } from '../../../lib/store/memoryStore.ts';
import { story2 } from '../../reconcile/fixtures.ts';
import { KEY, recordStartup } from '../../replay/fixtures.ts';
import { examplePath } from '../../repoFiles.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
export const NAME = 'messagequeue-driver-worker';

/** lineup: the CLI as a user runs it; returns its exit code and output. */
export const lineup = (...args: string[]) => {
  const result = spawnSync(process.execPath, ['bin/lineup.js', ...args], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

/** simulatePage: `lineup simulate story2 --output html`. */
export const simulatePage = (): string => {
  const simulate = lineup('simulate', examplePath('story2-messagequeue-driver-worker.yaml'), '--output', 'html');
  assert.equal(simulate.code, 0, simulate.stderr);
  return simulate.stdout;
};

interface RecordedAction {
  kind: string;
  target: string;
  message: string;
}

/** Story2Pages: story 2's history page, and the replay page of its recording with one pass's reason edited. */
export interface Story2Pages {
  readonly history: string;
  readonly replay: string;
  readonly passes: number;
  /** The pass whose drivers' resume carries the reason an older planner would have given. */
  readonly editedPass: number;
}

/** story2Pages: story 2 through `lineup demo --state-dir`, then `history`, `export` and `replay` of it. */
export const story2Pages = (): Story2Pages => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-story2-pages-'));
  try {
    const stateDir = join(scratch, 'D');
    const demo = lineup('demo', examplePath('story2-messagequeue-driver-worker.yaml'), '--speed', '0', '--state-dir', stateDir);
    assert.equal(demo.code, 0, demo.stderr);
    const history = lineup('history', `local/default/${NAME}`, '--state-dir', stateDir, '--output', 'html');
    assert.equal(history.code, 0, history.stderr);
    const exported = lineup('export', `local/default/${NAME}`, '--state-dir', stateDir);
    assert.equal(exported.code, 0, exported.stderr);
    const recording = JSON.parse(exported.stdout) as { passes: { actions: RecordedAction[] }[] };
    const editedPass = recording.passes.findIndex((pass) => pass.actions.some((action) => action.kind === 'ResumeJob' && action.target === `${NAME}-driver-0`)) + 1;
    assert.ok(editedPass > 1, 'the journal has no pass resuming the drivers');
    for (const action of recording.passes[editedPass - 1]?.actions ?? []) if (action.kind === 'ResumeJob') action.message = 'InOrder: messagequeue Ready 0/1 (an older planner)';
    const edited = join(scratch, 'older.json');
    writeFileSync(edited, JSON.stringify(recording));
    const replay = lineup('replay', edited, '--output', 'html');
    assert.equal(replay.code, 1, `a pass differs: ${replay.stderr}`);
    return { history: history.stdout, replay: replay.stdout, passes: recording.passes.length, editedPass };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
};

/**
 * failedAfterRestart: story 2 allowed one restart (`failurePolicy: {maxRestarts: 1}`), its
 * workers failing 20 s after they run, one event every 10 s: it starts, the workers fail, it
 * restarts (attempt 1), starts again, the workers fail again and the JobSet fails.
 */
export const failedAfterRestart = async (): Promise<Recording> => {
  const store = new MemoryCheckpointStore();
  const base = story2();
  const jobSet = { ...base, spec: { ...base.spec, failurePolicy: { maxRestarts: 1 } } };
  await recordStartup(store, { behaviour: loadBehaviour('replicatedJobs: {worker: {failAfter: 20s}}\n', 'behaviour.yaml'), jobSet, stepMs: 10_000, steps: 14 });
  return recordingOf(KEY, await store.listJournal(KEY));
};

/** resumeWordedOtherwise: a planner that gives every resume another message, so each pass that resumes Jobs differs. */
export const resumeWordedOtherwise: Planner = (observed, options) => {
  const result = plan(observed, options);
  return { ...result, reasons: result.reasons.map((reason, index) => (result.actions[index]?.kind === 'ResumeJob' ? { ...reason, message: `${reason.message} (variant)` } : reason)) };
};

/** FailurePages: the history page of failedAfterRestart, its replay by resumeWordedOtherwise, and both replays on one page. */
export interface FailurePages {
  readonly recording: Recording;
  readonly history: string;
  readonly replay: string;
  readonly differing: readonly number[];
  readonly all: string;
}

/** failurePages: the pages `lineup history`, `lineup replay` and `lineup replay --all` draw of failedAfterRestart. */
export const failurePages = async (): Promise<FailurePages> => {
  const recording = await failedAfterRestart();
  const report = replayRecording(recording, { planner: resumeWordedOtherwise, plannerVersion: 'variant' });
  // The same JobSet as another cluster's, replayed with today's planner: every pass the same.
  const renamed: Recording = { ...recording, jobSet: { ...recording.jobSet, cluster: 'other-cluster' } };
  return {
    recording,
    history: renderTimelineHtml(historyDrawing(recording)),
    replay: renderTimelineHtml(replayDrawing(recording, report)),
    differing: report.passes.filter((outcome) => outcome.result === 'different').map((outcome) => outcome.pass),
    all: renderTimelineHtml([replayDrawing(renamed, replayRecording(recording)), replayDrawing(recording, report)], 'lineup replay'),
  };
};
