/** InputsMemory (lib/reconcile/inputsMemory.ts): the snapshots and the last written entry one process remembers per JobSet. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../lib/plan/planner.ts';
import { InputsMemory } from '../../lib/reconcile/inputsMemory.ts';
import { journalEntryOf, type PassRecord } from '../../lib/reconcile/journal.ts';
import type { Observed } from '../../lib/plan/types.ts';
import { story2 } from './fixtures.ts';

const key = { cluster: 'c', namespace: 'n', name: 'a' };

/** passOf: a pass of story 2 at `now`, its JobSet's labels saying `step` (a changed JobSet each step). */
const passOf = (step: string, now: number): PassRecord => {
  const jobSet = story2();
  const observed: Observed = { jobSet: { ...jobSet, metadata: { ...jobSet.metadata, labels: { ...jobSet.metadata.labels, step } } }, jobs: [], service: undefined, now };
  return { key, observed, planOptions: DEFAULT_PLAN_OPTIONS, plan: plan(observed, DEFAULT_PLAN_OPTIONS), applied: true, triggers: [], timings: { passStartedAt: now, writesDoneAt: now } };
};

describe('reconcile/inputsMemory', () => {
  it('InputsMemory recalls a snapshot only under the token it was kept with, and forgets the least recently kept JobSet first', () => {
    const memory = new InputsMemory(2);
    const a = key;
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

  it('an entry it did not stage (a replayed event\'s) leaves the chain as it was; one it staged and saw written replaces it', () => {
    const memory = new InputsMemory();
    const keyframe = journalEntryOf(passOf('one', 1), undefined, memory);
    memory.entryWritten(keyframe);
    const replayed = journalEntryOf({ ...passOf('two', 2), replayName: 'r1', applied: false }, undefined);
    memory.entryWritten(replayed);
    assert.equal(journalEntryOf(passOf('two', 3), keyframe.inputsDigest, memory).inputsKept, 'delta', 'the replayed entry is no break in the chain');
    const next = journalEntryOf(passOf('three', 4), keyframe.inputsDigest, memory);
    memory.entryWritten(next);
    assert.equal(memory.chainAfter(key, keyframe.inputsDigest), undefined, 'the written entry is the base now');
    assert.equal(memory.chainAfter(key, next.inputsDigest)?.inputsDigest, next.inputsDigest);
  });
});
