/**
 * `lineup replay --archive` against a recorded EventBridge exchange: a loopback server answering
 * each call as AWS does (JSON 1.1 protocol, X-Amz-Target, epoch-second timestamps, `__type`
 * errors). It checks what moto cannot (the end-to-end run is test/integration/e2e/archiveReplay.test.ts):
 * moto 5.2.5 ignores the destination's FilterArns and the time range, and its replay is over
 * before StartReplay answers, so the progress loop and the FAILED path never happen there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { archiveReplayCommand, type ArchiveReplayFlags } from '../../lib/cli/archiveReplay.ts';
import { main } from '../../lib/cli/main.ts';
import type { CliIo } from '../../lib/cli/io.ts';
import { MemoryCheckpointStore } from '../../lib/store/memoryStore.ts';
import type { JournalEntry, JournalEvent } from '../../lib/store/types.ts';
import { startLoopback, type Answer, type LoopbackServer, type RecordedRequest } from '../k8s/loopback.ts';

const ARCHIVE_ARN = 'arn:aws:events:eu-west-1:111122223333:archive/LineupBusArchive';
const BUS_ARN = 'arn:aws:events:eu-west-1:111122223333:event-bus/LineupBus0A1B2C3D';
const RULE_NAME = 'Lineup-BusReconcilerRule5E6F7A8B-Q1W2E3R4T5Y6';
const RULE_ARN = `arn:aws:events:eu-west-1:111122223333:rule/LineupBus0A1B2C3D/${RULE_NAME}`;
const FROM = '2026-01-01T12:00:00Z';
const TO = '2026-01-01T12:10:00Z';
const T0 = Date.parse(FROM);

const aws = (body: unknown): Answer => ({ status: 200, headers: { 'content-type': 'application/x-amz-json-1.1' }, body });
const awsError = (type: string, message: string): Answer => ({ status: 400, headers: { 'content-type': 'application/x-amz-json-1.1' }, body: { __type: type, message } });

/** Exchange: the answer to each operation, told how often it was called before. */
type Exchange = Record<string, (previous: number, request: RecordedRequest) => Answer>;

/** The recorded exchange of a replay that runs, reports progress, and completes. */
const completing: Exchange = {
  DescribeArchive: () => aws({ ArchiveName: 'LineupBusArchive', ArchiveArn: ARCHIVE_ARN, EventSourceArn: BUS_ARN, State: 'ENABLED', EventCount: 42 }),
  ListRules: () => aws({ Rules: [{ Name: RULE_NAME, Arn: RULE_ARN, EventBusName: 'LineupBus0A1B2C3D', State: 'ENABLED' }] }),
  StartReplay: () => aws({ ReplayArn: 'arn:aws:events:eu-west-1:111122223333:replay/r1', State: 'STARTING', ReplayStartTime: T0 / 1000 + 3600 }),
  DescribeReplay: (previous) =>
    previous === 0
      ? aws({ ReplayName: 'r1', State: 'RUNNING', EventLastReplayedTime: T0 / 1000 + 300 })
      : aws({ ReplayName: 'r1', State: 'COMPLETED', EventLastReplayedTime: T0 / 1000 + 600, ReplayEndTime: T0 / 1000 + 3700 }),
};

const KEY = { cluster: 'prod', namespace: 'team', name: 'train' };
const trigger = (replayName?: string): JournalEvent => ({
  id: replayName ?? 'original',
  detailType: 'Job Changed',
  kind: 'Job',
  name: 'train-driver-0',
  resourceVersion: '11',
  watchType: 'MODIFIED',
  time: T0 + 5_000,
  ...(replayName !== undefined ? { replayName } : {}),
});
const pass = (at: number, replayName?: string): JournalEntry => ({
  key: KEY,
  at,
  plannerVersion: '0.1.0+test',
  planOptions: { controllerName: 'lineup.dev/controller', claimUnmanaged: false },
  triggers: [trigger(replayName)],
  timings: { passStartedAt: at, writesDoneAt: at },
  inputsDigest: 'digest',
  inputsKept: 'unchanged',
  actions: [],
  reason: 'nothing to do',
  applied: replayName === undefined,
  ...(replayName !== undefined ? { replayName } : {}),
});

