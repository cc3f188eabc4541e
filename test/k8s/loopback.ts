/**
 * A scripted HTTP server on 127.0.0.1 for the adapter's unit tests: each test says how the
 * "API server" answers each request, so retries, error mapping and auth headers are exercised
 * through Lineup's real request path (KubeEndpoint, KubeRestClient, node:http) without a cluster.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** RecordedRequest: what the server saw. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Answer: a reply, 'reset' to drop the connection without one, or 'hang' to never answer. */
export type Answer = { readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown } | 'reset' | 'hang';

/** Script: the answer to a request, told how often its method+path was requested before (0 for the first). */
export type Script = (request: RecordedRequest, previousHits: number) => Answer;

/** status: a metav1.Status answer, as the API server sends with an error. */
export const status = (code: number, reason: string, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Answer => ({
  status: code,
  headers,
  body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, ...extra },
});

/** LoopbackServer: a running scripted server. */
export interface LoopbackServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** hits: how many requests came for `method path`. */
  hits(method: string, path: string): number;
  /** connections: how many TCP connections clients opened to it so far. */
  connections(): number;
  close(): Promise<void>;
}

/** startLoopback: a server on a free loopback port answering by `script`. */
export const startLoopback = async (script: Script): Promise<LoopbackServer> => {
  const requests: RecordedRequest[] = [];
  const counts = new Map<string, number>();
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const request: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      const key = `${request.method} ${request.path}`;
      const previous = counts.get(key) ?? 0;
      counts.set(key, previous + 1);
      const answer = script(request, previous);
      if (answer === 'hang') return;
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(body);
    });
  };
  const server = createServer(handle);
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    hits: (method, path) => counts.get(`${method} ${path}`) ?? 0,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** freeClosedPort: a loopback port nothing listens on (opened, then closed). */
export const freeClosedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

/**
 * kubeconfigText: a kubeconfig of one context `test` for `server` (TLS verification off: the
 * loopback server speaks plain HTTP) as the user of `token`, which the loopback server answers by.
 */
export const kubeconfigText = (server: string, token: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'me', user: { token } }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: 'me' } }],
    'current-context': 'test',
    ...extra,
  });
