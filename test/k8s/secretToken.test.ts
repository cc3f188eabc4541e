/**
 * Tokens of `token` clusters read from a secret: cached per process, re-read once after a 401,
 * then a clear failure. The secret is a fake reader (the real Secrets Manager call is tested
 * against moto in test/integration/k8s/secretToken.test.ts); the API server is the scripted
 * loopback server, so the token goes through Lineup's real request path (lib/k8s/rest.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counters } from '../../lib/counters.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { clusterAccessFor } from '../../lib/k8s/auth.ts';
import { KubeClusterGateway } from '../../lib/k8s/gateway.ts';
import { SecretTokenSource, secretsManagerReader } from '../../lib/k8s/secretToken.ts';
import type { SecretsManagerLike } from '../../lib/k8s/secretToken.ts';
import { startLoopback, status } from './loopback.ts';
import type { LoopbackServer } from './loopback.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:onprem-token-AbCdEf';

/** fakeSecret: a secret whose value the test rotates, counting reads. */
const fakeSecret = (initial: string) => {
  const secret = { value: initial, reads: 0 };
  const read = async (arn: string): Promise<string> => {
    assert.equal(arn, ARN);
    secret.reads += 1;
    // A turn of the event loop, so concurrent callers really overlap the read.
    await new Promise((resolve) => setImmediate(resolve));
    return secret.value;
  };
  return { secret, read };
};

describe('SecretTokenSource', () => {
  it('reads the secret once for many and concurrent requests, trimming the newline a file upload leaves', async () => {
    const { secret, read } = fakeSecret('tok-1\n');
    const source = new SecretTokenSource(ARN, read);
    const tokens = await Promise.all([source.token(), source.token(), source.token()]);
    assert.deepEqual(tokens, ['tok-1', 'tok-1', 'tok-1']);
    assert.equal(await source.token(), 'tok-1');
    assert.equal(secret.reads, 1);
  });

  it('refresh: one re-read shared by concurrent 401s; none when a read already happened since the request was sent', async () => {
    const { secret, read } = fakeSecret('tok-1');
    const source = new SecretTokenSource(ARN, read);
    const seen = await source.ready();
    secret.value = 'tok-2';
    const changed = await Promise.all([source.refresh(seen), source.refresh(seen), source.refresh(seen)]);
    assert.deepEqual(changed, [true, true, true]);
    assert.equal(secret.reads, 2);
    assert.equal(await source.token(), 'tok-2');
    // A request sent with the first token, answered 401 after the re-read: no third read.
    assert.equal(await source.refresh(seen), true);
    assert.equal(secret.reads, 2);
  });

  it('refresh: false when the secret still holds the refused token', async () => {
    const { read } = fakeSecret('tok-1');
    const source = new SecretTokenSource(ARN, read);
    assert.equal(await source.refresh(await source.ready()), false);
  });

  it('an empty secret is INVALID_INPUT naming the secret', async () => {
    const source = new SecretTokenSource(ARN, async () => '  \n');
    const error = await source.token().catch((failure: unknown) => failure);
    assert.ok(error instanceof LineupError && error.code === ErrorCode.INVALID_INPUT, String(error));
    assert.match(error.message, /secret arn:aws:secretsmanager:.*onprem-token-AbCdEf holds an empty string, expected a kubernetes bearer token/);
  });
});

