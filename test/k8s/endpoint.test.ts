/**
 * KubeEndpoint's keep-alive pool: a cluster's requests and watches share open connections, and a
 * pooled connection still carries each request's own credentials (an EKS token re-signed).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counters } from '../../lib/counters.ts';
import { endpointFor, EksToken } from '../../lib/k8s/auth.ts';
import type { AwsCredentials } from '../../lib/k8s/auth.ts';
import { kubeEndpoint } from '../../lib/k8s/endpoint.ts';
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

describe('KubeEndpoint', () => {
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

  it('a token cluster: sequential requests and a watch reuse one connection', async () => {
    // Prepare
    const endpoint = await endpointFor({ id: 'pooled', endpoint: server.url, auth: { type: 'token', token: 's3cret' } });
    // Act
    const before = { requests: server.requests.length, connections: server.connections() };
    await observeTimes(new KubeClusterGateway({ endpoint, counters: new Counters() }), REQUESTS);
    assert.equal(await new KubeWatchSource({ endpoint, counters: new Counters() }).watch('JobSet', '5', () => undefined, new AbortController().signal), 'closed');
    await observeTimes(new KubeClusterGateway({ endpoint, counters: new Counters() }), REQUESTS);
    // Assess
    assert.equal(server.requests.length - before.requests, 2 * REQUESTS + 1);
    assert.equal(server.connections() - before.connections, 1, `${2 * REQUESTS} requests and a watch, one after another, expected one connection`);
    assert.ok(server.requests.slice(before.requests).every((request) => request.headers.authorization === 'Bearer s3cret'));
  });

  it('endpoints of two clusters do not share a pool', async () => {
    const first = kubeEndpoint({ server: server.url });
    const second = kubeEndpoint({ server: server.url });
    const before = server.connections();
    await observeTimes(new KubeClusterGateway({ endpoint: first, counters: new Counters() }), 2);
    await observeTimes(new KubeClusterGateway({ endpoint: second, counters: new Counters() }), 2);
    assert.notEqual(first.agent, second.agent);
    assert.equal(server.connections() - before, 2);
  });

  it('an eks cluster: the pooled connection still carries a re-signed token once the cached one ages', async () => {
    // Prepare
    const clock = { now: SIGNED_AT };
    const endpoint = await endpointFor(
      { id: 'eks-pooled', endpoint: server.url, auth: { type: 'eks', clusterName: 'prod', region: 'eu-west-1' } },
      { credentials: async () => CREDENTIALS, now: () => clock.now },
    );
    const gateway = new KubeClusterGateway({ endpoint, counters: new Counters() });
    const before = { requests: server.requests.length, connections: server.connections() };
    // Act
    await observeTimes(gateway, 3);
    clock.now = SIGNED_AT + EksToken.usableMs - EksToken.refreshMarginMs;
    await observeTimes(gateway, 1);
    // Assess
    const sent = server.requests.slice(before.requests).map((request) => request.headers.authorization);
    assert.ok(server.connections() - before.connections === 1, `4 requests opened ${server.connections() - before.connections} connections, expected 1`);
    assert.equal(sent.length, 4);
    assert.ok(sent.every((header) => header?.startsWith(`Bearer ${EksToken.prefix}`)));
    assert.equal(sent[1], sent[0], 'the cached token while it is fresh');
    assert.equal(sent[2], sent[0]);
    assert.notEqual(sent[3], sent[0], 're-signed after the refresh point, on a pooled connection');
  });
});
