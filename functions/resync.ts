/**
 * Resync Lambda, on an EventBridge Scheduler rate: re-queues JobSets the event flow left
 * behind; every `fullEvery`-th run (input `{"full": true}` from a second schedule) re-queues
 * every known JobSet. Every run publishes how many alarmed clusters are unwatched (UnwatchedClusters).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import { METRICS_NAMESPACE } from '../lib/constants.ts';
import { Counters } from '../lib/counters.ts';
import { unwatchedClustersMetric } from '../lib/fleet/metrics.ts';
import { lambdaSink, lambdaStore } from '../lib/hosts/lambdaAwsClients.ts';
import { readLambdaConfig } from '../lib/hosts/lambdaConfig.ts';
import { invocationMetrics, powertoolsLog } from '../lib/hosts/powertools.ts';
import { resync, type ResyncResult } from '../lib/reconcile/resync.ts';

const config = readLambdaConfig(process.env);
const logger = new Logger({ serviceName: 'lineup-resync' });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'resync' });
const counters = new Counters();
const deps = { store: lambdaStore(config, counters), sink: lambdaSink(config), now: Date.now, counters, log: powertoolsLog(logger), eventBusName: config.eventBusName, heartbeatMissingMs: config.heartbeatMissingMs, unalarmedClusters: new Set(config.unalarmedClusters) };

export const handler = middy<{ full?: boolean } | undefined, ResyncResult>()
  .use(injectLambdaContext(logger))
  .use(invocationMetrics(metrics, counters, { resultMetrics: unwatchedClustersMetric }))
  .handler((event: { full?: boolean } | undefined) => resync(deps, { full: event?.full === true }));
