/**
 * `npm run synth` (infra/synth.ts) for real: the functions are bundled by the local esbuild (no
 * Docker, no network, no AWS credentials), the assets land in the output directory, and stdout
 * is the template as YAML. And infra/app.ts runs as the CDK CLI runs an `--app` command.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { CONFIG_CONTEXT_KEY } from '../../infra/config.ts';
import { FLEET, NO_BUNDLING } from './helpers.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'lineup-synth-'));
  dirs.push(dir);
  return dir;
};
// No credentials and no region: synthesis must not need them.
const offlineEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('AWS_') || name.startsWith('CDK_')) delete env[name];
  return env;
};

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Template {
  readonly Resources: Record<string, { Type: string; Properties: { Code?: { S3Key?: string }; Runtime?: string } }>;
}

describe('npm run synth', () => {
  it('bundles every function with the local esbuild and prints the template', { timeout: 120_000 }, () => {
    // Prepare
    const outdir = tempDir();
    // Act
    const stdout = execFileSync(process.execPath, ['infra/synth.ts', '--outdir', outdir], { cwd: REPO, env: offlineEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    // Assess: stdout is the template, and each Lineup function's code is a bundle in the assembly.
    const printed = parse(stdout) as Template;
    const written = JSON.parse(readFileSync(join(outdir, 'Lineup.template.json'), 'utf8')) as Template;
    assert.deepEqual(printed, written);
    const functions = Object.values(written.Resources).filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime === 'nodejs24.x');
    assert.equal(functions.length, 2, 'reconciler and resync (no clusters configured)');
    for (const fn of functions) {
      const hash = fn.Properties.Code?.S3Key?.replace(/\.zip$/, '');
      assert.ok(hash, 'function code comes from an asset');
      const bundle = join(outdir, `asset.${hash}`, 'index.mjs');
      assert.ok(existsSync(bundle), `${bundle} exists`);
      const code = readFileSync(bundle, 'utf8');
      assert.ok(code.startsWith("import { createRequire } from 'module';"), 'ESM bundle with the require banner');
      assert.match(code, /export\s*\{[^}]*as handler\s*\}/);
      assert.deepEqual(readdirSync(join(outdir, `asset.${hash}`)), ['index.mjs'], 'the zip holds the bundle alone: no source map unless sourceMaps is set');
      assert.doesNotMatch(code.slice(-200), /sourceMappingURL/, 'and the bundle names none');
    }
  });

  it('runs infra/app.ts the way the CDK CLI runs --app "node infra/app.ts"', { timeout: 60_000 }, () => {
    // The CLI passes the output directory and context through the environment.
    const outdir = tempDir();
    execFileSync(process.execPath, ['infra/app.ts'], {
      cwd: REPO,
      env: { ...offlineEnv(), CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify({ ...NO_BUNDLING, [CONFIG_CONTEXT_KEY]: JSON.stringify(FLEET) }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { type: string }> };
    assert.equal(manifest.artifacts['Lineup']?.type, 'aws:cloudformation:stack');
    const template = JSON.parse(readFileSync(join(outdir, 'Lineup.template.json'), 'utf8')) as Template;
    assert.equal(Object.values(template.Resources).filter((r) => r.Type === 'Custom::LineupClusterRegistration').length, FLEET.clusters.length);
  });
});
