/**
 * Restarting kube-apiserver alone, keeping etcd and its data: what a control-plane upgrade or a
 * crashed API server looks like to the clients — every connection (watches included) dropped,
 * refused for a while, then the same objects and resourceVersions served again.
 *
 * `startKubeApiServer` keeps its processes private, so this module finds the API server it
 * started by what only that process has — a child of this test process whose command line names
 * the server's own certificate directory — stops it by its process id, and starts the same
 * binary with the same arguments. The serving certificate is already in --cert-dir, so the
 * restarted server presents the same one and `caPem` stays valid.
 *
 * The restarted process belongs to the returned handle: stop it (`restarted.stop()`) before
 * `kube.stop()` removes the directory. `withRestartableApiServer` wraps a KubeServer so that
 * its `stop()` does both in that order.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeServer } from './kube.ts';
import { startServerProcess, type ServerProcess } from './process.ts';

/** STOP_TIMEOUT_MS: how long the old API server gets to exit after SIGTERM before SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;

/** ApiServerProcess: the pid and command line of a running kube-apiserver. */
interface ApiServerProcess {
  readonly pid: number;
  readonly command: string;
  readonly args: readonly string[];
}

/** parentPidOf: the parent pid from /proc/<pid>/stat (the field after the parenthesised command). */
const parentPidOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined;
  }
};

/** commandLineOf: argv of a process, or undefined when it is gone. */
const commandLineOf = (pid: number): string[] | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((part) => part !== '');
  } catch {
    return undefined;
  }
};

/**
 * findApiServer: the kube-apiserver child of this process serving `kube` (its --cert-dir is
 * inside kube.dir, which no other server shares).
 */
const findApiServer = (kube: KubeServer, parentPid: number): ApiServerProcess => {
  const certDirFlag = `--cert-dir=${join(kube.dir, 'certs')}`;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const argv = commandLineOf(pid);
    if (argv === undefined || !argv.includes(certDirFlag)) continue;
    if (parentPidOf(pid) !== parentPid) continue;
    const [command, ...args] = argv;
    if (command === undefined) continue;
    return { pid, command, args };
  }
  throw new Error(`no kube-apiserver child of pid ${parentPid} with ${certDirFlag} found in /proc (is this Linux, and was the server started by this process?)`);
};

/** isAlive: the pid still names a process that is not a zombie. */
const isAlive = (pid: number): boolean => {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
};

/** stopPid: SIGTERM, then SIGKILL after STOP_TIMEOUT_MS; resolves once the process is gone. */
const stopPid = async (pid: number): Promise<void> => {
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      while (isAlive(pid)) await sleep(20);
      return;
    }
    await sleep(20);
  }
};

/** RestartOptions: how long the API server stays down. */
export interface RestartOptions {
  /** Time between the old process exiting and the new one being started. @default 0 */
  readonly downMs?: number;
  /** How long the restarted server may take to pass /readyz. @default 60000 */
  readonly readyTimeoutMs?: number;
}

/** RestartableKubeServer: a KubeServer whose API server can be restarted while etcd keeps running. */
export interface RestartableKubeServer extends KubeServer {
  /**
   * restartApiServer: stop kube-apiserver (SIGTERM), wait `downMs`, start it again with the same
   * flags and wait until /readyz passes. Resolves with how long the server was unreachable.
   */
  restartApiServer(options?: RestartOptions): Promise<{ readonly downMs: number }>;
  /** How many restarts so far. */
  readonly restarts: () => number;
}

/**
 * withRestartableApiServer: `kube` with `restartApiServer()`; its `stop()` stops the restarted
 * API server (if any) before the original stop takes etcd and the directory away.
 *
 * @example
 * const kube = withRestartableApiServer(await startKubeApiServer());
 * after(() => kube.stop());
 * await kube.restartApiServer({ downMs: 1_000 });
 */
export const withRestartableApiServer = (kube: KubeServer): RestartableKubeServer => {
  let current: ServerProcess | undefined;
  let restarts = 0;
  let restarting: Promise<{ downMs: number }> | undefined;

  const restartApiServer = (options: RestartOptions = {}): Promise<{ downMs: number }> => {
    restarting ??= (async () => {
      const found = findApiServer(kube, process.pid);
      const stoppedAt = Date.now();
      if (current !== undefined) await current.stop();
      else await stopPid(found.pid);
      if ((options.downMs ?? 0) > 0) await sleep(options.downMs);
      restarts += 1;
      current = await startServerProcess({ name: `kube-apiserver-restart-${restarts}`, command: found.command, args: found.args, dir: kube.dir, stopTimeoutMs: STOP_TIMEOUT_MS });
      await current.waitUntilReady({
        url: `${kube.url}/readyz`,
        headers: { authorization: `Bearer ${kube.adminToken}` },
        ca: kube.caPem,
        timeoutMs: options.readyTimeoutMs ?? 60_000,
      });
      return { downMs: Date.now() - stoppedAt };
    })().finally(() => {
      restarting = undefined;
    });
    return restarting;
  };

  const stop = async (): Promise<void> => {
    await restarting?.catch(() => undefined);
    await current?.stop();
    await kube.stop();
  };

  return { ...kube, restartApiServer, restarts: () => restarts, stop, [Symbol.asyncDispose]: stop };
};
