/**
 * `lineup forward` as the Deployment runs it — the bundle of infra/k8s/forwarderBundle.ts in its
 * own process, with `node --lite-mode` — against kube-apiserver, moto's EventBridge and dynalite:
 * the path the pod takes to AWS, signed requests without the SDK's clients (lib/aws). A Lineup
 * JobSet's event reaches the queue the reconciler's rule targets, and on SIGTERM the process
 * exits 0 with its bookmarks in the table, where DynamoCheckpointStore (the SDK's client) reads them.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildForwarderBundle } from '../../../infra/k8s/forwarderBundle.ts';
import { FORWARDER_NODE_ARGS, FORWARDER_NODE_OPTIONS } from '../../../infra/k8s/names.ts';
import { DEFAULT_CONTROLLER_NAME } from '../../../lib/jobset/managedBy.ts';
import { JOBSET_API_VERSION } from '../../../lib/jobset/api.ts';
import { reconcilerRulePattern } from '../../../lib/events/pattern.ts';
import { DynamoCheckpointStore } from '../../../lib/store/dynamoStore.ts';
import { ensureCheckpointTable } from '../../../lib/store/embedded.ts';
import { forwarderProcessEnv, startDynalite, startKubeApiServer, startMoto, type DynaliteServer, type KubeServer, type MotoServer } from '../harness/index.ts';

const CLUSTER = 'it-forward';
const BUS = 'lineup-forward-test';
const TABLE = 'lineup-forward-test';
const NS = 'default';

/** createJobSet: a Lineup JobSet, posted as the admin. */
const createJobSet = (kube: KubeServer, name: string): Promise<number> => {
  const body = JSON.stringify({
    apiVersion: JOBSET_API_VERSION,
    kind: 'JobSet',
    metadata: { name, namespace: NS },
    spec: { managedBy: DEFAULT_CONTROLLER_NAME, replicatedJobs: [{ name: 'workers', replicas: 1, template: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } } } }] },
  });
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      `${kube.url}/apis/jobset.x-k8s.io/v1alpha2/namespaces/${NS}/jobsets`,
      { method: 'POST', ca: kube.caPem, headers: { authorization: `Bearer ${kube.adminToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
};

describe('lineup forward, the deployed bundle (kube-apiserver, moto, dynalite)', () => {
  let kube: KubeServer;
  let moto: MotoServer;
  let dynamo: DynaliteServer;
  let sqs: SQSClient;
  let queueUrl = '';
  let dir = '';
  let child: ChildProcess | undefined;
  let stderr = '';

  before(async () => {
    [kube, moto, dynamo] = await Promise.all([startKubeApiServer(), startMoto(), startDynalite()]);
    dir = mkdtempSync(join(tmpdir(), 'lineup-forward-process-'));
    const events = new EventBridgeClient(moto.clientConfig);
    sqs = new SQSClient(moto.clientConfig);
    await events.send(new CreateEventBusCommand({ Name: BUS }));
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'lineup-forward-events' }))).QueueUrl ?? '';
    const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    await events.send(new PutRuleCommand({ Name: 'reconciler', EventBusName: BUS, EventPattern: JSON.stringify(reconcilerRulePattern()) }));
    await events.send(new PutTargetsCommand({ Rule: 'reconciler', EventBusName: BUS, Targets: [{ Id: 'queue', Arn: attributes.Attributes?.QueueArn }] }));
    events.destroy();
    await ensureCheckpointTable(new DynamoDBClient(dynamo.clientConfig), TABLE);
  });
  after(async () => {
    child?.kill('SIGKILL');
    sqs?.destroy();
    await Promise.all([kube?.stop(), moto?.stop(), dynamo?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('forwards a Lineup JobSet’s event to the rule’s queue and, on SIGTERM, exits 0 with its bookmarks in the table', async () => {
    const bundle = await buildForwarderBundle(join(dir, 'lineup-forward.mjs'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kube.kubeConfig('admin').exportConfig(), { mode: 0o600 });
    const running = spawn(process.execPath, [...FORWARDER_NODE_ARGS, bundle.path, '--kubeconfig', kubeconfig], {
      env: forwarderProcessEnv({ cluster: CLUSTER, table: TABLE, bus: BUS, moto, dynamo, nodeOptions: FORWARDER_NODE_OPTIONS }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = running;
    running.stderr?.setEncoding('utf8');
    running.stderr?.on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => running.on('exit', (code) => resolve(code)));

    assert.equal(await createJobSet(kube, 'trainer'), 201);
    type Delivered = { source?: string; 'detail-type'?: string; detail?: { cluster?: string; namespace?: string; jobSet?: string } };
    const seen: Delivered[] = [];
    const ofTrainer = (delivered: Delivered): boolean => delivered.detail?.jobSet === 'trainer';
    const deadline = Date.now() + 60_000;
    while (!seen.some(ofTrainer)) {
      assert.ok(Date.now() < deadline, `no event of JobSet trainer on the queue within 60 s; saw ${JSON.stringify(seen)}; the forwarder said: ${stderr.slice(-2_000)}`);
      assert.equal(running.exitCode, null, `lineup forward exited ${String(running.exitCode)}: ${stderr.slice(-2_000)}`);
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      seen.push(...(out.Messages ?? []).map((message) => JSON.parse(message.Body ?? '{}') as Delivered));
    }
    const event = seen.find(ofTrainer);
    assert.equal(event?.source, `lineup.${CLUSTER}`);
    assert.deepEqual([event.detail?.cluster, event.detail?.namespace], [CLUSTER, NS]);

    running.kill('SIGTERM');
    assert.equal(await exited, 0, stderr.slice(-2_000));
    const store = new DynamoCheckpointStore({ client: new DynamoDBClient(dynamo.clientConfig), tableName: TABLE });
    const bookmarks = await store.listBookmarks(CLUSTER);
    assert.deepEqual(bookmarks.map((bookmark) => bookmark.resource), ['jobs', 'jobsets']);
    assert.ok(bookmarks.every((bookmark) => /^\d+$/.test(bookmark.resourceVersion)), JSON.stringify(bookmarks));
  });
});
