/**
 * The resync Lambda entry point as Lambda would call it, its Powertools output read back as
 * CloudWatch would, against a real DynamoDB-API server (dynalite): every run publishes the fleet's
 * UnwatchedClusters metric through the middleware, 0 included, beside the DynamoDB requests it
 * made, under the `service` dimension alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FleetMetric } from '../../lib/fleet/metrics.ts';
import type { EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { emfOf, lambdaContext, outputOf, startFunctionEnvironment } from './lambdaFixtures.ts';

let dynamo: EmbeddedDynamo | undefined;

describe('functions/resync', () => {
  before(async () => {
    dynamo = await startFunctionEnvironment({ metricsDisabled: false, logLevel: 'WARN' });
  });
  after(async () => {
    await dynamo?.stop();
  });

  it('publishes UnwatchedClusters 0 with no cluster registered, then 1 for a registered cluster no forwarder heartbeats for', async () => {
    const { handler } = await import('../../functions/resync.ts');
    const { DynamoCheckpointStore } = await import('../../lib/store/dynamoStore.ts');
    assert.ok(dynamo, 'dynalite started');

    const empty = await outputOf(() => handler({}, lambdaContext));
    assert.equal(empty.result.alarmed, 0);
    const [none, ...moreNone] = emfOf(empty.lines);
    assert.equal(moreNone.length, 0, JSON.stringify(empty.lines));
    assert.equal(none?.[FleetMetric.UnwatchedClusters.name], 0, JSON.stringify(none));
    assert.equal(none?.['service'], FleetMetric.UnwatchedClusters.service);

    const store = new DynamoCheckpointStore({ client: dynamo.client, tableName: dynamo.tableName });
    await store.putCluster({ id: 'quiet', endpoint: 'https://quiet.invalid', auth: { type: 'token', token: 'unused' } });
    const quiet = await outputOf(() => handler({}, lambdaContext));
    assert.deepEqual([quiet.result.unwatched, quiet.result.alarmed], [['quiet'], 1]);
    const [one, ...moreOne] = emfOf(quiet.lines);
    assert.equal(moreOne.length, 0, JSON.stringify(quiet.lines));
    assert.equal(one?.[FleetMetric.UnwatchedClusters.name], 1, JSON.stringify(one));
    // The counters of the run went out in the same record: its DynamoDB requests (the registry, the cluster's bookmarks and JobSets).
    const names = (one?.['_aws'] as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }).CloudWatchMetrics[0]?.Metrics.map((metric) => metric.Name) ?? [];
    assert.ok(names.some((name) => name.startsWith('Dynamodb')), names.join(', '));
    assert.equal(names.includes('cluster'), false);
    assert.equal(quiet.lines.filter((line) => line['cluster'] === 'quiet' && line['level'] === 'WARN').length, 1, JSON.stringify(quiet.lines));
  });
});
