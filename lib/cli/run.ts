/**
 * `lineup run [--kubeconfig F] [--context C]`: the whole controller locally against a real
 * cluster (DESIGN §4), with a live timeline of decisions; Ctrl-C flushes and exits cleanly.
 * `lineup history CLUSTER/NS/NAME`: a JobSet's decision log from the same state directory.
 */
import { Counters } from '../counters.ts';
import { HistoryMessage } from '../constants.ts';
import { hasState, openStateStore, runLocal } from '../hosts/local.ts';
import type { Log } from '../log.ts';
import { ExitCode, type CliIo } from './io.ts';
import type { JournalAction } from '../store/types.ts';

/** Where `lineup run` keeps its state unless told otherwise. */
export const DEFAULT_STATE_DIR = '.lineup';

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

/** groupedActions: consecutive actions of one kind with one reason, counted (a startup creates many alike). */
const groupedActions = (actions: readonly JournalAction[]): { kind: string; code: string; message: string; count: number }[] => {
  const groups: { kind: string; code: string; message: string; count: number }[] = [];
  for (const action of actions) {
    const last = groups.at(-1);
    if (last && last.kind === action.kind && last.code === action.code && last.message === action.message) last.count += 1;
    else groups.push({ kind: action.kind, code: action.code, message: action.message, count: 1 });
  }
  return groups;
};

/** historyCommand: print a JobSet's decisions, oldest first. */
export const historyCommand = async (target: string, flags: { stateDir: string; limit?: string | undefined }, io: CliIo): Promise<number> => {
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
  // Opening the store would create the directory: a mistyped --state-dir must not leave one behind.
  if (!hasState(flags.stateDir)) {
    io.stderr(`${HistoryMessage.noState(flags.stateDir)}\n`);
    return ExitCode.Usage;
  }
  const { dynamo, store } = await openStateStore(flags.stateDir, new Counters());
  try {
    const entries = await store.listJournal({ cluster, namespace, name }, limit);
    if (entries.length === 0) {
      io.stdout(`no passes recorded for ${target} in ${flags.stateDir}\n`);
      return ExitCode.Ok;
    }
    for (const entry of entries) {
      const flagsText = [entry.applied ? '' : `not applied${entry.replayName ? ` (replay ${entry.replayName})` : ''}`, entry.error ? `error: ${entry.error}` : '']
        .filter((part) => part !== '')
        .join('; ');
      const actions = groupedActions(entry.actions).map((group) => `\n    ${group.kind}×${group.count} ${group.code}: ${group.message}`);
      io.stdout(`${new Date(entry.at).toISOString()}  ${entry.inputsDigest}  ${entry.reason}${flagsText ? `\n    ${flagsText}` : ''}${actions.join('')}\n`);
    }
    return ExitCode.Ok;
  } finally {
    await dynamo.stop();
  }
};
