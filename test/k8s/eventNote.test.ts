import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventNote, truncateUtf8, EVENT_NOTE_MAX_BYTES } from '../../lib/k8s/eventNote.ts';

describe('truncateUtf8', () => {
  const cases: { name: string; text: string; max: number; want: string }[] = [
    { name: 'a short text is kept whole', text: 'ready', max: 10, want: 'ready' },
    { name: 'a text of exactly the limit is kept whole', text: 'abcde', max: 5, want: 'abcde' },
    { name: 'a long text is cut and marked with an ellipsis', text: 'abcdefghij', max: 7, want: 'abcd…' },
    { name: 'a multi-byte character is never split', text: 'ééééé', max: 8, want: 'éé…' },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = truncateUtf8(tc.text, tc.max);
      assert.equal(got, tc.want);
      assert.ok(Buffer.byteLength(got, 'utf8') <= tc.max);
    });
  }
});

describe('eventNote', () => {
  it('keeps a message within the API limit whole and cuts a longer one to it', () => {
    assert.equal(eventNote('job created'), 'job created');
    const cut = eventNote('x'.repeat(EVENT_NOTE_MAX_BYTES + 1));
    assert.equal(Buffer.byteLength(cut, 'utf8'), EVENT_NOTE_MAX_BYTES);
    assert.ok(cut.endsWith('…'));
  });
});
