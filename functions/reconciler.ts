/**
 * Reconciler Lambda: SQS batches of EventBridge events → lease, read, plan, execute per JobSet
 * (lib/reconcile). Each record's body is parsed with the Powertools EventBridge schema extended
 * by Lineup's detail (lib/events/envelope.ts), one record at a time: a record whose pass fails is
 * retried alone (partial batch response), a poison record is dropped and counted (see
 * lib/reconcile/sqsBatch.ts for which is which). Thin: configuration, clients and the batch
 * handler are built once at module scope, so warm invocations reuse them.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { METRICS_NAMESPACE } from '../lib/constants.ts';
import { Counters } from '../lib/counters.ts';
import { lambdaClusters, lambdaFairShare, lambdaStore } from '../lib/hosts/lambdaDeps.ts';
import { readLambdaConfig } from '../lib/hosts/lambdaConfig.ts';
import { invocationMetrics, powertoolsLog } from '../lib/hosts/powertools.ts';
import { InputsMemory } from '../lib/reconcile/inputsMemory.ts';
import { LAMBDA_LOOP_BUDGET_MS } from '../lib/reconcile/reconcileJobSet.ts';
import { makeSqsBatchHandler } from '../lib/reconcile/sqsBatch.ts';

const config = readLambdaConfig(process.env);
const logger = new Logger({ serviceName: 'lineup-reconciler' });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'reconciler' });
const counters = new Counters();
const store = lambdaStore(config, counters);
const log = powertoolsLog(logger);
const owner = `reconciler-${process.env['AWS_LAMBDA_LOG_STREAM_NAME'] ?? process.pid}`;
const batch = makeSqsBatchHandler(
  {
    store,
    resolveCluster: lambdaClusters(config, store, counters),
    planOptions: { controllerName: config.controllerName, claimUnmanaged: config.claimUnmanaged, limits: config.jobSetLimits },
    owner,
    inputsMemory: new InputsMemory(),
    now: Date.now,
    counters,
    log,
    applyReplays: config.applyReplays,
    loopBudgetMs: LAMBDA_LOOP_BUDGET_MS,
    journalKeepEnv: config.journalKeepEnv,
  },
  { fairShare: lambdaFairShare(config, counters, log, owner) },
);

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(injectLambdaContext(logger))
  .use(invocationMetrics(metrics, counters))
  .handler((event: SQSEvent, context: Context) => batch(event, context));
