import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { UPSTREAM_CONTROLLER_NAME } from '../../lib/jobset/api.ts';
import { KUBE_FIELD_MANAGER } from '../../lib/k8s/fieldManager.ts';
import { LineupEventDetailSchema } from '../../lib/events/schema.ts';
import { changeDigest, decisionDigest, othersDigest, slimJob, slimJobSet } from '../../lib/events/slim.ts';
import {
  DropReason,
  filterEvent,
  seenOf,
  syncEvent,
  syncEventFor,
  vanishedEvent,
  type DropReasonName,
  type FilterContext,
  type ObservedChange,
} from '../../lib/forwarder/filter.ts';
import { jobProgressOf } from '../../lib/forwarder/progress.ts';
import type { Job, JobSet } from '../../lib/jobset/schema.ts';
import type { PlanOptions } from '../../lib/plan/types.ts';
import { makeJobSet } from '../builders.ts';
import { makeJob } from './builders.ts';
import { propertyParameters } from '../propertyRuns.ts';

const planOptions: PlanOptions = { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false };
const cluster = 'dev-1';

const jobSet = () => makeJobSet('train', 'ml').replicatedJob('workers', 2);
const job = () => makeJob('train-workers-0', 'train', 'ml');
const running = () => job().suspend(false).status({ active: 1, ready: 0 });


interface Case {
  readonly name: string;
  readonly change: ObservedChange;
  /** The object whose digest was last forwarded for the same uid, if any. */
  readonly before?: JobSet | Job;
  /** JobSets the forwarder knows, by namespace/name. */
  readonly managed?: Record<string, boolean>;
  readonly options?: PlanOptions;
  readonly want:
    | { readonly forward: true; readonly detailType: string; readonly watchType: string; readonly ownWrite?: boolean; readonly statusOnly?: boolean }
    | { readonly forward: false; readonly reason: DropReasonName };
}

