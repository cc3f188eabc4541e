/**
 * EventBridgeSink against a real EventBridge-API server (moto on loopback): entries put through
 * the Batcher reach the SQS queue a rule targets, with their detail intact, and per-entry
 * failures come back by index. Every case runs twice: PutEvents through the SDK's client (the
 * Lambda functions) and as a signed request without the SDK (the in-cluster forwarder,
 * lib/aws/jsonClient.ts).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CounterName, Counters } from '../../../lib/counters.ts';
import { LineupEventBridgeSchema, toPutEventsEntry } from '../../../lib/events/envelope.ts';
import { DetailType, eventSource, type LineupEvent, type LineupEventDetail } from '../../../lib/events/schema.ts';
import { reconcilerRulePattern } from '../../../lib/events/pattern.ts';
import { Batcher } from '../../../lib/forwarder/batcher.ts';
import { AWS_JSON_RETRY, AwsJsonClient, EVENTBRIDGE } from '../../../lib/aws/jsonClient.ts';
import { EventBridgeSink, signedPutEvents, type PutEvents } from '../../../lib/forwarder/eventBridgeSink.ts';
import { sdkPutEvents } from '../../../lib/hosts/lambdaAwsClients.ts';
import { UnavailableError } from '../../../lib/errors.ts';
import { freePort, startMoto, type MotoServer } from '../harness/index.ts';

const BUS = 'lineup-test';
const CLUSTER = 'it-1';
/** The reconciler rule's pattern, from the one source the CDK rule uses too: `lineup.` sources, Lineup detail-types. */
const LINEUP_PATTERN = JSON.stringify(reconcilerRulePattern());

/** jobChanged: the n-th Job Changed event of a story, each with its own name and counters. */
const jobChanged = (n: number): LineupEvent => ({
  source: eventSource(CLUSTER),
  detailType: DetailType.JobChanged,
  detail: {
    cluster: CLUSTER,
    namespace: 'ml',
    jobSet: 'train',
    kind: 'Job',
    name: `train-workers-${n}`,
    uid: `uid-${n}`,
    resourceVersion: String(1000 + n),
    watchType: 'MODIFIED',
    observed: { kind: 'Job', replicatedJob: 'workers', deleting: false, suspend: false, active: 1, ready: n % 2, succeeded: 0, failed: 0, jobReady: n % 2 === 1, finalizers: 0, conditions: [] },
  },
});

