/**
 * publishHeartbeat as CloudWatch reads it: one EMF line at once, the `Heartbeats` metric under
 * Lineup's namespace with the dimensions the stack's heartbeat alarm names (service and cluster).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE } from '../../lib/constants.ts';
import { HeartbeatMetric } from '../../lib/fleet/heartbeatRecorder.ts';
import { publishHeartbeat } from '../../lib/hosts/powertools.ts';

describe('hosts/powertools publishHeartbeat', () => {
  it('writes one EMF record of Heartbeats=1 with the service and cluster dimensions, at once', () => {
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'reconciler' });
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      publishHeartbeat(metrics, 'eu-1');
    } finally {
      process.stdout.write = write;
    }
    const records = written.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown> & { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] } });
    assert.equal(records.length, 1, written.join(''));
    const [record] = records;
    const [directive] = record?._aws.CloudWatchMetrics ?? [];
    assert.equal(directive?.Namespace, METRICS_NAMESPACE);
    assert.deepEqual(directive?.Dimensions.map((set) => [...set].sort()), [[HeartbeatMetric.clusterDimension, 'service']]);
    assert.deepEqual(directive?.Metrics.map((metric) => metric.Name), [HeartbeatMetric.name]);
    assert.equal(record?.[HeartbeatMetric.clusterDimension], 'eu-1');
    assert.equal(record?.['service'], 'reconciler');
    assert.equal(record?.[HeartbeatMetric.name], 1);
  });
});
