import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobNamesText, shortJobName } from '../../lib/replay/jobNames.ts';

describe('replay/jobNames: the Jobs an action names, in one short line', () => {
  it('names a few Jobs one by one, without the JobSet name in front', () => {
    assert.equal(jobNamesText(['js-driver-0', 'js-driver-1'], 'js'), 'driver-0, driver-1');
    assert.equal(jobNamesText(['js-driver-0'], 'js'), 'driver-0');
  });

  it('gives many Jobs of one replicatedJob as a range with their count', () => {
    const workers = Array.from({ length: 8 }, (_, index) => `js-worker-${index}`);
    assert.equal(jobNamesText(workers, 'js'), 'worker-0..7 (8 jobs)');
    assert.equal(jobNamesText(['js-w-0', 'js-w-1', 'js-w-2', 'js-w-5', 'js-w-7', 'js-w-8'], 'js'), 'w-0..2,5,7..8 (6 jobs)');
  });

  it('keeps each replicatedJob a run of its own, in the order the names come', () => {
    const names = ['js-driver-0', 'js-driver-1', ...Array.from({ length: 4 }, (_, index) => `js-worker-${index}`)];
    assert.equal(jobNamesText(names, 'js'), 'driver-0, driver-1, worker-0..3 (4 jobs)');
  });

  it('counts what does not fit: beyond six replicatedJobs, and names without an index', () => {
    const names = Array.from({ length: 8 }, (_, index) => `js-r${index}-0`);
    assert.equal(jobNamesText(names, 'js'), 'r0-0, r1-0, r2-0, r3-0, r4-0, r5-0 +2 more jobs');
    assert.equal(jobNamesText(['a', 'b'], 'js'), 'a, b');
  });

  it('shortJobName: only a name that starts with the JobSet name and a dash is shortened', () => {
    assert.equal(shortJobName('js-a-0', 'js'), 'a-0');
    assert.equal(shortJobName('jsx-a-0', 'js'), 'jsx-a-0');
    assert.equal(shortJobName('js', 'js'), 'js');
    assert.equal(shortJobName('js-', 'js'), 'js-');
  });
});
