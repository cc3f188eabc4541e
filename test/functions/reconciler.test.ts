/**
 * The reconciler Lambda entry point as Lambda would call it: module-scope configuration from
 * the environment, middy with Powertools logger and metrics, the batch handler — against a real
 * DynamoDB-API server (dynalite) reached through the SDK's endpoint variable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { lambdaContext, startFunctionEnvironment } from './lambdaFixtures.ts';
import { detailFor, eventBridgeEvent, sqsEvent } from '../reconcile/fixtures.ts';

const context = lambdaContext;

let dynamo: EmbeddedDynamo | undefined;

describe('functions/reconciler', () => {
  before(async () => {
    dynamo = await startFunctionEnvironment({ metricsDisabled: true, logLevel: 'ERROR' });
  });
  after(async () => {
    await dynamo?.stop();
  });

  it('drops poison records and events of unknown clusters without asking SQS for a retry', async () => {
    const { handler } = await import('../../functions/reconciler.ts');
    const response = await handler(
      sqsEvent(['not json at all', JSON.stringify(eventBridgeEvent(detailFor('js', { cluster: 'unregistered' })))]),
      context,
    );
    assert.deepEqual(response.batchItemFailures, []);
  });

  it('refuses to start with a configuration that is not usable, naming the variable', async () => {
    const { readLambdaConfig } = await import('../../lib/hosts/lambdaConfig.ts');
    assert.throws(() => readLambdaConfig({ LINEUP_TABLE_NAME: 't', LINEUP_STATIC_CLUSTERS: '[{"id": "x"}]' }), /LINEUP_STATIC_CLUSTERS/);
    assert.throws(() => readLambdaConfig({}), /LINEUP_TABLE_NAME/);
    assert.throws(() => readLambdaConfig({ LINEUP_TABLE_NAME: 't', LINEUP_HEARTBEAT_INTERVAL_MS: 'soon' }), /LINEUP_HEARTBEAT_INTERVAL_MS/);
    const config = readLambdaConfig({ LINEUP_TABLE_NAME: 't', LINEUP_HEARTBEAT_INTERVAL_MS: '15000', LINEUP_HEARTBEAT_MISSING_MS: '120000' });
    assert.deepEqual([config.heartbeatIntervalMs, config.heartbeatMissingMs], [15_000, 120_000]);
    assert.deepEqual([readLambdaConfig({ LINEUP_TABLE_NAME: 't' }).heartbeatIntervalMs, readLambdaConfig({ LINEUP_TABLE_NAME: 't' }).heartbeatMissingMs], [120_000, 300_000]);
    assert.deepEqual(readLambdaConfig({ LINEUP_TABLE_NAME: 't' }).unalarmedClusters, []);
    assert.deepEqual(readLambdaConfig({ LINEUP_TABLE_NAME: 't', LINEUP_UNALARMED_CLUSTERS: 'a, b,' }).unalarmedClusters, ['a', 'b']);
  });

  it('redacts environment values in the journal unless LINEUP_JOURNAL_KEEP_ENV=true, and refuses another value', async () => {
    const { readLambdaConfig } = await import('../../lib/hosts/lambdaConfig.ts');
    assert.equal(readLambdaConfig({ LINEUP_TABLE_NAME: 't' }).journalKeepEnv, false);
    assert.equal(readLambdaConfig({ LINEUP_TABLE_NAME: 't', LINEUP_JOURNAL_KEEP_ENV: 'true' }).journalKeepEnv, true);
    assert.throws(() => readLambdaConfig({ LINEUP_TABLE_NAME: 't', LINEUP_JOURNAL_KEEP_ENV: 'yes' }), /LINEUP_JOURNAL_KEEP_ENV/);
  });
});
