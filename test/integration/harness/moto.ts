/**
 * EventBridge and SQS for the integration tests: moto's server (PyPI `moto[server]`), which
 * evaluates every rule on a bus at PutEvents and delivers matches to SQS targets. It runs from a
 * virtualenv cached outside the repository (created with pip on first use) and listens on a
 * random loopback port. Its pattern matcher supports exact, prefix, suffix,
 * equals-ignore-case, numeric, anything-but, cidr, wildcard, exists and `$or`; its gaps: unknown
 * operators match everything, DISABLED rules still deliver, Lambda targets make PutEvents fail.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOOPBACK, freePort } from './ports.ts';
import { createServerDir, httpRequest, removeServerDir, startServerProcess } from './process.ts';

/** MOTO_VERSION: the pinned moto release. */
export const MOTO_VERSION = '5.2.5';
/** MOTO_REQUIREMENT: what pip installs into the virtualenv. */
const MOTO_REQUIREMENT = `moto[server]==${MOTO_VERSION}`;
/** MOTO_REGION: the region test clients use. */
export const MOTO_REGION = 'us-east-1';
/** MOTO_ACCOUNT_ID: moto's default account, which appears in every ARN it returns. */
export const MOTO_ACCOUNT_ID = '123456789012';
/** READY_MARKER: written into the venv once pip succeeded, so a half-built venv is never used. */
const READY_MARKER = '.lineup-ready';
/** STALE_LOCK_MS: a venv lock older than this is assumed abandoned by a killed process. */
const STALE_LOCK_MS = 15 * 60_000;

/** AwsClientConfig: the endpoint, region and dummy static credentials for an AWS SDK v3 client. */
export interface AwsClientConfig {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** motoVenvDir: ${XDG_CACHE_HOME:-$HOME/.cache}/lineup/moto-<version>. */
export const motoVenvDir = (): string =>
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lineup', `moto-${MOTO_VERSION}`);

/** run: runs a command with its output forwarded to stderr; rejects with the exit code. */
const run = (command: string, args: readonly string[]): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { stdio: ['ignore', 2, 2] });
    child.once('error', (error) => reject(new Error(`cannot run ${command}: ${error.message}`, { cause: error })));
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed with exit code ${String(code)} (output above on stderr)`)),
    );
  });

/** createVenv: python3 -m venv + pip install moto[server], with progress on stderr. */
const createVenv = async (venv: string): Promise<void> => {
  const python = process.env.LINEUP_PYTHON ?? 'python3';
  const started = Date.now();
  process.stderr.write(`harness: creating the moto ${MOTO_VERSION} virtualenv at ${venv} (pip install "${MOTO_REQUIREMENT}")\n`);
  rmSync(venv, { recursive: true, force: true });
  await run(python, ['-m', 'venv', venv]);
  await run(join(venv, 'bin', 'python'), [
    '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--progress-bar', 'off', MOTO_REQUIREMENT,
  ]);
  if (!existsSync(join(venv, 'bin', 'moto_server'))) throw new Error(`pip installed ${MOTO_REQUIREMENT} but ${venv}/bin/moto_server is missing`);
  writeFileSync(join(venv, READY_MARKER), `${MOTO_REQUIREMENT}\n`);
  process.stderr.write(`harness: moto virtualenv ready in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
};

let venvReady: Promise<string> | undefined;

/**
 * ensureMotoVenv: the path of `moto_server`, creating the cached virtualenv first when it is
 * missing or incomplete. Parallel test processes wait on a lock directory instead of racing pip.
 *
 * @example
 * const motoServer = await ensureMotoVenv();
 */
export const ensureMotoVenv = (): Promise<string> => {
  venvReady ??= (async () => {
    const venv = motoVenvDir();
    const motoServer = join(venv, 'bin', 'moto_server');
    const lock = `${venv}.lock`;
    mkdirSync(join(venv, '..'), { recursive: true });
    for (;;) {
      if (existsSync(join(venv, READY_MARKER))) return motoServer;
      try {
        mkdirSync(lock);
      } catch (error) {
        if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
        const held = statSync(lock, { throwIfNoEntry: false });
        if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
        else await sleep(1_000);
        continue;
      }
      try {
        if (!existsSync(join(venv, READY_MARKER))) await createVenv(venv);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
  })();
  return venvReady;
};

/** MotoServer: a running moto server. */
export interface MotoServer extends AsyncDisposable {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  /** Endpoint, region and dummy credentials for EventBridgeClient, SQSClient, …. */
  readonly clientConfig: AwsClientConfig;
  /** Forgets every bus, rule, queue and message (POST /moto-api/reset). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * startMoto: moto_server on a random loopback port, in its own temporary directory (log file
 * `moto.log`), ready to serve.
 *
 * @example
 * const moto = await startMoto();
 * after(() => moto.stop());
 * const events = new EventBridgeClient(moto.clientConfig);
 */
export const startMoto = async (): Promise<MotoServer> => {
  const motoServer = await ensureMotoVenv();
  const dir = createServerDir('moto');
  try {
    const port = await freePort();
    const endpoint = `http://${LOOPBACK}:${port}`;
    const server = await startServerProcess({
      name: 'moto',
      command: motoServer,
      args: ['-H', LOOPBACK, '-p', String(port)],
      dir,
      // moto needs no credentials of its own; keep real ones from reaching it by accident.
      env: { ...process.env, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_DEFAULT_REGION: MOTO_REGION },
      readiness: { url: `${endpoint}/moto-api/data.json`, timeoutMs: 60_000 },
    });
    const reset = async (): Promise<void> => {
      const response = await httpRequest(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (response.status !== 200) throw server.failure(`POST /moto-api/reset answered ${response.status}: ${response.body.slice(0, 300)}`);
    };
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        await server.stop();
        await removeServerDir(dir);
      })());
    return {
      endpoint,
      clientConfig: { endpoint, region: MOTO_REGION, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } },
      reset,
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await removeServerDir(dir);
    throw error;
  }
};
