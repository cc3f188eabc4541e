import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StateDirError } from '../../lib/errors.ts';
import { LOCK_FILE, STATE_FILE, openStateDirForReading, openStateDirForWriting, readStateDirLock } from '../../lib/hosts/stateDir.ts';
import { jobSet, makeJournalEntry, T0 } from '../store/storeBehaviour.ts';
import { directoryDigest } from './directoryDigest.ts';

describe('hosts/stateDir', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-statedir-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  let dirs = 0;
  const freshPath = (): string => {
    dirs += 1;
    return join(scratch, `state-${dirs}`);
  };

  /** keptState: a state directory a writer filled with two journal entries and closed. */
  const keptState = async (): Promise<string> => {
    const stateDir = freshPath();
    const writer = openStateDirForWriting(stateDir, { command: 'lineup run' });
    await writer.store.appendJournal(makeJournalEntry(jobSet('a'), T0));
    await writer.store.appendJournal(makeJournalEntry(jobSet('a'), T0 + 10));
    writer.close();
    return stateDir;
  };

  /** refusal: the StateDirError `work` throws. */
  const refusal = (work: () => unknown): StateDirError => {
    try {
      work();
    } catch (error) {
      if (error instanceof StateDirError) return error;
      throw error;
    }
    assert.fail('expected a StateDirError');
  };

  it('creates the directory, holds the lock while writing, and leaves only the database when closed', () => {
    const stateDir = join(freshPath(), 'nested');
    const writer = openStateDirForWriting(stateDir, { command: 'lineup run' });
    const lock = JSON.parse(readFileSync(join(stateDir, LOCK_FILE), 'utf8')) as { pid: number; command: string; startedAt: string };
    assert.deepEqual([lock.pid, lock.command], [process.pid, 'lineup run']);
    assert.ok(Number.isFinite(Date.parse(lock.startedAt)));
    assert.equal(writer.existed, false);
    writer.close();
    // Out of write-ahead-log mode on close: a later read-only open has nothing to create.
    assert.deepEqual(readdir(stateDir), [STATE_FILE]);
  });

  it('refuses a second writer while the first runs, naming its command and pid', () => {
    const stateDir = freshPath();
    const first = openStateDirForWriting(stateDir, { command: 'lineup demo' });
    try {
      const error = refusal(() => openStateDirForWriting(stateDir, { command: 'lineup run' }));
      assert.match(error.message, new RegExp(`^lineup run: ${escape(stateDir)} is in use by lineup demo \\(pid ${process.pid}\\) since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: expected one writer at a time`));
    } finally {
      first.close();
    }
    openStateDirForWriting(stateDir, { command: 'lineup run' }).close();
  });

  it('takes over the lock of a writer that was killed (its pid is gone)', async () => {
    const stateDir = await keptState();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(stateDir, LOCK_FILE), JSON.stringify({ pid: Number(gone.stdout), command: 'lineup run', startedAt: new Date(T0).toISOString() }));
    assert.equal(readStateDirLock(stateDir), undefined);
    const writer = openStateDirForWriting(stateDir, { command: 'lineup run' });
    try {
      assert.equal((await writer.store.listJournal(jobSet('a'))).length, 2);
    } finally {
      writer.close();
    }
  });

  it('refuses a path that is a file, or under one, and creates nothing', () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'not a directory');
    assert.match(refusal(() => openStateDirForWriting(file, { command: 'lineup demo' })).message, /^lineup demo: --state-dir \S+ is not a directory: expected a directory/);
    assert.match(refusal(() => openStateDirForReading(file, 'lineup history')).message, /^lineup history: --state-dir \S+ is not a directory/);
    assert.match(refusal(() => openStateDirForWriting(join(file, 'below'), { command: 'lineup demo' })).message, /^lineup demo: cannot create --state-dir \S+below: a part of the path is a file$/);
    assert.equal(readFileSync(file, 'utf8'), 'not a directory');
  });

  it('refuses a directory it cannot create, with the reason, at once', () => {
    const error = refusal(() => openStateDirForWriting('/proc/lineup-state', { command: 'lineup demo' }));
    assert.match(error.message, /^lineup demo: cannot create --state-dir \/proc\/lineup-state: /);
    assert.equal(existsSync('/proc/lineup-state'), false);
  });

  it('reads nothing and creates nothing where there is no state, and names an earlier format', () => {
    const missing = freshPath();
    assert.match(refusal(() => openStateDirForReading(missing, 'lineup history')).message, /^lineup history: no state in \S+: expected the --state-dir of a lineup run or lineup demo$/);
    assert.equal(existsSync(missing), false);
    const legacy = freshPath();
    mkdirSync(join(legacy, 'dynamo'), { recursive: true });
    assert.match(refusal(() => openStateDirForReading(legacy, 'lineup export')).message, /^lineup export: \S+ holds state in an earlier Lineup's format \(\S+dynamo, LevelDB\)/);
    assert.match(refusal(() => openStateDirForWriting(legacy, { command: 'lineup run' })).message, /earlier Lineup's format/);
    assert.deepEqual(readdir(legacy), ['dynamo']);
  });

  it('reads without writing a byte, and sees what a writer commits while it runs', async () => {
    const stateDir = await keptState();
    const before = directoryDigest(stateDir);
    const reader = openStateDirForReading(stateDir, 'lineup history');
    try {
      assert.equal((await reader.store.listJournal(jobSet('a'))).length, 2);
    } finally {
      reader.close();
    }
    assert.deepEqual(directoryDigest(stateDir), before);
    const writer = openStateDirForWriting(stateDir, { command: 'lineup run' });
    const live = openStateDirForReading(stateDir, 'lineup history');
    try {
      await writer.store.appendJournal(makeJournalEntry(jobSet('a'), T0 + 20));
      assert.equal((await live.store.listJournal(jobSet('a'))).length, 3);
    } finally {
      live.close();
      writer.close();
    }
  });

  it('reports a damaged database naming the file, for readers and writers alike, and changes no byte of it', async () => {
    const damages: [string, (file: string) => void, RegExp][] = [
      ['truncated', (file) => truncateSync(file, 5_000), /is damaged: /],
      ['overwritten', (file) => writeFileSync(file, Buffer.alloc(16_384, 0x5a)), /is damaged: file is not a database|cannot be opened/],
      ['another SQLite file', (file) => writeFileSync(file, readFileSync(file).fill(0, 68, 72)), /is not a Lineup state database/],
    ];
    for (const [what, damage, says] of damages) {
      const stateDir = await keptState();
      damage(join(stateDir, STATE_FILE));
      const before = directoryDigest(stateDir);
      for (const open of [() => openStateDirForReading(stateDir, 'lineup history'), () => openStateDirForWriting(stateDir, { command: 'lineup run' })]) {
        const error = refusal(open);
        assert.match(error.message, new RegExp(`^lineup (history|run): ${escape(join(stateDir, STATE_FILE))} `), what);
        assert.match(error.message, says, what);
        assert.match(error.message, /it was left as it was/, what);
        assert.doesNotMatch(error.message, /\n/, what);
      }
      assert.deepEqual(directoryDigest(stateDir), before, what);
    }
  });

  it('refuses a directory with state when the writer requires a new one, and leaves it as it was', async () => {
    const stateDir = await keptState();
    const before = directoryDigest(stateDir);
    const error = refusal(() => openStateDirForWriting(stateDir, { command: 'lineup demo', requireNew: (dir) => `lineup demo: ${dir} already holds state` }));
    assert.equal(error.message, `lineup demo: ${stateDir} already holds state`);
    assert.deepEqual(directoryDigest(stateDir), before);
  });

  it('refuses a missing directory when the writer requires state, creating nothing', () => {
    const missing = freshPath();
    assert.match(refusal(() => openStateDirForWriting(missing, { command: 'lineup clusters add', requireExisting: true })).message, /^lineup clusters add: no state in /);
    assert.equal(existsSync(missing), false);
  });
});

const readdir = (dir: string): string[] => readdirSync(dir).sort();

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
