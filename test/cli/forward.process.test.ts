/**
 * `lineup forward` started as its own process with an environment holding no AWS credentials: it
 * exits 2 at once with one line saying what to set, before it watches anything. Given credentials
 * that work at start and fail later, it keeps running and logs each failure. Both entry points are
 * run: the CLI (lib/cli/main.ts) and the Deployment's (lib/hosts/forwarderProcess.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ForwarderLog } from '../../lib/forwarder/forwarderLog.ts';
import { repoPath } from '../repoFiles.ts';

/** Ran: how a process ended and what it wrote; `termed` when the test sent it SIGTERM. */
interface Ran {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly termed: boolean;
}

/**
 * runFor: `node args` with exactly `env`; SIGTERM once `termWhen(stderr so far)` holds (when
 * given), SIGKILL after `killAfterMs`, so a process that does not stop never outlives the test.
 */
const runFor = (args: readonly string[], env: Record<string, string>, options: { termWhen?: (stderr: string) => boolean; killAfterMs: number }): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let termed = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!termed && options.termWhen?.(stderr)) {
        termed = true;
        child.kill('SIGTERM');
      }
    });
    const kill = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(kill);
      resolve({ code, signal, stdout, stderr, termed });
    });
  });

/** listening: `server` on a loopback port; its port. */
const listening = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

const ENTRY_POINTS = [
  { name: 'the CLI', args: [repoPath('lib/cli/main.ts'), 'forward'] },
  { name: "the Deployment's process", args: [repoPath('lib/hosts/forwarderProcess.ts')] },
];

describe('cli/forward: AWS credentials', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lineup-forward-'));
  const home = join(dir, 'home');
  const kubeconfig = join(dir, 'kubeconfig.yaml');
  let apiRequests = 0;
  // The cluster: lists are empty and every watch is refused 503, so a forwarder that got as far as
  // watching has a checkpoint to write (and rewrite as its heartbeat) and keeps retrying the watch.
  const api = createServer((request, response) => {
    apiRequests += 1;
    const url = new URL(request.url ?? '/', 'http://api');
    if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
      response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', code: 503, message: 'not now' }));
      return;
    }
    const jobs = url.pathname.includes('/batch/');
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ apiVersion: jobs ? 'batch/v1' : 'jobset.x-k8s.io/v1alpha2', kind: jobs ? 'JobList' : 'JobSetList', metadata: { resourceVersion: '7' }, items: [] }));
  });
  /** env: nothing but what `lineup forward` is configured by, and no AWS credentials unless `extra` brings them. */
  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: process.env['PATH'] ?? '',
    // An empty home: no ~/.aws files for the SDK's default chain to find.
    HOME: home,
    // Without this the default chain asks the instance metadata service, which on a CI machine in EC2 answers with that machine's role.
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_REGION: 'us-east-1',
    LINEUP_TABLE_NAME: 'lineup',
    LINEUP_EVENT_BUS_NAME: 'lineup',
    LINEUP_FORWARDER_CLUSTER: 'c1',
    // Nothing listens on port 1: a request that got credentials fails at once.
    AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:1',
    AWS_ENDPOINT_URL_EVENTBRIDGE: 'http://127.0.0.1:1',
    ...extra,
  });

  before(async () => {
    const port = await listening(api);
    mkdirSync(home);
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c1, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]`,
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: c1, context: {cluster: c1, user: u}}]',
        'current-context: c1',
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await new Promise((resolve) => api.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  for (const entry of ENTRY_POINTS) {
    it(`${entry.name}: with no AWS credentials, exits 2 at once with one line saying what to set, and never asks the cluster`, async () => {
      apiRequests = 0;
      const ran = await runFor([...entry.args, '--kubeconfig', kubeconfig], env(), { killAfterMs: 30_000 });
      assert.equal(ran.signal, null, `it exited by itself (stderr: ${ran.stderr})`);
      assert.equal(ran.code, 2, ran.stderr);
      assert.equal(
        ran.stderr,
        'lineup forward: no AWS credentials (default-chain source: Could not load credentials from any providers): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run with an EKS Pod Identity or IRSA role\n',
      );
      assert.equal(ran.stdout, '');
      assert.equal(apiRequests, 0, 'the cluster was not watched');
    });
  }

  it('with credentials that work at start and fail later: keeps running, logs each failure, asks the credentials source again, and stops on SIGTERM with 0', async () => {
    // An EKS Pod Identity agent that answers once (credentials expiring within the refresh margin, so they are fetched again on use) and then fails.
    let agentRequests = 0;
    const agent = createServer((_request, response) => {
      agentRequests += 1;
      if (agentRequests > 1) return response.writeHead(500).end('agent gone');
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ AccessKeyId: 'ASIAPOD', SecretAccessKey: 's', Token: 't', Expiration: new Date(Date.now() + 60_000).toISOString() }));
    });
    try {
      const port = await listening(agent);
      apiRequests = 0;
      const credentialFailure = 'no aws credentials from the container source';
      const ran = await runFor(
        [...(ENTRY_POINTS[0]?.args ?? []), '--kubeconfig', kubeconfig],
        env({ AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${port}/v1/credentials`, LINEUP_HEARTBEAT_INTERVAL_MS: '300' }),
        // Stop it once it logged a credential failure after it had watched the cluster: it kept going past the first.
        { termWhen: (stderr) => apiRequests > 0 && stderr.split(credentialFailure).length > 4, killAfterMs: 60_000 },
      );
      assert.ok(ran.termed, `it ran until SIGTERM: ${ran.stderr}`);
      assert.equal(ran.signal, null, `it stopped on SIGTERM by itself (stderr: ${ran.stderr})`);
      assert.equal(ran.code, 0, ran.stderr);
      const lines = ran.stderr.trim().split('\n').map((line) => JSON.parse(line) as { level: string; message: string; error?: string });
      const failures = lines.filter((line) => line.error?.includes(credentialFailure));
      assert.ok(failures.length >= 4, `a line for each failure: ${ran.stderr}`);
      assert.ok(failures.filter((line) => line.message === ForwarderLog.bookmarkWriteFailed).length >= 2, `each heartbeat's (checkpoint write's) failure logged: ${ran.stderr}`);
      assert.ok(agentRequests >= 3, `the agent was asked again after its failure: ${agentRequests}`);
      assert.equal(lines.at(-1)?.message, 'forwarder stopped');
    } finally {
      await new Promise((resolve) => agent.close(resolve));
    }
  });
});
