/** The deviations table as the verdicts read it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deviationRows, quotedRows } from './deviations.ts';

describe('deviationRows', () => {
  it('reads every row of the table, its upstream cell without backticks', () => {
    const rows = deviationRows();
    assert.ok(rows.length >= 10, `${rows.length} rows`);
    assert.ok(rows.includes('a self-dependency is accepted and deadlocks'));
    assert.ok(rows.some((row) => row.startsWith('conditions only for InOrder')));
    assert.ok(rows.every((row) => !row.includes('`') && !row.startsWith('|') && row !== '---'));
  });
});

describe('quotedRows', () => {
  it('finds each deviation row a verdict quotes', () => {
    assert.deepEqual(quotedRows('deviation "a" → "b"; deviation "c"'), ['a', 'c']);
    assert.deepEqual(quotedRows('no row'), []);
  });
});
