/**
 * Benchmark: the Lambda functions' cold start as far as it can be measured off AWS — the size of
 * each bundle the CDK app synthesizes (infra/synth.ts, esbuild, with infra/lineup.config.example.yaml
 * so the forwarder's watch-session function is in the stack too), and the time a fresh Node
 * process takes to import it with the environment the template gives the function (its
 * NODE_OPTIONS included; the table and bus names, unresolved there, as dummies; a dummy region
 * and credentials: nothing is called at import). Median of RUNS fresh processes per function,
 * after one discarded run that warms the file cache; and the same without --enable-source-maps,
 * to show what the deployed NODE_OPTIONS costs. Makes no assertions.
 *
 * `node bench/coldStart.ts` runs it alone.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';

/** RUNS: fresh processes per function and variant. */
export const RUNS = 10;
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
const bundle = await import(process.env.LINEUP_BENCH_BUNDLE);
const imported = performance.now();
if (typeof bundle.handler !== 'function') throw new Error('the bundle exports no handler');
process.stdout.write(JSON.stringify({ importMs: imported - started, sinceStartMs: imported }));
process.exit(0);
`;

/** ColdStartFigure: one function's bundle and import times. */
export interface ColdStartFigure {
  readonly function: string;
  readonly logicalId: string;
  readonly entry: string;
  readonly memoryMb: number;
  readonly bundleBytes: number;
  readonly sourceMapBytes: number;
  /** deflate(bundle) + deflate(source map): about the zip the CDK uploads. */
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
  /** Median import() without --enable-source-maps. */
  readonly importNoSourceMapsP50Ms: number;
}

/** ColdStartFigures: every function, and how the bundles were made. */
export interface ColdStartFigures {
  readonly synthMs: number;
  readonly node: string;
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
const importOnce = (bundle: string, env: Record<string, string>): { importMs: number; sinceStartMs: number; wallMs: number } => {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--input-type=module', '--eval', CHILD], { env: { ...env, LINEUP_BENCH_BUNDLE: pathToFileURL(bundle).href }, encoding: 'utf8' });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`importing ${bundle} failed (exit ${String(result.status)}): ${result.stderr.slice(-1_000)}`);
  const measured = JSON.parse(result.stdout) as { importMs: number; sinceStartMs: number };
  return { ...measured, wallMs };
};

/** lambdaEnvironment: the template's variables (unresolved references as dummies) and what the runtime sets that the SDK and Powertools read. */
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
  ...Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, typeof value === 'string' ? value : `bench-${key.toLowerCase()}`])),
});

/** runColdStartBench: synthesize into a temporary directory, then measure every Lineup function of the template. */
export const runColdStartBench = (): ColdStartFigures => {
  const outdir = mkdtempSync(join(tmpdir(), 'lineup-bench-synth-'));
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
      functions: functions.map(([logicalId, resource]) => {
        const properties = resource.Properties ?? {};
        const key = String(properties.Code?.S3Key ?? '').replace(/\.zip$/, '');
        const module = (properties.Handler ?? 'index.handler').split('.')[0] ?? 'index';
        const dir = join(outdir, `asset.${key}`);
        const file = readdirSync(dir).find((name) => name === `${module}.mjs` || name === `${module}.js`);
        if (file === undefined) throw new Error(`${logicalId}: no ${module}.mjs in ${dir}`);
        const bundle = join(dir, file);
        const map = `${bundle}.map`;
        const mapBytes = statSync(map, { throwIfNoEntry: false })?.size ?? 0;
        const zippedBytes = deflateRawSync(readFileSync(bundle)).length + (mapBytes > 0 ? deflateRawSync(readFileSync(map)).length : 0);
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
        const plain = measure(withoutOptions);
        const importTimes = deployed.map((run) => run.importMs);
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
          importNoSourceMapsP50Ms: round(median(plain.map((run) => run.importMs))),
        };
      }),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;

/** renderColdStartFigures: the figures as text lines. */
export const renderColdStartFigures = (f: ColdStartFigures): string[] => [
  `cold start: bundles from infra/synth.ts --config ${SYNTH_CONFIG} (${(f.synthMs / 1000).toFixed(1)} s); import() in ${RUNS} fresh Node ${f.node} processes each (median; this machine, not Lambda's arm64)`,
  ...f.functions.map(
    (fn) =>
      `cold start ${fn.function} (${fn.entry}, ${fn.memoryMb} MB): index.mjs ${kib(fn.bundleBytes)} + map ${kib(fn.sourceMapBytes)}, about ${kib(fn.zippedBytes)} zipped; ` +
      `import ${fn.importP50Ms} ms (${fn.importMinMs}–${fn.importMaxMs}) with NODE_OPTIONS=${fn.nodeOptions || '(none)'}, ${fn.importNoSourceMapsP50Ms} ms without; ` +
      `process start → imported ${fn.sinceStartP50Ms} ms; spawn → exit ${fn.processWallP50Ms} ms`,
  ),
];

if (import.meta.main) console.log(renderColdStartFigures(runColdStartBench()).join('\n'));
