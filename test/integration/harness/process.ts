/**
 * Server processes for the integration tests: spawn with the log captured to a file in the
 * server's temporary directory, wait until an HTTP endpoint says it is ready, stop with SIGTERM
 * then SIGKILL. Every failure message carries the tail of the server's log, because a test
 * report that only says "timed out" is useless for a server that printed why it would not start.
 *
 * Processes and directories still alive when the test process exits (a failed `before` hook, an
 * uncaught error, SIGINT/SIGTERM from the test runner) are killed and removed by exit hooks, so a
 * failing run does not leave etcd data on /dev/shm or orphaned API servers behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request as httpRequestRaw, type Agent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequestRaw } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** KEEP_DIRS_ENV: set to 1 to keep server directories (logs, etcd data) after the tests, for debugging. */
export const KEEP_DIRS_ENV = 'LINEUP_KEEP_SERVER_DIRS';

/** LOG_TAIL_LINES: how many trailing log lines a failure message quotes. */
const LOG_TAIL_LINES = 60;

/** DEFAULT_STOP_TIMEOUT_MS: how long a server gets between SIGTERM and SIGKILL. */
const DEFAULT_STOP_TIMEOUT_MS = 5_000;

/** ServerStartError: a server did not start or did not become ready; the message quotes its log. */
export class ServerStartError extends Error {
  readonly logPath: string;
  constructor(message: string, logPath: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.logPath = logPath;
  }
}

// ---------------------------------------------------------------------------------------------
// Cleanup of whatever is still alive when the test process goes away.

const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();
let exitHooksInstalled = false;

/** cleanUpNow: synchronously SIGKILLs live children and removes live directories (exit path). */
const cleanUpNow = (): void => {
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  liveChildren.clear();
  if (process.env[KEEP_DIRS_ENV] === '1') return;
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
  liveDirs.clear();
};

/** onFatalSignal: cleans up, then re-raises the signal so the process still dies of it. */
const onFatalSignal = (signal: NodeJS.Signals): void => {
  cleanUpNow();
  process.kill(process.pid, signal);
};

/** installExitHooks: registers the exit and signal hooks once per process. */
const installExitHooks = (): void => {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', cleanUpNow);
  // `once`: the re-raised signal then takes Node's default action (terminate).
  process.once('SIGINT', onFatalSignal);
  process.once('SIGTERM', onFatalSignal);
};

// ---------------------------------------------------------------------------------------------
// Temporary directories.

/** tempRoot: /dev/shm when it is a writable directory (etcd's fsyncs cost nothing there), else the OS temp dir. */
const tempRoot = (): string => {
  try {
    const probe = mkdtempSync('/dev/shm/lineup-probe-');
    rmSync(probe, { recursive: true, force: true });
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
};

/**
 * createServerDir: a new private temporary directory for one test server (logs, data, certs),
 * removed by `removeServerDir` or, failing that, when the test process exits.
 *
 * @example
 * const dir = createServerDir('kube');   // /dev/shm/lineup-kube-XXXXXX
 */
export const createServerDir = (name: string): string => {
  installExitHooks();
  const dir = mkdtempSync(join(tempRoot(), `lineup-${name}-`));
  liveDirs.add(dir);
  return dir;
};

/** removeServerDir: deletes a directory made by `createServerDir`, unless LINEUP_KEEP_SERVER_DIRS=1. */
export const removeServerDir = async (dir: string): Promise<void> => {
  liveDirs.delete(dir);
  if (process.env[KEEP_DIRS_ENV] === '1') {
    process.stderr.write(`harness: kept ${dir} (${KEEP_DIRS_ENV}=1)\n`);
    return;
  }
  await rm(dir, { recursive: true, force: true });
};

// ---------------------------------------------------------------------------------------------
// Logs.

/**
 * logTail: the last `lines` lines of a log file (reads at most the last 64 KiB), or a note
 * saying the file is missing.
 */
export const logTail = (path: string, lines = LOG_TAIL_LINES): string => {
  if (!existsSync(path)) return `(no log file at ${path})`;
  const size = statSync(path).size;
  const length = Math.min(size, 64 * 1024);
  const buffer = Buffer.alloc(length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, buffer, 0, length, size - length);
  } finally {
    closeSync(fd);
  }
  const text = buffer.toString('utf8').trimEnd();
  if (text === '') return `(log ${path} is empty)`;
  return text.split('\n').slice(-lines).join('\n');
};

