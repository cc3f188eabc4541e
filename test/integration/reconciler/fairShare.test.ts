/**
 * The reconciler's fair share on real servers: slots in the checkpoint table on a DynamoDB-API
 * server (dynalite) and records put back on a real SQS API (moto), the queue polled as Lambda's
 * event source mapping does (ReceiveMessage with every attribute, the batch to the handler,
 * DeleteMessage for every record not in batchItemFailures). While another invocation holds the
 * flooding cluster's only slot, its records go back on the queue — delayed, the same body, their
 * put-backs counted in a message attribute — and the quiet cluster's record in the same batches
 * is reconciled at once; when the slot frees, the flooding cluster's records are handled, nothing
 * was dead-lettered and the queue is empty.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Message } from '@aws-sdk/client-sqs';
import { MAX_RECEIVE_COUNT } from '../../../infra/constructs/reconcileQueue.ts';
import { CounterName } from '../../../lib/counters.ts';
import { sqsPutBack } from '../../../lib/hosts/lambdaDeps.ts';
import { DEFERRALS_ATTRIBUTE, type FairShare } from '../../../lib/reconcile/fairShare.ts';
import { makeSqsBatchHandler } from '../../../lib/reconcile/sqsBatch.ts';
import { DynamoClusterSlots } from '../../../lib/store/dynamoClusterSlots.ts';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../../lib/store/embedded.ts';
import { MemoryCheckpointStore } from '../../../lib/store/memoryStore.ts';
import { detailFor, eventBridgeEvent, reconcileDeps, simWorld, story2 } from '../../reconcile/fixtures.ts';
import { sqsRecordOf } from '../harness/sqsRecord.ts';
import { startMoto, type MotoServer } from '../harness/index.ts';

const NAME = 'messagequeue-driver-worker';
const FLOOD = 'flood';

describe('reconciler: a fair share on dynalite and moto SQS', () => {
  let moto: MotoServer;
  let dynamo: EmbeddedDynamo;
  let sqs: SQSClient;

  before(async () => {
    [moto, dynamo] = await Promise.all([startMoto(), startEmbeddedDynamo()]);
    sqs = new SQSClient(moto.clientConfig);
  });
  after(async () => {
    sqs?.destroy();
    await Promise.all([moto?.stop(), dynamo?.stop()]);
  });

  it('puts a cluster over its share back on the queue while another cluster is reconciled, and handles it once its slot frees', async () => {
    // Prepare: the queue with the stack's redrive policy, the flooding cluster's only slot held elsewhere.
    const attribute = async (url: string, name: 'QueueArn' | 'ApproximateNumberOfMessages' | 'ApproximateNumberOfMessagesNotVisible' | 'ApproximateNumberOfMessagesDelayed'): Promise<string> =>
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [name] }))).Attributes?.[name] ?? '';
    const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'share-dlq' }))).QueueUrl ?? '';
    const queueUrl =
      (
        await sqs.send(
          new CreateQueueCommand({
            QueueName: 'share-reconcile',
            Attributes: { VisibilityTimeout: '5', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await attribute(dlqUrl, 'QueueArn'), maxReceiveCount: MAX_RECEIVE_COUNT }) },
          }),
        )
      ).QueueUrl ?? '';
    const queueArn = await attribute(queueUrl, 'QueueArn');
    const slots = new DynamoClusterSlots({ client: dynamo.client, tableName: dynamo.tableName });
    const slotTtlMs = 60_000;
    assert.equal(await slots.tryAcquire({ cluster: FLOOD, holder: 'busy-elsewhere', limit: 1, now: Date.now(), expiresAt: Date.now() + slotTtlMs }), true);

    const world = simWorld([story2()]);
    const { deps, counters } = reconcileDeps(new MemoryCheckpointStore(), world.gateway, world.now, 'it-share');
    let holders = 0;
    const fairShare: FairShare = {
      slots,
      slotsPerCluster: 1,
      slotTtlMs,
      putBack: sqsPutBack(sqs, queueUrl),
      holderId: () => `it-share/${(holders += 1)}`,
      now: Date.now,
      counters,
      log: deps.log,
    };
    const outcomes = new Map<string, string>();
    const handler = makeSqsBatchHandler(deps, { fairShare, onOutcome: (record, outcome) => outcomes.set(JSON.parse(record.body).detail.jobSet as string, outcome instanceof Error ? 'failed' : outcome) });
    const floodBodies = ['f1', 'f2', 'f3'].map((name) => JSON.stringify(eventBridgeEvent(detailFor(name, { cluster: FLOOD, jobSet: name, name }))));
    const quietBody = JSON.stringify(eventBridgeEvent(detailFor(NAME)));
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [...floodBodies, quietBody].map((body, index) => ({ Id: String(index), MessageBody: body })) }));

    /** poll: one receive as the event source mapping makes it, handled and the successes deleted; what was received. */
    const poll = async (): Promise<Message[]> => {
      const messages =
        (await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }))).Messages ?? [];
      if (messages.length === 0) return [];
      const failed = new Set((await handler({ Records: messages.map((message) => sqsRecordOf(message, queueArn, 'us-east-1')) })).batchItemFailures.map((failure) => failure.itemIdentifier));
      const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
      if (done.length > 0) await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })) }));
      return messages;
    };
    const depth = async (): Promise<number> =>
      Number(await attribute(queueUrl, 'ApproximateNumberOfMessages')) + Number(await attribute(queueUrl, 'ApproximateNumberOfMessagesNotVisible')) + Number(await attribute(queueUrl, 'ApproximateNumberOfMessagesDelayed'));

    // Act 1: receive until the quiet cluster's record was handled.
    const deadline = Date.now() + 60_000;
    const received: Message[] = [];
    while (!outcomes.has(NAME)) {
      assert.ok(Date.now() < deadline, `the quiet cluster's record was never handled: ${JSON.stringify([...outcomes])}`);
      received.push(...(await poll()));
    }
    // Assess 1: reconciled at once; the flooding cluster's records back on the queue, not handled.
    assert.ok(counters.get(CounterName.Passes) > 0, 'the quiet cluster got its pass');
    assert.deepEqual(['f1', 'f2', 'f3'].filter((name) => outcomes.has(name)), [], 'no flooding record was handled while its slot was held');
    assert.equal(counters.get(CounterName.RecordsPutBack), 3);
    assert.equal(await depth(), 3, 'the three put back, nothing lost and nothing twice');

    // Act 2: they come back (later, counted); still over the share, they go back again.
    const back: Message[] = [];
    while (back.length < 3) {
      assert.ok(Date.now() < deadline, `the records put back did not come back: ${back.length} of 3`);
      back.push(...(await poll()).filter((message) => floodBodies.includes(message.Body ?? '')));
    }
    assert.deepEqual(back.map((message) => message.MessageAttributes?.[DEFERRALS_ATTRIBUTE]?.StringValue), ['1', '1', '1']);
    assert.deepEqual(back.map((message) => message.Body).sort(), [...floodBodies].sort(), 'put back as they came');
    assert.equal(counters.get(CounterName.RecordsPutBack), 6);

    // Act 3: the other invocation releases its slot; the records are handled when they come back.
    await slots.release(FLOOD, 'busy-elsewhere');
    while (['f1', 'f2', 'f3'].some((name) => !outcomes.has(name))) {
      assert.ok(Date.now() < deadline, `the flooding cluster's records were not handled once its slot freed: ${JSON.stringify([...outcomes])}`);
      await poll();
      await sleep(100);
    }
    // Assess: handled (its cluster is not registered here: dropped with a warning, as any unknown cluster's event), queue and DLQ empty, no slot left held.
    assert.deepEqual(['f1', 'f2', 'f3'].map((name) => outcomes.get(name)), Array(3).fill('dropped'));
    assert.equal(await depth(), 0);
    assert.equal(Number(await attribute(dlqUrl, 'ApproximateNumberOfMessages')), 0);
    assert.deepEqual(Object.keys((await slots.holders(FLOOD)) ?? {}), [], 'every invocation released its slot');
    assert.ok(received.length >= 4);
  });
});
