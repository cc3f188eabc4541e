/** resolveClusters: the registry lookup order and the per-cluster gateway cache. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counters } from '../../lib/counters.ts';
import { KubeClusterGateway } from '../../lib/k8s/gateway.ts';
import { resolveClusters } from '../../lib/k8s/registry.ts';
import type { ClusterRecord } from '../../lib/store/types.ts';

const record = (id: string, endpoint = `https://${id}.example.com`): ClusterRecord => ({ id, endpoint, auth: { type: 'token', token: `${id}-token` } });

/** storeOf: the registry part of a checkpoint store over a list, counting lookups. */
const storeOf = (records: readonly ClusterRecord[]) => {
  const lookups: string[] = [];
  return {
    lookups,
    store: {
      getCluster: async (id: string): Promise<ClusterRecord | undefined> => {
        lookups.push(id);
        return records.find((item) => item.id === id);
      },
    },
  };
};

describe('resolveClusters', () => {
  it('builds one gateway per cluster and reuses it', async () => {
    // Prepare
    const { store, lookups } = storeOf([record('stored')]);
    const resolve = resolveClusters({ store, counters: new Counters() });
    // Act
    const [first, concurrent] = await Promise.all([resolve('stored'), resolve('stored')]);
    const later = await resolve('stored');
    // Assess
    assert.ok(first instanceof KubeClusterGateway);
    assert.equal(concurrent, first);
    assert.equal(later, first);
    assert.deepEqual(lookups, ['stored'], 'the store is asked once');
  });

  it('asks static config first, then the store', async () => {
    // Prepare
    const { store, lookups } = storeOf([record('both', 'https://from-store.example.com'), record('stored')]);
    const resolve = resolveClusters({ store, static: [record('both', 'https://from-config.example.com')], counters: new Counters() });
    // Act
    const both = await resolve('both');
    const stored = await resolve('stored');
    // Assess
    assert.ok(both && stored);
    assert.deepEqual(lookups, ['stored'], 'a static cluster is not looked up in the store');
  });

  it('answers undefined for an unknown id, and looks again next time (a cluster registered later is found)', async () => {
    // Prepare
    const records: ClusterRecord[] = [];
    const { store, lookups } = storeOf(records);
    const resolve = resolveClusters({ store, counters: new Counters() });
    // Act + Assess
    assert.equal(await resolve('late'), undefined);
    records.push(record('late'));
    assert.ok(await resolve('late'));
    assert.deepEqual(lookups, ['late', 'late']);
  });

  it('works without a store (static config only)', async () => {
    const resolve = resolveClusters({ static: [record('only')], counters: new Counters() });
    assert.ok(await resolve('only'));
    assert.equal(await resolve('other'), undefined);
  });

  it('does not remember a cluster whose config cannot be built', async () => {
    const resolve = resolveClusters({ static: [record('bad', 'http://remote.example.com')], counters: new Counters() });
    await assert.rejects(resolve('bad'), /plain http on a non-loopback host/);
    await assert.rejects(resolve('bad'), /plain http on a non-loopback host/);
  });
});