/** withLogTail: `message` followed by the tail of the log at `logPath`. */
const withLogTail = (message: string, logPath: string): string =>
  `${message}\n--- last lines of ${logPath} ---\n${logTail(logPath)}\n--- end of log ---`;

// ---------------------------------------------------------------------------------------------
// HTTP.

/** HttpRequestOptions: a small request for probes and test helpers. */
export interface HttpRequestOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** PEM bundle to trust for https. */
  readonly ca?: string;
  /** Accept any certificate (for probing a server whose CA is not written yet). @default false */
  readonly insecure?: boolean;
  /** @default 5000 */
  readonly timeoutMs?: number;
  /** An agent whose connections are kept alive and reused (an https.Agent for https). @default a new connection per request */
  readonly agent?: Agent;
}

/** HttpResponse: status, headers and the whole body as text. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * httpRequest: one HTTP(S) request with node:http, resolving with the status and body whatever
 * the status; rejecting only on connection errors and timeouts.
 *
 * @example
 * const { status } = await httpRequest('https://127.0.0.1:6443/readyz', { ca, headers: { authorization: `Bearer ${t}` } });
 */
export const httpRequest = (url: string, options: HttpRequestOptions = {}): Promise<HttpResponse> =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequestRaw : httpRequestRaw;
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        headers,
        timeout: options.timeoutMs ?? 5_000,
        ...(target.protocol === 'https:' ? { ca: options.ca, rejectUnauthorized: options.insecure !== true } : {}),
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${req.method} ${url}: no response within ${options.timeoutMs ?? 5_000}ms`)));
    req.on('error', reject);
    req.end(options.body);
  });

// ---------------------------------------------------------------------------------------------
// Readiness.

/** ReadinessCheck: an HTTP endpoint to poll until it answers the way `isReady` wants. */
export interface ReadinessCheck extends HttpRequestOptions {
  readonly url: string;
  /** @default status 200 */
  readonly isReady?: (response: HttpResponse) => boolean;
  /** @default 30000 */
  readonly timeoutMs?: number;
}

/** ExitInfo: how a server process ended. */
export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** describeExit: "exited with code 1" / "was killed by SIGKILL". */
const describeExit = ({ code, signal }: ExitInfo): string =>
  signal !== null ? `was killed by ${signal}` : `exited with code ${String(code)}`;

// ---------------------------------------------------------------------------------------------
// Server processes.

/** ServerProcessOptions: what to run and where its log goes. */
export interface ServerProcessOptions {
  /** Short name used in messages and as the log file name (`<dir>/<name>.log`). */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The server's temporary directory; the log file is written here and it is the working directory. */
  readonly dir: string;
  /** Environment for the child. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Polled after spawning; startServerProcess resolves only once it passes. */
  readonly readiness?: ReadinessCheck;
  /** Time between SIGTERM and SIGKILL in stop(). @default 5000 */
  readonly stopTimeoutMs?: number;
}

/** ServerProcess: a running server; `stop()` (or `await using`) ends it. */
export interface ServerProcess extends AsyncDisposable {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Resolves when the process has exited, however that happened. */
  readonly exited: Promise<ExitInfo>;
  /** True until the process has exited. */
  running(): boolean;
  /** Polls `check` until it passes; throws ServerStartError (with the log tail) on timeout or exit. */
  waitUntilReady(check: ReadinessCheck): Promise<void>;
  /** The error to throw when something about this server went wrong: `message` plus the log tail. */
  failure(message: string, cause?: unknown): ServerStartError;
  /** SIGTERM, then SIGKILL after the stop timeout; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

/**
 * startServerProcess: spawns a server with stdout and stderr appended to `<dir>/<name>.log`,
 * then, when `readiness` is given, waits until it is ready. If the server exits or never becomes
 * ready it is stopped and a ServerStartError quoting the end of its log is thrown.
 *
 * @example
 * await using etcd = await startServerProcess({
 *   name: 'etcd', command: etcdPath, args: ['--data-dir', `${dir}/etcd`], dir,
 *   readiness: { url: `http://127.0.0.1:${port}/health` },
 * });
 */
