/**
 * publishUnwatchedClusters as CloudWatch reads it: the `UnwatchedClusters` metric under Lineup's
 * namespace with only the `service` dimension the stack's one alarm names — never a cluster
 * dimension, which would make a custom metric per cluster — published with 0 too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from '../../lib/constants.ts';
import { FleetMetric } from '../../lib/fleet/metrics.ts';
import { publishUnwatchedClusters } from '../../lib/hosts/powertools.ts';

type EmfRecord = Record<string, unknown> & { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] } };

/** published: the EMF records the resync's Metrics writes for one run that found `count` unwatched clusters. */
const published = (count: number): EmfRecord[] => {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: FleetMetric.UnwatchedClusters.service });
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stdout.write;
  try {
    publishUnwatchedClusters(metrics, count);
    metrics.publishStoredMetrics();
  } finally {
    process.stdout.write = write;
  }
  return written.join('').trim().split('\n').map((line) => JSON.parse(line) as EmfRecord);
};

describe('hosts/powertools publishUnwatchedClusters', () => {
  it('writes UnwatchedClusters=N with the service dimension alone', () => {
    const records = published(3);
    assert.equal(records.length, 1);
    const [record] = records;
    const [directive] = record?._aws.CloudWatchMetrics ?? [];
    assert.equal(directive?.Namespace, METRICS_NAMESPACE);
    assert.deepEqual(directive?.Dimensions, [['service']]);
    assert.deepEqual(directive?.Metrics.map((metric) => metric.Name), [FleetMetric.UnwatchedClusters.name]);
    assert.equal(record?.['service'], FleetMetric.UnwatchedClusters.service);
    assert.equal(record?.[FleetMetric.UnwatchedClusters.name], 3);
    assert.equal(Object.keys(record ?? {}).some((key) => key === 'cluster'), false);
  });

  it('publishes 0 too, so missing data means the resync did not run', () => {
    const [record] = published(0);
    assert.equal(record?.[FleetMetric.UnwatchedClusters.name], 0);
  });
});
