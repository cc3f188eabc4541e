/**
 * KubeRestClient: a small, typed Kubernetes REST client over node:http/node:https — JSON
 * requests (get, list, create, merge patch, replace, delete) with a timeout, and the opening of
 * a watch stream (read by lib/k8s/watchStream.ts). It replaces client-node on Lineup's runtime
 * paths: client-node's KubeConfig loads undici (two WebAssembly HTTP parsers) and its whole
 * generated client whatever is imported, which cost the Lambda bundles about 230 KB and the
 * forwarder about 38 MiB of memory.
 *
 * Every request goes through its cluster's KubeEndpoint: one keep-alive pool, credentials applied
 * per request. A refused request rejects with KubeHttpError (status code, the server's Status,
 * Retry-After); a request that got no answer in time with KubeTimeoutError; a broken connection
 * with Node's own socket error. lib/k8s/errors.ts turns them into Lineup errors, lib/k8s/retry.ts
 * decides which are retried.
 */
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeEndpoint, KubeRequestOptions } from './endpoint.ts';
import { parseStatus } from './status.ts';
import type { KubeStatus } from './status.ts';

/** KUBE_REQUEST_TIMEOUT_MS: how long a request waits for its whole answer (a watch: for its headers) before failing as unanswered. */
export const KUBE_REQUEST_TIMEOUT_MS = 30_000;

/** ContentType: the bodies Lineup sends. */
export const ContentType = {
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
} as const;

/** Query: query parameters; undefined ones are left out. */
export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/** ApiResource: where a resource is served (group '' is core/v1). */
export interface ApiResource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

/**
 * resourcePath: the API path of a resource's collection (no namespace: across all namespaces),
 * of one object, or of its subresource.
 *
 * @example
 * resourcePath({ group: 'batch', version: 'v1', plural: 'jobs' }, 'ns', 'job-0', 'status'); // /apis/batch/v1/namespaces/ns/jobs/job-0/status
 */
export const resourcePath = (resource: ApiResource, namespace?: string, name?: string, subresource?: string): string => {
  const base = resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const scope = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  const object = name === undefined ? '' : `/${encodeURIComponent(name)}${subresource === undefined ? '' : `/${subresource}`}`;
  return `${base}${scope}/${resource.plural}${object}`;
};

/** KubeHttpError: the API server answered with a status other than 2xx. */
export class KubeHttpError extends Error {
  override readonly name = 'KubeHttpError';
  /** The HTTP status code. */
  readonly statusCode: number;
  /** The metav1.Status the server sent with it, when the body is one. */
  readonly status: KubeStatus | undefined;
  /** The Retry-After header, as sent. */
  readonly retryAfter: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;

  constructor(method: string, path: string, statusCode: number, headers: IncomingHttpHeaders, body: string) {
    const status = parseStatus(body);
    const reason = status?.reason === undefined ? '' : ` ${status.reason}`;
    super(`${method} ${path}: the api server answered ${statusCode}${reason}${status?.message === undefined ? '' : `: ${status.message}`}, expected 2xx`);
    this.statusCode = statusCode;
    this.status = status;
    // Node lowercases the names of the headers it receives; an error built by hand may not.
    const retryAfter = Object.entries(headers).find(([key]) => key.toLowerCase() === 'retry-after')?.[1];
    this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    this.headers = headers;
    this.body = body;
  }
}

