/**
 * Forwarder Lambda ("watch session"), one per cluster, invoked on a schedule: watches the
 * cluster for at most WATCH_SESSION_MAX_MS (under Lambda's 15 minutes, leaving time to flush)
 * and forwards decision-relevant changes to the bus; the next session resumes from the
 * checkpointed resourceVersion. Thin: the host wiring lives in lib/hosts/forwarderHost.ts.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { METRICS_NAMESPACE } from '../lib/constants.ts';
import { CounterName, Counters } from '../lib/counters.ts';
import { forwarderFor, sessionLength } from '../lib/hosts/forwarderHost.ts';
import { readLambdaConfig } from '../lib/hosts/lambdaConfig.ts';
import { lambdaSink, lambdaStore } from '../lib/hosts/lambdaDeps.ts';
import { invocationMetrics, powertoolsLog } from '../lib/hosts/powertools.ts';

const config = readLambdaConfig(process.env);
const logger = new Logger({ serviceName: 'lineup-forwarder' });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'forwarder' });
const counters = new Counters();
const store = lambdaStore(config, counters);
const sink = lambdaSink(config);
// Built on the first invocation (and kept for warm ones), so a registry lookup that fails is
// that invocation's error, reported by Lambda, not an unhandled rejection at import.
let forwarder: ReturnType<typeof forwarderFor> | undefined;

export const handler = middy<unknown, void, Error, Context>()
  .use(injectLambdaContext(logger))
  // A failed session counts for the fleet's one ForwarderSessionErrors alarm (no per-cluster alarm).
  .use(invocationMetrics(metrics, counters, { errorCounter: CounterName.ForwarderSessionErrors }))
  .handler(async (_event, context) => {
    forwarder ??= forwarderFor({ config, store, sink, counters, log: powertoolsLog(logger) }).catch((error: unknown) => {
      forwarder = undefined;
      throw error;
    });
    await (await forwarder).runFor(sessionLength(context.getRemainingTimeInMillis()));
  });
