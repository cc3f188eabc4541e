/**
 * Faults on the whole pipeline (forwarder → EventBridge → SQS → reconciler → kube-apiserver,
 * leases in DynamoDB), each converging with nothing lost:
 * - kube-apiserver restarted mid-sequence (etcd keeps its data);
 * - the forwarder's watch broken (it resumes from its resourceVersion) and compacted away (410
 *   Gone: it re-lists and syncs), through a proxy that cuts its connections;
 * - duplicated and reordered events put straight on the bus;
 * - the reconciler killed between two writes of a pass; a new one takes over once the dead
 *   one's lease expires and the resync re-queues the JobSet.
 * Two API servers: one as usual, one compacting etcd every second with the watch cache off
 * (so a watch from an old resourceVersion gets 410, as the forwarder tests provoke it); each runs
 * the real control plane minus kubelet (one per server, started once for the file), whose Job
 * controller writes every Job status from the Pods the test steers.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Reason } from '../../../lib/jobset/api.ts';
import { CounterName } from '../../../lib/counters.ts';
import type { PutEventsEntry } from '../../../lib/events/envelope.ts';
import { FlakyProxy } from '../harness/flakyProxy.ts';
import { startDynalite, startMoto, type DynaliteServer, type MotoServer } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS, eventually } from '../k8s/support.ts';
import { exampleJobSet, startE2eCluster, type E2eCluster } from './cluster.ts';
import { Pipeline, synthesizedRule, type RuleSource } from './pipeline.ts';
import { Scenario, STEP_TIMEOUT_MS } from './scenario.ts';

/** LEASE_TTL_MS: short, so a dead reconciler's lease lapses within the test. */
const LEASE_TTL_MS = 4_000;

/** withTimeout: `promise`, or a failure naming `what` after `ms`. */
const withTimeout = async <T>(what: string, promise: Promise<T>, ms: number): Promise<T> => {
  const timer = new AbortController();
  try {
    return await Promise.race([
      promise,
      sleep(ms, undefined, { signal: timer.signal }).then(() => assert.fail(`${what}: not within ${ms} ms`)),
    ]);
  } finally {
    timer.abort();
  }
};

/** detailOf: the parsed detail of an entry. */
const detailOf = (entry: PutEventsEntry): { namespace: string; jobSet: string; resourceVersion: string } =>
  JSON.parse(entry.Detail) as { namespace: string; jobSet: string; resourceVersion: string };

