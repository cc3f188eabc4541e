/**
 * `lineup forward`: the forwarder as a long-running process — the container entry point of the
 * in-cluster Deployment (infra/manifests). Configuration comes from the same environment
 * variables the Lambda functions read (LINEUP_TABLE_NAME, LINEUP_EVENT_BUS_NAME,
 * LINEUP_FORWARDER_CLUSTER, …); the cluster is the pod's own unless --kubeconfig is given.
 * SIGTERM flushes every accepted event and writes the last checkpoint before exiting.
 * It exits 2 at once when it finds no AWS credentials to sign with; credentials that fail later
 * (expired, revoked, an agent gone) are retried with the requests, each failure logged.
 */
import { Counters } from '../counters.ts';
import { forwarderAwsClients } from '../hosts/forwarderAwsClients.ts';
import { forwarderFor } from '../hosts/forwarderHost.ts';
import { readLambdaConfig } from '../hosts/lambdaConfig.ts';
import type { KubeconfigReader } from '../k8s/auth.ts';
import { inClusterEndpoint } from '../k8s/inCluster.ts';
import type { Log } from '../log.ts';
import { ExitCode, type CliIo } from './io.ts';

/**
 * forwardCommand: forward until `signal` aborts. `readKubeconfig` reads --kubeconfig: the CLI
 * passes client-node's reader (every auth method), the forwarder image its static one.
 */
export const forwardCommand = async (flags: { kubeconfig?: string | undefined }, io: CliIo, signal: AbortSignal, readKubeconfig: KubeconfigReader): Promise<number> => {
  // One JSON line per log entry: what a container log pipeline expects.
  const log: Log = (level, message, fields) => io.stderr(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  try {
    const config = readLambdaConfig(process.env);
    const counters = new Counters();
    const endpoint = flags.kubeconfig ? await readKubeconfig(flags.kubeconfig, undefined) : inClusterEndpoint({ env: process.env });
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
    return ExitCode.Ok;
  } catch (error) {
    io.stderr(`lineup forward: ${(error as Error).message}\n`);
    return ExitCode.Usage;
  }
};
