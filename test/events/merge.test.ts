import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { entrySize, toPutEventsEntry } from '../../lib/events/envelope.ts';
import { changesOf, MAX_MERGED_ENTRY_BYTES, mergeDetails, mergeEntries } from '../../lib/events/merge.ts';
import { DetailType, LineupEventDetailSchema, MAX_OBJECTS_PER_EVENT, type LineupEventDetail } from '../../lib/events/schema.ts';
import { propertyParameters } from '../propertyRuns.ts';

/** jobChange: the detail of a Job's change as the forwarder builds it. */
const jobChange = (name: string, resourceVersion: string, seenAt: number, jobSet = 'train'): LineupEventDetail => ({
  cluster: 'dev',
  namespace: 'ml',
  jobSet,
  kind: 'Job',
  name,
  uid: `uid-${name}`,
  resourceVersion,
  watchType: 'MODIFIED',
  seenAt,
  observed: { kind: 'Job', replicatedJob: 'workers', deleting: false, suspend: false, active: 1, ready: 1, succeeded: 0, failed: 0, jobReady: true, finalizers: 0, conditions: [] },
});

const summary = (detail: LineupEventDetail): string[] => changesOf(detail).map((change) => `${change.kind}/${change.name}@${change.resourceVersion}`);

describe('events/merge', () => {
  it('keeps the newest change as the event’s own object and names every other object once, at its newest version', () => {
    const first = jobChange('train-workers-0', '10', 1_000);
    const second = jobChange('train-workers-1', '11', 1_005);
    const third = jobChange('train-workers-0', '12', 1_010);
    const merged = mergeDetails(mergeDetails(first, second) ?? assert.fail('one JobSet merges'), third) ?? assert.fail('one JobSet merges');
    assert.deepEqual(summary(merged), ['Job/train-workers-0@12', 'Job/train-workers-1@11']);
    assert.equal(merged.seenAt, 1_000, 'latency runs from the first change the event stands for');
    assert.doesNotThrow(() => LineupEventDetailSchema.parse(merged), 'the merged detail is a valid event');
  });

  it('keeps an object’s newest resourceVersion whichever event brought it (a held change folded into a later event may be newer than what that event names)', () => {
    // The window's event names a-0@10 and b-0@30; a-0@20 was held apart and is folded in after.
    const windowEvent = mergeDetails(jobChange('train-workers-0', '10', 0), jobChange('train-workers-1', '30', 5)) ?? assert.fail('one JobSet merges');
    const folded = mergeDetails(jobChange('train-workers-0', '20', 3), windowEvent) ?? assert.fail('one JobSet merges');
    assert.deepEqual(summary(folded), ['Job/train-workers-1@30', 'Job/train-workers-0@20']);
    // The newer event's own object stays its own, at the newest version either names.
    const own = mergeDetails(jobChange('train-workers-0', '50', 0), jobChange('train-workers-0', '40', 1)) ?? assert.fail('one JobSet merges');
    assert.deepEqual(summary(own), ['Job/train-workers-0@50']);
  });

  it('refuses to merge another JobSet’s or cluster’s change, and more than MAX_OBJECTS_PER_EVENT objects', () => {
    assert.equal(mergeDetails(jobChange('a-0', '1', 0, 'a'), jobChange('b-0', '2', 0, 'b')), undefined);
    assert.equal(mergeDetails(jobChange('a-0', '1', 0, 'a'), { ...jobChange('a-1', '2', 0, 'a'), cluster: 'prod' }), undefined);
    let detail = jobChange('train-workers-0', '1', 0);
    for (let index = 1; index < MAX_OBJECTS_PER_EVENT; index += 1) detail = mergeDetails(detail, jobChange(`train-workers-${index}`, String(index + 1), index)) ?? assert.fail(`object ${index + 1} fits`);
    assert.equal(changesOf(detail).length, MAX_OBJECTS_PER_EVENT);
    assert.equal(mergeDetails(detail, jobChange('train-workers-99', '100', 100)), undefined, 'one more object goes as another event');
  });

  it('merges entries only while the result stays within one 64 KB EventBridge billing chunk', () => {
    const entryOf = (detail: LineupEventDetail) => toPutEventsEntry({ source: 'lineup.dev', detailType: DetailType.JobChanged, detail });
    const merged = mergeEntries(entryOf(jobChange('train-workers-0', '1', 0)), entryOf(jobChange('train-workers-1', '2', 1)));
    assert.deepEqual(merged === undefined ? [] : summary(LineupEventDetailSchema.parse(JSON.parse(merged.Detail))), ['Job/train-workers-1@2', 'Job/train-workers-0@1']);
    // Names are bounded (lib/events/schema.ts EventBound): the bulk is a long condition reason.
    const big = (name: string) => {
      const change = { ...jobChange(name, '3', 0), jobSet: `train-${'x'.repeat(40)}` };
      return change.observed?.kind === 'Job' ? { ...change, observed: { ...change.observed, conditions: [{ type: 'Failed', status: 'True', reason: 'y'.repeat(3_000) }] } } : change;
    };
    let entry = entryOf(big('j-0'));
    let index = 1;
    for (let next = mergeEntries(entry, entryOf(big(`j-${index}`))); next !== undefined; next = mergeEntries(entry, entryOf(big(`j-${index}`)))) {
      entry = next;
      index += 1;
    }
    assert.ok(entrySize(entry) <= MAX_MERGED_ENTRY_BYTES, `the last merged entry is ${entrySize(entry)} bytes`);
    assert.ok(index > 2 && index < MAX_OBJECTS_PER_EVENT, `the size bound, not the count, stopped it (${index} objects)`);
  });

  it('for any sequence of one JobSet’s changes, the merged event names each object once at its last change', () => {
    const change = fc.record({ job: fc.integer({ min: 0, max: 5 }), at: fc.integer({ min: 0, max: 1_000 }) });
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 20 }), (changes) => {
        const details = changes.map(({ job, at }, index) => jobChange(`train-workers-${job}`, String(index + 1), at));
        const merged = details.slice(1).reduce<LineupEventDetail>((acc, next) => mergeDetails(acc, next) ?? assert.fail('fits'), details[0] ?? assert.fail('one change'));
        const lastVersion = new Map<string, string>();
        for (const detail of details) lastVersion.set(`Job/${detail.name}`, detail.resourceVersion);
        const named = changesOf(merged).map((named) => [`${named.kind}/${named.name}`, named.resourceVersion] as const);
        assert.deepEqual(new Map(named), lastVersion);
        assert.equal(named.length, lastVersion.size, 'each object once');
        assert.equal(merged.name, details.at(-1)?.name, 'the newest change is the event’s own object');
        assert.equal(merged.seenAt, Math.min(...changes.map(({ at }) => at)));
      }),
      propertyParameters(),
    );
  });
});
