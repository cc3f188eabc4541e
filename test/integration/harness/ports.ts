/**
 * Free loopback ports for servers the integration tests start.
 *
 * The operating system picks each port (bind to port 0), the listener is closed and the number
 * handed to a server that binds it a moment later — the same approach as controller-runtime's
 * envtest. Another process could take the port in between; on a test machine that is rare and
 * shows up as a server failing to start, whose log says "address already in use".
 */
import { createServer, type Server } from 'node:net';

/** LOOPBACK: the only address test servers listen on. */
export const LOOPBACK = '127.0.0.1';

/** listenOnFreePort: a listening server on a port the OS chose on 127.0.0.1. */
const listenOnFreePort = (): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve(server));
  });

/** portOf: the TCP port a listening server is bound to. */
const portOf = (server: Server): number => {
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error(`free port: expected a TCP address, got ${String(address)}`);
  }
  return address.port;
};

/** closeServer: closes a listening server, resolving once its port is released. */
const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));

/**
 * freePorts: `count` distinct TCP ports on 127.0.0.1 that were free a moment ago.
 * All listeners are held open together so the OS cannot hand out the same port twice.
 *
 * @example
 * const [clientPort, peerPort] = await freePorts(2);
 */
export const freePorts = async (count: number): Promise<number[]> => {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i += 1) servers.push(await listenOnFreePort());
    return servers.map(portOf);
  } finally {
    await Promise.all(servers.map(closeServer));
  }
};

/**
 * freePort: one TCP port on 127.0.0.1 that was free a moment ago.
 *
 * @example
 * const port = await freePort();
 */
export const freePort = async (): Promise<number> => {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error('free port: the OS returned no port');
  return port;
};
