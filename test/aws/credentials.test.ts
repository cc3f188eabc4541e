/**
 * Which credentials the in-cluster forwarder signs with, chosen from its environment as the SDK's
 * default chain would, and how temporary ones are kept and refreshed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialSource, REFRESH_BEFORE_EXPIRY_MS, credentialSource, credentialsFrom, memoized, requireCredentials, type AwsCredentials, type CredentialsProvider } from '../../lib/aws/credentials.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';

describe('aws/credentials', () => {
  it('selects keys, then container credentials (EKS Pod Identity, ECS), then a web identity token (IRSA), else the SDK chain', () => {
    assert.equal(credentialSource({ AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b', AWS_WEB_IDENTITY_TOKEN_FILE: '/t', AWS_ROLE_ARN: 'r' }), CredentialSource.environment);
    assert.equal(credentialSource({ AWS_ACCESS_KEY_ID: 'a', AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://169.254.170.23/v1/credentials' }), CredentialSource.container);
    assert.equal(credentialSource({ AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/x', AWS_WEB_IDENTITY_TOKEN_FILE: '/t', AWS_ROLE_ARN: 'r' }), CredentialSource.container);
    assert.equal(credentialSource({ AWS_WEB_IDENTITY_TOKEN_FILE: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token', AWS_ROLE_ARN: 'arn:aws:iam::1:role/x' }), CredentialSource.webIdentity);
    assert.equal(credentialSource({ AWS_WEB_IDENTITY_TOKEN_FILE: '/t' }), CredentialSource.defaultChain);
    assert.equal(credentialSource({}), CredentialSource.defaultChain);
  });

  it('signs with the environment’s keys and session token as given', async () => {
    assert.deepEqual(await credentialsFrom({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' })(), { accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  it('EKS Pod Identity: fetches the container credentials from the agent’s URI, authorized by the token file, once until they near expiry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lineup-credentials-'));
    const authorizations: (string | undefined)[] = [];
    const agent = createServer((request, response) => {
      authorizations.push(request.headers.authorization);
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ AccessKeyId: 'ASIAPOD', SecretAccessKey: 'pod-secret', Token: 'pod-token', Expiration: new Date(Date.now() + 3_600_000).toISOString() }),
      );
    });
    try {
      await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
      writeFileSync(join(dir, 'token'), 'service-account-token');
      const provider = credentialsFrom({
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${(agent.address() as AddressInfo).port}/v1/credentials`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: join(dir, 'token'),
      });
      const first = await provider();
      assert.equal(first.accessKeyId, 'ASIAPOD');
      assert.equal(first.secretAccessKey, 'pod-secret');
      assert.equal(first.sessionToken, 'pod-token');
      assert.ok(first.expiration instanceof Date);
      assert.equal((await provider()).accessKeyId, 'ASIAPOD');
      assert.deepEqual(authorizations, ['service-account-token']);
    } finally {
      await new Promise((resolve) => agent.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a web identity token file that is not there is an UnauthenticatedError naming the source, and the next call tries again', async () => {
    const provider = credentialsFrom({ AWS_WEB_IDENTITY_TOKEN_FILE: '/nonexistent/lineup-token', AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/lineup', AWS_REGION: 'us-east-1' });
    for (let call = 0; call < 2; call += 1) {
      await assert.rejects(provider(), (error: unknown) => {
        assert.ok(error instanceof LineupError, String(error));
        assert.equal(error.code, ErrorCode.UNAUTHENTICATED);
        assert.match(error.message, /^no aws credentials from the web-identity source: .*lineup-token/);
        return true;
      });
    }
  });

  it('requireCredentials: passes when the source gives credentials, else one line naming the source, the reason and the fix', async () => {
    await requireCredentials(credentialsFrom({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' }), CredentialSource.environment);
    const refused = createServer((_request, response) => response.writeHead(500).end('agent not ready'));
    try {
      await new Promise<void>((resolve) => refused.listen(0, '127.0.0.1', resolve));
      const env = { AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${(refused.address() as AddressInfo).port}/v1/credentials` };
      const webIdentity = { AWS_WEB_IDENTITY_TOKEN_FILE: '/nonexistent/lineup-token', AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/lineup', AWS_REGION: 'us-east-1' };
      const cases: { provider: CredentialsProvider; source: CredentialSource; line: RegExp }[] = [
        { provider: credentialsFrom(env), source: credentialSource(env), line: /^no AWS credentials \(container source: [^\n]+\): check the pod's EKS Pod Identity association and that the agent runs on its node$/ },
        { provider: credentialsFrom(webIdentity), source: credentialSource(webIdentity), line: /^no AWS credentials \(web-identity source: [^\n]*lineup-token[^\n]*\): check that AWS_ROLE_ARN's role trusts the cluster's OIDC provider/ },
        {
          provider: () => Promise.reject(new Error('Could not load credentials\nfrom any providers')),
          source: credentialSource({}),
          line: /^no AWS credentials \(default-chain source: Could not load credentials from any providers\): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run with an EKS Pod Identity or IRSA role$/,
        },
      ];
      for (const tc of cases) {
        await assert.rejects(requireCredentials(tc.provider, tc.source), (error: unknown) => {
          assert.ok(error instanceof LineupError, String(error));
          assert.equal(error.code, ErrorCode.UNAUTHENTICATED);
          assert.match(error.message, tc.line);
          return true;
        });
      }
    } finally {
      await new Promise((resolve) => refused.close(resolve));
    }
  });

  it('memoized: one fetch for concurrent callers, kept until 5 minutes before expiry, then fetched again; a failure is not kept', async () => {
    let clock = 0;
    let fetches = 0;
    let fail = false;
    const provider = memoized(async (): Promise<AwsCredentials> => {
      fetches += 1;
      if (fail) throw new Error('sts unavailable');
      return { accessKeyId: `key-${fetches}`, secretAccessKey: 's', expiration: new Date(clock + 3_600_000) };
    }, () => clock);
    const [first, second] = await Promise.all([provider(), provider()]);
    assert.equal(first.accessKeyId, 'key-1');
    assert.equal(second.accessKeyId, 'key-1');
    clock = 3_600_000 - REFRESH_BEFORE_EXPIRY_MS - 1;
    assert.equal((await provider()).accessKeyId, 'key-1');
    clock += 2;
    assert.equal((await provider()).accessKeyId, 'key-2');
    clock += 3_600_000;
    fail = true;
    await assert.rejects(provider(), /sts unavailable/);
    fail = false;
    assert.equal((await provider()).accessKeyId, 'key-4');
    assert.equal(fetches, 4);
  });
});