describe('EventBridgeSink (moto)', () => {
  let moto: MotoServer;
  let events: EventBridgeClient;
  let signed: AwsJsonClient;
  let sqs: SQSClient;
  let queueUrl: string;

  /** signedClient: PutEvents as the in-cluster forwarder sends it, to `endpoint`, once per call. */
  const signedClient = (endpoint: string): AwsJsonClient =>
    new AwsJsonClient({
      service: EVENTBRIDGE,
      region: moto.clientConfig.region,
      endpoint: new URL(endpoint),
      credentials: async () => moto.clientConfig.credentials,
      retryPolicy: { ...AWS_JSON_RETRY, maxAttempts: 1 },
    });

  before(async () => {
    moto = await startMoto();
    events = new EventBridgeClient(moto.clientConfig);
    signed = signedClient(moto.endpoint);
    sqs = new SQSClient(moto.clientConfig);
  });
  after(async () => {
    events?.destroy();
    signed?.destroy();
    sqs?.destroy();
    await moto?.stop();
  });
  beforeEach(async () => {
    // Prepare: bus → rule (lineup.* sources) → queue, fresh for every test.
    await moto.reset();
    await events.send(new CreateEventBusCommand({ Name: BUS }));
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'lineup-events' }))).QueueUrl ?? '';
    const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    await events.send(new PutRuleCommand({ Name: 'lineup-to-queue', EventBusName: BUS, EventPattern: LINEUP_PATTERN }));
    await events.send(
      new PutTargetsCommand({ Rule: 'lineup-to-queue', EventBusName: BUS, Targets: [{ Id: 'queue', Arn: attributes.Attributes?.QueueArn }] }),
    );
  });

  /** receiveAll: read the queue until `count` messages arrived or `timeoutMs` passed. */
  const receiveAll = async (count: number, timeoutMs = 20_000): Promise<string[]> => {
    const bodies: string[] = [];
    const deadline = Date.now() + timeoutMs;
    while (bodies.length < count && Date.now() < deadline) {
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      const messages = out.Messages ?? [];
      bodies.push(...messages.map((m) => m.Body ?? ''));
      if (messages.length > 0) {
        await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle })) }));
      }
    }
    return bodies;
  };

  for (const variant of ['sdk', 'signed'] as const) {
    const label = variant === 'sdk' ? 'the SDK’s client' : 'signed requests';
    /** putEvents: the variant's call. */
    const putEvents = (): PutEvents => (variant === 'sdk' ? sdkPutEvents(events) : signedPutEvents(signed));

    it(`${label}: delivers 25 events put through Batcher and EventBridgeSink to the rule’s queue, details intact`, async () => {
      // Prepare
      const counters = new Counters();
      const logs: string[] = [];
      const batcher = new Batcher({ sink: new EventBridgeSink({ putEvents: putEvents() }), counters, log: (level, message) => logs.push(`${level}: ${message}`) });
      const sent = Array.from({ length: 25 }, (_, n) => jobChanged(n));
      // Act
      await Promise.all(sent.map((event) => batcher.add(toPutEventsEntry(event, BUS))));
      const bodies = await receiveAll(25);
      // Assess
      assert.equal(bodies.length, 25, `received ${bodies.length} of 25 events from the queue`);
      // moto 5.2.5 leaves `account` out of the events it delivers to SQS (AWS always sends it), so
      // the envelope is checked without it; the detail is checked whole.
      const received = bodies.map((body) => LineupEventBridgeSchema.omit({ account: true }).parse(JSON.parse(body)));
      const byName = (a: LineupEventDetail, b: LineupEventDetail) => a.name.localeCompare(b.name);
      assert.deepEqual(received.map((e) => e.detail).sort(byName), sent.map((e) => e.detail).sort(byName));
      assert.ok(received.every((e) => e.source === 'lineup.it-1' && e['detail-type'] === 'Job Changed'));
      assert.deepEqual(
        { calls: counters.get(CounterName.PutEventsCalls), put: counters.get(CounterName.EventsPut), retried: counters.get(CounterName.EventsRetried) },
        { calls: 3, put: 25, retried: 0 },
      );
      assert.deepEqual(logs, []);
    });

    it(`${label}: uses its own bus for entries that name none, and the rule routes only lineup.* sources`, async () => {
      const sink = new EventBridgeSink({ putEvents: putEvents(), eventBusName: BUS });
      const result = await sink.put([
        toPutEventsEntry(jobChanged(1)),
        { Source: 'other.app', DetailType: 'Job Changed', Detail: '{"x":1}' },
      ]);
      assert.deepEqual(result, { failed: [] });
      const bodies = await receiveAll(2, 3_000);
      assert.deepEqual(bodies.map((body) => (JSON.parse(body) as { source: string }).source), ['lineup.it-1']);
    });

    it(`${label}: reports the entries PutEvents refused by their index and code`, async () => {
      const sink = new EventBridgeSink({ putEvents: putEvents(), eventBusName: BUS });
      const result = await sink.put([
        toPutEventsEntry(jobChanged(1)),
        { Source: 'lineup.it-1', DetailType: 'Job Changed', Detail: 'not json' },
        toPutEventsEntry(jobChanged(2)),
      ]);
      assert.deepEqual(result.failed.map((f) => [f.index, f.code]), [[1, 'MalformedDetail']]);
      assert.equal((await receiveAll(2, 5_000)).length, 2);
    });

    it(`${label}: turns a put that cannot reach the server into an UnavailableError`, async () => {
      const port = await freePort();
      const [client, unreachable] = variant === 'sdk' ? [new EventBridgeClient({ ...moto.clientConfig, endpoint: `http://127.0.0.1:${port}`, maxAttempts: 1 }), undefined] : [undefined, signedClient(`http://127.0.0.1:${port}`)];
      try {
        const sink = new EventBridgeSink({ putEvents: client ? sdkPutEvents(client) : signedPutEvents(unreachable ?? signed), eventBusName: BUS });
        await assert.rejects(sink.put([toPutEventsEntry(jobChanged(1))]), (error: unknown) => error instanceof UnavailableError && error.code === 'UNAVAILABLE');
      } finally {
        client?.destroy();
        unreachable?.destroy();
      }
    });
  }
});
