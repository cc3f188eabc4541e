/**
 * Cluster auth: the EKS token's format and caching (injected clock and credentials, no AWS
 * call), that the endpoint really sends it per request, and the endpoint each ClusterAuth
 * builds.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent as HttpsAgent } from 'node:https';
import { join } from 'node:path';
import { Counters } from '../../lib/counters.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { EksTokenSource, endpointFor, presignEksToken, EksToken } from '../../lib/k8s/auth.ts';
import { readKubeconfig } from '../../lib/k8s/kubeconfigReader.ts';
import type { AwsCredentials } from '../../lib/k8s/auth.ts';
import { KubeClusterGateway } from '../../lib/k8s/gateway.ts';
import { KubeWatchSource } from '../../lib/k8s/watchSource.ts';
import { startLoopback, status } from './loopback.ts';
import type { LoopbackServer } from './loopback.ts';

const CREDENTIALS: AwsCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SIGNED_AT = Date.parse('2026-11-29T12:34:56Z');

/** decode: the presigned URL inside an EKS token. */
const decode = (token: string): URL => new URL(Buffer.from(token.slice(EksToken.prefix.length), 'base64url').toString('utf8'));

/** refreshAt: how long after signing a cached token is replaced. */
const REFRESH_AFTER_MS = EksToken.usableMs - EksToken.refreshMarginMs;

