import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { archiveReportText, compareArchiveReplay } from '../../lib/replay/archive.ts';
import type { JobSetKey, JournalAction, JournalEntry, JournalEvent } from '../../lib/store/types.ts';

const KEY: JobSetKey = { cluster: 'prod', namespace: 'team', name: 'train' };
const T0 = Date.parse('2026-01-01T12:00:00Z');
const RANGE = { from: T0, to: T0 + 60_000 };

const action = (kind: string, target: string, code: string, message: string): JournalAction => ({ kind, target, code, message, digest: `${kind}-${target}-${message}` });
const resume = action('ResumeJob', 'train-workers-0', 'GateOpened', 'InOrder: driver Ready 1/1');
const status = (message: string): JournalAction => action('UpdateJobSetStatus', '', 'StatusChanged', message);

const event = (name: string, resourceVersion: string, time: number, replayName?: string): JournalEvent => ({
  id: `${name}-${resourceVersion}-${replayName ?? 'original'}`,
  detailType: 'Job Changed',
  kind: 'Job',
  name,
  resourceVersion,
  watchType: 'MODIFIED',
  time,
  ...(replayName !== undefined ? { replayName } : {}),
});

/** entry: a journal entry triggered by `trigger` (none: a later pass of a lease loop). */
const entry = (at: number, trigger: JournalEvent | undefined, actions: readonly JournalAction[], replayName?: string): JournalEntry => ({
  key: KEY,
  at,
  plannerVersion: '0.1.0+test',
  planOptions: { controllerName: 'lineup.dev/controller', claimUnmanaged: false },
  triggers: trigger === undefined ? [] : [trigger],
  timings: { passStartedAt: at, writesDoneAt: at },
  inputsDigest: 'digest',
  inputsKept: 'unchanged',
  actions,
  reason: 'test',
  applied: replayName === undefined,
  ...(replayName !== undefined ? { replayName } : {}),
});

describe('replay/archive: compareArchiveReplay', () => {
  const journal: JournalEntry[] = [
    // Originals, in the range.
    entry(T0 + 1_000, event('train-driver-0', '10', T0), [status('created')]),
    entry(T0 + 5_000, event('train-driver-0', '11', T0 + 5_000), [resume, status('resumed 1 jobs')]),
    entry(T0 + 5_500, undefined, [status('later pass of the loop')]),
    entry(T0 + 9_000, event('train-workers-0', '13', T0 + 9_000), []),
    // An original before the range, and its replay.
    entry(T0 - 5_000, event('train-driver-0', '9', T0 - 10_000), [status('old')]),
    entry(T0 + 120_000, event('train-driver-0', '9', T0 - 10_000, 'r1'), [], 'r1'),
    // The replay r1 of the range: the same decision, another one, and an event whose original was folded into a running loop.
    entry(T0 + 121_000, event('train-driver-0', '10', T0, 'r1'), [status('created')], 'r1'),
    entry(T0 + 122_000, event('train-driver-0', '11', T0 + 5_000, 'r1'), [status('nothing to resume')], 'r1'),
    entry(T0 + 123_000, event('train-workers-0', '12', T0 + 7_000, 'r1'), [], 'r1'),
    // Another replay's pass.
    entry(T0 + 200_000, event('train-driver-0', '10', T0, 'r2'), [resume], 'r2'),
  ];

  it("pairs each of the replay's events in the range with the original pass its event triggered, by the event's identity", () => {
    // Act
    const report = compareArchiveReplay(KEY, journal, 'r1', RANGE);
    // Assess
    assert.deepEqual(
      report.events.map((comparison) => [comparison.event.name, comparison.event.resourceVersion, comparison.result]),
      [
        ['train-driver-0', '10', 'same'],
        ['train-driver-0', '11', 'different'],
        ['train-workers-0', '12', 'no-original-pass'],
        ['train-workers-0', '13', 'not-replayed'],
      ],
    );
    assert.deepEqual([report.same, report.different, report.noOriginalPass, report.notReplayed], [1, 1, 1, 1]);
  });

  it('lists, for a pass that differs, each field of each action that differs', () => {
    const report = compareArchiveReplay(KEY, journal, 'r1', RANGE);
    const different = report.events.find((comparison) => comparison.result === 'different');
    assert.ok(different?.result === 'different');
    assert.deepEqual(different.original.actions, [resume, status('resumed 1 jobs')]);
    assert.deepEqual(different.replayed.actions, [status('nothing to resume')]);
    assert.deepEqual(
      different.differences.map((difference) => [difference.action, difference.field]),
      [[1, 'kind'], [1, 'target'], [1, 'code'], [1, 'message'], [1, 'digest'], [2, 'kind'], [2, 'target'], [2, 'code'], [2, 'message'], [2, 'digest']],
    );
  });

  it('reports every replayed event the same when the replay decided as the originals did', () => {
    const report = compareArchiveReplay(KEY, journal.slice(0, 1).concat(journal[6] ?? []), 'r1', RANGE);
    assert.deepEqual([report.same, report.different, report.noOriginalPass, report.notReplayed], [1, 0, 0, 0]);
  });

  it('is empty for a replay name the journal does not hold, every original of the range not replayed', () => {
    const report = compareArchiveReplay(KEY, journal, 'r9', RANGE);
    assert.deepEqual(report.events.map((comparison) => comparison.result), ['not-replayed', 'not-replayed', 'not-replayed']);
  });
});

describe('replay/archive: archiveReportText', () => {
  it('prints each event with both decisions, an action only one side has in one line, then the counts', () => {
    const original = [entry(T0 + 5_000, event('train-driver-0', '11', T0 + 5_000), [resume, status('resumed 1 jobs')])];
    const replayed = [entry(T0 + 122_000, event('train-driver-0', '11', T0 + 5_000, 'r1'), [status('nothing to resume')], 'r1')];
    const text = archiveReportText(compareArchiveReplay(KEY, [...original, ...replayed], 'r1', RANGE));
    assert.equal(
      text,
      [
        'prod/team/train:',
        '  Job Changed Job train-driver-0 rv 11 MODIFIED at 2026-01-01T12:00:05.000Z: different',
        '    original 2026-01-01T12:00:05.000Z: ResumeJob train-workers-0 GateOpened, UpdateJobSetStatus StatusChanged',
        '    replayed 2026-01-01T12:02:02.000Z: UpdateJobSetStatus StatusChanged',
        '      action 1 kind: original "ResumeJob", replayed "UpdateJobSetStatus"',
        '      action 1 target: original "train-workers-0", replayed ""',
        '      action 1 code: original "GateOpened", replayed "StatusChanged"',
        '      action 1 message: original "InOrder: driver Ready 1/1", replayed "nothing to resume"',
        '      action 1 digest: original "ResumeJob-train-workers-0-InOrder: driver Ready 1/1", replayed "UpdateJobSetStatus--nothing to resume"',
        '      action 2: original UpdateJobSetStatus StatusChanged: "resumed 1 jobs", replayed none',
        '  0 same, 1 different, 0 without an original pass, 0 not replayed',
        '',
      ].join('\n'),
    );
  });
});
