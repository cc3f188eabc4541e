import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { KUBE_FIELD_MANAGER } from '../../lib/k8s/fieldManager.ts';
import { UPSTREAM_CONTROLLER_NAME } from '../../lib/jobset/api.ts';
import { CounterName, Counters } from '../../lib/counters.ts';
import { WatchExpiredError } from '../../lib/errors.ts';
import { Forwarder, type ForwarderOptions } from '../../lib/forwarder/forwarder.ts';
import type { ListResult, WatchEnd, WatchEvent, WatchSource, WatchedKind, WatchedObject } from '../../lib/forwarder/types.ts';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { makeJobSet } from '../builders.ts';
import { makeJob } from './builders.ts';
import { RecordingSink } from './helpers.ts';

const cluster = 'dev-1';

/** One scripted watch: the events it streams, then how it ends (an Error rejects, like a broken transport). */
interface WatchStep<K extends WatchedKind> {
  readonly events: readonly WatchEvent<K>[];
  readonly end: WatchEnd | Error;
  /** What the watch waits for before it streams (e.g. the list's events delivered). */
  readonly after?: () => Promise<void>;
}

/** A call the forwarder made on the source. */
type SourceCall = { readonly op: 'list'; readonly kind: WatchedKind } | { readonly op: 'watch'; readonly kind: WatchedKind; readonly from: string };

/**
 * ScriptedSource: an in-memory WatchSource playing scripted lists and watches per kind. With its
 * script used up, a watch waits for its signal (a quiet server) and the source reports idle.
 * It stands in for the API server only to test the forwarder above the source.
 */
class ScriptedSource implements WatchSource {
  readonly calls: SourceCall[] = [];
  private readonly lists: { JobSet: ListResult<'JobSet'>[]; Job: ListResult<'Job'>[] };
  private readonly watches: { JobSet: WatchStep<'JobSet'>[]; Job: WatchStep<'Job'>[] };
  private readonly quiet = new Set<WatchedKind>();
  private idleWaiters: (() => void)[] = [];
  /** Lists that reject before the scripted ones answer. */
  failingLists = 0;

  constructor(script: {
    lists?: { JobSet?: ListResult<'JobSet'>[]; Job?: ListResult<'Job'>[] };
    watches?: { JobSet?: WatchStep<'JobSet'>[]; Job?: WatchStep<'Job'>[] };
  }) {
    this.lists = { JobSet: [...(script.lists?.JobSet ?? [])], Job: [...(script.lists?.Job ?? [])] };
    this.watches = { JobSet: [...(script.watches?.JobSet ?? [])], Job: [...(script.watches?.Job ?? [])] };
  }

  async list<K extends WatchedKind>(kind: K): Promise<ListResult<K>> {
    this.calls.push({ op: 'list', kind });
    if (this.failingLists > 0) {
      this.failingLists -= 1;
      throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
    }
    const queue = this.lists[kind] as ListResult<K>[];
    const next = queue.length > 1 ? queue.shift() : queue[0];
    return next ?? { items: [], resourceVersion: '1' };
  }

  async watch<K extends WatchedKind>(kind: K, resourceVersion: string, onEvent: (event: WatchEvent<K>) => void | Promise<void>, signal: AbortSignal): Promise<WatchEnd> {
    this.calls.push({ op: 'watch', kind, from: resourceVersion });
    const step = (this.watches[kind] as WatchStep<K>[]).shift();
    if (step === undefined) {
      this.quiet.add(kind);
      if (this.quiet.size === 2) for (const wake of this.idleWaiters.splice(0)) wake();
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
      this.quiet.delete(kind);
      return 'closed';
    }
    await step.after?.();
    for (const event of step.events) await onEvent(event);
    if (step.end instanceof Error) throw step.end;
    return step.end;
  }

  /** idle: resolves once both kinds wait in a watch with nothing left to play. */
  idle(): Promise<void> {
    if (this.quiet.size === 2) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  watchesOf(kind: WatchedKind): string[] {
    return this.calls.flatMap((call) => (call.op === 'watch' && call.kind === kind ? [call.from] : []));
  }

  listsOf(kind: WatchedKind): number {
    return this.calls.filter((call) => call.op === 'list' && call.kind === kind).length;
  }
}

/**
 * PagedSource: a ScriptedSource that also offers listPages, handing each scripted list over one
 * object per page; `failAfterPages` pages into the next list, that list rejects (once).
 */
class PagedSource extends ScriptedSource {
  /** Pages handed over, per kind. */
  readonly pages: Record<WatchedKind, number> = { JobSet: 0, Job: 0 };
  failAfterPages: number | undefined;

