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
import { handleEvent } from '../../lib/reconcile/reconcileJobSet.ts';
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

  it('stores inputs when they changed and refers to them by digest when they did not', async () => {
    const entries = await startup();
    const kept = entries.map((entry) => entry.inputsKept);
    assert.ok(kept.includes('stored') && kept.includes('unchanged'), kept.join(','));
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

  it('InputsMemory forgets the least recently written JobSet first', () => {
    const memory = new InputsMemory(2);
    const a = { cluster: 'c', namespace: 'n', name: 'a' };
    const b = { ...a, name: 'b' };
    const c = { ...a, name: 'c' };
    memory.remember(a, '1');
    memory.remember(b, '2');
    memory.remember(a, '3');
    memory.remember(c, '4');
    assert.equal(memory.last(a), '3');
    assert.equal(memory.last(b), undefined);
    assert.equal(memory.last(c), '4');
  });

  it('without a memory every entry stores its inputs; the digest covers content, not key order', () => {
    const jobSet = story2();
    const observed = { jobSet, jobs: [], service: undefined, now: 5 };
    const result = plan(observed, { controllerName: 'lineup.dev/controller', claimUnmanaged: false });
    const pass = { key, observed, planOptions: DEFAULT_PLAN_OPTIONS, plan: result, applied: true, triggers: [], timings: { passStartedAt: 5, writesDoneAt: 6 } };
    assert.equal(journalEntryOf(pass, undefined).inputsKept, 'stored');
    assert.equal(journalEntryOf(pass, undefined).inputsKept, 'stored');
    const reordered = JSON.parse(canonicalJson(jobSet)) as typeof jobSet;
    assert.equal(inputsDigest(inputsOf({ ...observed, jobSet: reordered })), inputsDigest(inputsOf(observed)));
    assert.notEqual(inputsDigest(inputsOf({ ...observed, jobSet: { ...jobSet, spec: { ...jobSet.spec, suspend: true } } })), inputsDigest(inputsOf(observed)));
  });
});
