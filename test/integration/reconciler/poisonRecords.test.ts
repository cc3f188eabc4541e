/**
 * Poison records on a real SQS API (moto): a queue with the stack's redrive policy (maxReceiveCount
 * MAX_RECEIVE_COUNT to a DLQ) and a short visibility timeout, polled as Lambda's SQS event source
 * mapping does (ReceiveMessage, the batch to the reconciler's batch handler, DeleteMessage for
 * every record not in batchItemFailures). A poison record is received once and deleted, and never
 * reaches the DLQ; a record whose cluster answered 429 comes back until it is reconciled; a record
 * whose cluster lookup keeps failing is received MAX_RECEIVE_COUNT times and then dead-lettered (the
 * control: it shows the redrive policy at work, so the DLQ's lack of poison means something).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { sqsRecordOf } from '../harness/sqsRecord.ts';
import { MAX_RECEIVE_COUNT } from '../../../infra/constructs/reconcileQueue.ts';
import { CounterName } from '../../../lib/counters.ts';
import { UnavailableError } from '../../../lib/errors.ts';
import { makeSqsBatchHandler } from '../../../lib/reconcile/sqsBatch.ts';
import type { ClusterGateway } from '../../../lib/reconcile/types.ts';
import { MemoryCheckpointStore } from '../../../lib/store/memoryStore.ts';
import { CLUSTER, detailFor, eventBridgeEvent, reconcileDeps, simWorld, story2 } from '../../reconcile/fixtures.ts';
import { startMoto, type MotoServer } from '../harness/index.ts';

const NAME = 'messagequeue-driver-worker';
/**
 * A cluster whose lookup keeps failing (its token's Secrets Manager answering 500): the pass fails
 * before its JobSet's state item records anything, so on the last receive nothing hands the record
 * to the resync and the redrive policy dead-letters it.
 */
const DOWN = 'down-cluster';
const VISIBILITY_TIMEOUT_S = 1;

