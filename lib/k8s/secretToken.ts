/**
 * Bearer tokens of `token` clusters (a cluster that is not EKS: its registry item names
 * `auth: {type: 'token', tokenSecretArn}`) read from AWS Secrets Manager.
 *
 * A token is read once per warm process and cached by its cluster's SecretTokenSource, which
 * lives as long as the cluster's gateway (lib/k8s/registry.ts keeps one per cluster id). A
 * rotated secret is noticed when the API server answers 401: the gateway asks the source to
 * re-read the secret once and repeats the request once with what it now holds; a second 401, or
 * a secret that still holds the refused token, is final (UnauthenticatedError naming the secret).
 *
 * The token is asked for per request (KubeEndpoint.authorize), as EKS tokens are
 * (lib/k8s/auth.ts), so a re-read token reaches the endpoint's next request without building a
 * new client.
 */
import type { GetSecretValueCommand, GetSecretValueCommandOutput } from '@aws-sdk/client-secrets-manager';
import { ForbiddenError, InvalidInputError, LineupError, NotFoundError, UnavailableError } from '../errors.ts';

/** SecretReader: the text of a secret by ARN (Secrets Manager's GetSecretValue, or a test's fake). */
export type SecretReader = (arn: string) => Promise<string>;

/**
 * TokenRefresher: what a gateway holds to recover from a 401. Versions count the reads so far;
 * a request notes the version it is sent with (`ready`), and `refresh(seen)` after a 401 re-reads the secret only
 * when no read has happened since (concurrent 401s share one re-read). It resolves true when the
 * token now held differs from the one the request was refused with, so repeating it can help.
 */
export interface TokenRefresher {
  /** ready: the version of the token the next request sends (read first if none is held yet). */
  ready(): Promise<number>;
  refresh(seenVersion: number): Promise<boolean>;
  /** Names the credential in an error message ("secret arn:…"). */
  readonly describe: string;
}

/**
 * SecretTokenSource: one cluster's bearer token, read from its secret on first use and cached;
 * concurrent first requests share one read.
 */
export class SecretTokenSource implements TokenRefresher {
  private readonly arn: string;
  private readonly read: SecretReader;
  private cached: string | undefined;
  private pending: Promise<string> | undefined;
  private reads = 0;

  constructor(arn: string, read: SecretReader) {
    this.arn = arn;
    this.read = read;
  }

  async ready(): Promise<number> {
    await this.token();
    return this.reads;
  }

  get describe(): string {
    return `secret ${this.arn}`;
  }

  /** token: the cached token, read from the secret the first time. */
  async token(): Promise<string> {
    if (this.cached !== undefined) return this.cached;
    return this.load();
  }

  async refresh(seenVersion: number): Promise<boolean> {
    if (this.reads > seenVersion) return true;
    const before = this.cached;
    const after = await this.load();
    return after !== before;
  }

  /** load: one read of the secret, shared by every caller that asks while it runs. */
  private load(): Promise<string> {
    this.pending ??= this.readToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async readToken(): Promise<string> {
    const text = (await this.read(this.arn)).trim();
    if (text === '') throw new InvalidInputError(`secret ${this.arn} holds an empty string, expected a kubernetes bearer token`);
    this.cached = text;
    this.reads += 1;
    return text;
  }
}

/** SecretsManagerLike: the one call of the Secrets Manager client used here (a test passes a client pointed at moto). */
export interface SecretsManagerLike {
  send(command: GetSecretValueCommand): Promise<GetSecretValueCommandOutput>;
}

/** errorName: the AWS error name (`AccessDeniedException`, …) of a failed SDK call. */
const errorName = (error: unknown): string => (error instanceof Error ? error.name : '');

/**
 * secretsManagerReader: a SecretReader over GetSecretValue (AWSCURRENT). The SDK client is
 * loaded on first use, so hosts whose clusters hold no secret never load it. A secret stored as
 * binary is read as UTF-8 text. Failures become Lineup errors: access denied → ForbiddenError,
 * no such secret → NotFoundError, anything else (throttling, network) → UnavailableError, which
 * fails the pass for SQS to redeliver.
 *
 * @example
 * const read = secretsManagerReader();
 * const token = await read('arn:aws:secretsmanager:eu-west-1:123456789012:secret:onprem-token-AbCdEf');
 */
export const secretsManagerReader = (client?: SecretsManagerLike): SecretReader => {
  let loaded: Promise<{ client: SecretsManagerLike; Command: typeof GetSecretValueCommand }> | undefined;
  return async (arn) => {
    loaded ??= import('@aws-sdk/client-secrets-manager').then((sdk) => ({ client: client ?? new sdk.SecretsManagerClient({}), Command: sdk.GetSecretValueCommand }));
    const { client: sm, Command } = await loaded;
    let output: GetSecretValueCommandOutput;
    try {
      output = await sm.send(new Command({ SecretId: arn }));
    } catch (error) {
      const name = errorName(error);
      const detail = error instanceof Error ? error.message : String(error);
      if (name === 'AccessDeniedException') throw new ForbiddenError(`read secret ${arn}: access denied: ${detail}`, { cause: error });
      if (name === 'ResourceNotFoundException') throw new NotFoundError(`read secret ${arn}: no such secret: ${detail}`, { cause: error });
      if (error instanceof LineupError) throw error;
      throw new UnavailableError(`read secret ${arn}: ${name === '' ? 'request failed' : name}: ${detail}`, { cause: error });
    }
    if (output.SecretString !== undefined) return output.SecretString;
    if (output.SecretBinary !== undefined) return Buffer.from(output.SecretBinary).toString('utf8');
    throw new InvalidInputError(`secret ${arn} holds neither SecretString nor SecretBinary, expected a kubernetes bearer token`);
  };
};
