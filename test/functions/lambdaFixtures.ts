/** What the Lambda entry points' tests share: a Lambda context, and the environment a function reads at module scope. */
import type { Context } from 'aws-lambda';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';

/** lambdaContext: the context Lambda would pass the reconciler. */
export const lambdaContext: Context = {
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

/**
 * startFunctionEnvironment: a DynamoDB-API server (dynalite) and the environment a function reads
 * at module scope pointing at it, with Powertools' metrics switch and log level as given.
 */
export const startFunctionEnvironment = async (powertools: { readonly metricsDisabled: boolean; readonly logLevel: string }): Promise<EmbeddedDynamo> => {
  const dynamo = await startEmbeddedDynamo();
  Object.assign(process.env, {
    LINEUP_TABLE_NAME: dynamo.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    POWERTOOLS_METRICS_DISABLED: String(powertools.metricsDisabled),
    POWERTOOLS_LOG_LEVEL: powertools.logLevel,
  });
  return dynamo;
};
