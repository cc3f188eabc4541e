/**
 * The credential-stealing attack (a forwarder rewriting the registry the reconciler trusts), against real servers: dynalite holds the table, two
 * loopback HTTPS servers (certificates from openssl) stand in for API servers and record every
 * request. The attacker controls the forwarder of cluster `attacker`, which may write only under
 * `FORWARDER#attacker` (infra/permissions.ts; test/infra/isolation.test.ts checks the grants). It
 * writes registry-shaped items there naming its own id, an endpoint of its choice (the `evil`
 * server, with a CA it made) and EKS auth for another cluster (`victim-eks`), hoping the reconciler
 * sends that cluster's presigned EKS token to its endpoint. resolveClusters, the reconciler's
 * batch handler, the resync and listClusters take nothing from those items: `evil` records no
 * request, while the attacker's registered API server (`honest`) is reached as registered.
 *
 * The control: the same record written where an earlier version let the forwarder write
 * (`CLUSTER#attacker` / `REGISTRY`, now only the stack's registration and `lineup clusters add`
 * write there) does send `evil` a token, and it is the victim cluster's token — the attack this
 * test would catch.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Counters } from '../../../lib/counters.ts';
import { LineupEventDetailSchema } from '../../../lib/events/schema.ts';
import type { EventSink } from '../../../lib/forwarder/types.ts';
import { presignEksToken, type AwsCredentials } from '../../../lib/k8s/auth.ts';
import { resolveClusters } from '../../../lib/k8s/registry.ts';
import { collectingLog } from '../../../lib/log.ts';
import { resync } from '../../../lib/reconcile/resync.ts';
import { makeSqsBatchHandler } from '../../../lib/reconcile/sqsBatch.ts';
import { DynamoCheckpointStore } from '../../../lib/store/dynamoStore.ts';
import { ensureCheckpointTable } from '../../../lib/store/embedded.ts';
import { Attr, KeyPart, LIST_INDEX, TABLE_KEY, bookmarkSk, forwarderPk } from '../../../lib/store/table.ts';
import type { ClusterRecord } from '../../../lib/store/types.ts';
import { detailFor, eventBridgeEvent, reconcileDeps, sqsEvent } from '../../reconcile/fixtures.ts';
import { LOOPBACK, startDynalite, type DynaliteServer } from '../harness/index.ts';

const TABLE = 'registry-attack';
const REGION = 'eu-west-1';
const CREDENTIALS: AwsCredentials = { accessKeyId: 'AKIDLINEUPRECONCILER', secretAccessKey: 'reconciler-secret' };

/** RecordingServer: a loopback HTTPS server answering every request 404 (a Kubernetes Status), keeping what it was sent. */
interface RecordingServer {
  readonly url: string;
  readonly requests: { readonly method: string; readonly path: string; readonly authorization: string }[];
  close(): Promise<void>;
}

