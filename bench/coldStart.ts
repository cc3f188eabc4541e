/**
 * Benchmark: the Lambda functions' cold start as far as it can be measured off AWS — the size of
 * each bundle the CDK app synthesizes (infra/synth.ts, esbuild, with infra/lineup.config.example.yaml
 * so the forwarder's watch-session function is in the stack too), the time a fresh Node process
 * takes to import it with the environment the template gives the function (the table and bus
 * names, unresolved there, as dummies; a dummy region and credentials: nothing is called at
 * import), and Lambda's own init of it under the Lambda Runtime Interface Emulator.
 *
 * Import: median of RUNS fresh processes per function, after one discarded run that warms the
 * file cache, as wall time and as CPU time (user + system of the process, which a busy machine
 * inflates far less than wall time); with the template's NODE_OPTIONS, and without when it sets any.
 *
 * Lambda init: the emulator (aws-lambda-rie, built from its Go module into ~/.cache/lineup/rie on
 * first use, progress on stderr) runs a fresh Node 24 per run with the runtime client the
 * rehearsal uses too (infra/rehearsal/emulator.ts: the handler found from _HANDLER under
 * LAMBDA_TASK_ROOT, as the nodejs24.x runtime does) and reports `INIT REPORT` after the first
 * invocation is asked for: the figure is its durationMs, median of RIE_RUNS. Without Go the figure says why.
 * Makes no assertions.
 *
 * `node bench/coldStart.ts` runs it alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { INIT_REPORT, RIE_VERSION, RUNTIME_CLIENT_FILE, ensureRie, writeRuntimeClient } from '../infra/rehearsal/emulator.ts';

/** RUNS: fresh processes per function and variant. */
export const RUNS = 10;
/** RIE_RUNS: fresh emulators per function. */
export const RIE_RUNS = 3;
/** RIE_INIT_TIMEOUT_MS: the longest a run may take to report its init before it counts as failed. */
const RIE_INIT_TIMEOUT_MS = 120_000;
/** REPO: the repository root. */
const REPO = fileURLToPath(new URL('../', import.meta.url));
/** SYNTH_CONFIG: a stack configuration with a Lambda forwarder (cluster batch-small), so all three functions are synthesized. */
const SYNTH_CONFIG = 'infra/lineup.config.example.yaml';
/** ENTRY_OF: each function's entry point, by the prefix of its logical id. */
const ENTRY_OF: readonly { readonly prefix: RegExp; readonly name: string; readonly entry: string }[] = [
  { prefix: /^Reconciler/, name: 'reconciler', entry: 'functions/reconciler.ts' },
  { prefix: /^Resync/, name: 'resync', entry: 'functions/resync.ts' },
  { prefix: /^Cluster.*Forwarder/, name: 'forwarder', entry: 'functions/forwarder.ts' },
];

/**
 * CHILD: what each fresh process runs — import the bundle, check it exports a handler, report the
 * import's time and the time since the process started (performance.now() counts from there).
 */
const CHILD = `
const started = performance.now();
const cpu = process.cpuUsage();
const bundle = await import(process.env.LINEUP_BENCH_BUNDLE);
const imported = performance.now();
const used = process.cpuUsage(cpu);
if (typeof bundle.handler !== 'function') throw new Error('the bundle exports no handler');
process.stdout.write(JSON.stringify({ importMs: imported - started, importCpuMs: (used.user + used.system) / 1000, sinceStartMs: imported }));
process.exit(0);
`;

/** INVOKE: asks the emulator for one invocation (retrying until it listens), so it runs the init. */
const INVOKE = `
const url = process.argv[1];
for (let attempt = 0; attempt < 600; attempt += 1) {
  try { await fetch(url, { method: 'POST', body: '{}' }); break; } catch { await new Promise((resolve) => setTimeout(resolve, 100)); }
}
`;