const stamped = (at: string): Job => running().noise(at).obj();
/** Managers as the API server records them: Lineup created the Job (owning spec.suspend), the Job controller wrote its status. */
const createdByLineup = { manager: KUBE_FIELD_MANAGER, operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:suspend': {}, 'f:template': {} } } };
const statusByJobController = { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { 'f:active': {}, 'f:ready': {} } } };
const suspendByKubectl = { manager: 'kubectl-patch', operation: 'Update', fieldsV1: { 'f:spec': { 'f:suspend': {} } } };
const createdWithoutSuspend = { manager: KUBE_FIELD_MANAGER, operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:spec': { 'f:template': {} } } };
const condition = (type: string, status: 'True' | 'False', reason = 'r') => ({ type, status, reason, message: `${type} is ${status}`, lastTransitionTime: 't' });
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
    name: 'a JobSet counter change (restarts 0 → 1) is Lineup’s own status write: dropped, the pass that wrote it acts on it',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().status({ restarts: 1 }).obj() },
    before: jobSet().status({ restarts: 0 }).obj(),
    want: { forward: false, reason: DropReason.OwnStatusWrite },
  },
  {
    name: 'a JobSet condition whose only change is its transition time and message is dropped',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().status({ conditions: [{ type: 'StartupPolicyInProgress', status: 'True', reason: 'r', message: 'waiting 1/2', lastTransitionTime: 't2' }] }).obj() },
    before: jobSet().status({ conditions: [{ type: 'StartupPolicyInProgress', status: 'True', reason: 'r', message: 'waiting 0/2', lastTransitionTime: 't1' }] }).obj(),
    want: { forward: false, reason: DropReason.Unchanged },
  },
  {
    name: 'a Job Lineup created (every managedFields entry Lineup’s) is forwarded as its own write',
    change: { kind: 'Job', type: 'ADDED', object: job().managed(createdByLineup).obj() },
    want: { forward: true, detailType: 'Job Changed', watchType: 'ADDED', ownWrite: true },
  },
  {
    name: 'a Job created by someone else is forwarded',
    change: { kind: 'Job', type: 'ADDED', object: job().managed({ ...createdByLineup, manager: 'kubectl-create' }).obj() },
    want: { forward: true, detailType: 'Job Changed', watchType: 'ADDED' },
  },
  {
    name: 'a Job ADDED whose managedFields are unreadable is forwarded',
    change: { kind: 'Job', type: 'ADDED', object: job().managed('not a list').obj() },
    want: { forward: true, detailType: 'Job Changed', watchType: 'ADDED' },
  },
  {
    name: 'a Job resumed by Lineup (spec.suspend owned by Lineup alone, nothing else changed) is forwarded as its own write',
    change: { kind: 'Job', type: 'MODIFIED', object: job().suspend(false).managed(createdByLineup).obj() },
    before: job().managed(createdByLineup).obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED', ownWrite: true },
  },
  {
    name: 'a Job resumed by Lineup after the Job controller wrote its status is still forwarded as Lineup’s own write',
    change: { kind: 'Job', type: 'MODIFIED', object: job().suspend(false).status({ conditions: [{ type: 'Suspended', status: 'True' }] }).managed(createdByLineup, statusByJobController).obj() },
    before: job().status({ conditions: [{ type: 'Suspended', status: 'True' }] }).managed(createdByLineup, statusByJobController).obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED', ownWrite: true },
  },
  {
    name: 'a Job suspended by someone else (spec.suspend owned by kubectl) is forwarded',
    change: { kind: 'Job', type: 'MODIFIED', object: running().suspend(true).managed(createdWithoutSuspend, suspendByKubectl).obj() },
    before: running().managed(createdByLineup).obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a Job whose suspend flip comes with a status change is forwarded, whoever wrote suspend',
    change: { kind: 'Job', type: 'MODIFIED', object: running().suspend(false).managed(createdByLineup, statusByJobController).obj() },
    before: job().managed(createdByLineup).obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a Job of Lineup’s that turned ready is forwarded',
    change: { kind: 'Job', type: 'MODIFIED', object: running().status({ ready: 1 }).managed(createdByLineup, statusByJobController).obj() },
    before: running().managed(createdByLineup, statusByJobController).obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a JobSet status write adding only startup conditions (Lineup’s echo) is dropped as unchanged',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().status({ conditions: [condition('StartupPolicyInProgress', 'False'), condition('StartupPolicyCompleted', 'True')] }).obj() },
    before: jobSet().status({ conditions: [condition('StartupPolicyInProgress', 'True')] }).obj(),
    want: { forward: false, reason: DropReason.Unchanged },
  },
  {
    name: 'a JobSet status write turning Completed True is dropped: the pass that wrote it deletes what still runs and applies the TTL',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().status({ terminalState: 'Completed', conditions: [condition('StartupPolicyCompleted', 'True'), condition('Completed', 'True')] }).obj() },
    before: jobSet().status({ conditions: [condition('StartupPolicyCompleted', 'True')] }).obj(),
    want: { forward: false, reason: DropReason.OwnStatusWrite },
  },
  {
    name: 'a JobSet status write turning Failed True is dropped likewise',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().status({ conditions: [condition('Failed', 'True')] }).obj() },
    before: jobSet().status({ conditions: [] }).obj(),
    want: { forward: false, reason: DropReason.OwnStatusWrite },
  },
  {
    name: 'a JobSet seen for the first time with a terminal status is forwarded (the status cannot be told from what came before)',
    change: { kind: 'JobSet', type: 'MODIFIED', object: jobSet().status({ conditions: [condition('Failed', 'True')] }).obj() },
    want: { forward: true, detailType: 'JobSet Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a Job’s interim SuccessCriteriaMet is status-only; its Complete after it is what a decision waits for',
    change: { kind: 'Job', type: 'MODIFIED', object: running().status({ active: 0, succeeded: 1, conditions: [condition('SuccessCriteriaMet', 'True')] }).obj() },
    before: running().status({ active: 1, ready: 1, conditions: [] }).obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED', statusOnly: true },
  },
  {
    name: 'a Job turning Complete is forwarded at once',
    change: { kind: 'Job', type: 'MODIFIED', object: running().status({ active: 0, succeeded: 1, conditions: [condition('SuccessCriteriaMet', 'True'), condition('Complete', 'True')] }).obj() },
    before: running().status({ active: 0, succeeded: 1, conditions: [condition('SuccessCriteriaMet', 'True')] }).obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED' },
  },
  {
    name: 'a running Job whose pods started (active 0 → 1, Suspended False) is forwarded as status-only: no gate or policy reads it',
    change: { kind: 'Job', type: 'MODIFIED', object: running().status({ active: 1, conditions: [condition('Suspended', 'False')] }).obj() },
    before: running().status({ active: 0, conditions: [condition('Suspended', 'True')] }).obj(),
    want: { forward: true, detailType: 'Job Changed', watchType: 'MODIFIED', statusOnly: true },
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
  lastSeen: (uid) => (tc.before !== undefined && uid === tc.before.metadata.uid ? seenOf({ kind: tc.change.kind, type: 'MODIFIED', object: tc.before } as ObservedChange) : undefined),
  jobSetManaged: (namespace, name) => tc.managed?.[`${namespace}/${name}`],
});

