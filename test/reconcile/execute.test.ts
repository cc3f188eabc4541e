import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ForbiddenError } from '../../lib/errors.ts';
import { applyDefaults } from '../../lib/jobset/defaults.ts';
import { plan } from '../../lib/plan/planner.ts';
import type { Action } from '../../lib/plan/types.ts';
import { executePlan } from '../../lib/reconcile/execute.ts';
import type { ClusterGateway } from '../../lib/reconcile/types.ts';
import { makeJobSet } from '../builders.ts';

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

describe('reconcile/execute', () => {
  it('pkg/controllers/volume_claim_policy_test.go TestReconcileVolumeClaimPolicies: PVC creation fails with unexpected error — the pass stops before any Job and says why in a PVCCreationFailed Warning', async () => {
    // Prepare
    const decided = plan({ jobSet: applyDefaults(claimJobSet()), jobs: [], service: undefined, now: 0 }, { controllerName: 'lineup.dev/controller', claimUnmanaged: false });
    const { gateway, applied } = refusing('CreatePersistentVolumeClaim', new ForbiddenError('persistentvolumeclaims is forbidden: unexpected error'));
    // Act
    const result = await executePlan(gateway, decided, 0);
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
