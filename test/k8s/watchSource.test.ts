/**
 * KubeWatchSource's handling of what a watch stream can say, through the real watch stream (lib/k8s/watchStream.ts)
 * against a scripted loopback server: a 429 while opening rejects after one request (the
 * forwarder's loop retries it), ERROR 410 ends 'expired', other ERROR events reject, unreadable
 * objects are skipped and reported, nothing is retried inside the source — a failing list costs
 * the forwarder one request per attempt. checkAccess retries on the Kubernetes policy and fails
 * with the code of each refusal; a watch gone silent ends 'closed'. Its behaviour against kube-apiserver is tested in
 * test/integration/k8s/watchSource.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { ForwarderLog } from '../../lib/forwarder/forwarderLog.ts';
import { CounterName, Counters } from '../../lib/counters.ts';
import { collectingLog, type Log } from '../../lib/log.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { Forwarder } from '../../lib/forwarder/forwarder.ts';
import type { WatchEvent } from '../../lib/forwarder/types.ts';
import { endpointFor } from '../../lib/k8s/auth.ts';
import { KubeWatchSource } from '../../lib/k8s/watchSource.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { makeJobSet } from '../builders.ts';
import { RecordingSink } from '../forwarder/helpers.ts';
import { freeClosedPort, startLoopback, status } from './loopback.ts';
import type { Answer, LoopbackServer } from './loopback.ts';

const WATCH_PATH = '/apis/jobset.x-k8s.io/v1alpha2/jobsets';

/** stream: a watch response body, one JSON event per line. */
const stream = (...events: unknown[]): Answer => ({ status: 200, body: events.map((event) => `${JSON.stringify(event)}\n`).join('') });
const added = (name: string, resourceVersion: string) => ({ type: 'ADDED', object: { ...makeJobSet(name, 'ns').obj(), metadata: { name, namespace: 'ns', resourceVersion } } });

/** Scenarios by the resourceVersion the watch starts from. */
const scenarios: Record<string, (previousHits: number) => Answer> = {
  // The CRD's watch cache is still initialising on the first try.
  throttled: (hits) => (hits === 0 ? status(429, 'TooManyRequests', 'storage is (re)initializing', { details: { retryAfterSeconds: 1 } }, { 'Retry-After': '1' }) : stream(added('a', '11'))),
  expired: () => stream(added('a', '11'), { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'too old resource version: 1 (50)', reason: 'Expired', code: 410 } }),
  failing: () => stream(added('a', '11'), { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'internal error', reason: 'InternalError', code: 500 } }),
  unreadable: () => stream({ type: 'ADDED', object: { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'broken' }, spec: { replicatedJobs: 'not a list' } } }),
  bookmarked: () => stream(added('a', '11'), { type: 'BOOKMARK', object: { kind: 'JobSet', apiVersion: 'jobset.x-k8s.io/v1alpha2', metadata: { resourceVersion: '12' } } }),
  forbidden: () => status(403, 'Forbidden', 'jobsets.jobset.x-k8s.io is forbidden'),
};

