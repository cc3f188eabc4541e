/**
 * Where `lineup history`, `export`, `replay` and `clusters` read the journal and the registry: a
 * local state directory (what `lineup run` and `lineup demo --state-dir` keep: lib/hosts/stateDir.ts)
 * or the deployed checkpoint table (`--table NAME --region R`, credentials from the AWS SDK's
 * default provider chain; the SDK's AWS_ENDPOINT_URL_DYNAMODB points it at another DynamoDB-API
 * server).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { StateDirError, StoreInvalidError } from '../errors.ts';
import { openStateDirForReading, openStateDirForWriting, StateDirMessage, STATE_FILE, type OpenStateDir, JournalSourceMessage } from '../hosts/stateDir.ts';
import { join } from 'node:path';
import { DynamoCheckpointStore } from '../store/dynamoStore.ts';
import type { ClusterRegistry, StoreReader } from '../store/types.ts';

/** Where `lineup run` keeps its state unless told otherwise. */
export const DEFAULT_STATE_DIR = '.lineup';

/** JournalSourceFlags: raw flags; `stateDir` undefined when not given (so that it can clash with --table). */
export interface JournalSourceFlags {
  readonly stateDir?: string | undefined;
  readonly table?: string | undefined;
  readonly region?: string | undefined;
}

/** UnusableJournalSource: the one line an exit 2 prints (flags that clash, no state, a table that cannot be read). */
export class UnusableJournalSource extends Error {}

/** JournalSource: a source resolved from the flags; `where` names it in messages. */
export interface JournalSource {
  readonly where: string;
  /** read: run `work` on the source's store, read-only for a state directory, closing it after; failures of the source become UnusableJournalSource. */
  read<T>(work: (store: StoreReader) => Promise<T>): Promise<T>;
  /** write: as read, for work that writes (the registry): a state directory is taken as its one writer while it runs. */
  write<T>(work: (store: StoreReader & ClusterRegistry) => Promise<T>): Promise<T>;
}

/** journalSource: the source the flags name, or UnusableJournalSource saying which flags clash. */
export const journalSource = (command: string, flags: JournalSourceFlags): JournalSource => {
  if (flags.table !== undefined) {
    if (flags.stateDir !== undefined) throw new UnusableJournalSource(JournalSourceMessage.bothSources(command, flags.stateDir, flags.table));
    if (flags.region === undefined) throw new UnusableJournalSource(JournalSourceMessage.noRegion(command, flags.table));
    return tableSource(command, flags.table, flags.region);
  }
  if (flags.region !== undefined) throw new UnusableJournalSource(JournalSourceMessage.regionWithoutTable(command, flags.region));
  return stateDirSource(command, flags.stateDir ?? DEFAULT_STATE_DIR);
};

const stateDirSource = (command: string, stateDir: string): JournalSource => {
  /** within: run `work` on the directory `open` gives, its refusals and a database failing mid-read as one line. */
  const within = async <T>(open: () => OpenStateDir, work: (store: StoreReader & ClusterRegistry) => Promise<T>): Promise<T> => {
    let state: OpenStateDir;
    try {
      state = open();
    } catch (error) {
      if (error instanceof StateDirError) throw new UnusableJournalSource(error.message, { cause: error });
      throw error;
    }
    try {
      return await work(state.store);
    } catch (error) {
      // SQLite found a damaged page past the open's check, or a record does not parse: the file, not the command, is at fault.
      if (error instanceof StoreInvalidError || isSqliteError(error)) {
        throw new UnusableJournalSource(StateDirMessage.damaged(command, join(stateDir, STATE_FILE), (error as Error).message), { cause: error });
      }
      throw error;
    } finally {
      state.close();
    }
  };
  return {
    where: stateDir,
    read: (work) => within(() => openStateDirForReading(stateDir, command), work),
    write: (work) => within(() => openStateDirForWriting(stateDir, { command, requireExisting: true }), work),
  };
};

/** isSqliteError: an error node:sqlite raised (its code is ERR_SQLITE_ERROR). */
const isSqliteError = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_SQLITE_ERROR';

const tableSource = (command: string, table: string, region: string): JournalSource => {
  const where = JournalSourceMessage.tableWhere(table, region);
  const within = async <T>(work: (store: StoreReader & ClusterRegistry) => Promise<T>): Promise<T> => {
    const client = new DynamoDBClient({ region });
    const store = new DynamoCheckpointStore({ client, tableName: table });
    try {
      return await work(store);
    } catch (error) {
      if (error instanceof UnusableJournalSource) throw error;
      // No credentials, no such table, no access: one line naming the table, exit 2.
      throw new UnusableJournalSource(JournalSourceMessage.tableFailed(command, where, error instanceof Error ? error.message : String(error)), { cause: error });
    } finally {
      client.destroy();
    }
  };
  return { where, read: within, write: within };
};
