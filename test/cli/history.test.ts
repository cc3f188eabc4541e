/**
 * `lineup history`'s handling of its state directory: it reads what `lineup run` kept, and a
 * directory without that state (a typo) is an error that creates nothing.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyCommand } from '../../lib/cli/run.ts';
import type { CliIo } from '../../lib/cli/io.ts';
import { HistoryMessage } from '../../lib/constants.ts';
import { Counters } from '../../lib/counters.ts';
import { openStateStore } from '../../lib/hosts/local.ts';

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), readFile: () => assert.fail('history reads no file') };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
};

describe('cli/run: lineup history --state-dir', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-history-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('says no state exists in a directory that does not exist, and does not create it', async () => {
    const typo = join(scratch, 'no-such', '.lineupp');
    const { io, stdout, stderr } = capture();
    const code = await historyCommand('local/default/js', { stateDir: typo }, io);
    assert.equal(code, 2);
    assert.equal(stderr(), `${HistoryMessage.noState(typo)}\n`);
    assert.equal(stdout(), '');
    assert.equal(existsSync(join(scratch, 'no-such')), false, 'the mistyped directory was created');
  });

  it('says no state exists in a directory lineup run never used, and leaves it as it was', async () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    const { io, stderr } = capture();
    assert.equal(await historyCommand('local/default/js', { stateDir: empty }, io), 2);
    assert.equal(stderr(), `${HistoryMessage.noState(empty)}\n`);
    assert.deepEqual(readdirSync(empty), []);
  });

  it("reads the decisions lineup run kept in its state directory", async () => {
    // Prepare: state as lineup run leaves it, with one decision.
    const stateDir = join(scratch, 'state');
    const { dynamo, store } = await openStateStore(stateDir, new Counters());
    try {
      await store.appendJournal({
        key: { cluster: 'local', namespace: 'default', name: 'js' },
        at: Date.UTC(2026, 0, 1),
        plannerVersion: '0.1.0+000000000000',
        planOptions: { controllerName: 'lineup.dev/controller', claimUnmanaged: false },
        triggers: [],
        timings: { passStartedAt: Date.UTC(2026, 0, 1), writesDoneAt: Date.UTC(2026, 0, 1) + 20 },
        inputsDigest: 'abc123',
        inputsKept: 'unchanged',
        actions: [
          { kind: 'CreateJob', target: 'js-driver-0', code: 'GateOpened', message: 'InOrder: first replicatedJob', digest: 'd0' },
          { kind: 'CreateJob', target: 'js-driver-1', code: 'GateOpened', message: 'InOrder: first replicatedJob', digest: 'd1' },
          { kind: 'CreateJob', target: 'js-worker-0', code: 'StartupRuleHeld', message: 'InOrder: waiting for driver to be Ready: 0/2 jobs ready', digest: 'd2' },
        ],
        reason: 'starting driver',
        applied: true,
      });
    } finally {
      await dynamo.stop();
    }
    // Act
    const { io, stdout, stderr } = capture();
    const code = await historyCommand('local/default/js', { stateDir }, io);
    // Assess
    assert.equal(code, 0, stderr());
    assert.equal(
      stdout(),
      '2026-01-01T00:00:00.000Z  abc123  starting driver\n' +
        '    CreateJob×2 GateOpened: InOrder: first replicatedJob\n' +
        '    CreateJob×1 StartupRuleHeld: InOrder: waiting for driver to be Ready: 0/2 jobs ready\n',
    );
  });
});
