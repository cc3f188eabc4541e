/**
 * A Lambda function's asset in the Lambda Runtime Interface Emulator (aws-lambda-rie, built
 * from its pinned Go module into the cache on first use), shared by the rehearsal
 * (infra/rehearsal/rehearse.ts) and the cold-start benchmark (bench/coldStart.ts).
 *
 * The emulator runs RUNTIME_CLIENT in a fresh Node as the function's runtime: it finds the
 * handler as the nodejs runtime does — `_HANDLER` split at its last dot into a module path under
 * `LAMBDA_TASK_ROOT` (tried as .js, .mjs, .cjs) and an export — reports an import failure or a
 * missing export to /init/error, then serves invocations with a context built from the
 * emulator's headers. Not the `aws-lambda-ric` client: it compiles aws-lambda-cpp and libcurl
 * with node-gyp, minutes of C++ on this machine for a client the managed runtime does not use.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '../../lib/retry.ts';

/** RIE_MODULE, RIE_VERSION: the emulator's Go module, pinned (its newest pseudo-version on 2026-12-01). */
export const RIE_MODULE = 'github.com/aws/aws-lambda-runtime-interface-emulator';
export const RIE_VERSION = 'v0.0.0-20261030222936-bef5c4ba774d';
/** RIE_DIR: where the emulator is built, once. */
const RIE_DIR = join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'lineup', `rie-${RIE_VERSION}`);

/** RUNTIME_CLIENT_FILE: the runtime client's file name in a work directory (writeRuntimeClient). */
export const RUNTIME_CLIENT_FILE = 'runtimeClient.mjs';

/** RUNTIME_CLIENT: see the file comment. */
export const RUNTIME_CLIENT = `
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const api = 'http://' + process.env.AWS_LAMBDA_RUNTIME_API + '/2018-06-01/runtime';
const initError = async (errorType, errorMessage) => {
  await fetch(api + '/init/error', { method: 'POST', headers: { 'Lambda-Runtime-Function-Error-Type': errorType }, body: JSON.stringify({ errorMessage, errorType }) });
  process.exit(1);
};
const spec = process.env._HANDLER ?? '';
const root = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
const dot = spec.lastIndexOf('.');
if (dot <= 0) await initError('Runtime.MalformedHandlerName', 'Bad handler ' + spec);
const modulePath = join(root, spec.slice(0, dot));
const exportName = spec.slice(dot + 1);
const file = ['.js', '.mjs', '.cjs'].map((extension) => modulePath + extension).find((path) => existsSync(path));
if (file === undefined) await initError('Runtime.ImportModuleError', "Error: Cannot find module '" + spec.slice(0, dot) + "' under " + root);
let handler;
try {
  handler = (await import(pathToFileURL(file).href))[exportName];
} catch (error) {
  await initError('Runtime.ImportModuleError', String(error && error.stack || error));
}
if (typeof handler !== 'function') await initError('Runtime.HandlerNotFound', spec + ' is undefined or not exported');
for (;;) {
  const next = await fetch(api + '/invocation/next');
  const id = next.headers.get('lambda-runtime-aws-request-id');
  const deadline = Number(next.headers.get('lambda-runtime-deadline-ms'));
  const event = await next.json();
  const context = {
    awsRequestId: id,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST',
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    invokedFunctionArn: next.headers.get('lambda-runtime-invoked-function-arn') ?? 'arn:aws:lambda:us-east-1:000000000000:function:' + process.env.AWS_LAMBDA_FUNCTION_NAME,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME ?? '/aws/lambda/' + process.env.AWS_LAMBDA_FUNCTION_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME ?? 'rehearsal',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };
  try {
    const result = await handler(event, context);
    await fetch(api + '/invocation/' + id + '/response', { method: 'POST', body: JSON.stringify(result ?? null) });
  } catch (error) {
    await fetch(api + '/invocation/' + id + '/error', { method: 'POST', headers: { 'Lambda-Runtime-Function-Error-Type': 'Unhandled' }, body: JSON.stringify({ errorMessage: String(error && error.message || error), errorType: error && error.name || 'Error', stackTrace: String(error && error.stack || '').split('\\n') }) });
  }
}
`;

/** writeRuntimeClient: RUNTIME_CLIENT into `dir`; its path. */
export const writeRuntimeClient = (dir: string): string => {
  const path = join(dir, RUNTIME_CLIENT_FILE);
  writeFileSync(path, RUNTIME_CLIENT);
  return path;
};

