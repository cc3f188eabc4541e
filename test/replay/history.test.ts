import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gateTimingsOf, historyOf, historyText, latencyOf } from '../../lib/replay/history.ts';
import { parseBehaviour } from '../../lib/sim/behaviour.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import type { JournalEntry } from '../../lib/store/types.ts';
import { makeJobSet } from '../builders.ts';
import { KEY, NAME, recordStartup } from './fixtures.ts';

/** readyFirst: every Job ready 10 s after it starts and succeeded after 5 min, so the startup completes before any Job ends. */
const readyFirst = parseBehaviour({ default: { readyAfter: '10s', succeedAfter: '5m' } });

/** recordedReadyFirst: story 2 recorded a pass a minute, its Jobs as readyFirst says. */
const recordedReadyFirst = async (): Promise<JournalEntry[]> => {
  const store = new MemoryCheckpointStore();
  await recordStartup(store, { behaviour: readyFirst, steps: 6 });
  return store.listJournal(KEY);
};

/** linesOf: the text lines that start with `start` (after the indent). */
const linesOf = (text: string, start: string): string[] => text.split('\n').filter((line) => line.trimStart().startsWith(start));

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
    assert.ok(text.includes('    ResumeJob×2 GateOpened: InOrder: messagequeue Ready 1/1\n      driver-0, driver-1\n'), text);
    assert.ok(text.includes('    ResumeJob×2 GateOpened: InOrder: driver Ready 2/2\n      worker-0, worker-1\n'), text);
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
        '    saw: too-large\n' +
        '    not applied (replay r1); error: forbidden\n' +
        '    ResumeJob×1 GateOpened: AnyOrder: no gate\n' +
        '      j\n' +
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

  it('what the planner saw: per pass the counts it judged from the recorded inputs, and the InOrder gate with its numbers', async () => {
    const entries = await recordedReadyFirst();
    const report = historyOf(KEY, entries);
    assert.deepEqual(report.passes[1]?.counts, [
      { replicatedJob: 'messagequeue', replicas: 1, jobs: 1, active: 1, ready: 1, succeeded: 0, failed: 0, suspended: 0 },
      { replicatedJob: 'driver', replicas: 2, jobs: 2, active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 2 },
      { replicatedJob: 'worker', replicas: 2, jobs: 2, active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 2 },
    ]);
    assert.ok(
      report.passes.every((pass) => pass.counts !== undefined),
      'a delta entry gets its inputs rebuilt',
    );
    const text = historyText(report);
    assert.deepEqual(linesOf(text, 'saw ').slice(0, 2), [
      '    saw messagequeue 0/1 jobs; driver 0/2 jobs; worker 0/2 jobs',
      '    saw messagequeue 1/1 jobs: 1 active, 1 ready; driver 2/2 jobs: 2 suspended; worker 2/2 jobs: 2 suspended',
    ]);
    // The startup's last gate opened in pass 3: after it nothing is held and no gate acted, so no gate line.
    assert.deepEqual(linesOf(text, 'gate '), [
      '    gate InOrder: messagequeue Ready 0/1 ✗ → hold driver, worker',
      '    gate InOrder: messagequeue Ready 1/1 ✓, driver Ready 0/2 ✗ → hold worker',
      '    gate InOrder: messagequeue Ready 1/1 ✓, driver Ready 2/2 ✓ → release all',
    ]);
    assert.deepEqual(report.passes[1]?.gate?.held, ['worker']);
  });

  it('the dependsOn gate: each dependency with its numbers, until the last one holds', async () => {
    // Prepare: worker needs launcher Ready and initializer Complete; the initializer takes 2 minutes.
    const jobSet = makeJobSet(NAME)
      .replicatedJob('launcher', 2)
      .replicatedJob('initializer', 1)
      .replicatedJob('worker', 2, { dependsOn: [{ name: 'launcher', status: 'Ready' }, { name: 'initializer', status: 'Complete' }] })
      .obj();
    const behaviour = parseBehaviour({ default: { readyAfter: '10s', succeedAfter: '5m' }, replicatedJobs: { initializer: { succeedAfter: '90s' } } });
    const store = new MemoryCheckpointStore();
    await recordStartup(store, { jobSet, behaviour, steps: 3 });
    // Act
    const text = historyText(historyOf(KEY, await store.listJournal(KEY)));
    // Assess
    assert.deepEqual(linesOf(text, 'gate '), [
      '    gate dependsOn: worker needs launcher Ready 0/2 ✗, initializer Complete 0/1 ✗ → hold worker',
      '    gate dependsOn: worker needs launcher Ready 2/2 ✓, initializer Complete 0/1 ✗ → hold worker',
      '    gate dependsOn: worker needs launcher Ready 2/2 ✓, initializer Complete 1/1 ✓ → release worker',
    ]);
    assert.ok(text.includes('    ResumeJob×2 GateOpened: dependsOn: launcher Ready 2/2, initializer Complete 1/1\n      worker-0, worker-1\n'), text);
  });

  it('names the Jobs of each action on the line below it, a few by name and many as a range; other targets are in the message', async () => {
    const entry = (await recordedReadyFirst())[0]!;
    const many = { ...entry, actions: Array.from({ length: 8 }, (_, index) => ({ kind: 'ResumeJob', target: `${NAME}-worker-${index}`, code: 'GateOpened', message: 'InOrder: driver Ready 2/2', digest: 'x' })) };
    assert.ok(historyText(historyOf(KEY, [many])).includes('    ResumeJob×8 GateOpened: InOrder: driver Ready 2/2\n      worker-0..7 (8 jobs)\n'));
    const text = historyText(historyOf(KEY, [entry]));
    assert.ok(
      text.includes(
        `    CreateService×1 ServiceMissing: service ${NAME} does not exist\n` +
          '    CreateJob×1 GateOpened: InOrder: first replicatedJob\n' +
          '      messagequeue-0\n' +
          '    CreateJob×4 StartupRuleHeld: InOrder: waiting for messagequeue to be Ready: 0/1 jobs ready\n' +
          '      driver-0, driver-1, worker-0, worker-1\n' +
          '    UpdateJobSetStatus×1 StatusChanged: ',
      ),
      text,
    );
  });

  it('the pass that completes the startup says what it wrote, not the planner\'s "nothing to do"', async () => {
    const report = historyOf(KEY, await recordedReadyFirst());
    const completing = report.passes.find((pass) => pass.actions.some((action) => action.message.startsWith('InOrderStartupPolicyCompleted')));
    assert.ok(completing, 'a pass completes the startup');
    assert.equal(completing.reason, 'nothing to do', "the JSON keeps the planner's reason");
    const wrote =
      'wrote status: StartupPolicyInProgress=False (InOrderStartupPolicyInProgress), StartupPolicyCompleted=True (InOrderStartupPolicyCompleted); worker active 0→2, ready 0→2';
    assert.equal(completing.summary, wrote);
    const text = historyText(report);
    assert.ok(text.includes(`  ${completing.inputsDigest}  ${wrote}\n`), text);
    assert.ok(text.includes(`    UpdateJobSetStatus×1 StatusChanged: ${wrote.slice('wrote status: '.length)}\n`), text);
    assert.ok(!text.includes('nothing to do'), text);
  });

  it("a completing pass whose status write today's planner would not make names the conditions its Events announce", async () => {
    const entries = (await recordedReadyFirst()).map((entry) => ({ ...entry, actions: entry.actions.map((action) => (action.kind === 'UpdateJobSetStatus' ? { ...action, digest: 'another' } : action)) }));
    const completing = historyOf(KEY, entries).passes.find((pass) => pass.reason === 'nothing to do');
    assert.equal(completing?.summary, 'wrote status: InOrderStartupPolicyCompleted');
    assert.equal(completing?.statusWrite, undefined);
  });

  it("each stage from its gate to Ready: Lineup's time (event → writes done) and the cluster's (writes done → Ready)", async () => {
    // Prepare: each pass's event seen 300 ms before it, received 50 ms before it, its writes done 40 ms after.
    const entries = (await recordedReadyFirst()).map((entry) => ({
      ...entry,
      timings: { seenAt: entry.at - 300, eventAt: entry.at - 250, receivedAt: entry.at - 50, passStartedAt: entry.at, writesDoneAt: entry.at + 40 },
    }));
    // Act
    const report = historyOf(KEY, entries);
    // Assess: the driver stage, opened in pass 2, Ready when pass 3 read it — its event seen a minute less 300 ms after pass 2.
    const driver = report.gates.find((gate) => gate.stage?.replicatedJobs.includes('driver'));
    assert.deepEqual(driver?.stage, {
      replicatedJobs: ['driver'],
      created: [],
      resumed: [`${NAME}-driver-0`, `${NAME}-driver-1`],
      firstRunning: { pass: 3, at: new Date(entries[2]!.at - 300).toISOString(), afterWritesDone: 59_660 },
      ready: { pass: 3, at: new Date(entries[2]!.at - 300).toISOString(), afterWritesDone: 59_660 },
      lineup: 340,
      cluster: 59_660,
    });
    assert.equal(driver?.toWritesDone, 340);
    const text = historyText(report);
    assert.ok(
      text.includes(
        '    driver: resumed driver-0, driver-1 → a pod running by pass 3, +59.66s → Ready by pass 3, +59.66s\n' +
          '    Lineup 340 ms (event → writes done), the cluster 59.66s (writes done → Ready)\n',
      ),
      text,
    );
    assert.deepEqual(report.gates.map((gate) => gate.stage?.replicatedJobs), [['messagequeue'], ['driver'], ['worker']]);
  });

  it('a stage not Ready in the passes told says so, and one whose pods the inputs never show running says unknown', async () => {
    const entries = await recordedReadyFirst();
    const text = historyText(historyOf(KEY, entries.slice(0, 3)));
    assert.ok(text.includes('    worker: resumed worker-0, worker-1 → a pod running: unknown → Ready: not seen\n'), text);
    assert.ok(text.includes('    Lineup 0 ms (event → writes done), the cluster: not Ready in the passes shown\n'), text);
  });

  it('--limit: the newest N passes, numbered among all, and "N of M" said', async () => {
    const entries = await recordedReadyFirst();
    const total = entries.length;
    const report = historyOf(KEY, entries, { limit: 2 });
    assert.deepEqual(report.passes.map((pass) => pass.pass), [total - 1, total]);
    assert.equal(report.totalPasses, total);
    assert.ok(report.passes.every((pass) => pass.counts !== undefined), 'inputs rebuilt from entries before the window');
    assert.ok(report.gates.every((gate) => gate.pass >= total - 1), JSON.stringify(report.gates));
    assert.ok(historyText(report).startsWith(`newest 2 of ${total} passes (${total - 1}–${total}); --limit ${total} shows every one\npass ${total - 1}  `));
    // A limit that leaves nothing out says nothing about it.
    const whole = historyOf(KEY, entries, { limit: total });
    assert.equal(whole.totalPasses, total);
    assert.equal(historyText(whole), historyText(historyOf(KEY, entries)));
    assert.match(historyText(whole), /^pass 1 /);
  });
});
