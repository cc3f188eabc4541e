import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dynamoItemBytes } from '../../lib/store/itemSize.ts';

describe('store/itemSize', () => {
  it('counts names and values as DynamoDB does: strings in UTF-8 bytes, binaries in bytes, numbers by digits', () => {
    assert.equal(dynamoItemBytes({ pk: 'abc' }), 2 + 3);
    assert.equal(dynamoItemBytes({ é: 'é' }), 2 + 2);
    assert.equal(dynamoItemBytes({ b: new Uint8Array(100) }), 1 + 100);
    assert.equal(dynamoItemBytes({ n: 1_800_000_000_000 }), 1 + 8);
    assert.equal(dynamoItemBytes({ t: true, z: null }), 2 + 2);
    assert.equal(dynamoItemBytes({ l: ['ab', 'c'] }), 1 + 3 + (1 + 2) + (1 + 1));
    assert.equal(dynamoItemBytes({ m: { k: 'v' } }), 1 + 3 + (1 + 1 + 1));
    assert.equal(dynamoItemBytes({ gone: undefined }), 0);
  });

  it('counts the low-level form ({ S }, { B }, { N }, { M }) as the document form', () => {
    const document = { pk: 'JS#dev#ml#train', at: 1_800_000_000_000, packed: new Uint8Array(700), m: { k: 'v' } };
    const lowLevel = { pk: { S: 'JS#dev#ml#train' }, at: { N: '1800000000000' }, packed: { B: new Uint8Array(700) }, m: { M: { k: { S: 'v' } } } };
    assert.equal(dynamoItemBytes(lowLevel), dynamoItemBytes(document));
  });

  it('counts a binary at its length, not as JSON would (an object of numbered keys)', () => {
    const packed = new Uint8Array(700);
    assert.ok(Buffer.byteLength(JSON.stringify({ packed })) > 5 * dynamoItemBytes({ packed }));
  });
});
