/**
 * readClusterFacts: what the store keeps about one cluster, read for `lineup clusters status`
 * (lib/fleet/status.ts computes the status from it). The heartbeat is the forwarder's newest
 * watch checkpoint (checkpointHeartbeat). The journal is read for JobSets that may still start or
 * that wrote within the stats window; a finished JobSet quiet for longer is counted without
 * reading its journal, so a long history costs one listing, not a read per pass.
 */
import { HEARTBEAT_INTERVAL_MS } from '../forwarder/heartbeat.ts';
import type { BookmarkStore, ClusterRecord, JobSetStateStore, JournalStore } from '../store/types.ts';
import { checkpointHeartbeat, STATS_WINDOW_MS, type ClusterFacts } from './status.ts';

/** readClusterFacts: the facts of cluster `id` (its registry entry when it has one) as of `now`. */
export const readClusterFacts = async (
  store: Pick<BookmarkStore, 'listBookmarks'> & Pick<JobSetStateStore, 'listJobSets'> & Pick<JournalStore, 'listJournal'>,
  id: string,
  record: ClusterRecord | undefined,
  now: number,
): Promise<ClusterFacts> => {
  const [bookmarks, states] = await Promise.all([store.listBookmarks(id), store.listJobSets(id)]);
  const jobSets = [];
  for (const state of states) {
    const quiet = state.finished === true && state.updatedAt < now - STATS_WINDOW_MS;
    jobSets.push({ state, journal: quiet ? [] : await store.listJournal(state.key) });
  }
  return { id, record, heartbeat: checkpointHeartbeat(id, bookmarks, HEARTBEAT_INTERVAL_MS), bookmarks, jobSets };
};
