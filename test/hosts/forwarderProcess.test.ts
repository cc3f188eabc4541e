/**
 * The forwarder's process (lib/hosts/forwarderProcess.ts) in this process: its exit codes are
 * `lineup forward`'s, its log is one JSON line per entry, and a flag it does not know ends it
 * with 2 before it reads any configuration. test/cli/forward.process.test.ts runs it as a process.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ExitCode } from '../../lib/cli/io.ts';
import { FORWARD_EXIT, jsonLineLog, runForwarderProcess } from '../../lib/hosts/forwarderProcess.ts';

describe('forwarderProcess', () => {
  it("ends with `lineup forward`'s exit codes", () => {
    assert.deepEqual(FORWARD_EXIT, { stopped: ExitCode.Ok, cannotRun: ExitCode.Usage });
  });

  it('logs one JSON line per entry, its fields beside time, level and message', () => {
    const lines: string[] = [];
    jsonLineLog((text) => lines.push(text))('warn', 'put failed', { attempt: 2 });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]?.endsWith('\n'));
    const entry: unknown = JSON.parse(lines[0] ?? '');
    assert.ok(typeof entry === 'object' && entry !== null && 'time' in entry && typeof entry.time === 'string');
    assert.equal(new Date(entry.time).toISOString(), entry.time);
    assert.deepEqual({ ...entry, time: undefined }, { time: undefined, level: 'warn', message: 'put failed', attempt: 2 });
  });

  it('answers 2 for a flag it does not know, saying which flag it takes', async (t) => {
    const written: string[] = [];
    t.mock.method(process.stderr, 'write', (text: string) => written.push(text) > 0);
    assert.equal(await runForwarderProcess(['--cluster', 'c1']), FORWARD_EXIT.cannotRun);
    t.mock.restoreAll();
    assert.equal(written.length, 1);
    assert.match(written[0] ?? '', /^lineup forward: .*'--cluster'.*; expected only --kubeconfig FILE\n$/);
  });
});