/** ColdStartFigure: one function's bundle and import times. */
export interface ColdStartFigure {
  readonly function: string;
  readonly logicalId: string;
  readonly entry: string;
  readonly memoryMb: number;
  readonly bundleBytes: number;
  /** The source map's bytes in the asset (0: not in the zip, the default). */
  readonly sourceMapBytes: number;
  /** deflate of every file of the asset (the bundle, and its map when shipped): about the zip the CDK uploads. */
  readonly zippedBytes: number;
  readonly nodeOptions: string;
  /** Median over RUNS processes: the import() of the bundle, as deployed (template NODE_OPTIONS). */
  readonly importP50Ms: number;
  readonly importMinMs: number;
  readonly importMaxMs: number;
  /** Median: process start → bundle imported, measured in the child. */
  readonly sinceStartP50Ms: number;
  /** Median: spawn → exit, measured by the parent. */
  readonly processWallP50Ms: number;
  /** Median CPU time (user + system) of the import, as deployed. */
  readonly importCpuP50Ms: number;
  /** Median import() without the template's NODE_OPTIONS (the same runs when it sets none). */
  readonly importNoSourceMapsP50Ms: number;
  /** Lambda's init under the emulator (INIT REPORT durationMs), median of RIE_RUNS; or why there is none. */
  readonly lambdaInit: LambdaInitFigure;
}

/** LambdaInitFigure: the emulator's init durations of one function, or why they were not measured. */
export type LambdaInitFigure = { readonly p50Ms: number; readonly runsMs: readonly number[] } | { readonly unavailable: string };

/** ColdStartFigures: every function, and how the bundles were made. */
export interface ColdStartFigures {
  readonly synthMs: number;
  readonly node: string;
  /** The emulator used for lambdaInit, or why none. */
  readonly rie: string;
  readonly functions: readonly ColdStartFigure[];
}

/** TemplateFunction: the part of an AWS::Lambda::Function read here. */
interface TemplateFunction {
  readonly Type?: string;
  readonly Properties?: {
    readonly Handler?: string;
    readonly MemorySize?: number;
    readonly Code?: { readonly S3Key?: unknown };
    readonly Environment?: { readonly Variables?: Record<string, unknown> };
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};
const round = (value: number): number => Math.round(value * 10) / 10;

/** synthesize: `node infra/synth.ts --config SYNTH_CONFIG --outdir DIR`, its output kept unless it fails. */
const synthesize = (outdir: string): void => {
  const result = spawnSync(process.execPath, ['infra/synth.ts', '--config', SYNTH_CONFIG, '--outdir', outdir], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`node infra/synth.ts failed (exit ${String(result.status)}): ${(result.stderr || String(result.error)).slice(-2_000)}`);
};

/** importOnce: one fresh process importing `bundle` with `env`; the child's times and the parent's wall time. */
const importOnce = (bundle: string, env: Record<string, string>): { importMs: number; importCpuMs: number; sinceStartMs: number; wallMs: number } => {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--input-type=module', '--eval', CHILD], { env: { ...env, LINEUP_BENCH_BUNDLE: pathToFileURL(bundle).href }, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`importing ${bundle} failed (exit ${String(result.status)}): ${result.stderr.slice(-1_000)}`);
  const measured = JSON.parse(result.stdout) as { importMs: number; importCpuMs: number; sinceStartMs: number };
  return { ...measured, wallMs };
};

/** sleepSync: block this thread for `ms` (the bench is synchronous; the emulator runs in its own process). */
const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** freePort: a loopback port nobody listens on now (asked of the OS in a child, the bench being synchronous). */
const freePort = (): number => {
  const result = spawnSync(process.execPath, ['--eval', `const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); });`], { encoding: 'utf8' });
  const port = Number(result.stdout);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`no free loopback port: ${result.stderr}`);
  return port;
};

