/**
 * DynamoDB for the integration tests: dynalite (npm), a DynamoDB-API server that runs inside the
 * test process with an in-memory store and starts in milliseconds. Known gaps: no TransactWriteItems, no UpdateTimeToLive, no streams, and
 * a failed condition does not return the old item.
 */
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import { LOOPBACK } from './ports.ts';
import type { AwsClientConfig } from './moto.ts';

/** DynaliteOptions: the options of dynalite 4.0.0 that the harness uses (see its index.js). */
interface DynaliteOptions {
  /** How long tables stay CREATING; 0 makes CreateTable return an ACTIVE table at once. */
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
}

/**
 * dynalite: the package's factory. dynalite ships no type declarations (only JSDoc), so it is
 * loaded through createRequire and given the one signature the harness relies on.
 */
const dynalite = createRequire(import.meta.url)('dynalite') as (options?: DynaliteOptions) => Server;

/** DynaliteServer: a running in-process dynalite. */
export interface DynaliteServer extends AsyncDisposable {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  /** Endpoint, region and dummy credentials for DynamoDBClient. */
  readonly clientConfig: AwsClientConfig;
  /** Closes the server and its open connections; the in-memory tables are gone afterwards. */
  stop(): Promise<void>;
}

/**
 * startDynalite: a fresh, empty dynalite on a random loopback port. Tables are ACTIVE as soon as
 * CreateTable returns.
 *
 * @example
 * const dynamo = await startDynalite();
 * after(() => dynamo.stop());
 * const client = new DynamoDBClient(dynamo.clientConfig);
 */
export const startDynalite = async (): Promise<DynaliteServer> => {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error(`dynalite: expected a TCP address, got ${String(address)}`);
  const endpoint = `http://${LOOPBACK}:${address.port}`;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= new Promise<void>((resolve, reject) => {
      // The SDK keeps connections alive; without this, close() would wait for them to idle out.
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }));
  return {
    endpoint,
    clientConfig: { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } },
    stop,
    [Symbol.asyncDispose]: stop,
  };
};
