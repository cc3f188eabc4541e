/**
 * What `lineup clusters status` says about a cluster, computed from what the store
 * keeps — pure: the facts and `now` go in, the status comes out. The forwarder's newest watch
 * checkpoint is its heartbeat (it rewrites one at least every HEARTBEAT_INTERVAL_MS:
 * lib/forwarder/heartbeat.ts), so that checkpoint's write time says whether the cluster is
 * watched and its age is the forwarder's lag; the journal gives the last hour's events, passes
 * and errors, and which JobSets are starting now.
 */
import { Reason } from '../jobset/api.ts';
import { ActionReasonCode } from '../plan/reasons.ts';
import { HEARTBEAT_CLOCK_SKEW_MS } from '../store/rules.ts';
import type { BookmarkRecord, ClusterHeartbeat, ClusterRecord, JobSetKey, JobSetState, JournalEntry } from '../store/types.ts';

/** HEARTBEAT_MISSING_MS: how long without a heartbeat makes a cluster unwatched (two and a half intervals of HEARTBEAT_INTERVAL_MS: one lost write is not a stop). */
export const HEARTBEAT_MISSING_MS = 5 * 60_000;

/**
 * checkpointHeartbeat: a cluster's heartbeat as its forwarder's checkpoints give it: the newest
 * bookmark's write time. No reconciler stamps it any more, so both times are the forwarder's
 * clock; heartbeatAheadOfClock refuses one stamped more than HEARTBEAT_CLOCK_SKEW_MS ahead, so a
 * stopped forwarder's last write keeps its cluster watched for at most the missing time plus that
 * skew. `intervalMs` is the interval the forwarders are configured with (the item does not say).
 */
export const checkpointHeartbeat = (cluster: string, bookmarks: readonly BookmarkRecord[], intervalMs: number): ClusterHeartbeat | undefined => {
  const newest = bookmarks.reduce<number | undefined>((max, bookmark) => (max === undefined || bookmark.updatedAt > max ? bookmark.updatedAt : max), undefined);
  // A bookmark written without a time (read as 0) by a forwarder before checkpoints carried one says nothing about now.
  return newest === undefined || newest <= 0 ? undefined : { cluster, sentAt: newest, receivedAt: newest, intervalMs };
};
/** STATS_WINDOW_MS: the window of the events, passes and errors `status` counts. */
export const STATS_WINDOW_MS = 60 * 60_000;

/** Whether a cluster's forwarder is heard from: within the missing time, not since then, or never. */
export type WatchState = 'watched' | 'unwatched' | 'never';

/**
 * heartbeatAheadOfClock: whether a heartbeat claims times no genuine one can have — received more
 * than HEARTBEAT_CLOCK_SKEW_MS after `now`, or sent that long after it was received — so it is not
 * believed: a forged or broken time must not keep a cluster watched (docs/security.md).
 */
export const heartbeatAheadOfClock = (heartbeat: ClusterHeartbeat, now: number): boolean =>
  heartbeat.receivedAt > now + HEARTBEAT_CLOCK_SKEW_MS || heartbeat.sentAt > heartbeat.receivedAt + HEARTBEAT_CLOCK_SKEW_MS;

/**
 * watchState: `watched` when the newest heartbeat was received no longer than `missingAfterMs`
 * before `now`; a heartbeat ahead of the clock (heartbeatAheadOfClock) leaves the cluster
 * unwatched.
 */
export const watchState = (heartbeat: ClusterHeartbeat | undefined, now: number, missingAfterMs: number): WatchState => {
  if (heartbeat === undefined) return 'never';
  if (heartbeatAheadOfClock(heartbeat, now)) return 'unwatched';
  return now - heartbeat.receivedAt <= missingAfterMs ? 'watched' : 'unwatched';
};

/** The facts status is computed from: what the store keeps about one cluster. */
export interface ClusterFacts {
  readonly id: string;
  /** Its registry entry; absent for a cluster only `lineup run` knows (no entry). */
  readonly record?: ClusterRecord | undefined;
  readonly heartbeat?: ClusterHeartbeat | undefined;
  readonly bookmarks: readonly BookmarkRecord[];
  /** Its JobSets, each with the journal entries read for it (none for a finished one quiet for longer than the window). */
  readonly jobSets: readonly { readonly state: JobSetState; readonly journal: readonly JournalEntry[] }[];
}

/** A JobSet held back by a startup gate, and since when. */
export interface StartingJobSet {
  readonly key: JobSetKey;
  /** Epoch ms of the pass that first held a Job back in the current startup. */
  readonly since: number;
}

/** ClusterStatus: one cluster's line of `lineup clusters status` (and its JSON). */
export interface ClusterStatus {
  readonly id: string;
  /** The auth kind of its registry entry (eks, token, kubeconfig), or `unregistered`. */
  readonly auth: string;
  readonly endpoint?: string | undefined;
  readonly watch: WatchState;
  /**
   * The newest heartbeat: when it was sent and received (epoch ms), and the forwarder's interval;
   * `aheadOfClock` when its times are not believed (heartbeatAheadOfClock: the cluster is unwatched).
   */
  readonly heartbeat?:
    | { readonly sentAt: number; readonly receivedAt: number; readonly ageMs: number; readonly intervalMs: number; readonly aheadOfClock?: true | undefined }
    | undefined;
  /**
   * The newest bookmark's write time and age: how far behind the forwarder's checkpoint is. The
   * time is the forwarder's own clock, so it is shown, never used to judge whether the cluster is watched.
   */
  readonly lag?: { readonly bookmarkAt: number; readonly ageMs: number } | undefined;
  /** The last STATS_WINDOW_MS: events the journal names, journaled passes, and passes that failed. */
  readonly lastHour: { readonly events: number; readonly passes: number; readonly errors: number };
  readonly jobSets: number;
  /** JobSets whose last pass loop failed (the resync retries them). */
  readonly failing: number;
  /** JobSets a startup gate holds back now, the oldest first. */
  readonly starting: readonly StartingJobSet[];
}

