import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../lib/plan/planner.ts';
import { PLANNER_VERSION } from '../../lib/plan/version.ts';
import {
  InputsMemory,
  canonicalJson,
  inputsDigest,
  inputsOf,
  journalActionsOf,
  journalEntryOf,
  observedOfEntry,
  packInputs,
  unpackInputs,
} from '../../lib/reconcile/journal.ts';
import { UnavailableError } from '../../lib/errors.ts';
import { handleEvent } from '../../lib/reconcile/reconcileJobSet.ts';
import type { ClusterGateway } from '../../lib/reconcile/types.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import type { JournalEntry } from '../../lib/store/types.ts';
import { CLUSTER, detailFor, reconcileDeps, simWorld, story2 } from './fixtures.ts';

const NAME = 'messagequeue-driver-worker';
const key = { cluster: CLUSTER, namespace: 'default', name: NAME };

/** startup: story 2 through its whole startup, one event per step; the JobSet's journal. */
const startup = async (): Promise<JournalEntry[]> => {
  const world = simWorld([story2()]);
  const store = new MemoryCheckpointStore();
  const { deps } = reconcileDeps(store, world.gateway, world.now, 'owner', { inputsMemory: new InputsMemory() });
  for (let step = 0; step < 8; step += 1) {
    const outcome = await handleEvent(
      {
        source: `lineup.${CLUSTER}`,
        detail: { ...detailFor(NAME), resourceVersion: String(step + 1), seenAt: world.now() - 300 },
        id: `event-${step}`,
        detailType: 'JobSet Changed',
        time: new Date(world.now() - 200).toISOString(),
      },
      deps,
    );
    assert.equal(outcome, 'reconciled');
    world.queue.runUntil(world.queue.now() + 60_000);
  }
  return store.listJournal(key);
};

