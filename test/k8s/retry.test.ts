/**
 * withRetry through Lineup's real request path: a KubeClusterGateway over an endpoint
 * pointed at a scripted loopback server, which counts what it receives. Sleeps are recorded,
 * not waited.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CounterName, Counters } from '../../lib/counters.ts';
import { ErrorCode, InvalidObjectError, LineupError, UnavailableError } from '../../lib/errors.ts';
import { endpointFor } from '../../lib/k8s/auth.ts';
import { KubeClusterGateway } from '../../lib/k8s/gateway.ts';
import { retryAfterMs } from '../../lib/k8s/errors.ts';
import { KubeHttpError } from '../../lib/k8s/rest.ts';
import { isRetryable, withRetry } from '../../lib/k8s/retry.ts';
import { makeJobSet } from '../builders.ts';
import { freeClosedPort, startLoopback, status } from './loopback.ts';
import type { Answer, LoopbackServer, RecordedRequest } from './loopback.ts';

const NS = 'ns';
const MAX_ATTEMPTS = 4;
const BASE_DELAY_MS = 100;
const MAX_DELAY_MS = 5_000;
const jobSetPath = (name: string): string => `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NS}/jobsets/${name}`;

/** jobSetBody: what the server returns for a GET of JobSet `name`. */
const jobSetBody = (name: string): unknown => makeJobSet(name, NS).replicatedJob('workers', 1).obj();

/**
 * answer: the scripted API server. A JobSet's name says how its GET (and PATCH) goes; Job lists
 * are empty and Services missing, so observe() of a healthy JobSet makes exactly three requests.
 */