describe('KubeWatchSource', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback((request, hits) => {
      const scenario = scenarios[request.query.get('resourceVersion') ?? ''];
      assert.equal(request.query.get('allowWatchBookmarks'), 'true');
      return scenario ? scenario(hits) : status(404, 'NotFound', 'no scenario');
    });
  });
  after(() => server.close());

  /** watchFrom: watch JobSets from the scenario named by `resourceVersion`. */
  const watchFrom = async (resourceVersion: string) => {
    const counters = new Counters();
    const endpoint = await endpointFor({ id: 'loopback', endpoint: server.url, auth: { type: 'token', token: 't' } });
    const source = new KubeWatchSource({ endpoint, counters });
    const events: WatchEvent<'JobSet'>[] = [];
    const outcome = await source.watch('JobSet', resourceVersion, (event) => void events.push(event), new AbortController().signal).then(
      (end) => ({ end }),
      (error: unknown) => ({ error }),
    );
    return { outcome, events, counters, hits: server.hits('GET', WATCH_PATH) };
  };

  it('rejects a 429 while opening the watch with UnavailableError after one request, for the forwarder to retry', async () => {
    // Prepare: a fresh scenario name, so this is the server's first answer to it.
    const before = server.hits('GET', WATCH_PATH);
    // Act
    const { outcome, events, counters } = await watchFrom('throttled');
    // Assess
    assert.ok('error' in outcome, `expected a failure, got ${JSON.stringify(outcome)}`);
    assert.ok(outcome.error instanceof LineupError, String(outcome.error));
    assert.equal(outcome.error.code, ErrorCode.UNAVAILABLE, outcome.error.message);
    assert.deepEqual(events, []);
    assert.equal(server.hits('GET', WATCH_PATH) - before, 1);
    assert.equal(counters.get(`${CounterName.KubePrefix}watch`), 1);
    assert.equal(counters.get(CounterName.KubeRetries), 0);
  });

  it('skips an object the schema refuses, logging and counting it, and keeps watching', async () => {
    // Prepare
    const counters = new Counters();
    const { log, lines } = collectingLog();
    const endpoint = await endpointFor({ id: 'loopback', endpoint: server.url, auth: { type: 'token', token: 't' } });
    const source = new KubeWatchSource({ endpoint, counters, log });
    const events: WatchEvent<'JobSet'>[] = [];
    // Act
    const end = await source.watch('JobSet', 'unreadable', (event) => void events.push(event), new AbortController().signal);
    // Assess
    assert.equal(end, 'closed');
    assert.deepEqual(events, [], 'the unreadable object is not delivered');
    assert.equal(counters.get(CounterName.KubeUnreadable), 1);
    assert.equal(lines[0]?.message, 'skipped an object Lineup cannot read');
    assert.match(String(lines[0]?.fields?.['error']), /spec\.replicatedJobs/);
  });

  it('ends expired on an ERROR event with code 410, after delivering the events before it', async () => {
    const { outcome, events } = await watchFrom('expired');
    assert.deepEqual(outcome, { end: 'expired' });
    assert.deepEqual(events.map((event) => event.type), ['ADDED']);
  });

  it('delivers a bookmark as the resourceVersion alone', async () => {
    const { outcome, events } = await watchFrom('bookmarked');
    assert.deepEqual(outcome, { end: 'closed' });
    assert.deepEqual(events[1], { type: 'BOOKMARK', resourceVersion: '12' });
  });

  const failures: { name: string; resourceVersion: string; code: string }[] = [
    { name: 'an ERROR event other than 410 rejects, and is not retried once events flowed', resourceVersion: 'failing', code: ErrorCode.UNAVAILABLE },
    { name: 'a 403 while opening rejects with FORBIDDEN, not retried', resourceVersion: 'forbidden', code: ErrorCode.FORBIDDEN },
  ];
  for (const tc of failures) {
    it(tc.name, async () => {
      const before = server.hits('GET', WATCH_PATH);
      const { outcome, counters } = await watchFrom(tc.resourceVersion);
      assert.ok('error' in outcome, `expected a failure, got ${JSON.stringify(outcome)}`);
      assert.ok(outcome.error instanceof LineupError, String(outcome.error));
      assert.equal(outcome.error.code, tc.code, outcome.error.message);
      assert.equal(server.hits('GET', WATCH_PATH) - before, 1);
      assert.equal(counters.get(CounterName.KubeRetries), 0);
    });
  }
});

