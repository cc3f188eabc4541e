/**
 * The reconciler's SQS batch handler with recorded batches of EventBridge events, against a
 * real DynamoDB-API server (dynalite in process) and the simulated cluster: each kind of bad
 * record gets a clear log line and the right partial-batch result, and nothing is lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RECONCILE_MAX_RECEIVE_COUNT } from '../../lib/constants.ts';
import { CounterName } from '../../lib/counters.ts';
import { UnavailableError } from '../../lib/errors.ts';
import { makeSqsBatchHandler, NotAnSqsEventError } from '../../lib/reconcile/sqsBatch.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import { needsResync } from '../../lib/store/rules.ts';
import type { ClusterGateway } from '../../lib/reconcile/types.ts';
import { DynamoCheckpointStore } from '../../lib/store/dynamoStore.ts';
import { ensureCheckpointTable, startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { CLUSTER, detailFor, eventBridgeEvent, reconcileDeps, simWorld, sqsEvent, story2 } from './fixtures.ts';

const NAME = 'messagequeue-driver-worker';
const key = { cluster: CLUSTER, namespace: 'default', name: NAME };
let dynamo: EmbeddedDynamo | undefined;
let tables = 0;

const freshStore = async (): Promise<DynamoCheckpointStore> => {
  assert.ok(dynamo, 'dynalite did not start');
  tables += 1;
  await ensureCheckpointTable(dynamo.client, `sqs-batch-${tables}`);
  return new DynamoCheckpointStore({ client: dynamo.client, tableName: `sqs-batch-${tables}` });
};

describe('reconcile/sqsBatch', () => {
  before(async () => {
    dynamo = await startEmbeddedDynamo();
  });
  after(async () => {
    await dynamo?.stop();
  });

  it('drops poison records without retrying them (one error line and one count each) and reconciles the rest', async () => {
    // Prepare
    const world = simWorld([story2()]);
    const store = await freshStore();
    const { deps, lines, counters } = reconcileDeps(store, world.gateway, world.now);
    const outcomes = new Map<string, string>();
    const handler = makeSqsBatchHandler(deps, { onOutcome: (record, outcome) => outcomes.set(record.messageId, outcome instanceof Error ? `error: ${outcome.message}` : outcome) });
    const good = JSON.stringify(eventBridgeEvent(detailFor(NAME)));
    const batch = sqsEvent([
      good,
      '{"not json',
      JSON.stringify(eventBridgeEvent(detailFor(NAME), { 'detail-type': 'Pod Changed' })),
      JSON.stringify(eventBridgeEvent(detailFor(NAME, { cluster: 'Not A Label' }))),
      JSON.stringify(eventBridgeEvent({ ...detailFor(NAME), resourceVersion: 7 } as unknown as ReturnType<typeof detailFor>)),
      JSON.stringify({ hello: 'world' }),
      good, // duplicate
    ]);
    // Act
    const response = await handler(batch);
    // Assess
    assert.deepEqual(response.batchItemFailures, [], 'no poison record is handed back to SQS for a retry');
    assert.deepEqual(['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => outcomes.get(id)), Array(5).fill('poison-dropped'));
    assert.equal(counters.get(CounterName.PoisonRecords), 5);
    const dropped = lines.filter((line) => line.message === 'poison record dropped, not retried: it can never be handled');
    assert.deepEqual(dropped.map((line) => [line.level, line.fields?.['messageId']]).sort(), [['error', 'm1'], ['error', 'm2'], ['error', 'm3'], ['error', 'm4'], ['error', 'm5']]);
    const reason = (id: string) => String(dropped.find((line) => line.fields?.['messageId'] === id)?.fields?.['reason']);
    assert.match(reason('m1'), /body is not JSON/);
    assert.match(reason('m2'), /detail-type: Invalid option/);
    assert.match(reason('m3'), /detail\.cluster: cluster id must be a DNS label/);
    assert.match(reason('m4'), /detail\.resourceVersion/);
    assert.equal(dropped.find((line) => line.fields?.['messageId'] === 'm1')?.fields?.['body'], '{"not json', 'the line keeps the body, all that is left of the record');
    assert.equal(lines.filter((line) => line.fields?.['messageId'] === 'm1').length, 1, 'one line per poison record');
    assert.equal(world.cluster.jobsOf('default', NAME).length, 5);
    const state = await store.getState(key);
    assert.equal(state?.reconciled, state?.dirty, 'both copies of the duplicate were absorbed');
  });

  it('drops an event naming a namespace, JobSet or object longer than Kubernetes allows as poison, before the store sees it', async () => {
    // Prepare
    const world = simWorld([story2()]);
    const store = await freshStore();
    const { deps, lines, counters } = reconcileDeps(store, world.gateway, world.now);
    const outcomes = new Map<string, string>();
    const handler = makeSqsBatchHandler(deps, { onOutcome: (record, outcome) => outcomes.set(record.messageId, outcome instanceof Error ? `error: ${outcome.message}` : outcome) });
    const long = `${NAME}-${'x'.repeat(300)}`;
    // Act
    const response = await handler(
      sqsEvent([
        JSON.stringify(eventBridgeEvent(detailFor(NAME, { namespace: 'n'.repeat(64) }))),
        JSON.stringify(eventBridgeEvent(detailFor(NAME, { jobSet: long.slice(0, 64) }))),
        JSON.stringify(eventBridgeEvent(detailFor(NAME, { kind: 'Job', name: long }))),
        JSON.stringify(eventBridgeEvent(detailFor(NAME, { resourceVersion: '1'.repeat(65) }))),
      ]),
    );
    // Assess
    assert.deepEqual(response.batchItemFailures, [], 'nothing is retried');
    assert.deepEqual(['m0', 'm1', 'm2', 'm3'].map((id) => outcomes.get(id)), Array(4).fill('poison-dropped'));
    assert.equal(counters.get(CounterName.PoisonRecords), 4);
    const reasons = lines.filter((line) => line.message === 'poison record dropped, not retried: it can never be handled').map((line) => String(line.fields?.['reason']));
    assert.deepEqual(
      reasons.map((reason) => /detail\.(namespace|jobSet|name|resourceVersion): Too big/.exec(reason)?.[1]).sort(),
      ['jobSet', 'name', 'namespace', 'resourceVersion'],
    );
    assert.equal(await store.getState(key), undefined, 'no state item was written');
    assert.deepEqual(await store.listJobSets(CLUSTER), []);
  });

  it('cuts the body a poison line keeps', async () => {
    const world = simWorld([story2()]);
    const { deps, lines } = reconcileDeps(await freshStore(), world.gateway, world.now);
    const response = await makeSqsBatchHandler(deps)(sqsEvent([`x${'y'.repeat(10_000)}`]));
    assert.deepEqual(response.batchItemFailures, []);
    const body = String(lines.at(-1)?.fields?.['body']);
    assert.equal(body, `x${'y'.repeat(511)}…`);
  });

  it('refuses an invocation that is not an SQS batch with one line saying what came', async () => {
    const world = simWorld([story2()]);
    const { deps } = reconcileDeps(await freshStore(), world.gateway, world.now);
    const handler = makeSqsBatchHandler(deps) as (event: unknown) => Promise<unknown>;
    const cases: [unknown, string][] = [
      [null, 'null'],
      [undefined, 'undefined'],
      [{}, '{}'],
      [{ detail: {}, source: 'lineup.x' }, 'an object with keys detail, source'],
      [{ Records: 'm0' }, 'Records of type string'],
      [[], 'an array of 0'],
      ['Records', 'a string'],
    ];
    for (const [event, got] of cases) {
      await assert.rejects(handler(event), (error: unknown) => {
        assert.ok(error instanceof NotAnSqsEventError, `a NotAnSqsEventError for ${JSON.stringify(event)}: ${String(error)}`);
        assert.equal(error.message, `reconciler: expected an SQS event with a Records list, got ${got}`);
        return true;
      });
    }
    assert.deepEqual(await handler({ Records: [] }), { batchItemFailures: [] }, 'an empty batch is a batch');
  });

  it('drops (and succeeds) records for an unknown cluster or a forged source, with a warning each', async () => {
    const world = simWorld([story2()]);
    const { deps, lines } = reconcileDeps(await freshStore(), world.gateway, world.now);
    const handler = makeSqsBatchHandler(deps);
    const response = await handler(
      sqsEvent([
        JSON.stringify(eventBridgeEvent(detailFor(NAME, { cluster: 'elsewhere' }))),
        JSON.stringify({ ...eventBridgeEvent(detailFor(NAME)), source: 'lineup.intruder' }),
      ]),
    );
    assert.deepEqual(response.batchItemFailures, []);
    assert.deepEqual(lines.map((line) => line.message).sort(), ['event dropped: cluster is not registered', 'event dropped: its source does not match its cluster']);
    assert.equal(world.cluster.jobsOf('default', NAME).length, 0);
  });

  it('converges whatever order events arrive in: an old event after a new one changes nothing', async () => {
    const world = simWorld([story2()]);
    const store = await freshStore();
    const { deps } = reconcileDeps(store, world.gateway, world.now);
    const handler = makeSqsBatchHandler(deps);
    // The new event, then the Job event its own writes cause (as the watch would deliver): settled.
    await handler(sqsEvent([JSON.stringify(eventBridgeEvent(detailFor(NAME, { resourceVersion: '9' })))]));
    await handler(sqsEvent([JSON.stringify(eventBridgeEvent(detailFor(NAME, { kind: 'Job', name: `${NAME}-driver-0`, resourceVersion: '12' })))]));
    const before = world.cluster.writes();
    const response = await handler(sqsEvent([JSON.stringify(eventBridgeEvent(detailFor(NAME, { resourceVersion: '1', watchType: 'ADDED' })))]));
    assert.deepEqual(response.batchItemFailures, []);
    assert.equal(world.cluster.writes(), before, 'a level-triggered pass on settled state writes nothing');
  });

  it('records replayed events (replay-name) without applying them', async () => {
    const world = simWorld([story2()]);
    const store = await freshStore();
    const { deps } = reconcileDeps(store, world.gateway, world.now);
    const handler = makeSqsBatchHandler(deps);
    const response = await handler(sqsEvent([JSON.stringify(eventBridgeEvent(detailFor(NAME), { 'replay-name': 'incident-42' }))]));
    assert.deepEqual(response.batchItemFailures, []);
    assert.equal(world.cluster.jobsOf('default', NAME).length, 0);
    const [decision] = await store.listJournal(key);
    assert.equal(decision?.replayName, 'incident-42');
    assert.equal(decision?.applied, false);
  });

  it('fails the record (so SQS retries it) when the cluster fails, and logs why', async () => {
    const world = simWorld([story2()]);
    const { deps, lines } = reconcileDeps(await freshStore(), { observe: () => Promise.reject(new Error('connect ECONNREFUSED')), apply: () => Promise.resolve() }, world.now);
    const response = await makeSqsBatchHandler(deps)(sqsEvent([JSON.stringify(eventBridgeEvent(detailFor(NAME)))]));
    assert.deepEqual(response.batchItemFailures, [{ itemIdentifier: 'm0' }]);
    assert.equal(lines.at(-1)?.message, 'reconcile failed; the event will be retried');
  });

  it('still fails (so SQS retries) the records of a cluster answering 429 or 500 and of a failing store, none counted as poison', async () => {
    const world = simWorld([story2()]);
    const refusing = (status: number): ClusterGateway => ({
      observe: () => Promise.reject(new UnavailableError(`GET jobsets: HTTP ${status}`, status === 429 ? { retryAfterMs: 1_000 } : {})),
      apply: () => Promise.resolve(),
    });
    const gateways = new Map([['busy', refusing(429)], ['broken', refusing(500)]]);
    const store = await freshStore();
    const { deps, lines, counters } = reconcileDeps(store, world.gateway, world.now, 'test-owner', { resolveCluster: async (id) => gateways.get(id) });
    const failingStore = Object.assign(Object.create(store) as typeof store, { noteEvent: () => Promise.reject(new Error('dynamodb: ProvisionedThroughputExceededException')) });
    const event = (cluster: string) => JSON.stringify(eventBridgeEvent(detailFor(NAME, { cluster })));
    const clusterFailures = await makeSqsBatchHandler(deps)(sqsEvent([event('busy'), event('broken')]));
    const storeFailure = await makeSqsBatchHandler({ ...deps, resolveCluster: async () => world.gateway, store: failingStore })(sqsEvent([event(CLUSTER)]));
    assert.deepEqual(clusterFailures.batchItemFailures.map((f) => f.itemIdentifier).sort(), ['m0', 'm1']);
    assert.deepEqual(storeFailure.batchItemFailures, [{ itemIdentifier: 'm0' }]);
    assert.equal(counters.get(CounterName.PoisonRecords), 0);
    const retried = lines.filter((line) => line.message === 'reconcile failed; the event will be retried').map((line) => String(line.fields?.['error'])).sort();
    assert.deepEqual(retried, ['GET jobsets: HTTP 429', 'GET jobsets: HTTP 500', 'dynamodb: ProvisionedThroughputExceededException']);
  });

  it('on the last receive before the dead-letter queue, hands a JobSet whose failed pass its state item records to the resync', async () => {
    const world = simWorld([story2()]);
    const store = await freshStore();
    const { deps, lines } = reconcileDeps(store, { observe: () => Promise.reject(new Error('connect ECONNREFUSED')), apply: () => Promise.resolve() }, world.now);
    const receivedAt = (count: number) => {
      const event = sqsEvent([JSON.stringify(eventBridgeEvent(detailFor(NAME)))]);
      return { Records: event.Records.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(count) } })) };
    };
    const handler = makeSqsBatchHandler(deps);
    assert.deepEqual((await handler(receivedAt(RECONCILE_MAX_RECEIVE_COUNT - 1))).batchItemFailures, [{ itemIdentifier: 'm0' }], 'retried while receives are left');
    assert.deepEqual((await handler(receivedAt(RECONCILE_MAX_RECEIVE_COUNT))).batchItemFailures, [], 'the last receive lets the record go');
    assert.equal(lines.at(-1)?.message, 'reconcile failed on the last receive; the resync retries the jobset');
    const state = await store.getState(key);
    assert.ok(state !== undefined && needsResync(state, world.now()), `the resync will re-queue it: ${JSON.stringify(state)}`);
  });

  it('on the last receive, lets a record whose JobSet the store could not mark go to the dead-letter queue', async () => {
    const world = simWorld([story2()]);
    const { deps } = reconcileDeps(new MemoryCheckpointStore(), { observe: () => Promise.reject(new Error('connect ECONNREFUSED')), apply: () => Promise.resolve() }, world.now);
    const failing = Object.assign(Object.create(deps.store) as typeof deps.store, {
      noteEvent: () => Promise.reject(new Error('dynamodb unavailable')),
      getState: () => Promise.reject(new Error('dynamodb unavailable')),
    });
    const event = sqsEvent([JSON.stringify(eventBridgeEvent(detailFor(NAME)))]);
    const last = { Records: event.Records.map((record) => ({ ...record, attributes: { ...record.attributes, ApproximateReceiveCount: String(RECONCILE_MAX_RECEIVE_COUNT) } })) };
    assert.deepEqual((await makeSqsBatchHandler({ ...deps, store: failing })(last)).batchItemFailures, [{ itemIdentifier: 'm0' }]);
  });
});