const answer = (request: RecordedRequest, previousHits: number): Answer => {
  const name = request.path.split('/').at(-1) ?? '';
  if (request.path === `/apis/batch/v1/namespaces/${NS}/jobs`) {
    if (request.method === 'POST') return status(409, 'AlreadyExists', 'jobs.batch "taken" already exists');
    return { status: 200, body: { kind: 'JobList', apiVersion: 'batch/v1', metadata: { resourceVersion: '10' }, items: [] } };
  }
  if (request.path.startsWith(`/api/v1/namespaces/${NS}/services/`)) return status(404, 'NotFound', `services "${name}" not found`);
  const ok: Answer = { status: 200, body: jobSetBody(name) };
  switch (name) {
    case 'throttled':
      return previousHits === 0 ? status(429, 'TooManyRequests', 'storage is (re)initializing', {}, { 'Retry-After': '3' }) : ok;
    case 'flaky':
      return previousHits < 3 ? status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request') : ok;
    case 'broken':
      return status(500, 'InternalError', 'etcdserver: request timed out');
    case 'missing':
      return status(404, 'NotFound', `jobsets.jobset.x-k8s.io "${name}" not found`);
    case 'forbidden':
      return status(403, 'Forbidden', 'jobsets.jobset.x-k8s.io is forbidden: User "lineup" cannot get resource "jobsets"');
    case 'conflicted':
      return status(409, 'Conflict', 'Operation cannot be fulfilled on jobsets.jobset.x-k8s.io "conflicted": the object has been modified; please apply your changes to the latest version and try again');
    case 'invalid':
      return status(422, 'Invalid', 'JobSet.jobset.x-k8s.io "invalid" is invalid: metadata.annotations: Invalid value', {
        details: { causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "x"', field: 'metadata.annotations' }] },
      });
    case 'reset':
      return previousHits === 0 ? 'reset' : ok;
    default:
      return ok;
  }
};

describe('withRetry', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback(answer);
  });
  after(() => server.close());

  /** gatewayFor: a gateway over the loopback server, its counters, and the sleeps it asked for. */
  const gatewayFor = async (url = server.url) => {
    const counters = new Counters();
    const sleeps: number[] = [];
    const endpoint = await endpointFor({ id: 'loopback', endpoint: url, auth: { type: 'token', token: 'test-token' } });
    const gateway = new KubeClusterGateway({
      endpoint,
      counters,
      retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: BASE_DELAY_MS, maxDelayMs: MAX_DELAY_MS, sleep: async (ms) => void sleeps.push(ms) },
    });
    return { gateway, counters, sleeps };
  };

  it('retries a 429 after the Retry-After the server asked for, then succeeds', async () => {
    // Prepare
    const { gateway, counters, sleeps } = await gatewayFor();
    // Act
    const observed = await gateway.observe(NS, 'throttled', 0);
    // Assess
    assert.equal(observed?.jobSet.metadata.name, 'throttled');
    assert.equal(server.hits('GET', jobSetPath('throttled')), 2);
    assert.deepEqual(sleeps, [3_000]);
    assert.equal(counters.get(CounterName.KubeRetries), 1);
    assert.equal(counters.get('k8s.get'), 3, 'two JobSet GETs and one Service GET');
    assert.equal(counters.get('k8s.list'), 1);
  });

  it('retries 503 three times with growing, jittered backoff, then succeeds', async () => {
    // Prepare
    const { gateway, counters, sleeps } = await gatewayFor();
    // Act
    const observed = await gateway.observe(NS, 'flaky', 0);
    // Assess
    assert.equal(observed?.jobSet.metadata.name, 'flaky');
    assert.equal(server.hits('GET', jobSetPath('flaky')), 4);
    assert.equal(counters.get(CounterName.KubeRetries), 3);
    assert.equal(sleeps.length, 3);
    sleeps.forEach((delay, index) => {
      const ceiling = BASE_DELAY_MS * 2 ** index;
      assert.ok(delay >= ceiling / 2 && delay <= ceiling, `retry ${index + 1} waited ${delay} ms, expected ${ceiling / 2}..${ceiling}`);
    });
  });

  it('gives up on a 500 that never ends with UnavailableError naming the attempts', async () => {
    // Prepare
    const { gateway, counters } = await gatewayFor();
    // Act
    const error = await gateway.observe(NS, 'broken', 0).then(
      () => assert.fail('observe should fail'),
      (failure: unknown) => failure,
    );
    // Assess
    assert.ok(error instanceof UnavailableError, String(error));
    assert.match(error.message, new RegExp(`gave up after ${MAX_ATTEMPTS} attempts`));
    assert.match(error.message, /etcdserver: request timed out/);
    assert.ok(error.cause instanceof KubeHttpError);
    assert.equal(server.hits('GET', jobSetPath('broken')), MAX_ATTEMPTS);
    assert.equal(counters.get('k8s.get'), MAX_ATTEMPTS);
    assert.equal(counters.get(CounterName.KubeRetries), MAX_ATTEMPTS - 1);
  });

  it('does not retry a 404: a missing JobSet is undefined after one request', async () => {
    const { gateway, counters } = await gatewayFor();
    assert.equal(await gateway.observe(NS, 'missing', 0), undefined);
    assert.equal(server.hits('GET', jobSetPath('missing')), 1);
    assert.equal(counters.get(CounterName.KubeRetries), 0);
  });

  const finalAnswers: { name: string; run: (gateway: KubeClusterGateway) => Promise<unknown>; method: string; path: string; code: string }[] = [
    { name: '403 Forbidden is ForbiddenError', run: (g) => g.observe(NS, 'forbidden', 0), method: 'GET', path: jobSetPath('forbidden'), code: ErrorCode.FORBIDDEN },
    {
      name: '409 Conflict on a conditional patch is ConflictError',
      run: (g) => g.apply(NS, 'conflicted', { kind: 'PatchJobSetAnnotations', resourceVersion: '5', annotations: { a: 'b' } }, 0),
      method: 'PATCH',
      path: jobSetPath('conflicted'),
      code: ErrorCode.STALE_RESOURCE_VERSION,
    },
    {
      name: '409 AlreadyExists on a create is AlreadyExistsError',
      run: (g) => g.apply(NS, 'js', { kind: 'CreateJob', replicatedJob: 'workers', job: { metadata: { name: 'taken' }, spec: { template: {} } } }, 0),
      method: 'POST',
      path: `/apis/batch/v1/namespaces/${NS}/jobs`,
      code: ErrorCode.ALREADY_EXISTS,
    },
    {
      name: '422 Invalid is InvalidObjectError with the field causes',
      run: (g) => g.apply(NS, 'invalid', { kind: 'PatchJobSetAnnotations', resourceVersion: undefined, annotations: { a: 'b' } }, 0),
      method: 'PATCH',
      path: jobSetPath('invalid'),
      code: ErrorCode.INVALID_OBJECT,
    },
  ];
  for (const tc of finalAnswers) {
    it(`does not retry: ${tc.name}`, async () => {
      // Prepare
      const { gateway, counters } = await gatewayFor();
      const before = server.hits(tc.method, tc.path);
      // Act
      const error = await tc.run(gateway).then(
        () => assert.fail('the call should fail'),
        (failure: unknown) => failure,
      );
      // Assess
      assert.ok(error instanceof LineupError, String(error));
      assert.equal(error.code, tc.code, error.message);
      assert.equal(server.hits(tc.method, tc.path) - before, 1);
      assert.equal(counters.get(CounterName.KubeRetries), 0);
      if (error instanceof InvalidObjectError) assert.deepEqual(error.causes, [{ path: 'metadata.annotations', message: 'Invalid value: "x"' }]);
    });
  }

  it('sends a merge patch (application/merge-patch+json) carrying the resourceVersion precondition', async () => {
    // Prepare
    const { gateway } = await gatewayFor();
    // Act
    await gateway.apply(NS, 'patched', { kind: 'PatchJobSetAnnotations', resourceVersion: '42', annotations: { a: 'b', gone: null } }, 0);
    // Assess
    const patch = server.requests.findLast((request) => request.method === 'PATCH' && request.path === jobSetPath('patched'));
    assert.ok(patch);
    assert.equal(patch.headers['content-type'], 'application/merge-patch+json');
    assert.deepEqual(JSON.parse(patch.body), { metadata: { annotations: { a: 'b', gone: null }, resourceVersion: '42' } });
  });

  it('retries a connection the server dropped without an answer', async () => {
    const { gateway, counters } = await gatewayFor();
    assert.equal((await gateway.observe(NS, 'reset', 0))?.jobSet.metadata.name, 'reset');
    assert.equal(server.hits('GET', jobSetPath('reset')), 2);
    assert.equal(counters.get(CounterName.KubeRetries), 1);
  });

  it('retries a refused connection, then gives up with UnavailableError', async () => {
    // Prepare: nothing listens on this port.
    const { gateway, counters } = await gatewayFor(`http://127.0.0.1:${await freeClosedPort()}`);
    // Act
    const error = await gateway.observe(NS, 'anything', 0).then(
      () => assert.fail('observe should fail'),
      (failure: unknown) => failure,
    );
    // Assess
    assert.ok(error instanceof UnavailableError, String(error));
    assert.match(error.message, new RegExp(`gave up after ${MAX_ATTEMPTS} attempts`));
    assert.equal(counters.get('k8s.get'), MAX_ATTEMPTS);
    assert.equal(counters.get(CounterName.KubeRetries), MAX_ATTEMPTS - 1);
  });
});