/** ensureRie: the emulator's binary, built with `go install` on first use (progress on stderr); or why it cannot be. */
export const ensureRie = (): { binary: string } | { unavailable: string } => {
  const binary = join(RIE_DIR, 'aws-lambda-rie');
  if (existsSync(binary)) return { binary };
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0) return { unavailable: `no Go toolchain on PATH to build ${RIE_MODULE} (${go.error?.message ?? go.stderr.trim()})` };
  mkdirSync(RIE_DIR, { recursive: true });
  process.stderr.write(`lineup: building aws-lambda-rie ${RIE_VERSION} with ${go.stdout.trim()} into ${RIE_DIR} (a few minutes on 2 cores)\n`);
  // Under a lock, into a scratch GOBIN, then moved into place whole: the test setup's background
  // build and a test may both get here, and one must not run a half-written binary.
  const scratch = mkdtempSync(join(RIE_DIR, 'gobin-'));
  const built = spawnSync(
    'flock',
    [join(RIE_DIR, '.build.lock'), 'bash', '-c', '[[ -x "$1" ]] || { go install -trimpath -gcflags=all=-dwarf=false -ldflags="-s -w" "$2" && mv "$GOBIN/aws-lambda-rie" "$1"; }', 'rie-build', binary, `${RIE_MODULE}/cmd/aws-lambda-rie@${RIE_VERSION}`],
    { env: { ...process.env, GOBIN: scratch }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  rmSync(scratch, { recursive: true, force: true });
  if (built.status !== 0 || !existsSync(binary)) return { unavailable: `go install ${RIE_MODULE}/cmd/aws-lambda-rie@${RIE_VERSION} failed (exit ${String(built.status)}${built.error ? `: ${built.error.message}` : ''})` };
  process.stderr.write('lineup: aws-lambda-rie built\n');
  return { binary };
};

/** INIT_REPORT: the emulator's log line for a finished init. */
export const INIT_REPORT = /INIT REPORT\(durationMs: ([0-9.]+)\)/;

/** heapArgs: the V8 heap limits the rehearsal derives from MemorySize: old space 90% of it, as the managed runtime sizes the heap to the function's memory. */
export const heapArgs = (memoryMb: number): string[] => [`--max-old-space-size=${Math.floor(memoryMb * 0.9)}`];

/** freeLoopbackPort: a loopback port nobody listens on now. */
export const freeLoopbackPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/** EmulatedInvocation: one invocation's outcome and its round trip through the emulator. */
export interface EmulatedInvocation {
  readonly ok: boolean;
  readonly payload: unknown;
  /** The error message when not ok. */
  readonly error: string;
  readonly ms: number;
}

/** FunctionInstanceOptions: what one emulator runs. */
export interface FunctionInstanceOptions {
  readonly rie: string;
  /** The runtime client's file (writeRuntimeClient). */
  readonly runtimeClient: string;
  /** The environment of the function's process (the template's variables, the runtime's, the endpoints). */
  readonly env: Readonly<Record<string, string>>;
  /** Node arguments before the runtime client (heapArgs). */
  readonly nodeArgs: readonly string[];
  /** Where the emulator's output (the function's logs) goes. */
  readonly logFile: string;
  /** A name for messages. */
  readonly name: string;
}

/** FunctionInstance: a running emulator with one function instance; invocations run one at a time. */
export class FunctionInstance {
  readonly name: string;
  readonly logFile: string;
  private readonly child: ChildProcess;
  private readonly url: string;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(name: string, child: ChildProcess, url: string, logFile: string) {
    this.name = name;
    this.child = child;
    this.url = url;
    this.logFile = logFile;
  }

  /** start: the emulator listening; the function's init runs at the first invocation, as Lambda's does on a cold start. */
  static async start(options: FunctionInstanceOptions): Promise<FunctionInstance> {
    const [emulatorPort, runtimePort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const fd = openSync(options.logFile, 'a');
    const child = spawn(
      options.rie,
      ['--runtime-interface-emulator-address', `127.0.0.1:${emulatorPort}`, '--runtime-api-address', `127.0.0.1:${runtimePort}`, process.execPath, ...options.nodeArgs, options.runtimeClient],
      { env: { ...options.env }, stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    const instance = new FunctionInstance(options.name, child, `http://127.0.0.1:${emulatorPort}/2015-03-31/functions/function/invocations`, options.logFile);
    // The emulator listens within milliseconds; wait until it answers a connection.
    for (let attempt = 0; ; attempt += 1) {
      if (child.exitCode !== null) throw new Error(`${options.name}: aws-lambda-rie exited ${String(child.exitCode)} at start: ${instance.log().slice(-1_500)}`);
      const open = await new Promise<boolean>((resolve) => {
        const socket = createConnection({ port: emulatorPort, host: '127.0.0.1' }, () => {
          socket.end();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
      if (open) break;
      if (attempt > 200) throw new Error(`${options.name}: aws-lambda-rie did not listen on 127.0.0.1:${emulatorPort} within 10 s: ${instance.log().slice(-1_500)}`);
      await sleep(50);
    }
    return instance;
  }

  /** log: what the emulator and the function printed so far. */
  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }

  /** initMs: the INIT REPORT's durationMs, once the first invocation ran the init. */
  initMs(): number | undefined {
    const match = INIT_REPORT.exec(this.log());
    return match?.[1] === undefined ? undefined : Number(match[1]);
  }

  /** invoke: one invocation with `event`, after any before it on this instance. */
  invoke(event: unknown): Promise<EmulatedInvocation> {
    const run = this.queue.then(async (): Promise<EmulatedInvocation> => {
      const started = performance.now();
      let response: Response;
      try {
        response = await fetch(this.url, { method: 'POST', body: JSON.stringify(event) });
      } catch (error) {
        return { ok: false, payload: undefined, error: `${this.name}: the emulator did not answer (${String(error)}): ${this.log().slice(-800)}`, ms: performance.now() - started };
      }
      const text = await response.text();
      const ms = performance.now() - started;
      let payload: unknown = text;
      try {
        payload = text === '' ? null : (JSON.parse(text) as unknown);
      } catch {
        // Not JSON: kept as the text it is (the poller's settlement treats a non-object as a failed batch).
      }
      const functionError = response.headers.get('x-amz-function-error');
      const isError = response.status !== 200 || functionError !== null || (typeof payload === 'object' && payload !== null && 'errorType' in payload && 'errorMessage' in payload);
      if (!isError) return { ok: true, payload, error: '', ms };
      const described = typeof payload === 'object' && payload !== null && 'errorMessage' in payload ? `${String((payload as { errorType?: unknown }).errorType)}: ${String((payload as { errorMessage?: unknown }).errorMessage)}` : text.slice(0, 800);
      return { ok: false, payload, error: `${this.name}: ${described}`, ms };
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** stop: SIGTERM the emulator (it ends the runtime), SIGKILL after 2 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  }
}

