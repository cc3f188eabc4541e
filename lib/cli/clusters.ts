/**
 * `lineup clusters list | add | remove | status`: the cluster registry and the fleet's
 * health, from a local state directory or the deployed table (`--table NAME --region R`), as
 * `history` reads them (lib/cli/journalSource.ts).
 */
import { InvalidInputError } from '../errors.ts';
import { readClusterFacts } from '../fleet/facts.ts';
import { clusterRecordOf, nextSteps, type AddClusterFlags } from '../fleet/registration.ts';
import { clusterStatus, HEARTBEAT_MISSING_MS, type ClusterStatus } from '../fleet/status.ts';
import { parseDurationFlag } from '../duration.ts';
import { listJson, listText, statusJson, statusText } from './clustersRender.ts';
import { ExitCode, type CliIo } from './io.ts';
import { journalSource, UnusableJournalSource, type JournalSource, type JournalSourceFlags } from './journalSource.ts';

/** ClustersMessage: the lines `lineup clusters` prints about the registry. */
export const ClustersMessage = {
  alreadyRegistered: (id: string, where: string): string => `lineup clusters add: cluster ${id} is already registered in ${where}: expected a new id (lineup clusters remove ${id} first to replace it)`,
  notRegistered: (id: string, where: string): string => `lineup clusters remove: cluster ${id} is not registered in ${where}: expected one of lineup clusters list`,
  removed: (id: string, where: string): string =>
    `removed cluster ${id} from ${where}: its events are dropped from now on (a warm reconciler that already connected to it serves it until it restarts); its JobSets' state, bookmarks and journal stay (the journal until its TTL). A cluster of the stack's configuration is removed there, then deployed. Uninstall its forwarder (docs/deploy.md, Remove).`,
  unknown: (id: string, where: string): string => `lineup clusters status: cluster ${id} is unknown in ${where}: not registered, and no heartbeat, bookmark or JobSet recorded`,
} as const;

/** The cluster `lineup run` records under unless told otherwise: listed by status when it holds anything, registered or not. */
const DEFAULT_RUN_CLUSTER = 'local';

/** ClustersFlags: where the registry is, and how to print. */
export interface ClustersFlags extends JournalSourceFlags {
  readonly output?: string | undefined;
}

/** StatusFlags: status's own flags. */
export interface StatusFlags extends ClustersFlags {
  /** Evaluate as of this time (ISO 8601): a demo's state directory keeps virtual time. @default now */
  readonly at?: string | undefined;
  /** How long without a heartbeat makes a cluster unwatched. @default HEARTBEAT_MISSING_MS */
  readonly missingAfter?: string | undefined;
}

/**
 * withSource: run `work` on the flags' source — which reads it (source.read), or writes the
 * registry as the state directory's one writer (source.write) — unusable flags or an unreadable
 * source are one line and exit 2.
 */
const withSource = async (command: string, flags: JournalSourceFlags, io: CliIo, work: (source: JournalSource) => Promise<number>): Promise<number> => {
  try {
    return await work(journalSource(command, flags));
  } catch (error) {
    if (!(error instanceof UnusableJournalSource) && !(error instanceof InvalidInputError)) throw error;
    io.stderr(`${error instanceof InvalidInputError ? `${command}: ` : ''}${error.message}\n`);
    return ExitCode.Usage;
  }
};

/** clustersListCommand: every registry entry. */
export const clustersListCommand = (flags: ClustersFlags, io: CliIo): Promise<number> =>
  withSource('lineup clusters list', flags, io, (source) =>
    source.read(async (store) => {
      const records = await store.listClusters();
      io.stdout(flags.output === 'json' ? listJson(records) : listText(records, source.where));
      return ExitCode.Ok;
    }),
  );