describe('a token cluster behind the gateway', () => {
  /** accepted: the one token the scripted API server accepts; anything else is 401. */
  const accepted = { token: 'tok-2' };
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback((request) =>
      request.headers.authorization === `Bearer ${accepted.token}` ? status(404, 'NotFound', 'not found') : status(401, 'Unauthorized', 'Unauthorized'),
    );
  });
  after(() => server.close());

  const gatewayFor = async (read: (arn: string) => Promise<string>): Promise<KubeClusterGateway> => {
    const { endpoint, refresher } = await clusterAccessFor({ id: 'onprem', endpoint: server.url, auth: { type: 'token', tokenSecretArn: ARN } }, { resolveSecret: read });
    assert.ok(refresher, 'a token read from a secret comes with its refresher');
    return new KubeClusterGateway({ endpoint, counters: new Counters(), refresher });
  };

  it('a rotated secret: the 401 re-reads it once and the request is repeated with the new token', async () => {
    // Prepare: the process read tok-1; the secret then rotated to tok-2, which the server takes.
    const { secret, read } = fakeSecret('tok-1');
    accepted.token = 'tok-1';
    const gateway = await gatewayFor(read);
    assert.equal(await gateway.getJobSet('ns', 'absent'), undefined);
    secret.value = 'tok-2';
    accepted.token = 'tok-2';
    const before = server.requests.length;
    // Act
    const found = await gateway.getJobSet('ns', 'absent');
    // Assess
    assert.equal(found, undefined, 'the repeated request got its answer (404: no such JobSet)');
    assert.deepEqual(
      server.requests.slice(before).map((request) => request.headers.authorization),
      ['Bearer tok-1', 'Bearer tok-2'],
    );
    assert.equal(secret.reads, 2);
    // The new token is kept: the next request reads nothing.
    await gateway.getJobSet('ns', 'absent');
    assert.equal(secret.reads, 2);
  });

  it('a secret that still holds the refused token: UNAUTHENTICATED at once, naming the secret, no second request', async () => {
    const { secret, read } = fakeSecret('tok-stale');
    accepted.token = 'tok-2';
    const gateway = await gatewayFor(read);
    const before = server.requests.length;
    const error = await gateway.getJobSet('ns', 'a').catch((failure: unknown) => failure);
    assert.ok(error instanceof LineupError && error.code === ErrorCode.UNAUTHENTICATED, String(error));
    assert.match(error.message, /jobset ns\/a: the api server answered 401 and secret arn:aws:secretsmanager:\S+ still holds the token it refused/);
    assert.equal(server.requests.length - before, 1);
    assert.equal(secret.reads, 2);
  });

  it('a re-read token refused too: UNAUTHENTICATED after exactly one repeat', async () => {
    const values = ['tok-a', 'tok-b', 'tok-c'];
    let reads = 0;
    accepted.token = 'tok-2';
    const gateway = await gatewayFor(async () => values[reads++] ?? 'tok-z');
    const before = server.requests.length;
    const error = await gateway.getJobSet('ns', 'b').catch((failure: unknown) => failure);
    assert.ok(error instanceof LineupError && error.code === ErrorCode.UNAUTHENTICATED, String(error));
    assert.match(error.message, /401 again after the token was re-read from secret arn:aws:secretsmanager:/);
    assert.deepEqual(
      server.requests.slice(before).map((request) => request.headers.authorization),
      ['Bearer tok-a', 'Bearer tok-b'],
    );
    assert.equal(reads, 2);
  });

  it('an inline token has no refresher: its 401 is final, as before', async () => {
    const { endpoint, refresher } = await clusterAccessFor({ id: 'inline', endpoint: server.url, auth: { type: 'token', token: 'wrong' } });
    assert.equal(refresher, undefined);
    const error = await new KubeClusterGateway({ endpoint, counters: new Counters() }).getJobSet('ns', 'c').catch((failure: unknown) => failure);
    assert.ok(error instanceof LineupError && error.code === ErrorCode.UNAUTHENTICATED, String(error));
  });
});

describe('secretsManagerReader', () => {
  /** client: a Secrets Manager stand-in answering GetSecretValue with `answer`. */
  const client = (answer: () => Promise<object>): SecretsManagerLike & { calls: unknown[] } => {
    const calls: unknown[] = [];
    return {
      calls,
      send: async (command) => {
        calls.push(command.input);
        return { $metadata: {}, ...(await answer()) };
      },
    };
  };
  const failure = (name: string) => async (): Promise<object> => {
    const error = new Error(`${name} happened`);
    error.name = name;
    throw error;
  };

  it('reads SecretString, or SecretBinary as UTF-8, asking for the ARN', async () => {
    const text = client(async () => ({ SecretString: 'tok' }));
    assert.equal(await secretsManagerReader(text)(ARN), 'tok');
    assert.deepEqual(text.calls, [{ SecretId: ARN }]);
    assert.equal(await secretsManagerReader(client(async () => ({ SecretBinary: new TextEncoder().encode('bin-tok') })))(ARN), 'bin-tok');
  });

  const cases = [
    { name: 'AccessDeniedException', code: ErrorCode.FORBIDDEN, message: /read secret arn:\S+: access denied/ },
    { name: 'ResourceNotFoundException', code: ErrorCode.NOT_FOUND, message: /read secret arn:\S+: no such secret/ },
    { name: 'ThrottlingException', code: ErrorCode.UNAVAILABLE, message: /read secret arn:\S+: ThrottlingException/ },
  ];
  for (const tc of cases) {
    it(`${tc.name} is ${tc.code}`, async () => {
      const error = await secretsManagerReader(client(failure(tc.name)))(ARN).catch((caught: unknown) => caught);
      assert.ok(error instanceof LineupError && error.code === tc.code, String(error));
      assert.match(error.message, tc.message);
    });
  }

  it('a secret with neither string nor binary is INVALID_INPUT', async () => {
    const error = await secretsManagerReader(client(async () => ({})))(ARN).catch((caught: unknown) => caught);
    assert.ok(error instanceof LineupError && error.code === ErrorCode.INVALID_INPUT, String(error));
  });
});