/** Codes after which nothing of the JobSet is starting any more (finished, deleted, invalid). */
const ENDS_STARTUP: ReadonlySet<string> = new Set([
  ActionReasonCode.JobSetFinished,
  ActionReasonCode.TtlExpired,
  ActionReasonCode.JobSetInvalid,
  ActionReasonCode.SuccessPolicyMet,
]);
/** Codes that release (or suspend from outside) the Job they name. */
const RELEASES_JOB: ReadonlySet<string> = new Set([ActionReasonCode.GateOpened, ActionReasonCode.AlreadyRunning, ActionReasonCode.JobSetSuspended]);
/** The startup condition reasons a ConditionChanged action's message starts with (`<reason>: <message>`). */
const STARTUP_IN_PROGRESS = [Reason.InOrderStartupPolicyInProgress, Reason.DependsOnStartupInProgress, Reason.StartupRulesInProgress];
const STARTUP_COMPLETED = [Reason.InOrderStartupPolicyCompleted, Reason.DependsOnStartupCompleted, Reason.StartupRulesCompleted];
const startsWithReason = (message: string, reasons: readonly string[]): boolean => reasons.some((reason) => message.startsWith(`${reason}:`));

/**
 * startingSince: when the JobSet's current startup began, or undefined when it is not starting.
 * Walking the applied passes in time order, a JobSet is starting while its startup condition says
 * in progress (the ConditionChanged actions: InProgress until Completed) or a Job is held back (a
 * StartupRuleHeld action naming it, until GateOpened, AlreadyRunning or JobSetSuspended names it);
 * finishing, TTL deletion or rejection ends it. The startup began at the pass that started it.
 */
export const startingSince = (journal: readonly JournalEntry[]): number | undefined => {
  const held = new Set<string>();
  let inProgress = false;
  let since: number | undefined;
  for (const entry of [...journal].sort((a, b) => a.at - b.at)) {
    if (!entry.applied) continue;
    for (const action of entry.actions) {
      if (ENDS_STARTUP.has(action.code)) {
        held.clear();
        inProgress = false;
      } else if (action.code === ActionReasonCode.ConditionChanged) {
        if (startsWithReason(action.message, STARTUP_IN_PROGRESS)) inProgress = true;
        else if (startsWithReason(action.message, STARTUP_COMPLETED)) {
          inProgress = false;
          held.clear();
        }
      } else if (action.code === ActionReasonCode.StartupRuleHeld) held.add(action.target);
      else if (RELEASES_JOB.has(action.code)) held.delete(action.target);
    }
    const starting = inProgress || held.size > 0;
    if (!starting) since = undefined;
    else since ??= entry.at;
  }
  return since;
};

/** clusterStatus: the status of one cluster at `now`. */
export const clusterStatus = (facts: ClusterFacts, now: number, missingAfterMs: number = HEARTBEAT_MISSING_MS): ClusterStatus => {
  const { heartbeat } = facts;
  const newest = facts.bookmarks.reduce<number | undefined>((max, bookmark) => (max === undefined || bookmark.updatedAt > max ? bookmark.updatedAt : max), undefined);
  const windowStart = now - STATS_WINDOW_MS;
  let events = 0;
  let passes = 0;
  let errors = 0;
  const starting: StartingJobSet[] = [];
  for (const { state, journal } of facts.jobSets) {
    for (const entry of journal) {
      if (entry.at < windowStart || entry.at > now) continue;
      passes += 1;
      events += entry.triggers.length;
      if (entry.error !== undefined) errors += 1;
    }
    // As of `now`: the journal up to then (the state item's `finished` is today's, not then's; a finished startup ends in the journal too).
    const since = startingSince(journal.filter((entry) => entry.at <= now));
    if (since !== undefined) starting.push({ key: state.key, since });
  }
  starting.sort((a, b) => a.since - b.since || `${a.key.namespace}/${a.key.name}`.localeCompare(`${b.key.namespace}/${b.key.name}`));
  return {
    id: facts.id,
    auth: facts.record?.auth.type ?? 'unregistered',
    ...(facts.record === undefined ? {} : { endpoint: facts.record.endpoint }),
    watch: watchState(heartbeat, now, missingAfterMs),
    ...(heartbeat === undefined
      ? {}
      : {
          heartbeat: {
            sentAt: heartbeat.sentAt,
            receivedAt: heartbeat.receivedAt,
            ageMs: now - heartbeat.receivedAt,
            intervalMs: heartbeat.intervalMs,
            ...(heartbeatAheadOfClock(heartbeat, now) ? { aheadOfClock: true as const } : {}),
          },
        }),
    ...(newest === undefined ? {} : { lag: { bookmarkAt: newest, ageMs: now - newest } }),
    lastHour: { events, passes, errors },
    jobSets: facts.jobSets.length,
    failing: facts.jobSets.filter(({ state }) => state.lastError !== undefined).length,
    starting,
  };
};