describe('retry decisions', () => {
  const apiError = (code: number, headers: Record<string, string> = {}): KubeHttpError => new KubeHttpError('GET', '/x', code, headers, '');

  it('reads Retry-After as seconds or as an HTTP date, and ignores what does not parse', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    assert.equal(retryAfterMs(apiError(429, { 'retry-after': '7' }), now), 7_000);
    assert.equal(retryAfterMs(apiError(503, { 'Retry-After': 'Sun, 29 Nov 2026 12:00:05 GMT' }), now), 5_000);
    assert.equal(retryAfterMs(apiError(503, { 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }), now), 0, 'a date in the past means now');
    assert.equal(retryAfterMs(apiError(503, { 'retry-after': 'soon' }), now), undefined);
    assert.equal(retryAfterMs(apiError(503), now), undefined);
  });

  it('retries 429 and 5xx and dropped connections, never other 4xx or Lineup errors', () => {
    const cases: { name: string; error: unknown; want: boolean }[] = [
      { name: '429', error: apiError(429), want: true },
      { name: '500', error: apiError(500), want: true },
      { name: '504', error: apiError(504), want: true },
      { name: '400', error: apiError(400), want: false },
      { name: '404', error: apiError(404), want: false },
      { name: '409', error: apiError(409), want: false },
      { name: 'a Watch error with statusCode 503', error: Object.assign(new Error('Service Unavailable'), { statusCode: 503 }), want: true },
      { name: 'ECONNREFUSED under fetch failed', error: new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }), want: true },
      { name: 'socket hang up', error: new Error('socket hang up'), want: true },
      { name: 'a Lineup error caused by a reset', error: new UnavailableError('gone', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }), want: false },
      { name: 'a plain error', error: new Error('boom'), want: false },
    ];
    for (const tc of cases) assert.equal(isRetryable(tc.error), tc.want, tc.name);
  });

  it('caps a long Retry-After at maxDelayMs, and rethrows a final error untouched', async () => {
    // Prepare
    const sleeps: number[] = [];
    let calls = 0;
    const counters = new Counters();
    // Act
    const result = await withRetry(
      async () => {
        calls += 1;
        if (calls === 1) throw apiError(429, { 'retry-after': '3600' });
        return 'done';
      },
      { counters, policy: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 2_000, jitter: 'equal' }, sleep: async (ms) => void sleeps.push(ms) },
    );
    const final = apiError(404);
    const thrown = await withRetry(() => Promise.reject(final), { counters, policy: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20, jitter: 'equal' } }).catch(
      (error: unknown) => error,
    );
    // Assess
    assert.equal(result, 'done');
    assert.deepEqual(sleeps, [2_000]);
    assert.equal(thrown, final);
  });
});
