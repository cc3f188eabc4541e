import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EnvelopeBound, EventTooLargeError, LineupEventBridgeSchema, entrySize, toPutEventsEntry } from '../../lib/events/envelope.ts';
import { matchesPattern, reconcilerRulePattern } from '../../lib/events/pattern.ts';
import { DetailType, EventBound, LineupEventDetailSchema, MAX_EVENT_BYTES, clusterOfSource, eventSource } from '../../lib/events/schema.ts';
import { changeDigest, slimJob, slimJobSet } from '../../lib/events/slim.ts';
import type { Job } from '../../lib/jobset/schema.ts';
import { makeJobSet } from '../builders.ts';

const job = (status: Job['status'], extra: Partial<Job['metadata']> = {}): Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: {
    name: 'js-workers-0',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '7',
    labels: { 'jobset.sigs.k8s.io/replicatedjob-name': 'workers', 'jobset.sigs.k8s.io/restart-attempt': '0' },
    managedFields: [{ manager: 'kube-controller-manager', time: '2026-01-01T00:00:00Z' }],
    ...extra,
  },
  spec: { suspend: false, template: { spec: { containers: [{ name: 'main', image: 'busybox', command: ['sleep', '3600'] }] } } },
  status,
});

describe('events/slim', () => {
  it('keeps what decisions depend on and leaves out managedFields and the pod template', () => {
    const slim = slimJob(job({ active: 2, ready: 1, conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed', lastTransitionTime: '2026-01-01T00:00:01Z' }] }));
    assert.deepEqual(slim, {
      kind: 'Job',
      deleting: false,
      suspend: false,
      active: 2,
      ready: 1,
      succeeded: 0,
      failed: 0,
      jobReady: true,
      finalizers: 0,
      conditions: [{ type: 'Suspended', status: 'False', reason: 'JobResumed' }],
      replicatedJob: 'workers',
      restartAttempt: '0',
    });
    assert.doesNotMatch(JSON.stringify(slim), /managedFields|busybox|lastTransitionTime/);
  });

  it('gives the same digest while a 3-pod Job gains ready pods, and another once it is ready', () => {
    const pods = (ready: number): Job => ({ ...job({ active: 3, ready }), spec: { ...job({}).spec, parallelism: 3, completions: 3 } });
    assert.equal(changeDigest(slimJob(pods(1))), changeDigest(slimJob(pods(2))), 'one more ready pod changes no decision');
    assert.notEqual(changeDigest(slimJob(pods(2))), changeDigest(slimJob(pods(3))), 'the Job turned ready');
  });

  it('gives the same digest when only timestamps or managed fields changed, and another when a counter moved', () => {
    const before = job({ active: 1, ready: 0 });
    const noise = job({ active: 1, ready: 0 }, { managedFields: [{ manager: 'someone-else' }], resourceVersion: '8' });
    const ready = job({ active: 1, ready: 1 });
    assert.equal(changeDigest(slimJob(before)), changeDigest(slimJob(noise)));
    assert.notEqual(changeDigest(slimJob(before)), changeDigest(slimJob(ready)));
  });

  it('projects a JobSet to suspend, manager, restarts and conditions', () => {
    const jobSet = makeJobSet('js', 'ns').replicatedJob('a', 1).suspend().status({ restarts: 2, conditions: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended' }] }).obj();
    assert.deepEqual(slimJobSet(jobSet), {
      kind: 'JobSet',
      deleting: false,
      suspend: true,
      managedBy: 'lineup.dev/controller',
      restarts: 2,
      conditions: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs' }],
    });
  });
});

describe('events/envelope', () => {
  const detail = {
    cluster: 'prod-eu',
    namespace: 'ns',
    jobSet: 'js',
    kind: 'Job' as const,
    name: 'js-workers-0',
    uid: 'u1',
    resourceVersion: '7',
    watchType: 'MODIFIED' as const,
    observed: slimJob(job({ active: 1 })),
  };

  it('builds a PutEvents entry whose detail validates on the consumer side', () => {
    const entry = toPutEventsEntry({ source: eventSource('prod-eu'), detailType: DetailType.JobChanged, detail }, 'lineup-bus');
    assert.equal(entry.Source, 'lineup.prod-eu');
    assert.equal(entry.EventBusName, 'lineup-bus');
    assert.deepEqual(LineupEventDetailSchema.parse(JSON.parse(entry.Detail)), detail);
    assert.equal(entrySize(entry), Buffer.byteLength(entry.Source) + Buffer.byteLength(entry.DetailType) + Buffer.byteLength(entry.Detail) + 'lineup-bus'.length);
  });

  it('refuses an event over 1 MB with its size, instead of cutting it', () => {
    const huge = { ...detail, observed: { ...slimJob(job({})), conditions: Array.from({ length: 30_000 }, (_, i) => ({ type: `Condition${i}`, status: 'True', reason: 'x'.repeat(30) })) } };
    assert.throws(
      () => toPutEventsEntry({ source: eventSource('prod-eu'), detailType: DetailType.JobChanged, detail: huge }),
      (error: unknown) => error instanceof EventTooLargeError && error.bytes > MAX_EVENT_BYTES && /over the 1048576-byte EventBridge limit/.test(error.message),
    );
  });

  it('parses a delivered EventBridge event and keeps replay-name', () => {
    const delivered = {
      version: '0',
      id: 'e1',
      'detail-type': 'Job Changed',
      source: 'lineup.prod-eu',
      account: '123456789012',
      time: '2026-01-01T00:00:00Z',
      region: 'eu-west-1',
      resources: [],
      detail,
      'replay-name': 'incident-7',
    };
    const parsed = LineupEventBridgeSchema.parse(delivered);
    assert.equal(parsed['replay-name'], 'incident-7');
    assert.equal(parsed.detail.name, 'js-workers-0');
    assert.equal(LineupEventBridgeSchema.safeParse({ ...delivered, 'detail-type': 'Pod Changed' }).success, false);
    assert.equal(LineupEventBridgeSchema.safeParse({ ...delivered, detail: { ...detail, cluster: 'Bad_Id' } }).success, false);
  });

  it('bounds every name and version a trigger keeps, as Kubernetes does, and refuses one longer', () => {
    const delivered = {
      version: '0',
      id: 'e1',
      'detail-type': 'Job Changed',
      source: 'lineup.prod-eu',
      time: '2026-01-01T00:00:00Z',
      region: 'eu-west-1',
      resources: [],
      detail,
    };
    const accepts = (event: Record<string, unknown>): boolean => LineupEventBridgeSchema.safeParse(event).success;
    const withDetail = (fields: Record<string, unknown>): Record<string, unknown> => ({ ...delivered, detail: { ...detail, ...fields } });
    const label = (length: number): string => 'a'.repeat(length);
    // A DNS-1123 subdomain of `length` characters: labels of at most 63 joined by dots.
    const subdomain = (length: number): string => Array.from({ length }, (_, i) => ((i + 1) % 64 === 0 ? '.' : 'a')).join('');
    const also = (name: string) => [{ kind: 'Job', name, uid: 'u2', resourceVersion: '8', watchType: 'MODIFIED' }];
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['namespace', withDetail({ namespace: label(EventBound.namespace) }), withDetail({ namespace: label(EventBound.namespace + 1) })],
      ['jobSet', withDetail({ jobSet: label(EventBound.jobSet) }), withDetail({ jobSet: label(EventBound.jobSet + 1) })],
      ['name', withDetail({ name: subdomain(EventBound.name) }), withDetail({ name: subdomain(EventBound.name + 1) })],
      ['also[].name', withDetail({ also: also(subdomain(EventBound.name)) }), withDetail({ also: also(subdomain(EventBound.name + 1)) })],
      ['uid', withDetail({ uid: 'u'.repeat(EventBound.uid) }), withDetail({ uid: 'u'.repeat(EventBound.uid + 1) })],
      ['resourceVersion', withDetail({ resourceVersion: '9'.repeat(EventBound.resourceVersion) }), withDetail({ resourceVersion: '9'.repeat(EventBound.resourceVersion + 1) })],
      ['id', { ...delivered, id: 'e'.repeat(EnvelopeBound.id) }, { ...delivered, id: 'e'.repeat(EnvelopeBound.id + 1) }],
      ['replay-name', { ...delivered, 'replay-name': 'r'.repeat(EnvelopeBound.replayName) }, { ...delivered, 'replay-name': 'r'.repeat(EnvelopeBound.replayName + 1) }],
    ];
    for (const [field, atBound, over] of cases) {
      assert.equal(accepts(atBound), true, `${field} at its bound is accepted`);
      assert.equal(accepts(over), false, `${field} one over its bound is refused`);
    }
    // The key separator and anything else Kubernetes refuses in a name.
    for (const fields of [{ namespace: 'a#b' }, { jobSet: 'a#b' }, { name: 'js#0' }, { namespace: 'Team' }, { jobSet: 'a_b' }, { name: '' }]) {
      assert.equal(accepts(withDetail(fields)), false, `${JSON.stringify(fields)} is refused`);
    }
  });

  it('reads the cluster back from a source, and nothing from a foreign one', () => {
    assert.equal(clusterOfSource(eventSource('c-1')), 'c-1');
    assert.equal(clusterOfSource('aws.ec2'), undefined);
  });
});

describe('events/pattern', () => {
  const event = (source: string, detailType: string) => ({ source, 'detail-type': detailType, detail: {} });
  const cases = [
    { name: 'a Job change from any cluster matches', event: event('lineup.prod-eu', 'Job Changed'), want: true },
    { name: 'a sync matches', event: event('lineup.c1', 'JobSet Sync'), want: true },
    { name: 'another source does not match', event: event('aws.ec2', 'Job Changed'), want: false },
    { name: 'a source that only contains the prefix later does not match', event: event('x.lineup.c1', 'Job Changed'), want: false },
    { name: 'another detail-type does not match', event: event('lineup.c1', 'Pod Changed'), want: false },
    { name: 'a missing detail-type does not match', event: { source: 'lineup.c1' }, want: false },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      assert.equal(matchesPattern(reconcilerRulePattern(), tc.event), tc.want);
    });
  }
});
