/**
 * `lineup simulate` as a real process (node lib/cli/main.ts): a JSON report on stdout, and one
 * line on stderr with exit 2 for a missing file. The command's cases in process: simulate.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { examplePath } from '../repoFiles.ts';

const STORY2 = examplePath('story2-messagequeue-driver-worker.yaml');
const REPO = fileURLToPath(new URL('../../', import.meta.url));

describe('cli/simulate as a real process', () => {
  it('runs as `lineup simulate` in a real process', () => {
    const child = spawnSync('node_modules/.bin/node', ['lib/cli/main.ts', 'simulate', STORY2, '--output', 'json'], { cwd: REPO, encoding: 'utf8' });
    assert.equal(child.status, 0, `exit ${child.status}: ${child.stderr}`);
    const report = JSON.parse(child.stdout) as { jobSet: string; final: { terminalState: string } };
    assert.equal(report.jobSet, 'default/messagequeue-driver-worker');
    assert.equal(report.final.terminalState, 'Completed');
  });

  it('says in one line, through the real process, that a behaviour file or a JobSet file is missing', () => {
    for (const [args, line] of [
      [['simulate', STORY2, '--behaviour', 'no-such-behaviour.yaml'], 'lineup simulate: cannot read behaviour file no-such-behaviour.yaml: no such file\n'],
      [['simulate', 'no-such-jobset.yaml'], 'lineup simulate: no-such-jobset.yaml: cannot read file: no such file\n'],
    ] as const) {
      const child = spawnSync('node_modules/.bin/node', ['lib/cli/main.ts', ...args], { cwd: REPO, encoding: 'utf8' });
      assert.equal(child.status, 2, child.stderr);
      assert.equal(child.stderr, line);
      assert.equal(child.stdout, '');
    }
  });
});