const startRecordingServer = async (cert: string, key: string): Promise<RecordingServer> => {
  const requests: RecordingServer['requests'][number][] = [];
  const server: Server = createServer({ cert, key }, (request, response) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '', authorization: request.headers.authorization ?? '' });
    request.resume();
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${LOOPBACK}:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** selfSigned: a certificate for 127.0.0.1 and its key, from openssl, in `dir`. */
const selfSigned = (dir: string, name: string): { cert: string; key: string } => {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${name}`, '-addext', `subjectAltName=IP:${LOOPBACK}`, '-keyout', keyFile, '-out', certFile], { stdio: 'pipe' });
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
};

/** signedAtOf: the signing time of an EKS bearer token (its presigned URL's X-Amz-Date), epoch ms. */
const signedAtOf = (token: string): number => {
  const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  const date = url.searchParams.get('X-Amz-Date') ?? '';
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
  assert.ok(match, `X-Amz-Date ${date}`);
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s);
};

describe('integration/fleet: a forwarder cannot point the reconciler at its own endpoint', () => {
  let scratch = '';
  let dynamo: DynaliteServer | undefined;
  let honest: RecordingServer | undefined;
  let evil: RecordingServer | undefined;
  let store: DynamoCheckpointStore | undefined;
  let client: DynamoDBClient | undefined;
  /** The attacker's CA: its server's self-signed certificate. */
  let evilCa = '';

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-registry-attack-'));
    const honestCert = selfSigned(scratch, 'honest');
    const evilCert = selfSigned(scratch, 'evil');
    evilCa = evilCert.cert;
    [dynamo, honest, evil] = await Promise.all([startDynalite(), startRecordingServer(honestCert.cert, honestCert.key), startRecordingServer(evilCert.cert, evilCert.key)]);
    client = new DynamoDBClient(dynamo.clientConfig);
    await ensureCheckpointTable(client, TABLE);
    store = new DynamoCheckpointStore({ client, tableName: TABLE });
    // The registry as the stack's registration wrote it: the attacker's cluster at its own API server, and the victim.
    await store.putCluster({ id: 'attacker', endpoint: honest.url, caData: honestCert.cert, auth: { type: 'eks', clusterName: 'attacker-eks', region: REGION } });
    await store.putCluster({ id: 'victim', endpoint: 'https://victim.invalid', auth: { type: 'eks', clusterName: 'victim-eks', region: REGION } });
    // What the attacker's forwarder writes, at keys its grant allows (FORWARDER#attacker, any sort key, any attributes
    // even — the grant allows BOOKMARK_ATTRIBUTES only, but the readers must not care): registry-shaped, its own id,
    // its endpoint and CA, EKS auth for the victim's cluster, listed in the `list` index as a registry entry is.
    const forged = { [Attr.id]: 'attacker', [Attr.endpoint]: evil.url, [Attr.caData]: evilCert.cert, [Attr.auth]: { type: 'eks', clusterName: 'victim-eks', region: REGION } };
    for (const sk of [KeyPart.registry, bookmarkSk('jobsets'), `${KeyPart.registry}#victim`]) {
      await DynamoDBDocumentClient.from(client).send(
        new PutCommand({
          TableName: TABLE,
          Item: { [TABLE_KEY.partitionKey]: forwarderPk('attacker'), [TABLE_KEY.sortKey]: sk, [LIST_INDEX.partitionKey]: KeyPart.listClusters, [LIST_INDEX.sortKey]: 'attacker', [Attr.resourceVersion]: '1', ...forged },
        }),
      );
    }
  });

  after(async () => {
    client?.destroy();
    await Promise.all([honest?.close(), evil?.close(), dynamo?.stop()]);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const ready = (): { store: DynamoCheckpointStore; honest: RecordingServer; evil: RecordingServer } => {
    assert.ok(store && honest && evil, 'the servers started (see the before hook)');
    return { store, honest, evil };
  };

  it('resolveClusters reaches the attacker cluster at its registered API server, and sends the forged endpoint nothing', async () => {
    const { store, honest, evil } = ready();
    const resolve = resolveClusters({ store, counters: new Counters(), auth: { credentials: async () => CREDENTIALS } });
    const gateway = await resolve('attacker');
    assert.ok(gateway, 'the attacker cluster is registered');
    const before = honest.requests.length;
    assert.equal(await gateway.observe('default', 'js', Date.now()), undefined, 'the JobSet is not there (the honest server answers 404)');
    assert.ok(honest.requests.length > before, 'the registered API server was asked');
    assert.ok(honest.requests.every((request) => request.authorization.startsWith('Bearer k8s-aws-v1.')));
    assert.deepEqual(evil.requests, []);
  });

  it("the reconciler's batch handler, the resync and listClusters take nothing from the forwarder's partition", async () => {
    const { store, honest, evil } = ready();
    const resolveCluster = resolveClusters({ store, counters: new Counters(), auth: { credentials: async () => CREDENTIALS } });
    const { deps } = reconcileDeps(store, { observe: async () => undefined, apply: async () => undefined }, Date.now, 'reconciler', { resolveCluster });
    const before = honest.requests.length;
    const response = await makeSqsBatchHandler(deps)(sqsEvent([JSON.stringify(eventBridgeEvent(detailFor('js', { cluster: 'attacker' })))]));
    assert.deepEqual(response.batchItemFailures, []);
    assert.ok(honest.requests.length > before, 'the pass read the JobSet from the registered API server');
    const synced: string[] = [];
    const sink: EventSink = {
      put: async (entries) => {
        for (const entry of entries) synced.push(LineupEventDetailSchema.parse(JSON.parse(entry.Detail)).cluster);
        return { failed: [] };
      },
    };
    const result = await resync({ store, sink, now: Date.now, counters: new Counters(), log: collectingLog().log }, { full: true });
    assert.deepEqual(result.unwatched, ['attacker', 'victim'], 'the registered clusters, once each');
    assert.deepEqual((await store.listClusters()).map((record) => [record.id, record.endpoint]), [
      ['attacker', honest.url],
      ['victim', 'https://victim.invalid'],
    ]);
    assert.deepEqual(evil.requests, []);
  });

  it("control: the same record where the registry entry lives (CLUSTER#attacker, no forwarder's to write any more) would send the victim cluster's token to the attacker", async () => {
    const { store, evil } = ready();
    const stolen: ClusterRecord = { id: 'attacker', endpoint: evil.url, caData: evilCa, auth: { type: 'eks', clusterName: 'victim-eks', region: REGION } };
    await store.putCluster(stolen); // what the old grant let the forwarder do; today only an operator's credentials can
    const gateway = await resolveClusters({ store, counters: new Counters(), auth: { credentials: async () => CREDENTIALS } })('attacker');
    assert.ok(gateway);
    await gateway.observe('default', 'js', Date.now());
    const [first] = evil.requests;
    assert.ok(first, 'the forged endpoint was sent a request');
    const token = first.authorization.replace(/^Bearer /, '');
    assert.equal(token, await presignEksToken('victim-eks', REGION, CREDENTIALS, signedAtOf(token)), "the victim cluster's EKS token");
  });
});
