/**
 * The reconciler Lambda entry point as Lambda would call it: module-scope configuration from
 * the environment, middy with Powertools logger and metrics, the batch handler — against a real
 * DynamoDB-API server (dynalite) reached through the SDK's endpoint variable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Context } from 'aws-lambda';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { detailFor, eventBridgeEvent, sqsEvent } from '../reconcile/fixtures.ts';

const context: Context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'lineup-reconciler',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:lineup-reconciler',
  memoryLimitInMB: '256',
  awsRequestId: 'request-1',
  logGroupName: '/aws/lambda/lineup-reconciler',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};

let dynamo: EmbeddedDynamo | undefined;

describe('functions/reconciler', () => {
  before(async () => {
    dynamo = await startEmbeddedDynamo();
    Object.assign(process.env, {
      LINEUP_TABLE_NAME: dynamo.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    });
  });
  after(async () => {
    await dynamo?.stop();
  });

  it('answers a batch with the malformed records as item failures and drops events of unknown clusters', async () => {
    const { handler } = await import('../../functions/reconciler.ts');
    const response = await handler(
      sqsEvent(['not json at all', JSON.stringify(eventBridgeEvent(detailFor('js', { cluster: 'unregistered' })))]),
      context,
    );
    assert.deepEqual(response.batchItemFailures, [{ itemIdentifier: 'm0' }]);
  });

  it('refuses to start with a configuration that is not usable, naming the variable', async () => {
    const { readLambdaConfig } = await import('../../lib/hosts/lambdaConfig.ts');
    assert.throws(() => readLambdaConfig({ LINEUP_TABLE_NAME: 't', LINEUP_STATIC_CLUSTERS: '[{"id": "x"}]' }), /LINEUP_STATIC_CLUSTERS/);
    assert.throws(() => readLambdaConfig({}), /LINEUP_TABLE_NAME/);
  });
});