  async *listPages<K extends WatchedKind>(kind: K): AsyncGenerator<ListResult<K>> {
    const { items, resourceVersion } = await this.list(kind);
    for (const [index, item] of items.entries()) {
      if (this.failAfterPages === index) {
        this.failAfterPages = undefined;
        throw new Error('list jobs: HTTP 500 etcdserver: request timed out');
      }
      this.pages[kind] += 1;
      yield { items: [item], resourceVersion };
    }
  }
}

/** RecordingBookmarks: the memory store's bookmarks, with every put recorded. */
class RecordingBookmarks {
  readonly store = new MemoryCheckpointStore();
  readonly puts: string[] = [];
  failGets = false;
  getBookmark(clusterId: string, resource: string): Promise<string | undefined> {
    if (this.failGets) return Promise.reject(new Error('dynamodb unavailable'));
    return this.store.getBookmark(clusterId, resource);
  }
  putBookmark(clusterId: string, resource: string, resourceVersion: string, now: number): Promise<void> {
    this.puts.push(`${resource}=${resourceVersion}`);
    return this.store.putBookmark(clusterId, resource, resourceVersion, now);
  }
}

const setup = (source: WatchSource, overrides: Partial<ForwarderOptions> = {}) => {
  const sink = new RecordingSink();
  const bookmarks = new RecordingBookmarks();
  const counters = new Counters();
  const logs: string[] = [];
  const sleeps: number[] = [];
  const options: ForwarderOptions = {
    cluster,
    source,
    sink,
    bookmarks,
    planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false },
    counters,
    log: (level, message) => logs.push(`${level}: ${message}`),
    now: () => 1_000,
    batchWindowMs: 1,
    checkpointIntervalMs: 0,
    // Backoffs are recorded, not waited; setImmediate still lets timers (the batch window) run.
    sleep: (ms) => {
      sleeps.push(ms);
      return new Promise((resolve) => setImmediate(resolve));
    },
    ...overrides,
  };
  return { forwarder: new Forwarder(options), sink, bookmarks, counters, logs, sleeps, options };
};

/** runUntilIdle: run the forwarder until the source played its whole script, then stop it (flushing). */
const runUntilIdle = async (forwarder: Forwarder, source: ScriptedSource): Promise<void> => {
  const controller = new AbortController();
  const running = forwarder.run(controller.signal);
  await source.idle();
  controller.abort();
  await running;
};

const list = <K extends WatchedKind>(resourceVersion: string, ...items: WatchedObject<K>[]): ListResult<K> => ({ items, resourceVersion });
const jobSet = (name: string, resourceVersion = '1'): JobSet => {
  const js = makeJobSet(name, 'ml').replicatedJob('workers', 1).obj();
  js.metadata.resourceVersion = resourceVersion;
  return js;
};
const job = (resourceVersion: string, status: NonNullable<Job['status']> = {}, suspend = false): Job =>
  makeJob('train-workers-0', 'train', 'ml').resourceVersion(resourceVersion).suspend(suspend).status(status).obj();
const modified = <K extends WatchedKind>(object: WatchedObject<K>): WatchEvent<K> => ({ type: 'MODIFIED', object });

