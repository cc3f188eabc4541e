import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CounterName } from '../../lib/counters.ts';
import { ConflictError, NotFoundError, UnavailableError } from '../../lib/errors.ts';
import type { Action } from '../../lib/plan/types.ts';
import { InputsMemory } from '../../lib/reconcile/inputsMemory.ts';
import { DEFAULT_LEASE_TTL_MS, LAMBDA_LOOP_BUDGET_MS, handleEvent } from '../../lib/reconcile/reconcileJobSet.ts';
import type { ClusterGateway } from '../../lib/reconcile/types.ts';
import { MAX_PENDING_TRIGGERS, needsResync } from '../../lib/store/rules.ts';
import { jobSetPk } from '../../lib/store/table.ts';
import type { JournalEvent } from '../../lib/store/types.ts';
import { makeJobSet } from '../builders.ts';
import { CLUSTER, answeringGateway, detailFor, reconcileDeps, simWorld, story2 } from './fixtures.ts';
import { TestMemoryStore } from '../store/support/testStores.ts';

const key = { cluster: CLUSTER, namespace: 'default', name: 'messagequeue-driver-worker' };
const NAME = key.name;

describe('reconcile/reconcileJobSet', () => {
  it('bumps the dirty counter, takes the lease, runs passes until nothing changes, and releases', async () => {
    // Prepare
    const world = simWorld([story2()]);
    const store = new TestMemoryStore();
    const { deps, counters } = reconcileDeps(store, world.gateway, world.now);
    // Act
    const outcome = await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps);
    // Assess
    assert.equal(outcome, 'reconciled');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 5, 'every Job created at once');
    const state = await store.getState(key);
    assert.equal(state?.dirty, 1);
    assert.equal(state?.reconciled, 1);
    assert.equal(state?.lease, undefined, 'lease released');
    assert.equal(counters.get(CounterName.Passes), 1);
    const decisions = await store.listJournal(key);
    assert.equal(decisions.length, 1);
    assert.equal(decisions[0]?.applied, true);
    assert.equal(decisions[0]?.actions.filter((action) => action.kind === 'CreateJob').length, 5);
    assert.ok(decisions[0]?.inputs, 'inputs recorded for replay');
    assert.equal(decisions[0]?.inputsKept, 'stored');
  });

  it('drops an event whose source names another cluster, and one for an unregistered cluster', async () => {
    const world = simWorld([story2()]);
    const store = new TestMemoryStore();
    const { deps, lines } = reconcileDeps(store, world.gateway, world.now);
    assert.equal(await handleEvent({ source: 'lineup.other', detail: detailFor(NAME) }, deps), 'dropped');
    assert.equal(await handleEvent({ source: 'lineup.unknown', detail: detailFor(NAME, { cluster: 'unknown' }) }, deps), 'dropped');
    assert.deepEqual(lines.map((line) => line.message), ['event dropped: its source does not match its cluster', 'event dropped: cluster is not registered']);
    assert.equal(world.cluster.jobsOf('default', NAME).length, 0);
    assert.equal(await store.getState(key), undefined, 'nothing recorded for a dropped event');
  });

  it('records a replayed event as a decision and applies nothing', async () => {
    const world = simWorld([story2()]);
    const store = new TestMemoryStore();
    const { deps } = reconcileDeps(store, world.gateway, world.now);
    const outcome = await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), replayName: 'debug-run' }, deps);
    assert.equal(outcome, 'replay-recorded');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 0);
    const [decision] = await store.listJournal(key);
    assert.equal(decision?.applied, false);
    assert.equal(decision?.replayName, 'debug-run');
    assert.equal(decision?.actions.filter((action) => action.kind === 'CreateJob').length, 5, 'what it would have done');
  });

  it('applies a replayed event when configured to', async () => {
    const world = simWorld([story2()]);
    const { deps } = reconcileDeps(new TestMemoryStore(), world.gateway, world.now, 'owner', { applyReplays: true });
    assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), replayName: 'r' }, deps), 'reconciled');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 5);
  });

  it('defers to the lease holder: concurrent events for one JobSet run one pass loop', async () => {
    const world = simWorld([story2()]);
    const store = new TestMemoryStore();
    const one = reconcileDeps(store, world.gateway, world.now, 'one');
    const two = reconcileDeps(store, world.gateway, world.now, 'two');
    const outcomes = await Promise.all([
      handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, one.deps),
      handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, two.deps),
    ]);
    assert.deepEqual([...outcomes].sort(), ['deferred', 'reconciled']);
    const state = await store.getState(key);
    assert.equal(state?.reconciled, state?.dirty, 'the holder reconciled the deferred bump too');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 5);
  });

  it('re-reads and re-plans after a conflict', async () => {
    const world = simWorld([story2()]);
    let conflicts = 0;
    const flaky: ClusterGateway = {
      observe: (namespace, name, now) => world.gateway.observe(namespace, name, now),
      apply: async (namespace, name, action: Action, now) => {
        if (action.kind === 'UpdateJobSetStatus' && conflicts === 0) {
          conflicts += 1;
          throw new ConflictError('the object has been modified', action.resourceVersion);
        }
        return world.gateway.apply(namespace, name, action, now);
      },
    };
    const store = new TestMemoryStore();
    const { deps, counters } = reconcileDeps(store, flaky, world.now);
    assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps), 'reconciled');
    assert.equal(counters.get(CounterName.Passes), 2, 'one pass failed on the conflict, the re-plan succeeded');
    assert.ok(world.cluster.getJobSet('default', NAME)?.status?.conditions?.length, 'status written on the second pass');
  });

  it('re-reads and re-plans after a create finds its Job already there (AlreadyExists from the simulated cluster)', async () => {
    // Prepare: just before the pass creates its first Job, another writer creates that Job (as an
    // earlier attempt whose answer was lost would have), so the cluster itself refuses the create.
    const world = simWorld([story2()]);
    let raced: string | undefined;
    const racing: ClusterGateway = {
      observe: (namespace, name, now) => world.gateway.observe(namespace, name, now),
      apply: async (namespace, name, action: Action, now) => {
        if (action.kind === 'CreateJob' && raced === undefined) {
          raced = action.job.metadata.name;
          world.cluster.createJob({ ...action.job, metadata: { ...action.job.metadata, namespace } }, world.queue.now());
        }
        return world.gateway.apply(namespace, name, action, now);
      },
    };
    const store = new TestMemoryStore();
    const { deps, counters } = reconcileDeps(store, racing, world.now);
    // Act
    const outcome = await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps);
    // Assess: the refused pass is recorded with the cluster's answer; the re-plan creates the rest.
    assert.equal(outcome, 'reconciled');
    assert.equal(counters.get(CounterName.Passes), 2, 'one pass stopped at AlreadyExists, the re-plan succeeded');
    const [refused, replanned] = await store.listJournal(key);
    assert.match(refused?.error ?? '', new RegExp(`jobs\\.batch "${raced}" already exists`));
    assert.equal(replanned?.error, undefined);
    const names = world.cluster.jobsOf('default', NAME).map((job) => job.metadata.name);
    assert.equal(names.length, 5, 'every Job exists once');
    assert.equal(new Set(names).size, 5);
    assert.ok(world.cluster.getJobSet('default', NAME)?.status?.conditions?.length, 'status written by the re-plan');
  });

  it('a JobSet deleted while its pass writes (404 on its status) is re-read, found gone, and forgotten: no error, no retry', async () => {
    // Prepare: the user deletes the JobSet (background propagation: it vanishes at once) between
    // the pass's read and its status write, as the end-to-end tier's real garbage collector showed.
    const world = simWorld([story2()]);
    let deleted = false;
    const deleting: ClusterGateway = {
      observe: (namespace, name, now) => (deleted ? Promise.resolve(undefined) : world.gateway.observe(namespace, name, now)),
      apply: async (namespace, name, action: Action, now) => {
        if (action.kind === 'UpdateJobSetStatus') {
          deleted = true;
          throw new NotFoundError(`jobset ${namespace}/${name} status: jobsets.jobset.x-k8s.io "${name}" not found`);
        }
        return world.gateway.apply(namespace, name, action, now);
      },
    };
    const store = new TestMemoryStore();
    const { deps } = reconcileDeps(store, deleting, world.now);
    // Act
    const outcome = await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps);
    // Assess
    assert.equal(outcome, 'gone');
    assert.equal(await store.getState(key), undefined, 'its state forgotten, nothing left for the resync');
  });

  it('records the error and gives the lease up when the cluster keeps failing, so the event is retried', async () => {
    const world = simWorld([story2()]);
    const broken: ClusterGateway = {
      observe: () => Promise.reject(new UnavailableError('cluster answered 503 five times')),
      apply: () => Promise.reject(new Error('unreachable')),
    };
    const store = new TestMemoryStore();
    const { deps } = reconcileDeps(store, broken, world.now);
    await assert.rejects(handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME) }, deps), /503 five times/);
    const state = await store.getState(key);
    assert.equal(state?.lease, undefined);
    assert.match(state?.lastError ?? '', /503/);
    const stale = await store.listNeedingResync(world.now());
    assert.deepEqual(stale.map((s) => s.key.name), [NAME], 'the resync will pick it up');
  });

  it('reports a JobSet that no longer exists and forgets its state', async () => {
    const world = simWorld([]);
    const store = new TestMemoryStore();
    const { deps } = reconcileDeps(store, world.gateway, world.now);
    assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor('gone') }, deps), 'gone');
    assert.equal(await store.getState({ cluster: CLUSTER, namespace: 'default', name: 'gone' }), undefined);
  });

  describe('a pass starts from what the last loop left and reads only what changed', () => {
    /** jobEvent: a Job Changed event about `job` at its current resourceVersion in the simulated cluster. */
    const jobEvent = (world: ReturnType<typeof simWorld>, job: string, id: string) => ({
      source: `lineup.${CLUSTER}`,
      detail: detailFor(NAME, { kind: 'Job', name: job, resourceVersion: world.cluster.getJob('default', job)?.metadata.resourceVersion ?? '' }),
      id,
      detailType: 'Job Changed',
    });
    const MQ = `${NAME}-messagequeue-0`;

    it('settles on its writes\' answers when the planner has nothing more to do on them, and drops their echoes in one store write each', async () => {
      const world = simWorld([story2()]);
      const { gateway, reads } = answeringGateway(world);
      const store = new TestMemoryStore();
      const { deps, counters } = reconcileDeps(store, gateway, world.now, 'owner', { inputsMemory: new InputsMemory() });
      assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), id: 'created' }, deps), 'reconciled');
      assert.equal(counters.get(CounterName.Passes), 1);
      const outcomes: string[] = [];
      for (const job of world.cluster.jobsOf('default', NAME)) outcomes.push(await handleEvent(jobEvent(world, job.metadata.name ?? '', `echo-${job.metadata.name}`), deps));
      assert.deepEqual(reads, { full: 1, jobSet: 0, jobLists: 0 }, 'one full read; the echoes name what the writes answered');
      assert.deepEqual(outcomes, ['echo', 'echo', 'echo', 'echo', 'echo'], 'the creating pass’s status counted the Jobs it created: settled on its answers, every echo dropped by the store');
      assert.equal(counters.get(CounterName.Echoes), 5);
      assert.equal(counters.get(CounterName.Passes), 1);
      const entries = await store.listJournal(key);
      assert.deepEqual(
        entries.map((entry) => [entry.triggers.map((trigger) => trigger.id), entry.actions.map((action) => action.kind).at(-2)]),
        [[['created'], 'UpdateJobSetStatus']],
        'one entry: the creating pass',
      );
      const dirty = (await store.getState(key))?.dirty;
      assert.equal(await handleEvent(jobEvent(world, `${NAME}-worker-1`, 'again'), deps), 'echo');
      assert.equal((await store.getState(key))?.dirty, dirty, 'an echo writes nothing');
    });

    it("reads only the Jobs when an event names one, and the pass's entry names the events of the passes that changed nothing", async () => {
      const world = simWorld([story2()]);
      const { gateway, reads } = answeringGateway(world);
      const store = new TestMemoryStore();
      const { deps } = reconcileDeps(store, gateway, world.now, 'owner', { inputsMemory: new InputsMemory() });
      await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), id: 'created' }, deps);
      for (const job of world.cluster.jobsOf('default', NAME)) await handleEvent(jobEvent(world, job.metadata.name ?? '', `echo-${job.metadata.name}`), deps);
      const startEntries = (await store.listJournal(key)).length;
      // The Job controller marks the suspended driver Suspended: a change, but nothing to do.
      const driver = `${NAME}-driver-0`;
      world.cluster.writeJobStatus('default', driver, { ...world.cluster.getJob('default', driver)?.status, conditions: [{ type: 'Suspended', status: 'True' }] }, world.queue.now());
      assert.equal(await handleEvent(jobEvent(world, driver, 'driver-suspended'), deps), 'reconciled');
      assert.equal((await store.listJournal(key)).length, startEntries, 'nothing changed: no entry');
      // The messagequeue becomes ready: its event opens the drivers' gate.
      world.cluster.writeJobStatus('default', MQ, { ...world.cluster.getJob('default', MQ)?.status, active: 1, ready: 1 }, world.queue.now());
      assert.equal(await handleEvent(jobEvent(world, MQ, 'mq-ready'), deps), 'reconciled');
      assert.deepEqual(reads, { full: 1, jobSet: 0, jobLists: 2 }, 'a LIST of the Jobs for each event naming one, nothing else');
      const entries = await store.listJournal(key);
      const opened = entries.find((entry) => entry.actions.some((action) => action.kind === 'ResumeJob'));
      assert.deepEqual(opened?.triggers.map((trigger) => trigger.id).filter((id) => id?.startsWith('echo-') !== true), ['mq-ready', 'driver-suspended']);
      assert.ok(opened?.timings.receivedAt !== undefined, "the handled event's hops are the entry's");
      assert.deepEqual(opened?.actions.filter((action) => action.kind === 'ResumeJob').map((action) => action.target), [`${NAME}-driver-0`, `${NAME}-driver-1`]);
    });

    it('one event naming several Jobs (the forwarder folds a JobSet’s window) is one store write and at most one pass, reading the Jobs once', async () => {
      const world = simWorld([story2()]);
      const { gateway, reads } = answeringGateway(world);
      const store = new TestMemoryStore();
      const { deps, counters } = reconcileDeps(store, gateway, world.now, 'owner', { inputsMemory: new InputsMemory() });
      await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), id: 'created' }, deps);
      const changeOf = (job: string) => {
        const current = world.cluster.getJob('default', job);
        return { kind: 'Job' as const, name: job, uid: current?.metadata.uid ?? '', resourceVersion: current?.metadata.resourceVersion ?? '', watchType: 'MODIFIED' as const };
      };
      const folded = (id: string, jobs: readonly string[]) => {
        const [own, ...also] = jobs.map(changeOf);
        assert.ok(own, 'an event names at least one object');
        return { source: `lineup.${CLUSTER}`, detail: detailFor(NAME, { ...own, ...(also.length > 0 ? { also } : {}) }), id, detailType: 'Job Changed' };
      };
      const jobs = world.cluster.jobsOf('default', NAME).map((job) => job.metadata.name ?? '');
      // The echoes of the five creates, as one event: the item knows every object it names at its version.
      const dirty = (await store.getState(key))?.dirty;
      assert.equal(await handleEvent(folded('echoes', jobs), deps), 'echo');
      assert.deepEqual(reads, { full: 1, jobSet: 0, jobLists: 0 }, 'nothing read');
      assert.equal((await store.getState(key))?.dirty, dirty, 'an echo writes nothing');
      // The messagequeue turns ready and the drivers are marked Suspended in one window: one event, one LIST, one pass that opens the drivers' gate.
      world.cluster.writeJobStatus('default', MQ, { ...world.cluster.getJob('default', MQ)?.status, active: 1, ready: 1 }, world.queue.now());
      const drivers = [`${NAME}-driver-0`, `${NAME}-driver-1`];
      for (const driver of drivers) world.cluster.writeJobStatus('default', driver, { ...world.cluster.getJob('default', driver)?.status, conditions: [{ type: 'Suspended', status: 'True' }] }, world.queue.now());
      const passesBefore = counters.get(CounterName.Passes);
      assert.equal(await handleEvent(folded('mq-ready', [MQ, ...drivers]), deps), 'reconciled');
      assert.deepEqual(reads, { full: 1, jobSet: 0, jobLists: 1 }, 'one LIST for the three Jobs the event names');
      assert.equal(counters.get(CounterName.Passes) - passesBefore, 1);
      const opened = (await store.listJournal(key)).find((entry) => entry.actions.some((action) => action.kind === 'ResumeJob'));
      assert.deepEqual(
        opened?.triggers.map((trigger) => `${trigger.id} ${trigger.kind}/${trigger.name}`).filter((line) => !line.startsWith('echoes-')),
        [`mq-ready Job/${MQ}`, ...drivers.map((driver) => `mq-ready Job/${driver}`)],
        'the entry names every object of the event that caused it (after those of the pass that changed nothing)',
      );
    });

    it('a JobSet’s first pass ever, woken by its creation, reads only the JobSet; one whose children a crashed pass made reads them all after AlreadyExists', async () => {
      const created = { source: `lineup.${CLUSTER}`, detail: detailFor(NAME, { watchType: 'ADDED' }), id: 'created', detailType: 'JobSet Changed' };
      // A new JobSet: one GET, then the Service and five Jobs created.
      const world = simWorld([story2()]);
      const { gateway, reads } = answeringGateway(world);
      const { deps } = reconcileDeps(new TestMemoryStore(), gateway, world.now, 'owner', { inputsMemory: new InputsMemory() });
      assert.equal(await handleEvent(created, deps), 'reconciled');
      assert.deepEqual(reads, { full: 0, jobSet: 1, jobLists: 0 }, 'the JobSet alone: it has no children yet');
      assert.equal(world.cluster.jobsOf('default', NAME).length, 5);

      // The same JobSet, its children made by a pass that crashed before its state item recorded
      // anything: the first create meets AlreadyExists and the pass reads everything again.
      const uids = world.cluster.jobsOf('default', NAME).map((job) => job.metadata.uid);
      const crashed = answeringGateway(world);
      const { deps: next, counters } = reconcileDeps(new TestMemoryStore(), crashed.gateway, world.now, 'next', { inputsMemory: new InputsMemory() });
      assert.equal(await handleEvent(created, next), 'reconciled');
      assert.deepEqual(crashed.reads, { full: 1, jobSet: 1, jobLists: 0 }, 'the JobSet, then everything after AlreadyExists');
      assert.deepEqual(world.cluster.jobsOf('default', NAME).map((job) => job.metadata.uid), uids, 'no Job created twice');
      assert.ok(counters.get(CounterName.Passes) >= 2);
    });

    it('reads everything when its lease shows pending triggers dropped, whatever the kept ones name', async () => {
      // Prepare: the JobSet created and settled; the store then reports a dropped trigger once.
      const world = simWorld([story2()]);
      const { gateway, reads } = answeringGateway(world);
      class DroppingStore extends TestMemoryStore {
        dropNext = false;
        override async noteEvent(...args: Parameters<TestMemoryStore['noteEvent']>) {
          const note = await super.noteEvent(...args);
          if (note.outcome !== 'leased' || !this.dropNext) return note;
          this.dropNext = false;
          return { ...note, lease: { ...note.lease, pendingDropped: 1 } };
        }
      }
      const store = new DroppingStore();
      const { deps } = reconcileDeps(store, gateway, world.now, 'owner', { inputsMemory: new InputsMemory() });
      await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), id: 'created' }, deps);
      for (const job of world.cluster.jobsOf('default', NAME)) await handleEvent(jobEvent(world, job.metadata.name ?? '', `echo-${job.metadata.name}`), deps);
      assert.deepEqual(reads, { full: 1, jobSet: 0, jobLists: 0 });
      world.cluster.writeJobStatus('default', MQ, { ...world.cluster.getJob('default', MQ)?.status, active: 1, ready: 1 }, world.queue.now());
      // Act
      store.dropNext = true;
      assert.equal(await handleEvent(jobEvent(world, MQ, 'mq-ready'), deps), 'reconciled');
      // Assess
      assert.deepEqual(reads, { full: 2, jobSet: 0, jobLists: 0 }, 'a full read, not a LIST of the Job the kept trigger names');
      assert.ok(world.cluster.jobsOf('default', NAME).some((job) => job.metadata.name?.includes('driver') && job.spec.suspend === false), 'and the pass decided on it: the drivers resumed');
    });

    it('takes in a trigger the store coalesced into a list of the same length (matched by identity, not counted by position)', async () => {
      // Prepare: settled after the creation and its echoes.
      const world = simWorld([story2()]);
      const { gateway, reads } = answeringGateway(world);
      class CoalescingStore extends TestMemoryStore {
        /** When set: before the loop's release, the messagequeue turns ready, and its event is noted and coalesced over the loop's own trigger. */
        coalesceOver: (() => JournalEvent) | undefined;
        override async releaseLease(...args: Parameters<TestMemoryStore['releaseLease']>) {
          const change = this.coalesceOver;
          if (change !== undefined) {
            this.coalesceOver = undefined;
            const newer = change();
            assert.equal((await this.noteEvent(key, { triggers: [newer], owner: 'other', now: world.now(), ttlMs: 30_000 })).outcome, 'deferred');
            const record = this.table.getState(jobSetPk(key)) ?? assert.fail('the state item');
            this.table.putState(jobSetPk(key), { ...record, pending: [newer] });
          }
          return super.releaseLease(...args);
        }
      }
      const store = new CoalescingStore();
      const { deps } = reconcileDeps(store, gateway, world.now, 'owner', { inputsMemory: new InputsMemory() });
      await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), id: 'created' }, deps);
      for (const job of world.cluster.jobsOf('default', NAME)) await handleEvent(jobEvent(world, job.metadata.name ?? '', `echo-${job.metadata.name}`), deps);
      const driver = `${NAME}-driver-0`;
      world.cluster.writeJobStatus('default', driver, { ...world.cluster.getJob('default', driver)?.status, conditions: [{ type: 'Suspended', status: 'True' }] }, world.queue.now());
      store.coalesceOver = () => {
        world.cluster.writeJobStatus('default', MQ, { ...world.cluster.getJob('default', MQ)?.status, active: 1, ready: 1 }, world.queue.now());
        return { id: 'mq-ready', detailType: 'Job Changed', kind: 'Job', name: MQ, resourceVersion: world.cluster.getJob('default', MQ)?.metadata.resourceVersion ?? '', watchType: 'MODIFIED' };
      };
      // Act: the driver's change, whose loop finds the list rewritten to one trigger, as long as the one it took.
      assert.equal(await handleEvent(jobEvent(world, driver, 'driver-suspended'), deps), 'reconciled');
      // Assess
      assert.deepEqual(reads, { full: 1, jobSet: 0, jobLists: 2 }, 'a LIST for the driver, then one for the messagequeue');
      assert.ok(world.cluster.jobsOf('default', NAME).some((job) => job.metadata.name === driver && job.spec.suspend === false), 'the messagequeue turned ready: the drivers resumed');
    });

    it('counts and logs the triggers a state item coalesced or dropped while another reconciler held its lease', async () => {
      const world = simWorld([story2()]);
      const store = new TestMemoryStore();
      const { deps, counters, lines } = reconcileDeps(store, world.gateway, world.now);
      // A holder that never comes back before these events: every one is deferred.
      await store.tryAcquireLease(key, 'stuck', world.now(), 600_000);
      const event = (job: string, resourceVersion: string) => ({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME, { kind: 'Job', name: job, resourceVersion }), id: `${job}@${resourceVersion}`, detailType: 'Job Changed' });
      const outcomes: string[] = [];
      for (let index = 0; index < MAX_PENDING_TRIGGERS; index += 1) outcomes.push(await handleEvent(event(`${NAME}-w-${index}`, '1'), deps));
      outcomes.push(await handleEvent(event(`${NAME}-w-0`, '2'), deps));
      for (let index = 0; index < 3; index += 1) outcomes.push(await handleEvent(event(`${NAME}-x-${index}`, '1'), deps));
      assert.deepEqual(new Set(outcomes), new Set(['deferred']));
      assert.equal(counters.get(CounterName.PendingCoalesced), 1, 'w-0@1 gave way to w-0@2');
      assert.equal(counters.get(CounterName.PendingDropped), 3, 'three objects over the bound: the three oldest dropped');
      const warned = lines.filter((line) => line.message.startsWith('pending triggers dropped'));
      assert.deepEqual(warned.map((line) => [line.level, line.fields?.['dropped']]), [['warn', 1], ['warn', 1], ['warn', 1]]);
      assert.equal((await store.tryAcquireLease(key, 'stuck', world.now(), 600_000))?.pendingDropped, 3);
    });

    it('a deferred event is taken into the holder\'s next pass, and named by the entry that pass writes', async () => {
      const world = simWorld([story2()]);
      const { gateway } = answeringGateway(world);
      // The holder's first release waits until the test lets it go.
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      let reachedRelease: () => void = () => undefined;
      const atRelease = new Promise<void>((resolve) => {
        reachedRelease = resolve;
      });
      class SlowReleaseStore extends TestMemoryStore {
        private first = true;
        override async releaseLease(...args: Parameters<TestMemoryStore['releaseLease']>) {
          if (this.first) {
            this.first = false;
            reachedRelease();
            await gate;
          }
          return super.releaseLease(...args);
        }
      }
      const store = new SlowReleaseStore();
      const holder = reconcileDeps(store, gateway, world.now, 'holder', { inputsMemory: new InputsMemory() });
      const other = reconcileDeps(store, gateway, world.now, 'other', { inputsMemory: new InputsMemory() });
      const first = handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME), id: 'created' }, holder.deps);
      await atRelease;
      // The holder's passes are done; before it releases, the user suspends the JobSet.
      world.cluster.setJobSetSuspend('default', NAME, true, world.queue.now());
      const rv = world.cluster.getJobSet('default', NAME)?.metadata.resourceVersion ?? '';
      assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor(NAME, { resourceVersion: rv }), id: 'suspended' }, other.deps), 'deferred');
      open();
      assert.equal(await first, 'reconciled');
      const entries = await store.listJournal(key);
      const suspending = entries.find((entry) => entry.actions.some((action) => action.code === 'JobSetSuspended'));
      assert.deepEqual(suspending?.triggers.map((trigger) => trigger.id), ['suspended']);
      assert.equal(suspending?.timings.receivedAt, undefined, "its hops were the deferring invocation's");
      const state = await store.getState(key);
      assert.equal(state?.reconciled, state?.dirty);
    });
  });

  describe('a JobSet bigger than one pass creates (MAX_CREATES_PER_PASS)', () => {
    const big = () => makeJobSet('big').replicatedJob('leader', 1).replicatedJob('workers', 1_199).inOrder().obj();
    const bigKey = { cluster: CLUSTER, namespace: 'default', name: 'big' };

    it('runs the next pass at once while Jobs are missing: one event creates all 1,200, 500 + 500 + 200', async () => {
      const world = simWorld([big()]);
      const { gateway } = answeringGateway(world);
      const store = new TestMemoryStore();
      const { deps, counters } = reconcileDeps(store, gateway, world.now, 'owner', { inputsMemory: new InputsMemory() });
      assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor('big', { uid: 'uid-big' }) }, deps), 'reconciled');
      assert.equal(world.cluster.jobsOf('default', 'big').length, 1_200);
      const entries = await store.listJournal(bigKey);
      assert.deepEqual(
        entries.map((entry) => entry.actions.filter((action) => action.kind === 'CreateJob').length),
        [500, 500, 200],
      );
      assert.equal(counters.get(CounterName.Passes), 3);
      assert.deepEqual(
        entries.map((entry) => entry.actions.filter((action) => action.code === 'CreationContinues').map((action) => action.message)),
        [['a pass creates at most 500 jobs: 700 more in the next passes'], ['a pass creates at most 500 jobs: 200 more in the next passes'], []],
      );
      assert.equal((await store.getState(bigKey))?.lease, undefined, 'lease released');
    });

    it('in the Lambda, starts no pass later than half its timeout (one lease TTL) after the event arrived', () => {
      assert.equal(LAMBDA_LOOP_BUDGET_MS, 30_000);
      assert.equal(LAMBDA_LOOP_BUDGET_MS, DEFAULT_LEASE_TTL_MS / 2);
    });

    it('starts no pass past loopBudgetMs: the JobSet goes to the resync, whose event creates the rest', async () => {
      const world = simWorld([big()]);
      const answering = answeringGateway(world);
      // Each create takes 40 ms of the clock: a pass of 500 creates takes 20 s.
      let clock = world.now();
      const gateway: ClusterGateway = {
        observe: answering.gateway.observe,
        apply: async (namespace, name, action, now) => {
          if (action.kind === 'CreateJob') clock += 40;
          return answering.gateway.apply(namespace, name, action, now);
        },
      };
      const store = new TestMemoryStore();
      const { deps } = reconcileDeps(store, gateway, () => clock, 'owner', { inputsMemory: new InputsMemory(), loopBudgetMs: 30_000 });
      // Pass 1 starts at 0 s, pass 2 at 20 s; pass 3 would start at 40 s, past the budget.
      assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor('big', { uid: 'uid-big' }) }, deps), 'handed-to-resync');
      assert.equal(world.cluster.jobsOf('default', 'big').length, 1_000);
      const state = await store.getState(bigKey);
      assert.match(state?.lastError ?? '', /^time budget of 30000 ms spent with work left .*; resync continues$/);
      assert.ok(needsResync(state ?? assert.fail('no state'), clock), 'the resync picks it up');
      // The resync's event: a new loop, a new budget.
      assert.equal(await handleEvent({ source: `lineup.${CLUSTER}`, detail: detailFor('big', { uid: 'uid-big', watchType: 'SYNC' }) }, deps), 'reconciled');
      assert.equal(world.cluster.jobsOf('default', 'big').length, 1_200);
      assert.equal((await store.getState(bigKey))?.lastError, undefined);
    });
  });
});
