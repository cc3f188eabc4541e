/**
 * The AWS credentials of a process that signs its own requests (lib/aws/jsonClient.ts): the
 * in-cluster forwarder. Static keys from the environment are read here; every other source — EKS
 * Pod Identity or ECS container credentials, IRSA's web identity token, then the SDK's whole
 * default chain (profiles, SSO, instance metadata) — is the SDK's own provider, imported only when
 * the environment names it, so a pod given keys (or one of the two pod sources) never loads the
 * rest of the chain: in the forwarder's bundle that chain costs about 8 MiB of memory once run
 * (bench/forwarderFootprint.ts, docs/benchmarks.md).
 */
import { UnauthenticatedError } from '../errors.ts';

/** AwsCredentials: what SigV4 signs with. */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
  /** When temporary credentials stop working; absent for keys that do not expire. */
  readonly expiration?: Date | undefined;
}

/** CredentialsProvider: the current credentials, fetched or refreshed when needed. */
export type CredentialsProvider = () => Promise<AwsCredentials>;

/** REFRESH_BEFORE_EXPIRY_MS: temporary credentials are fetched again this long before they expire (the SDK's margin). */
export const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

/** CredentialSource: which source the environment selects, in the SDK default chain's order. */
export const CredentialSource = {
  environment: 'environment',
  container: 'container',
  webIdentity: 'web-identity',
  defaultChain: 'default-chain',
} as const;
export type CredentialSource = (typeof CredentialSource)[keyof typeof CredentialSource];

type Env = Readonly<Record<string, string | undefined>>;

/** credentialSource: the source `env` selects — keys, then container credentials, then a web identity token, else the SDK's chain. */
export const credentialSource = (env: Env): CredentialSource => {
  if (env['AWS_ACCESS_KEY_ID'] && env['AWS_SECRET_ACCESS_KEY']) return CredentialSource.environment;
  if (env['AWS_CONTAINER_CREDENTIALS_FULL_URI'] || env['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI']) return CredentialSource.container;
  if (env['AWS_WEB_IDENTITY_TOKEN_FILE'] && env['AWS_ROLE_ARN']) return CredentialSource.webIdentity;
  return CredentialSource.defaultChain;
};

/**
 * memoized: `fetch`'s credentials, kept until REFRESH_BEFORE_EXPIRY_MS before they expire; one
 * fetch at a time however many requests ask at once. A failed fetch is not kept: the next request
 * tries again.
 */
export const memoized = (fetch: CredentialsProvider, now: () => number = Date.now): CredentialsProvider => {
  let current: Promise<AwsCredentials> | undefined;
  return async () => {
    if (current !== undefined) {
      const held = await current.catch(() => undefined);
      if (held !== undefined && (held.expiration === undefined || held.expiration.getTime() - REFRESH_BEFORE_EXPIRY_MS > now())) return held;
    }
    const fetching = fetch();
    current = fetching;
    try {
      return await fetching;
    } catch (error) {
      if (current === fetching) current = undefined;
      throw error;
    }
  };
};

/** NoCredentialsError: the source the environment selects gave no credentials; `reason` is the SDK's. */
export class NoCredentialsError extends UnauthenticatedError {
  readonly source: CredentialSource;
  readonly reason: string;
  constructor(source: CredentialSource, reason: string, options?: ErrorOptions) {
    super(`no aws credentials from the ${source} source: ${reason}`, options);
    this.source = source;
    this.reason = reason;
  }
}

/** CREDENTIALS_FIX: what to do when a source gives no credentials. */
const CREDENTIALS_FIX: Readonly<Record<CredentialSource, string>> = {
  [CredentialSource.environment]: 'check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
  [CredentialSource.container]: "check the pod's EKS Pod Identity association and that the agent runs on its node",
  [CredentialSource.webIdentity]: "check that AWS_ROLE_ARN's role trusts the cluster's OIDC provider for this service account and that AWS_WEB_IDENTITY_TOKEN_FILE is mounted",
  [CredentialSource.defaultChain]: 'set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run with an EKS Pod Identity or IRSA role',
};

/**
 * requireCredentials: fetch `provider`'s credentials once, or throw UnauthenticatedError in one
 * line naming the source, the reason and the fix. For a process that runs for ever (the
 * forwarder): without it, a pod given no role would start, then warn on every request for ever.
 *
 * @example
 * await requireCredentials(credentialsFrom(process.env), credentialSource(process.env));
 * // throws: no AWS credentials (default-chain source: Could not load credentials from any providers): set AWS_ACCESS_KEY_ID …
 */
export const requireCredentials = async (provider: CredentialsProvider, source: CredentialSource): Promise<void> => {
  try {
    await provider();
  } catch (error) {
    const reason = error instanceof NoCredentialsError ? error.reason : error instanceof Error ? error.message : String(error);
    throw new UnauthenticatedError(`no AWS credentials (${source} source: ${reason.replace(/\s+/g, ' ').trim()}): ${CREDENTIALS_FIX[source]}`, { cause: error });
  }
};

/** defined: `fields` without those whose value is undefined or empty. */
const defined = (fields: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));

/** sdkProvider: the SDK's provider for `source`, imported on first use, given `env`'s settings (it would read process.env). */
const sdkProvider = (source: Exclude<CredentialSource, 'environment'>, env: Env): CredentialsProvider => async () => {
  const providers = await import('@aws-sdk/credential-providers');
  const region = env['AWS_REGION'] || env['AWS_DEFAULT_REGION'];
  const provider =
    source === CredentialSource.container
      ? providers.fromHttp(
          defined({
            awsContainerCredentialsFullUri: env['AWS_CONTAINER_CREDENTIALS_FULL_URI'],
            awsContainerCredentialsRelativeUri: env['AWS_CONTAINER_CREDENTIALS_RELATIVE_URI'],
            awsContainerAuthorizationTokenFile: env['AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE'],
            awsContainerAuthorizationToken: env['AWS_CONTAINER_AUTHORIZATION_TOKEN'],
          }),
        )
      : source === CredentialSource.webIdentity
        ? providers.fromTokenFile({
            ...defined({ webIdentityTokenFile: env['AWS_WEB_IDENTITY_TOKEN_FILE'], roleArn: env['AWS_ROLE_ARN'], roleSessionName: env['AWS_ROLE_SESSION_NAME'] }),
            ...(region ? { clientConfig: { region } } : {}),
          })
        : providers.fromNodeProviderChain();
  try {
    return await provider();
  } catch (error) {
    throw new NoCredentialsError(source, (error as Error).message, { cause: error });
  }
};

/**
 * credentialsFrom: the provider `env` selects (credentialSource), memoized.
 *
 * @example
 * const credentials = credentialsFrom(process.env); // AWS_ACCESS_KEY_ID set: those keys, nothing imported
 */
export const credentialsFrom = (env: Env): CredentialsProvider => {
  const source = credentialSource(env);
  if (source === CredentialSource.environment) {
    const keys: AwsCredentials = {
      accessKeyId: env['AWS_ACCESS_KEY_ID'] ?? '',
      secretAccessKey: env['AWS_SECRET_ACCESS_KEY'] ?? '',
      ...(env['AWS_SESSION_TOKEN'] ? { sessionToken: env['AWS_SESSION_TOKEN'] } : {}),
    };
    return async () => keys;
  }
  return memoized(sdkProvider(source, env));
};
