/** The launcher (bin/lineup.js) as a process: it runs the CLI on this Node and passes its exit code through. Which Node it chooses: nodeChoice.test.ts. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

describe('nodeChoice: the launcher', () => {
  it('the launcher runs the CLI on this Node and passes its exit code through', () => {
    const result = spawnSync(process.execPath, ['bin/lineup.js', 'validate', 'no-such-file.yaml'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /no-such-file\.yaml/);
  });
});
