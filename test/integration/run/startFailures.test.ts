/**
 * `lineup run` against a real kube-apiserver it cannot work with: it must exit 2 on its own, with
 * one message naming the server and the fix, instead of retrying for ever. One API server,
 * started WITHOUT the JobSet CRD, gives three of the four failures — a token it does not know
 * (401), Lineup's user with no RBAC binding (403: authorization runs before routing, so the
 * missing resource does not show), the admin (404: no jobsets resource) — and a closed loopback
 * port gives the fourth (connection refused). The process is given 60 s to exit: a bound on a
 * hang, not a speed check.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { RunFix } from '../../../lib/hosts/local.ts';
import { freePort, startKubeApiServer, type KubeServer } from '../harness/index.ts';
import { COLD_START_TIMEOUT_MS } from '../k8s/support.ts';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
/** The longest a failing `lineup run` may take to exit before the test calls it hung. */
const EXIT_BOUND_MS = 60_000;

/** runLineup: `lineup run --kubeconfig <file>`; its exit code and stderr, or a failure if it has not exited within EXIT_BOUND_MS. */
const runLineup = (kubeconfig: string, stateDir: string): Promise<{ code: number | null; stderr: string; stdout: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['lib/cli/main.ts', 'run', '--kubeconfig', kubeconfig, '--cluster', 'it', '--state-dir', stateDir], { cwd: repo });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const hung = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`lineup run did not exit within ${EXIT_BOUND_MS} ms; stderr so far: ${stderr}`));
    }, EXIT_BOUND_MS);
    child.on('exit', (code) => {
      clearTimeout(hung);
      resolve({ code, stderr, stdout });
    });
  });

describe('lineup run against an API server it cannot use', { timeout: COLD_START_TIMEOUT_MS }, () => {
  let kube: KubeServer | undefined;
  let dir: string;
  before(async () => {
    kube = await startKubeApiServer({ installJobSetCrd: false });
    dir = mkdtempSync(join(tmpdir(), 'lineup-run-failures-'));
  });
  after(async () => {
    await kube?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** kubeconfigFile: `config` written to a file of the test's directory. */
  const kubeconfigFile = (name: string, config: KubeConfig): string => {
    const file = join(dir, name);
    writeFileSync(file, config.exportConfig());
    return file;
  };

  /** withToken: the server's kubeconfig, CA verified, as a user holding `token`. */
  const withToken = (server: KubeServer, token: string): KubeConfig => {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'it', server: server.url, caData: Buffer.from(server.caPem).toString('base64'), skipTLSVerify: false }],
      users: [{ name: 'stranger', token }],
      contexts: [{ name: 'it', cluster: 'it', user: 'stranger' }],
      currentContext: 'it',
    });
    return config;
  };

  const server = (): KubeServer => {
    assert.ok(kube, 'kube-apiserver did not start');
    return kube;
  };

  const cases: { name: string; kubeconfig: () => string; says: RegExp; fix: string }[] = [
    {
      name: 'a token the server does not know (401)',
      kubeconfig: () => kubeconfigFile('stranger', withToken(server(), 'not-a-known-token')),
      says: /did not accept the credentials \(list jobsets: Unauthorized\)/,
      fix: RunFix.checkConnection,
    },
    {
      name: 'a known user without RBAC (403)',
      kubeconfig: () => kubeconfigFile('lineup', server().kubeConfig('lineup')),
      says: /does not let this user list and watch jobsets and jobs \(list jobsets: jobsets\.jobset\.x-k8s\.io is forbidden: User "lineup" cannot list resource "jobsets"/,
      fix: RunFix.grantAccess,
    },
    {
      name: 'a server without the JobSet CRD (404)',
      kubeconfig: () => kubeconfigFile('admin', server().kubeConfig('admin')),
      says: /does not serve jobset\.x-k8s\.io\/v1alpha2 jobsets \(list jobsets: /,
      fix: RunFix.installCrd,
    },
  ];
  for (const tc of cases) {
    it(`${tc.name}: exits 2 with one line naming the server and the fix`, async (t) => {
      // Act
      const { code, stderr, stdout } = await runLineup(tc.kubeconfig(), join(dir, 'state'));
      t.diagnostic(stderr.trimEnd());
      // Assess
      assert.equal(code, 2, stderr);
      assert.equal(stderr.trimEnd().split('\n').length, 1, `one line expected, got: ${stderr}`);
      assert.ok(stderr.includes(server().url), stderr);
      assert.match(stderr, tc.says);
      assert.ok(stderr.trimEnd().endsWith(tc.fix), stderr);
      assert.equal(stdout, '');
    });
  }

  it('a closed loopback port (connection refused): exits 2 with one line naming the server and the fix', async (t) => {
    // Prepare: the server's CA and a port nothing listens on.
    const port = await freePort();
    const closed = new KubeConfig();
    closed.loadFromOptions({
      clusters: [{ name: 'it', server: `https://127.0.0.1:${port}`, caData: Buffer.from(server().caPem).toString('base64'), skipTLSVerify: false }],
      users: [{ name: 'lineup', token: server().lineupToken }],
      contexts: [{ name: 'it', cluster: 'it', user: 'lineup' }],
      currentContext: 'it',
    });
    // Act
    const { code, stderr } = await runLineup(kubeconfigFile('closed', closed), join(dir, 'state'));
    t.diagnostic(stderr.trimEnd());
    // Assess
    assert.equal(code, 2, stderr);
    assert.equal(stderr.trimEnd().split('\n').length, 1, `one line expected, got: ${stderr}`);
    assert.ok(stderr.includes(`cannot reach the API server https://127.0.0.1:${port} (`), stderr);
    assert.match(stderr, /ECONNREFUSED/);
    assert.ok(stderr.trimEnd().endsWith(RunFix.checkConnection), stderr);
  });
});
