/**
 * `lineup run` as a process against a server that accepts connections and never answers: the
 * process must exit 2 at the access check's deadline, naming the server, although its request
 * never ends. The refusals the command gives in process: run.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RunFix } from '../../lib/hosts/local.ts';
import { ACCESS_CHECK_DEADLINE_MS } from '../../lib/k8s/watchSource.ts';
import { kubeconfigText } from '../k8s/loopback.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

describe('cli/run as a process: failing to start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lineup-run-process-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** kubeconfigFor: a kubeconfig file for `serverUrl` as the user of `token`. */
  const kubeconfigFor = (serverUrl: string, token: string): string => {
    const file = join(dir, `kubeconfig-${token}`);
    writeFileSync(file, kubeconfigText(serverUrl, token));
    return file;
  };

  it('a server that accepts connections and never answers: the process exits 2 at the deadline, naming the server', async () => {
    // Prepare: a TCP server that keeps every connection open and says nothing.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${String((silent.address() as AddressInfo).port)}`;
    try {
      // Act: the real command line, whose process must end although the request never does.
      const result = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['bin/lineup.js', 'run', '--kubeconfig', kubeconfigFor(url, 'ok'), '--state-dir', join(dir, 'silent-state')], { cwd: REPO });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
        const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
        child.on('exit', (status) => {
          clearTimeout(guard);
          resolve({ status, stderr });
        });
      });
      // Assess
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stderr, `lineup run: cannot reach the API server ${url} (list jobsets: no answer within ${String(ACCESS_CHECK_DEADLINE_MS / 1000)} s): ${RunFix.checkConnection}\n`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
