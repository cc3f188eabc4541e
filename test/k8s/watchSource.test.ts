/**
 * KubeWatchSource's handling of what a watch stream can say, through client-node's real Watch
 * against a scripted loopback server: a 429 while opening is retried, ERROR 410 ends 'expired',
 * other ERROR events reject, unreadable objects are skipped and reported, nothing mid-stream is retried. Its behaviour
 * against kube-apiserver is tested in test/integration/k8s/watchSource.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KUBE_RETRY } from '../../lib/constants.ts';
import { CounterName, Counters } from '../../lib/counters.ts';
import { collectingLog } from '../../lib/log.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import type { WatchEvent } from '../../lib/forwarder/types.ts';
import { kubeConfigFor } from '../../lib/k8s/auth.ts';
import { KubeWatchSource } from '../../lib/k8s/watchSource.ts';
import { makeJobSet } from '../builders.ts';
import { startLoopback, status } from './loopback.ts';
import type { Answer, LoopbackServer } from './loopback.ts';

const WATCH_PATH = '/apis/jobset.x-k8s.io/v1alpha2/jobsets';

/** stream: a watch response body, one JSON event per line. */
const stream = (...events: unknown[]): Answer => ({ status: 200, body: events.map((event) => `${JSON.stringify(event)}\n`).join('') });
const added = (name: string, resourceVersion: string) => ({ type: 'ADDED', object: { ...makeJobSet(name, 'ns').obj(), metadata: { name, namespace: 'ns', resourceVersion } } });

/** Scenarios by the resourceVersion the watch starts from. */
const scenarios: Record<string, (previousHits: number) => Answer> = {
  // The CRD's watch cache is still initialising on the first try.
  throttled: (hits) => (hits === 0 ? status(429, 'TooManyRequests', 'storage is (re)initializing', { details: { retryAfterSeconds: 1 } }, { 'Retry-After': '1' }) : stream(added('a', '11'))),
  expired: () => stream(added('a', '11'), { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'too old resource version: 1 (50)', reason: 'Expired', code: 410 } }),
  failing: () => stream(added('a', '11'), { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'internal error', reason: 'InternalError', code: 500 } }),
  unreadable: () => stream({ type: 'ADDED', object: { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'broken' }, spec: { replicatedJobs: 'not a list' } } }),
  bookmarked: () => stream(added('a', '11'), { type: 'BOOKMARK', object: { kind: 'JobSet', apiVersion: 'jobset.x-k8s.io/v1alpha2', metadata: { resourceVersion: '12' } } }),
  forbidden: () => status(403, 'Forbidden', 'jobsets.jobset.x-k8s.io is forbidden'),
};

describe('KubeWatchSource', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback((request, hits) => {
      const scenario = scenarios[request.query.get('resourceVersion') ?? ''];
      assert.equal(request.query.get('allowWatchBookmarks'), 'true');
      return scenario ? scenario(hits) : status(404, 'NotFound', 'no scenario');
    });
  });
  after(() => server.close());

  /** watchFrom: watch JobSets from the scenario named by `resourceVersion`. */
  const watchFrom = async (resourceVersion: string) => {
    const counters = new Counters();
    const sleeps: number[] = [];
    const kubeConfig = await kubeConfigFor({ id: 'loopback', endpoint: server.url, auth: { type: 'token', token: 't' } });
    const source = new KubeWatchSource({ kubeConfig, counters, retry: { sleep: async (ms) => void sleeps.push(ms) } });
    const events: WatchEvent<'JobSet'>[] = [];
    const outcome = await source.watch('JobSet', resourceVersion, (event) => void events.push(event), new AbortController().signal).then(
      (end) => ({ end }),
      (error: unknown) => ({ error }),
    );
    return { outcome, events, counters, sleeps, hits: server.hits('GET', WATCH_PATH) };
  };

  it('retries a 429 while opening the watch (after a backoff: client-node\'s Watch drops the Retry-After header), then streams', async () => {
    const before = server.hits('GET', WATCH_PATH);
    const { outcome, events, counters, sleeps } = await watchFrom('throttled');
    assert.deepEqual(outcome, { end: 'closed' });
    assert.deepEqual(events.map((event) => event.type), ['ADDED']);
    assert.equal(server.hits('GET', WATCH_PATH) - before, 2);
    assert.equal(counters.get(`${CounterName.KubePrefix}watch`), 2);
    assert.equal(counters.get(CounterName.KubeRetries), 1);
    assert.equal(sleeps.length, 1);
    assert.ok((sleeps[0] ?? 0) <= KUBE_RETRY.baseDelayMs, `waited ${String(sleeps[0])} ms`);
  });

  it('skips an object the schema refuses, logging and counting it, and keeps watching', async () => {
    // Prepare
    const counters = new Counters();
    const { log, lines } = collectingLog();
    const kubeConfig = await kubeConfigFor({ id: 'loopback', endpoint: server.url, auth: { type: 'token', token: 't' } });
    const source = new KubeWatchSource({ kubeConfig, counters, log });
    const events: WatchEvent<'JobSet'>[] = [];
    // Act
    const end = await source.watch('JobSet', 'unreadable', (event) => void events.push(event), new AbortController().signal);
    // Assess
    assert.equal(end, 'closed');
    assert.deepEqual(events, [], 'the unreadable object is not delivered');
    assert.equal(counters.get(CounterName.KubeUnreadable), 1);
    assert.equal(lines[0]?.message, 'skipped an object Lineup cannot read');
    assert.match(String(lines[0]?.fields?.['error']), /spec\.replicatedJobs/);
  });

  it('ends expired on an ERROR event with code 410, after delivering the events before it', async () => {
    const { outcome, events } = await watchFrom('expired');
    assert.deepEqual(outcome, { end: 'expired' });
    assert.deepEqual(events.map((event) => event.type), ['ADDED']);
  });

  it('delivers a bookmark as the resourceVersion alone', async () => {
    const { outcome, events } = await watchFrom('bookmarked');
    assert.deepEqual(outcome, { end: 'closed' });
    assert.deepEqual(events[1], { type: 'BOOKMARK', resourceVersion: '12' });
  });

  const failures: { name: string; resourceVersion: string; code: string }[] = [
    { name: 'an ERROR event other than 410 rejects, and is not retried once events flowed', resourceVersion: 'failing', code: ErrorCode.UNAVAILABLE },
    { name: 'a 403 while opening rejects with FORBIDDEN, not retried', resourceVersion: 'forbidden', code: ErrorCode.FORBIDDEN },
  ];
  for (const tc of failures) {
    it(tc.name, async () => {
      const before = server.hits('GET', WATCH_PATH);
      const { outcome, counters } = await watchFrom(tc.resourceVersion);
      assert.ok('error' in outcome, `expected a failure, got ${JSON.stringify(outcome)}`);
      assert.ok(outcome.error instanceof LineupError, String(outcome.error));
      assert.equal(outcome.error.code, tc.code, outcome.error.message);
      assert.equal(server.hits('GET', WATCH_PATH) - before, 1);
      assert.equal(counters.get(CounterName.KubeRetries), 0);
    });
  }
});
