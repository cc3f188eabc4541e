import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findInstallRoot, INSTALL_ROOT } from '../../lib/installRoot.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

describe('installRoot', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-install-root-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('is the clone when Lineup runs from its sources', () => {
    assert.equal(INSTALL_ROOT, REPO);
  });

  it('is the package folder when Lineup runs from its built dist/lib', () => {
    // Prepare: an installed package's layout.
    const pkg = join(scratch, 'node_modules', 'lineup');
    mkdirSync(join(pkg, 'dist', 'lib', 'cli'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{"name": "lineup"}');
    // Act, Assess
    assert.equal(findInstallRoot(join(pkg, 'dist', 'lib')), pkg);
  });

  it('says so when no package.json is above the code', () => {
    const lonely = join(scratch, 'lonely', 'lib');
    mkdirSync(lonely, { recursive: true });
    assert.throws(() => findInstallRoot(lonely), /no package\.json at or above .*lonely\/lib/);
  });
});
