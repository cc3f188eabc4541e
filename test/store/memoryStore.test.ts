import { describe } from 'node:test';
import { TestMemoryStore } from './support/testStores.ts';
import { describeStoreBehaviour } from './storeBehaviour.ts';

// The same suite as the DynamoDB store's: the stand-in used by tests above the store must behave identically.
describe('store/memoryStore', () => {
  describeStoreBehaviour(async () => new TestMemoryStore(), { propertyRuns: 300 });
});
