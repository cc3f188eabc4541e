/**
 * `lineup forward`: the forwarder as a long-running process — the container entry point of the
 * in-cluster Deployment (infra/manifests). What it does is lib/hosts/forwarderProcess.ts
 * forwardUntil; this command gives it client-node's kubeconfig reader and the CLI's exit codes.
 * SIGTERM flushes every accepted event and writes the last checkpoint before exiting. It exits 2
 * at once when it finds no AWS credentials to sign with; credentials that fail later (expired,
 * revoked, an agent gone) are retried with the requests, each failure logged.
 */
import { forwardUntil, jsonLineLog } from '../hosts/forwarderProcess.ts';
import type { KubeconfigReader } from '../k8s/auth.ts';
import { ExitCode, type CliIo } from './io.ts';

/** forwardCommand: forward until `signal` aborts; `readKubeconfig` (client-node's: every auth method) reads --kubeconfig. */
export const forwardCommand = async (flags: { kubeconfig?: string | undefined }, io: CliIo, signal: AbortSignal, readKubeconfig: KubeconfigReader): Promise<number> => {
  try {
    await forwardUntil(flags.kubeconfig, jsonLineLog(io.stderr), signal, readKubeconfig);
    return ExitCode.Ok;
  } catch (error) {
    io.stderr(`lineup forward: ${(error as Error).message}\n`);
    return ExitCode.Usage;
  }
};
