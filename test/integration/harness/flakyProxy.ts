/**
 * FlakyProxy: a loopback TCP proxy in front of a server that can cut every open connection and
 * refuse new ones for a while — what a client sees when the network drops or the server goes
 * away. TLS passes through untouched, so a client verifies the server's own certificate (the
 * test API server's names 127.0.0.1, whatever the port). The same idea as the forwarder's
 * integration test, shared for the end-to-end fault scenarios.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { LOOPBACK } from './ports.ts';

/** FlakyProxy: start() it, point a client at the URL it returns, then outage()/restore(). */
export class FlakyProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private refusing = false;
  private cuts = 0;

  /** @param targetPort the loopback port the proxy forwards to */
  constructor(targetPort: number) {
    this.server = createServer((client) => {
      if (this.refusing) {
        client.destroy();
        return;
      }
      const upstream = connect(targetPort, LOOPBACK);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  /** start: listen on a free loopback port; resolves with `https://127.0.0.1:<port>`. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, LOOPBACK, resolve));
    return `https://${LOOPBACK}:${(this.server.address() as AddressInfo).port}`;
  }

  /** outage: cut every open connection and refuse new ones until `restore`. */
  outage(): void {
    this.refusing = true;
    this.cuts += this.sockets.size;
    for (const socket of this.sockets) socket.destroy();
  }

  /** restore: accept connections again. */
  restore(): void {
    this.refusing = false;
  }

  /** connectionsCut: how many sockets outages have cut so far. */
  connectionsCut(): number {
    return this.cuts;
  }

  /** stop: cut everything and close the listener. */
  async stop(): Promise<void> {
    this.outage();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
