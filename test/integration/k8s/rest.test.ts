/**
 * Lineup's REST client and watch stream against a real kube-apiserver, through an endpoint built
 * from the server's CA and a bearer token (lib/k8s/endpoint.ts, no client-node): the status
 * codes the error mapping branches on, each with the server's Status; one keep-alive connection
 * for sequential requests; a watch resumed from a resourceVersion delivering only what came after
 * it. (A watch from a compacted resourceVersion ending 'expired' is tested
 * through KubeWatchSource in watchSource.test.ts.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { Agent as HttpsAgent } from 'node:https';
import { ErrorCode } from '../../../lib/errors.ts';
import { kubeEndpoint } from '../../../lib/k8s/endpoint.ts';
import { toLineupError } from '../../../lib/k8s/errors.ts';
import { KubeHttpError, KubeRestClient, resourcePath } from '../../../lib/k8s/rest.ts';
import { isRetryable } from '../../../lib/k8s/retry.ts';
import { watchEvents } from '../../../lib/k8s/watchStream.ts';
import type { WatchLine } from '../../../lib/k8s/watchStream.ts';
import type { KubeServer } from '../harness/index.ts';
import { Admin, COLD_START_TIMEOUT_MS, startCluster } from './support.ts';

const NAMESPACE = 'rest';

/** configMap: a ConfigMap body (core/v1: no CRD needed, any user of the admin group may write it). */
const configMap = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NAMESPACE }, data });
const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' } as const;

/** failure: the KubeHttpError a request rejects with. */
const failure = async (pending: Promise<unknown>): Promise<KubeHttpError> => {
  const error = await pending.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof KubeHttpError, `expected a KubeHttpError, got ${String(error)}`);
  return error;
};

