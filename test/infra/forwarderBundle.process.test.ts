/**
 * The forwarder's bundle (infra/k8s/forwarderBundle.ts): one file that runs on Node alone — no
 * node_modules beside it, as in the image — holding the forwarder and none of the CLI it does not
 * use. What it does against real servers is measured by bench/forwarderFootprint.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildForwarderBundle, type ForwarderBundle } from '../../infra/k8s/forwarderBundle.ts';
import { EnvVar } from '../../lib/hosts/lambdaConfig.ts';

describe('forwarder bundle', () => {
  let dir = '';
  let bundle: ForwarderBundle;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lineup-forwarder-bundle-'));
    bundle = await buildForwarderBundle(join(dir, 'lineup-forward.mjs'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** run: the bundle in its own directory, with only PATH and `env` in the environment. */
  const run = (args: readonly string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [bundle.path, ...args], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });

  it('is one file holding the forwarder, without the rest of the CLI or client-node, and the AWS SDK only in the chunks it imports on demand', () => {
    assert.deepEqual(readdirSync(dir), ['chunks', 'lineup-forward.mjs']);
    assert.deepEqual(readdirSync(join(dir, 'chunks')).sort(), bundle.chunks.map((chunk) => basename(chunk.path)).sort());
    const has = (pattern: RegExp): boolean => bundle.inputs.some((input) => pattern.test(input));
    // Parsed at start even when never run, the SDK's parts cost the pod about 6.5 MiB in the entry file.
    assert.ok(!has(/node_modules\/@aws-sdk\//), `the entry file holds the AWS SDK: ${bundle.inputs.filter((input) => input.includes('@aws-sdk/')).join(', ')}`);
    assert.ok(bundle.chunks.some((chunk) => chunk.inputs.some((input) => input.includes('@aws-sdk/credential-providers/'))), 'the credential providers are in a chunk');
    assert.ok(has(/lib\/forwarder\/forwarder\.ts$/), 'the forwarder');
    assert.ok(has(/lib\/k8s\/watchSource\.ts$/), 'the Kubernetes watch source');
    assert.ok(has(/lib\/aws\/jsonClient\.ts$/), 'the signed AWS requests');
    // The SDK's DynamoDB and EventBridge clients cost the pod about 10 MiB: the forwarder signs its own requests.
    const sdkClients = [/@aws-sdk\/client-dynamodb\//, /@aws-sdk\/client-eventbridge\//, /@aws-sdk\/lib-dynamodb\//];
    // Nor client-node and its HTTP stack (undici): the watch runs on lib/k8s/rest.ts over node:https.
    for (const unused of [/node_modules\/commander\//, /node_modules\/dynalite\//, /lib\/sim\//, /lib\/cli\/main\.ts$/, /lib\/reconcile\//, /node_modules\/@kubernetes\/client-node\//, /node_modules\/undici\//, ...sdkClients]) {
      assert.ok(!has(unused), `${unused} is bundled: ${bundle.inputs.filter((input) => unused.test(input)).join(', ')}`);
    }
  });

  it('runs on Node alone: an incomplete configuration is refused with exit code 2, naming the variable', () => {
    const result = run(['--kubeconfig', join(dir, 'absent')], { [EnvVar.ForwarderCluster]: 'prod-1' });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^lineup forward: .*LINEUP_TABLE_NAME/m);
  });

  it('refuses an unknown flag with exit code 2, naming it', () => {
    const result = run(['--kubeconfg', 'x'], {});
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^lineup forward: Unknown option '--kubeconfg'; expected only --kubeconfig FILE$/m);
  });

  it('fails to start with exit code 2 when the kubeconfig file is missing', () => {
    const result = run(['--kubeconfig', join(dir, 'absent')], { [EnvVar.ForwarderCluster]: 'prod-1', [EnvVar.TableName]: 't', [EnvVar.EventBusName]: 'b', AWS_REGION: 'us-east-1' });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`^lineup forward: .*${join(dir, 'absent').replaceAll('/', '\\/')}`, 'm'));
  });

  it('fails to start with exit code 2 when no AWS region is set, naming the variables', () => {
    const config = mkdtempSync(join(tmpdir(), 'lineup-forwarder-kubeconfig-'));
    try {
      const kubeconfig = join(config, 'kubeconfig');
      writeFileSync(
        kubeconfig,
        'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
      );
      const result = run(['--kubeconfig', kubeconfig], { [EnvVar.ForwarderCluster]: 'prod-1', [EnvVar.TableName]: 't', [EnvVar.EventBusName]: 'b' });
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, /^lineup forward: no aws region: AWS_REGION and AWS_DEFAULT_REGION are unset/m);
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });
});