describe('reconciler: poison records on moto SQS', () => {
  let moto: MotoServer;
  let sqs: SQSClient;

  before(async () => {
    moto = await startMoto();
    sqs = new SQSClient(moto.clientConfig);
  });
  after(async () => {
    sqs?.destroy();
    await moto?.stop();
  });

  it('deletes a poison record on its first receive and keeps it out of the DLQ, while a 429 is redelivered until reconciled', async () => {
    // Prepare: the queues as the stack makes them (redrive after MAX_RECEIVE_COUNT receives).
    const attribute = async (url: string, name: 'QueueArn' | 'ApproximateNumberOfMessages' | 'ApproximateNumberOfMessagesNotVisible'): Promise<string> =>
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [name] }))).Attributes?.[name] ?? '';
    const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'poison-dlq' }))).QueueUrl ?? '';
    const queueUrl =
      (
        await sqs.send(
          new CreateQueueCommand({
            QueueName: 'poison-reconcile',
            Attributes: {
              VisibilityTimeout: String(VISIBILITY_TIMEOUT_S),
              RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await attribute(dlqUrl, 'QueueArn'), maxReceiveCount: MAX_RECEIVE_COUNT }),
            },
          }),
        )
      ).QueueUrl ?? '';
    const queueArn = await attribute(queueUrl, 'QueueArn');
    const depth = async (url: string): Promise<number> => Number(await attribute(url, 'ApproximateNumberOfMessages')) + Number(await attribute(url, 'ApproximateNumberOfMessagesNotVisible'));

    // The cluster answers 429 to the first two reads of the JobSet, then serves it; DOWN's lookup fails for ever.
    const world = simWorld([story2()]);
    let refusals = 0;
    const busy: ClusterGateway = {
      observe: (namespace, name, now) => {
        if (refusals < 2) {
          refusals += 1;
          return Promise.reject(new UnavailableError('GET jobsets: HTTP 429 Too Many Requests', { retryAfterMs: 1_000 }));
        }
        return world.gateway.observe(namespace, name, now);
      },
      apply: (namespace, name, action, now) => world.gateway.apply(namespace, name, action, now),
    };
    const { deps, lines, counters } = reconcileDeps(new MemoryCheckpointStore(), busy, world.now, 'it-poison', {
      resolveCluster: async (id) => {
        if (id === DOWN) throw new UnavailableError(`cluster ${DOWN}: reading its token: secretsmanager GetSecretValue: HTTP 500`);
        return id === CLUSTER ? busy : undefined;
      },
    });
    const outcomes = new Map<string, string[]>();
    const handler = makeSqsBatchHandler(deps, {
      onOutcome: (record, outcome) => outcomes.set(record.messageId, [...(outcomes.get(record.messageId) ?? []), outcome instanceof Error ? 'failed' : outcome]),
    });

    const poison = {
      'not JSON': '{"detail-type": "Job Changed", "detail": ',
      'a detail-type Lineup does not know': JSON.stringify(eventBridgeEvent(detailFor(NAME), { 'detail-type': 'Pod Changed' })),
      'a cluster id that is not a DNS label': JSON.stringify(eventBridgeEvent(detailFor(NAME, { cluster: 'Not_A_Label' }))),
      'a detail failing the schema': JSON.stringify(eventBridgeEvent({ ...detailFor(NAME), watchType: 'RENAMED' } as unknown as ReturnType<typeof detailFor>)),
    };
    const send = async (body: string): Promise<string> => (await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }))).MessageId ?? '';
    const poisonIds = new Map<string, string>();
    for (const [what, body] of Object.entries(poison)) poisonIds.set(await send(body), what);
    const transientId = await send(JSON.stringify(eventBridgeEvent(detailFor(NAME))));
    const downId = await send(JSON.stringify(eventBridgeEvent(detailFor(NAME, { cluster: DOWN }))));

    // Act: poll as the event source mapping does until nothing has come for three visibility timeouts.
    const receives = new Map<string, number>();
    const deadline = Date.now() + 90_000;
    let quietSince = Date.now();
    while (Date.now() - quietSince < 3 * VISIBILITY_TIMEOUT_S * 1_000) {
      assert.ok(Date.now() < deadline, `the queue did not settle: receives ${JSON.stringify([...receives])}`);
      const messages =
        (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }))).Messages ?? [];
      if (messages.length === 0) continue;
      quietSince = Date.now();
      for (const message of messages) receives.set(message.MessageId ?? '', (receives.get(message.MessageId ?? '') ?? 0) + 1);
      const event: SQSEvent = { Records: messages.map((message) => sqsRecordOf(message, queueArn, 'us-east-1')) };
      const failed = new Set((await handler(event)).batchItemFailures.map((failure) => failure.itemIdentifier));
      const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
      if (done.length > 0) {
        await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })) }));
      }
      await sleep(100);
    }

    // Assess: each poison record was received once, dropped with one error line naming it, and counted.
    for (const [id, what] of poisonIds) {
      assert.equal(receives.get(id), 1, `${what}: received once, never redelivered`);
      assert.deepEqual(outcomes.get(id), ['poison-dropped'], `${what}: dropped`);
      const logged = lines.filter((line) => line.fields?.['messageId'] === id);
      assert.equal(logged.length, 1, `${what}: one line: ${JSON.stringify(logged)}`);
      assert.equal(logged[0]?.level, 'error');
      assert.equal(logged[0]?.message, 'poison record dropped, not retried: it can never be handled');
      assert.match(String(logged[0]?.fields?.['reason']), new RegExp(`^message ${id}: `));
    }
    assert.equal(counters.get(CounterName.PoisonRecords), poisonIds.size);
    // The 429s were batch item failures: the record came back after each, and the third receive reconciled it.
    assert.deepEqual(outcomes.get(transientId), ['failed', 'failed', 'reconciled']);
    assert.equal(receives.get(transientId), 3);
    assert.equal(world.cluster.jobsOf('default', NAME).length, 5, 'the JobSet was reconciled once the cluster answered');
    // The control: a record that never succeeds is received MAX_RECEIVE_COUNT times, then the redrive policy dead-letters it.
    assert.equal(receives.get(downId), MAX_RECEIVE_COUNT);
    assert.deepEqual(outcomes.get(downId), Array(MAX_RECEIVE_COUNT).fill('failed'));
    assert.equal(await depth(queueUrl), 0, 'the queue ends empty');
    const dead = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }))).Messages ?? [];
    assert.deepEqual(
      dead.map((message) => message.MessageId),
      [downId],
      'the DLQ holds the record that kept failing and no poison record',
    );
  });
});