/** rieInitOnce: one fresh emulator running the handler `handler` of the asset `dir` with `env`; its init's durationMs. */
const rieInitOnce = (rie: string, dir: string, handler: string, env: Record<string, string>, workDir: string): number => {
  const bundle = `${dir} (${handler})`;
  const [emulatorPort, runtimePort] = [freePort(), freePort()];
  const log = join(workDir, `rie-${emulatorPort}.log`);
  const logFd = openSync(log, 'w');
  const emulator = spawn(
    rie,
    ['--runtime-interface-emulator-address', `127.0.0.1:${emulatorPort}`, '--runtime-api-address', `127.0.0.1:${runtimePort}`, process.execPath, join(workDir, RUNTIME_CLIENT_FILE)],
    // Nothing is reachable: the SDK fails fast instead of looking for AWS.
    { env: { ...env, _HANDLER: handler, LAMBDA_TASK_ROOT: dir, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' }, cwd: workDir, stdio: ['ignore', logFd, logFd] },
  );
  closeSync(logFd);
  const invoke = spawn(process.execPath, ['--eval', INVOKE, `http://127.0.0.1:${emulatorPort}/2015-03-31/functions/function/invocations`], { stdio: 'ignore' });
  try {
    const deadline = Date.now() + RIE_INIT_TIMEOUT_MS;
    for (;;) {
      const text = readFileSync(log, 'utf8');
      const reported = INIT_REPORT.exec(text);
      if (reported?.[1] !== undefined) return Number(reported[1]);
      if (emulator.exitCode !== null || Date.now() > deadline) throw new Error(`aws-lambda-rie reported no init for ${bundle} (${emulator.exitCode === null ? 'timed out' : `exit ${String(emulator.exitCode)}`}): ${text.slice(-1_500)}`);
      sleepSync(50);
    }
  } finally {
    invoke.kill('SIGKILL');
    emulator.kill('SIGKILL');
  }
};

/** lambdaEnvironment: the template's variables (unresolved references as dummy URLs) and what the runtime sets that the SDK and Powertools read. */
const lambdaEnvironment = (name: string, memoryMb: number, variables: Record<string, unknown>): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  AWS_REGION: 'us-east-1',
  AWS_DEFAULT_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_LAMBDA_FUNCTION_NAME: name,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  // An unresolved reference (a table, bus or queue) as a dummy every variable's schema takes: a URL on a closed port (a queue URL must be one).
  ...Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, typeof value === 'string' ? value : `http://127.0.0.1:9/bench-${key.toLowerCase()}`])),
});

