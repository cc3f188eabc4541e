/**
 * The README's "try it without a cluster" sequence, exactly as written, through the CLI's main():
 * `lineup demo --state-dir D`, then `history`, `export`, `replay` of the file and `replay --all`
 * over D. The demo records under cluster `local`, on a virtual clock started at the wall clock.
 * Then demos with behaviour files (on a fixed clock): a suspend and resume, and a failing Job
 * restarted once, each in the timeline and in the journal.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXAMPLES_DIR, runDemoCommand, type DemoFlags } from '../../lib/cli/demo.ts';
import type { CliIo } from '../../lib/cli/io.ts';
import { main } from '../../lib/cli/main.ts';
import { parseRecording } from '../../lib/replay/recording.ts';
import { tamperings } from '../replay/fixtures.ts';

/** CliRun: what one command printed and its exit code. */
interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** capture: run `command` with an io that reads the real file system, and what it printed. */
const capture = async (command: (io: CliIo) => Promise<number>): Promise<CliRun> => {
  let stdout = '';
  let stderr = '';
  const code = await command({
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readFile: (path) => readFileSync(path, 'utf8'),
  });
  return { code, stdout, stderr };
};

/** lineup: main() with `argv`, what it printed and its exit code. */
const lineup = (...argv: string[]): Promise<CliRun> => capture((io) => main(argv, io));

const NAME = 'messagequeue-driver-worker';
const EXAMPLES = readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.yaml')).length;

