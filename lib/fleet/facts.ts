/**
 * readClusterFacts: what the store keeps about one cluster, read for `lineup clusters status`
 * (lib/fleet/status.ts computes the status from it). The journal is read for JobSets that may
 * still start or that wrote within the stats window; a finished JobSet quiet for longer is counted
 * without reading its journal, so a long history costs one listing, not a read per pass.
 */
import type { CheckpointStore, ClusterRecord } from '../store/types.ts';
import { STATS_WINDOW_MS, type ClusterFacts } from './status.ts';

/** readClusterFacts: the facts of cluster `id` (its registry entry when it has one) as of `now`. */
export const readClusterFacts = async (store: CheckpointStore, id: string, record: ClusterRecord | undefined, now: number): Promise<ClusterFacts> => {
  const [heartbeat, bookmarks, states] = await Promise.all([store.getHeartbeat(id), store.listBookmarks(id), store.listJobSets(id)]);
  const jobSets = [];
  for (const state of states) {
    const quiet = state.finished === true && state.updatedAt < now - STATS_WINDOW_MS;
    jobSets.push({ state, journal: quiet ? [] : await store.listJournal(state.key) });
  }
  return { id, record, heartbeat, bookmarks, jobSets };
};
