import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Label } from '../../lib/jobset/api.ts';
import type { Job } from '../../lib/jobset/schema.ts';
import type { Observed } from '../../lib/plan/types.ts';
import { MAX_KNOWN_OBJECTS, afterWrites, changedSince, knownOf, nothingChanged } from '../../lib/reconcile/snapshot.ts';
import type { JournalEvent } from '../../lib/store/types.ts';
import { story2 } from './fixtures.ts';

const NAME = 'messagequeue-driver-worker';

/** job: a Job of the story-2 JobSet at `resourceVersion`. */
const job = (name: string, resourceVersion: string, ready = 0): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'default', resourceVersion, labels: { [Label.JobSetName]: NAME } },
  spec: { template: { spec: { containers: [] } } },
  status: { ready },
});

const observed = (): Observed => {
  const jobSet = story2();
  return { jobSet: { ...jobSet, metadata: { ...jobSet.metadata, resourceVersion: '10' } }, jobs: [job(`${NAME}-b`, '12'), job(`${NAME}-a`, '11')], service: undefined, now: 1 };
};

const trigger = (kind: 'Job' | 'JobSet', name: string, resourceVersion: string, watchType = 'MODIFIED'): JournalEvent => ({ detailType: `${kind} Changed`, kind, name, resourceVersion, watchType });

describe('reconcile/snapshot', () => {
  it('afterWrites applies each answer in place (a Job by name, in name order), and knows nothing after a write without one', () => {
    const before = observed();
    const jobSet = { ...before.jobSet, metadata: { ...before.jobSet.metadata, resourceVersion: '20' } };
    const after = afterWrites(before, [{ kind: 'Job', job: job(`${NAME}-a`, '21', 1) }, { kind: 'Job', job: job(`${NAME}-0`, '22') }, { kind: 'JobSet', jobSet }, { kind: 'Unchanged' }]);
    assert.deepEqual(after?.jobs.map((j) => [j.metadata.name, j.metadata.resourceVersion]), [
      [`${NAME}-0`, '22'],
      [`${NAME}-a`, '21'],
      [`${NAME}-b`, '12'],
    ]);
    assert.equal(after?.jobSet.metadata.resourceVersion, '20');
    assert.equal(afterWrites(before, [{ kind: 'Unchanged' }, undefined]), undefined);
  });

  it('changedSince names the objects at another version than the snapshot holds; a Sync, a deletion of the JobSet or another JobSet name everything', () => {
    const snapshot = observed();
    const changed = changedSince(snapshot, [trigger('Job', `${NAME}-a`, '11'), trigger('Job', `${NAME}-b`, '13'), trigger('Job', `${NAME}-new`, '5'), trigger('JobSet', NAME, '10')]);
    assert.deepEqual(changed, { jobSetChanged: false, jobs: [`${NAME}-b`, `${NAME}-new`] });
    assert.equal(changed !== undefined && nothingChanged(changed), false);
    const echoes = changedSince(snapshot, [trigger('Job', `${NAME}-a`, '11'), trigger('JobSet', NAME, '10')]);
    assert.ok(echoes !== undefined && nothingChanged(echoes));
    assert.deepEqual(changedSince(snapshot, [trigger('Job', `${NAME}-a`, '11', 'DELETED')]), { jobSetChanged: false, jobs: [`${NAME}-a`] }, 'a deletion is read whatever its version');
    assert.deepEqual(changedSince(snapshot, [trigger('JobSet', NAME, '11')]), { jobSetChanged: true, jobs: [] });
    assert.equal(changedSince(snapshot, [{ ...trigger('JobSet', NAME, ''), watchType: 'SYNC' }]), undefined);
    assert.equal(changedSince(snapshot, [trigger('JobSet', NAME, '10', 'DELETED')]), undefined);
    assert.equal(changedSince(snapshot, [trigger('JobSet', 'other', '10')]), undefined);
  });

  it('knownOf maps every object to its version, and gives up past MAX_KNOWN_OBJECTS or on an object without one', () => {
    assert.deepEqual(knownOf(observed()), { [`JobSet/${NAME}`]: '10', [`Job/${NAME}-b`]: '12', [`Job/${NAME}-a`]: '11' });
    const many = { ...observed(), jobs: Array.from({ length: MAX_KNOWN_OBJECTS }, (_, index) => job(`${NAME}-${index}`, String(index + 1))) };
    assert.equal(knownOf(many), undefined);
    assert.equal(knownOf({ ...observed(), jobs: [job(`${NAME}-x`, '')] }), undefined);
  });

});
