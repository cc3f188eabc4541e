/**
 * LineupFunction: one of Lineup's Lambda functions — a functions/<name>.ts entry point bundled
 * locally by esbuild (no Docker) as an ESM bundle for nodejs24.x on arm64, with its own log
 * group and its own role. The role starts with nothing but writing to that log group: each
 * construct that wires the function to a resource grants exactly what it needs, so no function
 * holds a managed policy or another function's rights.
 */
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { INSTALL_ROOT } from '../../lib/installRoot.ts';
import { plannerVersionDefine } from '../../lib/plannerVersion.ts';

/** PROJECT_ROOT: Lineup's own folder, a clone or an installed package (bundling's project root). */
export const PROJECT_ROOT = INSTALL_ROOT;

/**
 * SOURCE_EXTENSION: `.ts` when the app runs from a clone's sources, `.js` when it runs from the
 * package's built dist/ (where functions/ is JavaScript too).
 */
const SOURCE_EXTENSION = extname(fileURLToPath(import.meta.url));

/**
 * DEPS_LOCK_FILE: package-lock.json in a clone. npm packs no lock file, so an installed package
 * names its package.json instead: bundling runs the local esbuild and installs nothing, and
 * reads the file only to find the project root and the package manager (npm by default).
 */
const DEPS_LOCK_FILE = [join(INSTALL_ROOT, 'package-lock.json'), join(INSTALL_ROOT, 'package.json')].find((path) => existsSync(path));

/** LAMBDA_RUNTIME: Node 24, the major Lineup is written for (type stripping, `import.meta.main`). */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_24_X;

/** ESM_REQUIRE_BANNER: gives ESM bundles a `require` for the CommonJS modules bundled into them. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * bundling: how every function is bundled. Local esbuild (node_modules), never Docker; minified
 * and tree-shaken (ESM `module` entry points first, so esbuild can drop unused exports).
 *
 * The AWS SDK is bundled too rather than taken from the runtime: the functions then run the SDK
 * version package-lock.json pins and the tests ran, not whatever the runtime ships that month,
 * and one minified file imports faster than the runtime's hundreds of SDK modules. It costs
 * about 120 KB of each zip (bench/coldStart.ts).
 *
 * Source maps stay out of the zip unless `sourceMaps` is set: they are as large as the bundle
 * itself and `--enable-source-maps` has Node read them at start. No `keepNames` either: it adds
 * 4% to the bundle and to its import for names in stack traces, and Lineup's errors say what
 * failed in their code and message.
 *
 * The planner version goes in as a `define` (lib/plannerVersion.ts): the bundle holds none of
 * the sources it is a digest of, so it is computed here, from the code being bundled.
 */
export const bundling = (sourceMaps: boolean): nodejs.BundlingOptions => ({
  forceDockerBundling: false,
  format: nodejs.OutputFormat.ESM,
  target: 'node24',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  bundleAwsSDK: true,
  externalModules: [],
  minify: true,
  sourceMap: sourceMaps,
  ...(sourceMaps ? { sourcesContent: false } : {}),
  define: plannerVersionDefine(),
});

/** SOURCE_MAP_NODE_OPTIONS: what a function whose zip carries its source map runs with. */
export const SOURCE_MAP_NODE_OPTIONS = '--enable-source-maps';

/** LineupFunctionProps: what differs between Lineup's functions. */
export interface LineupFunctionProps {
  /** Entry point file under functions/, e.g. `reconciler.ts` (`reconciler.js` is bundled where the app runs built). */
  readonly entry: string;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly environment: Readonly<Record<string, string>>;
  /** Days the log group keeps logs. */
  readonly logRetentionDays: number;
  /** Put the source map in the zip and run with --enable-source-maps (infra/config.ts `sourceMaps`). @default false */
  readonly sourceMaps?: boolean | undefined;
  /** Concurrent executions reserved for the function, and its cap (ReservedConcurrentExecutions). @default none: the account's unreserved pool */
  readonly reservedConcurrentExecutions?: number | undefined;
}

/** LineupFunction: the function (`Resource`), its log group (`LogGroup`) and its role (`Role`). */
export class LineupFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: LineupFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetentionDays,
      // Logs outlive the stack: they are what an operator reads after something went wrong.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (Lineup)`,
    });
    // CreateLogStream and PutLogEvents on this log group only (its ARN already ends in `:*`).
    this.logGroup.grantWrite(this.role);
    this.function = new nodejs.NodejsFunction(this, 'Resource', {
      entry: fileURLToPath(new URL(`../../functions/${props.entry.replace(/\.ts$/, SOURCE_EXTENSION)}`, import.meta.url)),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: DEPS_LOCK_FILE,
      runtime: LAMBDA_RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: { ...(props.sourceMaps === true ? { NODE_OPTIONS: SOURCE_MAP_NODE_OPTIONS } : {}), ...props.environment },
      bundling: bundling(props.sourceMaps === true),
      ...(props.reservedConcurrentExecutions !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrentExecutions } : {}),
    });
  }
}