describe('KubeWatchSource under the forwarder: one retry layer', () => {
  const JOBSETS = '/apis/jobset.x-k8s.io/v1alpha2/jobsets';
  const JOBS = '/apis/batch/v1/jobs';

  /** forwarderOn: a forwarder whose KubeWatchSource talks to `url`, its log and backoff seams given by the test. */
  const forwarderOn = async (url: string, counters: Counters, log: Log, sleep: (ms: number) => Promise<void>): Promise<Forwarder> =>
    new Forwarder({
      cluster: 'loopback',
      source: new KubeWatchSource({ endpoint: await endpointFor({ id: 'loopback', endpoint: url, auth: { type: 'token', token: 't' } }), counters }),
      sink: new RecordingSink(),
      bookmarks: new MemoryCheckpointStore(),
      planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false },
      counters,
      log,
      now: Date.now,
      sleep,
    });

  it('a list that keeps failing costs one request per forwarder attempt, on the WATCH_RETRY schedule', async () => {
    // Prepare: every list answers 503. The forwarder's backoffs are recorded, not waited; the run
    // stops when the JobSet loop logs its 6th failure — 200+400+800+1600+3200 ms of backoff
    // before it, so these are the requests of the first 11 s (a retrying request inside the
    // retrying loop once made about 40 there).
    const server = await startLoopback(() => status(503, 'ServiceUnavailable', 'etcd is not ready'));
    try {
      const counters = new Counters();
      const stop = new AbortController();
      const failures: { kind: unknown; retryInMs: unknown }[] = [];
      const forwarder = await forwarderOn(
        server.url,
        counters,
        (_level, message, fields) => {
          if (message !== ForwarderLog.listFailed) return;
          failures.push({ kind: fields?.['kind'], retryInMs: fields?.['retryInMs'] });
          if (failures.filter((failure) => failure.kind === 'JobSet').length === 6) stop.abort();
        },
        () => new Promise((resolve) => setImmediate(resolve)),
      );
      // Act
      await forwarder.run(stop.signal);
      // Assess
      const lists = (path: string): number => server.requests.filter((request) => request.path === path && request.query.get('watch') !== 'true').length;
      const failed = (kind: string): unknown[] => failures.filter((failure) => failure.kind === kind).map((failure) => failure.retryInMs);
      assert.equal(lists(JOBSETS), 6);
      assert.deepEqual(failed('JobSet'), [200, 400, 800, 1_600, 3_200, 6_400]);
      assert.equal(lists(JOBS), failed('Job').length, 'the Job loop too: one request per attempt');
      assert.equal(counters.get(CounterName.KubeRetries), 0, 'no request-level retry inside the loop');
      assert.equal(counters.get(`${CounterName.KubePrefix}list`), lists(JOBSETS) + lists(JOBS));
    } finally {
      await server.close();
    }
  });

  it("honours a 429's Retry-After on a list in the forwarder's loop", async () => {
    // Prepare: the first JobSet list is throttled for 3 s; then every list answers.
    const server = await startLoopback((request, hits) => {
      if (request.query.get('watch') === 'true') return status(410, 'Expired', 'too old resource version');
      if (request.path === JOBSETS && hits === 0) return status(429, 'TooManyRequests', 'slow down', {}, { 'Retry-After': '3' });
      return { status: 200, body: { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [] } };
    });
    try {
      const counters = new Counters();
      const stop = new AbortController();
      const sleeps: number[] = [];
      const forwarder = await forwarderOn(
        server.url,
        counters,
        (_level, message, fields) => {
          if (message === ForwarderLog.listed && fields?.['kind'] === 'JobSet') stop.abort();
        },
        (ms) => {
          sleeps.push(ms);
          return new Promise((resolve) => setImmediate(resolve));
        },
      );
      // Act
      await forwarder.run(stop.signal);
      // Assess
      assert.ok(sleeps.includes(3_000), `slept ${sleeps.join(', ')} ms`);
      assert.equal(server.hits('GET', JOBSETS), 2);
    } finally {
      await server.close();
    }
  });
});

