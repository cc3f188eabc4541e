/**
 * `lineup run [--kubeconfig F] [--context C]`: the whole controller locally against a real
 * cluster (the README's "Run against a cluster"), with a live timeline of passes; Ctrl-C flushes and exits cleanly.
 * `lineup history CLUSTER/NS/NAME`: a JobSet's journal from the same state directory.
 */
import { ReplayMessage } from './replay.ts';
import { StateDirError } from '../errors.ts';
import { CLUSTER_ID_PATTERN } from '../events/schema.ts';
import { readJobSetLimits, type JobSetLimits } from '../jobset/size.ts';
import { runLocal } from '../hosts/local.ts';
import { journalSource, UnusableJournalSource, type JournalSourceFlags } from './journalSource.ts';
import type { Log } from '../log.ts';
import { ExitCode, type CliIo } from './io.ts';
import { historyOf, historyText } from '../replay/history.ts';
import { newestPasses } from '../replay/historyWindow.ts';
import { recordingOf } from '../replay/recording.ts';
import { historyDrawing } from '../render/historyDrawing.ts';
import { renderTimelineHtml } from '../render/timelineHtml.ts';
import { JournalSourceMessage } from '../hosts/stateDir.ts';

/** HistoryMessage: what `lineup history` says instead of a journal. */
export const HistoryMessage = {
  /** The state directory holds no `lineup run` state (a typo, or run never ran there); nothing is created. */
  noState: (stateDir: string): string => JournalSourceMessage.noState('lineup history', stateDir),
} as const;

export { DEFAULT_STATE_DIR } from './journalSource.ts';

/** RunFlags: raw flags from commander. */
export interface RunFlags {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly cluster: string;
  readonly stateDir: string;
  readonly controllerName: string;
  readonly claimUnmanaged?: boolean | undefined;
  readonly journalKeepEnv?: boolean | undefined;
  readonly verbose?: boolean | undefined;
  /** The environment JobSet bounds are read from (LINEUP_MAX_JOBS_PER_JOBSET, LINEUP_MAX_PODS_PER_JOBSET, as the deployed reconciler reads them). @default none: the default bounds */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

const clock = (epochMs: number): string => new Date(epochMs).toISOString().slice(11, 19);

/** runCommand: `lineup run`; resolves on SIGINT/SIGTERM (exit 0) or a startup failure (exit 2). */
export const runCommand = async (flags: RunFlags, io: CliIo, signal: AbortSignal): Promise<number> => {
  const log: Log = (level, message, fields) => {
    if (flags.verbose || level !== 'debug') io.stderr(`${clock(Date.now())} ${level.padEnd(5)} ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);
  };
  // Refused before anything is contacted or created: the id names the event source lineup.<id>.
  if (!CLUSTER_ID_PATTERN.test(flags.cluster)) {
    io.stderr(`lineup run: --cluster ${JSON.stringify(flags.cluster)} is not a DNS label: expected ${CLUSTER_ID_PATTERN.source}\n`);
    return ExitCode.Usage;
  }
  let limits: JobSetLimits;
  try {
    limits = readJobSetLimits(flags.env ?? {});
  } catch (error) {
    io.stderr(`lineup run: ${(error as Error).message}\n`);
    return ExitCode.Usage;
  }
  try {
    const counters = await runLocal({
      clusterId: flags.cluster,
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      stateDir: flags.stateDir,
      planOptions: { controllerName: flags.controllerName, claimUnmanaged: flags.claimUnmanaged === true, limits },
      journalKeepEnv: flags.journalKeepEnv === true,
      log,
      signal,
      onPass: (key, plan) => io.stdout(`${clock(Date.now())}  ${key.namespace}/${key.name}  ${plan.reason}\n`),
    });
    io.stdout(`stopped; counters: ${JSON.stringify(counters)}\n`);
    return ExitCode.Ok;
  } catch (error) {
    // A state directory's refusal names its command already.
    io.stderr(error instanceof StateDirError ? `${error.message}\n` : `lineup run: ${(error as Error).message}\n`);
    return ExitCode.Usage;
  }
};

/** HistoryFlags: raw flags from commander (the journal's source, as export and replay take it). */
export interface HistoryFlags extends JournalSourceFlags {
  readonly limit?: string | undefined;
  readonly output?: string | undefined;
}

/**
 * historyCommand: print a JobSet's journal entries, the newest `--limit` of them (the ones being debugged,
 * usually), oldest of those first. Every entry is read: a delta entry's inputs are rebuilt from
 * the entries before it, gate timings start at the event of their loop, and the text says how
 * many passes --limit left out.
 */
export const historyCommand = async (target: string, flags: HistoryFlags, io: CliIo): Promise<number> => {
  const parts = target.split('/');
  const [cluster, namespace, name] = parts;
  if (parts.length !== 3 || !cluster || !namespace || !name) {
    io.stderr(`lineup history: expected CLUSTER/NAMESPACE/NAME, got ${JSON.stringify(target)}\n`);
    return ExitCode.Usage;
  }
  const limit = flags.limit === undefined ? 200 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit <= 0) {
    io.stderr(`lineup history: --limit must be a positive whole number, got ${flags.limit}\n`);
    return ExitCode.Usage;
  }
  try {
    const source = journalSource('lineup history', flags);
    const key = { cluster, namespace, name };
    const entries = await source.read((store) => store.listJournal(key));
    if (entries.length === 0) {
      // As export and replay: a JobSet with no pass is a mistyped target or the wrong source.
      io.stderr(`${ReplayMessage.unknownJobSet('lineup history', target, source.where)}\n`);
      return ExitCode.Usage;
    }
    if (flags.output === 'html') {
      io.stdout(renderTimelineHtml(historyDrawing(newestPasses(recordingOf(key, entries), limit))));
      return ExitCode.Ok;
    }
    const report = historyOf(key, entries, { limit });
    io.stdout(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : historyText(report));
    return ExitCode.Ok;
  } catch (error) {
    if (!(error instanceof UnusableJournalSource)) throw error;
    io.stderr(`${error.message}\n`);
    return ExitCode.Usage;
  }
};
