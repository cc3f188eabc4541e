import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { StoreInvalidError } from '../../lib/errors.ts';
import { journalAttributes, journalEntryFromItem, journalItemChars, legacyJournalAttributes } from '../../lib/store/items.ts';
import { Attr, TABLE_KEY } from '../../lib/store/table.ts';
import type { JobSetKey } from '../../lib/store/types.ts';
import { makeJournalEntry } from './storeBehaviour.ts';

const key: JobSetKey = { cluster: 'dev', namespace: 'ml', name: 'train' };
const T0 = 1_800_000_000_000;
/** inputs as the journal writes them: gzip+base64 of their JSON. */
const inputs = gzipSync(JSON.stringify({ jobSet: { metadata: { name: 'train' } }, jobs: [{ metadata: { name: 'train-a-0' } }] })).toString('base64');
const stored = (item: Record<string, unknown>) => ({ ...item, [TABLE_KEY.partitionKey]: 'JS#dev#ml#train', [TABLE_KEY.sortKey]: 'J#1' });

describe('store/items journal', () => {
  it('stores an entry as its time and one packed binary, and reads it back whole', () => {
    const entry = makeJournalEntry(key, T0, { inputsKept: 'stored', inputs, replayName: 'replay-1', actionsOmitted: 2 });
    const attributes = journalAttributes(entry);
    assert.deepEqual(Object.keys(attributes).sort(), [Attr.at, Attr.packed]);
    assert.ok(attributes[Attr.packed] instanceof Uint8Array);
    assert.deepEqual(journalEntryFromItem(stored(attributes), key), entry);
  });

  it('keeps inputs that are not gzip+base64 as the string they are', () => {
    const entry = makeJournalEntry(key, T0, { inputsKept: 'stored', inputs: 'not base64 gzip at all' });
    assert.deepEqual(journalEntryFromItem(stored(journalAttributes(entry)), key), entry);
  });

  it('still reads an item written before entries were packed', () => {
    // Entries of then kept no JobSet bounds.
    const entry = makeJournalEntry(key, T0, { inputsKept: 'delta', inputs, error: 'apply failed', planOptions: { controllerName: 'lineup.dev/controller', claimUnmanaged: false } });
    assert.deepEqual(journalEntryFromItem(stored(legacyJournalAttributes(entry)), key), entry);
  });

  it('is smaller packed than the former attributes were', () => {
    const entry = makeJournalEntry(key, T0, { inputsKept: 'stored', inputs });
    const legacy = Buffer.byteLength(JSON.stringify(legacyJournalAttributes(entry)));
    assert.ok(journalItemChars(entry) < legacy, `packed ${journalItemChars(entry)} bytes, legacy ${legacy}`);
  });

  it('refuses a packed attribute that is not gzip’d JSON, naming the item', () => {
    assert.throws(
      () => journalEntryFromItem(stored({ [Attr.at]: T0, [Attr.packed]: new Uint8Array([1, 2, 3]) }), key),
      (error: unknown) => error instanceof StoreInvalidError && /journal item JS#dev#ml#train J#1: packed is not gzip'd JSON/.test(error.message),
    );
    const wrongShape = new Uint8Array(gzipSync(JSON.stringify({ reason: 1 })));
    assert.throws(() => journalEntryFromItem(stored({ [Attr.at]: T0, [Attr.packed]: wrongShape }), key), /packed does not parse/);
  });
});