export const startServerProcess = async (options: ServerProcessOptions): Promise<ServerProcess> => {
  installExitHooks();
  const logPath = join(options.dir, `${options.name}.log`);
  const logFd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(options.command, [...options.args], {
      cwd: options.dir,
      env: options.env ?? process.env,
      stdio: ['ignore', logFd, logFd],
    });
  } finally {
    closeSync(logFd); // the child holds its own copy
  }
  liveChildren.add(child);

  let exitInfo: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      liveChildren.delete(child);
      resolve(exitInfo);
    });
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });

  const failure = (message: string, cause?: unknown): ServerStartError =>
    new ServerStartError(withLogTail(`${options.name}: ${message}`, logPath), logPath, cause === undefined ? undefined : { cause });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (exitInfo !== undefined) return;
      child.kill('SIGTERM');
      const timeoutMs = options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
      // The timer is cancelled once the process exits, so it cannot hold the test process open.
      const timer = new AbortController();
      const deadline = sleep(timeoutMs, 'timeout' as const, { signal: timer.signal }).catch(() => 'cancelled' as const);
      const outcome = await Promise.race([exited, deadline]);
      timer.abort();
      if (outcome === 'timeout') {
        child.kill('SIGKILL');
        await exited;
      }
    })();
    return stopping;
  };

  const waitUntilReady = async (check: ReadinessCheck): Promise<void> => {
    const timeoutMs = check.timeoutMs ?? 30_000;
    const started = Date.now();
    const isReady = check.isReady ?? ((response: HttpResponse) => response.status === 200);
    let last = 'no response yet';
    let interval = 50;
    while (Date.now() - started < timeoutMs) {
      if (exitInfo !== undefined) {
        throw failure(`${describeExit(exitInfo)} before becoming ready (${check.url}: ${last})`);
      }
      try {
        const response = await httpRequest(check.url, { ...check, timeoutMs: 2_000 });
        if (isReady(response)) return;
        last = `HTTP ${response.status} ${response.body.slice(0, 500).trim()}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await Promise.race([sleep(interval), exited]);
      interval = Math.min(interval * 2, 500);
    }
    throw failure(`not ready at ${check.url} within ${timeoutMs}ms; last answer: ${last}`);
  };

  try {
    await spawned;
  } catch (error) {
    liveChildren.delete(child);
    throw failure(`cannot start ${options.command}: ${error instanceof Error ? error.message : String(error)}`, error);
  }

  const server: ServerProcess = {
    name: options.name,
    pid: child.pid ?? -1,
    logPath,
    exited,
    running: () => exitInfo === undefined,
    waitUntilReady,
    failure,
    stop,
    [Symbol.asyncDispose]: stop,
  };

  if (options.readiness !== undefined) {
    try {
      await waitUntilReady(options.readiness);
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return server;
};

/**
 * runBuildScript: run a build script with bash (and `args`), passing its progress (stderr)
 * through, and resolve with what it printed on stdout and how long it took; a failure rejects
 * with the tail of its stderr. Shared by the Kubernetes binaries' build and the upstream
 * controller build.
 */
export const runBuildScript = (script: string, args: readonly string[] = []): Promise<{ readonly stdout: string; readonly ms: number }> =>
  new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn('bash', [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderrTail = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk).slice(-4_000);
    });
    child.once('error', (error) => reject(new Error(`cannot run ${script}: ${error.message}`, { cause: error })));
    child.once('close', (code) => {
      const ms = Date.now() - started;
      if (code !== 0) reject(new Error(`${[script, ...args].join(' ')} failed with exit code ${String(code)} after ${(ms / 1000).toFixed(1)}s:\n${stderrTail}`));
      else resolve({ stdout, ms });
    });
  });