describe('reconcile/journal: one entry per pass', () => {
  it('records the triggering event, the hops, the planner version and every action with its reason', async () => {
    const entries = await startup();
    assert.ok(entries.length >= 4, `a startup takes several passes, got ${entries.length}`);
    const [first] = entries;
    assert.ok(first);
    assert.equal(first.plannerVersion, PLANNER_VERSION);
    assert.deepEqual(first.triggers, [
      { id: 'event-0', detailType: 'JobSet Changed', kind: 'JobSet', name: NAME, resourceVersion: '1', watchType: 'MODIFIED', time: first.at - 200 },
    ]);
    const { seenAt, eventAt, receivedAt, passStartedAt, writesDoneAt } = first.timings;
    assert.equal(seenAt, first.at - 300);
    assert.ok(eventAt !== undefined && receivedAt !== undefined);
    assert.ok(receivedAt <= passStartedAt && passStartedAt <= writesDoneAt, JSON.stringify(first.timings));
    assert.equal(passStartedAt, first.at);
    const creates = first.actions.filter((action) => action.kind === 'CreateJob');
    assert.deepEqual(
      creates.map((action) => [action.target, action.code]),
      [
        [`${NAME}-messagequeue-0`, 'GateOpened'],
        [`${NAME}-driver-0`, 'StartupRuleHeld'],
        [`${NAME}-driver-1`, 'StartupRuleHeld'],
        [`${NAME}-worker-0`, 'StartupRuleHeld'],
        [`${NAME}-worker-1`, 'StartupRuleHeld'],
      ],
    );
    const resumes = entries.flatMap((entry) => entry.actions.filter((action) => action.kind === 'ResumeJob'));
    assert.deepEqual(
      resumes.map((action) => [action.target, action.code, action.message]),
      [
        [`${NAME}-driver-0`, 'GateOpened', 'InOrder: messagequeue Ready 1/1'],
        [`${NAME}-driver-1`, 'GateOpened', 'InOrder: messagequeue Ready 1/1'],
        [`${NAME}-worker-0`, 'GateOpened', 'InOrder: driver Ready 2/2'],
        [`${NAME}-worker-1`, 'GateOpened', 'InOrder: driver Ready 2/2'],
      ],
    );
  });

  it('stores inputs when they changed and refers to them by digest when they did not, across processes', async () => {
    const world = simWorld([story2()]);
    const store = new MemoryCheckpointStore();
    // Process 1's first write fails for good (not a conflict): its entry records the error and
    // the event is retried — by process 2, which plans on the same inputs.
    let failures = 1;
    const failing: ClusterGateway = {
      observe: (namespace, name, now) => world.gateway.observe(namespace, name, now),
      apply: (namespace, name, action, now) => (failures-- > 0 ? Promise.reject(new UnavailableError('api server down')) : world.gateway.apply(namespace, name, action, now)),
    };
    const event = { source: `lineup.${CLUSTER}`, detail: { ...detailFor(NAME), resourceVersion: '1' }, id: 'event-0', detailType: 'JobSet Changed' };
    const first = reconcileDeps(store, failing, world.now, 'process-1', { inputsMemory: new InputsMemory() });
    await assert.rejects(handleEvent(event, first.deps), /api server down/);
    const second = reconcileDeps(store, failing, world.now, 'process-2', { inputsMemory: new InputsMemory() });
    assert.equal(await handleEvent(event, second.deps), 'reconciled');
    const entries = await store.listJournal(key);
    assert.deepEqual(
      entries.map((entry) => [entry.inputsKept, entry.inputs !== undefined, entry.error]),
      [
        ['stored', true, 'api server down'],
        ['unchanged', false, undefined],
      ],
    );
    assert.equal(entries[1]?.inputsDigest, entries[0]?.inputsDigest);
    const replanned = observedOfEntry(entries, 1);
    assert.ok(typeof replanned !== 'string', String(replanned));
    assert.deepEqual(journalActionsOf(plan(replanned, DEFAULT_PLAN_OPTIONS)), entries[1]?.actions);
  });

  it('a startup writes an entry only for the passes that changed something, and one that shows how it ended', async () => {
    const entries = await startup();
    assert.ok(entries.slice(0, -1).every((entry) => entry.actions.length > 0));
    const last = entries.at(-1);
    assert.deepEqual(last?.actions, []);
    const ended = observedOfEntry(entries, entries.length - 1);
    assert.ok(typeof ended !== 'string' && ended.jobSet.status?.terminalState === 'Completed', 'the last entry shows the JobSet completed');
    for (const [index, entry] of entries.entries()) {
      const previous = entries[index - 1];
      assert.equal(entry.inputsKept, previous?.inputsDigest === entry.inputsDigest ? 'unchanged' : 'stored', `entry ${index}`);
      assert.equal(entry.inputs !== undefined, entry.inputsKept === 'stored');
    }
  });

  it("re-planning every entry's recorded inputs gives exactly the recorded actions and reasons", async () => {
    const entries = await startup();
    for (const index of entries.keys()) {
      const observed = observedOfEntry(entries, index);
      assert.ok(typeof observed !== 'string', `entry ${index}: ${String(observed)}`);
      assert.equal(inputsDigest(inputsOf(observed)), entries[index]?.inputsDigest);
      assert.deepEqual(entries[index]?.planOptions, DEFAULT_PLAN_OPTIONS);
      const replanned = plan(observed, entries[index]?.planOptions ?? DEFAULT_PLAN_OPTIONS);
      assert.deepEqual(journalActionsOf(replanned), entries[index]?.actions, `entry ${index}`);
    }
  });

  it('an unchanged entry whose stored inputs are gone, and one too large, say why they cannot be had', () => {
    const base = { key, plannerVersion: PLANNER_VERSION, planOptions: DEFAULT_PLAN_OPTIONS, triggers: [], timings: { passStartedAt: 1, writesDoneAt: 2 }, actions: [], reason: '', applied: true } as const;
    const entries: JournalEntry[] = [
      { ...base, at: 1, inputsDigest: 'aaaa', inputsKept: 'unchanged' },
      { ...base, at: 2, inputsDigest: 'bbbb', inputsKept: 'too-large' },
    ];
    assert.equal(observedOfEntry(entries, 0), 'inputs aaaa are referenced but no earlier entry stores them (expired?)');
    assert.equal(observedOfEntry(entries, 1), 'inputs were too large to keep');
  });

  it('unpackInputs refuses what is not gzip+base64 JSON of the inputs, saying why', () => {
    assert.throws(() => unpackInputs('not gzip'), /^InvalidInputError: recorded inputs are not gzip\+base64 JSON: /);
    assert.throws(() => unpackInputs(Buffer.from('{}').toString('base64')), /recorded inputs are not gzip\+base64 JSON/);
    const world = simWorld([story2()]);
    const wrong = packInputs({ ...inputsOf({ jobSet: story2(), jobs: [], service: undefined, now: world.now() }), jobs: 'none' as never });
    assert.throws(() => unpackInputs(wrong), /^InvalidInputError: recorded inputs do not parse: jobs: /);
  });

  it('InputsMemory recalls a snapshot only under the token it was kept with, and forgets the least recently kept JobSet first', () => {
    const memory = new InputsMemory(2);
    const a = { cluster: 'c', namespace: 'n', name: 'a' };
    const b = { ...a, name: 'b' };
    const c = { ...a, name: 'c' };
    const observed = (now: number) => ({ jobSet: story2(), jobs: [], service: undefined, now });
    const first = memory.keep(a, { observed: observed(1), wakeAt: undefined, settled: true });
    memory.keep(b, { observed: observed(2), wakeAt: 7, settled: true });
    const third = memory.keep(a, { observed: observed(3), wakeAt: 9, settled: true });
    const fourth = memory.keep(c, { observed: observed(4), wakeAt: undefined, settled: true });
    assert.equal(memory.recall(a, first), undefined, 'a later snapshot replaced it');
    assert.deepEqual(memory.recall(a, third), { observed: observed(3), wakeAt: 9, settled: true });
    assert.equal(memory.recall(b, memory.keep(c, { observed: observed(5), wakeAt: undefined, settled: true })), undefined, 'b was forgotten, and a token of c is not b\'s');
    assert.equal(memory.recall(c, fourth), undefined);
    assert.equal(memory.recall(a, undefined), undefined);
    assert.notEqual(new InputsMemory().keep(a, { observed: observed(1), wakeAt: undefined, settled: true }), first, 'another process never makes the same token');
  });

  it('an entry stores its inputs unless the previous entry has the same digest; the digest covers content, not key order', () => {
    const jobSet = story2();
    const observed = { jobSet, jobs: [], service: undefined, now: 5 };
    const result = plan(observed, { controllerName: 'lineup.dev/controller', claimUnmanaged: false });
    const pass = { key, observed, planOptions: DEFAULT_PLAN_OPTIONS, plan: result, applied: true, triggers: [], timings: { passStartedAt: 5, writesDoneAt: 6 } };
    const stored = journalEntryOf(pass, undefined);
    assert.equal(stored.inputsKept, 'stored');
    assert.equal(journalEntryOf(pass, 'another').inputsKept, 'stored');
    const referenced = journalEntryOf(pass, stored.inputsDigest);
    assert.deepEqual([referenced.inputsKept, referenced.inputs, referenced.inputsDigest], ['unchanged', undefined, stored.inputsDigest]);
    const reordered = JSON.parse(canonicalJson(jobSet)) as typeof jobSet;
    assert.equal(inputsDigest(inputsOf({ ...observed, jobSet: reordered })), inputsDigest(inputsOf(observed)));
    assert.notEqual(inputsDigest(inputsOf({ ...observed, jobSet: { ...jobSet, spec: { ...jobSet.spec, suspend: true } } })), inputsDigest(inputsOf(observed)));
  });
});
