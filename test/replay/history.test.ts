import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gateTimingsOf, historyOf, historyText, latencyOf } from '../../lib/replay/history.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import type { JournalEntry } from '../../lib/store/types.ts';
import { KEY, NAME, recordStartup } from './fixtures.ts';

describe('replay/history: the story of a JobSet from its journal', () => {
  it('latencyOf: only the hops whose two ends were recorded', () => {
    assert.deepEqual(latencyOf({ seenAt: 100, eventAt: 130, receivedAt: 140, passStartedAt: 145, writesDoneAt: 190 }), { seenToBus: 30, busToReceived: 10, receivedToPass: 5, pass: 45 });
    assert.deepEqual(latencyOf({ eventAt: 130, passStartedAt: 145, writesDoneAt: 190 }), { pass: 45 });
    assert.deepEqual(latencyOf({ receivedAt: 140, passStartedAt: 145, writesDoneAt: 190 }), { receivedToPass: 5, pass: 45 });
  });

  it('latencyOf: an event time in whole seconds gives forwarder → reconciler as one hop, never a negative one', () => {
    // Prepare: seen at 12.700 s; EventBridge stamps 12 s; received at 12.790 s.
    const timings = { seenAt: 12_700, eventAt: 12_000, receivedAt: 12_790, passStartedAt: 12_800, writesDoneAt: 12_850 };
    // Act, Assess: split at the bus this would read seen→bus -700 ms, bus→received 790 ms.
    assert.deepEqual(latencyOf(timings), { seenToReceived: 90, receivedToPass: 10, pass: 50 });
    assert.deepEqual(latencyOf({ eventAt: 12_000, receivedAt: 12_790, passStartedAt: 12_800, writesDoneAt: 12_850 }), { busToReceived: 790, receivedToPass: 10, pass: 50 });
  });

  it('a recorded startup: the first pass names its event, the resumes name the counts that opened each gate', async () => {
    const store = new MemoryCheckpointStore();
    await recordStartup(store);
    const report = historyOf(KEY, await store.listJournal(KEY));
    assert.equal(report.format, 'lineup.dev/history/v1');
    assert.deepEqual(report.passes[0]?.triggers.map((trigger) => [trigger.id, trigger.kind, trigger.name]), [['event-0', 'JobSet', NAME]]);
    const text = historyText(report);
    assert.match(text, /^pass 1 {2}\S+ {2}[0-9a-f]{16} {2}created 5 jobs/);
    assert.ok(text.includes('    ResumeJob×2 GateOpened: InOrder: messagequeue Ready 1/1\n'), text);
    assert.ok(text.includes('    ResumeJob×2 GateOpened: InOrder: driver Ready 2/2\n'), text);
  });

  it('says when a pass was not applied (a replayed event), failed, or kept only some actions', () => {
    const entry: JournalEntry = {
      key: KEY,
      at: Date.UTC(2026, 0, 1),
      plannerVersion: 'v',
      planOptions: { controllerName: 'lineup.dev/controller', claimUnmanaged: false },
      triggers: [{ detailType: 'Job Changed', kind: 'Job', name: 'j', resourceVersion: '3', watchType: 'MODIFIED', replayName: 'r1' }],
      timings: { passStartedAt: Date.UTC(2026, 0, 1), writesDoneAt: Date.UTC(2026, 0, 1) + 3 },
      inputsDigest: 'd',
      inputsKept: 'too-large',
      actions: [{ kind: 'ResumeJob', target: 'j', code: 'GateOpened', message: 'AnyOrder: no gate', digest: 'x' }],
      actionsOmitted: 499,
      reason: 'resumed 500 jobs',
      applied: false,
      replayName: 'r1',
      error: 'forbidden',
    };
    assert.equal(
      historyText(historyOf(KEY, [entry])),
      'pass 1  2026-01-01T00:00:00.000Z  d  resumed 500 jobs\n' +
        '    after Job Changed Job j rv 3 MODIFIED (replay r1)\n' +
        '    pass 3 ms\n' +
        '    not applied (replay r1); error: forbidden\n' +
        '    ResumeJob×1 GateOpened: AnyOrder: no gate\n' +
        '    … 499 more actions not kept (item size limit)\n' +
        "where the time went, from each gate's event to the pass that opened it:\n" +
        '  pass 1  2026-01-01T00:00:00.000Z  AnyOrder: no gate\n' +
        '    after Job Changed Job j rv 3 MODIFIED (replay r1)\n' +
        '    pass 3 ms\n',
    );
  });

  it('gateTimingsOf: a gate opened by a later pass of a loop is timed from the event that started the loop; one without any event only by its pass', () => {
    const base = { key: KEY, plannerVersion: 'v', planOptions: { controllerName: 'lineup.dev/controller', claimUnmanaged: false }, inputsDigest: 'd', inputsKept: 'stored' as const, applied: true, reason: 'r' };
    const action = (code: string, message: string) => ({ kind: 'ResumeJob', target: 'j', code, message, digest: 'x' });
    const event = { id: 'e1', detailType: 'Job Changed', kind: 'Job' as const, name: 'a-0', resourceVersion: '9', watchType: 'MODIFIED', time: 130 };
    const entries: JournalEntry[] = [
      { ...base, at: 50, triggers: [], timings: { passStartedAt: 50, writesDoneAt: 54 }, actions: [action('GateOpened', 'InOrder: first replicatedJob')] },
      { ...base, at: 145, triggers: [event], timings: { seenAt: 100, eventAt: 130, receivedAt: 140, passStartedAt: 145, writesDoneAt: 190 }, actions: [action('StartupRuleHeld', 'InOrder: waiting')] },
      {
        ...base,
        at: 200,
        triggers: [],
        timings: { passStartedAt: 200, writesDoneAt: 230 },
        actions: [action('GateOpened', 'InOrder: a Ready 1/1'), action('GateOpened', 'InOrder: a Ready 1/1'), action('GateOpened', 'InOrder: b Ready 1/1')],
      },
    ];
    const hops = { seenToBus: 30, busToReceived: 10, receivedToPass: 60, pass: 30 };
    assert.deepEqual(gateTimingsOf(entries), [
      { pass: 1, at: new Date(50).toISOString(), gate: 'InOrder: first replicatedJob', eventPass: 1, hops: { pass: 4 } },
      { pass: 3, at: new Date(200).toISOString(), gate: 'InOrder: a Ready 1/1', eventPass: 2, event, toPass: 100, toWritesDone: 130, hops },
      { pass: 3, at: new Date(200).toISOString(), gate: 'InOrder: b Ready 1/1', eventPass: 2, event, toPass: 100, toWritesDone: 130, hops },
    ]);
    assert.ok(
      historyText(historyOf(KEY, entries)).endsWith(
        '  pass 3  1970-01-01T00:00:00.200Z  InOrder: b Ready 1/1\n' +
          '    after Job Changed Job a-0 rv 9 MODIFIED (the event of pass 2, which started its loop)\n' +
          '    event→pass 100 ms, event→writes done 130 ms: seen→bus 30 ms, bus→received 10 ms, received→pass 60 ms, pass 30 ms\n',
      ),
    );
  });

  it('a recorded startup: every gate the passes opened is in the summary, once per pass', async () => {
    const store = new MemoryCheckpointStore();
    await recordStartup(store);
    const report = historyOf(KEY, await store.listJournal(KEY));
    const opened = report.passes.flatMap((pass) => [...new Set(pass.actions.filter((action) => action.code === 'GateOpened').map((action) => action.message))].map((gate) => [pass.pass, gate]));
    assert.ok(opened.length >= 2, 'story 2 opens its gates');
    assert.deepEqual(report.gates.map((gate) => [gate.pass, gate.gate]), opened);
    assert.ok(report.gates.every((gate) => gate.event !== undefined && gate.toWritesDone !== undefined), JSON.stringify(report.gates));
  });
});
