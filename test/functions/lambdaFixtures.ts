/** What the Lambda entry points' tests share: a Lambda context, the environment a function reads at module scope, and its Powertools output read back. */
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

/**
 * outputOf: what `act` writes to stdout and stderr as JSON lines (a line that is not JSON as
 * `{ text }`): Powertools' Metrics and Logger write there, errors to stderr. Only text is taken:
 * Powertools writes strings through a Console, while node's test runner reports to its parent over
 * the same stdout in binary chunks, which must go through or the file's earlier results are lost.
 */
export const outputOf = async <T>(act: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> => {
  const written: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write.bind(stream));
  streams.forEach((stream, index) => {
    const write = writes[index] as typeof stream.write;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (typeof chunk !== 'string') return (write as (chunk: Uint8Array, ...rest: unknown[]) => boolean)(chunk, ...rest);
      written.push(chunk);
      return true;
    }) as typeof stream.write;
  });
  try {
    const result = await act();
    return { result, lines: written.join('').split('\n').filter((line) => line.trim() !== '').map((line): Record<string, unknown> => (line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : { text: line })) };
  } finally {
    streams.forEach((stream, index) => {
      stream.write = writes[index] as typeof stream.write;
    });
  }
};

/** emfOf: the EMF records (CloudWatch metrics) among `lines`. */
export const emfOf = (lines: readonly Record<string, unknown>[]): Record<string, unknown>[] => lines.filter((line) => line['_aws'] !== undefined);

/** settled: what `promise` gave, its value or the error it rejected with, so outputOf (which rethrows) keeps the output of a failed invocation. */
export const settled = <T>(promise: Promise<T>): Promise<{ readonly value: T } | { readonly error: unknown }> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
