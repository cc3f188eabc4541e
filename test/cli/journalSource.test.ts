/**
 * history, export and replay read the deployed table as well as a state directory: here the table
 * is dynalite's (created as the stack creates it, from tableDefinition()), reached the way an
 * operator's SDK would reach AWS, through the default credential chain, the endpoint moved by
 * AWS_ENDPOINT_URL_DYNAMODB. And the flags that clash say so in one line (exit 2).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CliIo } from '../../lib/cli/io.ts';
import { DEFAULT_STATE_DIR } from '../../lib/cli/journalSource.ts';
import { exportCommand, replayCommand, sinceMs, ReplayMessage } from '../../lib/cli/replay.ts';
import { historyCommand } from '../../lib/cli/run.ts';
import { JournalSourceMessage } from '../../lib/hosts/stateDir.ts';
import { historyOf, historyText } from '../../lib/replay/history.ts';
import { recordingOf } from '../../lib/replay/recording.ts';
import { DynamoCheckpointStore } from '../../lib/store/dynamoStore.ts';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded.ts';
import type { JournalEntry } from '../../lib/store/types.ts';
import { KEY, recordStartup } from '../replay/fixtures.ts';

const capture = () => {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (text) => void (out += text), stderr: (text) => void (err += text), readFile: (path) => readFileSync(path, 'utf8') };
  return { io, stdout: () => out, stderr: () => err };
};

const target = `${KEY.cluster}/${KEY.namespace}/${KEY.name}`;
const TABLE = 'lineup-deployed-checkpoints';
const REGION = 'eu-west-1';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The environment the SDK's default chains read, set for these tests and put back after. */
const AWS_ENV = ['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'] as const;

describe('cli: history, export and replay --table TABLE --region R', () => {
  let dynamo: EmbeddedDynamo;
  let entries: JournalEntry[] = [];
  const savedEnv = new Map(AWS_ENV.map((name) => [name, process.env[name]]));

  before(async () => {
    dynamo = await startEmbeddedDynamo({ tableName: TABLE });
    const store = new DynamoCheckpointStore({ client: dynamo.client, tableName: TABLE });
    await recordStartup(store);
    entries = await store.listJournal(KEY);
    for (const name of AWS_ENV) delete process.env[name];
    process.env['AWS_ENDPOINT_URL_DYNAMODB'] = dynamo.endpoint;
    process.env['AWS_ACCESS_KEY_ID'] = 'test';
    process.env['AWS_SECRET_ACCESS_KEY'] = 'test';
  });

  after(async () => {
    for (const [name, value] of savedEnv) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await dynamo.stop();
  });

  const table = { table: TABLE, region: REGION };

  it('history reads the table: the same story the journal tells, text and json', async () => {
    assert.ok(entries.length > 1, 'the startup recorded passes');
    const text = capture();
    assert.equal(await historyCommand(target, table, text.io), 0, text.stderr());
    assert.equal(text.stdout(), historyText(historyOf(KEY, entries)));
    const json = capture();
    assert.equal(await historyCommand(target, { ...table, output: 'json' }, json.io), 0, json.stderr());
    assert.deepEqual(JSON.parse(json.stdout()), JSON.parse(JSON.stringify(historyOf(KEY, entries))));
  });

  it('history of a JobSet the table has no passes for names the table, exit 2 as export and replay', async () => {
    const { io, stdout, stderr } = capture();
    assert.equal(await historyCommand(`${KEY.cluster}/default/nobody`, table, io), 2);
    assert.equal(stderr(), `lineup history: no passes recorded for ${KEY.cluster}/default/nobody in ${JournalSourceMessage.tableWhere(TABLE, REGION)}\n`);
    assert.equal(stdout(), '');
  });

  it('export reads the table: the recording of every pass', async () => {
    const { io, stdout, stderr } = capture();
    assert.equal(await exportCommand(target, table, io), 0, stderr());
    assert.deepEqual(JSON.parse(stdout()), JSON.parse(JSON.stringify(recordingOf(KEY, entries))));
  });

  it('replay CLUSTER/NS/NAME and replay --all read the table (exit 0, every pass the same)', async () => {
    const one = capture();
    assert.equal(await replayCommand(target, { ...table, output: 'text' }, one.io), 0, one.stderr());
    assert.equal(one.stdout().trimEnd().split('\n').at(-1), `  ${entries.length} same, 0 different, 0 unreplayable`);
    const all = capture();
    assert.equal(await replayCommand(undefined, { ...table, all: true, cluster: KEY.cluster, output: 'json' }, all.io), 0, all.stderr());
    const summary = (JSON.parse(all.stdout()) as { summary: { jobSets: number; passes: number; same: number } }).summary;
    assert.deepEqual(summary.jobSets, 1);
    assert.deepEqual([summary.passes, summary.same], [entries.length, entries.length]);
  });

  it('replay --all --since keeps a JobSet with a pass in the window, all its passes, and says when none has one', async () => {
    const last = Math.max(...entries.map((entry) => entry.at));
    const within = capture();
    assert.equal(await replayCommand(undefined, { ...table, all: true, cluster: KEY.cluster, since: '7d', output: 'json' }, within.io, last + 6 * DAY_MS), 0, within.stderr());
    const summary = (JSON.parse(within.stdout()) as { summary: { jobSets: number; passes: number } }).summary;
    assert.deepEqual([summary.jobSets, summary.passes], [1, entries.length]);
    const outside = capture();
    assert.equal(await replayCommand(undefined, { ...table, all: true, cluster: KEY.cluster, since: '7d', output: 'json' }, outside.io, last + 8 * DAY_MS), 2);
    assert.equal(outside.stdout(), '');
    assert.equal(outside.stderr(), `${ReplayMessage.nothingRecorded([KEY.cluster], JournalSourceMessage.tableWhere(TABLE, REGION), '7d')}\n`);
  });

  it('a table that does not exist is one line naming it and what the server said (exit 2)', async () => {
    for (const run of [
      (io: CliIo) => historyCommand(target, { table: 'no-such-table', region: REGION }, io),
      (io: CliIo) => exportCommand(target, { table: 'no-such-table', region: REGION }, io),
      (io: CliIo) => replayCommand(undefined, { table: 'no-such-table', region: REGION, all: true, output: 'text' }, io),
    ]) {
      const { io, stdout, stderr } = capture();
      assert.equal(await run(io), 2);
      assert.equal(stdout(), '');
      assert.match(stderr(), /^lineup (history|export|replay): reading table no-such-table \(eu-west-1\) failed: .*\S\n$/);
      assert.equal(stderr().split('\n').length, 2, `one line: ${stderr()}`);
    }
  });
});

