/**
 * KubeWatchSource against a real kube-apiserver (as Lineup's user, granted by watchVerbs): paged
 * lists across namespaces, watches that deliver ADDED/MODIFIED/DELETED and bookmarks, a watch
 * from a resourceVersion the server no longer keeps that ends 'expired' (the server compacts
 * etcd every few seconds here), aborts, handler failures and refused credentials.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { Label } from '../../../lib/jobset/api.ts';
import { CounterName, Counters } from '../../../lib/counters.ts';
import { ErrorCode } from '../../../lib/errors.ts';
import type { WatchEnd, WatchEvent, WatchedKind } from '../../../lib/forwarder/types.ts';
import type { Job, JobSet } from '../../../lib/jobset/schema.ts';
import { kubeConfigEndpoint } from '../../../lib/k8s/kubeConfigFile.ts';
import { KubeResource } from '../../../lib/k8s/gateway.ts';
import { KubeWatchSource } from '../../../lib/k8s/watchSource.ts';
import { makeJobSet } from '../../builders.ts';
import type { KubeServer } from '../harness/index.ts';
import { Admin, assertLineupError, COLD_START_TIMEOUT_MS, eventually, startCluster } from './support.ts';

/** How often this server compacts etcd: short, so old revisions are gone from etcd too, not only from the watch cache. */
const COMPACTION_INTERVAL = '5s';

const jobSetNamed = (name: string, namespace: string): JobSet => {
  const built = makeJobSet(name, namespace).replicatedJob('workers', 1).obj();
  const { uid: _uid, resourceVersion: _rv, ...metadata } = built.metadata;
  return { ...built, metadata };
};

const jobNamed = (name: string, namespace: string, jobSet: string | undefined): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace, ...(jobSet === undefined ? {} : { labels: { [Label.JobSetName]: jobSet } }) },
  spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
});

/** Recorder: collects a watch's events and lets a test wait for one. */
class Recorder<K extends WatchedKind> {
  readonly events: WatchEvent<K>[] = [];
  readonly onEvent = (event: WatchEvent<K>): void => {
    this.events.push(event);
  };
  /** changesOf: the change types delivered for objects of this name, in order. */
  changesOf(name: string): string[] {
    return this.events.flatMap((event) => (event.type !== 'BOOKMARK' && event.object.metadata.name === name ? [event.type] : []));
  }
  bookmarks(): string[] {
    return this.events.flatMap((event) => (event.type === 'BOOKMARK' ? [event.resourceVersion] : []));
  }
}

