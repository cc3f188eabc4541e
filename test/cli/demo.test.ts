import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const repo = fileURLToPath(new URL('../../', import.meta.url));

describe('cli/demo', () => {
  it('lineup demo runs the bundled examples through the pipeline and prints a timeline and a summary', () => {
    // The launcher, as a user runs it (it re-executes on the pinned Node 24 when needed).
    const result = spawnSync(process.execPath, ['bin/lineup.js', 'demo', '--speed', '0'], { cwd: repo, encoding: 'utf8', timeout: 120_000 });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /JobResumed/);
    assert.match(result.stdout, /messagequeue-driver-worker\s+Completed/);
    assert.match(result.stdout, /reconciler\s+\d+ events handled, \d+ passes/);
    assert.doesNotMatch(result.stdout, /still running/);
  });

  it('exits 2 with a clear message for a bad --speed', () => {
    const result = spawnSync(process.execPath, ['bin/lineup.js', 'demo', '--speed', 'fast'], { cwd: repo, encoding: 'utf8' });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /lineup demo: .*fast/);
  });
});
