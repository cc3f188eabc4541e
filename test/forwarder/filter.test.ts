import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONTROLLER_NAME, UPSTREAM_CONTROLLER_NAME } from '../../lib/constants.ts';
import { LineupEventDetailSchema } from '../../lib/events/schema.ts';
import { changeDigest, slimJob, slimJobSet } from '../../lib/events/slim.ts';
import {
  DropReason,
  filterEvent,
  syncEvent,
  syncEventFor,
  vanishedEvent,
  type DropReasonName,
  type FilterContext,
  type ObservedChange,
} from '../../lib/forwarder/filter.ts';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import type { PlanOptions } from '../../lib/plan/types.ts';
import { makeJobSet } from '../builders.ts';
import { makeJob } from './builders.ts';

const planOptions: PlanOptions = { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false };
const cluster = 'dev-1';

const jobSet = () => makeJobSet('train', 'ml').replicatedJob('workers', 2);
const job = () => makeJob('train-workers-0', 'train', 'ml');
const running = () => job().suspend(false).status({ active: 1, ready: 0 });

const digestOf = (object: JobSet | Job, kind: 'JobSet' | 'Job'): string =>
  kind === 'JobSet' ? changeDigest(slimJobSet(object as JobSet)) : changeDigest(slimJob(object as Job));

interface Case {
  readonly name: string;
  readonly change: ObservedChange;
  /** The object whose digest was last forwarded for the same uid, if any. */
  readonly before?: JobSet | Job;
  /** JobSets the forwarder knows, by namespace/name. */
  readonly managed?: Record<string, boolean>;
  readonly options?: PlanOptions;
  readonly want: { readonly forward: true; readonly detailType: string; readonly watchType: string } | { readonly forward: false; readonly reason: DropReasonName };
}

const stamped = (at: string): Job => running().noise(at).obj();
const cases: Case[] = [
  {
    name: 'a Job status update that changed only a timestamp and managedFields is dropped as unchanged',
    change: { kind: 'Job', type: 'MODIFIED', object: stamped('2025-01-01T00:00:05Z') },
    before: stamped('2025-01-01T00:00:00Z'),
    want: { forward: false, reason: DropReason.Unchanged },
  },
  {
    name: 'a Job condition whose only change is lastProbeTime is dropped as unchanged',
    change: { kind: 'Job', type: 'MODIFIED', object: running().status({ conditions: [{ type: 'Complete', status: 'True', lastProbeTime: 't2' }] }).obj() },
    before: running().status({ conditions: [{ type: 'Complete', status: 'True', lastProbeTime: 't1' }] }).obj(),
    want: { forward: false, reason: DropReason.Unchanged },
  },
  {
    name: 'a Job suspend flip is forwarded',
    change: { kind: 'Job', type: 'MODIFIED', object: job().suspend(false).obj() },
    before: job().obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a Job counter change (ready 0 → 1) is forwarded',
    change: { kind: 'Job', type: 'MODIFIED', object: running().status({ ready: 1 }).obj() },
    before: running().obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a Job seen for the first time (MODIFIED after a resume) is forwarded',
    change: { kind: 'Job', type: 'MODIFIED', object: running().obj() },
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'an ADDED Job is forwarded even when its projection equals the last one',
    change: { kind: 'Job', type: 'ADDED', object: job().obj() },
    before: job().obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'ADDED' },
  },
  {
    name: 'a DELETED Job is forwarded even when its projection equals the last one',
    change: { kind: 'Job', type: 'DELETED', object: running().obj() },
    before: running().obj(),
    managed: { 'ml/train': true },
    want: { forward: true, detailType: 'Job Changed', watchType: 'DELETED' },
  },
  {
    name: 'a Job of an unknown JobSet is forwarded (its JobSet may not be listed yet)',
    change: { kind: 'Job', type: 'ADDED', object: job().obj() },
    managed: {},
    want: { forward: true, detailType: 'Job Changed', watchType: 'ADDED' },
  },
  {
    name: 'a Job of a JobSet known to be someone else’s is dropped',
    change: { kind: 'Job', type: 'ADDED', object: job().obj() },
    managed: { 'ml/train': false },
    want: { forward: false, reason: DropReason.JobSetNotManaged },
  },
  {
    name: 'a Job of a same-named JobSet in another namespace is not dropped',
    change: { kind: 'Job', type: 'ADDED', object: job().obj() },
    managed: { 'other/train': false },
    want: { forward: true, detailType: 'Job Changed', watchType: 'ADDED' },
  },
  {
    name: 'a Job without the jobset-name label is dropped: it names no JobSet',
    change: { kind: 'Job', type: 'ADDED', object: job().labels(undefined).obj() },
    want: { forward: false, reason: DropReason.NoJobSet },
  },
  {
    name: 'a JobSet suspend flip is forwarded',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().suspend(true).obj() },
    before: jobSet().obj(),
    want: { forward: true, detailType: 'JobSet Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a JobSet counter change (restarts 0 → 1) is forwarded',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().status({ restarts: 1 }).obj() },
    before: jobSet().status({ restarts: 0 }).obj(),
    want: { forward: true, detailType: 'JobSet Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a JobSet condition whose only change is its transition time and message is dropped',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().status({ conditions: [{ type: 'StartupPolicyInProgress', status: 'True', reason: 'r', message: 'waiting 1/2', lastTransitionTime: 't2' }] }).obj() },
    before: jobSet().status({ conditions: [{ type: 'StartupPolicyInProgress', status: 'True', reason: 'r', message: 'waiting 0/2', lastTransitionTime: 't1' }] }).obj(),
    want: { forward: false, reason: DropReason.Unchanged },
  },
  {
    name: 'a DELETED JobSet is forwarded',
    change: { kind: 'JobSet', type: 'DELETED', object: jobSet().obj() },
    before: jobSet().obj(),
    want: { forward: true, detailType: 'JobSet Changed', watchType: 'DELETED' },
  },
  {
    name: 'a JobSet managed by the upstream controller is dropped',
    change: { kind: 'JobSet', type: 'ADDED', object: jobSet().managedBy(UPSTREAM_CONTROLLER_NAME).obj() },
    want: { forward: false, reason: DropReason.NotManaged },
  },
  {
    name: 'a JobSet without managedBy is dropped when unmanaged JobSets are not claimed',
    change: { kind: 'JobSet', type: 'ADDED', object: jobSet().managedBy(undefined).obj() },
    want: { forward: false, reason: DropReason.NotManaged },
  },
  {
    name: 'a JobSet without managedBy is forwarded when unmanaged JobSets are claimed',
    change: { kind: 'JobSet', type: 'ADDED', object: jobSet().managedBy(undefined).obj() },
    options: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true },
    want: { forward: true, detailType: 'JobSet Changed', watchType: 'ADDED' },
  },
  {
    name: 'a deleted JobSet of another manager is dropped too',
    change: { kind: 'JobSet', type: 'DELETED', object: jobSet().managedBy('kueue.x-k8s.io/multikueue').obj() },
    want: { forward: false, reason: DropReason.NotManaged },
  },
];

