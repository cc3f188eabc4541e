/**
 * `lineup history`, `export` and `replay` against a deployed-style table: dynalite holding a table
 * created as the stack creates it (tableDefinition()), the CLI run as its own process, reaching
 * the table through the AWS SDK's default chains (credentials and AWS_ENDPOINT_URL_DYNAMODB from
 * the environment), as an operator's shell would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { recordingOf } from '../../../lib/replay/recording.ts';
import { DynamoCheckpointStore } from '../../../lib/store/dynamoStore.ts';
import { tableDefinition } from '../../../lib/store/table.ts';
import type { JournalEntry } from '../../../lib/store/types.ts';
import { KEY, recordStartup } from '../../replay/fixtures.ts';
import { lineupAgainstTable, startDynalite, type CliRun, type DynaliteServer } from '../harness/index.ts';

const TABLE = 'Lineup-CheckpointTable-TEST';
const REGION = 'eu-central-1';
const target = `${KEY.cluster}/${KEY.namespace}/${KEY.name}`;

describe('integration/replay: history, export and replay --table against dynalite', () => {
  let dynamo: DynaliteServer;
  let entries: JournalEntry[] = [];
  /** lineup: the CLI as a child process (asynchronous: dynalite answers from this process's event loop). */
  let lineup: (...args: string[]) => Promise<CliRun>;

  before(async () => {
    dynamo = await startDynalite();
    const client = new DynamoDBClient(dynamo.clientConfig);
    await client.send(new CreateTableCommand(tableDefinition(TABLE)));
    const store = new DynamoCheckpointStore({ client, tableName: TABLE });
    await recordStartup(store);
    entries = await store.listJournal(KEY);
    client.destroy();
    lineup = lineupAgainstTable(dynamo);
  });

  after(() => dynamo.stop());

  it('export writes the recording of every pass the table holds', async () => {
    assert.ok(entries.length > 1);
    const run = await lineup('export', target, '--table', TABLE, '--region', REGION);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), JSON.parse(JSON.stringify(recordingOf(KEY, entries))));
  });

  it('history tells the story and where the time went; --output json carries the gates', async () => {
    const text = await lineup('history', target, '--table', TABLE, '--region', REGION);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^pass 1 /);
    assert.match(text.stdout, /\nwhere the time went, from each gate's event to the pass that opened it:\n {2}pass 1 /);
    const json = await lineup('history', target, '--table', TABLE, '--region', REGION, '--output', 'json');
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout) as { passes: unknown[]; gates: { gate: string }[] };
    assert.equal(report.passes.length, entries.length);
    assert.deepEqual(report.gates.map((gate) => gate.gate), ['InOrder: first replicatedJob', 'InOrder: messagequeue Ready 1/1', 'InOrder: driver Ready 2/2']);
  });

  it('replay of the JobSet and replay --all decide every pass the same (exit 0)', async () => {
    const one = await lineup('replay', target, '--table', TABLE, '--region', REGION);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout.trimEnd().split('\n').at(-1), `  ${entries.length} same, 0 different, 0 unreplayable`);
    const all = await lineup('replay', '--all', '--cluster', KEY.cluster, '--table', TABLE, '--region', REGION, '--output', 'json');
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual((JSON.parse(all.stdout) as { summary: unknown }).summary, { jobSets: 1, passes: entries.length, same: entries.length, different: 0, unreplayable: 0 });
  });

  it('both sources, or a table that is not there, is one line and exit 2', async () => {
    const both = await lineup('export', target, '--table', TABLE, '--region', REGION, '--state-dir', '.lineup');
    assert.deepEqual([both.code, both.stdout], [2, '']);
    assert.equal(both.stderr, `lineup export: --state-dir .lineup and --table ${TABLE} both given: expected one (a local state directory or the deployed table)\n`);
    const missing = await lineup('replay', '--all', '--table', 'no-such-table', '--region', REGION);
    assert.deepEqual([missing.code, missing.stdout], [2, '']);
    assert.match(missing.stderr, /^lineup replay: reading table no-such-table \(eu-central-1\) failed: .*\S\n$/);
  });
});
