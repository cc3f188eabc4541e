/**
 * The forwarder as its Deployment runs it (infra/manifests/forwarder.yaml): the bundle the image
 * holds (infra/k8s/forwarderBundle.ts, as infra/forwarder.Dockerfile builds it), started with the
 * container's command and args (the image's /app mapped to the bundle's directory), the
 * manifest's env with its ${PLACEHOLDERS} filled in as docs/deploy.md says, the image's ENV, and
 * the AWS endpoints pointed at the test servers. The pod's service account is not there: the
 * process is given `--kubeconfig` with the cluster's CA and the forwarder's token instead. The
 * container's memory limit is not enforced (no cgroup here); the process's peak resident memory
 * is read from /proc and compared with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { isObject } from '../../lib/json.ts';

/** ForwarderContainer: the Deployment's forwarder container, as read from the manifest. */
export interface ForwarderContainer {
  readonly command: readonly string[];
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  /** resources.limits.memory in bytes, or undefined. */
  readonly memoryLimitBytes: number | undefined;
  readonly memoryLimit: string | undefined;
}

const QUANTITY_UNITS: Readonly<Record<string, number>> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 };

/** quantityBytes: a Kubernetes memory quantity (`144Mi`) in bytes. */
export const quantityBytes = (quantity: string): number => {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(quantity.trim());
  if (match?.[1] === undefined) throw new Error(`memory quantity ${JSON.stringify(quantity)}: expected e.g. 144Mi`);
  return Math.round(Number(match[1]) * (QUANTITY_UNITS[match[2] ?? ''] ?? 1));
};

/** readForwarderContainer: the first container of the manifest's Deployment; throws saying what is missing. */
export const readForwarderContainer = (manifest: string): ForwarderContainer => {
  const deployment = parseAllDocuments(manifest)
    .map((document) => document.toJS() as unknown)
    .find((object) => isObject(object) && object['kind'] === 'Deployment');
  const spec = isObject(deployment) && isObject(deployment['spec']) && isObject(deployment['spec']['template']) ? deployment['spec']['template']['spec'] : undefined;
  const container = isObject(spec) && Array.isArray(spec['containers']) ? (spec['containers'][0] as unknown) : undefined;
  if (!isObject(container)) throw new Error('the forwarder manifest holds no Deployment with a container');
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
  const command = strings(container['command']);
  if (command.length === 0) throw new Error('the forwarder container has no command (the image CMD would run; the rehearsal runs what the manifest says)');
  const env = (Array.isArray(container['env']) ? container['env'] : []).filter(isObject).map((entry) => {
    if (typeof entry['value'] !== 'string') throw new Error(`forwarder env ${String(entry['name'])}: only literal values are rehearsed, got ${JSON.stringify(entry)}`);
    return { name: String(entry['name']), value: entry['value'] };
  });
  const limits = isObject(container['resources']) && isObject(container['resources']['limits']) ? container['resources']['limits'] : {};
  const memoryLimit = typeof limits['memory'] === 'string' ? limits['memory'] : undefined;
  return { command, args: strings(container['args']), env, memoryLimit, memoryLimitBytes: memoryLimit === undefined ? undefined : quantityBytes(memoryLimit) };
};

/** substitute: `${NAME}` placeholders filled from `values`; throws naming any left unfilled. */
export const substitute = (text: string, values: Readonly<Record<string, string>>, where: string): string =>
  text.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${where}: placeholder \${${name}} has no value in the rehearsal`);
    return value;
  });

/** dockerfileEnv: the ENV lines of the image's final stage. */
export const dockerfileEnv = (dockerfile: string): Record<string, string> => {
  const stages = dockerfile.split(/^FROM\s/m);
  const last = stages[stages.length - 1] ?? '';
  const env: Record<string, string> = {};
  for (const match of last.matchAll(/^ENV\s+([A-Za-z_][A-Za-z0-9_]*)=(\S+)/gm)) if (match[1] && match[2] !== undefined) env[match[1]] = match[2];
  return env;
};

/** peakRssBytes: VmHWM of a running process (Linux), or undefined once it is gone. */
export const peakRssBytes = (pid: number): number | undefined => {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  } catch {
    return undefined;
  }
};

/** ForwarderProcess: the running forwarder. */
export interface ForwarderProcess {
  readonly child: ChildProcess;
  readonly argv: readonly string[];
  /** The highest VmHWM read so far. */
  peakRss(): number | undefined;
  /** SIGTERM, then its exit code (SIGKILL after `graceMs`). */
  stop(graceMs: number): Promise<number | null>;
}

/** startForwarder: `container` run with `appDir` for /app, env `env`, output to `logFile`, plus `extraArgs`. */
export const startForwarder = (container: ForwarderContainer, appDir: string, env: Readonly<Record<string, string>>, extraArgs: readonly string[], logFile: string): ForwarderProcess => {
  const [program, ...rest] = [...container.command, ...container.args].map((part) => part.replace(/^\/app\//, `${appDir}/`));
  const executable = program === 'node' ? process.execPath : (program ?? process.execPath);
  const argv = [...rest, ...extraArgs];
  const fd = openSync(logFile, 'a');
  const child = spawn(executable, argv, { env: { ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let peak: number | undefined;
  const sample = setInterval(() => {
    const now = child.pid === undefined ? undefined : peakRssBytes(child.pid);
    if (now !== undefined) peak = Math.max(peak ?? 0, now);
  }, 250);
  child.once('exit', () => clearInterval(sample));
  return {
    child,
    argv: [executable, ...argv],
    peakRss: () => {
      const now = child.pid === undefined ? undefined : peakRssBytes(child.pid);
      if (now !== undefined) peak = Math.max(peak ?? 0, now);
      return peak;
    },
    stop: async (graceMs) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
};