describe('presignEksToken', () => {
  it('is k8s-aws-v1. + unpadded base64url of a presigned STS GetCallerIdentity URL signing x-k8s-aws-id', async () => {
    // Act
    const token = await presignEksToken('prod-cluster', 'eu-west-1', CREDENTIALS, SIGNED_AT);
    // Assess
    assert.ok(token.startsWith(EksToken.prefix), token);
    const encoded = token.slice(EksToken.prefix.length);
    assert.match(encoded, /^[A-Za-z0-9_-]+$/, 'base64url alphabet, no padding');
    const url = decode(token);
    assert.equal(url.protocol, 'https:');
    assert.equal(url.host, 'sts.eu-west-1.amazonaws.com');
    assert.equal(url.pathname, '/');
    const query = url.searchParams;
    assert.equal(query.get('Action'), 'GetCallerIdentity');
    assert.equal(query.get('Version'), '2011-06-15');
    assert.equal(query.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
    assert.equal(query.get('X-Amz-Expires'), '60');
    assert.equal(query.get('X-Amz-Date'), '20261129T123456Z');
    assert.equal(query.get('X-Amz-Credential'), 'AKIDEXAMPLE/20261129/eu-west-1/sts/aws4_request');
    assert.ok((query.get('X-Amz-SignedHeaders') ?? '').split(';').includes('host'));
    assert.ok((query.get('X-Amz-SignedHeaders') ?? '').split(';').includes('x-k8s-aws-id'));
    assert.match(query.get('X-Amz-SignedHeaders') ?? '', /host;x-k8s-aws-id/);
    assert.match(query.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
    assert.equal(query.get('X-Amz-Security-Token'), null);
  });

  it('signs deterministically, carries a session token, and binds the cluster name into the signature', async () => {
    const a = await presignEksToken('prod-cluster', 'us-east-1', CREDENTIALS, SIGNED_AT);
    const again = await presignEksToken('prod-cluster', 'us-east-1', CREDENTIALS, SIGNED_AT);
    const other = await presignEksToken('other-cluster', 'us-east-1', CREDENTIALS, SIGNED_AT);
    const session = await presignEksToken('prod-cluster', 'us-east-1', { ...CREDENTIALS, sessionToken: 'FwoGZXIvYXdzEXAMPLE' }, SIGNED_AT);
    assert.equal(a, again);
    assert.notEqual(decode(a).searchParams.get('X-Amz-Signature'), decode(other).searchParams.get('X-Amz-Signature'));
    assert.equal(decode(session).searchParams.get('X-Amz-Security-Token'), 'FwoGZXIvYXdzEXAMPLE');
    assert.equal(decode(await presignEksToken('c', 'cn-north-1', CREDENTIALS, SIGNED_AT)).host, 'sts.cn-north-1.amazonaws.com.cn');
  });
});

describe('EksTokenSource', () => {
  /** setup: a source with a settable clock and a credential provider that counts its calls. */
  const setup = () => {
    const clock = { now: SIGNED_AT };
    let resolved = 0;
    const source = new EksTokenSource({
      clusterName: 'prod-cluster',
      region: 'eu-west-1',
      now: () => clock.now,
      credentials: async () => {
        resolved += 1;
        return CREDENTIALS;
      },
    });
    return { source, clock, resolved: () => resolved };
  };

  it(`reuses a token until ${REFRESH_AFTER_MS / 60_000} minutes after signing (14 min usable minus the margin), then signs a new one`, async () => {
    // Prepare
    const { source, clock, resolved } = setup();
    // Act + Assess
    const first = await source.token();
    clock.now = SIGNED_AT + REFRESH_AFTER_MS - 1;
    assert.equal(await source.token(), first, 'still within the window');
    assert.equal(resolved(), 1);
    clock.now = SIGNED_AT + REFRESH_AFTER_MS;
    const second = await source.token();
    assert.notEqual(second, first);
    assert.equal(decode(second).searchParams.get('X-Amz-Date'), '20261129T124756Z');
    assert.equal(resolved(), 2);
    clock.now += 1_000;
    assert.equal(await source.token(), second);
  });

  it('signs once for concurrent callers', async () => {
    const { source, resolved } = setup();
    const tokens = await Promise.all([source.token(), source.token(), source.token()]);
    assert.equal(new Set(tokens).size, 1);
    assert.equal(resolved(), 1);
  });
});

describe('endpointFor', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback((request) => {
      if (request.query.get('watch') === 'true') {
        // One bookmark, then the server ends the watch.
        return { status: 200, body: `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'JobSet', apiVersion: 'jobset.x-k8s.io/v1alpha2', metadata: { resourceVersion: '77' } } })}\n` };
      }
      return status(404, 'NotFound', 'not found');
    });
  });
  after(() => server.close());

  it('eks: the endpoint sends Authorization: Bearer k8s-aws-v1… on API requests and watches, re-signed when the cached token ages', async () => {
    // Prepare
    const clock = { now: SIGNED_AT };
    const endpoint = await endpointFor(
      { id: 'eks-test', endpoint: server.url, auth: { type: 'eks', clusterName: 'prod-cluster', region: 'eu-west-1' } },
      { credentials: async () => CREDENTIALS, now: () => clock.now },
    );
    const gateway = new KubeClusterGateway({ endpoint, counters: new Counters() });
    const source = new KubeWatchSource({ endpoint, counters: new Counters() });
    const expected = await presignEksToken('prod-cluster', 'eu-west-1', CREDENTIALS, SIGNED_AT);
    // Act
    const before = server.requests.length;
    assert.equal(await gateway.observe('ns', 'absent', 0), undefined);
    const events: unknown[] = [];
    assert.equal(await source.watch('JobSet', '5', (event) => void events.push(event), new AbortController().signal), 'closed');
    clock.now = SIGNED_AT + REFRESH_AFTER_MS;
    await gateway.observe('ns', 'absent', 0);
    // Assess
    const sent = server.requests.slice(before).map((request) => request.headers.authorization);
    assert.equal(sent.length, 3);
    assert.equal(sent[0], `Bearer ${expected}`);
    assert.equal(sent[1], `Bearer ${expected}`, 'the watch carries the token too');
    assert.ok(sent[2]?.startsWith(`Bearer ${EksToken.prefix}`));
    assert.notEqual(sent[2], sent[0], 're-signed after the refresh point');
    assert.deepEqual(events, [{ type: 'BOOKMARK', resourceVersion: '77' }]);
  });

  it('token: a static bearer token', async () => {
    const endpoint = await endpointFor({ id: 'static', endpoint: server.url, auth: { type: 'token', token: 's3cret' } });
    const before = server.requests.length;
    await new KubeClusterGateway({ endpoint, counters: new Counters() }).observe('ns', 'absent', 0);
    assert.equal(server.requests[before]?.headers.authorization, 'Bearer s3cret');
  });

  it('token: read from its secret through the resolver the host passes, on the first request', async () => {
    const reads: string[] = [];
    const endpoint = await endpointFor(
      { id: 'secret', endpoint: server.url, auth: { type: 'token', tokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:k8s' } },
      { resolveSecret: async (arn) => (reads.push(arn), `from-${arn.split(':').at(-1) ?? ''}`) },
    );
    assert.equal(reads.length, 0, 'not read before a request needs it');
    const before = server.requests.length;
    await new KubeClusterGateway({ endpoint, counters: new Counters() }).observe('ns', 'absent', 0);
    assert.equal(server.requests[before]?.headers.authorization, 'Bearer from-k8s');
    assert.deepEqual(reads, ['arn:aws:secretsmanager:eu-west-1:123456789012:secret:k8s']);
  });

  it('sets the CA from PEM or base64, and keeps TLS verification on for https', async () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const fromPem = await endpointFor({ id: 'a', endpoint: 'https://k8s.example.com', caData: pem, auth: { type: 'token', token: 't' } });
    const fromBase64 = await endpointFor({ id: 'b', endpoint: 'https://k8s.example.com', caData: Buffer.from(pem).toString('base64'), auth: { type: 'token', token: 't' } });
    assert.ok(fromPem.agent instanceof HttpsAgent && fromBase64.agent instanceof HttpsAgent);
    assert.equal(fromPem.agent.options.ca, pem);
    assert.equal(fromBase64.agent.options.ca, pem);
    assert.equal(fromPem.agent.options.rejectUnauthorized, true);
  });

  const refused: { name: string; endpoint: string }[] = [
    { name: 'plain http to a remote host', endpoint: 'http://k8s.example.com' },
    { name: 'an endpoint that is not a URL', endpoint: 'k8s.example.com:443' },
    { name: 'another protocol', endpoint: 'ftp://k8s.example.com' },
  ];
  for (const tc of refused) {
    it(`refuses ${tc.name} with INVALID_INPUT`, async () => {
      const error = await endpointFor({ id: 'x', endpoint: tc.endpoint, auth: { type: 'token', token: 't' } }).catch((failure: unknown) => failure);
      assert.ok(error instanceof LineupError, String(error));
      assert.equal(error.code, ErrorCode.INVALID_INPUT);
    });
  }

  it('refuses token auth that names a secret when the host has no resolver', async () => {
    const error = await endpointFor({ id: 'x', endpoint: 'https://k8s.example.com', auth: { type: 'token', tokenSecretArn: 'arn:aws:secretsmanager:x' } }).catch(
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof LineupError && error.code === ErrorCode.INVALID_INPUT, String(error));
  });

  it('kubeconfig: the file, with the named context', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'lineup-kubeconfig-'));
    try {
      const file = join(dir, 'config');
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [
            { name: 'one', cluster: { server: 'https://one.example.com' } },
            { name: 'two', cluster: { server: 'https://two.example.com' } },
          ],
          users: [{ name: 'me', user: { token: 'file-token' } }],
          contexts: [
            { name: 'first', context: { cluster: 'one', user: 'me' } },
            { name: 'second', context: { cluster: 'two', user: 'me' } },
          ],
          'current-context': 'first',
        }),
      );
      // Act
      const endpoint = await endpointFor(
        { id: 'k', endpoint: 'https://ignored.example.com', auth: { type: 'kubeconfig', path: file, context: 'second' } },
        { readKubeconfig },
      );
      const options = { headers: {} };
      await endpoint.authorize(options);
      // Assess
      assert.equal(endpoint.server.href, 'https://two.example.com/');
      assert.deepEqual(options.headers, { Authorization: 'Bearer file-token' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('kubeconfig: refused with INVALID_INPUT naming the file when the host reads no kubeconfig (a Lambda)', async () => {
    const error = await endpointFor({ id: 'k', endpoint: 'https://ignored.example.com', auth: { type: 'kubeconfig', path: '/etc/kubeconfig' } }).catch((failure: unknown) => failure);
    assert.ok(error instanceof LineupError && error.code === ErrorCode.INVALID_INPUT, String(error));
    assert.match(error.message, /cluster k: kubeconfig auth \(\/etc\/kubeconfig\) needs a host that reads kubeconfig files/);
  });
});
