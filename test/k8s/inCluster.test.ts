/**
 * The pod's own cluster: the API server from KUBERNETES_SERVICE_HOST/PORT, the service account's
 * CA, and its token read again once TOKEN_REREAD_MS has passed (the kubelet rotates it).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { inClusterEndpoint, TOKEN_REREAD_MS } from '../../lib/k8s/inCluster.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('inClusterEndpoint', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lineup-serviceaccount-'));
    writeFileSync(join(dir, 'ca.crt'), PEM);
    writeFileSync(join(dir, 'token'), 'one\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const headerAt = async (endpoint: ReturnType<typeof inClusterEndpoint>): Promise<unknown> => {
    const options = { headers: {} as Record<string, string> };
    await endpoint.authorize(options);
    return options.headers['authorization'];
  };

  it('names the service host (IPv6 in brackets), trusts the CA, and re-reads the token once it is a minute old', async () => {
    const clock = { now: 0 };
    const endpoint = inClusterEndpoint({ env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir, now: () => clock.now });
    assert.equal(endpoint.server.href, 'https://[fd00::1]/');
    assert.equal((endpoint.agent as HttpsAgent).options.ca, PEM);
    assert.equal(await headerAt(endpoint), 'Bearer one');
    writeFileSync(join(dir, 'token'), 'two\n');
    clock.now = TOKEN_REREAD_MS - 1;
    assert.equal(await headerAt(endpoint), 'Bearer one', 'cached within the minute');
    clock.now = TOKEN_REREAD_MS;
    assert.equal(await headerAt(endpoint), 'Bearer two');
  });

  it('outside a pod: INVALID_INPUT saying so', () => {
    assert.throws(
      () => inClusterEndpoint({ env: {}, dir }),
      (error: unknown) => error instanceof LineupError && error.code === ErrorCode.INVALID_INPUT && error.message.includes('KUBERNETES_SERVICE_HOST is not set'),
    );
  });
});
