/**
 * How Lineup authenticates to a registered cluster: a kubeconfig
 * file, a static bearer token, or an EKS token — `k8s-aws-v1.` + a presigned STS
 * GetCallerIdentity URL (aws-iam-authenticator's format), signed with the Lambda's own AWS
 * credentials or a role it assumes, cached and re-signed before it expires.
 *
 * The token is asked for per request (KubeEndpoint.authorize, lib/k8s/endpoint.ts), so a warm
 * Lambda's long-lived endpoint always sends a fresh one; every endpoint built here keeps one
 * keep-alive connection pool for its cluster.
 *
 * A `kubeconfig` cluster is read by the reader the host passes (AuthOptions.readKubeconfig): the
 * CLI's, over client-node (lib/k8s/kubeConfigFile.ts). Runtime hosts pass none, so neither
 * client-node nor its HTTP stack is in a Lambda bundle.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { InvalidInputError } from '../errors.ts';
import type { ClusterAuth, ClusterRecord } from '../store/types.ts';
import { kubeEndpoint } from './endpoint.ts';
import type { BearerToken, KubeEndpoint } from './endpoint.ts';
import { SecretTokenSource } from './secretToken.ts';
import type { TokenRefresher } from './secretToken.ts';
import type { AwsCredentials, CredentialsProvider } from '../aws/credentials.ts';

/**
 * EksToken: the EKS bearer token (aws-iam-authenticator's format): `k8s-aws-v1.` + base64url of
 * a presigned STS GetCallerIdentity URL that signs the cluster name in `x-k8s-aws-id`. EKS
 * accepts it for 15 minutes after signing; like aws-iam-authenticator, Lineup uses it for 14
 * and re-signs refreshMarginMs before that, so no request carries a token about to expire.
 */
export const EksToken = {
  prefix: 'k8s-aws-v1.',
  clusterIdHeader: 'x-k8s-aws-id',
  stsVersion: '2011-06-15',
  presignExpiresSeconds: 60,
  usableMs: 14 * 60 * 1000,
  refreshMarginMs: 60 * 1000,
  /** Name of the kubeconfig auth provider Lineup's EKS authenticator claims. */
  authProvider: 'lineup-eks',
} as const;

/** CredentialProvider: resolves AWS credentials (the SDK's providers fit: they cache and refresh on their own). */
export type CredentialProvider = CredentialsProvider;
export type { AwsCredentials };

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

/** AuthOptions: the seams a host or a test sets when building KubeConfigs. */
export interface AuthOptions {
  /** Credentials EKS tokens are signed with. @default see EksTokenSourceOptions.credentials */
  readonly credentials?: CredentialProvider | undefined;
  /** Wall clock for EKS token caching. @default Date.now */
  readonly now?: (() => number) | undefined;
  /** Reads a bearer token from a secret (`token` auth with tokenSecretArn); a host with Secrets Manager passes one. */
  readonly resolveSecret?: ((arn: string) => Promise<string>) | undefined;
  /** Reads a `kubeconfig` cluster's file (path, context); the CLI passes lib/k8s/kubeConfigFile.ts's. @default none: such a cluster is refused */
  readonly readKubeconfig?: KubeconfigReader | undefined;
}

/** KubeconfigReader: the endpoint a kubeconfig file's context describes. */
export type KubeconfigReader = (path: string, context: string | undefined) => Promise<KubeEndpoint>;

/** LOOPBACK_HOSTS: the hosts a plain-HTTP endpoint may name. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** ClusterAddress: a record's endpoint URL, its CA (PEM) and whether it is plain http. */
interface ClusterAddress {
  readonly server: string;
  readonly ca: string | undefined;
}

/**
 * addressOf: a record's endpoint and CA. A `http://` endpoint is accepted only on loopback (test
 * servers, `kubectl proxy`), where the bearer token never leaves the host; anywhere else plain
 * HTTP would send the token in the clear, so it is refused.
 */
