/**
 * The forwarder against a real API server (kube-apiserver + etcd from the harness) through
 * KubeWatchSource:
 * - a TCP proxy in front of the API server cuts every connection and refuses new ones for a
 *   while — what the forwarder sees when the API server restarts or the network drops;
 * - a second server, compacting etcd every second with the watch cache off, answers a watch
 *   from a checkpoint older than its history with 410 Gone.
 * Whatever happens, every change of a Lineup JobSet reaches the sink: as its own event, or folded
 * into a later event about the same JobSet put in the same batch window.
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { DEFAULT_CONTROLLER_NAME } from '../../../lib/jobset/managedBy.ts';
import { JOBSET_API_VERSION, Label, UPSTREAM_CONTROLLER_NAME } from '../../../lib/jobset/api.ts';
import { CounterName, Counters } from '../../../lib/counters.ts';
import { Forwarder } from '../../../lib/forwarder/forwarder.ts';
import { changesOf } from '../../../lib/events/merge.ts';
import { LineupEventDetailSchema } from '../../../lib/events/schema.ts';
import { JobSchema } from '../../../lib/jobset/schema.ts';
import { kubeConfigEndpoint } from '../../../lib/k8s/kubeConfigFile.ts';
import { KubeClusterGateway } from '../../../lib/k8s/gateway.ts';
import { KubeWatchSource } from '../../../lib/k8s/watchSource.ts';
import { MemoryCheckpointStore } from '../../../lib/store/memoryStore.ts';
import { RecordingSink } from '../../forwarder/helpers.ts';
import { FlakyProxy } from '../harness/flakyProxy.ts';
import { startKubeApiServer, type KubeServer } from '../harness/index.ts';

const CLUSTER = 'it-kube';
const NS = 'default';
const JOBSETS = `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NS}/jobsets`;
const JOBS = `/apis/batch/v1/namespaces/${NS}/jobs`;

/** eventually: poll `check` until it holds, or fail naming what was awaited and what was seen. */
const eventually = async (what: string, check: () => boolean | Promise<boolean>, seen: () => unknown, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs}ms waiting for ${what}; saw ${JSON.stringify(seen(), null, 1)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** raw: one request as the admin straight to the API server (never through the proxy). */
const raw = (kube: KubeServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; text: string }> => {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${kube.url}${path}`,
      {
        method,
        ca: kube.caPem,
        headers: {
          authorization: `Bearer ${kube.adminToken}`,
          ...(payload === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
};

/** send: a request that must succeed. */
const send = async (kube: KubeServer, method: string, path: string, body?: unknown, contentType?: string): Promise<void> => {
  const response = await raw(kube, method, path, body, contentType);
  assert.ok(response.status < 300, `${method} ${path} answered ${response.status}: ${response.text.slice(0, 400)}`);
};
const mergePatch = (kube: KubeServer, path: string, body: unknown) => send(kube, 'PATCH', path, body, 'application/merge-patch+json');

const jobSetManifest = (name: string, managedBy = DEFAULT_CONTROLLER_NAME) => ({
  apiVersion: JOBSET_API_VERSION,
  kind: 'JobSet',
  metadata: { name, namespace: NS },
  spec: {
    managedBy,
    replicatedJobs: [{ name: 'workers', replicas: 1, template: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } } } }],
  },
});

const jobManifest = (name: string, jobSet: string) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: NS, labels: { [Label.JobSetName]: jobSet, [Label.ReplicatedJobName]: 'workers' } },
  spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
});

/** passed: the watch changes the forwarder's filter let through (each put, or folded into a later event of its JobSet). */
const passed = (counters: Counters): number => counters.get(CounterName.WatchEvents) - counters.get(CounterName.EventsDropped);

/** startForwarder: a forwarder over KubeWatchSource with short backoffs; stop() aborts, flushes and checkpoints. */
const startForwarder = (kubeConfig: KubeConfig, bookmarks: MemoryCheckpointStore, ownWriteHoldMs?: number) => {
  const counters = new Counters();
  const sink = new RecordingSink();
  const logs: string[] = [];
  const forwarder = new Forwarder({
    cluster: CLUSTER,
    source: new KubeWatchSource({ endpoint: kubeConfigEndpoint(kubeConfig), counters }),
    sink,
    bookmarks,
    planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false },
    counters,
    log: (level, message, fields) => logs.push(`${level}: ${message} ${JSON.stringify(fields ?? {})}`),
    now: Date.now,
    batchWindowMs: 10,
    ownWriteHoldMs,
    checkpointIntervalMs: 0,
    reconnectDelayMs: 50,
    watchRetry: { maxAttempts: Number.POSITIVE_INFINITY, baseDelayMs: 100, maxDelayMs: 500, jitter: 'none' },
  });
  const controller = new AbortController();
  const running = forwarder.run(controller.signal);
  const stop = async (): Promise<void> => {
    controller.abort();
    await running;
  };
  return { counters, sink, logs, stop, seen: () => ({ summary: sink.summary(), logs }) };
};

/** observedSuspend: the observed spec.suspend of the last forwarded event about `name`. */
const observedSuspend = (sink: RecordingSink, name: string): boolean | undefined =>
  sink.entries
    // Every object an event names: its own, and those of its JobSet folded in (`also`).
    .flatMap((entry) => changesOf(LineupEventDetailSchema.parse(JSON.parse(entry.Detail))))
    // Syncs the Job list sends for an owner carry no projection: look at those that do.
    .filter((change) => change.name === name && change.observed !== undefined)
    .at(-1)?.observed?.suspend;

describe('Forwarder (kube-apiserver behind a flaky connection)', () => {
  let kube: KubeServer;
  let proxy: FlakyProxy;
  let kubeConfig: KubeConfig;
  const bookmarks = new MemoryCheckpointStore();

  before(async () => {
    kube = await startKubeApiServer();
    proxy = new FlakyProxy(Number(new URL(kube.url).port));
    const proxied = await proxy.start();
    // The admin's kubeconfig aimed at the proxy: same CA (the serving certificate names 127.0.0.1, whatever the port).
    const admin = kube.kubeConfig('admin');
    const cluster = admin.getCurrentCluster();
    assert.ok(cluster);
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({ clusters: [{ ...cluster, server: proxied }], users: admin.users, contexts: admin.contexts, currentContext: admin.currentContext });
  });
  after(async () => {
    await proxy?.stop();
    await kube?.stop();
  });

  it('resumes from the last resourceVersion after the connection breaks, and forwards every change of a Lineup JobSet', async () => {
    // Prepare: a first start lists (nothing yet) and checkpoints the list resourceVersions.
    const run = startForwarder(kubeConfig, bookmarks);
    try {
      await eventually('the first checkpoints', () => run.counters.get(CounterName.Checkpoints) >= 2, run.seen);
      // Act 1: a Lineup JobSet, someone else's, and a child Job of each.
      // (Each waits for the last to be put: changes of one JobSet in one window are one event.)
      await send(kube, 'POST', JOBSETS, jobSetManifest('js-a'));
      await eventually('ADDED of js-a', () => run.sink.about('js-a').length === 1, run.seen);
      await send(kube, 'POST', JOBSETS, jobSetManifest('theirs', UPSTREAM_CONTROLLER_NAME));
      await send(kube, 'POST', JOBS, jobManifest('js-a-workers-0', 'js-a'));
      await eventually('ADDED of its Job', () => run.sink.about('js-a-workers-0').length === 1, run.seen);
      // Once the JobSet watch has seen (and dropped) `theirs`, its Jobs are dropped too.
      await eventually('theirs dropped', () => run.counters.get(CounterName.EventsDropped) >= 1, run.seen);
      await send(kube, 'POST', JOBS, jobManifest('theirs-workers-0', 'theirs'));

      // Act 2: the API server becomes unreachable; changes happen meanwhile; it comes back.
      const watchesBefore = run.counters.get(`${CounterName.KubePrefix}watch`);
      const passedBefore = passed(run.counters);
      const putBefore = run.sink.entries.length;
      proxy.outage();
      await mergePatch(kube, `${JOBSETS}/js-a`, { spec: { suspend: true } });
      await mergePatch(kube, `${JOBS}/js-a-workers-0`, { spec: { suspend: false } });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      proxy.restore();
      // Both watches resume and may deliver within one window: one event or two about js-a.
      await eventually(
        'the changes made during the outage',
        () => passed(run.counters) === passedBefore + 2 && run.sink.entries.length > putBefore && run.counters.get(CounterName.EventsPut) + run.counters.get(CounterName.EventsCoalesced) === passed(run.counters),
        run.seen,
      );
      const outageEvents = run.sink.summary().slice(putBefore).map((line) => line.replace(/@.*$/, ''));
      assert.ok(
        outageEvents.length === 2 ? outageEvents.includes('JobSet Changed MODIFIED JobSet/js-a') : ['JobSet Changed MODIFIED JobSet/js-a', 'Job Changed MODIFIED Job/js-a-workers-0'].includes(outageEvents[0] ?? ''),
        `the outage's changes are on the bus: ${JSON.stringify(outageEvents)}`,
      );

      // Act 3: a metadata-only update of the Job (dropped), then a counter change (forwarded).
      await mergePatch(kube, `${JOBS}/js-a-workers-0`, { metadata: { annotations: { 'example.com/touched': 'yes' } } });
      // A status fixture (no Job controller runs here): the counter change the forwarder must put.
      await mergePatch(kube, `${JOBS}/js-a-workers-0/status`, { status: { active: 1 } });
      await eventually('the Job turning active', () => run.sink.summary().at(-1)?.startsWith('Job Changed MODIFIED Job/js-a-workers-0') === true && passed(run.counters) === passedBefore + 3, run.seen);

      // Assess
      assert.ok(run.counters.get(CounterName.WatchErrors) >= 1, 'the cut connections were seen as watch errors');
      assert.ok(run.counters.get(`${CounterName.KubePrefix}watch`) > watchesBefore, 'the watches were reconnected');
      assert.equal(run.counters.get(CounterName.Relists), 0, 'a broken connection resumes, it does not re-list');
      assert.equal(passed(run.counters), 5, 'js-a created and suspended, its Job created, resumed and active: each passed the filter once');
      assert.equal(run.sink.about('js-a')[0], 'JobSet Changed ADDED JobSet/js-a');
      assert.equal(run.sink.about('js-a-workers-0')[0], 'Job Changed ADDED Job/js-a-workers-0');
      assert.notEqual(observedSuspend(run.sink, 'js-a'), false, 'the suspend made during the outage is the last word on js-a, unless folded into its Job’s event');
      assert.ok(run.counters.get(CounterName.EventsDropped) >= 2, 'the annotation-only update and someone else’s JobSet were dropped');
      assert.deepEqual(run.sink.about('theirs'), [], 'someone else’s JobSet is not forwarded');
      assert.deepEqual(run.sink.about('theirs-workers-0'), [], 'nor its Jobs, once its JobSet is known');
    } finally {
      await run.stop();
    }
  });

  it('resumes from its checkpoint after a restart, without a list, and sees what changed meanwhile', async () => {
    // Prepare: changes while no forwarder runs.
    await send(kube, 'POST', JOBSETS, jobSetManifest('js-b'));
    await mergePatch(kube, `${JOBSETS}/js-a`, { spec: { suspend: false } });
    // Act
    const run = startForwarder(kubeConfig, bookmarks);
    try {
      await eventually('the changes made while stopped', () => run.sink.about('js-b').length === 1 && run.sink.about('js-a').length === 1, run.seen);
      // Assess
      assert.equal(run.counters.get(`${CounterName.KubePrefix}list`), 0);
      assert.deepEqual([...run.sink.about('js-a'), ...run.sink.about('js-b')], ['JobSet Changed MODIFIED JobSet/js-a', 'JobSet Changed ADDED JobSet/js-b']);
      assert.equal(observedSuspend(run.sink, 'js-a'), false);
    } finally {
      await run.stop();
    }
  });
  it('holds the echoes of Lineup’s own Job writes (managedFields name it) and folds them into the Job controller’s change after them', async () => {
    // Prepare: a Lineup JobSet whose ADDED is on the bus; a hold far longer than this test.
    const run = startForwarder(kubeConfig, bookmarks, 60_000);
    // The admin's credentials: managedFields record the gateway's fieldManager, whoever sends it.
    const gateway = new KubeClusterGateway({ endpoint: kubeConfigEndpoint(kube.kubeConfig('admin')), counters: new Counters() });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    try {
      await send(kube, 'POST', JOBSETS, jobSetManifest('js-own'));
      await eventually('ADDED of js-own', () => run.sink.about('js-own').length === 1, run.seen);
      const passedBefore = passed(run.counters);
      const coalescedBefore = run.counters.get(CounterName.EventsCoalesced);
      // Act: Lineup's gateway creates the Job suspended and resumes it, each given 30 windows to
      // be put were it not Lineup's own; then the Job controller's write.
      await gateway.apply(NS, 'js-own', { kind: 'CreateJob', replicatedJob: 'workers', job: JobSchema.parse(jobManifest('js-own-workers-0', 'js-own')) }, Date.now());
      await eventually('the create seen', () => passed(run.counters) === passedBefore + 1, run.seen);
      await settle();
      await gateway.apply(NS, 'js-own', { kind: 'ResumeJob', name: 'js-own-workers-0', replicatedJob: 'workers', resourceVersion: undefined, clearStartTime: false, podTemplate: undefined }, Date.now());
      await eventually('the resume seen', () => passed(run.counters) === passedBefore + 2, run.seen);
      await settle();
      const heldBack = run.sink.about('js-own-workers-0').length;
      // The Job controller's change a gate waits for, as a status fixture: its pod ready (pods merely started would be held too).
      await mergePatch(kube, `${JOBS}/js-own-workers-0/status`, { status: { active: 1, ready: 1 } });
      await eventually('the Job controller’s change on the bus', () => run.sink.about('js-own-workers-0').length === 1, run.seen);
      // Assess
      assert.equal(heldBack, 0, 'the create and the resume were held back, not put at their windows');
      assert.deepEqual(run.sink.about('js-own-workers-0'), ['Job Changed MODIFIED Job/js-own-workers-0']);
      assert.equal(run.counters.get(CounterName.EventsCoalesced), coalescedBefore + 2, 'both echoes folded into the status change’s event');
      assert.equal(observedSuspend(run.sink, 'js-own-workers-0'), false, 'the event shows the Job as resumed');
    } finally {
      await run.stop();
    }
  });
});

