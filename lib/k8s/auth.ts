/**
 * How Lineup authenticates to a registered cluster (DESIGN §2 "Many clusters"): a kubeconfig
 * file, a static bearer token, or an EKS token — `k8s-aws-v1.` + a presigned STS
 * GetCallerIdentity URL (aws-iam-authenticator's format), signed with the Lambda's own AWS
 * credentials or a role it assumes, cached and re-signed before it expires.
 *
 * The EKS token is applied per request by a client-node custom authenticator
 * (`KubeConfig.addAuthenticator`): every request — API calls through
 * `applySecurityAuthentication`, watches and websockets through `applyToHTTPSOptions` — asks it
 * for headers, so a warm Lambda's long-lived KubeConfig always sends a fresh token. A static
 * `user.token` cannot do this: client-node writes it after the authenticators and it would win.
 *
 * Every KubeConfig built here is a PooledKubeConfig (lib/k8s/connectionPool.ts): its requests
 * share one connection pool rather than each opening a connection and a TLS handshake.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { KubeConfig } from '@kubernetes/client-node';
import type { User } from '@kubernetes/client-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { EksToken, KubeconfigMessage } from '../constants.ts';
import { InvalidInputError } from '../errors.ts';
import type { ClusterAuth, ClusterRecord } from '../store/types.ts';
import { PooledKubeConfig } from './connectionPool.ts';
import { SECRET_TOKEN_AUTH_PROVIDER, SecretTokenAuthenticator, SecretTokenSource } from './secretToken.ts';
import type { TokenRefresher } from './secretToken.ts';

/** AwsCredentials: what SigV4 signs with. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
  readonly expiration?: Date | undefined;
}

/** CredentialProvider: resolves AWS credentials (the SDK's providers fit: they cache and refresh on their own). */
export type CredentialProvider = () => Promise<AwsCredentials>;

/** Authenticator: client-node's custom authenticator interface (not exported by name from the package root). */
export type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

/** stsHost: the regional STS endpoint EKS expects the presigned URL to name (China regions live under amazonaws.com.cn). */
export const stsHost = (region: string): string => `sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;

/**
 * presignEksToken: the EKS bearer token for `clusterName`, signed at `signedAt` (epoch ms): a SigV4
 * query-presigned `GET https://sts.<region>.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15`
 * whose signed headers include `x-k8s-aws-id: <clusterName>` (so the token is good for that
 * cluster only), X-Amz-Expires=60 as aws-iam-authenticator sends it (EKS itself honours a token
 * for 15 minutes from X-Amz-Date), encoded as `k8s-aws-v1.` + base64url without padding.
 *
 * @example
 * const token = await presignEksToken('prod', 'eu-west-1', await fromNodeProviderChain()(), Date.now());
 */
export const presignEksToken = async (clusterName: string, region: string, credentials: AwsCredentials, signedAt: number): Promise<string> => {
  const hostname = stsHost(region);
  const signer = new SignatureV4({ service: 'sts', region, credentials, sha256: Sha256 });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: EksToken.stsVersion },
    headers: { host: hostname, [EksToken.clusterIdHeader]: clusterName },
  });
  const signed = await signer.presign(request, { expiresIn: EksToken.presignExpiresSeconds, signingDate: new Date(signedAt) });
  const query = Object.entries(signed.query ?? {})
    .flatMap(([key, value]) => (value === null ? [] : (Array.isArray(value) ? value : [value]).map((item) => `${encodeURIComponent(key)}=${encodeURIComponent(item)}`)))
    .join('&');
  const url = `https://${hostname}/?${query}`;
  return `${EksToken.prefix}${Buffer.from(url, 'utf8').toString('base64url')}`;
};

/** EksTokenSourceOptions: which cluster, and the seams tests replace. */
export interface EksTokenSourceOptions {
  readonly clusterName: string;
  readonly region: string;
  /** Role to assume for signing (the cluster's access entry names it). */
  readonly roleArn?: string | undefined;
  /**
   * Credentials to sign with; when given, used as they are (roleArn is then the provider's business).
   * @default fromTemporaryCredentials({params: {RoleArn: roleArn}}) with roleArn, else fromNodeProviderChain()
   */
  readonly credentials?: CredentialProvider | undefined;
  /** Wall clock, epoch ms. @default Date.now */
  readonly now?: (() => number) | undefined;
}

/**
 * defaultCredentials: the SDK's provider for a role or the ambient identity, loaded on first use
 * so that importing the adapter (and its unit tests) does not load the STS client.
 */
const defaultCredentials = (region: string, roleArn: string | undefined): CredentialProvider => {
  let provider: Promise<CredentialProvider> | undefined;
  return async () => {
    provider ??= import('@aws-sdk/credential-providers').then(
      ({ fromNodeProviderChain, fromTemporaryCredentials }): CredentialProvider =>
        roleArn === undefined
          ? fromNodeProviderChain()
          : fromTemporaryCredentials({ params: { RoleArn: roleArn, RoleSessionName: EksToken.authProvider }, clientConfig: { region } }),
    );
    return (await provider)();
  };
};