describe('KubeRestClient against kube-apiserver', () => {
  let server: KubeServer | undefined;
  let client: KubeRestClient;
  let connections = 0;
  const kube = (): KubeServer => {
    if (!server) throw new Error('kube-apiserver did not start (see the before hook)');
    return server;
  };
  /** endpointAs: the server's URL and CA with `token`, its new connections counted. */
  const endpointAs = (token: string) => {
    const endpoint = kubeEndpoint({ server: kube().url, ca: kube().caPem, token: async () => token });
    const agent = endpoint.agent as HttpsAgent & { createConnection: (...args: unknown[]) => Socket };
    const create = agent.createConnection.bind(agent);
    agent.createConnection = (...args: unknown[]) => {
      connections += 1;
      return create(...args);
    };
    return endpoint;
  };
  const tokenOf = (kind: 'admin' | 'lineup'): string => kube().kubeConfig(kind).getCurrentUser()?.token ?? '';

  before(
    async () => {
      server = await startCluster();
      await new Admin(server).createNamespace(NAMESPACE);
      client = new KubeRestClient(endpointAs(tokenOf('admin')));
    },
    { timeout: COLD_START_TIMEOUT_MS },
  );
  after(() => server?.stop());

  it('creates, reads, merge-patches and deletes over TLS verified against the cluster CA', async () => {
    const path = resourcePath(CONFIG_MAPS, NAMESPACE);
    await client.create(path, configMap('crud'), { fieldManager: 'lineup' });
    const patched = (await client.mergePatch(resourcePath(CONFIG_MAPS, NAMESPACE, 'crud'), { data: { b: '2' } })) as { data: Record<string, string> };
    assert.deepEqual(patched.data, { a: '1', b: '2' });
    const read = (await client.get(resourcePath(CONFIG_MAPS, NAMESPACE, 'crud'))) as { metadata: { managedFields: { manager: string }[] } };
    assert.ok(read.metadata.managedFields.some((field) => field.manager === 'lineup'));
    await client.delete(resourcePath(CONFIG_MAPS, NAMESPACE, 'crud'), { propagationPolicy: 'Background' });
    const gone = await failure(client.get(resourcePath(CONFIG_MAPS, NAMESPACE, 'crud')));
    assert.equal(gone.statusCode, 404);
  });

  it("each refusal carries its status code and the server's Status, and maps to the Lineup error callers branch on", async () => {
    // Prepare
    const path = resourcePath(CONFIG_MAPS, NAMESPACE);
    const created = (await client.create(path, configMap('codes'))) as { metadata: { resourceVersion: string } };
    await client.mergePatch(resourcePath(CONFIG_MAPS, NAMESPACE, 'codes'), { data: { a: '2' } });
    // Act
    const cases = [
      { error: await failure(client.get(resourcePath(CONFIG_MAPS, NAMESPACE, 'absent'))), code: 404, reason: 'NotFound', mapped: ErrorCode.NOT_FOUND },
      { error: await failure(client.create(path, configMap('codes'))), code: 409, reason: 'AlreadyExists', mapped: ErrorCode.ALREADY_EXISTS },
      {
        error: await failure(client.mergePatch(resourcePath(CONFIG_MAPS, NAMESPACE, 'codes'), { metadata: { resourceVersion: created.metadata.resourceVersion }, data: { a: '3' } })),
        code: 409,
        reason: 'Conflict',
        mapped: ErrorCode.STALE_RESOURCE_VERSION,
      },
      { error: await failure(client.create(path, configMap('Not_A_Name'))), code: 422, reason: 'Invalid', mapped: ErrorCode.INVALID_OBJECT },
      { error: await failure(new KubeRestClient(endpointAs('not-a-known-token')).get(path)), code: 401, reason: 'Unauthorized', mapped: ErrorCode.UNAUTHENTICATED },
      { error: await failure(new KubeRestClient(endpointAs(tokenOf('lineup'))).get(path)), code: 403, reason: 'Forbidden', mapped: ErrorCode.FORBIDDEN },
    ];
    // Assess
    for (const tc of cases) {
      assert.equal(tc.error.statusCode, tc.code, tc.error.message);
      assert.equal(tc.error.status?.reason, tc.reason, tc.error.message);
      assert.equal(tc.error.status?.code, tc.code);
      assert.ok((tc.error.status?.message ?? '') !== '', 'the server says what failed');
      assert.equal(toLineupError(tc.error, 'configmap').code, tc.mapped);
      assert.equal(isRetryable(tc.error), false, `${tc.code} is final`);
    }
    const invalid = cases[3]?.error;
    assert.ok(invalid?.status?.details?.causes?.some((cause) => cause.field === 'metadata.name'), JSON.stringify(invalid?.status));
  });

  it('sequential requests reuse one keep-alive connection', async () => {
    // Prepare: a client of its own, so its first request opens the one connection.
    const before = connections;
    const own = new KubeRestClient(endpointAs(tokenOf('admin')));
    // Act
    for (let index = 0; index < 8; index += 1) await own.get(resourcePath(CONFIG_MAPS, NAMESPACE), { limit: 1 });
    // Assess
    assert.equal(connections - before, 1);
  });

  it('a watch from a resourceVersion delivers only what came after it, and ends when the server ends it', async () => {
    // Prepare: one object before the resourceVersion the watch starts from, two after.
    const path = resourcePath(CONFIG_MAPS, NAMESPACE);
    const first = (await client.create(path, configMap('w-before'))) as { metadata: { resourceVersion: string } };
    await client.create(path, configMap('w-after-1'));
    await client.create(path, configMap('w-after-2'));
    // Act: the server ends the watch after 2 s.
    const response = await client.stream({
      method: 'GET',
      path,
      query: { watch: true, resourceVersion: first.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 2 },
    });
    const lines: WatchLine[] = [];
    for await (const line of watchEvents(response)) lines.push(line);
    // Assess
    const names = lines.filter((line) => line.type === 'ADDED').map((line) => (line.object as { metadata: { name: string } }).metadata.name);
    assert.deepEqual(
      names.filter((name) => name.startsWith('w-')),
      ['w-after-1', 'w-after-2'],
    );
    assert.ok(lines.every((line) => ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'].includes(line.type)), JSON.stringify(lines.map((line) => line.type)));
  });

  it('a refused watch rejects with KubeHttpError before any event', async () => {
    const error = await failure(new KubeRestClient(endpointAs(tokenOf('lineup'))).stream({ method: 'GET', path: resourcePath(CONFIG_MAPS, NAMESPACE), query: { watch: true, resourceVersion: '0' } }));
    assert.equal(error.statusCode, 403);
  });
});