describe('forwarder filter', () => {
  for (const tc of cases) {
    it(tc.name, () => {
      const decision = filterEvent(tc.change, contextFor(tc));
      const got = decision.forward
        ? { forward: true, detailType: decision.event.detailType, watchType: decision.event.detail.watchType, ownWrite: decision.ownWrite, statusOnly: decision.statusOnly }
        : { forward: false, reason: decision.reason };
      assert.deepEqual(got, tc.want.forward ? { ownWrite: false, statusOnly: false, ...tc.want } : tc.want);
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
      decisionDigest: decisionDigest(slimJob(object)),
      namespace: 'ml',
      name: 'train-workers-0',
      jobSet: 'train',
      jobSetUid: 'uid-train',
      othersDigest: othersDigest(slimJob(object)),
      progress: jobProgressOf(slimJob(object)),
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
    const seen = { kind: 'Job' as const, digest: 'd', othersDigest: 'd', decisionDigest: 'd', namespace: 'ml', name: 'train-workers-0', jobSet: 'train', jobSetUid: 'uid-train' };
    const built = [
      ...forwarded,
      syncEvent(jobSet().obj(), cluster),
      syncEventFor({ namespace: 'ml', name: 'train' }, '77', cluster),
      vanishedEvent('uid-train-workers-0', seen, '77', cluster),
    ];
    assert.ok(forwarded.length >= 8);
    for (const event of built) assert.deepEqual(LineupEventDetailSchema.parse(event.detail), event.detail);
  });

  it('property: a Job change is Lineup’s own write exactly when only spec.suspend moved (or it was created) and Lineup alone owns what changed', () => {
    // Random before/after states of one Job, and random writers of spec.suspend.
    const state = fc.record({ suspend: fc.boolean(), active: fc.integer({ min: 0, max: 2 }), ready: fc.integer({ min: 0, max: 2 }), succeeded: fc.integer({ min: 0, max: 1 }) });
    const owners = fc.subarray([KUBE_FIELD_MANAGER, 'kubectl-patch', 'kueue'], { minLength: 1 });
    fc.assert(
      fc.property(fc.option(state, { nil: undefined }), state, owners, (before, after, suspendOwners) => {
        const build = (s: { suspend: boolean; active: number; ready: number; succeeded: number }) =>
          job()
            .suspend(s.suspend)
            .status({ active: s.active, ready: s.ready, succeeded: s.succeeded })
            .managed(...suspendOwners.map((manager) => ({ manager, operation: 'Update', fieldsV1: { 'f:spec': { 'f:suspend': {} } } })))
            .obj();
        const type = before === undefined ? 'ADDED' : 'MODIFIED';
        const change: ObservedChange = { kind: 'Job', type, object: build(after) };
        const last = before === undefined ? undefined : seenOf({ kind: 'Job', type: 'MODIFIED', object: build(before) });
        const decision = filterEvent(change, { cluster, planOptions, lastSeen: () => last, jobSetManaged: () => true });
        const lineupAlone = suspendOwners.length === 1 && suspendOwners[0] === KUBE_FIELD_MANAGER;
        const readyOf = (s: typeof after) => s.ready + s.succeeded >= 1;
        const onlySuspendMoved =
          before !== undefined && before.suspend !== after.suspend && (before.active > 0) === (after.active > 0) && readyOf(before) === readyOf(after);
        if (!decision.forward) {
          assert.equal(decision.reason, DropReason.Unchanged);
          assert.ok(before !== undefined, 'a created Job is never dropped');
          return;
        }
        assert.equal(decision.ownWrite, lineupAlone && (before === undefined || onlySuspendMoved), JSON.stringify({ before, after, suspendOwners }));
      }),
      propertyParameters(),
    );
  });

  it('a re-list sync says SYNC with the JobSet Sync detail-type', () => {
    const event = syncEvent(jobSet().obj(), cluster);
    assert.equal(event.detailType, 'JobSet Sync');
    assert.equal(event.detail.watchType, 'SYNC');
    assert.equal(event.source, 'lineup.dev-1');
  });
});