describe('Forwarder (kube-apiserver compacting its history every second)', () => {
  let kube: KubeServer;
  let kubeConfig: KubeConfig;
  const bookmarks = new MemoryCheckpointStore();

  before(async () => {
    // Without the watch cache a watch reads etcd, whose compaction makes an old resourceVersion answer 410 Gone.
    kube = await startKubeApiServer({ extraApiServerArgs: ['--watch-cache=false', '--etcd-compaction-interval=1s'] });
    kubeConfig = kube.kubeConfig('admin');
  });
  after(async () => {
    await kube?.stop();
  });

  it('answers 410 Gone with a re-list of each kind and a Sync per Lineup JobSet, then watches on', async () => {
    // Prepare: a first run sees js-x, js-y and a Job, and checkpoints.
    const first = startForwarder(kubeConfig, bookmarks);
    try {
      await send(kube, 'POST', JOBSETS, jobSetManifest('js-x'));
      await send(kube, 'POST', JOBSETS, jobSetManifest('js-y'));
      await send(kube, 'POST', JOBSETS, jobSetManifest('theirs', UPSTREAM_CONTROLLER_NAME));
      await send(kube, 'POST', JOBS, jobManifest('js-x-workers-0', 'js-x'));
      await eventually('js-x, js-y and the Job', () => first.sink.about('js-y').length >= 1 && first.sink.about('js-x-workers-0').length >= 1 && first.sink.about('js-x').length >= 1, first.seen);
    } finally {
      await first.stop();
    }
    const checkpoint = await bookmarks.getBookmark(CLUSTER, 'jobsets');
    const jobsCheckpoint = await bookmarks.getBookmark(CLUSTER, 'jobs');
    assert.ok(checkpoint !== undefined && jobsCheckpoint !== undefined);
    // Changes while stopped, then wait until etcd compacted past the checkpoint.
    await mergePatch(kube, `${JOBSETS}/js-x`, { spec: { suspend: true } });
    await send(kube, 'POST', JOBSETS, jobSetManifest('js-z'));
    await eventually(
      'etcd to compact past the checkpoint',
      async () => (await raw(kube, 'GET', `${JOBSETS}?watch=1&timeoutSeconds=1&resourceVersion=${checkpoint}`)).text.includes('"code":410'),
      () => checkpoint,
    );
    // Both kinds must find their checkpoint compacted, or only one of them re-lists.
    await eventually(
      'etcd to compact past the jobs checkpoint',
      async () => (await raw(kube, 'GET', `${JOBS}?watch=1&timeoutSeconds=1&resourceVersion=${jobsCheckpoint}`)).text.includes('"code":410'),
      () => jobsCheckpoint,
    );

    // Act
    const second = startForwarder(kubeConfig, bookmarks);
    try {
      await eventually('both kinds re-listed and a Sync for js-x and js-z', () => second.counters.get(CounterName.Relists) === 2 && second.sink.about('js-x').length >= 1 && second.sink.about('js-z').length >= 1, second.seen);
      await mergePatch(kube, `${JOBSETS}/js-z`, { spec: { suspend: true } });
      await eventually('js-z changed after the re-list', () => second.sink.about('js-z').includes('JobSet Changed MODIFIED JobSet/js-z'), second.seen);

      // Assess
      assert.equal(second.counters.get(`${CounterName.KubePrefix}list`) >= 2, true);
      assert.ok(second.logs.some((line) => line.startsWith('warn: watch expired (410 Gone), re-listing')));
      const syncs = second.sink.summary().filter((s) => s.startsWith('JobSet Sync')).map((s) => s.replace(/@.*$/, ''));
      // The JobSet list syncs every Lineup JobSet; the Job list syncs js-x again, the owner of a Job this run had not seen.
      assert.deepEqual([...new Set(syncs)].sort(), ['JobSet Sync SYNC JobSet/js-x', 'JobSet Sync SYNC JobSet/js-y', 'JobSet Sync SYNC JobSet/js-z']);
      // The JobSet list's Sync carries it, unless the Job list's Sync (no projection) folded it in the same window.
      assert.notEqual(observedSuspend(second.sink, 'js-x'), false, 'no Sync shows js-x as it was before the change made while stopped');
      assert.ok(!second.sink.summary().some((s) => s.includes('JobSet/theirs')), 'someone else’s JobSet gets no Sync');
    } finally {
      await second.stop();
    }
    assert.notEqual(await bookmarks.getBookmark(CLUSTER, 'jobsets'), checkpoint, 'the re-list resourceVersion was checkpointed');
  });
});
