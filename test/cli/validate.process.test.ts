/**
 * `lineup validate` as a real process (node lib/cli/main.ts): its exit codes and what it prints
 * for the reference examples, an invalid JobSet and a missing file. The command's cases in
 * process: validate.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exampleFiles } from '../repoFiles.ts';
import { dependsOn, examplesValid, jobSetYaml, rjob } from './validateFixtures.ts';

describe('cli/validate: lineup validate (a real process)', () => {
  const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
  const node = join(repoRoot, 'node_modules/.bin/node');
  const main = join(repoRoot, 'lib/cli/main.ts');
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-validate-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  /** lineup: runs `node lib/cli/main.ts ...args` from the repository root; fails loudly when the entry point is missing. */
  const lineup = (...args: string[]) => {
    assert.ok(existsSync(main), `the CLI entry point ${main} does not exist: \`lineup validate\` cannot run as a process`);
    return spawnSync(node, [main, ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 });
  };

  it('exits 0 and prints FILE: valid for each reference example', () => {
    const files = exampleFiles();
    const run = lineup('validate', ...files);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, examplesValid(files));
    assert.equal(run.status, 0);
  });

  it('exits 1 and prints FILE: path: message for a self-dependency', () => {
    const file = join(scratch, 'self.yaml');
    writeFileSync(file, jobSetYaml('self', [rjob('a'), rjob('b', dependsOn('{name: b, status: Ready}'))]));
    const run = lineup('validate', file);
    assert.equal(run.stdout, `${file}: spec.replicatedJobs[1].dependsOn[0].name: replicatedJob: b cannot depend on itself (upstream admits this and the replicatedJob never starts; Lineup rejects it)\n`);
    assert.equal(run.status, 1);
  });

  it('exits 2 with a message on stderr for a missing file', () => {
    const file = join(scratch, 'missing.yaml');
    const run = lineup('validate', file);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot read file: no such file`));
    assert.equal(run.status, 2);
  });
});
