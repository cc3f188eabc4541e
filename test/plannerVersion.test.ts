/**
 * The planner version recorded in every journal entry is computed from the code that runs: from
 * the sources in a clone, from esbuild's `define` in a bundle, from the file `npm run build`
 * writes in the built package; and it changes exactly when a planner source does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundling } from '../infra/constructs/lineupFunction.ts';
import {
  computePlannerVersion,
  PLANNER_VERSION_FILE,
  PLANNER_VERSION_GLOBAL,
  plannerSourceDigest,
  plannerSources,
  plannerVersion,
  plannerVersionDefine,
  packageVersion,
  readPlannerVersionFile,
} from '../lib/plannerVersion.ts';
import { writePlannerVersionFile } from '../scripts/writePlannerVersion.ts';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const MODULE = join(REPO, 'lib', 'plannerVersion.ts');

/** What the planner's sources are copied with, so a temporary root hashes as the clone does. */
const PLANNER_TREE = ['lib/plan', 'lib/policy', 'lib/jobset', 'package.json'];

/** runNode: the pinned Node (the one running this test) on `args`, from `cwd`. */
const runNode = (args: readonly string[], cwd: string) => spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 60_000 });

/** printVersionOf: a child Node importing the module at `modulePath` and printing plannerVersion(). */
const printVersionOf = (modulePath: string, cwd: string) =>
  runNode(['--input-type=module', '-e', `const m = await import(${JSON.stringify(pathToFileURL(modulePath).href)}); process.stdout.write(m.plannerVersion());`], cwd);

