/**
 * The `lineup` CLI (lib/cli/main.ts) run as its own process, as an operator's shell runs it, for
 * the tests that check a command end to end against the real servers (the fleet view, the
 * deployed table's history, export and replay). Asynchronous on purpose: dynalite answers from
 * the test's own event loop, which a synchronous child would block.
 */
import { execFile } from 'node:child_process';
import { repoPath } from '../../repoFiles.ts';
import { DEFAULT_CONTROLLER_NAME } from '../../../lib/jobset/managedBy.ts';
import { EnvVar } from '../../../lib/hosts/lambdaConfig.ts';
import type { DynaliteServer } from './dynamo.ts';
import type { MotoServer } from './moto.ts';

/** CLI_MAX_OUTPUT_BYTES: what one run may print on each stream (a recording of hundreds of passes is megabytes). */
const CLI_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** CliRun: how a run ended and what it printed. */
export interface CliRun {
  /** The exit code; -1 when the process ended by a signal or could not start (stderr then says why). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** runLineup: `lineup ...args` from the repository's root with exactly `env`; resolves whatever the exit code. */
export const runLineup = (args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['lib/cli/main.ts', ...args], { cwd: repoPath('.'), env, encoding: 'utf8', maxBuffer: CLI_MAX_OUTPUT_BYTES }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr: error !== null && code === -1 ? `${stderr}\n${error.message}` : stderr });
    });
  });

/**
 * tableEnv: the environment in which the CLI reaches `dynamo` through the AWS SDK's default
 * chains (AWS_ENDPOINT_URL_DYNAMODB and static credentials), as `--table` does against a deployment.
 */
export const tableEnv = (dynamo: DynaliteServer): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'] ?? '',
  HOME: process.env['HOME'] ?? '',
  AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  AWS_ACCESS_KEY_ID: 'testing',
  AWS_SECRET_ACCESS_KEY: 'testing',
});

/** lineupAgainstTable: runs of the CLI that reach `dynamo`'s tables (tableEnv). */
export const lineupAgainstTable =
  (dynamo: DynaliteServer): ((...args: string[]) => Promise<CliRun>) =>
  (...args) =>
    runLineup(args, tableEnv(dynamo));

/**
 * forwarderProcessEnv: the environment of a `lineup forward` process as the Deployment sets it,
 * its events going to `moto`'s bus and its bookmarks to `dynamo`'s table (static credentials, the
 * endpoints by AWS_ENDPOINT_URL_*), for the tests and benchmarks that run the forwarder's bundle.
 */
export const forwarderProcessEnv = (options: {
  readonly cluster: string;
  readonly table: string;
  readonly bus: string;
  readonly moto: MotoServer;
  readonly dynamo: DynaliteServer;
  readonly nodeOptions?: string | undefined;
}): Record<string, string> => ({
  ...(options.nodeOptions === undefined || options.nodeOptions === '' ? {} : { NODE_OPTIONS: options.nodeOptions }),
  PATH: process.env['PATH'] ?? '',
  HOME: process.env['HOME'] ?? '',
  [EnvVar.ForwarderCluster]: options.cluster,
  [EnvVar.TableName]: options.table,
  [EnvVar.EventBusName]: options.bus,
  [EnvVar.ControllerName]: DEFAULT_CONTROLLER_NAME,
  AWS_REGION: options.moto.clientConfig.region,
  AWS_ACCESS_KEY_ID: options.moto.clientConfig.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: options.moto.clientConfig.credentials.secretAccessKey,
  AWS_ENDPOINT_URL_EVENTBRIDGE: options.moto.endpoint,
  AWS_ENDPOINT_URL_DYNAMODB: options.dynamo.endpoint,
});
