/**
 * Heartbeats through the reconciler's SQS batch handler, against a real DynamoDB-API server
 * (dynalite in process): the newest heartbeat per cluster is kept, a redelivered one changes
 * nothing, a replayed or forged one, or one sent ahead of the reconciler's clock, is dropped with a log line, a malformed one fails its record
 * alone, and JobSet events of the same batch are reconciled as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CounterName } from '../../lib/counters.ts';
import { heartbeatEntry } from '../../lib/events/heartbeat.ts';
import { makeSqsBatchHandler } from '../../lib/reconcile/sqsBatch.ts';
import { DynamoCheckpointStore } from '../../lib/store/dynamoStore.ts';
import { HEARTBEAT_CLOCK_SKEW_MS } from '../../lib/store/rules.ts';
import { ensureCheckpointTable, startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { CLUSTER, detailFor, eventBridgeEvent, reconcileDeps, simWorld, sqsEvent, story2 } from '../reconcile/fixtures.ts';

/** heartbeatBody: the SQS body EventBridge delivers for a heartbeat entry. */
const heartbeatBody = (cluster: string, sentAt: number, extra: Record<string, unknown> = {}): string => {
  const entry = heartbeatEntry({ cluster, sentAt, intervalMs: 60_000 });
  return JSON.stringify({
    version: '0',
    id: `hb-${sentAt}`,
    'detail-type': entry.DetailType,
    source: entry.Source,
    time: '2026-01-01T00:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail: JSON.parse(entry.Detail) as unknown,
    ...extra,
  });
};

let dynamo: EmbeddedDynamo | undefined;

describe('fleet/heartbeatRecorder', () => {
  before(async () => {
    dynamo = await startEmbeddedDynamo();
  });
  after(async () => {
    await dynamo?.stop();
  });

  it('keeps the newest heartbeat per cluster beside a reconciled JobSet event, and drops replayed, forged and malformed ones', async () => {
    // Prepare
    assert.ok(dynamo, 'dynalite did not start');
    await ensureCheckpointTable(dynamo.client, 'heartbeats');
    const store = new DynamoCheckpointStore({ client: dynamo.client, tableName: 'heartbeats' });
    const world = simWorld([story2()]);
    const { deps, lines } = reconcileDeps(store, world.gateway, () => 5_000);
    const outcomes = new Map<string, string>();
    const heard: string[] = [];
    const handler = makeSqsBatchHandler(deps, {
      onOutcome: (record, outcome) => outcomes.set(record.messageId, outcome instanceof Error ? `error: ${outcome.message}` : outcome),
      onHeartbeat: (cluster) => heard.push(cluster),
    });
    // Act: the records of a batch run concurrently, so the heartbeat a later one must lose to comes in a batch of its own.
    await handler(sqsEvent([heartbeatBody(CLUSTER, 2_000)]));
    const first = outcomes.get('m0');
    const response = await handler(
      sqsEvent([
        heartbeatBody(CLUSTER, 2_000), // redelivered
        JSON.stringify(eventBridgeEvent(detailFor('messagequeue-driver-worker'))),
        heartbeatBody(CLUSTER, 1_000), // reordered: older than the one kept
        heartbeatBody(CLUSTER, 9_000, { 'replay-name': 'r1' }),
        heartbeatBody(CLUSTER, 9_000, { source: 'lineup.other' }),
        JSON.stringify({ ...JSON.parse(heartbeatBody(CLUSTER, 9_000)), detail: { cluster: CLUSTER } }),
        heartbeatBody(CLUSTER, 5_000 + HEARTBEAT_CLOCK_SKEW_MS + 1), // sent ahead of the reconciler's clock (5 000) by more than the skew allowed
      ]),
    );
    // Assess
    assert.deepEqual(response.batchItemFailures, [], 'a malformed heartbeat is poison: dropped, not retried');
    assert.equal(first, 'heartbeat-recorded');
    assert.deepEqual(
      ['m0', 'm1', 'm2', 'm3', 'm4'].map((id) => outcomes.get(id)),
      ['heartbeat-stale', 'reconciled', 'heartbeat-stale', 'heartbeat-dropped', 'heartbeat-dropped'],
    );
    assert.equal(outcomes.get('m5'), 'poison-dropped');
    assert.equal(outcomes.get('m6'), 'heartbeat-dropped');
    assert.ok(lines.some((line) => line.message.startsWith('heartbeat dropped: sent ahead of the reconciler clock') && line.fields?.['skewAllowedMs'] === HEARTBEAT_CLOCK_SKEW_MS));
    assert.deepEqual(await store.getHeartbeat(CLUSTER), { cluster: CLUSTER, sentAt: 2_000, receivedAt: 5_000, intervalMs: 60_000 });
    assert.equal(await store.getHeartbeat('other'), undefined);
    assert.deepEqual(heard, [CLUSTER, CLUSTER, CLUSTER], 'the metric hears every live heartbeat of a cluster, kept or stale');
    assert.equal(deps.counters.get(CounterName.HeartbeatsRecorded), 1);
    assert.ok(lines.some((line) => line.message === 'heartbeat dropped: its source does not match its cluster' && line.fields?.['source'] === 'lineup.other'));
    assert.ok(lines.some((line) => line.message.startsWith('heartbeat dropped: replayed from the archive') && line.fields?.['replayName'] === 'r1'));
    assert.match(String(lines.find((line) => line.message.startsWith('poison record dropped') && line.fields?.['messageId'] === 'm5')?.fields?.['reason']), /message m5: not a Lineup heartbeat: detail\.sentAt/);
    assert.ok((await store.listJournal({ cluster: CLUSTER, namespace: 'default', name: 'messagequeue-driver-worker' })).length > 0, 'the JobSet event was reconciled');
  });
});
