/**
 * An embedded DynamoDB-API server (dynalite) in this process, on loopback: `lineup run` keeps its
 * checkpoints in it under `.lineup/`, and the store's tests run against it. dynalite is used, not
 * DynamoDB Local, whose licence does not allow shipping it; what dynalite lacks (transactions,
 * TTL) the store does not use (./table.ts).
 */
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UnavailableError } from '../errors.ts';
import { sleep } from '../retry.ts';
import { isResourceInUse, isResourceNotFound, toStoreError } from './sdkErrors.ts';
import { DEFAULT_TABLE_NAME, tableDefinition } from './table.ts';

/** The dynalite options Lineup sets (dynalite ships no types; this declares only what is used). */
interface DynaliteOptions {
  /** LevelDB directory; in memory without one. */
  readonly path?: string;
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
}
type Dynalite = (options: DynaliteOptions) => Server;

/**
 * loadDynalite: dynalite, loaded on first use. It is CommonJS without type declarations, so it
 * comes through require with the narrow type above rather than a module declaration for the
 * whole program; and it is loaded lazily so that importing lib/store (a Lambda does) never needs
 * dynalite or LevelDB installed.
 */
const loadDynalite = (): Dynalite => createRequire(import.meta.url)('dynalite') as Dynalite;

/** The only address the embedded server listens on: it has no authentication. */
const EMBEDDED_HOST = '127.0.0.1';
/** The region and static credentials of the embedded server's client: dynalite checks neither. */
const EMBEDDED_REGION = 'us-east-1';
const EMBEDDED_CREDENTIALS = { accessKeyId: 'lineup-embedded', secretAccessKey: 'lineup-embedded' } as const;
/** How long to wait for the created table to become ACTIVE, and how often to look. */
const TABLE_ACTIVE_TIMEOUT_MS = 10_000;
const TABLE_ACTIVE_POLL_MS = 20;

/** EmbeddedDynamoOptions: options of startEmbeddedDynamo. */
export interface EmbeddedDynamoOptions {
  /**
   * Directory the data persists in (LevelDB, created when missing), e.g. `.lineup/dynamodb`.
   * @default in memory, gone when stopped
   */
  readonly path?: string;
  /**
   * The checkpoint table to create when absent.
   * @default DEFAULT_TABLE_NAME
   */
  readonly tableName?: string;
}

/** EmbeddedDynamo: a running embedded server. */
export interface EmbeddedDynamo {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** A client for `endpoint` (static dummy credentials, us-east-1). */
  readonly client: DynamoDBClient;
  /** The checkpoint table, created from tableDefinition(). */
  readonly tableName: string;
  /** stop: close the client and the server, flushing the data to `path`. */
  stop(): Promise<void>;
}

/**
 * startEmbeddedDynamo: start dynalite on 127.0.0.1 on a port the OS picks, and create the
 * checkpoint table from tableDefinition() unless it exists (it does when `path` holds an earlier
 * run's data).
 *
 * @example
 * const dynamo = await startEmbeddedDynamo({ path: '.lineup/dynamodb' });
 * const store = new DynamoCheckpointStore({ client: dynamo.client, tableName: dynamo.tableName });
 * // …
 * await dynamo.stop();
 */
export const startEmbeddedDynamo = async (options: EmbeddedDynamoOptions = {}): Promise<EmbeddedDynamo> => {
  const tableName = options.tableName ?? DEFAULT_TABLE_NAME;
  if (options.path !== undefined) await mkdir(options.path, { recursive: true });
  // Table state changes are instant: nobody waits on provisioning that does not happen here.
  const server = loadDynalite()({
    ...(options.path !== undefined ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  const port = await listen(server);
  const endpoint = `http://${EMBEDDED_HOST}:${port}`;
  const client = new DynamoDBClient({ endpoint, region: EMBEDDED_REGION, credentials: EMBEDDED_CREDENTIALS });
  const stop = async (): Promise<void> => {
    client.destroy();
    await close(server);
  };
  try {
    await ensureCheckpointTable(client, tableName);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, client, tableName, stop };
};

/** listen: start the server on loopback, resolving with the port the OS chose. */
const listen = (server: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    const failed = (error: Error): void =>
      reject(new UnavailableError(`embedded dynamodb could not listen on ${EMBEDDED_HOST}: ${error.message}`, { cause: error }));
    server.once('error', failed);
    server.listen(0, EMBEDDED_HOST, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });

/** close: stop the server; dynalite's close also closes its LevelDB, so the data is on disk after it. */
const close = (server: Server): Promise<void> =>
  new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));

/**
 * ensureCheckpointTable: create the checkpoint table from tableDefinition() unless it exists, then
 * wait until it is ACTIVE (for servers whose tables take no time to provision: embedded, tests).
 */
export const ensureCheckpointTable = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  if ((await tableStatus(client, tableName)) === undefined) {
    try {
      await client.send(new CreateTableCommand(tableDefinition(tableName)));
    } catch (error) {
      // Another process sharing the directory created it in between: the table is there.
      if (!isResourceInUse(error)) throw toStoreError('CreateTable', tableName, error);
    }
  }
  const deadline = Date.now() + TABLE_ACTIVE_TIMEOUT_MS;
  for (;;) {
    const status = await tableStatus(client, tableName);
    if (status === 'ACTIVE') return;
    if (Date.now() >= deadline) {
      throw new UnavailableError(
        `embedded dynamodb table ${tableName} is ${status ?? 'missing'} after ${TABLE_ACTIVE_TIMEOUT_MS}ms, expected ACTIVE`,
      );
    }
    await sleep(TABLE_ACTIVE_POLL_MS);
  }
};

/** tableStatus: the table's status, or undefined when it does not exist. */
const tableStatus = async (client: DynamoDBClient, tableName: string): Promise<string | undefined> => {
  try {
    const output = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return output.Table?.TableStatus ?? 'UNKNOWN';
  } catch (error) {
    if (isResourceNotFound(error)) return undefined;
    throw toStoreError('DescribeTable', tableName, error);
  }
};
