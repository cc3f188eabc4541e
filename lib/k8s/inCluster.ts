/**
 * The endpoint of the cluster a pod runs in (the forwarder Deployment's host): the API server
 * named by KUBERNETES_SERVICE_HOST/PORT, verified against the service account's CA, with the
 * service account's token — a projected token the kubelet rotates, so it is read again once
 * TOKEN_REREAD_MS has passed since the last read (client-go and client-node re-read it as often).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError } from '../errors.ts';
import { kubeEndpoint } from './endpoint.ts';
import type { KubeEndpoint } from './endpoint.ts';

/** SERVICE_ACCOUNT_DIR: where the kubelet mounts the pod's service account. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** TOKEN_REREAD_MS: how long a read token is used before the file is read again. */
export const TOKEN_REREAD_MS = 60_000;

/** InClusterOptions: the environment and the seams tests replace. */
export interface InClusterOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** @default SERVICE_ACCOUNT_DIR */
  readonly dir?: string | undefined;
  /** @default Date.now */
  readonly now?: (() => number) | undefined;
}

/**
 * inClusterEndpoint: the pod's own cluster; InvalidInputError when the process runs outside a
 * pod (no KUBERNETES_SERVICE_HOST) or the service account's CA cannot be read.
 *
 * @example
 * const endpoint = inClusterEndpoint({ env: process.env });
 */
export const inClusterEndpoint = (options: InClusterOptions): KubeEndpoint => {
  const host = options.env['KUBERNETES_SERVICE_HOST'];
  const port = options.env['KUBERNETES_SERVICE_PORT'] ?? '443';
  if (host === undefined || host === '') {
    throw new InvalidInputError('KUBERNETES_SERVICE_HOST is not set: not running in a pod, expected --kubeconfig FILE outside a cluster');
  }
  const dir = options.dir ?? SERVICE_ACCOUNT_DIR;
  let ca: string;
  try {
    ca = readFileSync(join(dir, 'ca.crt'), 'utf8');
  } catch (error) {
    throw new InvalidInputError(`read the service account CA ${join(dir, 'ca.crt')}: ${(error as Error).message}, expected the kubelet's mounted service account`, { cause: error });
  }
  const now = options.now ?? Date.now;
  let cached: { readonly token: string; readonly readAt: number } | undefined;
  const token = async (): Promise<string> => {
    const at = now();
    if (cached !== undefined && at - cached.readAt < TOKEN_REREAD_MS) return cached.token;
    const text = (await readFile(join(dir, 'token'), 'utf8')).trim();
    cached = { token: text, readAt: at };
    return text;
  };
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return kubeEndpoint({ server, ca, token });
};
