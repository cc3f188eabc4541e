/**
 * KubeEndpoint: how Lineup reaches one cluster's API server — its URL, one keep-alive connection
 * pool carrying the cluster's TLS material, and what authenticates each request.
 *
 * Why one pool per cluster: every request of a pass and every watch reuses an open connection
 * instead of paying a TCP connection and a TLS handshake (on both ends) each time. The pool's
 * idle connections are unref'd by Node, so they keep no process alive.
 *
 * Authentication is applied per request (`authorize`), so a token that is re-signed (EKS), re-read
 * (a secret, a projected service-account token) or refreshed by a kubeconfig's exec plugin reaches
 * the next request without building a new client.
 */
import { Agent as HttpAgent } from 'node:http';
import type { OutgoingHttpHeaders, RequestOptions } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { RequestOptions as HttpsRequestOptions } from 'node:https';

/** KubeRequestOptions: the options of one request that `authorize` may complete (headers, and TLS material per request). */
export type KubeRequestOptions = HttpsRequestOptions & { headers: OutgoingHttpHeaders };

/** KubeEndpoint: one cluster's API server, its connection pool and its per-request authentication. */
export interface KubeEndpoint {
  /** The API server's base URL (`https://host:port`, maybe with a path prefix). */
  readonly server: URL;
  /** The keep-alive pool every request to this cluster goes through. */
  readonly agent: HttpAgent;
  /** authorize: add this request's credentials (an Authorization header, TLS material) to `options`. */
  readonly authorize: (options: KubeRequestOptions) => Promise<void>;
}

/** BearerToken: the token of the next request (cached and refreshed by its source). */
export type BearerToken = () => Promise<string>;

/** EndpointOptions: a cluster's URL, TLS material and bearer token. */
export interface EndpointOptions {
  readonly server: string;
  /** CA bundle (PEM) the server's certificate must chain to. @default Node's root CAs */
  readonly ca?: string | Buffer | undefined;
  /** Client certificate and key (PEM), for certificate authentication. */
  readonly cert?: string | Buffer | undefined;
  readonly key?: string | Buffer | undefined;
  /** Accept any server certificate (kubeconfig's insecure-skip-tls-verify). @default false */
  readonly skipTlsVerify?: boolean | undefined;
  /** Server name to verify the certificate against (kubeconfig's tls-server-name). */
  readonly tlsServerName?: string | undefined;
  /** The bearer token of each request. @default none (client certificate, or anonymous) */
  readonly token?: BearerToken | undefined;
}

/** KEEP_ALIVE_MSECS: TCP keep-alive probes on pooled connections, so a dead peer behind a NAT is noticed. */
export const KEEP_ALIVE_MSECS = 30_000;

/**
 * kubeEndpoint: an endpoint whose pool is built from `options`' TLS material (an http:// server
 * gets a plain pool) and whose requests carry `Authorization: Bearer <token()>` when a token is given.
 *
 * @example
 * const endpoint = kubeEndpoint({ server: 'https://k8s.example.com', ca: pem, token: async () => 'secret' });
 */
export const kubeEndpoint = (options: EndpointOptions): KubeEndpoint => {
  const server = new URL(options.server);
  const agent =
    server.protocol === 'http:'
      ? new HttpAgent({ keepAlive: true, keepAliveMsecs: KEEP_ALIVE_MSECS })
      : new HttpsAgent({
          keepAlive: true,
          keepAliveMsecs: KEEP_ALIVE_MSECS,
          ...(options.ca === undefined ? {} : { ca: options.ca }),
          ...(options.cert === undefined ? {} : { cert: options.cert }),
          ...(options.key === undefined ? {} : { key: options.key }),
          ...(options.tlsServerName === undefined ? {} : { servername: options.tlsServerName }),
          rejectUnauthorized: options.skipTlsVerify !== true,
        });
  const token = options.token;
  return {
    server,
    agent,
    authorize: async (request: RequestOptions & { headers: OutgoingHttpHeaders }) => {
      if (token !== undefined) request.headers['authorization'] = `Bearer ${await token()}`;
    },
  };
};
