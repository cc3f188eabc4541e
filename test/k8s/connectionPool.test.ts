/**
 * PooledKubeConfig: a cluster's requests share connections (client-node alone opens one per
 * request), while every request still carries its own, current credentials.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { EksToken } from '../../lib/constants.ts';
import { Counters } from '../../lib/counters.ts';
import { kubeConfigFor } from '../../lib/k8s/auth.ts';
import type { AwsCredentials } from '../../lib/k8s/auth.ts';
import { PooledKubeConfig } from '../../lib/k8s/connectionPool.ts';
import { KubeClusterGateway } from '../../lib/k8s/gateway.ts';
import { KubeWatchSource } from '../../lib/k8s/watchSource.ts';
import { startLoopback, status } from './loopback.ts';
import type { LoopbackServer } from './loopback.ts';

const CREDENTIALS: AwsCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SIGNED_AT = Date.parse('2026-12-01T12:00:00Z');
const REQUESTS = 6;

/** observeTimes: `count` sequential observe calls of a JobSet the server does not have. */
const observeTimes = async (gateway: KubeClusterGateway, count: number): Promise<void> => {
  for (let index = 0; index < count; index += 1) assert.equal(await gateway.observe('ns', 'absent', 0), undefined);
};

describe('PooledKubeConfig', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback((request) => {
      if (request.query.get('watch') === 'true') {
        return { status: 200, body: `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'JobSet', apiVersion: 'jobset.x-k8s.io/v1alpha2', metadata: { resourceVersion: '9' } } })}\n` };
      }
      return status(404, 'NotFound', 'not found');
    });
  });
  after(() => server.close());

  it('a token cluster: sequential requests and a watch reuse one connection (a plain KubeConfig opens one per request)', async () => {
    // Prepare
    const record = { id: 'pooled', endpoint: server.url, auth: { type: 'token', token: 's3cret' } } as const;
    const pooled = await kubeConfigFor(record);
    const plain = new KubeConfig();
    plain.loadFromClusterAndUser({ name: 'plain', server: server.url, skipTLSVerify: true }, { name: 'plain', token: 's3cret' });
    // Act
    const beforePooled = server.connections();
    await observeTimes(new KubeClusterGateway({ kubeConfig: pooled, counters: new Counters() }), REQUESTS);
    assert.equal(await new KubeWatchSource({ kubeConfig: pooled, counters: new Counters() }).watch('JobSet', '5', () => undefined, new AbortController().signal), 'closed');
    await observeTimes(new KubeClusterGateway({ kubeConfig: pooled, counters: new Counters() }), REQUESTS);
    const pooledConnections = server.connections() - beforePooled;
    const beforePlain = server.connections();
    await observeTimes(new KubeClusterGateway({ kubeConfig: plain, counters: new Counters() }), REQUESTS);
    const plainConnections = server.connections() - beforePlain;
    // Assess
    assert.ok(pooled instanceof PooledKubeConfig);
    assert.equal(pooled.poolCount, 1);
    // One connection, or two when the next request is sent before undici has put the previous
    // one's connection back in the pool (seen after a pool's first response).
    assert.ok(pooledConnections <= 2, `${2 * REQUESTS} requests and a watch, one after another, opened ${pooledConnections} connections, expected at most 2`);
    assert.equal(plainConnections, REQUESTS, "client-node's own KubeConfig: a connection per request (what the pool avoids)");
  });

  it('an eks cluster: the pooled connection still carries a re-signed token once the cached one ages', async () => {
    // Prepare
    const clock = { now: SIGNED_AT };
    const kubeConfig = await kubeConfigFor(
      { id: 'eks-pooled', endpoint: server.url, auth: { type: 'eks', clusterName: 'prod', region: 'eu-west-1' } },
      { credentials: async () => CREDENTIALS, now: () => clock.now },
    );
    const gateway = new KubeClusterGateway({ kubeConfig, counters: new Counters() });
    const before = { requests: server.requests.length, connections: server.connections() };
    // Act
    await observeTimes(gateway, 3);
    clock.now = SIGNED_AT + EksToken.usableMs - EksToken.refreshMarginMs;
    await observeTimes(gateway, 1);
    // Assess
    const sent = server.requests.slice(before.requests).map((request) => request.headers.authorization);
    assert.ok(server.connections() - before.connections <= 2, `4 requests opened ${server.connections() - before.connections} connections, expected at most 2`);
    assert.equal(sent.length, 4);
    assert.ok(sent.every((header) => header?.startsWith(`Bearer ${EksToken.prefix}`)));
    assert.equal(sent[1], sent[0], 'the cached token while it is fresh');
    assert.equal(sent[2], sent[0]);
    assert.notEqual(sent[3], sent[0], 're-signed after the refresh point, on a pooled connection');
  });

  it('does not pool a user whose credentials come from an exec plugin (it may hand out a client certificate that changes)', async () => {
    // Prepare: an exec plugin that prints a token, as `aws eks get-token` does.
    const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } };
    const kubeConfig = new PooledKubeConfig();
    kubeConfig.loadFromClusterAndUser(
      { name: 'exec', server: server.url, skipTLSVerify: true },
      { name: 'exec', exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})`] } },
    );
    const before = { requests: server.requests.length, connections: server.connections() };
    // Act
    await observeTimes(new KubeClusterGateway({ kubeConfig, counters: new Counters() }), 3);
    // Assess
    assert.equal(kubeConfig.poolCount, 0);
    assert.equal(server.connections() - before.connections, 3, "client-node's connection per request, as without the pool");
    assert.deepEqual(
      server.requests.slice(before.requests).map((request) => request.headers.authorization),
      ['Bearer from-exec', 'Bearer from-exec', 'Bearer from-exec'],
    );
  });
});
