/**
 * A kubeconfig with static credentials — a token or token file, a client certificate, a CA — read
 * without client-node: the forwarder image's `--kubeconfig` (lib/hosts/forwarderProcess.ts),
 * whose one-file bundle must not carry client-node and its HTTP stack. A user that authenticates
 * by an exec plugin or an auth provider is refused with a message naming it; the CLI's
 * `lineup forward --kubeconfig` reads those (lib/k8s/kubeConfigFile.ts).
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import * as z from 'zod';
import { KubeconfigMessage } from './kubeconfigMessage.ts';
import { InvalidInputError } from '../errors.ts';
import { kubeEndpoint } from './endpoint.ts';
import type { KubeEndpoint } from './endpoint.ts';

/** KubeconfigSchema: the parts of a kubeconfig (clientcmd v1 Config) read here. */
const KubeconfigSchema = z.looseObject({
  'current-context': z.string().optional(),
  clusters: z
    .array(
      z.looseObject({
        name: z.string(),
        cluster: z.looseObject({
          server: z.string(),
          'certificate-authority': z.string().optional(),
          'certificate-authority-data': z.string().optional(),
          'insecure-skip-tls-verify': z.boolean().optional(),
          'tls-server-name': z.string().optional(),
        }),
      }),
    )
    .nullish(),
  users: z
    .array(
      z.looseObject({
        name: z.string(),
        user: z
          .looseObject({
            token: z.string().optional(),
            tokenFile: z.string().optional(),
            'client-certificate': z.string().optional(),
            'client-certificate-data': z.string().optional(),
            'client-key': z.string().optional(),
            'client-key-data': z.string().optional(),
            exec: z.unknown().optional(),
            'auth-provider': z.unknown().optional(),
          })
          .nullish(),
      }),
    )
    .nullish(),
  contexts: z.array(z.looseObject({ name: z.string(), context: z.looseObject({ cluster: z.string(), user: z.string().optional() }) })).nullish(),
});

/** firstLine: the first line of an error message (a YAML error goes on with a code excerpt). */
const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';

/**
 * readStaticKubeconfig: the endpoint of the kubeconfig at `path` with `context` (or the file's
 * current-context) selected. Relative file paths in it are relative to the file, as kubectl
 * reads them; a token file is read again for each request (a projected token rotates).
 * InvalidInputError (KubeconfigMessage) when the file is missing, not YAML, not a kubeconfig,
 * has no such context, cluster or user, or its user authenticates by exec or an auth provider.
 *
 * @example
 * const endpoint = await readStaticKubeconfig('/etc/lineup/kubeconfig', undefined);
 */
export const readStaticKubeconfig = async (path: string, context: string | undefined): Promise<KubeEndpoint> => {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT') throw new InvalidInputError(KubeconfigMessage.missing(path), { cause: error });
    throw new InvalidInputError(KubeconfigMessage.unreadable(path, firstLine(error)), { cause: error });
  }
  let document: unknown;
  try {
    document = parse(text) as unknown;
  } catch (error) {
    throw new InvalidInputError(KubeconfigMessage.notYaml(path, firstLine(error)), { cause: error });
  }
  const parsed = KubeconfigSchema.safeParse(document);
  if (!parsed.success) throw new InvalidInputError(KubeconfigMessage.invalid(path, parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')));
  const config = parsed.data;
  const contexts = config.contexts ?? [];
  const known = contexts.map((candidate) => candidate.name);
  const selected = context ?? (config['current-context'] || undefined);
  if (selected === undefined) throw new InvalidInputError(KubeconfigMessage.noCurrentContext(path, known));
  const found = contexts.find((candidate) => candidate.name === selected);
  if (!found) throw new InvalidInputError(KubeconfigMessage.noSuchContext(path, selected, known));
  const cluster = (config.clusters ?? []).find((candidate) => candidate.name === found.context.cluster)?.cluster;
  if (!cluster) throw new InvalidInputError(KubeconfigMessage.noCluster(path, selected, found.context.cluster));
  const userName = found.context.user;
  const user = userName === undefined ? undefined : (config.users ?? []).find((candidate) => candidate.name === userName);
  if (userName !== undefined && user === undefined) throw new InvalidInputError(KubeconfigMessage.noUser(path, selected, userName));
  const credentials = user?.user ?? {};
  if (credentials.exec !== undefined) throw new InvalidInputError(KubeconfigMessage.unsupportedAuth(path, userName ?? '', 'an exec plugin'));
  if (credentials['auth-provider'] !== undefined) throw new InvalidInputError(KubeconfigMessage.unsupportedAuth(path, userName ?? '', 'an auth provider'));

  const near = (file: string): string => (isAbsolute(file) ? file : resolve(dirname(path), file));
  const material = async (data: string | undefined, file: string | undefined): Promise<string | undefined> => {
    if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
    if (file === undefined) return undefined;
    try {
      return await readFile(near(file), 'utf8');
    } catch (error) {
      throw new InvalidInputError(KubeconfigMessage.unreadable(near(file), firstLine(error)), { cause: error });
    }
  };
  const inline = credentials.token;
  const tokenFile = credentials.tokenFile;
  const token =
    inline !== undefined && inline !== ''
      ? async () => inline
      : tokenFile === undefined
        ? undefined
        : async () => (await readFile(near(tokenFile), 'utf8')).trim();
  return kubeEndpoint({
    server: cluster.server,
    ca: await material(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: await material(credentials['client-certificate-data'], credentials['client-certificate']),
    key: await material(credentials['client-key-data'], credentials['client-key']),
    skipTlsVerify: cluster['insecure-skip-tls-verify'],
    tlsServerName: cluster['tls-server-name'],
    token,
  });
};