/** clustersAddCommand: validate and register a cluster (refused when its id is taken), then say what to install next. */
export const clustersAddCommand = async (id: string, flags: ClustersFlags & AddClusterFlags, io: CliIo): Promise<number> => {
  let record;
  try {
    record = clusterRecordOf(id, flags, io.readFile);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    io.stderr(`lineup clusters add: ${error.message}\n`);
    return ExitCode.Usage;
  }
  return withSource('lineup clusters add', flags, io, (source) =>
    source.write(async (store) => {
      if (!(await store.addCluster(record))) {
        io.stderr(`${ClustersMessage.alreadyRegistered(id, source.where)}\n`);
        return ExitCode.Usage;
      }
      io.stdout(`registered cluster ${id} (${record.auth.type}, ${record.endpoint}) in ${source.where}\n${nextSteps(record).join('\n')}\n`);
      return ExitCode.Ok;
    }),
  );
};

/** clustersRemoveCommand: delete a registry entry; its state stays. */
export const clustersRemoveCommand = (id: string, flags: ClustersFlags, io: CliIo): Promise<number> =>
  withSource('lineup clusters remove', flags, io, (source) =>
    source.write(async (store) => {
      if ((await store.getCluster(id)) === undefined) {
        io.stderr(`${ClustersMessage.notRegistered(id, source.where)}\n`);
        return ExitCode.Usage;
      }
      await store.deleteCluster(id);
      io.stdout(`${ClustersMessage.removed(id, source.where)}\n`);
      return ExitCode.Ok;
    }),
  );

/** timeOf: epoch ms of an ISO 8601 --at. */
const timeOf = (at: string): number => {
  const ms = Date.parse(at);
  if (!Number.isFinite(ms)) throw new InvalidInputError(`--at ${JSON.stringify(at)} is not a time: expected ISO 8601, e.g. 2026-01-01T12:00:00Z`);
  return ms;
};

/** missingAfterOf: milliseconds of --missing-after, finite and positive. */
const missingAfterOf = (text: string): number => {
  const ms = parseDurationFlag('--missing-after', text);
  if (!Number.isFinite(ms) || ms <= 0) throw new InvalidInputError(`--missing-after ${JSON.stringify(text)}: expected a positive duration, e.g. 5m`);
  return ms;
};

/**
 * clustersStatusCommand: the status of the named clusters, or of every registered one (and
 * `local` when it holds anything): exit 0 when every one is watched, 1 when one is not.
 */
export const clustersStatusCommand = async (ids: readonly string[], flags: StatusFlags, io: CliIo, now: () => number = Date.now): Promise<number> => {
  let at: number;
  let missingAfterMs: number;
  try {
    at = flags.at === undefined ? now() : timeOf(flags.at);
    missingAfterMs = flags.missingAfter === undefined ? HEARTBEAT_MISSING_MS : missingAfterOf(flags.missingAfter);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    io.stderr(`lineup clusters status: ${error.message}\n`);
    return ExitCode.Usage;
  }
  return withSource('lineup clusters status', flags, io, (source) => source.read(async (store) => {
    const where = source.where;
    const records = new Map((await store.listClusters()).map((record) => [record.id, record] as const));
    let targets = [...ids];
    if (targets.length === 0) {
      targets = [...records.keys()];
      if (!records.has(DEFAULT_RUN_CLUSTER) && ((await store.listJobSets(DEFAULT_RUN_CLUSTER)).length > 0 || (await store.listBookmarks(DEFAULT_RUN_CLUSTER)).length > 0)) {
        targets.unshift(DEFAULT_RUN_CLUSTER);
      }
    }
    const statuses: ClusterStatus[] = [];
    for (const id of targets) {
      const facts = await readClusterFacts(store, id, records.get(id), at);
      if (facts.record === undefined && facts.heartbeat === undefined && facts.jobSets.length === 0 && facts.bookmarks.length === 0) {
        io.stderr(`${ClustersMessage.unknown(id, where)}\n`);
        return ExitCode.Usage;
      }
      statuses.push(clusterStatus(facts, at, missingAfterMs));
    }
    io.stdout(flags.output === 'json' ? statusJson(statuses, where, at, missingAfterMs) : statusText(statuses, where, at, missingAfterMs));
    return statuses.every((status) => status.watch === 'watched') ? ExitCode.Ok : ExitCode.Invalid;
  }));
};
