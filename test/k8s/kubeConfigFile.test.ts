/**
 * The CLI's kubeconfig reader over client-node: errors of one line naming the file and context,
 * and an endpoint whose requests carry what the kubeconfig's auth method hands out (an exec
 * plugin's token included) over one keep-alive pool.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { Counters } from '../../lib/counters.ts';
import { ErrorCode, LineupError } from '../../lib/errors.ts';
import { KubeClusterGateway } from '../../lib/k8s/gateway.ts';
import { kubeConfigEndpoint, loadKubeConfigFile } from '../../lib/k8s/kubeConfigFile.ts';
import { startLoopback, status } from './loopback.ts';
import type { LoopbackServer } from './loopback.ts';

describe('kubeConfigEndpoint', () => {
  let server: LoopbackServer;
  before(async () => {
    server = await startLoopback(() => status(404, 'NotFound', 'not found'));
  });
  after(() => server.close());

  it("an exec plugin's token on every request, the requests on one connection", async () => {
    // Prepare: an exec plugin that prints a token, as `aws eks get-token` does.
    const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } };
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromClusterAndUser(
      { name: 'exec', server: server.url, skipTLSVerify: true },
      { name: 'exec', exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})`] } },
    );
    const gateway = new KubeClusterGateway({ endpoint: kubeConfigEndpoint(kubeConfig), counters: new Counters() });
    const before = { requests: server.requests.length, connections: server.connections() };
    // Act
    for (let index = 0; index < 3; index += 1) assert.equal(await gateway.getJobSet('ns', 'absent'), undefined);
    // Assess
    assert.deepEqual(
      server.requests.slice(before.requests).map((request) => request.headers.authorization),
      ['Bearer from-exec', 'Bearer from-exec', 'Bearer from-exec'],
    );
    assert.equal(server.connections() - before.connections, 1);
  });
});

describe('loadKubeConfigFile', () => {
  const config = (overrides: Record<string, unknown> = {}): string =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'one', cluster: { server: 'https://one.example.com' } }],
      users: [{ name: 'me', user: { token: 'file-token' } }],
      contexts: [
        { name: 'first', context: { cluster: 'one', user: 'me' } },
        { name: 'orphan', context: { cluster: 'gone', user: 'me' } },
      ],
      'current-context': 'first',
      ...overrides,
    });

  /** Each case: the file's text (undefined: no file at all), the context asked for, and the one-line error expected. */
  const cases: { name: string; text: string | undefined; context?: string; message: (path: string) => string }[] = [
    { name: 'a missing file', text: undefined, message: (path) => `kubeconfig ${path}: no such file, expected a kubeconfig (--kubeconfig, $KUBECONFIG or ~/.kube/config)` },
    { name: 'unparseable YAML', text: 'clusters: [\n  - {{\n', message: (path) => `kubeconfig ${path}: not valid YAML: missed comma between flow collection entries (2:3)` },
    { name: 'an empty file', text: '', message: (path) => `kubeconfig ${path}: not valid YAML: expected a document, but the input is empty` },
    {
      name: 'no such context',
      text: config(),
      context: 'prod',
      message: (path) => `kubeconfig ${path}: no context "prod", expected one of: first, orphan`,
    },
    {
      name: 'no current-context and no context asked for',
      text: config({ 'current-context': '' }),
      message: (path) => `kubeconfig ${path}: no current-context set and no --context given, expected one of: first, orphan`,
    },
    {
      name: 'a context whose cluster the file does not define',
      text: config(),
      context: 'orphan',
      message: (path) => `kubeconfig ${path}: context "orphan" names cluster "gone", which the file does not define`,
    },
  ];
  for (const tc of cases) {
    it(`refuses ${tc.name} with one line naming the file${tc.context ? ' and the context' : ''}`, () => {
      // Prepare
      const dir = mkdtempSync(join(tmpdir(), 'lineup-kubeconfig-'));
      try {
        const file = join(dir, 'config');
        if (tc.text !== undefined) writeFileSync(file, tc.text);
        // Act + Assess
        assert.throws(
          () => loadKubeConfigFile(file, tc.context),
          (error: unknown) => {
            assert.ok(error instanceof LineupError && error.code === ErrorCode.INVALID_INPUT, String(error));
            assert.equal(error.message, tc.message(file));
            assert.ok(!error.message.includes('\n'), 'one line');
            return true;
          },
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("selects the file's current-context when none is asked for", () => {
    const dir = mkdtempSync(join(tmpdir(), 'lineup-kubeconfig-'));
    try {
      const file = join(dir, 'config');
      writeFileSync(file, config());
      const kubeConfig = loadKubeConfigFile(file);
      assert.equal(kubeConfig.getCurrentContext(), 'first');
      assert.equal(kubeConfig.getCurrentCluster()?.server, 'https://one.example.com');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
