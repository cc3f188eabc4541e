/**
 * KubeRestClient against a scripted loopback server: the requests it sends (method, path, query,
 * content type, body, credentials) and how it reports an answer that is not 2xx (KubeHttpError
 * with the server's Status and Retry-After), a body that is not JSON, and no answer in time.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kubeEndpoint } from '../../lib/k8s/endpoint.ts';
import { ContentType, KubeHttpError, KubeResponseError, KubeRestClient, KubeTimeoutError, resourcePath } from '../../lib/k8s/rest.ts';
import { isRetryable } from '../../lib/k8s/retry.ts';
import { startLoopback, status } from './loopback.ts';
import type { LoopbackServer } from './loopback.ts';

describe('resourcePath', () => {
  it('core and group resources, collections across namespaces, objects and subresources, names escaped', () => {
    assert.equal(resourcePath({ group: '', version: 'v1', plural: 'services' }, 'ns', 'svc'), '/api/v1/namespaces/ns/services/svc');
    assert.equal(resourcePath({ group: 'jobset.x-k8s.io', version: 'v1alpha2', plural: 'jobsets' }), '/apis/jobset.x-k8s.io/v1alpha2/jobsets');
    assert.equal(resourcePath({ group: 'batch', version: 'v1', plural: 'jobs' }, 'ns', 'job-0', 'status'), '/apis/batch/v1/namespaces/ns/jobs/job-0/status');
    assert.equal(resourcePath({ group: 'batch', version: 'v1', plural: 'jobs' }, 'a/b', 'c d'), '/apis/batch/v1/namespaces/a%2Fb/jobs/c%20d');
  });
});

describe('KubeRestClient', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback((request) => {
      switch (request.path) {
        case '/ok':
          return { status: 200, body: { kind: 'Thing', seen: request.body === '' ? null : (JSON.parse(request.body) as unknown) } };
        case '/empty':
          return { status: 200 };
        case '/throttled':
          return status(429, 'TooManyRequests', 'slow down', {}, { 'Retry-After': '3' });
        case '/conflict':
          return status(409, 'Conflict', 'the object has been modified');
        case '/bare':
          return { status: 503, body: 'upstream down' };
        case '/html':
          return { status: 200, body: '<html>proxy</html>' };
        case '/slow':
          return 'hang';
        default:
          return status(404, 'NotFound', 'no such path');
      }
    });
  });
  after(() => server.close());

  const client = (timeoutMs?: number) => new KubeRestClient(kubeEndpoint({ server: server.url, token: async () => 'tok' }), { timeoutMs });

  it('sends JSON with the bearer token, the query (undefined parameters left out) and the merge-patch content type', async () => {
    const before = server.requests.length;
    const answer = await client().mergePatch('/ok', { spec: { suspend: true } }, { fieldManager: 'lineup', dryRun: undefined });
    const [request] = server.requests.slice(before);
    assert.deepEqual(answer, { kind: 'Thing', seen: { spec: { suspend: true } } });
    assert.equal(request?.method, 'PATCH');
    assert.equal(request?.headers['content-type'], ContentType.mergePatch);
    assert.equal(request?.headers.authorization, 'Bearer tok');
    assert.equal(request?.query.toString(), 'fieldManager=lineup');
  });

  it('get, create, replace and delete send their methods; an empty body is undefined', async () => {
    const before = server.requests.length;
    const c = client();
    await c.get('/ok', { limit: 1, watch: false });
    await c.create('/ok', { a: 1 });
    await c.replace('/ok', { a: 2 });
    assert.equal(await c.delete('/empty', { propagationPolicy: 'Background' }), undefined);
    const sent = server.requests.slice(before);
    assert.deepEqual(sent.map((request) => request.method), ['GET', 'POST', 'PUT', 'DELETE']);
    assert.equal(sent[0]?.query.toString(), 'limit=1&watch=false');
    assert.equal(sent[1]?.headers['content-type'], ContentType.json);
    assert.deepEqual(JSON.parse(sent[3]?.body ?? ''), { propagationPolicy: 'Background' });
  });

  it("a refusal is KubeHttpError with the status code, the server's Status and Retry-After", async () => {
    const error = await client().get('/throttled').catch((failure: unknown) => failure);
    assert.ok(error instanceof KubeHttpError, String(error));
    assert.equal(error.statusCode, 429);
    assert.equal(error.status?.reason, 'TooManyRequests');
    assert.equal(error.status?.message, 'slow down');
    assert.equal(error.retryAfter, '3');
    assert.match(error.message, /^GET \/throttled: the api server answered 429 TooManyRequests: slow down, expected 2xx$/);
    assert.equal(isRetryable(error), true);
    const conflict = await client().get('/conflict').catch((failure: unknown) => failure);
    assert.ok(conflict instanceof KubeHttpError && conflict.statusCode === 409 && conflict.status?.reason === 'Conflict');
    assert.equal(isRetryable(conflict), false);
  });

  it('a refusal whose body is no Status keeps the body and no Status', async () => {
    const error = await client().get('/bare').catch((failure: unknown) => failure);
    assert.ok(error instanceof KubeHttpError, String(error));
    assert.equal(error.statusCode, 503);
    assert.equal(error.status, undefined);
    assert.equal(error.body, 'upstream down');
  });

  it('a 2xx body that is not JSON is KubeResponseError', async () => {
    const error = await client().get('/html').catch((failure: unknown) => failure);
    assert.ok(error instanceof KubeResponseError, String(error));
    assert.match(error.message, /not JSON/);
  });

  it('no answer within the timeout is KubeTimeoutError, retried as a dropped connection', async () => {
    const error = await client(100).get('/slow').catch((failure: unknown) => failure);
    assert.ok(error instanceof KubeTimeoutError, String(error));
    assert.equal(error.code, 'ETIMEDOUT');
    assert.equal(isRetryable(error), true);
  });
});
