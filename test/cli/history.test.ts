/**
 * `lineup history`'s handling of its state directory: it reads what `lineup run` kept, and a
 * directory without that state (a typo) is an error that creates nothing.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyCommand, HistoryMessage } from '../../lib/cli/run.ts';
import type { CliIo } from '../../lib/cli/io.ts';
import { openStateDirForWriting } from '../../lib/hosts/stateDir.ts';
import { packInputs } from '../../lib/reconcile/journal.ts';
import { makeJobSet } from '../builders.ts';
import { KEY, recordStartup } from '../replay/fixtures.ts';

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

  it('tells the story lineup run kept in its state directory: triggers, hop latencies, actions with reasons; --output json', async () => {
    // Prepare: state as lineup run leaves it, with one pass triggered by an event and one by the loop.
    const stateDir = join(scratch, 'state');
    const at = Date.UTC(2026, 0, 1);
    const first = {
      key: { cluster: 'local', namespace: 'default', name: 'js' },
      at,
      plannerVersion: '0.1.0+000000000000',
      planOptions: { controllerName: 'lineup.dev/controller', claimUnmanaged: false },
      triggers: [{ id: 'e1', detailType: 'JobSet Changed', kind: 'JobSet' as const, name: 'js', resourceVersion: '7', watchType: 'ADDED', time: at - 2_000 }],
      // The event time in whole seconds, as EventBridge and the local bus keep it.
      timings: { seenAt: at - 2_030, eventAt: at - 2_000, receivedAt: at - 5, passStartedAt: at, writesDoneAt: at + 20 },
      inputsDigest: 'abc123',
      inputsKept: 'stored' as const,
      // What the pass read: the JobSet, no Job yet.
      inputs: packInputs({ jobSet: makeJobSet('js').replicatedJob('driver', 2).replicatedJob('worker', 1).inOrder().obj(), jobs: [], service: undefined }),
      actions: [
        { kind: 'CreateJob', target: 'js-driver-0', code: 'GateOpened', message: 'InOrder: first replicatedJob', digest: 'd0' },
        { kind: 'CreateJob', target: 'js-driver-1', code: 'GateOpened', message: 'InOrder: first replicatedJob', digest: 'd1' },
        { kind: 'CreateJob', target: 'js-worker-0', code: 'StartupRuleHeld', message: 'InOrder: waiting for driver to be Ready: 0/2 jobs ready', digest: 'd2' },
      ],
      reason: 'starting driver',
      applied: true,
    };
    const second = { ...first, at: at + 30, triggers: [], timings: { passStartedAt: at + 30, writesDoneAt: at + 41 }, inputsDigest: 'def456', actions: [], reason: 'nothing to do' };
    const { close, store } = openStateDirForWriting(stateDir, { command: 'the test' });
    try {
      await store.appendJournal(first);
      await store.appendJournal(second);
    } finally {
      close();
    }
    // Act
    const text = capture();
    const code = await historyCommand('local/default/js', { stateDir }, text.io);
    const json = capture();
    const jsonCode = await historyCommand('local/default/js', { stateDir, output: 'json' }, json.io);
    // Assess
    assert.equal(code, 0, text.stderr());
    assert.equal(
      text.stdout(),
      'pass 1  2026-01-01T00:00:00.000Z  abc123  starting driver\n' +
        '    after JobSet Changed JobSet js rv 7 ADDED\n' +
        '    seen→received 2025 ms, received→pass 5 ms, pass 20 ms\n' +
        '    saw driver 0/2 jobs; worker 0/1 jobs\n' +
        '    gate InOrder: driver Ready 0/2 ✗ → hold worker\n' +
        '    CreateJob×2 GateOpened: InOrder: first replicatedJob\n' +
        '      driver-0, driver-1\n' +
        '    CreateJob×1 StartupRuleHeld: InOrder: waiting for driver to be Ready: 0/2 jobs ready\n' +
        '      worker-0\n' +
        'pass 2  2026-01-01T00:00:00.030Z  def456  nothing to do\n' +
        '    after no event of its own: events arrived during the previous pass of this loop\n' +
        '    pass 11 ms\n' +
        '    saw driver 0/2 jobs; worker 0/1 jobs\n' +
        '    gate InOrder: driver Ready 0/2 ✗ → hold worker\n' +
        "where the time went, from each gate's event to the pass that opened it:\n" +
        '  pass 1  2026-01-01T00:00:00.000Z  InOrder: first replicatedJob\n' +
        '    after JobSet Changed JobSet js rv 7 ADDED\n' +
        '    event→pass 2030 ms, event→writes done 2050 ms: seen→received 2025 ms, received→pass 5 ms, pass 20 ms\n' +
        '    driver: created driver-0, driver-1 → a pod running: unknown → Ready: not seen\n' +
        '    Lineup 2050 ms (event → writes done), the cluster: not Ready in the passes shown\n',
    );
    assert.equal(jsonCode, 0, json.stderr());
    const report = JSON.parse(json.stdout()) as Record<string, unknown>;
    const counts = [
      { replicatedJob: 'driver', replicas: 2, jobs: 0, active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 0 },
      { replicatedJob: 'worker', replicas: 1, jobs: 0, active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 0 },
    ];
    const gate = {
      form: 'InOrder',
      steps: [{ replicatedJobs: ['worker'], checks: [{ replicatedJob: 'driver', status: 'Ready', have: 0, need: 2, met: false }], open: false }],
      held: ['worker'],
      text: 'InOrder: driver Ready 0/2 ✗ → hold worker',
    };
    // Today's shape, every field as it was, and the fields added beside them.
    assert.deepEqual(report, {
      format: 'lineup.dev/history/v1',
      jobSet: { cluster: 'local', namespace: 'default', name: 'js' },
      passes: [
        {
          pass: 1,
          at: '2026-01-01T00:00:00.000Z',
          triggers: first.triggers,
          latency: { seenToReceived: 2025, receivedToPass: 5, pass: 20 },
          reason: 'starting driver',
          applied: true,
          plannerVersion: '0.1.0+000000000000',
          inputsDigest: 'abc123',
          inputsKept: 'stored',
          actions: first.actions.map(({ kind, target, code: reasonCode, message }) => ({ kind, target, code: reasonCode, message })),
          summary: 'starting driver',
          counts,
          gate,
        },
        {
          pass: 2,
          at: '2026-01-01T00:00:00.030Z',
          triggers: [],
          latency: { pass: 11 },
          reason: 'nothing to do',
          applied: true,
          plannerVersion: '0.1.0+000000000000',
          inputsDigest: 'def456',
          inputsKept: 'stored',
          actions: [],
          summary: 'nothing to do',
          counts,
          gate,
        },
      ],
      gates: [
        {
          pass: 1,
          at: '2026-01-01T00:00:00.000Z',
          gate: 'InOrder: first replicatedJob',
          eventPass: 1,
          event: first.triggers[0],
          toPass: 2030,
          toWritesDone: 2050,
          hops: { seenToReceived: 2025, receivedToPass: 5, pass: 20 },
          stage: { replicatedJobs: ['driver'], created: ['js-driver-0', 'js-driver-1'], resumed: [], lineup: 2050 },
        },
      ],
      totalPasses: 2,
    });
  });

  it('--limit N: the newest N passes, "N of M" in the text, totalPasses in the json, and the drawing of the same passes', async () => {
    // Prepare: story 2's startup as lineup run records it.
    const stateDir = join(scratch, 'story2');
    const { close, store } = openStateDirForWriting(stateDir, { command: 'the test' });
    try {
      await recordStartup(store);
    } finally {
      close();
    }
    const target = `${KEY.cluster}/${KEY.namespace}/${KEY.name}`;
    const all = capture();
    assert.equal(await historyCommand(target, { stateDir, output: 'json' }, all.io), 0, all.stderr());
    const total = (JSON.parse(all.stdout()) as { totalPasses: number }).totalPasses;
    assert.ok(total > 2, 'the startup records more than two passes');
    // Act
    const text = capture();
    const json = capture();
    const html = capture();
    assert.equal(await historyCommand(target, { stateDir, limit: '2' }, text.io), 0, text.stderr());
    assert.equal(await historyCommand(target, { stateDir, limit: '2', output: 'json' }, json.io), 0, json.stderr());
    assert.equal(await historyCommand(target, { stateDir, limit: '2', output: 'html' }, html.io), 0, html.stderr());
    // Assess
    assert.ok(text.stdout().startsWith(`newest 2 of ${total} passes (${total - 1}–${total}); --limit ${total} shows every one\npass ${total - 1}  `), text.stdout());
    const report = JSON.parse(json.stdout()) as { totalPasses: number; passes: { pass: number }[] };
    assert.equal(report.totalPasses, total);
    assert.deepEqual(report.passes.map((pass) => pass.pass), [total - 1, total]);
    assert.match(html.stdout(), /2 passes from /);
  });
});
