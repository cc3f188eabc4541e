/**
 * AwsJsonClient: one AWS service's JSON protocol (awsJson1_0 for DynamoDB, awsJson1_1 for
 * EventBridge) as SigV4-signed POSTs over node:http(s) — what the in-cluster forwarder needs of
 * AWS (PutEvents, and GetItem/PutItem of its checkpoints) without the SDK's clients. Those cost
 * the forwarder's process about 10 MiB of memory beyond the signing and the HTTP it shares with
 * the Kubernetes adapter (bench/forwarderFootprint.ts, docs/benchmarks.md); signing is
 * @smithy/signature-v4, the SDK's own signer.
 *
 * Retries as the SDK's standard mode did: 429, 5xx, throttling and transient error types, and
 * requests that got no answer, up to maxAttempts attempts with a doubling, jittered delay
 * (lib/retry.ts). A service error is thrown as an AwsServiceError, shaped like the SDK's service
 * exceptions (`name`, `$fault`, `$metadata.httpStatusCode`), so the boundaries that turn SDK
 * errors into Lineup errors (lib/store/sdkErrors.ts, lib/forwarder/eventBridgeSink.ts) read both.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { InvalidInputError } from '../errors.ts';
import { retry, type RetryPolicy, type RetrySeams, type RetryVerdict } from '../retry.ts';
import type { CredentialsProvider } from './credentials.ts';

/** AwsJsonService: what differs between the services spoken here. */
export interface AwsJsonService {
  /** SigV4 signing name, also the first label of the service's host. */
  readonly signingName: string;
  /** The variable that points the SDK (and this client) at another endpoint for this service. */
  readonly endpointVariable: string;
  /** X-Amz-Target is `<targetPrefix>.<Operation>`. */
  readonly targetPrefix: string;
  readonly contentType: string;
}

/** EVENTBRIDGE: EventBridge (awsJson1_1). */
export const EVENTBRIDGE: AwsJsonService = {
  signingName: 'events',
  endpointVariable: 'AWS_ENDPOINT_URL_EVENTBRIDGE',
  targetPrefix: 'AWSEvents',
  contentType: 'application/x-amz-json-1.1',
};

/** DYNAMODB: DynamoDB (awsJson1_0). */
export const DYNAMODB: AwsJsonService = {
  signingName: 'dynamodb',
  endpointVariable: 'AWS_ENDPOINT_URL_DYNAMODB',
  targetPrefix: 'DynamoDB_20120810',
  contentType: 'application/x-amz-json-1.0',
};

/** AWS_JSON_RETRY: the SDK's standard retry mode — 3 attempts, 100 ms doubling to at most 20 s, jittered. */
export const AWS_JSON_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 20_000, jitter: 'equal' };

/** REQUEST_TIMEOUT_MS: a request with no answer for this long is abandoned (and retried). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Error types the SDK retries as throttling or as transient (its standard mode's lists, for these two services). */
const RETRYABLE_TYPES: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'LimitExceededException',
  'TransactionInProgressException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** AwsServiceError: the service answered with an error; `name` is its error type (e.g. ThrottlingException). */
export class AwsServiceError extends Error {
  readonly $fault: 'client' | 'server';
  readonly $metadata: { readonly httpStatusCode: number };
  constructor(type: string, message: string, httpStatusCode: number) {
    super(message);
    this.name = type;
    this.$fault = httpStatusCode >= 500 ? 'server' : 'client';
    this.$metadata = { httpStatusCode };
  }
}

/** TimeoutError: no answer within REQUEST_TIMEOUT_MS (the name the SDK gives it, which lib/store/sdkErrors.ts reads). */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** retryVerdict: whether a failed request may be sent again — throttled, a server fault, or no answer at all. */
export const retryVerdict = (error: unknown): RetryVerdict => {
  if (error instanceof AwsServiceError) {
    const status = error.$metadata.httpStatusCode;
    return { retry: status === 429 || status >= 500 || RETRYABLE_TYPES.has(error.name) };
  }
  if (error instanceof TimeoutError) return { retry: true };
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  return { retry: typeof code === 'string' && /^E[A-Z]+$/.test(code) };
};

/** errorType: the bare type of an awsJson error (`__type` or X-Amzn-ErrorType: `aws.prefix#Type:uri` → `Type`). */
export const errorType = (raw: string | undefined): string | undefined => {
  const type = raw?.split('#').at(-1)?.split(':')[0]?.trim();
  return type === undefined || type === '' ? undefined : type;
};

type Env = Readonly<Record<string, string | undefined>>;

/** regionFrom: the region the SDK would use from the environment (AWS_REGION, else AWS_DEFAULT_REGION). */
export const regionFrom = (env: Env): string => {
  const region = env['AWS_REGION'] || env['AWS_DEFAULT_REGION'];
  if (!region) throw new InvalidInputError('no aws region: AWS_REGION and AWS_DEFAULT_REGION are unset, expected the region of the table and bus');
  return region;
};