describe('lineup demo --state-dir, then history, export and replay (the README sequence)', () => {
  let scratch = '';
  let stateDir = '';
  let demo: Awaited<ReturnType<typeof lineup>>;

  // Whole seconds: the virtual clock starts at the wall clock's second.
  let startedAt = 0;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-demo-journal-'));
    stateDir = join(scratch, 'D');
    startedAt = Math.floor(Date.now() / 1000) * 1000;
    demo = await lineup('demo', '--state-dir', stateDir);
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('npx lineup demo --state-dir D: runs every example and says where the journal is and under which cluster', () => {
    assert.equal(demo.code, 0, demo.stderr);
    assert.match(demo.stdout, new RegExp(`\\n {2}${NAME} +Completed\\n`));
    assert.match(demo.stdout, new RegExp(`\\nJournal kept in ${stateDir} under cluster local: lineup history local/default/\\S+ --state-dir ${stateDir}; lineup replay --all --state-dir ${stateDir}\\n$`));
  });

  it(`npx lineup history local/default/${NAME} --state-dir D: the passes with their reasons`, async () => {
    const history = await lineup('history', `local/default/${NAME}`, '--state-dir', stateDir);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /^pass 1 {2}\S+ {2}[0-9a-f]{16} {2}created 5 jobs \(4 suspended\)/);
    // The virtual clock starts when the demo does, so its first pass is stamped with that second.
    const firstAt = Date.parse(history.stdout.split('  ')[1] ?? '');
    assert.ok(firstAt >= startedAt && firstAt <= Date.now(), `first pass at ${new Date(firstAt).toISOString()}, the demo started at ${new Date(startedAt).toISOString()}`);
    assert.match(history.stdout, /\n {4}ResumeJob×2 GateOpened: InOrder: messagequeue Ready 1\/1\n/);
  });

  it('npx lineup export … > rec.json, then npx lineup replay rec.json: exit 0, every pass the same', async () => {
    const exported = await lineup('export', `local/default/${NAME}`, '--state-dir', stateDir);
    assert.equal(exported.code, 0, exported.stderr);
    const file = join(scratch, 'rec.json');
    writeFileSync(file, exported.stdout);
    const passes = (JSON.parse(exported.stdout) as { passes: unknown[] }).passes.length;
    const replay = await lineup('replay', file);
    assert.equal(replay.code, 0, replay.stdout);
    assert.match(replay.stdout, new RegExp(`\\n {2}${String(passes)} same, 0 different, 0 unreplayable\\n$`));
  });

  it("a demo's recording tampered each way (another pass's inputs, a Job status edited, a dangling reference, a pass before the first, a renamed JobSet): replay exit 2 naming the pass", async () => {
    const exported = await lineup('export', `local/default/${NAME}`, '--state-dir', stateDir);
    assert.equal(exported.code, 0, exported.stderr);
    const cases = tamperings(parseRecording(exported.stdout, 'the export'));
    assert.equal(cases.length, 5);
    for (const tampering of cases) {
      const file = join(scratch, `tampered-${tampering.name.replaceAll(' ', '-')}.json`);
      writeFileSync(file, JSON.stringify(tampering.recording));
      const replay = await lineup('replay', file);
      assert.equal(replay.code, 2, `${tampering.name}: ${replay.stdout}`);
      assert.match(replay.stderr, new RegExp(`^lineup replay: \\S+: pass ${tampering.pass}: [^\\n]+; not replayed\\n$`), tampering.name);
    }
  });

  it('npx lineup replay --all --state-dir D --output json: exit 0, every example JobSet, no pass differs', async () => {
    const replay = await lineup('replay', '--all', '--state-dir', stateDir, '--output', 'json');
    assert.equal(replay.code, 0, replay.stderr);
    const { summary, reports } = JSON.parse(replay.stdout) as {
      summary: { jobSets: number; passes: number; same: number; different: number; unreplayable: number };
      reports: { jobSet: { cluster: string; name: string } }[];
    };
    assert.equal(summary.jobSets, EXAMPLES);
    assert.ok(summary.passes >= EXAMPLES * 5, `${String(summary.passes)} passes`);
    assert.deepEqual([summary.same, summary.different, summary.unreplayable], [summary.passes, 0, 0]);
    assert.deepEqual([...new Set(reports.map((report) => report.jobSet.cluster))], ['local']);
    assert.ok(reports.some((report) => report.jobSet.name === NAME));
  });

  it('history and replay --output html write one page each, with a lane per replicatedJob and a tick per pass', async () => {
    const history = await lineup('history', `local/default/${NAME}`, '--state-dir', stateDir, '--output', 'html');
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /^<!doctype html>/);
    assert.deepEqual([...history.stdout.matchAll(/data-lane="([^"]+)"/g)].map((m) => m[1]), ['messagequeue', 'driver', 'worker']);
    const replay = await lineup('replay', `local/default/${NAME}`, '--state-dir', stateDir, '--output', 'html');
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal([...replay.stdout.matchAll(/data-tick=/g)].length, [...history.stdout.matchAll(/data-tick=/g)].length);
    assert.doesNotMatch(replay.stdout, /data-differs/);
  });

  it('the volume claims of upstream\'s single-pvc example are in its journal, and history, replay and the drawing show them', async () => {
    const claims = 'local/default/volume-claim-trainjob';
    const history = await lineup('history', claims, '--state-dir', stateDir);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /^pass 1 .*created 2 volume claims; created 2 jobs/);
    assert.match(history.stdout, /\n {4}CreatePersistentVolumeClaim×1 VolumeClaimPolicy: initializer-volume-claim-trainjob: created before the jobs that mount it \(Delete: owned by the jobset\)\n/);
    assert.match(history.stdout, /\n {4}CreatePersistentVolumeClaim×1 VolumeClaimPolicy: checkpoints-volume-claim-trainjob: created before the jobs that mount it \(Retain: kept when the jobset is deleted\)\n/);
    const replay = await lineup('replay', claims, '--state-dir', stateDir, '--output', 'html');
    assert.equal(replay.code, 0, replay.stderr);
    assert.doesNotMatch(replay.stdout, /data-differs/);
    assert.match(replay.stdout, /CreatePersistentVolumeClaim/);
    assert.deepEqual([...replay.stdout.matchAll(/data-lane="([^"]+)"/g)].map((m) => m[1]), ['initializer', 'node']);
  });

  it('--cluster limits --all to one cluster: another cluster has nothing in a demo state directory (exit 2, one line)', async () => {
    const replay = await lineup('replay', '--all', '--cluster', 'eu-prod', '--state-dir', stateDir);
    assert.equal(replay.code, 2);
    assert.equal(replay.stderr, `lineup replay: no passes recorded for any JobSet of cluster eu-prod in ${stateDir}\n`);
  });

  it('a second demo into the same state directory is refused (exit 2, one line), the journal untouched', async () => {
    const before = await lineup('export', `local/default/${NAME}`, '--state-dir', stateDir);
    const again = await lineup('demo', '--speed', '0', '--state-dir', stateDir);
    assert.equal(again.code, 2);
    assert.equal(again.stderr, `lineup demo: ${stateDir} already holds state: expected a new or empty --state-dir (each demo starts a new simulated cluster)\n`);
    assert.equal(again.stdout, '');
    assert.equal((await lineup('export', `local/default/${NAME}`, '--state-dir', stateDir)).stdout, before.stdout);
  });
});

