/**
 * The metrics middleware every Lambda entry point uses (invocationMetrics), read back as
 * CloudWatch reads it: the EMF records Powertools writes to stdout. Each invocation publishes the
 * counters that moved during it — when the handler returns, when it returns a partial batch
 * failure, and when it throws (the error still fails the invocation) — under Lineup's namespace
 * with the `service` dimension alone; a result's metrics (the resync's `UnwatchedClusters`) are
 * published with 0 too and never with a cluster dimension, which would make a custom metric per cluster.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import type { Context, SQSBatchResponse } from 'aws-lambda';
import { METRICS_NAMESPACE } from '../../lib/constants.ts';
import { CounterName, Counters, metricName } from '../../lib/counters.ts';
import { FleetMetric, unwatchedClustersMetric } from '../../lib/fleet/metrics.ts';
import { invocationMetrics, type InvocationMetricsOptions } from '../../lib/hosts/powertools.ts';
import { emfOf, lambdaContext, outputOf, settled } from '../functions/lambdaFixtures.ts';

type EmfRecord = Record<string, unknown> & {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
};

/** Outcome: what one invocation returned or threw, and the EMF records it wrote. */
interface Outcome<T> {
  readonly result?: T;
  readonly error?: unknown;
  readonly emf: EmfRecord[];
}

/** invoke: one invocation of `handler` as Lambda makes it, its output read back. */
const invoke = async <T>(handler: (event: unknown, context: Context) => Promise<T>): Promise<Outcome<T>> => {
  const { result: outcome, lines } = await outputOf(() => settled(handler({}, lambdaContext)));
  const emf = emfOf(lines) as EmfRecord[];
  return 'value' in outcome ? { result: outcome.value, emf } : { error: outcome.error, emf };
};

/** lambdaWith: a middy handler running `body` behind invocationMetrics, as the entry points in functions/ are built. */
const lambdaWith = <T>(
  service: string,
  counters: Counters,
  body: () => Promise<T>,
  options?: InvocationMetricsOptions<T>,
): ((event: unknown, context: Context) => Promise<T>) => {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service });
  return middy<unknown, T, Error, Context>().use(invocationMetrics<unknown, T>(metrics, counters, options)).handler(body);
};

/** only: the one EMF record of an invocation, its directive checked: Lineup's namespace, the `service` dimension alone, every metric a Count. */
const only = (emf: readonly EmfRecord[], service: string): EmfRecord => {
  assert.equal(emf.length, 1, `one EMF record per invocation: ${JSON.stringify(emf)}`);
  const [record] = emf;
  assert.ok(record);
  const [directive] = record._aws.CloudWatchMetrics;
  assert.equal(directive?.Namespace, METRICS_NAMESPACE);
  assert.deepEqual(directive?.Dimensions, [['service']]);
  assert.equal(record['service'], service);
  assert.ok(directive?.Metrics.every((metric) => metric.Unit === 'Count'), JSON.stringify(directive?.Metrics));
  return record;
};

/** metricNames: the metrics an EMF record declares, sorted. */
const metricNames = (record: EmfRecord): string[] => (record._aws.CloudWatchMetrics[0]?.Metrics ?? []).map((metric) => metric.Name).sort();

