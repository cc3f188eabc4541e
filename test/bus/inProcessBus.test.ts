import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { InProcessBus } from '../../lib/bus/inProcessBus.ts';
import { reconcilerRulePattern } from '../../lib/events/pattern.ts';
import { collectingLog } from '../../lib/log.ts';

const entry = (source: string, detailType = 'JobSet Changed', n = 0) => ({ Source: source, DetailType: detailType, Detail: JSON.stringify({ n }) });

describe('bus/inProcessBus', () => {
  it('routes only what the rule pattern matches, in batches of at most ten', async () => {
    // Prepare
    const batches: number[] = [];
    const bus = new InProcessBus({
      pattern: reconcilerRulePattern(),
      handler: async (event: SQSEvent): Promise<SQSBatchResponse> => {
        batches.push(event.Records.length);
        return { batchItemFailures: [] };
      },
      log: collectingLog().log,
    });
    // Act
    await bus.put([...Array.from({ length: 23 }, (_, n) => entry('lineup.c1', 'Job Changed', n)), entry('aws.ec2')]);
    await bus.idle();
    // Assess
    assert.deepEqual(batches, [10, 10, 3]);
    assert.equal(bus.archive.length, 24, 'the archive keeps every event, matched or not');
    await bus.stop();
  });

  it('redelivers reported failures and moves a message to the dead letters after maxReceiveCount', async () => {
    let now = 0;
    const receives = new Map<string, number>();
    const { log, lines } = collectingLog();
    const bus = new InProcessBus({
      pattern: reconcilerRulePattern(),
      handler: async (event) => {
        const failures = event.Records.filter((record) => {
          const n = (JSON.parse(record.body) as { detail: { n: number } }).detail.n;
          receives.set(String(n), Number(record.attributes.ApproximateReceiveCount));
          return n === 1 || (n === 2 && record.attributes.ApproximateReceiveCount === '1');
        });
        return { batchItemFailures: failures.map((record) => ({ itemIdentifier: record.messageId })) };
      },
      log,
      now: () => now,
      maxReceiveCount: 3,
      visibilityTimeoutMs: 1_000,
      redelivery: 'manual',
    });
    await bus.put([entry('lineup.c1', 'Job Changed', 0), entry('lineup.c1', 'Job Changed', 1), entry('lineup.c1', 'Job Changed', 2)]);
    await bus.idle();
    for (let round = 0; round < 4; round += 1) {
      now += 1_000;
      bus.kick();
      await bus.idle();
    }
    assert.deepEqual(Object.fromEntries(receives), { '0': 1, '1': 3, '2': 2 }, 'n=2 succeeded on its second receive; n=1 was received three times');
    assert.equal(bus.deadLetters.length, 1);
    assert.equal(bus.pending(), 0);
    assert.ok(lines.some((line) => line.message === 'message moved to the dead-letter list'));
    await bus.stop();
  });

  it('redelivers the whole batch when the invocation itself fails', async () => {
    let calls = 0;
    const bus = new InProcessBus({
      pattern: reconcilerRulePattern(),
      handler: async (event) => {
        calls += 1;
        if (calls === 1) throw new Error('cold start failed');
        return { batchItemFailures: [], size: event.Records.length } as SQSBatchResponse;
      },
      log: collectingLog().log,
      visibilityTimeoutMs: 0,
    });
    await bus.put([entry('lineup.c1')]);
    await bus.idle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await bus.idle();
    assert.equal(calls, 2);
    assert.equal(bus.deadLetters.length, 0);
    await bus.stop();
  });
});
