/**
 * Smoke tests of the real-server harness: each server starts, and the behaviours Lineup's
 * adapter tests rely on hold. A server that cannot start fails its suite (the `before` hook
 * throws with the server's log tail); nothing here is ever skipped.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiException, BatchV1Api, CoreV1Api, CustomObjectsApi, Watch, type V1Job } from '@kubernetes/client-node';
import {
  CreateEventBusCommand,
  EventBridgeClient,
  ListEventBusesCommand,
  PutEventsCommand,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, GetQueueAttributesCommand, ListQueuesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ConditionalCheckFailedException, CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'yaml';
import { examplePath } from '../repoFiles.ts';
import {
  LINEUP_USER,
  pinnedVersions,
  startDynalite,
  startKubeApiServer,
  startMoto,
  type DynaliteServer,
  type KubeServer,
  type MotoServer,
} from './harness/index.ts';
import { isObject } from '../../lib/json.ts';

/** COLD_START_TIMEOUT_MS: a first run builds kube-apiserver (minutes) or creates the moto venv. */
const COLD_START_TIMEOUT_MS = 30 * 60_000;

/** at: the value at a path of keys and indexes, or undefined. */
const at = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((current, key) => {
    if (typeof key === 'number') return Array.isArray(current) ? current[key] : undefined;
    return isObject(current) ? current[key] : undefined;
  }, value);

/**
 * containmentMismatches: where `actual` lacks something `expected` has. Objects may carry extra
 * keys (server defaults); arrays must match element by element.
 */