describe('Forwarder', () => {
  it('starts without a checkpoint: lists, syncs every managed JobSet, watches from the list resourceVersion', async () => {
    // Prepare
    const upstreams = makeJobSet('theirs', 'ml').managedBy(UPSTREAM_CONTROLLER_NAME).obj();
    const source = new ScriptedSource({
      lists: { JobSet: [list('100', jobSet('train'), upstreams)], Job: [list('100', job('90'))] },
    });
    const { forwarder, sink, bookmarks, counters } = setup(source);
    // Act
    await runUntilIdle(forwarder, source);
    // Assess: a Sync from each kind's list (the Job list syncs the owner of every Job it has not
    // seen), both about train and in one window: one event.
    assert.deepEqual(sink.summary().map((s) => s.replace(/@.*$/, '')), ['JobSet Sync SYNC JobSet/train']);
    assert.equal(counters.get(CounterName.EventsCoalesced), 1);
    assert.deepEqual(source.watchesOf('JobSet'), ['100']);
    assert.deepEqual(source.watchesOf('Job'), ['100']);
    assert.deepEqual(bookmarks.puts.sort(), ['jobs=100', 'jobsets=100']);
  });

  it('reconnects from the resourceVersion of the last event after the server closes the watch', async () => {
    const source = new ScriptedSource({
      lists: { JobSet: [list('100', jobSet('train'))], Job: [list('100')] },
      watches: {
        Job: [
          { events: [modified(job('101', { active: 1 })), modified(job('102', { active: 1, ready: 1 }))], end: 'closed' },
          { events: [{ type: 'BOOKMARK', resourceVersion: '150' }], end: 'closed' },
          { events: [modified(job('151', { succeeded: 1 }))], end: 'closed' },
        ],
      },
    });
    const { forwarder, sink, counters, bookmarks } = setup(source);
    await runUntilIdle(forwarder, source);
    assert.deepEqual(source.watchesOf('Job'), ['100', '102', '150', '151']);
    assert.equal(source.listsOf('Job'), 1, 'a closed watch is resumed, not re-listed');
    // Three changes passed the filter; those sharing a window went as one event, the newest.
    assert.equal(counters.get(CounterName.WatchEvents) - counters.get(CounterName.EventsDropped), 3);
    assert.equal(sink.lastByJobSet()['ml/train'], 'Job Changed MODIFIED Job/train-workers-0@151');
    assert.equal(counters.get(CounterName.Relists), 0);
    assert.equal(bookmarks.puts.filter((p) => p.startsWith('jobs=')).at(-1), 'jobs=151');
  });

  it('re-lists on 410 Gone, syncs every managed JobSet and reports the ones deleted meanwhile', async () => {
    // Prepare: the JobSet watch expires; by the re-list `old` is gone and `new` appeared.
    const source = new ScriptedSource({
      lists: {
        JobSet: [list('100', jobSet('train'), jobSet('old')), list('300', jobSet('train', '250'), jobSet('new', '260'))],
        Job: [list('100')],
      },
      watches: { JobSet: [{ events: [modified(jobSet('train', '120'))], end: 'expired' }] },
    });
    const { forwarder, sink, counters, logs } = setup(source);
    // Act
    await runUntilIdle(forwarder, source);
    // Assess
    assert.equal(counters.get(CounterName.Relists), 1);
    assert.deepEqual(source.watchesOf('JobSet'), ['100', '300']);
    assert.equal(source.listsOf('JobSet'), 2);
    // The bus's last word on each JobSet (the first list's syncs may share the re-list's window).
    assert.deepEqual(sink.lastByJobSet(), {
      'ml/old': 'JobSet Changed DELETED JobSet/old@300',
      'ml/new': 'JobSet Sync SYNC JobSet/new@260',
      'ml/train': 'JobSet Sync SYNC JobSet/train@250',
    });
    assert.ok(logs.includes('warn: watch expired (410 Gone), re-listing'));
  });

  it('on a Job re-list syncs only the JobSets whose Jobs changed, appeared or vanished while the watch was down', async () => {
    const other = makeJob('other-workers-0', 'other', 'ml').resourceVersion('95').obj();
    const source = new ScriptedSource({
      lists: {
        JobSet: [list('100', jobSet('train'), jobSet('other'), jobSet('quiet'))],
        Job: [
          list('100', job('90'), other, makeJob('quiet-workers-0', 'quiet', 'ml').obj()),
          // After the 410: train's Job moved on, other's Job is gone, quiet's is as it was.
          list('400', job('350', { active: 1 }), makeJob('quiet-workers-0', 'quiet', 'ml').obj()),
        ],
      },
      watches: { Job: [{ events: [], end: 'expired' }] },
    });
    const { forwarder, sink } = setup(source);
    await runUntilIdle(forwarder, source);
    assert.deepEqual(sink.summary().filter((s) => s.endsWith('@400')).sort(), ['JobSet Sync SYNC JobSet/other@400', 'JobSet Sync SYNC JobSet/train@400']);
  });

  it('survives a transport error: logs, backs off and reconnects from the last resourceVersion', async () => {
    const source = new ScriptedSource({
      lists: { JobSet: [list('100', jobSet('train'))], Job: [list('100')] },
      watches: {
        Job: [
          { events: [modified(job('101', { active: 1 }))], end: new Error('read ECONNRESET') },
          { events: [], end: new Error('connect ECONNREFUSED') },
          { events: [modified(job('102', { active: 1, ready: 1 }))], end: 'closed' },
        ],
      },
    });
    const { forwarder, sink, counters, logs, sleeps } = setup(source);
    await runUntilIdle(forwarder, source);
    assert.deepEqual(source.watchesOf('Job'), ['100', '101', '101', '102']);
    assert.equal(counters.get(CounterName.WatchErrors), 2);
    assert.deepEqual(sleeps.slice(0, 2), [200, 400], 'backoff doubles from WATCH_RETRY.baseDelayMs');
    assert.equal(logs.filter((l) => l === 'warn: watch failed, reconnecting after backoff').length, 2);
    assert.equal(sink.summary().filter((s) => s.startsWith('Job Changed')).length, 2);
  });

  it('treats a watch rejected with WatchExpiredError like an expired one: re-list', async () => {
    const source = new ScriptedSource({
      lists: { JobSet: [list('100', jobSet('train')), list('300', jobSet('train', '250'))], Job: [list('100')] },
      watches: { JobSet: [{ events: [], end: new WatchExpiredError('too old resource version: 100 (250)') }] },
    });
    const { forwarder, counters } = setup(source);
    await runUntilIdle(forwarder, source);
    assert.deepEqual(source.watchesOf('JobSet'), ['100', '300']);
    assert.deepEqual({ relists: counters.get(CounterName.Relists), errors: counters.get(CounterName.WatchErrors) }, { relists: 1, errors: 0 });
  });

  it('retries a failed list after a backoff, and lists when the checkpoint cannot be read', async () => {
    const source = new ScriptedSource({ lists: { JobSet: [list('100', jobSet('train'))], Job: [list('100')] } });
    source.failingLists = 2;
    const { forwarder, sink, bookmarks, logs } = setup(source);
    bookmarks.failGets = true;
    await runUntilIdle(forwarder, source);
    assert.equal(source.listsOf('JobSet') + source.listsOf('Job'), 4);
    assert.ok(sink.summary().includes('JobSet Sync SYNC JobSet/train@1'));
    assert.equal(logs.filter((l) => l.startsWith('warn: list failed')).length, 2);
    assert.equal(logs.filter((l) => l.startsWith('warn: reading the watch checkpoint failed')).length, 2);
  });

  it('checkpoints a resourceVersion only after the batch holding its event was put', async () => {
    // Prepare: resume from checkpoints; the sink holds every put until released.
    const source = new ScriptedSource({
      watches: {
        Job: [{ events: [modified(job('201', { active: 1 })), modified(job('202', { active: 1 }, false))], end: 'closed' }],
      },
    });
    const { forwarder, sink, bookmarks } = setup(source);
    await bookmarks.store.putBookmark(cluster, 'jobsets', '200', 0);
    await bookmarks.store.putBookmark(cluster, 'jobs', '200', 0);
    let release = () => {};
    sink.gate = new Promise<void>((resolve) => (release = resolve));
    const controller = new AbortController();
    // Act
    const running = forwarder.run(controller.signal);
    await source.idle();
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Assess: the event of 201 is waiting in a put, so neither 201 nor the dropped 202 after it is checkpointed.
    assert.deepEqual(bookmarks.puts, []);
    assert.equal(await bookmarks.store.getBookmark(cluster, 'jobs'), '200');
    sink.gate = undefined;
    release();
    for (let tries = 0; bookmarks.puts.at(-1) !== 'jobs=202' && tries < 200; tries += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(bookmarks.puts.at(-1), 'jobs=202');
    assert.equal(await bookmarks.store.getBookmark(cluster, 'jobs'), '202');
    controller.abort();
    await running;
    assert.deepEqual(sink.summary(), ['Job Changed MODIFIED Job/train-workers-0@201']);
  });

  it('on abort flushes what it accepted before returning, then checkpoints it', async () => {
    const source = new ScriptedSource({
      watches: { Job: [{ events: [modified(job('201', { active: 1 }))], end: 'closed' }] },
    });
    // A long window: only the shutdown flush sends the event.
    const { forwarder, sink, bookmarks } = setup(source, { batchWindowMs: 60_000 });
    await bookmarks.store.putBookmark(cluster, 'jobsets', '200', 0);
    await bookmarks.store.putBookmark(cluster, 'jobs', '200', 0);
    await runUntilIdle(forwarder, source);
    assert.deepEqual(sink.summary(), ['Job Changed MODIFIED Job/train-workers-0@201']);
    assert.deepEqual(bookmarks.puts, ['jobs=201']);
  });

  it('on abort does not wait out the checkpoint interval: the writer waiting for it writes the last delivered resourceVersion at once', { timeout: 10_000 }, async () => {
    // Prepare: a clock that stands still, and a wait for the 10 s interval that ends only when
    // woken (other waits, such as a re-watch's backoff, pass at once), so a stop that waited out
    // the interval would never return.
    let bookmarks: RecordingBookmarks | undefined;
    const firstCheckpointed = async (): Promise<void> => {
      while (!(bookmarks?.puts.includes('jobs=201') ?? false)) await new Promise((resolve) => setImmediate(resolve));
    };
    const source = new ScriptedSource({
      watches: {
        Job: [
          { events: [modified(job('201', { active: 1 }))], end: 'closed' },
          { after: firstCheckpointed, events: [modified(job('202', { active: 1, ready: 1 }))], end: 'closed' },
        ],
      },
    });
    const waits: number[] = [];
    const setUp = setup(source, {
      checkpointIntervalMs: 10_000,
      sleep: (ms, signal) => {
        waits.push(ms);
        if (ms !== 10_000) return new Promise((resolve) => setImmediate(resolve));
        return new Promise((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener('abort', () => resolve(), { once: true })));
      },
    });
    bookmarks = setUp.bookmarks;
    await bookmarks.store.putBookmark(cluster, 'jobsets', '200', 0);
    await bookmarks.store.putBookmark(cluster, 'jobs', '200', 0);
    // Act
    await runUntilIdle(setUp.forwarder, source);
    // Assess: the second checkpoint waited for the interval, and the stop wrote it without waiting more.
    assert.ok(waits.includes(10_000), JSON.stringify(waits));
    assert.deepEqual(bookmarks.puts, ['jobs=201', 'jobs=202']);
    assert.deepEqual(setUp.sink.summary(), ['Job Changed MODIFIED Job/train-workers-0@201', 'Job Changed MODIFIED Job/train-workers-0@202']);
  });

  it('on restart resumes from the checkpoint without re-listing', async () => {
    // Prepare: a first run lists and forwards; a second run shares only the checkpoint store.
    const first = new ScriptedSource({
      lists: { JobSet: [list('100', jobSet('train'))], Job: [list('100')] },
      watches: {
        JobSet: [{ events: [modified(jobSet('train', '110'))], end: 'closed' }],
        Job: [{ events: [modified(job('120', { active: 1 }))], end: 'closed' }],
      },
    });
    const one = setup(first);
    await runUntilIdle(one.forwarder, first);
    const second = new ScriptedSource({ watches: { Job: [{ events: [modified(job('130', { active: 1, ready: 1 }))], end: 'closed' }] } });
    const two = setup(second, { bookmarks: one.bookmarks });
    // Act
    await runUntilIdle(two.forwarder, second);
    // Assess
    assert.equal(second.listsOf('JobSet') + second.listsOf('Job'), 0);
    assert.deepEqual(second.watchesOf('JobSet'), ['110']);
    assert.deepEqual(second.watchesOf('Job'), ['120', '130']);
    assert.deepEqual(two.sink.summary(), ['Job Changed MODIFIED Job/train-workers-0@130']);
  });

  it('runFor ends a watch session by itself and leaves the checkpoint for the next', async () => {
    const source = new ScriptedSource({ lists: { JobSet: [list('100', jobSet('train'))], Job: [list('100')] } });
    const { forwarder, bookmarks } = setup(source);
    await forwarder.runFor(50);
    assert.equal(await bookmarks.store.getBookmark(cluster, 'jobsets'), '100');
    assert.equal(await bookmarks.store.getBookmark(cluster, 'jobs'), '100');
  });

  it('re-lists JobSets every resyncIntervalMs and syncs them again, without counting a 410 re-list', async () => {
    const source = new ScriptedSource({ lists: { JobSet: [list('100', jobSet('train'))], Job: [list('100')] } });
    const { forwarder, sink, counters } = setup(source, { resyncIntervalMs: 20 });
    const controller = new AbortController();
    const running = forwarder.run(controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 120));
    controller.abort();
    await running;
    assert.ok(source.listsOf('JobSet') >= 3, `listed JobSets ${source.listsOf('JobSet')} times`);
    assert.equal(source.listsOf('Job'), 1, 'Jobs are not re-listed: a JobSet Sync covers them');
    assert.ok(sink.summary().filter((s) => s === 'JobSet Sync SYNC JobSet/train@1').length >= 3);
    assert.equal(counters.get(CounterName.Relists), 0);
  });

  it('drops an event over the 1 MB entry limit whole, logs its size, and checkpoints past it', async () => {
    // Prepare: a JobSet whose conditions alone are over 1 MB in the slim projection.
    const huge = jobSet('huge', '150');
    huge.status = { conditions: Array.from({ length: 12_000 }, (_, i) => ({ type: `Custom${i}`, status: 'True' as const, reason: 'r'.repeat(80) })) };
    const source = new ScriptedSource({ watches: { JobSet: [{ events: [modified(huge), modified(jobSet('train', '151'))], end: 'closed' }] } });
    const { forwarder, sink, counters, logs, bookmarks } = setup(source);
    await bookmarks.store.putBookmark(cluster, 'jobsets', '149', 0);
    await bookmarks.store.putBookmark(cluster, 'jobs', '149', 0);
    // Act
    await runUntilIdle(forwarder, source);
    // Assess
    assert.deepEqual(sink.summary(), ['JobSet Changed MODIFIED JobSet/train@151']);
    assert.equal(counters.get(CounterName.EventsDroppedOversize), 1);
    assert.deepEqual(logs.filter((l) => l.startsWith('error:')), ['error: event too large for EventBridge, dropped']);
    assert.equal(await bookmarks.store.getBookmark(cluster, 'jobsets'), '151');
  });

  it('refuses a cluster id that cannot name an event source', () => {
    const source = new ScriptedSource({});
    assert.throws(() => setup(source, { cluster: 'Not_A_Label' }), /cluster id "Not_A_Label" is not a DNS label/);
  });

  it('folds the echoes of Lineup’s own Job writes into the next change of their JobSet, one event per JobSet naming each Job', async () => {
    // Prepare: Lineup creates train's two Jobs and resumes one (managedFields name Lineup), then
    // the Job controller starts both; another JobSet's Job changes in the same window.
    const lineup = { manager: KUBE_FIELD_MANAGER, operation: 'Update', fieldsV1: { 'f:spec': { 'f:suspend': {}, 'f:template': {} } } };
    const jobController = { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:active': {} } } };
    const trainJob = (index: number, rv: string) => makeJob(`train-workers-${index}`, 'train', 'ml').resourceVersion(rv);
    const added = <K extends WatchedKind>(object: WatchedObject<K>): WatchEvent<K> => ({ type: 'ADDED', object });
    const source = new ScriptedSource({
      lists: { JobSet: [list('100', jobSet('train'), jobSet('other'))], Job: [list('100')] },
      watches: {
        Job: [
          {
            events: [
              added(trainJob(0, '101').suspend(false).managed(lineup).obj()),
              added(trainJob(1, '102').managed(lineup).obj()),
              modified(trainJob(1, '103').suspend(false).managed(lineup).obj()),
              modified(trainJob(0, '104').suspend(false).status({ active: 1 }).managed(lineup, jobController).obj()),
              modified(trainJob(1, '105').suspend(false).status({ active: 1 }).managed(lineup, jobController).obj()),
              modified(makeJob('other-workers-0', 'other', 'ml').resourceVersion('106').suspend(false).status({ active: 1 }).managed(lineup, jobController).obj()),
            ],
            end: 'closed',
          },
        ],
      },
    });
    const { forwarder, sink, counters, bookmarks } = setup(source, { batchWindowMs: 60_000 });
    await bookmarks.store.putBookmark(cluster, 'jobsets', '100', 0);
    await bookmarks.store.putBookmark(cluster, 'jobs', '100', 0);
    // Act
    await runUntilIdle(forwarder, source);
    // Assess: train's 3 own writes waited and went with its Jobs' status changes, one event naming
    // each Job at its newest version (a pass reads again only the objects its events name); other's its own.
    assert.deepEqual(sink.summary().sort(), ['Job Changed MODIFIED Job/other-workers-0@106', 'Job Changed MODIFIED Job/train-workers-1@105 + MODIFIED Job/train-workers-0@104']);
    assert.deepEqual(
      { raw: counters.get(CounterName.WatchEvents), dropped: counters.get(CounterName.EventsDropped), coalesced: counters.get(CounterName.EventsCoalesced), put: counters.get(CounterName.EventsPut) },
      { raw: 6, dropped: 0, coalesced: 4, put: 2 },
    );
    assert.equal(bookmarks.puts.at(-1), 'jobs=106', 'the checkpoint passes the dropped and coalesced changes');
  });

  it('puts the echo of Lineup’s own Job write alone when no change of its JobSet comes within the hold, and checkpoints past it', async () => {
    // Prepare: a Job Lineup created, and nothing after it; the window is long, the hold short.
    const lineup = { manager: KUBE_FIELD_MANAGER, operation: 'Update', fieldsV1: { 'f:spec': { 'f:suspend': {} } } };
    const source = new ScriptedSource({
      watches: { Job: [{ events: [{ type: 'ADDED', object: makeJob('train-workers-0', 'train', 'ml').resourceVersion('201').managed(lineup).obj() }], end: 'closed' }] },
    });
    const { forwarder, sink, bookmarks } = setup(source, { batchWindowMs: 60_000, ownWriteHoldMs: 5 });
    await bookmarks.store.putBookmark(cluster, 'jobsets', '200', 0);
    await bookmarks.store.putBookmark(cluster, 'jobs', '200', 0);
    const controller = new AbortController();
    // Act
    const running = forwarder.run(controller.signal);
    try {
      await source.idle();
      // Assess: it goes when its hold ends, not at the (60 s) window nor at shutdown.
      for (let turn = 0; turn < 200 && sink.entries.length === 0; turn += 1) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(sink.summary(), ['Job Changed ADDED Job/train-workers-0@201']);
    } finally {
      controller.abort();
      await running;
    }
    assert.equal(await bookmarks.store.getBookmark(cluster, 'jobs'), '201');
  });

  describe('a step of progress no decision waits for', () => {
    // train runs 2 workers, solo 1; every Job runs. The batch window is 1 ms and the hold a
    // minute, so what is put before the run is stopped went at once, and what waited did not.
    const running: NonNullable<Job['status']> = { active: 1 };
    const ready: NonNullable<Job['status']> = { active: 1, ready: 1 };
    const complete: NonNullable<Job['status']> = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
    const jobSetOf = (name: string, replicas: number): JobSet => {
      const js = makeJobSet(name, 'ml').replicatedJob('workers', replicas).obj();
      js.metadata.resourceVersion = '100';
      return js;
    };
    const worker = (jobSet: string, index: number, rv: string, status: NonNullable<Job['status']>) =>
      makeJob(`${jobSet}-workers-${index}`, jobSet, 'ml').resourceVersion(rv).suspend(false).status(status).obj();
    const start = (listed: Job[], events: WatchEvent<'Job'>[]) => {
      let sink: RecordingSink | undefined;
      const source = new ScriptedSource({
        lists: { JobSet: [list('100', jobSetOf('train', 2), jobSetOf('solo', 1))], Job: [list('100', ...listed)] },
        // The watch streams once the list's syncs are on the bus, so nothing folds into them.
        watches: { Job: [{ after: () => until(() => (sink?.summary() ?? []).filter((line) => line.includes('SYNC')).length >= 2), events, end: 'closed' }] },
      });
      const harness = setup(source, { batchWindowMs: 1, ownWriteHoldMs: 60_000 });
      sink = harness.sink;
      const controller = new AbortController();
      const run = harness.forwarder.run(controller.signal);
      const stop = async () => {
        controller.abort();
        await run;
      };
      return { ...harness, source, stop };
    };
    const until = async (done: () => boolean): Promise<void> => {
      for (let turn = 0; turn < 400 && !done(); turn += 1) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.ok(done(), 'the awaited delivery did not come within 2 s');
    };
    const watched = (sink: RecordingSink) => sink.summary().filter((line) => !line.includes('SYNC'));

    // Each case: the Jobs listed, the watch's changes, what goes at once (before the forwarder is
    // stopped) and, where something waited, what has gone once it is stopped (nothing is lost).
    const cases: { title: string; listed: Job[]; changes: Job[]; atOnce: string[]; afterStop?: string[] }[] = [
      {
        title: 'a Job turning ready while another of its replicatedJob has not waits; the same step of a single-replica one does not',
        listed: [worker('train', 0, '90', running), worker('train', 1, '91', running), worker('solo', 0, '92', running)],
        changes: [worker('train', 0, '101', ready), worker('solo', 0, '102', ready)],
        atOnce: ['Job Changed MODIFIED Job/solo-workers-0@102'],
        afterStop: ['Job Changed MODIFIED Job/solo-workers-0@102', 'Job Changed MODIFIED Job/train-workers-0@101'],
      },
      {
        title: 'the Job that makes its replicatedJob ready goes at once and takes the waiting one along',
        listed: [worker('train', 0, '90', running), worker('train', 1, '91', running)],
        changes: [worker('train', 0, '101', ready), worker('train', 1, '102', ready)],
        atOnce: ['Job Changed MODIFIED Job/train-workers-1@102 + MODIFIED Job/train-workers-0@101'],
      },
      {
        title: 'a Job completing while another the JobSet’s success waits on has not waits; a single-replica JobSet’s does not',
        listed: [worker('train', 0, '90', ready), worker('train', 1, '91', ready), worker('solo', 0, '92', ready)],
        changes: [worker('train', 0, '101', complete), worker('solo', 0, '102', complete)],
        atOnce: ['Job Changed MODIFIED Job/solo-workers-0@102'],
        afterStop: ['Job Changed MODIFIED Job/solo-workers-0@102', 'Job Changed MODIFIED Job/train-workers-0@101'],
      },
      {
        title: 'the last Job the JobSet’s success waits on goes at once with the completions that waited',
        listed: [worker('train', 0, '90', ready), worker('train', 1, '91', ready)],
        changes: [worker('train', 0, '101', complete), worker('train', 1, '102', complete)],
        atOnce: ['Job Changed MODIFIED Job/train-workers-1@102 + MODIFIED Job/train-workers-0@101'],
      },
    ];
    for (const { title, listed, changes, atOnce, afterStop } of cases) {
      it(title, async () => {
        // Prepare
        const { sink, stop } = start(listed, changes.map((job) => modified(job)));
        try {
          // Act: the first change that goes at once reaches the bus.
          await until(() => watched(sink).length > 0);
          // Assess
          assert.deepEqual(watched(sink), atOnce);
        } finally {
          await stop();
        }
        if (afterStop !== undefined) assert.deepEqual(watched(sink), afterStop);
      });
    }
  });

  it('forwards a fraction of the raw events of a Job going active → ready → succeeded with noise between', async (t) => {
    // Prepare: the Job as the controllers write it, each meaningful step followed by updates
    // that touch only timestamps, managedFields or annotations.
    const base = () => makeJob('train-workers-0', 'train', 'ml');
    const story: Job[] = [
      base().suspend(false).status({ conditions: [{ type: 'Suspended', status: 'True', reason: 'JobSuspended' }] }).obj(), // Lineup un-suspends
      base().suspend(false).status({ startTime: 't1', conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // resumed
      base().suspend(false).noise('t1').status({ conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // noise
      base().suspend(false).noise('t2').status({ active: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // pod created
      base().suspend(false).noise('t3').status({ active: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // noise
      base().suspend(false).noise('t4').status({ active: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed', lastProbeTime: 't4' }] }).obj(), // noise
      base().suspend(false).noise('t5').status({ active: 1, ready: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // pod ready
      base().suspend(false).noise('t6').status({ active: 1, ready: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // noise
      base().suspend(false).noise('t7').status({ active: 1, ready: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // noise
      base().suspend(false).noise('t8').status({ active: 1, ready: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // noise
      base().suspend(false).noise('t9').status({ active: 0, ready: 0, succeeded: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }] }).obj(), // pod succeeded
      base().suspend(false).noise('t10').status({ succeeded: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }, { type: 'SuccessCriteriaMet', status: 'True' }] }).obj(), // criteria met
      base().suspend(false).noise('t11').status({ succeeded: 1, completionTime: 't11', conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }, { type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }] }).obj(), // complete
      base().suspend(false).noise('t12').status({ succeeded: 1, completionTime: 't11', conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }, { type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }] }).obj(), // noise
      base().suspend(false).noise('t13').status({ succeeded: 1, completionTime: 't11', conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }, { type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }] }).obj(), // noise
    ];
    const events = story.map((object, i) => {
      object.metadata.resourceVersion = String(300 + i);
      return modified<'Job'>(object);
    });
    const source = new ScriptedSource({
      lists: { JobSet: [list('299', jobSet('train'))], Job: [list('299', base().resourceVersion('298').obj())] },
      watches: { Job: [{ events, end: 'closed' }] },
    });
    const { forwarder, sink, counters } = setup(source);
    // Act
    await runUntilIdle(forwarder, source);
    // Assess
    // 7 changes pass the filter (300, 301, 303, 306, 310, 311, 312); streamed within one window
    // with the list's sync of train, they are one event: the Job's newest state, and the sync.
    const raw = counters.get(CounterName.WatchEvents);
    const dropped = counters.get(CounterName.EventsDropped);
    t.diagnostic(`passed the filter/raw = ${raw - dropped}/${raw} = ${((raw - dropped) / raw).toFixed(2)}, events put ${counters.get(CounterName.EventsPut)}`);
    assert.deepEqual({ raw, dropped }, { raw: 15, dropped: 8 });
    assert.deepEqual(sink.summary(), ['Job Changed MODIFIED Job/train-workers-0@312 + SYNC JobSet/train@299']);
  });

  it('takes a paged list a page at a time and forwards what the whole list would', async () => {
    // Prepare: the re-list script above, from a source that pages.
    const script = () => ({
      lists: {
        JobSet: [list<'JobSet'>('100', jobSet('train'), jobSet('old')), list<'JobSet'>('300', jobSet('train', '250'), jobSet('new', '260'))],
        Job: [list<'Job'>('100', job('90'))],
      },
      watches: { JobSet: [{ events: [modified<'JobSet'>(jobSet('train', '120'))], end: 'expired' as const }] },
    });
    const paged = new PagedSource(script());
    const whole = new ScriptedSource(script());
    const pagedRun = setup(paged);
    const wholeRun = setup(whole);
    // Act
    await runUntilIdle(pagedRun.forwarder, paged);
    await runUntilIdle(wholeRun.forwarder, whole);
    // Assess: one object per page, and the same last word on each JobSet and checkpoints.
    assert.deepEqual(paged.pages, { JobSet: 4, Job: 1 });
    assert.deepEqual(pagedRun.sink.lastByJobSet(), wholeRun.sink.lastByJobSet());
    assert.deepEqual(pagedRun.sink.lastByJobSet()['ml/old'], 'JobSet Changed DELETED JobSet/old@300');
    assert.deepEqual(pagedRun.bookmarks.puts.sort(), wholeRun.bookmarks.puts.sort());
  });

  it('a page that fails midway fails the whole list: nothing of it is forwarded, the list starts again', async () => {
    // Prepare: the first Job list fails on its second page.
    const source = new PagedSource({
      lists: { JobSet: [list('100', jobSet('train'), jobSet('other'))], Job: [list('100', job('90'), makeJob('other-workers-0', 'other', 'ml').obj())] },
    });
    source.failAfterPages = 1;
    const { forwarder, sink, logs } = setup(source);
    // Act
    await runUntilIdle(forwarder, source);
    // Assess: listed again from the first page; each JobSet synced once per successful list.
    assert.equal(logs.filter((l) => l.startsWith('warn: list failed')).length, 1);
    assert.equal(source.listsOf('JobSet') + source.listsOf('Job'), 3);
    assert.deepEqual(source.watchesOf('Job'), ['100']);
    assert.deepEqual(Object.keys(sink.lastByJobSet()).sort(), ['ml/other', 'ml/train']);
  });

  it('heartbeats by rewriting its checkpoint when none was written for an interval: the same resourceVersion at a new time, no event on the bus', async () => {
    // Prepare: resumed from checkpoints, a quiet cluster; the heartbeat's waits advance a fake clock.
    const source = new ScriptedSource({});
    let clock = 1_000_000;
    const { forwarder, sink, bookmarks, counters } = setup(source, {
      heartbeatIntervalMs: 120_000,
      now: () => clock,
      sleep: (ms) => {
        if (ms >= 30_000) clock += ms;
        return new Promise((resolve) => setImmediate(resolve));
      },
    });
    await bookmarks.store.putBookmark(cluster, 'jobsets', '300', 0);
    await bookmarks.store.putBookmark(cluster, 'jobs', '310', 0);
    const controller = new AbortController();
    // Act: run until three heartbeats were written.
    const running = forwarder.run(controller.signal);
    for (let tries = 0; bookmarks.puts.length < 3 && tries < 2_000; tries += 1) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await running;
    // Assess: one kind's checkpoint rewritten, unchanged, each an interval apart; the newest write time is the clock's.
    assert.deepEqual(bookmarks.puts.slice(0, 3), ['jobsets=300', 'jobsets=300', 'jobsets=300']);
    assert.equal(await bookmarks.store.getBookmark(cluster, 'jobsets'), '300');
    const [jobSets] = (await bookmarks.store.listBookmarks(cluster)).filter((bookmark) => bookmark.resource === 'jobsets');
    assert.ok(jobSets !== undefined && jobSets.updatedAt >= 1_000_000 + 3 * 120_000, `written at ${jobSets?.updatedAt}`);
    assert.ok(counters.get(CounterName.HeartbeatsPut) >= 3);
    assert.equal(counters.get(CounterName.Checkpoints), 0, 'nothing new to checkpoint');
    assert.deepEqual(sink.entries, [], 'no heartbeat crosses the bus');
  });

  it('writes no heartbeat before it has a checkpoint to vouch for (every list failing): its cluster stays unwatched', async () => {
    const source = new ScriptedSource({});
    source.failingLists = Number.POSITIVE_INFINITY;
    let clock = 0;
    const { forwarder, bookmarks } = setup(source, {
      heartbeatIntervalMs: 120_000,
      now: () => clock,
      sleep: (ms) => {
        clock += Math.max(ms, 1);
        return new Promise((resolve) => setImmediate(resolve));
      },
    });
    const controller = new AbortController();
    const running = forwarder.run(controller.signal);
    for (let tries = 0; clock < 10 * 120_000 && tries < 5_000; tries += 1) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await running;
    assert.ok(clock >= 10 * 120_000, 'ten intervals went by');
    assert.deepEqual(bookmarks.puts, []);
  });
});
