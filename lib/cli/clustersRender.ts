/**
 * How `lineup clusters list` and `status` print: text for a person, and the JSON shapes docs/fleet.md
 * documents (fields are only ever added). A registry entry's literal bearer token is never printed.
 */
import { formatDuration } from '../duration.ts';
import type { ClusterStatus } from '../fleet/status.ts';
import type { ClusterRecord } from '../store/types.ts';

/** CLUSTERS_STATUS_FORMAT: the `format` of `lineup clusters status --output json`. */
export const CLUSTERS_STATUS_FORMAT = 'lineup.dev/clusters-status/v1';

/** age: a duration as a person reads it: whole seconds from a second on, milliseconds below. */
const age = (ms: number): string => formatDuration(Math.max(0, ms < 1000 ? Math.round(ms) : Math.round(ms / 1000) * 1000));

/** iso: epoch ms as ISO 8601 UTC. */
const iso = (ms: number): string => new Date(ms).toISOString();

/** publicRecord: a registry entry as printed — a literal token replaced by `(set)`. */
export const publicRecord = (record: ClusterRecord): ClusterRecord =>
  record.auth.type === 'token' && record.auth.token !== undefined ? { ...record, auth: { ...record.auth, token: '(set)' } } : record;

/** authText: an entry's auth in a few words. */
const authText = (record: ClusterRecord): string => {
  switch (record.auth.type) {
    case 'eks':
      return `eks ${record.auth.clusterName} (${record.auth.region})${record.auth.roleArn === undefined ? '' : ` as ${record.auth.roleArn}`}`;
    case 'token':
      return record.auth.tokenSecretArn === undefined ? 'token' : `token from ${record.auth.tokenSecretArn}`;
    case 'kubeconfig':
      return `kubeconfig ${record.auth.path}${record.auth.context === undefined ? '' : ` (${record.auth.context})`}`;
  }
};

/** listText: one line per registered cluster: id, endpoint, auth. */
export const listText = (records: readonly ClusterRecord[], where: string): string =>
  records.length === 0 ? `no clusters registered in ${where}\n` : records.map((record) => `${record.id}  ${record.endpoint}  ${authText(record)}\n`).join('');

/** listJson: `{clusters: [registry entries]}`. */
export const listJson = (records: readonly ClusterRecord[]): string => `${JSON.stringify({ clusters: records.map(publicRecord) }, null, 2)}\n`;

/** watchText: the heartbeat part of a status line (the heartbeat is the forwarder's newest checkpoint write: lib/fleet/status.ts checkpointHeartbeat). */
const watchText = (status: ClusterStatus, missingAfterMs: number): string => {
  const { heartbeat } = status;
  if (status.watch === 'never') return 'UNWATCHED: no forwarder checkpoint ever written; the resync polls its jobsets';
  if (heartbeat === undefined) return status.watch;
  if (heartbeat.aheadOfClock === true) {
    return `UNWATCHED: the newest checkpoint claims a time ahead of this clock (${iso(heartbeat.sentAt)}), not believed; the resync polls its jobsets`;
  }
  if (status.watch === 'unwatched') {
    return `UNWATCHED: no heartbeat for ${age(heartbeat.ageMs)} (missing after ${age(missingAfterMs)}), the last checkpoint written ${iso(heartbeat.sentAt)}; the resync polls its jobsets`;
  }
  return `watched: heartbeat ${age(heartbeat.ageMs)} ago (a checkpoint at least every ${age(heartbeat.intervalMs)})`;
};

/** statusText: three lines per cluster: who and whether watched; the last hour; what is starting. */
export const statusText = (statuses: readonly ClusterStatus[], where: string, now: number, missingAfterMs: number): string => {
  if (statuses.length === 0) return `no clusters in ${where}\n`;
  const lines = [`${where} at ${iso(now)}`];
  for (const status of statuses) {
    const lag = status.lag === undefined ? 'no bookmark yet' : `lag ${age(status.lag.ageMs)} (newest bookmark ${iso(status.lag.bookmarkAt)})`;
    lines.push(`${status.id}  ${status.auth}  ${watchText(status, missingAfterMs)}; ${lag}`);
    const { events, passes, errors } = status.lastHour;
    lines.push(`  last hour: ${events} events, ${passes} passes, ${errors} errors; ${status.jobSets} jobsets, ${status.failing} failing`);
    const [oldest] = status.starting;
    lines.push(
      oldest === undefined
        ? '  starting now: none'
        : `  starting now: ${status.starting.length}, the oldest ${oldest.key.namespace}/${oldest.key.name} since ${iso(oldest.since)} (${age(now - oldest.since)})`,
    );
  }
  return `${lines.join('\n')}\n`;
};

/** statusJson: the JSON of `status --output json`. */
export const statusJson = (statuses: readonly ClusterStatus[], where: string, now: number, missingAfterMs: number): string =>
  `${JSON.stringify(
    {
      format: CLUSTERS_STATUS_FORMAT,
      source: where,
      at: iso(now),
      missingAfterMs,
      clusters: statuses.map((status) => ({
        ...status,
        starting: { count: status.starting.length, jobSets: status.starting.map((item) => ({ ...item.key, since: iso(item.since) })) },
      })),
    },
    null,
    2,
  )}\n`;
