/**
 * A cluster's status from the store's facts (pure): watched within the missing time, unwatched
 * after it, never without a heartbeat; the lag from the newest bookmark; the last hour's events,
 * passes and errors; and which JobSets are starting, by the journal's startup actions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterStatus, startingSince, STATS_WINDOW_MS, watchState } from '../../lib/fleet/status.ts';
import { HEARTBEAT_CLOCK_SKEW_MS } from '../../lib/store/rules.ts';
import type { JobSetKey, JobSetState, JournalAction, JournalEntry } from '../../lib/store/types.ts';
import { makeJournalEntry } from '../store/storeBehaviour.ts';

const T = Date.parse('2026-03-01T12:00:00Z');
const key = (name: string): JobSetKey => ({ cluster: 'c1', namespace: 'ns', name });
const act = (code: string, target: string, message = ''): JournalAction => ({ kind: 'Action', target, code, message, digest: 'd' });
const pass = (name: string, at: number, actions: JournalAction[], extra: Partial<JournalEntry> = {}): JournalEntry => makeJournalEntry(key(name), at, { actions, ...extra });
const state = (name: string, extra: Partial<JobSetState> = {}): JobSetState => ({ key: key(name), dirty: 1, reconciled: 1, updatedAt: T, ...extra });

describe('fleet/status', () => {
  it('watchState: watched up to the missing time after the last heartbeat was received, then unwatched; never without one', () => {
    const heartbeat = { cluster: 'c1', sentAt: T - 10, receivedAt: T, intervalMs: 60_000 };
    assert.equal(watchState(heartbeat, T + 300_000, 300_000), 'watched');
    assert.equal(watchState(heartbeat, T + 300_001, 300_000), 'unwatched');
    assert.equal(watchState(undefined, T, 300_000), 'never');
  });

  it('watchState: a heartbeat received or sent beyond the clock-skew allowance ahead is not believed', () => {
    const ahead = { cluster: 'c1', sentAt: T + 1_000, receivedAt: T + HEARTBEAT_CLOCK_SKEW_MS + 1, intervalMs: 60_000 };
    assert.equal(watchState(ahead, T, 300_000), 'unwatched', 'received after now: not the reconciler clock of a heartbeat that came');
    assert.equal(watchState({ ...ahead, receivedAt: T + HEARTBEAT_CLOCK_SKEW_MS }, T, 300_000), 'watched', 'within the allowance: clocks differ a little');
    assert.equal(watchState({ cluster: 'c1', sentAt: T + HEARTBEAT_CLOCK_SKEW_MS + 1, receivedAt: T, intervalMs: 60_000 }, T, 300_000), 'unwatched', 'sent after it was received');
    const status = clusterStatus({ id: 'c1', heartbeat: ahead, bookmarks: [], jobSets: [] }, T);
    assert.equal(status.watch, 'unwatched');
    assert.equal(status.heartbeat?.aheadOfClock, true);
    assert.equal(clusterStatus({ id: 'c1', heartbeat: { ...ahead, receivedAt: T }, bookmarks: [], jobSets: [] }, T).heartbeat?.aheadOfClock, undefined);
  });

  describe('startingSince', () => {
    it('InOrder: from the pass that held the first Job until the startup condition says completed', () => {
      const journal = [
        pass('a', T, [act('GateOpened', 'a-mq-0'), act('StartupRuleHeld', 'a-driver-0'), act('ConditionChanged', '', 'InOrderStartupPolicyInProgress: waiting')]),
        pass('a', T + 5, [act('GateOpened', 'a-driver-0')]),
      ];
      assert.equal(startingSince(journal), T, 'every Job released, but the last stage is not Ready yet');
      assert.equal(startingSince([...journal, pass('a', T + 9, [act('ConditionChanged', '', 'InOrderStartupPolicyCompleted: in order startup policy has completed')])]), undefined);
    });

    it('dependsOn without conditions: while a Job is held; suspended from outside is not starting; a restart starts again', () => {
      const held = [pass('b', T, [act('StartupRuleHeld', 'b-w-0'), act('StartupRuleHeld', 'b-w-1')]), pass('b', T + 1, [act('GateOpened', 'b-w-0')])];
      assert.equal(startingSince(held), T);
      assert.equal(startingSince([...held, pass('b', T + 2, [act('JobSetSuspended', 'b-w-1')])]), undefined);
      const restarted = [...held, pass('b', T + 2, [act('GateOpened', 'b-w-1')]), pass('b', T + 50, [act('StartupRuleHeld', 'b-w-0')])];
      assert.equal(startingSince(restarted), T + 50);
    });

    it('ends with the JobSet: finished, its TTL, or rejected; replayed passes (not applied) do not count', () => {
      const held = pass('c', T, [act('StartupRuleHeld', 'c-w-0')]);
      for (const code of ['JobSetFinished', 'TtlExpired', 'JobSetInvalid', 'SuccessPolicyMet']) assert.equal(startingSince([held, pass('c', T + 1, [act(code, '')])]), undefined, code);
      assert.equal(startingSince([pass('c', T, [act('StartupRuleHeld', 'c-w-0')], { applied: false })]), undefined);
    });
  });

  it('clusterStatus: auth, lag, the last hour only, errors, failing JobSets, and the starting ones oldest first', () => {
    const now = T + 2 * STATS_WINDOW_MS;
    const status = clusterStatus(
      {
        id: 'c1',
        record: { id: 'c1', endpoint: 'https://k8s.example', auth: { type: 'eks', clusterName: 'c1', region: 'eu-west-1' } },
        heartbeat: { cluster: 'c1', sentAt: now - 61_000, receivedAt: now - 60_000, intervalMs: 60_000 },
        bookmarks: [
          { resource: 'jobs', resourceVersion: '9', updatedAt: now - 4_000 },
          { resource: 'jobsets', resourceVersion: '7', updatedAt: now - 90_000 },
        ],
        jobSets: [
          { state: state('old'), journal: [pass('old', now - STATS_WINDOW_MS - 1, [])] },
          { state: state('young', { lastError: 'boom' }), journal: [pass('young', now - 10, [act('StartupRuleHeld', 'young-w-0')], { error: 'boom' })] },
          { state: state('older'), journal: [pass('older', now - 1_000, [act('StartupRuleHeld', 'older-w-0')]), pass('older', now - 500, [])] },
          { state: state('later'), journal: [pass('later', now + 1, [act('StartupRuleHeld', 'later-w-0')])] },
        ],
      },
      now,
      300_000,
    );
    assert.deepEqual(status, {
      id: 'c1',
      auth: 'eks',
      endpoint: 'https://k8s.example',
      watch: 'watched',
      heartbeat: { sentAt: now - 61_000, receivedAt: now - 60_000, ageMs: 60_000, intervalMs: 60_000 },
      lag: { bookmarkAt: now - 4_000, ageMs: 4_000 },
      // young, older ×2: one trigger each (makeJournalEntry); old is outside the hour, later after now.
      lastHour: { events: 3, passes: 3, errors: 1 },
      jobSets: 4,
      failing: 1,
      starting: [
        { key: key('older'), since: now - 1_000 },
        { key: key('young'), since: now - 10 },
      ],
    });
    const bare = clusterStatus({ id: 'local', bookmarks: [], jobSets: [] }, now);
    assert.deepEqual([bare.auth, bare.watch, bare.heartbeat, bare.lag], ['unregistered', 'never', undefined, undefined]);
  });
});
