/** The many-clusters benchmark's arithmetic: nearest-rank percentiles of stage latencies, and the per-call timings' summary. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CallTimings, percentile } from '../../bench/manyClusters.ts';

describe('percentile', () => {
  it('is the nearest-rank percentile, 0 for no values', () => {
    const values = [50, 10, 40, 20, 30];
    assert.equal(percentile(values, 50), 30);
    assert.equal(percentile(values, 99), 50);
    assert.equal(percentile(values, 1), 10);
    assert.equal(percentile([], 50), 0);
    assert.deepEqual(values, [50, 10, 40, 20, 30], 'the input is not sorted in place');
  });
});

describe('CallTimings', () => {
  it('summarises each call name: count, nearest-rank p50/p99 and the summed seconds, busiest first', () => {
    // Prepare
    const timings = new CallTimings();
    for (const ms of [100, 300, 200]) timings.add('kube.observe', ms);
    for (const ms of [1_000, 3_000]) timings.add('dynalite.PutItem', ms);
    // Act
    const summary = timings.summary();
    // Assess
    assert.deepEqual(summary, [
      { name: 'dynalite.PutItem', count: 2, p50Ms: 1_000, p99Ms: 3_000, totalS: 4 },
      { name: 'kube.observe', count: 3, p50Ms: 200, p99Ms: 300, totalS: 0.6 },
    ]);
  });
});