describe('cli: flags naming the journal source that clash (exit 2, one line, nothing read)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lineup-source-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const commands = [
    ['lineup history', (flags: object, io: CliIo) => historyCommand(target, flags, io)],
    ['lineup export', (flags: object, io: CliIo) => exportCommand(target, flags, io)],
    ['lineup replay', (flags: object, io: CliIo) => replayCommand(target, { ...flags, output: 'text' }, io)],
  ] as const;

  for (const [command, run] of commands) {
    it(`${command}: --state-dir with --table, --table without --region, --region without --table`, async () => {
      const cases: [object, string][] = [
        [{ stateDir: scratch, table: TABLE, region: REGION }, JournalSourceMessage.bothSources(command, scratch, TABLE)],
        [{ table: TABLE }, JournalSourceMessage.noRegion(command, TABLE)],
        [{ stateDir: scratch, region: REGION }, JournalSourceMessage.regionWithoutTable(command, REGION)],
      ];
      for (const [flags, message] of cases) {
        const { io, stdout, stderr } = capture();
        assert.equal(await run(flags, io), 2, JSON.stringify(flags));
        assert.equal(stderr(), `${message}\n`);
        assert.equal(stdout(), '');
      }
    });
  }

  it('neither flag reads the default state directory', async () => {
    const { io, stderr } = capture();
    const cwd = process.cwd();
    process.chdir(scratch);
    try {
      assert.equal(await historyCommand(target, {}, io), 2);
    } finally {
      process.chdir(cwd);
    }
    assert.equal(stderr(), `${JournalSourceMessage.noState('lineup history', DEFAULT_STATE_DIR)}\n`);
  });

  it('replay --since needs --all, and a duration', async () => {
    const cases: [object, string][] = [
      [{ since: '7d' }, ReplayMessage.sinceWithoutAll('7d')],
      [{ all: true, since: 'a week' }, ''],
      [{ all: true, since: '0' }, ReplayMessage.badSince('0', 'expected a positive duration, e.g. 7d, 36h')],
      [{ all: true, since: 'never' }, ReplayMessage.badSince('never', 'expected a positive duration, e.g. 7d, 36h')],
    ];
    for (const [flags, message] of cases) {
      const { io, stderr } = capture();
      assert.equal(await replayCommand(target, { stateDir: scratch, output: 'text', ...flags }, io), 2, JSON.stringify(flags));
      if (message === '') assert.match(stderr(), /^lineup replay: --since "a week": .*or days, e.g\. 7d\n$/);
      else assert.equal(stderr(), `${message}\n`);
    }
  });

  it('--since reads days, and days with the units of other durations', () => {
    assert.equal(sinceMs('7d'), 7 * DAY_MS);
    assert.equal(sinceMs('1d12h'), 36 * HOUR_MS);
    assert.equal(sinceMs('36h'), 36 * HOUR_MS);
    assert.equal(sinceMs('90m'), 1.5 * HOUR_MS);
  });
});
