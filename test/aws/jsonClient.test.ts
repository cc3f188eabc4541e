/**
 * AwsJsonClient's protocol and retries against a loopback HTTP server that answers as the AWS
 * JSON services do — scripted, because no real server here throttles on demand. What it sends
 * (target, content type, a SigV4 Authorization), which answers it retries (429, 5xx, throttling
 * and transient types, a dropped connection) and which it throws at once, typed as the SDK's
 * exceptions so lib/store/sdkErrors.ts maps them. DynamoDB itself: test/store/bookmarkStore.test.ts
 * (dynalite); EventBridge: test/integration/forwarder/eventBridgeSink.test.ts (moto).
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AWS_JSON_RETRY, AwsJsonClient, AwsServiceError, DYNAMODB, EVENTBRIDGE, endpointFrom, errorType, regionFrom, type AwsJsonClientOptions } from '../../lib/aws/jsonClient.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { toStoreError } from '../../lib/store/sdkErrors.ts';

/** Answer: what the server says to one request; 'drop' closes the connection unanswered. */
type Answer = { readonly status: number; readonly body: string; readonly headers?: Record<string, string> } | 'drop';

describe('aws/jsonClient', () => {
  let server: Server;
  let endpoint: URL;
  let script: Answer[] = [];
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const sleeps: number[] = [];
  const clients: AwsJsonClient[] = [];

  before(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        const answer = script.shift() ?? { status: 200, body: '{}' };
        if (answer === 'drop') return void request.socket.destroy();
        response.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', ...answer.headers }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  after(async () => {
    for (const client of clients) client.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    script = [];
    received.length = 0;
    sleeps.length = 0;
  });

  const client = (options: Partial<AwsJsonClientOptions> = {}): AwsJsonClient => {
    const made = new AwsJsonClient({
      service: DYNAMODB,
      region: 'eu-west-1',
      endpoint,
      credentials: async () => ({ accessKeyId: 'AKIDTEST', secretAccessKey: 'secret', sessionToken: 'session' }),
      retrySeams: { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 },
      ...options,
    });
    clients.push(made);
    return made;
  };

  it('POSTs the operation as JSON with its target, content type and a SigV4 signature of the service and region', async () => {
    script = [{ status: 200, body: '{"Item":{"pk":{"S":"a"}}}' }];
    assert.deepEqual(await client().call('GetItem', { TableName: 't' }), { Item: { pk: { S: 'a' } } });
    const [request] = received;
    assert.ok(request);
    assert.equal(request.body, '{"TableName":"t"}');
    assert.equal(request.headers['x-amz-target'], 'DynamoDB_20120810.GetItem');
    assert.equal(request.headers['content-type'], 'application/x-amz-json-1.0');
    assert.equal(request.headers['x-amz-security-token'], 'session');
    assert.match(String(request.headers['authorization']), /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=[^,]*x-amz-target[^,]*, Signature=[0-9a-f]{64}$/);
  });

  it('retries 429, 5xx, a throttling type on a 400 and a dropped connection, with the doubling backoff, then succeeds', async () => {
    script = [
      { status: 429, body: '{"__type":"TooManyRequestsException","message":"slow down"}' },
      { status: 400, body: '{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"rate exceeded"}' },
    ];
    const answer = await client({ retryPolicy: { ...AWS_JSON_RETRY, maxAttempts: 5 } }).call('PutItem', {});
    assert.deepEqual(answer, {});
    assert.equal(received.length, 3);
    script = [{ status: 503, body: '' }, 'drop', { status: 500, body: '{"__type":"InternalServerError"}' }];
    await client({ retryPolicy: { ...AWS_JSON_RETRY, maxAttempts: 5 } }).call('PutItem', {});
    assert.equal(received.length, 7);
    // equal jitter at random 0.5: three quarters of 100, 200, 400 ms (then the schedule starts over for the second call).
    assert.deepEqual(sleeps, [75, 150, 75, 150, 300]);
  });

  it('gives up after maxAttempts: the last throttling error, typed as the SDK’s, becomes an UnavailableError at the store boundary', async () => {
    script = [1, 2, 3].map(() => ({ status: 400, body: '{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"too much"}' }));
    const error = await client().call('PutItem', {}).then(() => undefined, (thrown: unknown) => thrown);
    assert.ok(error instanceof AwsServiceError, String(error));
    assert.equal(error.name, 'ProvisionedThroughputExceededException');
    assert.equal(error.$metadata.httpStatusCode, 400);
    assert.equal(received.length, 3);
    const mapped = toStoreError('PutItem', 't', error);
    assert.ok(mapped instanceof LineupError);
    assert.equal(mapped.code, ErrorCode.UNAVAILABLE);
    assert.match(mapped.message, /dynamodb PutItem on table t failed after retries: ProvisionedThroughputExceededException \(http 400\): dynamodb PutItem answered http 400: too much/);
  });

  it('throws a client error at once, its type from X-Amzn-ErrorType when the body has none; a 403 is a ForbiddenError at the store boundary', async () => {
    script = [{ status: 400, body: '{"message":"bad"}', headers: { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.coral.validate/' } }];
    await assert.rejects(client().call('PutItem', {}), (error: unknown) => error instanceof AwsServiceError && error.name === 'ValidationException' && error.$fault === 'client');
    assert.equal(received.length, 1);
    script = [{ status: 403, body: '{"__type":"AccessDeniedException","Message":"not allowed"}' }];
    const denied = await client().call('GetItem', {}).then(() => undefined, (thrown: unknown) => thrown);
    assert.equal(received.length, 2);
    assert.equal(toStoreError('GetItem', 't', denied).code, ErrorCode.FORBIDDEN);
  });

  it('sends once when maxAttempts is 1 (the sink: the batcher retries), with the EventBridge target and content type', async () => {
    script = [{ status: 500, body: '{"__type":"InternalException","message":"boom"}' }];
    await assert.rejects(client({ service: EVENTBRIDGE, retryPolicy: { ...AWS_JSON_RETRY, maxAttempts: 1 } }).call('PutEvents', { Entries: [] }), /events PutEvents answered http 500: boom/);
    assert.equal(received.length, 1);
    assert.equal(received[0]?.headers['x-amz-target'], 'AWSEvents.PutEvents');
    assert.equal(received[0]?.headers['content-type'], 'application/x-amz-json-1.1');
    assert.deepEqual(sleeps, []);
  });

  it('reads region and endpoint from the environment as the SDK does, refusing what is missing or malformed', () => {
    assert.equal(regionFrom({ AWS_DEFAULT_REGION: 'eu-central-1' }), 'eu-central-1');
    assert.equal(regionFrom({ AWS_REGION: 'us-west-2', AWS_DEFAULT_REGION: 'eu-central-1' }), 'us-west-2');
    assert.throws(() => regionFrom({}), /no aws region: AWS_REGION and AWS_DEFAULT_REGION are unset/);
    assert.equal(endpointFrom(DYNAMODB, 'eu-west-1', {}).href, 'https://dynamodb.eu-west-1.amazonaws.com/');
    assert.equal(endpointFrom(EVENTBRIDGE, 'cn-north-1', {}).href, 'https://events.cn-north-1.amazonaws.com.cn/');
    assert.equal(endpointFrom(EVENTBRIDGE, 'eu-west-1', { AWS_ENDPOINT_URL: 'http://all:1', AWS_ENDPOINT_URL_EVENTBRIDGE: 'http://events:2' }).href, 'http://events:2/');
    assert.equal(endpointFrom(DYNAMODB, 'eu-west-1', { AWS_ENDPOINT_URL: 'http://all:1', AWS_ENDPOINT_URL_EVENTBRIDGE: 'http://events:2' }).href, 'http://all:1/');
    assert.throws(() => endpointFrom(DYNAMODB, 'eu-west-1', { AWS_ENDPOINT_URL_DYNAMODB: 'not a url' }), /the dynamodb endpoint "not a url" is not a url/);
    assert.equal(errorType('com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException'), 'ConditionalCheckFailedException');
    assert.equal(errorType(''), undefined);
  });
});
