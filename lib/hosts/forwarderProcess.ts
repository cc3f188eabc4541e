/**
 * The forwarder as a long-running process, configured by the same environment variables the
 * Lambda functions read (LINEUP_TABLE_NAME, LINEUP_EVENT_BUS_NAME, LINEUP_FORWARDER_CLUSTER, …),
 * watching the pod's own cluster unless a kubeconfig is given. Run two ways: by `lineup forward`
 * (lib/cli/forward.ts, which passes client-node's kubeconfig reader), and as this file, the one
 * JavaScript file infra/k8s/forwarderBundle.ts bundles for the forwarder image: no commander, no
 * simulator, no embedded DynamoDB server, no TypeScript to strip at start, no client-node
 * (--kubeconfig is read by lib/k8s/staticKubeconfig.ts: static credentials only).
 */
import { parseArgs } from 'node:util';
import { Counters } from '../counters.ts';
import type { KubeconfigReader } from '../k8s/auth.ts';
import { inClusterEndpoint } from '../k8s/inCluster.ts';
import { readStaticKubeconfig } from '../k8s/staticKubeconfig.ts';
import type { Log } from '../log.ts';
import { forwarderAwsClients } from './forwarderAwsClients.ts';
import { forwarderFor } from './forwarderHost.ts';
import { readLambdaConfig } from './lambdaConfig.ts';

/**
 * FORWARD_EXIT: how the process ends; the same codes as `lineup forward` (lib/cli/io.ts ExitCode),
 * which test/cli/forward.process.test.ts checks by running both.
 */
export const FORWARD_EXIT = { stopped: 0, cannotRun: 2 } as const;

/** jsonLineLog: one JSON line per log entry, what a container log pipeline expects. */
export const jsonLineLog =
  (write: (text: string) => void): Log =>
  (level, message, fields) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);

/**
 * forwardUntil: forward until `signal` aborts, then flush every accepted event and write the last
 * checkpoint. Throws at once when it finds no AWS credentials to sign with, or no usable
 * configuration or kubeconfig; credentials that fail later (expired, revoked, an agent gone) are
 * retried with the requests, each failure logged.
 */
export const forwardUntil = async (kubeconfig: string | undefined, log: Log, signal: AbortSignal, readKubeconfig: KubeconfigReader): Promise<void> => {
  const config = readLambdaConfig(process.env);
  const counters = new Counters();
  const endpoint = kubeconfig ? await readKubeconfig(kubeconfig, undefined) : inClusterEndpoint({ env: process.env });
  // Signed requests, not the SDK's clients: the pod's memory (lib/hosts/forwarderAwsClients.ts).
  const aws = forwarderAwsClients(config, counters, process.env);
  try {
    // Credentials once before watching: with none, every put and checkpoint would only warn, for ever.
    await aws.requireCredentials();
    const forwarder = await forwarderFor({ config, store: aws.store, sink: aws.sink, counters, log, endpoint });
    await forwarder.run(signal);
  } finally {
    aws.destroy();
  }
  log('info', 'forwarder stopped', counters.snapshot());
};

/** runForwarderProcess: forward until SIGTERM or SIGINT; the exit code of `lineup forward` (2 for an unknown flag). */
export const runForwarderProcess = async (args: readonly string[]): Promise<number> => {
  let kubeconfig: string | undefined;
  try {
    ({ values: { kubeconfig } } = parseArgs({ args: [...args], options: { kubeconfig: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    process.stderr.write(`lineup forward: ${(error as Error).message}; expected only --kubeconfig FILE\n`);
    return FORWARD_EXIT.cannotRun;
  }
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await forwardUntil(kubeconfig, jsonLineLog((text) => process.stderr.write(text)), abort.signal, readStaticKubeconfig);
    return FORWARD_EXIT.stopped;
  } catch (error) {
    process.stderr.write(`lineup forward: ${(error as Error).message}\n`);
    return FORWARD_EXIT.cannotRun;
  }
};

if (import.meta.main) {
  const code = await runForwarderProcess(process.argv.slice(2));
  // Exit once the log lines are written: a request still waiting for its answer must not keep the process alive (as lib/cli/main.ts exitWhenFlushed).
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
  process.exit(code);
}