describe('plannerVersion: the planner version, computed from the code that runs', () => {
  let scratch = '';

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-planner-version-'));
  });

  after(() => {
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  /** plannerCopy: a fresh copy of the planner's sources and package.json under scratch/`name`. */
  const plannerCopy = (name: string): string => {
    const root = join(scratch, name);
    for (const path of PLANNER_TREE) cpSync(join(REPO, path), join(root, path), { recursive: true });
    return root;
  };

  it('is package.json\'s version and a 12-hex digest of the clone\'s planner sources, the same at every call', () => {
    const version = plannerVersion();
    assert.match(version, /^[^+]+\+[0-9a-f]{12}$/);
    assert.equal(version, `${packageVersion(REPO)}+${plannerSourceDigest(REPO)}`);
    assert.equal(plannerVersion(), version);
    assert.equal(computePlannerVersion(REPO), version);
    assert.equal(computePlannerVersion(REPO), version);
  });

  it('hashes every .ts of lib/plan, lib/policy and lib/jobset, and nothing else', () => {
    const sources = plannerSources(REPO);
    for (const path of ['lib/plan/planner.ts', 'lib/plan/reasons.ts', 'lib/policy/startupPolicy.ts', 'lib/jobset/schema.ts', 'lib/jobset/api.ts']) {
      assert.ok(sources.includes(path), `${path} is hashed`);
    }
    assert.deepEqual(sources.filter((path) => !/^lib\/(plan|policy|jobset)\/[^/]+\.ts$/.test(path)), []);
    assert.ok(!sources.includes('lib/constants.ts'), 'the constants the stack shares are not the planner\'s');
    assert.deepEqual(sources, [...sources].sort());
  });

  it('changes when any planner source changes, or one is added; the package version shows apart from the digest', () => {
    const root = plannerCopy('changed');
    const original = computePlannerVersion(root);
    assert.equal(original, plannerVersion(), 'a copy of the sources hashes as the clone does');
    const seen = new Set([original]);
    for (const path of ['lib/plan/planner.ts', 'lib/policy/stages.ts', 'lib/jobset/schema.ts', 'lib/jobset/api.ts']) {
      const before = readFileSync(join(root, path), 'utf8');
      appendFileSync(join(root, path), '// one more line\n');
      const changed = computePlannerVersion(root);
      assert.ok(!seen.has(changed), `editing ${path} changes the version (${changed})`);
      seen.add(changed);
      writeFileSync(join(root, path), before);
      assert.equal(computePlannerVersion(root), original, `restoring ${path} restores the version`);
    }
    writeFileSync(join(root, 'lib/policy/extra.ts'), 'export const extra = 1;\n');
    assert.notEqual(computePlannerVersion(root), original, 'a new policy source changes the version');
    rmSync(join(root, 'lib/policy/extra.ts'));
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...manifest, version: '9.9.9' }));
    assert.equal(computePlannerVersion(root), `9.9.9+${plannerSourceDigest(REPO)}`);
  });

  it('does not change when a file outside the planner changes, or only line endings do', () => {
    const root = plannerCopy('unchanged');
    const original = computePlannerVersion(root);
    mkdirSync(join(root, 'lib/reconcile'), { recursive: true });
    copyFileSync(join(REPO, 'lib/reconcile/journal.ts'), join(root, 'lib/reconcile/journal.ts'));
    appendFileSync(join(root, 'lib/reconcile/journal.ts'), '// not the planner\n');
    writeFileSync(join(root, 'lib/plannerVersion.ts'), '// not the planner either\n');
    writeFileSync(join(root, 'lib/plan/NOTES.md'), 'not TypeScript\n');
    const planner = join(root, 'lib/plan/planner.ts');
    writeFileSync(planner, readFileSync(planner, 'utf8').replaceAll('\n', '\r\n'));
    assert.equal(computePlannerVersion(root), original);
  });

  it('a bundle made with the Lambda construct\'s define prints the version computed from the sources, none beside it', async () => {
    const define = bundling(false).define;
    assert.deepEqual(define, plannerVersionDefine(), 'infra/constructs/lineupFunction.ts bundles with the planner version');
    const entry = join(scratch, 'entry.ts');
    writeFileSync(entry, `import { plannerVersion } from ${JSON.stringify(MODULE)};\nprocess.stdout.write(plannerVersion());\n`);
    // Two folders down, so the folder above the bundle's holds no lib/jobset/api.ts.
    const outfile = join(scratch, 'bundle', 'defined', 'index.mjs');
    await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node24', minify: true, logLevel: 'error', ...(define === undefined ? {} : { define }) });
    assert.ok(readFileSync(outfile, 'utf8').includes(JSON.stringify(plannerVersion())), 'the version is a literal in the bundle');
    const result = runNode([outfile], scratch);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, plannerVersion());
  });

  it('a bundle made without the define, with no sources or built file beside it, throws naming what is missing', async () => {
    const entry = join(scratch, 'entry-undefined.ts');
    writeFileSync(entry, `import { plannerVersion } from ${JSON.stringify(MODULE)};\nprocess.stdout.write(plannerVersion());\n`);
    const outfile = join(scratch, 'bundle', 'undefined', 'index.mjs');
    await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node24', logLevel: 'error' });
    const result = runNode([outfile], scratch);
    assert.notEqual(result.status, 0);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, new RegExp(`cannot tell its planner version: .*${PLANNER_VERSION_GLOBAL}.*lib/jobset/api\\.ts.*${PLANNER_VERSION_FILE.replace('.', '\\.')}`));
  });

  it('the file npm run build writes holds the runtime version, and the built module reads it when no sources are beside it', () => {
    // The built layout: dist/lib/plannerVersion.js and the file beside it, no .ts sources above.
    const builtLib = join(scratch, 'built', 'dist', 'lib');
    const { path, record } = writePlannerVersionFile(join(builtLib, PLANNER_VERSION_FILE), REPO);
    assert.deepEqual(record, { plannerVersion: plannerVersion(), packageVersion: packageVersion(REPO), sourceDigest: plannerSourceDigest(REPO) });
    assert.equal(readPlannerVersionFile(path), plannerVersion());
    copyFileSync(MODULE, join(builtLib, 'plannerVersion.ts'));
    const read = printVersionOf(join(builtLib, 'plannerVersion.ts'), scratch);
    assert.equal(read.status, 0, read.stderr);
    assert.equal(read.stdout, plannerVersion());
    writeFileSync(path, '{"plannerVersion": "made up"}\n');
    const refused = printVersionOf(join(builtLib, 'plannerVersion.ts'), scratch);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /holds no planner version/);
  });
});