const containmentMismatches = (actual: unknown, expected: unknown, path = '$'): string[] => {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${path}: expected an array of ${expected.length}, got ${JSON.stringify(actual)}`];
    return expected.flatMap((item, index) => containmentMismatches(actual[index], item, `${path}[${index}]`));
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([key, value]) => containmentMismatches(actual[key], value, `${path}.${key}`));
  }
  return Object.is(actual, expected) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
};

/** rejectsWithStatus: asserts that `promise` fails with a Kubernetes API error of `code`, returning its body. */
const rejectsWithStatus = async (promise: Promise<unknown>, code: number): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiException, `expected an ApiException, got ${String(error)}`);
    const body = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
    assert.equal(error.code, code, `expected HTTP ${code}, got ${error.code}: ${body}`);
    return body;
  }
  assert.fail(`expected HTTP ${code}, but the request succeeded`);
};

/** jobNamed: a minimal batch/v1 Job (nothing runs it: no controller manager, no kubelet). */
const jobNamed = (name: string, namespace: string): V1Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace },
  spec: {
    completions: 1,
    parallelism: 1,
    backoffLimit: 0,
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'bash:latest', command: ['true'] }] } },
  },
});

describe('harness: kube-apiserver + etcd', () => {
  const namespace = 'harness-smoke';
  let server: KubeServer | undefined;
  const kube = (): KubeServer => {
    if (server === undefined) throw new Error('kube-apiserver did not start (see the before hook)');
    return server;
  };

  before(
    async () => {
      server = await startKubeApiServer();
      await kube().kubeConfig('admin').makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    },
    { timeout: COLD_START_TIMEOUT_MS },
  );
  after(() => server?.stop());

  it('serves the pinned version over TLS verified against its own CA', async (t) => {
    // Act
    const response = await kube().request('GET', '/version');
    // Assess
    assert.equal(response.status, 200);
    const gitVersion = at(JSON.parse(response.body), 'gitVersion');
    // Whatever supplied the binaries (build.sh or KUBEBUILDER_ASSETS), the tier runs the pinned version.
    const pinned = pinnedVersions().kube;
    assert.equal(gitVersion, pinned, `kube-apiserver from ${kube().binaries.from} reports ${String(gitVersion)}, expected ${pinned} (KUBE_VERSION in test/integration/k8s-build/versions.env)`);
    t.diagnostic(`kube-apiserver ${String(gitVersion)} from ${kube().binaries.from}: start to ready ${kube().startToReadyMs} ms`);
  });

  it('keeps every field of a JobSet created from the story 1 example (the CRD prunes nothing it should keep)', async () => {
    // Prepare
    const example: unknown = parse(readFileSync(examplePath('story1-driver-ready-worker-start.yaml'), 'utf8'));
    assert.ok(isObject(example));
    const objects = kube().kubeConfig('admin').makeApiClient(CustomObjectsApi);
    const ref = { group: 'jobset.x-k8s.io', version: 'v1alpha2', namespace, plural: 'jobsets' };
    // Act
    await objects.createNamespacedCustomObject({ ...ref, body: example });
    const stored: unknown = await objects.getNamespacedCustomObject({ ...ref, name: String(at(example, 'metadata', 'name')) });
    // Assess
    assert.deepEqual(containmentMismatches(at(stored, 'spec', 'replicatedJobs', 1), at(example, 'spec', 'replicatedJobs', 1)), []);
    assert.deepEqual(containmentMismatches(at(stored, 'spec'), at(example, 'spec')), []);
    assert.equal(at(stored, 'spec', 'replicatedJobs', 1, 'template', 'spec', 'parallelism'), 2);
    assert.deepEqual(at(stored, 'spec', 'replicatedJobs', 1, 'template', 'spec', 'template', 'spec', 'containers', 0, 'command'), [
      'bash',
      '-xc',
      'sleep 10',
    ]);
  });

  it('server-side-applies YAML into a namespace, and a second identical apply changes nothing', async () => {
    // Prepare
    const yaml = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: applied}', 'data: {policy: InOrder}', ''].join('\n');
    // Act
    const [first] = await kube().applyYaml(yaml, { namespace });
    const [second] = await kube().applyYaml(yaml, { namespace });
    // Assess
    assert.equal(at(first, 'metadata', 'namespace'), namespace);
    assert.deepEqual(at(first, 'data'), { policy: 'InOrder' });
    assert.equal(at(second, 'metadata', 'resourceVersion'), at(first, 'metadata', 'resourceVersion'));
  });

  it('rejects a Complete Job status without completionTime and accepts one with startTime, completionTime, SuccessCriteriaMet and Complete', async () => {
    // Prepare
    const batch = kube().kubeConfig('admin').makeApiClient(BatchV1Api);
    const created = await batch.createNamespacedJob({ namespace, body: jobNamed('status-rules', namespace) });
    const now = new Date();
    const successCriteriaMet = { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', lastTransitionTime: now };
    const complete = { type: 'Complete', status: 'True', reason: 'CompletionsReached', lastTransitionTime: now };
    const name = 'status-rules';
    // Act + Assess: status fixtures (the API server's own rules for a Job status, no controller): without completionTime
    const body = await rejectsWithStatus(
      batch.replaceNamespacedJobStatus({
        name,
        namespace,
        body: { ...created, status: { startTime: now, succeeded: 1, conditions: [successCriteriaMet, complete] } },
      }),
      422,
    );
    assert.match(body, /completionTime/);
    // Act + Assess: the way upstream's integration tests complete a Job
    const updated = await batch.replaceNamespacedJobStatus({
      name,
      namespace,
      body: { ...created, status: { startTime: now, completionTime: now, succeeded: 1, conditions: [successCriteriaMet, complete] } },
    });
    assert.ok(updated.status?.completionTime instanceof Date);
    assert.deepEqual(
      updated.status?.conditions?.map((condition) => [condition.type, condition.status]),
      [
        ['SuccessCriteriaMet', 'True'],
        ['Complete', 'True'],
      ],
    );
  });

  it(`forbids the ${LINEUP_USER} user, bound to no role yet, to list Jobs`, async () => {
    // Act
    const body = await rejectsWithStatus(kube().kubeConfig('lineup').makeApiClient(BatchV1Api).listNamespacedJob({ namespace }), 403);
    // Assess: authenticated (403, not 401) as the lineup user, and refused by RBAC
    assert.match(body, new RegExp(`User \\\\?"${LINEUP_USER}\\\\?" cannot list resource \\\\?"jobs\\\\?"`));
  });

  it('delivers ADDED to a watch on Jobs started from a resourceVersion, and nothing from before it', async () => {
    // Prepare
    const config = kube().kubeConfig('admin');
    const batch = config.makeApiClient(BatchV1Api);
    const resourceVersion = (await batch.listNamespacedJob({ namespace })).metadata?.resourceVersion;
    assert.ok(resourceVersion !== undefined);
    const seen: string[] = [];
    let resolveAdded: (name: string) => void = () => undefined;
    let rejectAdded: (error: Error) => void = () => undefined;
    const added = new Promise<string>((resolve, reject) => {
      resolveAdded = resolve;
      rejectAdded = reject;
    });
    const watch = await new Watch(config).watch(
      `/apis/batch/v1/namespaces/${namespace}/jobs`,
      { resourceVersion, allowWatchBookmarks: true },
      (phase: string, object: unknown) => {
        const name = String(at(object, 'metadata', 'name'));
        seen.push(`${phase} ${name}`);
        if (phase === 'ADDED' && name === 'watched') resolveAdded(name);
      },
      (error: unknown) => rejectAdded(new Error(`watch ended before ADDED: ${String(error)}`)),
    );
    const timer = new AbortController();
    try {
      // Act
      await batch.createNamespacedJob({ namespace, body: jobNamed('watched', namespace) });
      // Assess
      const timeout = sleep(10_000, undefined, { signal: timer.signal }).then(() => {
        throw new Error(`no ADDED event within 10 s; saw ${JSON.stringify(seen)}`);
      });
      assert.equal(await Promise.race([added, timeout]), 'watched');
      assert.deepEqual(
        seen.filter((event) => !event.startsWith('BOOKMARK')),
        ['ADDED watched'],
      );
    } finally {
      timer.abort();
      watch.abort();
    }
  });
});

describe('harness: moto (EventBridge → SQS)', () => {
  let server: MotoServer | undefined;
  const moto = (): MotoServer => {
    if (server === undefined) throw new Error('moto did not start (see the before hook)');
    return server;
  };

  before(async () => {
    server = await startMoto();
  }, { timeout: COLD_START_TIMEOUT_MS });
  after(() => server?.stop());

  it('delivers an event put on a custom bus to the SQS queue its rule targets, and only matching events', async () => {
    // Prepare
    const events = new EventBridgeClient(moto().clientConfig);
    const sqs = new SQSClient(moto().clientConfig);
    try {
      const { QueueUrl: queueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'lineup-reconcile' }));
      assert.ok(queueUrl !== undefined);
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
      const queueArn = Attributes?.QueueArn;
      assert.ok(queueArn !== undefined);
      const bus = 'lineup-test';
      await events.send(new CreateEventBusCommand({ Name: bus }));
      await events.send(
        new PutRuleCommand({
          Name: 'jobset-changed',
          EventBusName: bus,
          EventPattern: JSON.stringify({ source: [{ prefix: 'lineup.' }], 'detail-type': ['JobSet Changed'] }),
        }),
      );
      await events.send(new PutTargetsCommand({ Rule: 'jobset-changed', EventBusName: bus, Targets: [{ Id: 'reconcile-queue', Arn: queueArn }] }));
      const detail = { cluster: 'cluster-a', namespace: 'default', jobSet: 'driver-ready-worker-start' };
      // Act
      const put = await events.send(
        new PutEventsCommand({
          Entries: [
            { EventBusName: bus, Source: 'lineup.cluster-a', DetailType: 'JobSet Changed', Detail: JSON.stringify(detail) },
            { EventBusName: bus, Source: 'lineup.cluster-a', DetailType: 'Job Changed', Detail: JSON.stringify({ cluster: 'cluster-a' }) },
            { EventBusName: bus, Source: 'other.cluster-a', DetailType: 'JobSet Changed', Detail: JSON.stringify(detail) },
          ],
        }),
      );
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      // Assess
      assert.equal(put.FailedEntryCount, 0);
      const bodies = (received.Messages ?? []).map((message): unknown => JSON.parse(message.Body ?? 'null'));
      assert.equal(bodies.length, 1, `expected exactly the matching event, got ${JSON.stringify(bodies)}`);
      assert.equal(at(bodies[0], 'source'), 'lineup.cluster-a');
      assert.equal(at(bodies[0], 'detail-type'), 'JobSet Changed');
      assert.deepEqual(at(bodies[0], 'detail'), detail);
    } finally {
      events.destroy();
      sqs.destroy();
    }
  });

  it('reset() forgets buses and queues', async () => {
    // Prepare
    const events = new EventBridgeClient(moto().clientConfig);
    const sqs = new SQSClient(moto().clientConfig);
    try {
      await events.send(new CreateEventBusCommand({ Name: 'to-forget' }));
      await sqs.send(new CreateQueueCommand({ QueueName: 'to-forget' }));
      // Act
      await moto().reset();
      // Assess
      const buses = await events.send(new ListEventBusesCommand({}));
      assert.deepEqual(buses.EventBuses?.map((b) => b.Name), ['default']);
      const queues = await sqs.send(new ListQueuesCommand({}));
      assert.deepEqual(queues.QueueUrls ?? [], []);
    } finally {
      events.destroy();
      sqs.destroy();
    }
  });
});

describe('harness: dynalite (DynamoDB)', () => {
  let server: DynaliteServer | undefined;
  before(async () => {
    server = await startDynalite();
  });
  after(() => server?.stop());

  it('creates a table, puts an item under a condition and rejects a write whose condition fails', async () => {
    // Prepare
    assert.ok(server !== undefined, 'dynalite did not start');
    const client = new DynamoDBClient(server.clientConfig);
    const documents = DynamoDBDocumentClient.from(client);
    const TableName = 'lineup-harness';
    const lease = { pk: 'lease#cluster-a/default/js', holder: 'reconciler-1', expiresAt: 1_000 };
    try {
      await client.send(
        new CreateTableCommand({
          TableName,
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      // Act
      await documents.send(new PutCommand({ TableName, Item: lease, ConditionExpression: 'attribute_not_exists(pk)' }));
      const second = documents.send(
        new PutCommand({ TableName, Item: { ...lease, holder: 'reconciler-2' }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
      // Assess
      await assert.rejects(second, ConditionalCheckFailedException);
      const stored = await documents.send(new GetCommand({ TableName, Key: { pk: lease.pk }, ConsistentRead: true }));
      assert.deepEqual(stored.Item, lease);
    } finally {
      client.destroy();
    }
  });
});