const capture = (): CliIo & { out: string[]; err: string[] } => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => void out.push(text), stderr: (text) => void err.push(text), readFile: () => { throw new Error('no files here'); } };
};

const FLAGS: ArchiveReplayFlags = { archive: 'LineupBusArchive', from: FROM, to: TO, jobset: 'prod/team/train', table: 'Lineup-Table', region: 'eu-west-1', name: 'r1', timeout: '1m', settle: '0' };

describe('cli/archiveReplay: lineup replay --archive against a recorded EventBridge exchange', () => {
  let exchange: Exchange = completing;
  let server: LoopbackServer;
  let events: EventBridgeClient;

  before(async () => {
    server = await startLoopback((request) => {
      // Every call is POST /: count them by operation.
      const operation = String(request.headers['x-amz-target'] ?? '').replace(/^AWSEvents\./, '');
      const previous = server.requests.filter((seen) => seen.headers['x-amz-target'] === request.headers['x-amz-target']).length - 1;
      const answer = exchange[operation];
      return answer === undefined ? awsError('UnknownOperationException', `not in the recorded exchange: ${operation}`) : answer(previous, request);
    });
    events = new EventBridgeClient({ endpoint: server.url, region: 'eu-west-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' }, maxAttempts: 1 });
  });
  after(async () => {
    events.destroy();
    await server.close();
  });

  const run = async (flags: ArchiveReplayFlags, answers: Exchange, store = new MemoryCheckpointStore()): Promise<{ code: number; io: ReturnType<typeof capture>; calls: { operation: string; body: Record<string, unknown> }[] }> => {
    exchange = answers;
    server.requests.length = 0;
    const io = capture();
    const code = await archiveReplayCommand(flags, io, { events, store, pollMs: 1 });
    const calls = server.requests.map((request) => ({ operation: String(request.headers['x-amz-target']).replace(/^AWSEvents\./, ''), body: JSON.parse(request.body) as Record<string, unknown> }));
    return { code, io, calls };
  };

  it("starts a replay of the range limited to the stack's reconciler rule, follows it to COMPLETED, and exits 0 when the replayed decisions are the originals'", async () => {
    // Arrange: the original pass and the one the replay recorded, deciding the same.
    const store = new MemoryCheckpointStore();
    await store.appendJournal(pass(T0 + 5_500));
    await store.appendJournal(pass(T0 + 3_600_000, 'r1'));
    // Act
    const { code, io, calls } = await run(FLAGS, completing, store);
    // Assess
    assert.deepEqual(calls.map((call) => call.operation), ['DescribeArchive', 'ListRules', 'StartReplay', 'DescribeReplay', 'DescribeReplay']);
    assert.deepEqual(calls[1]?.body, { EventBusName: 'LineupBus0A1B2C3D', NamePrefix: 'Lineup-BusReconcilerRule' });
    assert.deepEqual(calls[2]?.body, {
      ReplayName: 'r1',
      Description: 'lineup replay --archive: replayed events are recorded in the journal, not applied',
      EventSourceArn: ARCHIVE_ARN,
      EventStartTime: T0 / 1000,
      EventEndTime: T0 / 1000 + 600,
      Destination: { Arn: BUS_ARN, FilterArns: [RULE_ARN] },
    });
    assert.equal(io.err.join(''), [
      `lineup replay: replay r1 of archive LineupBusArchive started, limited to rule ${RULE_ARN}`,
      'lineup replay: r1 RUNNING, replayed up to 2026-01-01T12:05:00.000Z (50% of the range)',
      'lineup replay: r1 COMPLETED, replayed up to 2026-01-01T12:10:00.000Z (100% of the range)',
      '',
    ].join('\n'));
    assert.match(io.out.join(''), /^replay r1, events 2026-01-01T12:00:00.000Z to 2026-01-01T12:10:00.000Z: /);
    assert.match(io.out.join(''), /\n {2}Job Changed Job train-driver-0 rv 11 MODIFIED at 2026-01-01T12:00:05.000Z: same\n/);
    assert.match(io.out.join(''), /\n {2}1 same, 0 different, 0 without an original pass, 0 not replayed\n$/);
    assert.equal(code, 0);
  });

  it('--output json: the same report in a stable shape (format, the replay, a summary, each event beside its original pass, differences field by field), progress still on stderr', async () => {
    // Arrange: one event decided the same, one differently (the original created a Job, the replay nothing), one not replayed.
    const store = new MemoryCheckpointStore();
    const createJob = { kind: 'CreateJob', target: 'train-driver-0', code: 'GateOpened', message: 'AnyOrder: no gate', digest: 'd1' };
    const other = (event: JournalEvent): JournalEvent => ({ ...event, name: 'train-driver-1', resourceVersion: '12', time: T0 + 6_000 });
    const third = (event: JournalEvent): JournalEvent => ({ ...event, name: 'train-driver-2', resourceVersion: '13', time: T0 + 7_000 });
    await store.appendJournal(pass(T0 + 5_500));
    await store.appendJournal({ ...pass(T0 + 6_500), triggers: [other(trigger())], actions: [createJob], reason: 'create the Jobs' });
    await store.appendJournal({ ...pass(T0 + 7_500), triggers: [third(trigger())] });
    await store.appendJournal(pass(T0 + 3_600_000, 'r1'));
    await store.appendJournal({ ...pass(T0 + 3_600_100, 'r1'), triggers: [other(trigger('r1'))] });
    // Act
    const { code, io } = await run({ ...FLAGS, output: 'json' }, completing, store);
    // Assess
    assert.equal(code, 1);
    assert.match(io.err.join(''), /r1 COMPLETED/);
    const passOf = (at: number, actions: unknown[] = [], reason = 'nothing to do') => ({ at: new Date(at).toISOString(), reason, actions });
    assert.deepEqual(JSON.parse(io.out.join('')), {
      format: 'lineup.dev/archive-replay/v1',
      replay: { name: 'r1', archive: 'LineupBusArchive', archiveArn: ARCHIVE_ARN, rule: RULE_ARN, from: '2026-01-01T12:00:00.000Z', to: '2026-01-01T12:10:00.000Z' },
      summary: { jobSets: 1, events: 3, same: 1, different: 1, noOriginalPass: 0, notReplayed: 1 },
      reports: [
        {
          jobSet: KEY,
          same: 1,
          different: 1,
          noOriginalPass: 0,
          notReplayed: 1,
          events: [
            { result: 'same', event: trigger('r1'), original: passOf(T0 + 5_500), replayed: passOf(T0 + 3_600_000) },
            {
              result: 'different',
              event: other(trigger('r1')),
              original: passOf(T0 + 6_500, [{ kind: 'CreateJob', target: 'train-driver-0', code: 'GateOpened', message: 'AnyOrder: no gate' }], 'create the Jobs'),
              replayed: passOf(T0 + 3_600_100),
              differences: ['kind', 'target', 'code', 'message', 'digest'].map((field) => ({ action: 1, field, original: createJob[field as keyof typeof createJob] })),
            },
            { result: 'not-replayed', event: third(trigger()), original: passOf(T0 + 7_500) },
          ],
        },
      ],
    });
  });

  it('--output html is refused with --archive, before calling AWS', async () => {
    const { code, io, calls } = await run({ ...FLAGS, output: 'html' }, completing);
    assert.equal(code, 2);
    assert.deepEqual(calls, []);
    assert.equal(io.err.join(''), 'lineup replay: --output html is not available with --archive: expected text or json\n');
  });

  it('uses --rule by name (DescribeRule on the archive\'s bus) or ARN as given', async () => {
    const byName = await run({ ...FLAGS, rule: 'my-rule' }, { ...completing, DescribeRule: () => aws({ Name: 'my-rule', Arn: 'arn:aws:events:eu-west-1:111122223333:rule/LineupBus0A1B2C3D/my-rule' }) });
    assert.deepEqual(byName.calls[1], { operation: 'DescribeRule', body: { Name: 'my-rule', EventBusName: 'LineupBus0A1B2C3D' } });
    assert.deepEqual((byName.calls[2]?.body.Destination as { FilterArns: string[] }).FilterArns, ['arn:aws:events:eu-west-1:111122223333:rule/LineupBus0A1B2C3D/my-rule']);
    const byArn = await run({ ...FLAGS, rule: RULE_ARN }, completing);
    assert.deepEqual(byArn.calls.map((call) => call.operation), ['DescribeArchive', 'StartReplay', 'DescribeReplay', 'DescribeReplay']);
  });

  it('exits 2 with the state reason when the replay fails', async () => {
    const { code, io } = await run(FLAGS, { ...completing, DescribeReplay: () => aws({ ReplayName: 'r1', State: 'FAILED', StateReason: 'the destination rule was deleted' }) });
    assert.equal(code, 2);
    assert.match(io.err.join(''), /\nlineup replay: replay r1 ended FAILED: the destination rule was deleted: expected COMPLETED\n$/);
    assert.deepEqual(io.out, []);
  });

  it('exits 2 when the replay does not end within --timeout, saying it keeps running and how to cancel it', async () => {
    const { code, io } = await run({ ...FLAGS, timeout: '0' }, { ...completing, DescribeReplay: () => aws({ ReplayName: 'r1', State: 'RUNNING' }) });
    assert.equal(code, 2);
    assert.match(io.err.join(''), /\nlineup replay: replay r1 still RUNNING after --timeout 0s: expected it to end; it keeps running in EventBridge \(aws events cancel-replay --replay-name r1 stops it\)\n$/);
  });

  it("exits 2 before starting anything when the stack's rule is not found on the bus, naming what was found", async () => {
    const { code, io, calls } = await run(FLAGS, { ...completing, ListRules: () => aws({ Rules: [] }) });
    assert.equal(code, 2);
    assert.ok(!calls.some((call) => call.operation === 'StartReplay'));
    assert.match(io.err.join(''), /^lineup replay: bus LineupBus0A1B2C3D: no rule named Lineup-BusReconcilerRule\*: expected exactly one; name the reconciler's rule with --rule/);
  });

  it("exits 2 with AWS's error when the archive does not exist", async () => {
    const { code, io } = await run(FLAGS, { DescribeArchive: () => awsError('ResourceNotFoundException', 'Archive LineupBusArchive does not exist.') });
    assert.equal(code, 2);
    assert.equal(io.err.join(''), 'lineup replay: DescribeArchive failed: ResourceNotFoundException: Archive LineupBusArchive does not exist.\n');
  });

  const badFlags: { name: string; flags: ArchiveReplayFlags; error: string }[] = [
    { name: 'no --from', flags: { ...FLAGS, from: undefined }, error: '--from is required with --archive' },
    { name: 'no --table', flags: { ...FLAGS, table: undefined }, error: '--table is required with --archive' },
    { name: 'a --to that is not a time', flags: { ...FLAGS, to: 'yesterday' }, error: '--to "yesterday" is not a time: expected ISO 8601, e.g. 2026-01-01T12:00:00Z' },
    { name: '--from after --to', flags: { ...FLAGS, from: TO, to: FROM }, error: `--from ${TO} is not before --to ${FROM}: expected a range that holds events` },
    { name: 'a --jobset that is not CLUSTER/NS/NAME', flags: { ...FLAGS, jobset: 'train' }, error: '--jobset "train": expected CLUSTER/NAMESPACE/NAME' },
  ];
  for (const tc of badFlags) {
    it(`exits 2 without calling AWS for ${tc.name}`, async () => {
      const { code, io, calls } = await run(tc.flags, completing);
      assert.equal(code, 2);
      assert.deepEqual(calls, []);
      assert.equal(io.err.join(''), `lineup replay: ${tc.error}\n`);
    });
  }
});

describe('cli/main: lineup replay --archive', () => {
  it('is the archive replay, not the recording replay: flags checked, exit 2 with one line', async () => {
    const io = capture();
    const code = await main(['replay', '--archive', 'LineupBusArchive', '--to', TO, '--table', 'T', '--region', 'eu-west-1'], io);
    assert.equal(code, 2);
    assert.equal(io.err.join(''), 'lineup replay: --from is required with --archive\n');
  });
});