/** KubeTimeoutError: no answer within the request's timeout (ETIMEDOUT, so it is retried as a dropped connection). */
export class KubeTimeoutError extends Error {
  override readonly name = 'KubeTimeoutError';
  readonly code = 'ETIMEDOUT';
  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path}: no answer within ${timeoutMs} ms, expected the api server to answer`);
  }
}

/** KubeResponseError: a 2xx answer whose body is not the JSON expected. */
export class KubeResponseError extends Error {
  override readonly name = 'KubeResponseError';
}

/** RequestSpec: one request. */
export interface RequestSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Query | undefined;
  readonly body?: unknown;
  /** @default ContentType.json when there is a body */
  readonly contentType?: string | undefined;
  /** @default the client's timeoutMs */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** KubeRestClientOptions: the request timeout. */
export interface KubeRestClientOptions {
  /** @default KUBE_REQUEST_TIMEOUT_MS */
  readonly timeoutMs?: number | undefined;
}

/** readBody: the whole body of an answer as text. */
const readBody = async (response: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/** queryString: `?a=1&b=x`, or '' when no parameter is set. */
const queryString = (query: Query | undefined): string => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
};

/**
 * KubeRestClient: JSON requests to one cluster.
 *
 * @example
 * const client = new KubeRestClient(kubeEndpoint({ server, token: async () => token }));
 * const jobSet = await client.get(resourcePath(KubeResource.JobSet, 'default', 'training'));
 */
export class KubeRestClient {
  readonly endpoint: KubeEndpoint;
  private readonly timeoutMs: number;

  constructor(endpoint: KubeEndpoint, options: KubeRestClientOptions = {}) {
    this.endpoint = endpoint;
    this.timeoutMs = options.timeoutMs ?? KUBE_REQUEST_TIMEOUT_MS;
  }

  get(path: string, query?: Query): Promise<unknown> {
    return this.json({ method: 'GET', path, query });
  }

  create(path: string, body: unknown, query?: Query): Promise<unknown> {
    return this.json({ method: 'POST', path, body, query });
  }

  /** mergePatch: a JSON merge patch (RFC 7386): lists are replaced whole, null deletes a field. */
  mergePatch(path: string, body: unknown, query?: Query): Promise<unknown> {
    return this.json({ method: 'PATCH', path, body, query, contentType: ContentType.mergePatch });
  }

  /** replace: PUT the whole object (a status subresource's writes). */
  replace(path: string, body: unknown, query?: Query): Promise<unknown> {
    return this.json({ method: 'PUT', path, body, query });
  }

  /** delete: DELETE with DeleteOptions (propagationPolicy, preconditions) as the body. */
  delete(path: string, options?: unknown): Promise<unknown> {
    return this.json({ method: 'DELETE', path, body: options });
  }

  /** json: one request and its answer parsed as JSON (undefined for an empty body). */
  async json(spec: RequestSpec): Promise<unknown> {
    const response = await this.send(spec, true);
    const text = await readBody(response);
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new KubeResponseError(`${spec.method} ${spec.path}: the api server answered ${response.statusCode ?? 0} with a body that is not JSON, expected JSON`, { cause: error });
    }
  }

  /**
   * stream: open a request whose answer is read as it comes (a watch): resolves with the 2xx
   * response once its headers arrive (the timeout covers only that wait); a refusal rejects with KubeHttpError.
   */
  stream(spec: RequestSpec): Promise<IncomingMessage> {
    return this.send(spec, false);
  }

  /**
   * send: the request; resolves with a 2xx response, rejects with KubeHttpError for any other
   * status (its body read), KubeTimeoutError past the timeout (the whole answer when `timeWholeBody`,
   * else its headers), the abort reason, or the socket's error.
   */
  private async send(spec: RequestSpec, timeWholeBody: boolean): Promise<IncomingMessage> {
    const url = new URL(`${this.endpoint.server.pathname.replace(/\/$/, '')}${spec.path}${queryString(spec.query)}`, this.endpoint.server);
    const body = spec.body === undefined ? undefined : Buffer.from(JSON.stringify(spec.body), 'utf8');
    const options: KubeRequestOptions = {
      method: spec.method,
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      agent: this.endpoint.agent,
      headers: {
        accept: ContentType.json,
        ...(body === undefined ? {} : { 'content-type': spec.contentType ?? ContentType.json, 'content-length': body.byteLength }),
      },
    };
    await this.endpoint.authorize(options);
    spec.signal?.throwIfAborted();
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    return new Promise<IncomingMessage>((resolve, reject) => {
      let request: ClientRequest | undefined;
      const timer = setTimeout(() => request?.destroy(new KubeTimeoutError(spec.method, spec.path, timeoutMs)), timeoutMs);
      const onAbort = (): void => {
        request?.destroy(spec.signal?.reason instanceof Error ? spec.signal.reason : new Error(`${spec.method} ${spec.path}: aborted`));
      };
      const done = (): void => {
        clearTimeout(timer);
        spec.signal?.removeEventListener('abort', onAbort);
      };
      request = (url.protocol === 'http:' ? httpRequest : httpsRequest)(options, (response) => {
        const code = response.statusCode ?? 0;
        if (code >= 200 && code < 300) {
          if (!timeWholeBody) done();
          else response.once('close', done);
          resolve(response);
          return;
        }
        readBody(response).then(
          (text) => {
            done();
            reject(new KubeHttpError(spec.method, spec.path, code, response.headers, text));
          },
          (error: unknown) => {
            done();
            reject(error);
          },
        );
      });
      request.on('error', (error) => {
        done();
        reject(error);
      });
      spec.signal?.addEventListener('abort', onAbort, { once: true });
      request.end(body);
    });
  }
}
