/**
 * The packed package works where a user installs it: `npm pack` (whose prepack builds the
 * JavaScript), then `npm install --global` of the tarball into a temporary prefix that knows
 * nothing of this clone, then every CLI command from there, and the CDK app synthesized from
 * the installed package with its optional peer dependencies beside it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PLANNER_VERSION_FILE, plannerVersion, readPlannerVersionFile } from '../../lib/plannerVersion.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE_JSON = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
const NPM_TIMEOUT_MS = 600_000;

// The child sees no trace of the clone: PATH without its node_modules/.bin, cwd outside it.
const PATH_WITHOUT_CLONE = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => !dir.startsWith(REPO))
  .join(delimiter);

describe('package', () => {
  let scratch = '';
  let tarball = '';
  let packed: string[] = [];
  let lineup = '';
  let installed = '';

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lineup-pack-'));
    const [info] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: REPO, encoding: 'utf8', timeout: NPM_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] }),
    ) as { filename: string; files: { path: string }[] }[];
    assert.ok(info, 'npm pack printed no package');
    tarball = join(scratch, info.filename);
    packed = info.files.map((file) => file.path);
    const prefix = join(scratch, 'prefix');
    execFileSync('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: NPM_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: PATH_WITHOUT_CLONE },
    });
    lineup = join(prefix, 'bin', 'lineup');
    installed = join(prefix, 'lib', 'node_modules', 'lineup');
  });

  after(() => {
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  /** run: the installed `lineup` with `args`, from the scratch folder. */
  const run = (...args: string[]) =>
    spawnSync(lineup, args, { cwd: scratch, encoding: 'utf8', timeout: 180_000, env: { ...process.env, PATH: PATH_WITHOUT_CLONE } });

  it('packs the built CLI, examples and manifests, and no tests, benchmarks, CI or TypeScript sources', () => {
    for (const want of ['bin/lineup.js', 'dist/lib/cli/main.js', `dist/lib/${PLANNER_VERSION_FILE}`, 'examples/story2-messagequeue-driver-worker.yaml', 'infra/manifests/clusterrole.yaml', 'infra/crd/jobset.x-k8s.io_jobsets.yaml', 'README.md', 'LICENSE']) {
      assert.ok(packed.includes(want), `${want} is not in the package`);
    }
    const unwanted = packed.filter((path) => /^(test|bench|\.ci)\//.test(path) || (path.endsWith('.ts') && !path.endsWith('.d.ts')));
    assert.deepEqual(unwanted, []);
  });

  it('the installed package knows its planner version without the sources: the one the clone computes', () => {
    assert.equal(readPlannerVersionFile(join(installed, 'dist', 'lib', PLANNER_VERSION_FILE)), plannerVersion());
    const module = pathToFileURL(join(installed, 'dist', 'lib', 'plannerVersion.js')).href;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', `process.stdout.write((await import(${JSON.stringify(module)})).plannerVersion())`], { cwd: scratch, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, plannerVersion());
  });

  it('lineup --help lists the commands', () => {
    const result = run('--help');
    assert.equal(result.status, 0, result.stderr);
    for (const command of ['validate', 'plan', 'simulate', 'demo', 'run', 'history', 'forward']) assert.match(result.stdout, new RegExp(`\\b${command}\\b`));
  });

  it('lineup validate checks the shipped examples and refuses a bad JobSet', () => {
    const good = run('validate', join(installed, 'examples', 'story2-messagequeue-driver-worker.yaml'));
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stdout, /story2-messagequeue-driver-worker\.yaml: valid/);
    const bad = join(scratch, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: bad}\nspec:\n  replicatedJobs:\n  - name: a\n    replicas: -1\n    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}\n');
    const refused = run('validate', bad);
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stdout, /bad\.yaml: spec\.replicatedJobs\[0\]\.replicas: /);
  });

  it('lineup plan prints the stages', () => {
    const result = run('plan', join(installed, 'examples', 'story2-messagequeue-driver-worker.yaml'));
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /stage 2 +driver \(2 jobs\) +after messagequeue is Ready/);
  });

  it('lineup simulate runs a story to Completed', () => {
    const result = run('simulate', join(installed, 'examples', 'story2-messagequeue-driver-worker.yaml'), '--output', 'json');
    assert.equal(result.status, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { final: { terminalState: string | null } };
    assert.equal(report.final.terminalState, 'Completed');
  });

  it('lineup demo runs the shipped examples through the pipeline', () => {
    const result = run('demo', '--speed', '0');
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /messagequeue-driver-worker +Completed/);
    assert.match(result.stdout, /reconciler +\d+ events handled/);
  });

  it('the CDK app synthesizes from the package installed into a deployment project beside its peers', () => {
    // Prepare: a project that deploys Lineup, as a CDK user sets one up: the tarball and the
    // CDK app's optional peers (aws-cdk-lib, constructs, cdk-nag, esbuild) at the versions it names.
    const project = join(scratch, 'deploy');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name": "deploy-lineup", "private": true}\n');
    const peers = Object.entries(PACKAGE_JSON.peerDependencies).map(([name, version]) => `${name}@${version}`);
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...peers], {
      cwd: project,
      encoding: 'utf8',
      timeout: NPM_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: PATH_WITHOUT_CLONE },
    });
    // Act
    const outdir = join(project, 'cdk.out');
    const result = spawnSync(process.execPath, [join(project, 'node_modules', 'lineup', 'dist', 'infra', 'synth.js'), '--outdir', outdir], {
      cwd: project,
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, PATH: PATH_WITHOUT_CLONE },
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /cdk-nag AwsSolutions clean/);
    const functions = [...result.stdout.matchAll(/Type: AWS::Lambda::Function\n/g)];
    assert.ok(functions.length >= 2, `expected the reconciler and resync functions in the template:\n${result.stdout.slice(0, 2000)}`);
    const bundles = readdirSync(outdir).filter((name) => name.startsWith('asset.') && existsSync(join(outdir, name, 'index.mjs')));
    assert.ok(bundles.length >= 2, `expected a bundle per function in ${outdir}, found ${bundles.join(', ')}`);
  });
});
