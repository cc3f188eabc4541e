import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PACKAGE_VERSION, PLANNER_SOURCE_DIGEST, PLANNER_VERSION } from '../../lib/plan/version.ts';
import { packageVersion, plannerSourceDigest, plannerSources, REPO_ROOT, VERSION_FILE, versionFileText } from '../../scripts/plannerVersion.ts';

describe('plan/version: the planner version recorded in the journal', () => {
  it('is current: the digest of lib/plan, lib/policy, lib/jobset and lib/constants.ts (refresh: node scripts/plannerVersion.ts)', () => {
    assert.equal(PLANNER_SOURCE_DIGEST, plannerSourceDigest(), 'lib/plan/version.ts is stale: run node scripts/plannerVersion.ts');
    assert.equal(PACKAGE_VERSION, packageVersion(), 'lib/plan/version.ts is stale: run node scripts/plannerVersion.ts');
    assert.equal(PLANNER_VERSION, `${PACKAGE_VERSION}+${PLANNER_SOURCE_DIGEST}`);
    assert.match(PLANNER_SOURCE_DIGEST, /^[0-9a-f]{12}$/);
  });

  it('hashes the planner and policy sources but not the version file itself', () => {
    const sources = plannerSources();
    for (const path of ['lib/plan/planner.ts', 'lib/plan/reasons.ts', 'lib/policy/startupPolicy.ts', 'lib/jobset/schema.ts', 'lib/constants.ts']) {
      assert.ok(sources.includes(path), `${path} is hashed`);
    }
    assert.ok(!sources.includes(VERSION_FILE));
  });

  it('the file on disk is exactly what the script writes', () => {
    assert.equal(readFileSync(join(REPO_ROOT, VERSION_FILE), 'utf8'), versionFileText(packageVersion(), plannerSourceDigest()));
  });
});
