import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openStateDirForReading, openStateDirForWriting, readStateDirLock } from '../../lib/hosts/stateDir.ts';
import { jobSet } from './storeBehaviour.ts';

/** How many acknowledged passes to wait for before the kill: enough that it lands mid-stream. */
const ACKS_BEFORE_KILL = 40;

describe('store/sqliteStore under kill -9', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-crash-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('keeps every pass a killed writer acknowledged, and the next writer opens it', async () => {
    // Prepare: a writer in its own process, acknowledging passes as it writes them.
    const stateDir = join(scratch, 'state');
    const child = spawn(process.execPath, [join(import.meta.dirname, 'support', 'journalWriter.ts'), stateDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    const acked: number[] = [];
    // Act: kill -9 once enough passes were acknowledged, mid-stream.
    for await (const line of createInterface({ input: child.stdout })) {
      const match = /^acked (\d+)$/.exec(line);
      if (match?.[1] !== undefined) acked.push(Number(match[1]));
      if (acked.length === ACKS_BEFORE_KILL) child.kill('SIGKILL');
    }
    assert.equal(await exited, 'SIGKILL');
    // Assess: a reader sees every acknowledged pass; the lock of the dead writer is stale.
    assert.equal(readStateDirLock(stateDir), undefined);
    const reader = openStateDirForReading(stateDir, 'lineup history');
    const seen = new Set((await reader.store.listJournal(jobSet('crash'))).map((entry) => entry.at));
    const dirty = (await reader.store.getState(jobSet('crash')))?.dirty ?? 0;
    reader.close();
    for (const at of acked) assert.ok(seen.has(at), `pass ${at} was acknowledged but is gone`);
    assert.ok(dirty >= acked.length, `dirty ${dirty}, expected at least ${acked.length}`);
    const next = openStateDirForWriting(stateDir, { command: 'lineup run' });
    try {
      assert.ok((await next.store.listJournal(jobSet('crash'))).length >= acked.length);
    } finally {
      next.close();
    }
  });
});
