import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historyOf, historyText, latencyOf } from '../../lib/replay/history.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import type { JournalEntry } from '../../lib/store/types.ts';
import { KEY, NAME, recordStartup } from './fixtures.ts';

describe('replay/history: the story of a JobSet from its journal', () => {
  it('latencyOf: only the hops whose two ends were recorded', () => {
    assert.deepEqual(latencyOf({ seenAt: 100, eventAt: 130, receivedAt: 140, passStartedAt: 145, writesDoneAt: 190 }), { seenToBus: 30, busToReceived: 10, receivedToPass: 5, pass: 45 });
    assert.deepEqual(latencyOf({ eventAt: 130, passStartedAt: 145, writesDoneAt: 190 }), { pass: 45 });
    assert.deepEqual(latencyOf({ receivedAt: 140, passStartedAt: 145, writesDoneAt: 190 }), { receivedToPass: 5, pass: 45 });
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
        '    … 499 more actions not kept (item size limit)\n',
    );
  });
});
