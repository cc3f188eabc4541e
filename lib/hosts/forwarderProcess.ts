/**
 * The in-cluster forwarder's process: what infra/k8s/forwarderBundle.ts bundles into the one
 * JavaScript file the forwarder image runs. It does what `lineup forward [--kubeconfig F]` does
 * (lib/cli/forward.ts) without the rest of the CLI, so the bundle holds only the forwarder's code:
 * no commander, no simulator, no embedded DynamoDB server, no TypeScript to strip at start, no
 * client-node (--kubeconfig is read by lib/k8s/staticKubeconfig.ts: static credentials only).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { forwardCommand } from '../cli/forward.ts';
import { ExitCode } from '../cli/io.ts';
import { readStaticKubeconfig } from '../k8s/staticKubeconfig.ts';

/** runForwarderProcess: forward until SIGTERM or SIGINT; the exit code of `lineup forward` (2 for an unknown flag). */
export const runForwarderProcess = async (args: readonly string[]): Promise<number> => {
  let kubeconfig: string | undefined;
  try {
    ({ values: { kubeconfig } } = parseArgs({ args: [...args], options: { kubeconfig: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    process.stderr.write(`lineup forward: ${(error as Error).message}; expected only --kubeconfig FILE\n`);
    return ExitCode.Usage;
  }
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return forwardCommand({ kubeconfig }, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), readFile: (path) => readFileSync(path, 'utf8') }, abort.signal, readStaticKubeconfig);
};

if (import.meta.main) {
  const code = await runForwarderProcess(process.argv.slice(2));
  // Exit once the log lines are written: a request still waiting for its answer must not keep the process alive (as lib/cli/main.ts exitWhenFlushed).
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write('', () => resolve()))));
  process.exit(code);
}