describe('KubeWatchSource against kube-apiserver', () => {
  let server: KubeServer | undefined;
  let admin: Admin;
  let source: KubeWatchSource;
  const counters = new Counters();
  const kube = (): KubeServer => {
    if (!server) throw new Error('kube-apiserver did not start (see the before hook)');
    return server;
  };

  before(
    async () => {
      server = await startCluster({ extraApiServerArgs: [`--etcd-compaction-interval=${COMPACTION_INTERVAL}`] });
      admin = new Admin(server);
      for (const namespace of ['watch-a', 'watch-b']) await admin.createNamespace(namespace);
      // Page size 1: every list here spans several pages.
      source = new KubeWatchSource({ endpoint: kubeConfigEndpoint(server.kubeConfig('lineup')), counters, pageSize: 1 });
    },
    { timeout: COLD_START_TIMEOUT_MS },
  );
  after(() => server?.stop());

  it('lists JobSets of every namespace, and only the Jobs carrying the jobset-name label, page by page', async () => {
    // Prepare
    await admin.createJobSet(jobSetNamed('listed-a', 'watch-a'), 'watch-a');
    await admin.createJobSet(jobSetNamed('listed-b', 'watch-b'), 'watch-b');
    await admin.createJob(jobNamed('labelled', 'watch-a', 'listed-a'), 'watch-a');
    await admin.createJob(jobNamed('unlabelled', 'watch-b', undefined), 'watch-b');
    const listsBefore = counters.get(`${CounterName.KubePrefix}list`);
    // Act
    const jobSets = await source.list('JobSet');
    const jobs = await source.list('Job');
    // Assess
    const names = (items: readonly { metadata: { namespace?: string; name?: string } }[]): string[] =>
      items.map((item) => `${item.metadata.namespace ?? ''}/${item.metadata.name ?? ''}`).sort();
    assert.deepEqual(names(jobSets.items), ['watch-a/listed-a', 'watch-b/listed-b']);
    assert.deepEqual(names(jobs.items), ['watch-a/labelled']);
    assert.match(jobSets.resourceVersion, /^\d+$/);
    assert.match(jobs.resourceVersion, /^\d+$/);
    assert.ok(counters.get(`${CounterName.KubePrefix}list`) - listsBefore >= 3, 'two JobSets at one per page take at least two pages');
  });

  it('listPages: hands over one page at a time, each with the snapshot\'s resourceVersion, together what list returns', async () => {
    // Prepare: three JobSets in one namespace, one per page.
    const paged = new KubeWatchSource({ endpoint: kubeConfigEndpoint(kube().kubeConfig('lineup')), counters: new Counters(), pageSize: 1, namespace: 'watch-pages' });
    await admin.createNamespace('watch-pages');
    for (const name of ['page-1', 'page-2', 'page-3']) await admin.createJobSet(jobSetNamed(name, 'watch-pages'), 'watch-pages');
    // Act: a JobSet created after the first page is not part of the snapshot.
    const pages: { names: string[]; resourceVersion: string }[] = [];
    for await (const page of paged.listPages('JobSet')) {
      pages.push({ names: page.items.map((item) => item.metadata.name ?? ''), resourceVersion: page.resourceVersion });
      if (pages.length === 1) await admin.createJobSet(jobSetNamed('page-late', 'watch-pages'), 'watch-pages');
    }
    // Assess
    assert.deepEqual(pages.map((page) => page.names.length), [1, 1, 1]);
    assert.deepEqual(pages.flatMap((page) => page.names).sort(), ['page-1', 'page-2', 'page-3']);
    assert.equal(new Set(pages.map((page) => page.resourceVersion)).size, 1, JSON.stringify(pages));
    assert.deepEqual((await paged.list('JobSet')).items.map((item) => item.metadata.name).sort(), ['page-1', 'page-2', 'page-3', 'page-late']);
  });

  it('namespace: lists and watches that namespace only', async () => {
    // Prepare
    const scoped = new KubeWatchSource({ endpoint: kubeConfigEndpoint(kube().kubeConfig('lineup')), counters: new Counters(), pageSize: 1, namespace: 'watch-b' });
    await admin.createJobSet(jobSetNamed('scoped-a', 'watch-a'), 'watch-a');
    await admin.createJobSet(jobSetNamed('scoped-b', 'watch-b'), 'watch-b');
    // Act
    const listed = await scoped.list('JobSet');
    const recorder = new Recorder<'JobSet'>();
    const abort = new AbortController();
    const watching = scoped.watch('JobSet', listed.resourceVersion, recorder.onEvent, abort.signal);
    await admin.createJobSet(jobSetNamed('later-a', 'watch-a'), 'watch-a');
    await admin.createJobSet(jobSetNamed('later-b', 'watch-b'), 'watch-b');
    await eventually('the watch-b JobSet arrives', async () => assert.deepEqual(recorder.changesOf('later-b'), ['ADDED']));
    abort.abort();
    // Assess
    assert.equal(await watching, 'closed');
    assert.ok(listed.items.every((item) => item.metadata.namespace === 'watch-b'), JSON.stringify(listed.items.map((item) => item.metadata.namespace)));
    assert.ok(listed.items.some((item) => item.metadata.name === 'scoped-b'));
    assert.deepEqual(recorder.changesOf('later-a'), [], 'nothing of another namespace');
  });

  it('watch delivers ADDED, MODIFIED and DELETED in order, skips unlabelled Jobs, and ends closed on abort', async () => {
    // Prepare
    const { resourceVersion } = await source.list('Job');
    const recorder = new Recorder<'Job'>();
    const abort = new AbortController();
    const watching = source.watch('Job', resourceVersion, recorder.onEvent, abort.signal);
    // Act
    await admin.createJob(jobNamed('watched', 'watch-a', 'some-jobset'), 'watch-a');
    await admin.createJob(jobNamed('ignored', 'watch-a', undefined), 'watch-a');
    await admin.custom.patchNamespacedCustomObject(
      { ...KubeResource.Job, namespace: 'watch-a', name: 'watched', body: { metadata: { annotations: { touched: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await admin.custom.deleteNamespacedCustomObject({ ...KubeResource.Job, namespace: 'watch-a', name: 'watched', body: { propagationPolicy: 'Background' } });
    await eventually('the DELETED event arrives', async () => assert.ok(recorder.changesOf('watched').includes('DELETED')));
    abort.abort();
    // Assess
    assert.equal(await watching, 'closed');
    assert.deepEqual(recorder.changesOf('watched'), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.deepEqual(recorder.changesOf('ignored'), []);
    const modified = recorder.events.find((event) => event.type === 'MODIFIED');
    assert.ok(modified && modified.type === 'MODIFIED');
    assert.equal(modified.object.metadata.annotations?.touched, 'yes');
  });

  it('watch delivers a bookmark when the resourceVersion moves on without a matching event, and ends closed when the server ends the watch', async () => {
    // Prepare: the server ends these watches after 4 s; it bookmarks a watcher whose
    // resourceVersion fell behind (here: an unlabelled Job the selector filters out).
    const shortWatches = new KubeWatchSource({ endpoint: kubeConfigEndpoint(kube().kubeConfig('lineup')), counters, timeoutSeconds: 4 });
    const { resourceVersion } = await shortWatches.list('Job');
    const recorder = new Recorder<'Job'>();
    // Act
    const watching = shortWatches.watch('Job', resourceVersion, recorder.onEvent, new AbortController().signal);
    await sleep(300);
    const unlabelled = await admin.createJob(jobNamed('moves-rv', 'watch-b', undefined), 'watch-b');
    const end = await watching;
    // Assess
    assert.equal(end, 'closed');
    assert.deepEqual(recorder.changesOf('moves-rv'), []);
    const bookmarks = recorder.bookmarks();
    assert.ok(bookmarks.length >= 1, `expected a bookmark, got ${JSON.stringify(recorder.events)}`);
    assert.ok(
      bookmarks.some((bookmark) => BigInt(bookmark) >= BigInt(unlabelled.metadata.resourceVersion ?? '0')),
      `a bookmark at or after ${unlabelled.metadata.resourceVersion ?? ''}, got ${bookmarks.join(', ')}`,
    );
  });

  it('a watch from a resourceVersion older than the server keeps ends expired (410 Gone), without an event', async () => {
    // Prepare: writes after the first revisions; the JobSet watch cache (and, after a compaction,
    // etcd) no longer has revision 1.
    for (let index = 0; index < 5; index += 1) await admin.createJobSet(jobSetNamed(`churn-${index}`, 'watch-b'), 'watch-b');
    const ends: WatchEnd[] = [];
    let recorder = new Recorder<'JobSet'>();
    // Act: retried until the server has dropped revision 1 (at once with the watch cache, else after a compaction).
    const end = await eventually(
      'watching from resourceVersion 1 ends expired',
      async () => {
        recorder = new Recorder<'JobSet'>();
        const outcome = await source.watch('JobSet', '1', recorder.onEvent, AbortSignal.timeout(3_000));
        ends.push(outcome);
        assert.equal(outcome, 'expired');
        return outcome;
      },
      60_000,
      1_000,
    );
    // Assess: the ERROR event is the end, not an event for the forwarder.
    assert.equal(end, 'expired', `ends seen: ${ends.join(', ')}`);
    assert.deepEqual(recorder.events, []);
  });

  it('a handler that throws ends the watch with its error', async () => {
    // Prepare
    const { resourceVersion } = await source.list('JobSet');
    const watching = source.watch(
      'JobSet',
      resourceVersion,
      () => {
        throw new Error('handler broke');
      },
      new AbortController().signal,
    );
    // The rejection comes while the JobSet is still being created: assert on it from the start.
    const failed = assertLineupError(watching, ErrorCode.UNAVAILABLE);
    // Act
    await admin.createJobSet(jobSetNamed('breaks-handler', 'watch-a'), 'watch-a');
    // Assess
    const error = await failed;
    assert.match(error.message, /handler broke/);
  });

  it('an aborted signal ends the watch closed without a request', async () => {
    const abort = new AbortController();
    abort.abort();
    const watchesBefore = counters.get(`${CounterName.KubePrefix}watch`);
    assert.equal(await source.watch('JobSet', '0', () => undefined, abort.signal), 'closed');
    assert.equal(counters.get(`${CounterName.KubePrefix}watch`), watchesBefore);
  });

  it('credentials the server does not know (401) fail the list and the watch with UnauthenticatedError', async () => {
    // Prepare: the right server and CA, a token it does not know.
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'test', server: kube().url, caData: Buffer.from(kube().caPem).toString('base64'), skipTLSVerify: false }],
      users: [{ name: 'stranger', token: 'not-a-known-token' }],
      contexts: [{ name: 'test', cluster: 'test', user: 'stranger' }],
      currentContext: 'test',
    });
    const stranger = new KubeWatchSource({ endpoint: kubeConfigEndpoint(config), counters: new Counters() });
    // Act + Assess
    await assertLineupError(stranger.list('JobSet'), ErrorCode.UNAUTHENTICATED);
    await assertLineupError(stranger.watch('JobSet', '0', () => undefined, new AbortController().signal), ErrorCode.UNAUTHENTICATED);
  });
});