describe('KubeWatchSource.checkAccess', () => {
  /** By bearer token, how the scripted server answers a list. */
  const answers: Record<string, (path: string, hits: number) => Answer> = {
    ok: () => ({ status: 200, body: { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [] } }),
    flaky: (path, hits) => (path.startsWith('/apis/jobset.x-k8s.io/') && hits < 2 ? status(503, 'ServiceUnavailable', 'etcd is not ready') : answers['ok']!('', 0)),
    down: () => status(503, 'ServiceUnavailable', 'etcd is not ready'),
    stranger: () => ({ status: 401, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 } }),
    norbac: () => status(403, 'Forbidden', 'jobsets.jobset.x-k8s.io is forbidden: User "lineup" cannot list resource "jobsets"'),
    nocrd: (path) => (path.startsWith('/apis/jobset.x-k8s.io/') ? status(404, 'NotFound', 'the server could not find the requested resource') : answers['ok']!('', 0)),
  };
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback((request) => {
      const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      const hits = server.requests.filter((seen) => seen.headers.authorization === request.headers.authorization && seen.path === request.path).length - 1;
      return (answers[token] ?? answers['stranger']!)(request.path, hits);
    });
  });
  after(() => server.close());

  /** check: checkAccess as the user of `token` (against `endpoint`), its outcome, sleeps and request count. */
  const check = async (token: string, url = server.url) => {
    const counters = new Counters();
    const sleeps: number[] = [];
    const endpoint = await endpointFor({ id: 'loopback', endpoint: url, auth: { type: 'token', token } });
    const source = new KubeWatchSource({ endpoint, counters });
    const before = server.requests.length;
    const error = await source.checkAccess({ sleep: async (ms) => void sleeps.push(ms) }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    return { error, sleeps, requests: server.requests.slice(before), counters };
  };

  it('lists one JobSet and one Job, each once, when the server lets it', async () => {
    const { error, requests } = await check('ok');
    assert.equal(error, undefined);
    assert.deepEqual(requests.map((request) => [request.path, request.query.get('limit'), request.query.get('labelSelector')]), [
      ['/apis/jobset.x-k8s.io/v1alpha2/jobsets', '1', null],
      ['/apis/batch/v1/jobs', '1', 'jobset.sigs.k8s.io/jobset-name'],
    ]);
  });

  it('retries a 503 on the Kubernetes policy, then succeeds', async () => {
    const { error, sleeps, counters, requests } = await check('flaky');
    assert.equal(error, undefined);
    assert.equal(requests.length, 4, 'three JobSet lists, one Job list');
    assert.equal(sleeps.length, 2);
    sleeps.forEach((delay, index) => assert.ok(delay >= 100 * 2 ** index && delay <= 200 * 2 ** index, `retry ${index + 1} waited ${delay} ms`));
    assert.equal(counters.get(CounterName.KubeRetries), 2);
  });

  it('gives up on a server that stays unavailable after KUBE_RETRY.maxAttempts requests, with UnavailableError', async () => {
    const { error, requests } = await check('down');
    assert.ok(error instanceof LineupError, String(error));
    assert.equal(error.code, ErrorCode.UNAVAILABLE);
    assert.match(error.message, /gave up after 5 attempts/);
    assert.equal(requests.length, 5);
  });

  it('gives up on a refused connection with UnavailableError naming the cause', async () => {
    const { error } = await check('ok', `http://127.0.0.1:${await freeClosedPort()}`);
    assert.ok(error instanceof LineupError, String(error));
    assert.equal(error.code, ErrorCode.UNAVAILABLE);
    assert.match(error.message, /ECONNREFUSED/);
  });

  it('gives up on a server that accepts the connection and never answers, with UnavailableError at the deadline', async () => {
    // Prepare: a TCP server that keeps every connection open and says nothing.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const endpoint = await endpointFor({ id: 'silent', endpoint: `http://127.0.0.1:${String(port)}`, auth: { type: 'token', token: 'ok' } });
      // Act
      const error = await new KubeWatchSource({ endpoint, counters: new Counters() }).checkAccess({}, 300).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      // Assess
      assert.ok(error instanceof LineupError, String(error));
      assert.equal(error.code, ErrorCode.UNAVAILABLE);
      assert.match(error.message, /no answer within 0\.3 s/);
      assert.ok(sockets.length >= 1, 'the check never connected');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  const refusals: { token: string; code: string }[] = [
    { token: 'stranger', code: ErrorCode.UNAUTHENTICATED },
    { token: 'norbac', code: ErrorCode.FORBIDDEN },
    { token: 'nocrd', code: ErrorCode.NOT_FOUND },
  ];
  for (const tc of refusals) {
    it(`fails at once with ${tc.code} (${tc.token}): one request, no retry`, async () => {
      const { error, requests, sleeps } = await check(tc.token);
      assert.ok(error instanceof LineupError, String(error));
      assert.equal(error.code, tc.code, error.message);
      assert.equal(requests.length, 1);
      assert.deepEqual(sleeps, []);
    });
  }
});

describe('KubeWatchSource: a watch gone silent', () => {
  it('ends closed once the open connection sends nothing for idleMs, after handing over what came before', async () => {
    // Prepare: a server that answers the watch with one event, then keeps the connection open and silent.
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify(added('a', '11'))}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const endpoint = await endpointFor({ id: 'silent-watch', endpoint: `http://127.0.0.1:${String(port)}`, auth: { type: 'token', token: 't' } });
      const source = new KubeWatchSource({ endpoint, counters: new Counters(), idleMs: 200 });
      const events: WatchEvent<'JobSet'>[] = [];
      // Act
      const end = await source.watch('JobSet', '10', (event) => void events.push(event), new AbortController().signal);
      // Assess
      assert.equal(end, 'closed');
      assert.deepEqual(
        events.map((event) => event.type),
        ['ADDED'],
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
