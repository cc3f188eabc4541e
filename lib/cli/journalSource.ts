/**
 * Where `lineup history`, `export` and `replay` read the journal: a local state directory (what
 * `lineup run` and `lineup demo --state-dir` keep) or the deployed checkpoint table
 * (`--table NAME --region R`, credentials from the AWS SDK's default provider chain; the SDK's
 * AWS_ENDPOINT_URL_DYNAMODB points it at another DynamoDB-API server).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { JournalSourceMessage } from '../constants.ts';
import { Counters } from '../counters.ts';
import { hasState, openStateStore } from '../hosts/local.ts';
import { DynamoCheckpointStore } from '../store/dynamoStore.ts';
import type { CheckpointStore } from '../store/types.ts';

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
  /** read: run `work` on the source's store, closing it after; a table's failures become UnusableJournalSource. */
  read<T>(work: (store: CheckpointStore) => Promise<T>): Promise<T>;
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

const stateDirSource = (command: string, stateDir: string): JournalSource => ({
  where: stateDir,
  read: async (work) => {
    // Opening the store would create the directory: a mistyped --state-dir must not leave one behind.
    if (!hasState(stateDir)) throw new UnusableJournalSource(JournalSourceMessage.noState(command, stateDir));
    const { dynamo, store } = await openStateStore(stateDir, new Counters());
    try {
      return await work(store);
    } finally {
      await dynamo.stop();
    }
  },
});

const tableSource = (command: string, table: string, region: string): JournalSource => {
  const where = JournalSourceMessage.tableWhere(table, region);
  return {
    where,
    read: async (work) => {
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
    },
  };
};