const contextFor = (tc: Case): FilterContext => ({
  cluster,
  planOptions: tc.options ?? planOptions,
  lastDigest: (uid) => (tc.before !== undefined && uid === tc.before.metadata.uid ? digestOf(tc.before, tc.change.kind) : undefined),
  jobSetManaged: (namespace, name) => tc.managed?.[`${namespace}/${name}`],
});

describe('forwarder filter', () => {
  for (const tc of cases) {
    it(tc.name, () => {
      const decision = filterEvent(tc.change, contextFor(tc));
      const got = decision.forward
        ? { forward: true, detailType: decision.event.detailType, watchType: decision.event.detail.watchType }
        : { forward: false, reason: decision.reason };
      assert.deepEqual(got, tc.want);
    });
  }

  it('builds the whole detail of a forwarded Job change: names, jobSet label, slim observed', () => {
    // Prepare
    const object = running().resourceVersion('42').status({ ready: 1 }).noise('t').obj();
    // Act
    const decision = filterEvent({ kind: 'Job', type: 'MODIFIED', object }, contextFor(cases[0]!));
    // Assess
    assert.ok(decision.forward);
    assert.deepEqual(decision.event, {
      source: 'lineup.dev-1',
      detailType: 'Job Changed',
      detail: {
        cluster,
        namespace: 'ml',
        jobSet: 'train',
        kind: 'Job',
        name: 'train-workers-0',
        uid: 'uid-train-workers-0',
        resourceVersion: '42',
        watchType: 'MODIFIED',
        observed: {
          kind: 'Job',
          replicatedJob: 'workers',
          deleting: false,
          suspend: false,
          active: 1,
          ready: 1,
          succeeded: 0,
          failed: 0,
          jobReady: true,
          finalizers: 0,
          conditions: [],
        },
      },
    });
    assert.deepEqual(decision.seen, {
      kind: 'Job',
      digest: changeDigest(slimJob(object)),
      namespace: 'ml',
      name: 'train-workers-0',
      jobSet: 'train',
      jobSetUid: 'uid-train',
    });
  });

  it('names the JobSet itself as jobSet in a JobSet change', () => {
    const decision = filterEvent({ kind: 'JobSet', type: 'ADDED', object: jobSet().obj() }, contextFor(cases[0]!));
    assert.ok(decision.forward);
    assert.equal(decision.event.detail.jobSet, 'train');
    assert.equal(decision.event.detail.name, 'train');
    assert.deepEqual(decision.event.detail.observed, slimJobSet(jobSet().obj()));
  });

  it('every event it builds validates against LineupEventDetailSchema', () => {
    const forwarded = cases.flatMap((tc) => {
      const decision = filterEvent(tc.change, contextFor(tc));
      return decision.forward ? [decision.event] : [];
    });
    const seen = { kind: 'Job' as const, digest: 'd', namespace: 'ml', name: 'train-workers-0', jobSet: 'train', jobSetUid: 'uid-train' };
    const built = [
      ...forwarded,
      syncEvent(jobSet().obj(), cluster),
      syncEventFor({ namespace: 'ml', name: 'train' }, '77', cluster),
      vanishedEvent('uid-train-workers-0', seen, '77', cluster),
    ];
    assert.ok(forwarded.length >= 8);
    for (const event of built) assert.deepEqual(LineupEventDetailSchema.parse(event.detail), event.detail);
  });

  it('a re-list sync says SYNC with the JobSet Sync detail-type', () => {
    const event = syncEvent(jobSet().obj(), cluster);
    assert.equal(event.detailType, 'JobSet Sync');
    assert.equal(event.detail.watchType, 'SYNC');
    assert.equal(event.source, 'lineup.dev-1');
  });
});
