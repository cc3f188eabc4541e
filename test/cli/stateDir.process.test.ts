/**
 * The state directory as a user meets it through the CLI: a demo writing while history reads it,
 * a second writer refused, a killed writer's passes kept, reads that change no byte, and damage
 * reported in one line with every byte left as it was.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCommand } from '../../lib/cli/run.ts';
import type { CliIo } from '../../lib/cli/io.ts';
import { STATE_FILE } from '../../lib/hosts/stateDir.ts';
import { directoryDigest } from '../hosts/directoryDigest.ts';
import { runCli, type CliRun } from './inProcess.ts';

const REPO = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(REPO, 'examples', 'depends-on.yaml');
const TARGET = 'local/default/depends-on';
/** How long the concurrent-reader test waits for the demo's first passes before failing. */
const FIRST_PASSES_TIMEOUT_MS = 60_000;

/** passTimes: the pass times `history --output json` printed. */
const passTimes = (run: CliRun): number[] => (JSON.parse(run.stdout) as { passes: { at: string }[] }).passes.map((pass) => Date.parse(pass.at));

/** oneLine: assert `run` refused with exit 2 and exactly one stderr line matching `pattern`, no stack trace. */
const oneLine = (run: CliRun, pattern: RegExp, what: string): void => {
  assert.equal(run.code, 2, `${what}: ${run.stderr}`);
  assert.match(run.stderr, /^[^\n]+\n$/, what);
  assert.match(run.stderr, pattern, what);
  assert.doesNotMatch(run.stderr, /\n\s+at /, what);
};

/** runLineup: `lineup run` in this process against a kubeconfig that is never reached (the state is refused first). */
const runLineup = async (stateDir: string): Promise<CliRun> => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), readFile: (path) => readFileSync(path, 'utf8') };
  const flags = { kubeconfig: join(stateDir, 'no-such-kubeconfig'), cluster: 'local', stateDir, controllerName: 'lineup.dev/controller' };
  const code = await runCommand(flags, io, new AbortController().signal);
  return { code, stdout: out.join(''), stderr: err.join('') };
};

describe('cli: the state directory', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-cli-state-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('history reads a running demo; a second demo is refused naming its pid; kill -9 keeps every pass read before', async () => {
    // Prepare: a slow demo writing the state directory in its own process.
    const stateDir = join(scratch, 'live');
    const demo = spawn(process.execPath, [join(REPO, 'lib', 'cli', 'main.ts'), 'demo', '--state-dir', stateDir, '--speed', '400ms', EXAMPLE], { cwd: REPO, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => demo.once('exit', (_code, signal) => resolve(signal)));
    try {
      // Act: read its journal while it runs, until passes show.
      let during: CliRun | undefined;
      for (const deadline = Date.now() + FIRST_PASSES_TIMEOUT_MS; Date.now() < deadline; await sleep(200)) {
        const read = await runCli(['history', TARGET, '--state-dir', stateDir, '--output', 'json']);
        if (read.code === 0) {
          during = read;
          break;
        }
      }
      assert.ok(during !== undefined, 'history never showed the running demo\'s passes');
      const seen = passTimes(during);
      assert.ok(seen.length > 0);
      const second = await runCli(['demo', '--state-dir', stateDir, '--speed', '0', EXAMPLE]);
      oneLine(second, new RegExp(`^lineup demo: \\S+ is in use by lineup demo \\(pid ${demo.pid}\\) since \\S+: expected one writer at a time`), 'second demo');
      demo.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
      // Assess: after the kill, every pass read while it ran is still there.
      const afterKill = await runCli(['history', TARGET, '--state-dir', stateDir, '--output', 'json']);
      assert.equal(afterKill.code, 0, afterKill.stderr);
      const kept = new Set(passTimes(afterKill));
      for (const at of seen) assert.ok(kept.has(at), `pass at ${new Date(at).toISOString()} was read while the demo ran, and is gone`);
      const rerun = await runCli(['demo', '--state-dir', stateDir, '--speed', '0', EXAMPLE]);
      oneLine(rerun, /already holds state/, 'a demo on the killed demo\'s directory');
    } finally {
      demo.kill('SIGKILL');
      await exited;
    }
  });

  it('history, export, replay and clusters change no byte of an intact state directory', async () => {
    const stateDir = join(scratch, 'intact');
    const demo = await runCli(['demo', '--state-dir', stateDir, '--speed', '0', EXAMPLE]);
    assert.equal(demo.code, 0, demo.stderr);
    const before = directoryDigest(stateDir);
    assert.deepEqual(Object.keys(before), [STATE_FILE]);
    for (const argv of [
      ['history', TARGET, '--state-dir', stateDir],
      ['history', TARGET, '--state-dir', stateDir, '--output', 'html'],
      ['export', TARGET, '--state-dir', stateDir],
      ['replay', '--all', '--state-dir', stateDir],
      ['clusters', 'list', '--state-dir', stateDir],
      ['clusters', 'status', '--state-dir', stateDir, '--missing-after', '100000h'],
    ]) {
      const read = await runCli(argv);
      assert.equal(read.code, 0, `${argv.join(' ')}: ${read.stderr}`);
      assert.deepEqual(directoryDigest(stateDir), before, argv.join(' '));
    }
  });

  it('a truncated or overwritten database: history, export, replay --all and run say so in one line and change no byte', async () => {
    const damages: [string, (file: string) => void][] = [
      ['truncated', (file) => truncateSync(file, 10_000)],
      ['overwritten', (file) => writeFileSync(file, Buffer.alloc(40_000, 0x41))],
    ];
    for (const [what, damage] of damages) {
      const stateDir = join(scratch, what);
      const database = join(stateDir, STATE_FILE);
      rmSync(stateDir, { recursive: true, force: true });
      assert.equal((await runCli(['demo', '--state-dir', stateDir, '--speed', '0', EXAMPLE])).code, 0);
      damage(database);
      const before = directoryDigest(stateDir);
      const named = new RegExp(`: ${database.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is damaged: .+; it was left as it was`);
      oneLine(await runCli(['history', TARGET, '--state-dir', stateDir]), named, `${what}: history`);
      oneLine(await runCli(['export', TARGET, '--state-dir', stateDir]), named, `${what}: export`);
      oneLine(await runCli(['replay', '--all', '--state-dir', stateDir]), named, `${what}: replay --all`);
      oneLine(await runLineup(stateDir), named, `${what}: run`);
      assert.deepEqual(directoryDigest(stateDir), before, what);
    }
  });

  it('a --state-dir that is a file: demo and run refuse in one line and create nothing', async () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'x');
    oneLine(await runCli(['demo', '--state-dir', file, '--speed', '0', EXAMPLE]), /^lineup demo: --state-dir \S+ is not a directory/, 'demo');
    oneLine(await runLineup(file), /^lineup run: --state-dir \S+ is not a directory/, 'run');
    oneLine(await runCli(['demo', '--state-dir', join(file, 'below'), '--speed', '0', EXAMPLE]), /^lineup demo: cannot create --state-dir \S+: a part of the path is a file\n$/, 'demo below a file');
    assert.equal(readFileSync(file, 'utf8'), 'x');
  });
});