describe('lineup demo --behaviour --state-dir: outside actions and failures, in the timeline and the journal', () => {
  // A fixed clock, so the journal's times are known; not a whole second, as the wall clock never is.
  const STARTED_AT = Date.UTC(2030, 2, 3, 4, 5, 6, 789);
  const at = (virtualMs: number): string => new Date(Date.UTC(2030, 2, 3, 4, 5, 6) + virtualMs).toISOString();
  const jobSet = (name: string, spec: string): string => `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: ${name}}
spec:
${spec}  replicatedJobs:
  - name: driver
    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
  - name: workers
    replicas: 2
    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
`;
  const FILES: Record<string, string> = {
    'paused.yaml': jobSet('paused', ''),
    'suspend-resume.yaml': 'actions: [{at: 5s, suspend: true}, {at: 20s, suspend: false}]\n',
    'flaky.yaml': jobSet('flaky', '  failurePolicy: {maxRestarts: 1}\n'),
    'worker-fails.yaml': 'jobs: {flaky-workers-1: {failAfter: 5s}}\n',
  };
  let scratch = '';
  let suspended: CliRun;
  let failed: CliRun;
  const path = (name: string): string => join(scratch, name);
  const demoOf = (file: string, flags: DemoFlags): Promise<CliRun> => capture((io) => runDemoCommand([path(file)], { speed: '0', ...flags }, io, () => STARTED_AT));

  /** passes: the journal's passes of JobSet `name`, as history --output json gives them. */
  const passes = async (stateDir: string, name: string) => {
    const history = await lineup('history', `local/default/${name}`, '--state-dir', stateDir, '--output', 'json');
    assert.equal(history.code, 0, history.stderr);
    return (JSON.parse(history.stdout) as { passes: { at: string; reason: string; actions: { kind: string }[] }[] }).passes;
  };

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-demo-behaviour-'));
    for (const [name, text] of Object.entries(FILES)) writeFileSync(path(name), text);
    [suspended, failed] = await Promise.all([
      demoOf('paused.yaml', { behaviour: path('suspend-resume.yaml'), stateDir: path('S') }),
      demoOf('flaky.yaml', { behaviour: path('worker-fails.yaml'), stateDir: path('F') }),
    ]);
  });

  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('a suspend at 5s and a resume at 20s: the timeline shows both, and the journal has the passes that suspended and resumed the Jobs then', async () => {
    assert.equal(suspended.code, 0, suspended.stderr);
    assert.match(suspended.stdout, /\n {3}5\.0s {2}paused {2}JobSuspended {6}driver-0\n/);
    assert.match(suspended.stdout, /\n {3}5\.0s {2}paused {2}ConditionChanged {2}Suspended=True {2}jobset is suspended\n/);
    assert.match(suspended.stdout, /\n {2}20\.0s {2}paused {2}JobResumed {8}workers-1\n/);
    assert.match(suspended.stdout, /\n {2}20\.0s {2}paused {2}ConditionChanged {2}Suspended=False {2}jobset is resumed\n/);
    // Suspended for 15s, so the Jobs' 30s of work ends at 50s, not 30s.
    assert.match(suspended.stdout, /\nResult after 50s of virtual time: 1 Completed\n/);
    const journal = await passes(path('S'), 'paused');
    const doing = (kind: string) => journal.filter((pass) => pass.actions.some((action) => action.kind === kind));
    assert.deepEqual(doing('SuspendJob').map((pass) => [pass.at, pass.actions.filter((action) => action.kind === 'SuspendJob').length]), [[at(5_000), 3]]);
    assert.deepEqual(doing('ResumeJob').map((pass) => [pass.at, pass.actions.filter((action) => action.kind === 'ResumeJob').length]), [[at(20_000), 3]]);
    assert.equal(journal[0]?.at, at(0), 'the first pass is at the second the demo started');
  });

  it('a Job failing under failurePolicy {maxRestarts: 1}: the timeline and the journal have the restart, then the failure', async () => {
    assert.equal(failed.code, 0, failed.stderr);
    assert.match(failed.stdout, /\n {3}5\.0s {2}flaky {2}JobFailed {9}workers-1\n/);
    assert.match(failed.stdout, /\n {2}10\.0s {2}flaky {2}ConditionChanged {2}Failed=True {2}jobset failed due to reaching max number of restarts/);
    assert.match(failed.stdout, /\n {2}flaky +Failed, 1 restarts\n/);
    const journal = await passes(path('F'), 'flaky');
    const restart = journal.findIndex((pass) => pass.reason.startsWith('restarting (attempt 1)'));
    const failure = journal.findIndex((pass) => /^jobset failed: .*reaching max number of restarts/.test(pass.reason));
    assert.ok(restart >= 0 && failure > restart, `restart at pass ${restart + 1}, failure at pass ${failure + 1}: ${journal.map((pass) => pass.reason).join(' | ')}`);
    assert.deepEqual([journal[restart]?.at, journal[failure]?.at], [at(5_000), at(10_000)]);
  });
});
