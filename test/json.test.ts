/** isObject (lib/json.ts): which parsed values count as JSON objects. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isObject } from '../lib/json.ts';

describe('isObject', () => {
  it('is true for objects, empty or not, parsed or built', () => {
    for (const value of [{}, { a: 1 }, JSON.parse('{"spec":{"replicas":2}}'), Object.create(null)]) assert.equal(isObject(value), true, JSON.stringify(value));
  });

  it('is false for null, arrays and every primitive', () => {
    for (const value of [null, undefined, [], [{}], JSON.parse('[1]'), 'x', '', 0, 1, true, false, 10n]) assert.equal(isObject(value), false, String(value));
  });

  it('narrows to a record whose fields can be read', () => {
    const parsed: unknown = JSON.parse('{"metadata":{"name":"a"}}');
    assert.ok(isObject(parsed) && isObject(parsed.metadata));
    assert.equal(parsed.metadata.name, 'a');
  });
});
