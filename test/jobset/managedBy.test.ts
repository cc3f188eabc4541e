/** isManagedByLineup (lib/jobset/managedBy.ts): which JobSets a deployment of Lineup takes. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UPSTREAM_CONTROLLER_NAME } from '../../lib/jobset/api.ts';
import { isManagedByLineup, type ManagedByOptions, DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { makeJobSet } from '../builders.ts';

const DEFAULTS: ManagedByOptions = { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: false };
const CLAIMING: ManagedByOptions = { ...DEFAULTS, claimUnmanaged: true };
const managedBy = (value: string | undefined) => makeJobSet('a').managedBy(value).obj();

describe('isManagedByLineup', () => {
  it("takes a JobSet naming the deployment's controller, claiming unmanaged ones or not", () => {
    assert.equal(isManagedByLineup(managedBy(DEFAULT_CONTROLLER_NAME), DEFAULTS), true);
    assert.equal(isManagedByLineup(managedBy(DEFAULT_CONTROLLER_NAME), CLAIMING), true);
  });

  it('leaves a JobSet naming another controller, an empty name included', () => {
    for (const other of ['other-controller', '', `${DEFAULT_CONTROLLER_NAME}-2`]) {
      assert.equal(isManagedByLineup(managedBy(other), CLAIMING), false, JSON.stringify(other));
    }
  });

  it('takes a JobSet naming nobody only when the deployment claims unmanaged JobSets', () => {
    assert.equal(isManagedByLineup(managedBy(undefined), DEFAULTS), false);
    assert.equal(isManagedByLineup(managedBy(undefined), CLAIMING), true);
  });

  it("never takes upstream's reserved name, even when a deployment is configured with it", () => {
    const misconfigured: ManagedByOptions = { controllerName: UPSTREAM_CONTROLLER_NAME, claimUnmanaged: true };
    assert.equal(isManagedByLineup(managedBy(UPSTREAM_CONTROLLER_NAME), misconfigured), false);
  });
});