describe('end to end under faults: every fault converges with nothing lost', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let main: E2eCluster | undefined;
  let compacting: E2eCluster | undefined;
  let moto: MotoServer | undefined;
  let dynamo: DynaliteServer | undefined;
  let proxy: FlakyProxy | undefined;
  let compactingProxy: FlakyProxy | undefined;
  let pipeline: Pipeline | undefined;
  let compactingPipeline: Pipeline | undefined;

  const ready = (): { cluster: E2eCluster; pipeline: Pipeline; proxy: FlakyProxy } => {
    assert.ok(main && pipeline && proxy, 'the servers and the pipeline started (see the before hook)');
    return { cluster: main, pipeline, proxy };
  };

  before(async (t) => {
    let rule: RuleSource;
    [main, compacting, moto, dynamo, rule] = await Promise.all([
      startE2eCluster(),
      startE2eCluster({ extraApiServerArgs: ['--watch-cache=false', '--etcd-compaction-interval=1s'] }),
      startMoto(),
      startDynalite(),
      synthesizedRule(),
    ]);
    proxy = new FlakyProxy(Number(new URL(main.kube.url).port));
    compactingProxy = new FlakyProxy(Number(new URL(compacting.kube.url).port));
    // The forwarders watch through the proxies; the reconcilers talk to the API servers directly.
    pipeline = await Pipeline.start({ kube: main.kube, moto, dynamo, clusterId: 'e2e-faults', watchUrl: await proxy.start(), leaseTtlMs: LEASE_TTL_MS, rule });
    compactingPipeline = await Pipeline.start({ kube: compacting.kube, moto, dynamo, clusterId: 'e2e-compacted', watchUrl: await compactingProxy.start(), rule });
    t.diagnostic(`rbac: ${JSON.stringify(main.rbac)}; rule: ${rule.from}`);
  });

  after(async () => {
    await Promise.all([pipeline?.stop(), compactingPipeline?.stop()]);
    await Promise.all([proxy?.stop(), compactingProxy?.stop()]);
    await Promise.all([main?.stop(), compacting?.stop(), moto?.stop(), dynamo?.stop()]);
  });

  it('kube-apiserver restarted mid-sequence: the sequence goes on, no Job created twice', async (t) => {
    const { cluster, pipeline } = ready();
    const s = await Scenario.start(cluster, pipeline, 'apiserver-restart', exampleJobSet('story2-messagequeue-driver-worker.yaml', 'restart-api'));
    await s.expectFlags('only the message queue running', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    const uids = await s.uids();

    // Act: the message queue turns Ready, and the API server goes down at once for 1.5 s —
    // while the event is on its way through the pipeline.
    const before = { watchErrors: pipeline.counters.get(CounterName.WatchErrors), failedRecords: pipeline.counters.get('e2e.recordsFailed'), retries: pipeline.counters.get(CounterName.KubeRetries) };
    await s.markReady('messagequeue');
    const { downMs } = await cluster.kube.restartApiServer({ downMs: 1_500 });

    // Assess
    await s.expectFlags(`the drivers released after the restart (down ${downMs} ms)`, { messagequeue: 'R', driver: 'RR', worker: 'SS' });
    await s.markReady('driver');
    await s.expectFlags('the workers released', { messagequeue: 'R', driver: 'RR', worker: 'RR' });
    await s.markReady('worker');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
    assert.deepEqual(await s.uids(), uids, 'every Job is the one created before the restart');
    assert.equal(cluster.kube.restarts(), 1);
    // The restart hit the pipeline: the forwarder's watches broke (and the reconciler retried or failed records meanwhile).
    const hit = {
      watchErrors: pipeline.counters.get(CounterName.WatchErrors) - before.watchErrors,
      failedRecords: pipeline.counters.get('e2e.recordsFailed') - before.failedRecords,
      kubeRetries: pipeline.counters.get(CounterName.KubeRetries) - before.retries,
    };
    t.diagnostic(`down ${downMs} ms (SIGTERM to ready); ${JSON.stringify(hit)}`);
    assert.ok(hit.watchErrors > 0, `the forwarder's watches broke: ${JSON.stringify(hit)}`);
  });

  it('the watch broken: the forwarder resumes from its last resourceVersion and forwards what changed meanwhile', async () => {
    const { cluster, pipeline, proxy } = ready();
    const s = await Scenario.start(cluster, pipeline, 'watch-broken', exampleJobSet('story1-driver-ready-worker-start.yaml', 'cut-watch'));
    await s.expectFlags('only the driver running', { driver: 'R', workers: 'S' });
    await pipeline.settle('before the outage');
    const relists = pipeline.counters.get(CounterName.Relists);
    const watchErrors = pipeline.counters.get(CounterName.WatchErrors);

    // Act: the forwarder's connections are cut and refused; meanwhile the driver turns Ready.
    proxy.outage();
    try {
      await s.cluster.jobs.markReady(s.namespace, s.job('driver'));
      await sleep(1_500);
      assert.deepEqual(await s.flags(), { driver: 'R', workers: 'S' }, 'nothing reaches the reconciler while the watch is down');
    } finally {
      proxy.restore();
    }

    // Assess: the change made during the outage arrives; resumed, not re-listed.
    await s.expectFlags('the workers released after the watch came back', { driver: 'R', workers: 'R' });
    assert.ok(proxy.connectionsCut() > 0, 'the outage cut the watch connections');
    assert.ok(pipeline.counters.get(CounterName.WatchErrors) > watchErrors, 'the forwarder saw its watches fail');
    assert.equal(pipeline.counters.get(CounterName.Relists), relists, 'it resumed from its resourceVersion without a re-list');
    await s.markReady('workers');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
  });

  it('the watch compacted away (410 Gone): the forwarder re-lists, syncs, and the sequence goes on', async () => {
    assert.ok(compacting && compactingPipeline && compactingProxy, 'the compacting server started');
    const s = await Scenario.start(compacting, compactingPipeline, 'compacted', exampleJobSet('story1-driver-ready-worker-start.yaml', 'compact-me'));
    await s.expectFlags('only the driver running', { driver: 'R', workers: 'S' });
    await compactingPipeline.settle('before the outage');
    const relists = compactingPipeline.counters.get(CounterName.Relists);
    const before = await compacting.kube.request('GET', '/apis/batch/v1/jobs?limit=1');
    const seen = (JSON.parse(before.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

    // Act: the watch is cut; the driver turns Ready; etcd compacts past everything the forwarder saw.
    compactingProxy.outage();
    try {
      await s.cluster.jobs.markReady(s.namespace, s.job('driver'));
      await eventually(
        `resourceVersion ${seen} compacted`,
        async () => {
          const response = await compacting?.kube.request('GET', `/apis/batch/v1/jobs?limit=1&resourceVersion=${seen}&resourceVersionMatch=Exact`);
          assert.equal(response?.status, 410, response?.body.slice(0, 200));
        },
        20_000,
        250,
      );
    } finally {
      compactingProxy.restore();
    }

    // Assess: 410 → re-list → a Sync per JobSet → the workers released.
    await s.expectFlags('the workers released after the re-list', { driver: 'R', workers: 'R' });
    assert.ok(compactingPipeline.counters.get(CounterName.Relists) > relists, 'the forwarder re-listed after 410 Gone');
    await s.markReady('workers');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
  });

  it('duplicated and reordered events are harmless: the passes they cause find nothing to do, and the sequence goes on', async () => {
    const { cluster, pipeline } = ready();
    const s = await Scenario.start(cluster, pipeline, 'dup-reorder', exampleJobSet('story2-messagequeue-driver-worker.yaml', 'echo'));
    await s.expectFlags('only the message queue running', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    await s.markReady('messagequeue');
    await s.expectFlags('the drivers released', { messagequeue: 'R', driver: 'RR', worker: 'SS' });
    await pipeline.settle('before the replays');
    const forwarded = pipeline.sink.entries.filter((entry) => detailOf(entry).namespace === s.namespace);
    // At least its creation and the message queue turning ready (Lineup's own writes are not forwarded).
    assert.ok(forwarded.length >= 2, `the forwarder put events about the JobSet (${forwarded.length})`);
    const passesBefore = pipeline.passesOf(s.namespace, s.name).length;
    const invocationsBefore = pipeline.counters.get(CounterName.Invocations);
    const passesCounted = pipeline.counters.get(CounterName.Passes);
    const echoesCounted = pipeline.counters.get(CounterName.Echoes);

    // Act: every event again, oldest resourceVersion last, each three times.
    const replayed = [...forwarded].reverse().flatMap((entry) => [entry, entry, entry]);
    await pipeline.putEntries(replayed);
    await eventually('every replayed event handled', async () => assert.ok(pipeline.counters.get(CounterName.Invocations) - invocationsBefore >= replayed.length), STEP_TIMEOUT_MS);
    await pipeline.settle('after the replays');

    // Assess: level-triggered passes on what the JobSet's last loop left (or dropped as echoes of
    // what it knows); nothing to do, nothing undone, and so no journal entry.
    const passes = pipeline.counters.get(CounterName.Passes) - passesCounted;
    const echoes = pipeline.counters.get(CounterName.Echoes) - echoesCounted;
    assert.ok(passes + echoes > 0, 'the replays were planned on or dropped as echoes');
    assert.ok(passes < replayed.length, `${replayed.length} events collapsed into fewer passes (${passes}; ${echoes} echoes)`);
    assert.deepEqual(pipeline.passesOf(s.namespace, s.name).slice(passesBefore).map((pass) => pass.plan.reason), [], 'no pass acted');
    assert.deepEqual(await s.flags(), { messagequeue: 'R', driver: 'RR', worker: 'SS' });

    await s.markReady('driver');
    await s.expectFlags('the workers released', { messagequeue: 'R', driver: 'RR', worker: 'RR' });
    await s.markReady('worker');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
  });

  it('the reconciler killed between two writes: after its lease expires the resync re-queues the JobSet and every Job exists once', async () => {
    const { cluster, pipeline } = ready();
    const namespace = 'killed';
    const killed = pipeline.killReconciler({ namespace, kinds: ['CreateJob'], writes: 1 });
    const deferredBefore = pipeline.counters.get(CounterName.Deferred);

    // Act: the first pass creates one Job of five and dies before the second.
    const s = await Scenario.start(cluster, pipeline, namespace, exampleJobSet('story2-messagequeue-driver-worker.yaml', 'half-done'));
    await withTimeout('the reconciler killed after its first CreateJob', killed, STEP_TIMEOUT_MS);
    await sleep(1_000);
    assert.deepEqual(await s.flags(), { messagequeue: 'R' }, 'one Job created before the kill, nothing after it');
    const first = await s.uids();

    // A new reconciler takes the queue; until the dead one's lease lapses it defers to it.
    pipeline.restartReconciler();
    await eventually('the new reconciler deferred to the dead lease holder', async () => assert.ok(pipeline.counters.get(CounterName.Deferred) > deferredBefore), STEP_TIMEOUT_MS);
    let synced = 0;
    await eventually(
      'the resync re-queued the JobSet and the new reconciler created the rest',
      async () => {
        synced += (await pipeline.resync()).synced;
        assert.deepEqual(await s.flags(), { messagequeue: 'R', driver: 'SS', worker: 'SS' });
      },
      LEASE_TTL_MS + STEP_TIMEOUT_MS,
      1_000,
    );
    assert.ok(synced > 0, 'the resync found the JobSet whose lease lapsed');

    // Assess: the first Job was kept, not created twice; the sequence goes on.
    const now = await s.uids();
    assert.equal(now[s.job('messagequeue')], first[s.job('messagequeue')], 'the Job created before the kill is the same Job');
    assert.equal(Object.keys(now).length, 5, 'five Jobs, each once');
    await s.expectHeld('settled', { messagequeue: 'R', driver: 'SS', worker: 'SS' });
    await s.markReady('messagequeue');
    await s.expectFlags('the drivers released', { messagequeue: 'R', driver: 'RR', worker: 'SS' });
    await s.markReady('driver');
    await s.expectFlags('the workers released', { messagequeue: 'R', driver: 'RR', worker: 'RR' });
    await s.markReady('worker');
    await s.expectStartupCompleted(Reason.InOrderStartupPolicyCompleted);
  });

  it('nothing was lost: both queues drained, both DLQs empty', async () => {
    for (const p of [pipeline, compactingPipeline]) {
      assert.ok(p);
      await p.settle(`${p.clusterId}: the end`);
      const depth = await p.queueDepth(p.dlqUrl);
      assert.equal(depth, 0, `${p.clusterId}: messages in the DLQ:\n${depth > 0 ? await p.deadLetters() : ''}`);
    }
  });
});
