/** The many-clusters benchmark's arithmetic: nearest-rank percentiles of stage latencies. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { percentile } from '../../bench/manyClusters.ts';

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
