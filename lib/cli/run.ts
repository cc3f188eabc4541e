/**
 * `lineup run [--kubeconfig F] [--context C]`: the whole controller locally against a real
 * cluster (DESIGN §4), with a live timeline of decisions; Ctrl-C flushes and exits cleanly.
 * `lineup history CLUSTER/NS/NAME`: a JobSet's decision log from the same state directory.
 */
import { runLocal } from '../hosts/local.ts';
import { journalSource, UnusableJournalSource, type JournalSourceFlags } from './journalSource.ts';
import type { Log } from '../log.ts';
import { ExitCode, type CliIo } from './io.ts';
import { historyOf, historyText } from '../replay/history.ts';
import { recordingOf } from '../replay/recording.ts';
import { historyDrawing } from '../render/historyDrawing.ts';
import { renderTimelineHtml } from '../render/timelineHtml.ts';

export { DEFAULT_STATE_DIR } from './journalSource.ts';

/** RunFlags: raw flags from commander. */
export interface RunFlags {
  readonly kubeconfig?: string | undefined;
  readonly context?: string | undefined;
  readonly cluster: string;
  readonly stateDir: string;
  readonly controllerName: string;
  readonly claimUnmanaged?: boolean | undefined;
  readonly verbose?: boolean | undefined;
}

const clock = (epochMs: number): string => new Date(epochMs).toISOString().slice(11, 19);

/** runCommand: `lineup run`; resolves on SIGINT/SIGTERM (exit 0) or a startup failure (exit 2). */
export const runCommand = async (flags: RunFlags, io: CliIo, signal: AbortSignal): Promise<number> => {
  const log: Log = (level, message, fields) => {
    if (flags.verbose || level !== 'debug') io.stderr(`${clock(Date.now())} ${level.padEnd(5)} ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);
  };
  try {
    const counters = await runLocal({
      clusterId: flags.cluster,
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      stateDir: flags.stateDir,
      planOptions: { controllerName: flags.controllerName, claimUnmanaged: flags.claimUnmanaged === true },
      log,
      signal,
      onPass: (key, plan) => io.stdout(`${clock(Date.now())}  ${key.namespace}/${key.name}  ${plan.reason}\n`),
    });
    io.stdout(`stopped; counters: ${JSON.stringify(counters)}\n`);
    return ExitCode.Ok;
  } catch (error) {
    io.stderr(`lineup run: ${(error as Error).message}\n`);
    return ExitCode.Usage;
  }
};

/** HistoryFlags: raw flags from commander (the journal's source, as export and replay take it). */
export interface HistoryFlags extends JournalSourceFlags {
  readonly limit?: string | undefined;
  readonly output?: string | undefined;
}

/** historyCommand: print a JobSet's decisions, oldest first. */
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
    const entries = await source.read((store) => store.listJournal(key, limit));
    if (entries.length === 0) {
      // An HTML page goes to a file: the note must not become its content.
      (flags.output === 'html' ? io.stderr : io.stdout)(`no passes recorded for ${target} in ${source.where}\n`);
      return ExitCode.Ok;
    }
    if (flags.output === 'html') {
      io.stdout(renderTimelineHtml(historyDrawing(recordingOf(key, entries))));
      return ExitCode.Ok;
    }
    const report = historyOf(key, entries);
    io.stdout(flags.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : historyText(report));
    return ExitCode.Ok;
  } catch (error) {
    if (!(error instanceof UnusableJournalSource)) throw error;
    io.stderr(`${error.message}\n`);
    return ExitCode.Usage;
  }
};