describe('hosts/powertools invocationMetrics', () => {
  it('on success publishes the counters that moved during the invocation, by their metric names, and not those counted before it', async () => {
    const counters = new Counters();
    counters.add(CounterName.Passes, 7); // a warm function's earlier invocations
    counters.add(CounterName.Echoes);
    const handler = lambdaWith('reconciler', counters, async () => {
      counters.add(CounterName.Passes, 2);
      counters.add(`${CounterName.DynamoPrefix}UpdateItem`, 3);
      return 'done';
    });
    const first = await invoke(handler);
    assert.equal(first.result, 'done');
    const record = only(first.emf, 'reconciler');
    assert.deepEqual(metricNames(record), ['DynamodbUpdateItem', 'ReconcilerPasses']);
    assert.equal(record[metricName(CounterName.Passes)], 2);
    assert.equal(record['DynamodbUpdateItem'], 3);

    // The next (warm) invocation publishes its own deltas only.
    const second = await invoke(lambdaWith('reconciler', counters, async () => counters.add(CounterName.Passes)));
    assert.deepEqual(metricNames(only(second.emf, 'reconciler')), ['ReconcilerPasses']);
    assert.equal(only(second.emf, 'reconciler')['ReconcilerPasses'], 1);
  });

  it('on a partial batch failure returns the failed items and publishes the counters of the whole batch', async () => {
    const counters = new Counters();
    const failures: SQSBatchResponse = { batchItemFailures: [{ itemIdentifier: 'm1' }] };
    const handler = lambdaWith('reconciler', counters, async () => {
      counters.add(CounterName.Invocations, 2);
      counters.add(CounterName.PoisonRecords);
      return failures;
    });
    const { result, emf } = await invoke(handler);
    assert.deepEqual(result, failures);
    const record = only(emf, 'reconciler');
    assert.deepEqual(metricNames(record), ['ReconcilerInvocations', 'ReconcilerPoisonRecords']);
    assert.equal(record['ReconcilerInvocations'], 2);
  });

  it('on a thrown error publishes what moved and the error counter, and the invocation still fails with that error', async () => {
    const counters = new Counters();
    const failure = new Error('watch session failed');
    const handler = lambdaWith(
      'forwarder',
      counters,
      async (): Promise<void> => {
        counters.add(CounterName.WatchEvents, 4);
        throw failure;
      },
      { errorCounter: CounterName.ForwarderSessionErrors },
    );
    const { error, emf } = await invoke(handler);
    assert.equal(error, failure);
    const record = only(emf, 'forwarder');
    assert.deepEqual(metricNames(record), [FleetMetric.ForwarderSessionErrors.name, 'ForwarderWatchEvents']);
    assert.equal(record[FleetMetric.ForwarderSessionErrors.name], 1);
    assert.equal(record['ForwarderWatchEvents'], 4);
    assert.equal(counters.get(CounterName.ForwarderSessionErrors), 1);
    // A session that returns counts no error.
    const fine = await invoke(lambdaWith('forwarder', counters, async () => counters.add(CounterName.WatchEvents), { errorCounter: CounterName.ForwarderSessionErrors }));
    assert.deepEqual(metricNames(only(fine.emf, 'forwarder')), ['ForwarderWatchEvents']);
  });

  it("publishes the resync's UnwatchedClusters=N from its result, 0 included, with the service dimension alone", async () => {
    for (const alarmed of [3, 0]) {
      const counters = new Counters();
      const handler = lambdaWith(FleetMetric.UnwatchedClusters.service, counters, async () => ({ alarmed }), { resultMetrics: unwatchedClustersMetric });
      const { result, emf } = await invoke(handler);
      assert.deepEqual(result, { alarmed });
      const record = only(emf, FleetMetric.UnwatchedClusters.service);
      assert.deepEqual(metricNames(record), [FleetMetric.UnwatchedClusters.name]);
      assert.equal(record[FleetMetric.UnwatchedClusters.name], alarmed);
      assert.equal(Object.keys(record).some((key) => key === 'cluster'), false);
    }
  });

  it('publishes no result metric when the handler throws: missing data means the run failed', async () => {
    const counters = new Counters();
    const handler = lambdaWith(
      FleetMetric.UnwatchedClusters.service,
      counters,
      async (): Promise<{ alarmed: number }> => {
        counters.add(`${CounterName.DynamoPrefix}Query`);
        throw new Error('table gone');
      },
      { resultMetrics: unwatchedClustersMetric },
    );
    const { error, emf } = await invoke(handler);
    assert.match(String(error), /table gone/);
    assert.deepEqual(metricNames(only(emf, FleetMetric.UnwatchedClusters.service)), ['DynamodbQuery']);
  });

  it('when an earlier middleware fails before the handler, publishes the error counter alone, not what earlier invocations counted', async () => {
    const counters = new Counters();
    counters.add(CounterName.WatchEvents, 9); // earlier invocations of a warm function
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'forwarder' });
    const failure = new Error('context middleware failed');
    const handler = middy<unknown, void, Error, Context>()
      .use({
        before: () => {
          throw failure;
        },
      })
      .use(invocationMetrics<unknown, void>(metrics, counters, { errorCounter: CounterName.ForwarderSessionErrors }))
      .handler(async () => assert.fail('the handler does not run'));
    const { error, emf } = await invoke(handler);
    assert.equal(error, failure);
    assert.deepEqual(metricNames(only(emf, 'forwarder')), [FleetMetric.ForwarderSessionErrors.name]);
  });
});
