import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ErrorCode, InvalidInputError } from '../lib/errors.ts';
import { formatDuration, parseDuration, parseDurationFlag } from '../lib/duration.ts';

describe('duration', () => {
  describe('parseDuration', () => {
    const cases: { name: string; input: string | number; want: number }[] = [
      { name: 'milliseconds', input: '500ms', want: 500 },
      { name: 'seconds', input: '1s', want: 1_000 },
      { name: 'minutes', input: '2m', want: 120_000 },
      { name: 'hours', input: '1h', want: 3_600_000 },
      { name: 'hours and minutes', input: '1h30m', want: 5_400_000 },
      { name: 'every unit at once', input: '1h2m3s4ms', want: 3_723_004 },
      { name: 'a fraction of a second', input: '1.5s', want: 1_500 },
      { name: 'a fraction without a leading zero', input: '.25s', want: 250 },
      { name: 'the string 0', input: '0', want: 0 },
      { name: 'the number 0 (YAML reads `0` as a number)', input: 0, want: 0 },
      { name: 'zero with a unit', input: '0ms', want: 0 },
      { name: 'never', input: 'never', want: Infinity },
      { name: 'surrounding blanks', input: ' 5s ', want: 5_000 },
    ];
    for (const tc of cases) {
      it(`reads ${tc.name}`, () => {
        assert.equal(parseDuration(tc.input), tc.want);
      });
    }

    const bad: { name: string; input: string | number; mentions: string }[] = [
      { name: 'an empty string', input: '', mentions: 'empty' },
      { name: 'a bare number other than 0', input: '5', mentions: 'not valid' },
      { name: 'a YAML number other than 0', input: 5, mentions: 'no unit' },
      { name: 'an unknown unit', input: '5x', mentions: '"5x"' },
      { name: 'days (not a supported unit)', input: '1d', mentions: 'units h, m, s, ms' },
      { name: 'a negative duration', input: '-1s', mentions: '"-1s"' },
      { name: 'a blank inside', input: '1h 30m', mentions: '"1h 30m"' },
      { name: 'a unit without a number', input: 's', mentions: '"s"' },
      { name: 'less than a millisecond', input: '1.5ms', mentions: 'finer than a millisecond' },
      { name: 'a capitalised Never', input: 'Never', mentions: '"Never"' },
    ];
    for (const tc of bad) {
      it(`refuses ${tc.name} with a message saying what is expected`, () => {
        assert.throws(
          () => parseDuration(tc.input),
          (error: unknown) => {
            assert.ok(error instanceof Error && 'code' in error && error.code === ErrorCode.INVALID_INPUT);
            assert.match(error.message, new RegExp(tc.mentions.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
            return true;
          },
        );
      });
    }
  });

  describe('parseDurationFlag', () => {
    it('reads a good value as parseDuration does', () => {
      assert.equal(parseDurationFlag('--until', '1h30m'), 5_400_000);
      assert.equal(parseDurationFlag('--until', 'never'), Infinity);
    });

    it('refuses a bad value naming the flag first, then what parseDuration says', () => {
      assert.throws(
        () => parseDurationFlag('--speed', 'fast'),
        (error: unknown) =>
          error instanceof InvalidInputError &&
          error.message === '--speed: duration "fast" is not valid: expected terms like 500ms, 5s, 2m, 1h30m (units h, m, s, ms), 0 or never',
      );
    });
  });

  describe('formatDuration', () => {
    const cases: { ms: number; want: string }[] = [
      { ms: 0, want: '0s' },
      { ms: 500, want: '500ms' },
      { ms: 1_000, want: '1s' },
      { ms: 1_500, want: '1.5s' },
      { ms: 120_000, want: '2m' },
      { ms: 5_400_000, want: '1h30m' },
      { ms: 3_723_500, want: '1h2m3.5s' },
      { ms: 86_400_000, want: '24h' },
      { ms: Infinity, want: 'never' },
    ];
    for (const tc of cases) {
      it(`writes ${tc.ms} ms as ${tc.want}`, () => {
        assert.equal(formatDuration(tc.ms), tc.want);
      });
    }

    it('gives back what parseDuration reads, for any whole number of milliseconds', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10 * 86_400_000 }), (ms) => parseDuration(formatDuration(ms)) === ms),
      );
    });
  });
});