/** runColdStartBench: synthesize into a temporary directory, then measure every Lineup function of the template. */
export const runColdStartBench = (): ColdStartFigures => {
  const outdir = mkdtempSync(join(tmpdir(), 'lineup-bench-synth-'));
  const rieWork = mkdtempSync(join(tmpdir(), 'lineup-bench-rie-'));
  writeRuntimeClient(rieWork);
  const rie = ensureRie();
  try {
    const synthStarted = performance.now();
    synthesize(outdir);
    const synthMs = performance.now() - synthStarted;
    const templateFile = readdirSync(outdir).find((name) => name.endsWith('.template.json'));
    if (templateFile === undefined) throw new Error(`no *.template.json in ${outdir}`);
    const template = JSON.parse(readFileSync(join(outdir, templateFile), 'utf8')) as { Resources?: Record<string, TemplateFunction> };
    const functions = Object.entries(template.Resources ?? {}).filter(
      ([, resource]) => resource.Type === 'AWS::Lambda::Function' && resource.Properties?.Environment?.Variables?.['LINEUP_TABLE_NAME'] !== undefined,
    );
    return {
      synthMs: Math.round(synthMs),
      node: process.version,
      rie: 'binary' in rie ? `aws-lambda-rie ${RIE_VERSION}` : rie.unavailable,
      functions: functions.map(([logicalId, resource]) => {
        const properties = resource.Properties ?? {};
        const key = String(properties.Code?.S3Key ?? '').replace(/\.zip$/, '');
        const module = (properties.Handler ?? 'index.handler').split('.')[0] ?? 'index';
        const dir = join(outdir, `asset.${key}`);
        const file = readdirSync(dir).find((name) => name === `${module}.mjs` || name === `${module}.js`);
        if (file === undefined) throw new Error(`${logicalId}: no ${module}.mjs in ${dir}`);
        const bundle = join(dir, file);
        const mapBytes = statSync(`${bundle}.map`, { throwIfNoEntry: false })?.size ?? 0;
        const zippedBytes = readdirSync(dir).reduce((sum, name) => sum + deflateRawSync(readFileSync(join(dir, name))).length, 0);
        const known = ENTRY_OF.find((candidate) => candidate.prefix.test(logicalId));
        const name = known?.name ?? logicalId;
        const memoryMb = properties.MemorySize ?? 128;
        const variables = properties.Environment?.Variables ?? {};
        const env = lambdaEnvironment(name, memoryMb, variables);
        const { NODE_OPTIONS: nodeOptions, ...withoutOptions } = env;
        const measure = (environment: Record<string, string>) => {
          importOnce(bundle, environment);
          return Array.from({ length: RUNS }, () => importOnce(bundle, environment));
        };
        const deployed = measure(env);
        const plain = nodeOptions === undefined ? deployed : measure(withoutOptions);
        const importTimes = deployed.map((run) => run.importMs);
        let lambdaInit: LambdaInitFigure;
        if ('binary' in rie) {
          const runsMs = Array.from({ length: RIE_RUNS }, () => round(rieInitOnce(rie.binary, dir, properties.Handler ?? 'index.handler', env, rieWork)));
          lambdaInit = { p50Ms: round(median(runsMs)), runsMs };
        } else lambdaInit = { unavailable: rie.unavailable };
        return {
          function: name,
          logicalId,
          entry: known?.entry ?? '?',
          memoryMb,
          bundleBytes: statSync(bundle).size,
          sourceMapBytes: mapBytes,
          zippedBytes,
          nodeOptions: nodeOptions ?? '',
          importP50Ms: round(median(importTimes)),
          importMinMs: round(Math.min(...importTimes)),
          importMaxMs: round(Math.max(...importTimes)),
          sinceStartP50Ms: round(median(deployed.map((run) => run.sinceStartMs))),
          processWallP50Ms: round(median(deployed.map((run) => run.wallMs))),
          importCpuP50Ms: round(median(deployed.map((run) => run.importCpuMs))),
          importNoSourceMapsP50Ms: round(median(plain.map((run) => run.importMs))),
          lambdaInit,
        };
      }),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
    rmSync(rieWork, { recursive: true, force: true });
  }
};

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;

/** renderColdStartFigures: the figures as text lines. */
export const renderColdStartFigures = (f: ColdStartFigures): string[] => [
  `cold start: bundles from infra/synth.ts --config ${SYNTH_CONFIG} (${(f.synthMs / 1000).toFixed(1)} s); import() in ${RUNS} fresh Node ${f.node} processes each (median; this machine, not Lambda's arm64); Lambda init under ${f.rie}`,
  ...f.functions.map(
    (fn) =>
      `cold start ${fn.function} (${fn.entry}, ${fn.memoryMb} MB): index.mjs ${kib(fn.bundleBytes)}${fn.sourceMapBytes > 0 ? ` + map ${kib(fn.sourceMapBytes)}` : ' (no source map in the zip)'}, about ${kib(fn.zippedBytes)} zipped; ` +
      `import ${fn.importP50Ms} ms (${fn.importMinMs}–${fn.importMaxMs}), ${fn.importCpuP50Ms} ms CPU, with NODE_OPTIONS=${fn.nodeOptions || '(none)'}` +
      `${fn.nodeOptions ? `, ${fn.importNoSourceMapsP50Ms} ms without` : ''}; process start → imported ${fn.sinceStartP50Ms} ms; spawn → exit ${fn.processWallP50Ms} ms; ` +
      ('p50Ms' in fn.lambdaInit ? `Lambda init (RIE) ${fn.lambdaInit.p50Ms} ms (runs ${fn.lambdaInit.runsMs.join(', ')})` : `Lambda init not measured: ${fn.lambdaInit.unavailable}`),
  ),
];

if (import.meta.main) console.log(renderColdStartFigures(runColdStartBench()).join('\n'));
