/**
 * The README's "try it without a cluster" sequence, exactly as written, through the CLI's main():
 * `lineup demo --state-dir D`, then `history`, `export`, `replay` of the file and `replay --all`
 * over D. The demo records under cluster `local`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EXAMPLES_DIR } from '../../lib/cli/demo.ts';
import { main } from '../../lib/cli/main.ts';

/** lineup: main() with `argv`, what it printed and its exit code. */
const lineup = async (...argv: string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    readFile: (path) => readFileSync(path, 'utf8'),
  });
  return { code, stdout, stderr };
};

const NAME = 'messagequeue-driver-worker';
const EXAMPLES = readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.yaml')).length;

describe('lineup demo --state-dir, then history, export and replay (the README sequence)', () => {
  let scratch = '';
  let stateDir = '';
  let demo: Awaited<ReturnType<typeof lineup>>;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-demo-journal-'));
    stateDir = join(scratch, 'D');
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
    assert.match(history.stdout, /^pass 1 {2}2026-01-01T00:00:00\.000Z {2}[0-9a-f]{16} {2}created 5 jobs \(4 suspended\)/);
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
