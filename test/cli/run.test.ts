/**
 * `lineup run` when it cannot start: against a scripted loopback API server (client-node's real
 * request path) and a closed port, each refusal ends the command with exit 2 and one stderr line
 * naming the server and the fix, before any state is opened; a missing or malformed kubeconfig
 * ends it with one line naming the file (and the context). The same cases against a real
 * kube-apiserver: test/integration/run/startFailures.test.ts; the process that must end although
 * its request never does: run.process.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { RunFix } from '../../lib/hosts/local.ts';
import { runCommand } from '../../lib/cli/run.ts';
import { freeClosedPort, kubeconfigText, startLoopback, status, type LoopbackServer } from '../k8s/loopback.ts';


describe('cli/run: failing to start', () => {
  let server: LoopbackServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lineup-run-cli-'));
    // The bearer token says how the server answers: as the cluster would for each kind of user.
    server = await startLoopback((request) => {
      const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      if (token === 'norbac') return status(403, 'Forbidden', 'jobsets.jobset.x-k8s.io is forbidden: User "dev" cannot list resource "jobsets" in API group "jobset.x-k8s.io" at the cluster scope');
      if (token === 'admin') return status(404, 'NotFound', 'the server could not find the requested resource');
      return { status: 401, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 } };
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** run: `lineup run` with `kubeconfig` (and `context`) until it returns; its exit code and output. */
  const run = async (kubeconfig: string, context?: string, env: Record<string, string> = {}) => {
    let stdout = '';
    let stderr = '';
    const stateDir = join(dir, `state-${Math.random().toString(36).slice(2)}`);
    const code = await runCommand(
      { kubeconfig, context, cluster: 'local', stateDir, controllerName: DEFAULT_CONTROLLER_NAME, env },
      { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), readFile: () => '' },
      new AbortController().signal,
    );
    return { code, stdout, stderr, stateOpened: existsSync(stateDir) };
  };

  /** kubeconfigFor: a kubeconfig file for `serverUrl` as the user of `token`. */
  const kubeconfigFor = (serverUrl: string, token: string): string => {
    const file = join(dir, `kubeconfig-${token}-${Math.random().toString(36).slice(2)}`);
    writeFileSync(file, kubeconfigText(serverUrl, token));
    return file;
  };

  const refusals: { name: string; token: string; says: RegExp; fix: string }[] = [
    { name: '401: credentials the server does not know', token: 'stranger', says: /did not accept the credentials \(list jobsets: Unauthorized\)/, fix: RunFix.checkConnection },
    { name: '403: a user without the verbs', token: 'norbac', says: /does not let this user list and watch jobsets and jobs \(list jobsets: jobsets\.jobset\.x-k8s\.io is forbidden/, fix: RunFix.grantAccess },
    { name: '404: no JobSet CRD', token: 'admin', says: /does not serve jobset\.x-k8s\.io\/v1alpha2 jobsets/, fix: RunFix.installCrd },
  ];
  for (const tc of refusals) {
    it(`${tc.name}: exit 2, one line naming the server and the fix, nothing started`, async () => {
      // Act
      const { code, stdout, stderr, stateOpened } = await run(kubeconfigFor(server.url, tc.token));
      // Assess
      assert.equal(code, 2, stderr);
      assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
      assert.ok(stderr.startsWith(`lineup run: `), stderr);
      assert.ok(stderr.includes(server.url), stderr);
      assert.match(stderr, tc.says);
      assert.ok(stderr.trimEnd().endsWith(tc.fix), stderr);
      assert.equal(stdout, '');
      assert.equal(stateOpened, false, 'the state store is not opened');
    });
  }

  it('connection refused: exit 2 after the few retries of KUBE_RETRY, naming the server and the fix', async () => {
    const closed = `http://127.0.0.1:${await freeClosedPort()}`;
    const { code, stderr } = await run(kubeconfigFor(closed, 'anyone'));
    assert.equal(code, 2, stderr);
    assert.equal(stderr.trimEnd().split('\n').length, 1, stderr);
    assert.ok(stderr.includes(`cannot reach the API server ${closed} (list jobsets: gave up after 5 attempts: connect ECONNREFUSED`), stderr);
    assert.ok(stderr.trimEnd().endsWith(RunFix.checkConnection), stderr);
  });

  it('a JobSet bound in the environment that is not a whole number: exit 2, one line naming the variable, nothing started', async () => {
    const { code, stderr, stateOpened } = await run(join(dir, 'never-read'), undefined, { LINEUP_MAX_PODS_PER_JOBSET: 'lots' });
    assert.equal(code, 2);
    assert.equal(stderr, 'lineup run: LINEUP_MAX_PODS_PER_JOBSET must be a whole number above 0, got "lots"\n');
    assert.equal(stateOpened, false);
  });

  it('a missing kubeconfig: exit 2, one line naming the file', async () => {
    const missing = join(dir, 'no-such-kubeconfig');
    const { code, stderr } = await run(missing);
    assert.equal(code, 2);
    assert.equal(stderr, `lineup run: kubeconfig ${missing}: no such file, expected a kubeconfig (--kubeconfig, $KUBECONFIG or ~/.kube/config)\n`);
  });

  it('a kubeconfig that is not YAML: exit 2, one line naming the file', async () => {
    const file = join(dir, 'broken-kubeconfig');
    writeFileSync(file, 'clusters: [\n  - {{\n');
    const { code, stderr } = await run(file);
    assert.equal(code, 2);
    assert.match(stderr, new RegExp(`^lineup run: kubeconfig ${file}: not valid YAML: [^\\n]+\\n$`));
  });

  it('a context the kubeconfig does not have: exit 2, one line naming the file and the context', async () => {
    const file = kubeconfigFor(server.url, 'stranger');
    const { code, stderr } = await run(file, 'prod');
    assert.equal(code, 2);
    assert.equal(stderr, `lineup run: kubeconfig ${file}: no context "prod", expected one of: test\n`);
  });
});