const addressOf = (record: ClusterRecord): ClusterAddress => {
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
  return { server: record.endpoint, ca: record.caData === undefined || record.caData === '' ? undefined : caPem(record.caData) };
};

/** caPem: a CA as PEM; the base64 of a PEM (a kubeconfig's certificate-authority-data) is decoded. */
export const caPem = (ca: string): string => (ca.includes('-----BEGIN') ? ca : Buffer.from(ca.trim(), 'base64').toString('utf8'));

/** endpointOf: the record's endpoint sending `token` with each request. */
const endpointOf = (record: ClusterRecord, token: BearerToken): KubeEndpoint => {
  const { server, ca } = addressOf(record);
  return kubeEndpoint({ server, ca, token });
};

/** secretSourceOf: the token source of `token` auth that names a secret rather than an inline token; undefined for an inline token. */
const secretSourceOf = (record: ClusterRecord, auth: Extract<ClusterAuth, { type: 'token' }>, options: AuthOptions): SecretTokenSource | undefined => {
  if (auth.token !== undefined && auth.token !== '') return undefined;
  if (auth.tokenSecretArn === undefined) throw new InvalidInputError(`cluster ${record.id}: token auth names neither token nor tokenSecretArn`);
  if (!options.resolveSecret) {
    throw new InvalidInputError(`cluster ${record.id}: token auth names secret ${auth.tokenSecretArn}, but this host has no secret resolver`);
  }
  return new SecretTokenSource(auth.tokenSecretArn, options.resolveSecret);
};

/** ClusterAccess: a cluster's endpoint and, for a token read from a secret, what re-reads it after a 401. */
export interface ClusterAccess {
  readonly endpoint: KubeEndpoint;
  readonly refresher?: TokenRefresher | undefined;
}

/**
 * clusterAccessFor: the endpoint of a registered cluster and, for `token` auth with
 * tokenSecretArn, the SecretTokenSource the gateway asks to re-read the secret when the API
 * server answers 401 (lib/k8s/secretToken.ts). The secret is read on the first request, not here.
 * - `kubeconfig`: the file (and context, when named) as kubectl would read it, by the host's reader;
 * - `token`: endpoint + CA + a bearer token, inline or read from its secret per warm process;
 * - `eks`: endpoint + CA + an EksTokenSource, which signs and caches EKS tokens.
 *
 * @example
 * const { endpoint, refresher } = await clusterAccessFor(record, { resolveSecret: secretsManagerReader() });
 */
export const clusterAccessFor = async (record: ClusterRecord, options: AuthOptions = {}): Promise<ClusterAccess> => {
  const auth = record.auth;
  switch (auth.type) {
    case 'kubeconfig': {
      if (options.readKubeconfig === undefined) {
        throw new InvalidInputError(`cluster ${record.id}: kubeconfig auth (${auth.path}) needs a host that reads kubeconfig files (the lineup CLI), expected token or eks auth here`);
      }
      return { endpoint: await options.readKubeconfig(auth.path, auth.context) };
    }
    case 'token': {
      const source = secretSourceOf(record, auth, options);
      if (source === undefined) {
        const token = auth.token ?? '';
        return { endpoint: endpointOf(record, async () => token) };
      }
      return { endpoint: endpointOf(record, () => source.token()), refresher: source };
    }
    case 'eks': {
      const source = new EksTokenSource({ clusterName: auth.clusterName, region: auth.region, roleArn: auth.roleArn, credentials: options.credentials, now: options.now });
      return { endpoint: endpointOf(record, () => source.token()) };
    }
  }
};

/**
 * endpointFor: the endpoint of a registered cluster (clusterAccessFor without the refresher).
 *
 * @example
 * const endpoint = await endpointFor({ id: 'prod', endpoint, caData, auth: { type: 'eks', clusterName: 'prod', region: 'eu-west-1' } });
 */
export const endpointFor = async (record: ClusterRecord, options: AuthOptions = {}): Promise<KubeEndpoint> => (await clusterAccessFor(record, options)).endpoint;
