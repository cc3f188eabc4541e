/**
 * The finished-jobs record kept in the JobSet annotation `lineup.dev/finished-jobs`
 * (Lineup's answer to kubernetes-sigs/jobset#360: a Job its own TTL deleted is not re-created and keeps counting).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  emptyRecord,
  formatRanges,
  formatRecord,
  parseRanges,
  parseRecord,
  recordHas,
  withRecorded,
  type FinishedJobsRecord,
} from '../../lib/plan/finishedJobs.ts';

const indexSet = fc.uniqueArray(fc.nat({ max: 200 }), { maxLength: 60 }).map((indices) => new Set(indices));

const record = (restartAttempt: number, succeeded: Record<string, number[]>, failed: Record<string, number[]>): FinishedJobsRecord => ({
  restartAttempt,
  succeeded: new Map(Object.entries(succeeded).map(([name, indices]) => [name, new Set(indices)])),
  failed: new Map(Object.entries(failed).map(([name, indices]) => [name, new Set(indices)])),
});

describe('plan/finishedJobs', () => {
  describe('formatRanges / parseRanges', () => {
    it('parseRanges(formatRanges(s)) is s for any set of small non-negative indices', () => {
      fc.assert(
        fc.property(indexSet, (indices) => {
          assert.deepEqual(parseRanges(formatRanges(indices)), indices);
        }),
      );
    });

    it('formatRanges writes one canonical text per set: sorted, consecutive runs collapsed', () => {
      fc.assert(
        fc.property(indexSet, (indices) => {
          const text = formatRanges(indices);
          assert.equal(formatRanges(new Set([...indices].reverse())), text);
          assert.match(text, /^(\d+(-\d+)?(,\d+(-\d+)?)*)?$/);
          // No two neighbouring parts could have been one run.
          const parts = text === '' ? [] : text.split(',');
          for (let i = 1; i < parts.length; i += 1) {
            const previousEnd = Number((parts[i - 1] ?? '').split('-').at(-1));
            const start = Number((parts[i] ?? '').split('-')[0]);
            assert.ok(start > previousEnd + 1, `${text}: ${parts[i - 1]} and ${parts[i]} should be one run`);
          }
        }),
      );
    });

    const examples: { name: string; indices: number[]; text: string }[] = [
      { name: 'the empty set is the empty string', indices: [], text: '' },
      { name: 'a single index', indices: [7], text: '7' },
      { name: 'a run and a stray index, given out of order', indices: [5, 3, 0, 2, 1], text: '0-3,5' },
      { name: 'two-element runs are written as ranges', indices: [0, 1, 10, 11], text: '0-1,10-11' },
      { name: '1,000 consecutive replicas fit in one range', indices: Array.from({ length: 1000 }, (_, i) => i), text: '0-999' },
    ];
    for (const tc of examples) {
      it(`formats and parses: ${tc.name}`, () => {
        assert.equal(formatRanges(new Set(tc.indices)), tc.text);
        assert.deepEqual(parseRanges(tc.text), new Set(tc.indices));
      });
    }

    const malformed = ['a', '1-', '-1', '3-1', '1,,2', ',1', '1,', ' 1', '1 - 2', '1.5', '0x1', '1-2-3'];
    for (const text of malformed) {
      it(`parseRanges rejects ${JSON.stringify(text)}`, () => {
        assert.equal(parseRanges(text), undefined);
      });
    }
  });

  describe('parseRecord', () => {
    const annotation = JSON.stringify({ restartAttempt: 2, succeeded: { driver: '0', workers: '0-2,5' }, failed: { workers: '3' } });

    it('reads the record of the current restart attempt', () => {
      assert.deepEqual(parseRecord(annotation, 2), { record: record(2, { driver: [0], workers: [0, 1, 2, 5] }, { workers: [3] }) });
    });

    const cases: { name: string; annotation: string | undefined; problem: RegExp | undefined }[] = [
      { name: 'an absent annotation is an empty record, no problem', annotation: undefined, problem: undefined },
      { name: 'a record of another restart attempt is an empty record, no problem (the next write replaces it)', annotation: annotation.replace('"restartAttempt":2', '"restartAttempt":1'), problem: undefined },
      { name: 'malformed JSON is an empty record and a problem', annotation: '{"restartAttempt":2,', problem: /^finished-jobs annotation is not JSON: / },
      { name: 'JSON of the wrong shape is an empty record and a problem', annotation: JSON.stringify({ restartAttempt: 2, succeeded: { driver: 0 } }), problem: /^finished-jobs annotation is malformed: / },
      { name: 'a negative restart attempt is malformed', annotation: JSON.stringify({ restartAttempt: -1, succeeded: {}, failed: {} }), problem: /^finished-jobs annotation is malformed: / },
      {
        name: 'malformed index ranges in succeeded are an empty record and a problem',
        annotation: JSON.stringify({ restartAttempt: 2, succeeded: { driver: '0-' }, failed: {} }),
        problem: /^finished-jobs annotation has malformed index ranges$/,
      },
      {
        name: 'malformed index ranges in failed are an empty record and a problem',
        annotation: JSON.stringify({ restartAttempt: 2, succeeded: { driver: '0' }, failed: { workers: '3-1' } }),
        problem: /^finished-jobs annotation has malformed index ranges$/,
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        const got = parseRecord(tc.annotation, 2);
        assert.deepEqual(got.record, emptyRecord(2));
        if (tc.problem === undefined) assert.equal('problem' in got, false);
        else assert.match(got.problem ?? '', tc.problem);
      });
    }

    it('an index range too large for any replicatedJob is a problem, not expanded (plan() calls parseRecord on every pass)', () => {
      // A hand-edited annotation must not take a pass down: expanding "0-4294967295" index by
      // index runs for seconds and then throws RangeError (Set maximum size exceeded).
      const huge = JSON.stringify({ restartAttempt: 2, succeeded: { workers: '0-4294967295' }, failed: {} });
      const got = parseRecord(huge, 2);
      assert.deepEqual(got.record, emptyRecord(2));
      assert.match(got.problem ?? '', /^finished-jobs annotation /);
    });

    it('parseRecord(formatRecord(r)) is r for records of the current attempt', () => {
      const byName = fc.dictionary(fc.constantFrom('driver', 'workers', 'ps', 'eval'), indexSet.filter((s) => s.size > 0));
      fc.assert(
        fc.property(fc.nat({ max: 5 }), byName, byName, (attempt, succeeded, failed) => {
          const original: FinishedJobsRecord = { restartAttempt: attempt, succeeded: new Map(Object.entries(succeeded)), failed: new Map(Object.entries(failed)) };
          const text = formatRecord(original);
          const parsed = parseRecord(text, attempt);
          assert.equal(parsed.problem, undefined);
          assert.deepEqual(parsed.record, original);
          assert.equal(formatRecord(parsed.record), text);
        }),
      );
    });
  });

  describe('withRecorded / recordHas', () => {
    it('adds Jobs to a copy and leaves the original record untouched', () => {
      const before = record(0, { driver: [0] }, {});
      const after = withRecorded(before, [
        { outcome: 'succeeded', replicatedJob: 'workers', index: 4 },
        { outcome: 'failed', replicatedJob: 'driver', index: 1 },
      ]);
      assert.deepEqual(after, record(0, { driver: [0], workers: [4] }, { driver: [1] }));
      assert.deepEqual(before, record(0, { driver: [0] }, {}));
      assert.equal(recordHas(after, 'succeeded', 'workers', 4), true);
      assert.equal(recordHas(after, 'failed', 'workers', 4), false);
      assert.equal(recordHas(after, 'succeeded', 'unknown', 0), false);
    });

    it('formatRecord leaves out replicatedJobs with no recorded index', () => {
      assert.equal(formatRecord(record(1, { driver: [], workers: [0, 1] }, { driver: [] })), '{"restartAttempt":1,"succeeded":{"workers":"0-1"},"failed":{}}');
    });
  });
});
