import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../lib/plan/planner.ts';
import { plannerVersion } from '../../lib/plannerVersion.ts';
import { InputsMemory } from '../../lib/reconcile/inputsMemory.ts';
import {
  KEYFRAME_INTERVAL,
  applyDelta,
  applyMergePatch,
  canonicalJson,
  deltaOf,
  inputsResolver,
  mergePatchOf,
  objectDigestsOf,
  unpackDelta,
  type PassRecord,
  type RecordedInputs,
  inputsDigest,
  inputsOf,
  journalActionsOf,
  journalEntryOf,
  observedOfEntry,
  packInputs,
  unpackInputs,
} from '../../lib/reconcile/journal.ts';
import { MAX_JOURNAL_ITEM_CHARS } from '../../lib/store/rules.ts';
import { UnavailableError } from '../../lib/errors.ts';
import type { Job } from '../../lib/jobset/schema.ts';
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
    assert.equal(first.plannerVersion, plannerVersion());
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
    // One process wrote them all: a keyframe first, then deltas (or references), a keyframe every KEYFRAME_INTERVAL.
    for (const [index, entry] of entries.entries()) {
      const previous = entries[index - 1];
      const expected = previous?.inputsDigest === entry.inputsDigest ? 'unchanged' : index % KEYFRAME_INTERVAL === 0 ? 'stored' : 'delta';
      assert.equal(entry.inputsKept, expected, `entry ${index}`);
      assert.equal(entry.inputs !== undefined, entry.inputsKept !== 'unchanged');
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
    const base = { key, plannerVersion: plannerVersion(), planOptions: DEFAULT_PLAN_OPTIONS, triggers: [], timings: { passStartedAt: 1, writesDoneAt: 2 }, actions: [], reason: '', applied: true } as const;
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

  it('an entry keeps the JobSet bounds its pass ran with, so re-planning it accepts what a raised bound accepted', () => {
    const big = story2();
    const jobSet = { ...big, spec: { ...big.spec, replicatedJobs: (big.spec.replicatedJobs ?? []).map((rjob) => (rjob.name === 'worker' ? { ...rjob, replicas: 15_000 } : rjob)) } };
    const observed = { jobSet, jobs: [], service: undefined, now: 5 };
    const raised = { ...DEFAULT_PLAN_OPTIONS, limits: { maxJobs: 20_000, maxPods: 200_000 } };
    const result = plan(observed, raised);
    assert.ok(result.actions.some((action) => action.kind === 'CreateJob'), 'accepted under the raised bound');
    assert.ok(!plan(observed, DEFAULT_PLAN_OPTIONS).actions.some((action) => action.kind === 'CreateJob'), 'rejected under the default bound');
    const entry = journalEntryOf({ key, observed, planOptions: raised, plan: result, applied: true, triggers: [], timings: { passStartedAt: 5, writesDoneAt: 6 } }, undefined);
    assert.deepEqual(entry.planOptions, raised);
    assert.deepEqual(journalActionsOf(plan(observed, entry.planOptions)), entry.actions);
    const unbounded = journalEntryOf({ key, observed, planOptions: DEFAULT_PLAN_OPTIONS, plan: plan(observed, DEFAULT_PLAN_OPTIONS), applied: true, triggers: [], timings: { passStartedAt: 5, writesDoneAt: 6 } }, undefined);
    assert.equal('limits' in unbounded.planOptions, false, 'a host that set no bound records none');
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

/** storyJobs: the Jobs story 2's planner creates, as the cluster would hold them. */
const storyJobs = (): Job[] => {
  const jobSet = story2();
  return plan({ jobSet, jobs: [], service: undefined, now: 1 }, DEFAULT_PLAN_OPTIONS).actions.flatMap((action) => (action.kind === 'CreateJob' ? [action.job] : []));
};

/** passOf: a pass on `inputs` at `now` (its plan is beside the point here: the inputs are). */
const passOf = (inputs: RecordedInputs, now: number): PassRecord => {
  const observed = { ...inputs, now };
  return { key, observed, planOptions: DEFAULT_PLAN_OPTIONS, plan: plan(observed, DEFAULT_PLAN_OPTIONS), applied: true, triggers: [], timings: { passStartedAt: now, writesDoneAt: now } };
};

/** withLabel: `job` with one more label: a changed object. */
const withLabel = (job: Job, value: string): Job => ({ ...job, metadata: { ...job.metadata, labels: { ...job.metadata.labels, step: value } } });

/** written: the entries of `steps` (inputs per pass), each written by one process in turn, as its journal lists them. */
const written = (steps: readonly RecordedInputs[], memory = new InputsMemory()): JournalEntry[] => {
  const entries: JournalEntry[] = [];
  for (const [index, inputs] of steps.entries()) {
    const entry = journalEntryOf(passOf(inputs, index + 1), entries.at(-1)?.inputsDigest, memory);
    memory.entryWritten(entry);
    entries.push(entry);
  }
  return entries;
};

/** changingSteps: `count` passes on story 2, each changing one Job's labels. */
const changingSteps = (count: number): RecordedInputs[] => {
  const jobs = storyJobs();
  return Array.from({ length: count }, (_, step) => ({
    jobSet: story2(),
    jobs: jobs.map((job, index) => (index === step % jobs.length ? withLabel(job, String(step)) : job)),
    service: undefined,
  }));
};

describe('reconcile/journal: keyframes and deltas', () => {
  it('a delta holds a merge patch of each object whose content changed, new Jobs whole, the Jobs gone, a Service gone, and the order only when it moved', () => {
    const [a, b, c] = storyJobs();
    assert.ok(a && b && c);
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: NAME, namespace: 'default' }, spec: { clusterIP: 'None' } } as const;
    const before: RecordedInputs = { jobSet: story2(), jobs: [a, b, c], service };
    const renamed = { ...b, metadata: { ...b.metadata, name: 'new' } };
    const after: RecordedInputs = { jobSet: story2(), jobs: [a, withLabel(c, 'x'), renamed], service: undefined };
    const beforeObjects = objectDigestsOf(before);
    const afterObjects = objectDigestsOf(after);
    assert.ok(beforeObjects && afterObjects);
    const chain = { inputsDigest: inputsDigest(before), inputs: before, objects: beforeObjects, sinceKeyframe: 0 };
    const delta = deltaOf(chain, afterObjects, after);
    assert.equal(delta.base, inputsDigest(before));
    assert.equal(delta.jobSet, undefined, 'the JobSet did not change');
    assert.deepEqual(delta.jobs, [
      { name: c.metadata.name, patch: { metadata: { labels: { step: 'x' } } } },
      { name: 'new', whole: renamed },
    ]);
    assert.deepEqual(delta.gone, [b.metadata.name]);
    assert.equal(delta.service, null);
    assert.equal(delta.order, undefined, 'the base order without b, then the new Job, is the order');
    assert.deepEqual(applyDelta(before, delta), after);
    const swapped: RecordedInputs = { ...before, jobs: [c, a, b] };
    const swap = deltaOf(chain, objectDigestsOf(swapped) ?? beforeObjects, swapped);
    assert.deepEqual([swap.jobs, swap.order], [undefined, [c.metadata.name, a.metadata.name, b.metadata.name]]);
    assert.deepEqual(applyDelta(before, swap), swapped);
    assert.equal(objectDigestsOf({ ...before, jobs: [a, a] }), undefined, 'two Jobs of one name cannot be told apart');
  });

  it('a merge patch removes members with null; a change to a null value, which a merge patch cannot say, keeps the object whole', () => {
    assert.deepEqual(mergePatchOf({ a: 1, b: { c: 2, d: 3 }, e: [1] }, { a: 1, b: { c: 4 }, e: [1, 2] }), { b: { c: 4, d: null }, e: [1, 2] });
    assert.deepEqual(applyMergePatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: 4, d: null } }), { a: 1, b: { c: 4 } });
    const [job] = storyJobs();
    assert.ok(job);
    const before: RecordedInputs = { jobSet: story2(), jobs: [job], service: undefined };
    const nulled = { ...job, metadata: { ...job.metadata, labels: null } } as unknown as Job;
    const after: RecordedInputs = { ...before, jobs: [nulled] };
    const beforeObjects = objectDigestsOf(before);
    const afterObjects = objectDigestsOf(after);
    assert.ok(beforeObjects && afterObjects);
    const delta = deltaOf({ inputsDigest: inputsDigest(before), inputs: before, objects: beforeObjects, sinceKeyframe: 0 }, afterObjects, after);
    assert.deepEqual(delta.jobs, [{ name: job.metadata.name, whole: nulled }]);
    // A remembered object changed in place since its entry was written is no base for a patch.
    const changedInPlace = { ...before, jobs: [withLabel(job, 'changed in place')] };
    const relabelled = { ...before, jobs: [withLabel(job, 'next')] };
    const fromStale = deltaOf({ inputsDigest: inputsDigest(before), inputs: changedInPlace, objects: beforeObjects, sinceKeyframe: 0 }, objectDigestsOf(relabelled) ?? afterObjects, relabelled);
    assert.deepEqual(fromStale.jobs, [{ name: job.metadata.name, whole: relabelled.jobs[0] }]);
  });

  it(`one process writes a keyframe first and every ${KEYFRAME_INTERVAL} entries, deltas between; every entry rebuilds to its digest`, () => {
    const entries = written(changingSteps(2 * KEYFRAME_INTERVAL + 3));
    assert.deepEqual(
      entries.map((entry) => entry.inputsKept),
      entries.map((_, index) => (index % KEYFRAME_INTERVAL === 0 ? 'stored' : 'delta')),
    );
    const resolve = inputsResolver(entries);
    for (const [index, entry] of entries.entries()) {
      const inputs = resolve(index);
      assert.ok(typeof inputs !== 'string', `entry ${index}: ${String(inputs)}`);
      assert.equal(inputsDigest(inputs), entry.inputsDigest);
      const observed = observedOfEntry(entries, index);
      assert.ok(typeof observed !== 'string' && observed.now === entry.at);
    }
    // Step 1 labels Job 1 and takes step 0's label off Job 0: two Jobs changed, nothing else.
    const [zero, one] = storyJobs().map((job) => job.metadata.name ?? '');
    const delta = unpackDelta(entries[1]?.inputs ?? '');
    assert.deepEqual(delta, {
      base: entries[0]?.inputsDigest,
      jobs: [
        { name: zero, patch: { metadata: { labels: { step: null } } } },
        { name: one, patch: { metadata: { labels: { step: '1' } } } },
      ],
    });
    const [keyframeChars, deltaChars] = [entries[0]?.inputs?.length ?? 0, entries[1]?.inputs?.length ?? 0];
    assert.ok(deltaChars < keyframeChars, `a delta of 2 of 5 Jobs is smaller than the keyframe: ${deltaChars} vs ${keyframeChars} chars`);
  });

  it('an entry whose chain is broken (an earlier entry gone) says so; the next keyframe reads again', () => {
    const entries = written(changingSteps(KEYFRAME_INTERVAL + 2));
    const lost = entries[3]?.inputsDigest;
    const kept = entries.filter((_, index) => index !== 3);
    assert.equal(observedOfEntry(kept, 3), `inputs ${kept[3]?.inputsDigest} are stored as changes to inputs ${lost}, but no earlier entry holds those (expired?)`);
    assert.equal(observedOfEntry(kept, 6), observedOfEntry(kept, 3), 'a later delta of the broken chain gives the same reason');
    assert.ok(typeof observedOfEntry(kept, 2) !== 'string', 'entries before the gap still read');
    assert.equal(kept[KEYFRAME_INTERVAL - 1]?.inputsKept, 'stored');
    assert.ok(typeof observedOfEntry(kept, KEYFRAME_INTERVAL - 1) !== 'string', 'the keyframe after the gap reads');
    assert.ok(typeof observedOfEntry(kept, KEYFRAME_INTERVAL) !== 'string', 'and so does the delta after it');
    const tampered = [entries[0], { ...entries[1], inputs: 'not gzip' }] as JournalEntry[];
    assert.match(String(observedOfEntry(tampered, 1)), /^recorded inputs delta is not gzip\+base64 JSON: /);
  });

  it('a delta entry whose base a replayed event\'s entry follows still rebuilds (the base is named by digest)', () => {
    const [first, second] = changingSteps(2);
    assert.ok(first && second);
    const memory = new InputsMemory();
    const keyframe = journalEntryOf(passOf(first, 1), undefined, memory);
    memory.entryWritten(keyframe);
    const replayed = journalEntryOf({ ...passOf(second, 2), replayName: 'r1', applied: false }, undefined);
    const delta = journalEntryOf(passOf(second, 3), keyframe.inputsDigest, memory);
    assert.deepEqual([replayed.inputsKept, delta.inputsKept], ['stored', 'delta']);
    const observed = observedOfEntry([keyframe, replayed, delta], 2);
    assert.ok(typeof observed !== 'string', String(observed));
    assert.equal(inputsDigest(inputsOf(observed)), delta.inputsDigest);
  });

  it('writes a keyframe when the previous entry was not written by this process, was never written, or was too large to keep', () => {
    const [first, second, third] = changingSteps(3);
    assert.ok(first && second && third);
    const memory = new InputsMemory();
    const keyframe = journalEntryOf(passOf(first, 1), undefined, memory);
    memory.entryWritten(keyframe);
    assert.equal(journalEntryOf(passOf(second, 2), keyframe.inputsDigest, new InputsMemory()).inputsKept, 'stored', 'another process does not know its objects');
    assert.equal(journalEntryOf(passOf(second, 2), 'another', memory).inputsKept, 'stored', 'the state item names another entry');
    const unwritten = journalEntryOf(passOf(second, 2), keyframe.inputsDigest, memory);
    assert.equal(unwritten.inputsKept, 'delta');
    assert.equal(journalEntryOf(passOf(third, 3), unwritten.inputsDigest, memory).inputsKept, 'stored', 'an entry whose write failed is no base');
    // Random text does not compress: an entry too large for an item, kept without its inputs.
    const huge: RecordedInputs = { ...second, jobSet: { ...second.jobSet, metadata: { ...second.jobSet.metadata, annotations: { noise: randomBytes(MAX_JOURNAL_ITEM_CHARS).toString('base64') } } } };
    const tooLarge = journalEntryOf(passOf(huge, 2), keyframe.inputsDigest, memory);
    memory.entryWritten(tooLarge);
    assert.equal(journalEntryOf(passOf(third, 3), tooLarge.inputsDigest, memory).inputsKept, 'stored', 'nothing can build on an entry kept without its inputs');
  });

  it('across two processes: each writes a keyframe when it takes over from the other, deltas while it keeps the JobSet', async () => {
    const world = simWorld([story2()]);
    const store = new MemoryCheckpointStore();
    const processes = [
      reconcileDeps(store, world.gateway, world.now, 'process-1', { inputsMemory: new InputsMemory() }).deps,
      reconcileDeps(store, world.gateway, world.now, 'process-2', { inputsMemory: new InputsMemory() }).deps,
    ];
    // Events 0–2 go to process 1, 3–5 to process 2, then 6–7 to process 1 again.
    const owners = [0, 0, 0, 1, 1, 1, 0, 0];
    const byEntry: number[] = [];
    for (const [step, owner] of owners.entries()) {
      const deps = processes[owner];
      assert.ok(deps);
      const before = (await store.listJournal(key)).length;
      const outcome = await handleEvent(
        { source: `lineup.${CLUSTER}`, detail: { ...detailFor(NAME), resourceVersion: String(step + 1) }, id: `event-${step}`, detailType: 'JobSet Changed' },
        deps,
      );
      assert.equal(outcome, 'reconciled');
      const after = (await store.listJournal(key)).length;
      for (let added = before; added < after; added += 1) byEntry.push(owner);
      world.queue.runUntil(world.queue.now() + 60_000);
    }
    const entries = await store.listJournal(key);
    assert.ok(new Set(byEntry).size === 2, `both processes wrote entries: ${byEntry.join(',')}`);
    for (const [index, entry] of entries.entries()) {
      const takesOver = index === 0 || byEntry[index] !== byEntry[index - 1];
      if (entry.inputsKept === 'unchanged') continue;
      assert.equal(entry.inputsKept, takesOver ? 'stored' : 'delta', `entry ${index} by process ${byEntry[index]}`);
      const observed = observedOfEntry(entries, index);
      assert.ok(typeof observed !== 'string', `entry ${index}: ${String(observed)}`);
      assert.deepEqual(journalActionsOf(plan(observed, entry.planOptions)), entry.actions, `entry ${index} re-plans the same`);
    }
  });
});
