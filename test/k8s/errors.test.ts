/** The boundary mapping from the REST client's errors to Lineup's, case by case. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, InvalidObjectError, LineupError, NotFoundError, UnavailableError } from '../../lib/errors.ts';
import { describeError, parseStatus, toLineupError } from '../../lib/k8s/errors.ts';
import { KubeHttpError } from '../../lib/k8s/rest.ts';

/** apiError: a KubeHttpError as the REST client throws it: the Status body as JSON text. */
const apiError = (code: number, reason: string | undefined, message = 'server says no', extra: Record<string, unknown> = {}): KubeHttpError =>
  new KubeHttpError('GET', '/apis/batch/v1/namespaces/ns/jobs/name', code, {}, JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code, ...extra }));

describe('toLineupError', () => {
  const cases: { name: string; error: unknown; want: string }[] = [
    { name: '409 AlreadyExists is ALREADY_EXISTS', error: apiError(409, 'AlreadyExists'), want: ErrorCode.ALREADY_EXISTS },
    { name: '409 Conflict is STALE_RESOURCE_VERSION', error: apiError(409, 'Conflict'), want: ErrorCode.STALE_RESOURCE_VERSION },
    { name: '409 without a body is STALE_RESOURCE_VERSION', error: new KubeHttpError('PATCH', '/x', 409, {}, ''), want: ErrorCode.STALE_RESOURCE_VERSION },
    { name: '404 is NOT_FOUND', error: apiError(404, 'NotFound'), want: ErrorCode.NOT_FOUND },
    { name: '401 without a body is UNAUTHENTICATED', error: new KubeHttpError('GET', '/x', 401, {}, ''), want: ErrorCode.UNAUTHENTICATED },
    { name: '403 is FORBIDDEN', error: apiError(403, 'Forbidden'), want: ErrorCode.FORBIDDEN },
    { name: '410 is WATCH_EXPIRED', error: apiError(410, 'Expired'), want: ErrorCode.WATCH_EXPIRED },
    { name: '422 is INVALID_OBJECT', error: apiError(422, 'Invalid'), want: ErrorCode.INVALID_OBJECT },
    { name: '400 is INVALID_OBJECT', error: apiError(400, 'BadRequest'), want: ErrorCode.INVALID_OBJECT },
    { name: '500 that reached the caller is UNAVAILABLE', error: apiError(500, 'InternalError'), want: ErrorCode.UNAVAILABLE },
    { name: 'another HTTP error carrying statusCode maps by status', error: Object.assign(new Error('Forbidden'), { statusCode: 403 }), want: ErrorCode.FORBIDDEN },
    { name: 'a transport failure is UNAVAILABLE', error: new TypeError('fetch failed'), want: ErrorCode.UNAVAILABLE },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const mapped = toLineupError(tc.error, 'job ns/name');
      assert.ok(mapped instanceof LineupError);
      assert.equal(mapped.code, tc.want);
      assert.equal(mapped.cause, tc.error, 'the original error is kept as cause');
      assert.ok(mapped.message.startsWith('job ns/name: '), mapped.message);
    });
  }

  it("carries the server's message and a 422's field causes", () => {
    const mapped = toLineupError(
      apiError(422, 'Invalid', 'Job.batch "x" is invalid: spec.template: Invalid value', {
        details: { causes: [{ reason: 'FieldValueInvalid', message: 'field is immutable', field: 'spec.template' }] },
      }),
      'job ns/x',
    );
    assert.ok(mapped instanceof InvalidObjectError);
    assert.equal(mapped.message, 'job ns/x: Job.batch "x" is invalid: spec.template: Invalid value');
    assert.deepEqual(mapped.causes, [{ path: 'spec.template', message: 'field is immutable' }]);
  });

  it("keeps a 429's Retry-After on the UnavailableError, for the layer that retries", () => {
    const throttled = new KubeHttpError('GET', '/x', 429, { 'retry-after': '4' }, JSON.stringify({ kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'slow down' }));
    const mapped = toLineupError(throttled, 'list jobsets');
    assert.ok(mapped instanceof UnavailableError);
    assert.equal(mapped.retryAfterMs, 4_000);
    assert.equal((toLineupError(apiError(503, 'ServiceUnavailable'), 'list jobsets') as UnavailableError).retryAfterMs, undefined);
  });

  it('leaves out causes that name no field (the CRD validator\'s "<nil>" notice), keeping their text in the message', () => {
    const notice = 'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
    const mapped = toLineupError(
      apiError(422, 'Invalid', `JobSet.jobset.x-k8s.io "x" is invalid: [status.conditions[0].reason: Required value, <nil>: ${notice}]`, {
        details: {
          causes: [
            { reason: 'FieldValueRequired', message: 'Required value', field: 'status.conditions[0].reason' },
            { reason: 'FieldValueInvalid', message: notice, field: '<nil>' },
            { reason: 'FieldValueInvalid', message: 'no field at all' },
          ],
        },
      }),
      'jobset ns/x status',
    );
    assert.ok(mapped instanceof InvalidObjectError);
    assert.deepEqual(mapped.causes, [{ path: 'status.conditions[0].reason', message: 'Required value' }]);
    assert.match(mapped.message, /some validation rules were not checked/);
  });

  it('passes a Lineup error through unchanged', () => {
    const error = new NotFoundError('gone');
    assert.equal(toLineupError(error, 'x'), error);
  });
});

describe('parseStatus and describeError', () => {
  it('reads a Status from JSON text or an object, and nothing else', () => {
    assert.equal(parseStatus('{"kind":"Status","code":410,"reason":"Expired"}')?.code, 410);
    assert.equal(parseStatus({ kind: 'Status', code: 410 })?.code, 410);
    assert.equal(parseStatus('not json'), undefined);
    assert.equal(parseStatus({ code: 'not a number' }), undefined);
  });

  it('describes an HTTP error by status, reason and message, and a transport error by its cause', () => {
    assert.equal(describeError(apiError(503, 'ServiceUnavailable', 'try later')), 'HTTP 503 ServiceUnavailable: try later');
    assert.equal(describeError(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') })), 'fetch failed: connect ECONNREFUSED 127.0.0.1:1');
  });
});