/**
 * EksTokenSource: the current EKS token of one cluster. A token is reused until
 * EksToken.usableMs − EksToken.refreshMarginMs after signing (13 minutes), then re-signed;
 * concurrent requests at that moment share one signing.
 */
export class EksTokenSource {
  private readonly clusterName: string;
  private readonly region: string;
  private readonly credentials: CredentialProvider;
  private readonly now: () => number;
  private cached: { readonly token: string; readonly signedAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(options: EksTokenSourceOptions) {
    this.clusterName = options.clusterName;
    this.region = options.region;
    this.credentials = options.credentials ?? defaultCredentials(options.region, options.roleArn);
    this.now = options.now ?? Date.now;
  }

  /** token: the cached token while it has more than the margin of its usable life left, else a new one. */
  async token(): Promise<string> {
    const now = this.now();
    if (this.cached && now < this.cached.signedAt + EksToken.usableMs - EksToken.refreshMarginMs) return this.cached.token;
    this.pending ??= this.sign(now).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async sign(signedAt: number): Promise<string> {
    const token = await presignEksToken(this.clusterName, this.region, await this.credentials(), signedAt);
    this.cached = { token, signedAt };
    return token;
  }
}

/**
 * EksAuthenticator: a client-node custom authenticator that sets `Authorization: Bearer <EKS
 * token>` on every request of the KubeConfig whose user names the EksToken.authProvider.
 */
export class EksAuthenticator implements Authenticator {
  private readonly source: EksTokenSource;
  constructor(source: EksTokenSource) {
    this.source = source;
  }

  isAuthProvider(user: User): boolean {
    const provider: unknown = user.authProvider;
    return provider !== null && typeof provider === 'object' && 'name' in provider && provider.name === EksToken.authProvider;
  }

  async applyAuthentication(_user: User, opts: Parameters<Authenticator['applyAuthentication']>[1]): Promise<void> {
    const token = await this.source.token();
    const headers = opts.headers;
    // client-node hands over a headers object; a raw header array (Node's other form) gets the pair appended.
    if (Array.isArray(headers)) opts.headers = [...(headers as readonly string[]), 'Authorization', `Bearer ${token}`];
    else opts.headers = { ...headers, Authorization: `Bearer ${token}` };
  }
}

/** AuthOptions: the seams a host or a test sets when building KubeConfigs. */
export interface AuthOptions {
  /** Credentials EKS tokens are signed with. @default see EksTokenSourceOptions.credentials */
  readonly credentials?: CredentialProvider | undefined;
  /** Wall clock for EKS token caching. @default Date.now */
  readonly now?: (() => number) | undefined;
  /** Reads a bearer token from a secret (`token` auth with tokenSecretArn); a host with Secrets Manager passes one. */
  readonly resolveSecret?: ((arn: string) => Promise<string>) | undefined;
}

/** LOOPBACK_HOSTS: the hosts a plain-HTTP endpoint may name. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * clusterOf: client-node's Cluster for a record. A `http://` endpoint is accepted only on
 * loopback (test servers, `kubectl proxy`), with skipTLSVerify set because client-node refuses
 * plain HTTP without it — harmless there, as there is no TLS to skip and the bearer token never
 * leaves the host; anywhere else plain HTTP would send the token in the clear, so it is refused.
 */
const clusterOf = (record: ClusterRecord): { name: string; server: string; caData?: string; skipTLSVerify: boolean } => {
  let url: URL;
  try {
    url = new URL(record.endpoint);
  } catch (error) {
    throw new InvalidInputError(`cluster ${record.id}: endpoint ${JSON.stringify(record.endpoint)} is not a URL, expected https://<host>`, { cause: error });
  }
  const plainHttp = url.protocol === 'http:';
  if (plainHttp && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new InvalidInputError(
      `cluster ${record.id}: endpoint ${record.endpoint} is plain http on a non-loopback host, expected https:// (http is allowed only for 127.0.0.1 and localhost)`,
    );
  }
  if (!plainHttp && url.protocol !== 'https:') {
    throw new InvalidInputError(`cluster ${record.id}: endpoint ${record.endpoint} has protocol ${url.protocol}, expected https://`);
  }
  const caData = record.caData === undefined || record.caData === '' ? undefined : caBase64(record.caData);
  return { name: record.id, server: record.endpoint, ...(caData === undefined ? {} : { caData }), skipTLSVerify: plainHttp };
};

/** caBase64: a CA as a kubeconfig's certificate-authority-data (base64 of the PEM); PEM given as it is is encoded. */
const caBase64 = (ca: string): string => (ca.includes('-----BEGIN') ? Buffer.from(ca, 'utf8').toString('base64') : ca.trim());

/** secretSourceOf: the token source of `token` auth that names a secret rather than an inline token; undefined for an inline token. */
const secretSourceOf = (record: ClusterRecord, auth: Extract<ClusterAuth, { type: 'token' }>, options: AuthOptions): SecretTokenSource | undefined => {
  if (auth.token !== undefined && auth.token !== '') return undefined;
  if (auth.tokenSecretArn === undefined) throw new InvalidInputError(`cluster ${record.id}: token auth names neither token nor tokenSecretArn`);
  if (!options.resolveSecret) {
    throw new InvalidInputError(`cluster ${record.id}: token auth names secret ${auth.tokenSecretArn}, but this host has no secret resolver`);
  }
  return new SecretTokenSource(auth.tokenSecretArn, options.resolveSecret);
};

/** firstLine: the first line of an error message (a YAML error goes on with a code excerpt). */
const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';

/**
 * loadKubeConfigFile: the kubeconfig at `path` with `context` (or the file's current-context)
 * selected, as kubectl would read it; InvalidInputError naming the file (and the context) when it
 * is missing, unreadable, not YAML, not a kubeconfig, or has no such context or its cluster.
 *
 * @example
 * const kubeConfig = loadKubeConfigFile(join(homedir(), '.kube', 'config'), 'kind-dev');
 */
export const loadKubeConfigFile = (path: string, context?: string): KubeConfig => {
  const kubeConfig = new PooledKubeConfig();
  try {
    kubeConfig.loadFromFile(path);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT') throw new InvalidInputError(KubeconfigMessage.missing(path), { cause: error });
    if (typeof code === 'string') throw new InvalidInputError(KubeconfigMessage.unreadable(path, firstLine(error)), { cause: error });
    if (error instanceof Error && error.name === 'YAMLException') throw new InvalidInputError(KubeconfigMessage.notYaml(path, firstLine(error)), { cause: error });
    throw new InvalidInputError(KubeconfigMessage.invalid(path, firstLine(error)), { cause: error });
  }
  const known = kubeConfig.getContexts().map((candidate) => candidate.name);
  const selected = context ?? (kubeConfig.getCurrentContext() || undefined);
  if (selected === undefined) throw new InvalidInputError(KubeconfigMessage.noCurrentContext(path, known));
  const found = kubeConfig.getContextObject(selected);
  if (!found) throw new InvalidInputError(KubeconfigMessage.noSuchContext(path, selected, known));
  kubeConfig.setCurrentContext(selected);
  if (!kubeConfig.getCurrentCluster()) throw new InvalidInputError(KubeconfigMessage.noCluster(path, selected, found.cluster));
  return kubeConfig;
};

/** ClusterAccess: a cluster's KubeConfig and, for a token read from a secret, what re-reads it after a 401. */
export interface ClusterAccess {
  readonly kubeConfig: KubeConfig;
  readonly refresher?: TokenRefresher | undefined;
}

/**
 * clusterAccessFor: the KubeConfig of a registered cluster (see kubeConfigFor) and, for `token`
 * auth with tokenSecretArn, the SecretTokenSource the gateway asks to re-read the secret when
 * the API server answers 401 (lib/k8s/secretToken.ts). The secret is read on the first request,
 * not here.
 *
 * @example
 * const { kubeConfig, refresher } = await clusterAccessFor(record, { resolveSecret: secretsManagerReader() });
 */
export const clusterAccessFor = async (record: ClusterRecord, options: AuthOptions = {}): Promise<ClusterAccess> => {
  const auth = record.auth;
  switch (auth.type) {
    case 'kubeconfig':
      return { kubeConfig: loadKubeConfigFile(auth.path, auth.context) };
    case 'token': {
      const kubeConfig = new PooledKubeConfig();
      const source = secretSourceOf(record, auth, options);
      if (source === undefined) {
        kubeConfig.loadFromClusterAndUser(clusterOf(record), { name: record.id, token: auth.token });
        return { kubeConfig };
      }
      kubeConfig.addAuthenticator(new SecretTokenAuthenticator(source));
      kubeConfig.loadFromClusterAndUser(clusterOf(record), { name: record.id, authProvider: { name: SECRET_TOKEN_AUTH_PROVIDER, config: {} } });
      return { kubeConfig, refresher: source };
    }
    case 'eks': {
      const kubeConfig = new PooledKubeConfig();
      const source = new EksTokenSource({ clusterName: auth.clusterName, region: auth.region, roleArn: auth.roleArn, credentials: options.credentials, now: options.now });
      kubeConfig.addAuthenticator(new EksAuthenticator(source));
      kubeConfig.loadFromClusterAndUser(clusterOf(record), {
        name: record.id,
        authProvider: { name: EksToken.authProvider, config: { clusterName: auth.clusterName, region: auth.region } },
      });
      return { kubeConfig };
    }
  }
};

/**
 * kubeConfigFor: a KubeConfig for a registered cluster.
 * - `kubeconfig`: the file (and context, when named) as kubectl would read it;
 * - `token`: endpoint + CA + a bearer token, inline or read from its secret per warm process;
 * - `eks`: endpoint + CA + the EksAuthenticator, which signs and caches EKS tokens.
 *
 * @example
 * const kubeConfig = await kubeConfigFor({ id: 'prod', endpoint, caData, auth: { type: 'eks', clusterName: 'prod', region: 'eu-west-1' } });
 */
export const kubeConfigFor = async (record: ClusterRecord, options: AuthOptions = {}): Promise<KubeConfig> => (await clusterAccessFor(record, options)).kubeConfig;