/** endpointFrom: the service's endpoint — AWS_ENDPOINT_URL_<SERVICE>, else AWS_ENDPOINT_URL, else the regional one. */
export const endpointFrom = (service: AwsJsonService, region: string, env: Env): URL => {
  const configured = env[service.endpointVariable] || env['AWS_ENDPOINT_URL'];
  const text = configured || `https://${service.signingName}.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
  try {
    return new URL(text);
  } catch {
    throw new InvalidInputError(`the ${service.signingName} endpoint ${JSON.stringify(text)} is not a url, expected e.g. https://${service.signingName}.${region}.amazonaws.com`);
  }
};

/** AwsJsonClientOptions: the service, where it is, and how to sign and retry. */
export interface AwsJsonClientOptions {
  readonly service: AwsJsonService;
  readonly region: string;
  readonly endpoint: URL;
  readonly credentials: CredentialsProvider;
  /** @default AWS_JSON_RETRY; maxAttempts 1 sends once (a caller that retries itself). */
  readonly retryPolicy?: RetryPolicy | undefined;
  readonly retrySeams?: RetrySeams | undefined;
  /** @default REQUEST_TIMEOUT_MS */
  readonly timeoutMs?: number | undefined;
}

/** HttpAnswer: a response read whole. */
interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/**
 * AwsJsonClient: `call(operation, input)` POSTs `input` as the operation's JSON and returns the
 * parsed answer, or throws AwsServiceError / a transport error after the retries.
 *
 * @example
 * const events = new AwsJsonClient({ service: EVENTBRIDGE, region, endpoint: endpointFrom(EVENTBRIDGE, region, process.env), credentials });
 * const answer = await events.call('PutEvents', { Entries: [...] });
 */
export class AwsJsonClient {
  private readonly options: AwsJsonClientOptions;
  private readonly signer: SignatureV4;
  /** One keep-alive connection pool per client, as the SDK's NodeHttpHandler keeps. */
  private readonly agent: HttpAgent;

  constructor(options: AwsJsonClientOptions) {
    this.options = options;
    this.signer = new SignatureV4({ service: options.service.signingName, region: options.region, credentials: options.credentials, sha256: Sha256 });
    this.agent = options.endpoint.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /** call: one operation, retried per the policy. */
  async call(operation: string, input: unknown): Promise<unknown> {
    const body = JSON.stringify(input);
    return retry(() => this.attempt(operation, body), {
      policy: this.options.retryPolicy ?? AWS_JSON_RETRY,
      classify: retryVerdict,
      ...this.options.retrySeams,
    });
  }

  /** destroy: close the pooled connections. */
  destroy(): void {
    this.agent.destroy();
  }

  private async attempt(operation: string, body: string): Promise<unknown> {
    const { endpoint, service } = this.options;
    const path = endpoint.pathname === '' ? '/' : endpoint.pathname;
    const signed = await this.signer.sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port === '' ? {} : { port: Number(endpoint.port) }),
      path,
      query: {},
      headers: {
        host: endpoint.host,
        'content-type': service.contentType,
        'x-amz-target': `${service.targetPrefix}.${operation}`,
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    });
    const answer = await this.post(endpoint, path, signed.headers, body);
    const parsed = answer.body === '' ? {} : parseJson(answer.body, operation, answer.status);
    if (answer.status >= 200 && answer.status < 300) return parsed;
    const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { __type?: unknown; message?: unknown; Message?: unknown };
    const header = answer.headers['x-amzn-errortype'];
    const type = errorType(typeof fields.__type === 'string' ? fields.__type : Array.isArray(header) ? header[0] : header) ?? `Http${answer.status}`;
    const message = typeof fields.message === 'string' ? fields.message : typeof fields.Message === 'string' ? fields.Message : answer.body.slice(0, 200);
    throw new AwsServiceError(type, `${service.signingName} ${operation} answered http ${answer.status}: ${message}`, answer.status);
  }

  private post(endpoint: URL, path: string, headers: Record<string, string>, body: string): Promise<HttpAnswer> {
    const send = endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
    const timeoutMs = this.options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const request = send({ protocol: endpoint.protocol, hostname: endpoint.hostname, port: endpoint.port, path, method: 'POST', headers, agent: this.agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      request.setTimeout(timeoutMs, () => request.destroy(new TimeoutError(`${this.options.service.signingName} request to ${endpoint.host} got no answer within ${timeoutMs} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }
}

/** parseJson: an answer's JSON body; one that is not JSON is a server fault (retried). */
const parseJson = (text: string, operation: string, status: number): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    throw new AwsServiceError('InvalidResponse', `${operation} answered http ${status} with a body that is not json: ${text.slice(0, 200)}`, status >= 500 ? status : 502);
  }
};
