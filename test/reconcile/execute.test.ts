import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventReason } from '../../lib/jobset/api.ts';
import { ForbiddenError } from '../../lib/errors.ts';
import { applyDefaults } from '../../lib/jobset/defaults.ts';
import { DEFAULT_PLAN_OPTIONS, plan } from '../../lib/plan/planner.ts';
import type { Action } from '../../lib/plan/types.ts';
import { executePlan } from '../../lib/reconcile/execute.ts';
import type { ClusterGateway } from '../../lib/reconcile/types.ts';
import { makeJobSet } from '../builders.ts';
import { answeringGateway, simWorld, story2 } from './fixtures.ts';

const NAME = 'messagequeue-driver-worker';

/** recording: the answering gateway, remembering every action applied. */
const recording = (world: ReturnType<typeof simWorld>): { gateway: ClusterGateway; applied: Action[] } => {
  const { gateway: inner } = answeringGateway(world);
  const applied: Action[] = [];
  return {
    applied,
    gateway: {
      observe: (namespace, name, now, since) => inner.observe(namespace, name, now, since),
      apply: (namespace, name, action, now) => {
        applied.push(action);
        return inner.apply(namespace, name, action, now);
      },
    },
  };
};

/** eventsOf: the Events among `actions`, as `reason: message`. */
const eventsOf = (actions: readonly Action[]): string[] => actions.flatMap((action) => (action.kind === 'EmitEvent' ? [`${action.reason}`] : []));

describe('reconcile/execute', () => {
  it("writes an Event where upstream does — a condition set or its status or reason changed — not Lineup's ReplicatedJobReleased nor a message that moved on", async () => {
    const world = simWorld([story2()]);
    const { gateway, applied } = recording(world);
    const observe = async () => {
      const observed = await world.gateway.observe('default', NAME, world.now());
      assert.ok(observed);
      return observed;
    };
    // The first pass sets StartupPolicyInProgress: its Event is written.
    let observed = await observe();
    let decided = plan(observed, DEFAULT_PLAN_OPTIONS);
    let result = await executePlan(gateway, decided, observed, world.now());
    assert.deepEqual(eventsOf(applied), ['InOrderStartupPolicyInProgress']);
    assert.equal(result.written.length, applied.length, 'an answer per write');
    // The messagequeue turns ready: the drivers are released and the condition's message names the next stage.
    world.cluster.writeJobStatus('default', `${NAME}-messagequeue-0`, { active: 1, ready: 1 }, world.queue.now());
    applied.length = 0;
    observed = await observe();
    decided = plan(observed, DEFAULT_PLAN_OPTIONS);
    assert.deepEqual(eventsOf(decided.actions), [EventReason.ReplicatedJobReleased, 'InOrderStartupPolicyInProgress'], 'the planner decides both');
    result = await executePlan(gateway, decided, observed, world.now());
    assert.deepEqual(eventsOf(applied), [], 'neither is written');
    assert.equal(result.eventsSkipped, 2);
    assert.ok(applied.some((action) => action.kind === 'ResumeJob'));
    assert.equal(result.error, undefined);
  });
});

/** claimJobSet: one replicatedJob mounting one volumeClaimPolicies claim. */
const claimJobSet = () => {
  const jobSet = makeJobSet('test-jobset').replicatedJob('rjob', 2).spec({ volumeClaimPolicies: [{ templates: [{ metadata: { name: 'test-volume' }, spec: {} }] }] }).obj();
  const podSpec = jobSet.spec.replicatedJobs?.[0]?.template.spec.template.spec;
  if (podSpec) podSpec.containers = [{ name: 'main', volumeMounts: [{ name: 'test-volume', mountPath: '/data' }] }];
  return jobSet;
};

/** refusing: a gateway that records what it is asked and refuses every action of one kind (the code above a gateway, tested alone). */
const refusing = (kind: Action['kind'], error: Error) => {
  const applied: Action[] = [];
  const gateway: ClusterGateway = {
    observe: () => Promise.reject(new Error('not used')),
    apply: async (_namespace, _name, action) => {
      if (action.kind === kind) throw error;
      applied.push(action);
    },
  };
  return { gateway, applied };
};

describe('reconcile/execute: volume claims', () => {
  it('pkg/controllers/volume_claim_policy_test.go TestReconcileVolumeClaimPolicies: PVC creation fails with unexpected error — the pass stops before any Job and says why in a PVCCreationFailed Warning', async () => {
    // Prepare
    const observed = { jobSet: applyDefaults(claimJobSet()), jobs: [], service: undefined, now: 0 };
    const decided = plan(observed, { controllerName: 'lineup.dev/controller', claimUnmanaged: false });
    const { gateway, applied } = refusing('CreatePersistentVolumeClaim', new ForbiddenError('persistentvolumeclaims is forbidden: unexpected error'));
    // Act
    const result = await executePlan(gateway, decided, observed, 0);
    // Assess
    assert.equal(result.failedAction?.kind, 'CreatePersistentVolumeClaim');
    assert.match(result.error?.message ?? '', /unexpected error/);
    assert.deepEqual(
      applied.map((action) => (action.kind === 'EmitEvent' ? `${action.kind} ${action.eventType} ${action.reason}: ${action.message}` : action.kind)),
      ['CreateService', 'EmitEvent Warning PVCCreationFailed: persistentvolumeclaims is forbidden: unexpected error'],
    );
    assert.equal(result.applied, 1, 'only the Service was created');
  });
});
