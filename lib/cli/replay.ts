/**
 * `lineup export CLUSTER/NS/NAME`: a JobSet's journal as a self-contained recording (JSON on
 * stdout). `lineup replay FILE|CLUSTER/NS/NAME | --all`: today's planner over every recorded
 * pass, pass by pass same or different; exit 0 all same, 1 any difference, 2 unusable input.
 */
import { InvalidInputError } from '../errors.ts';
import { readErrorDetail } from '../jobset/load.ts';
import { parseRecording, recordingOf, type Recording } from '../replay/recording.ts';
import { outsideText, perturb, realPlanner, streamText, type PerturbReport, type PlannerFactory } from '../replay/perturb.ts';
import { recordedRunOf } from '../replay/recordedRun.ts';
import { differenceLines } from '../replay/actionDiff.ts';
import { replayRecording, type Planner, type ReplayReport } from '../replay/replay.ts';
import { recordingFault } from '../replay/verify.ts';
import { replayDrawing } from '../render/historyDrawing.ts';
import { renderTimelineHtml } from '../render/timelineHtml.ts';
import { parseDuration } from '../duration.ts';
import { formatVirtualTime } from '../sim/format.ts';
import type { JobSetKey } from '../store/types.ts';
import { journalSource, UnusableJournalSource, type JournalSource, type JournalSourceFlags } from './journalSource.ts';
import { ExitCode, type CliIo } from './io.ts';
import { JournalSourceMessage } from '../hosts/stateDir.ts';

/** ReplayMessage: the one line `lineup export` and `lineup replay` print for unusable input (exit 2). */
export const ReplayMessage = {
  noState: (command: string, stateDir: string): string => JournalSourceMessage.noState(command, stateDir),
  /** A recording that fails its check (lib/replay/verify.ts): replaying it would judge the file, not the planner. */
  unsound: (source: string, pass: number, problem: string): string => `${source}: pass ${pass}: ${problem}; not replayed`,
  /** --perturb re-enacts runs whose events differ from the recording's; the drawing is of recorded passes. */
  perturbHtml: '--output html draws recorded passes, not perturbed runs: with --perturb or --seed, use --output text or json',
  /** Passes whose inputs were not kept: the replay cannot vouch for them, so it does not pass. */
  unreplayable: (count: number): string =>
    `${count} pass${count === 1 ? '' : 'es'} could not be replayed (inputs not kept: too large, or expired from the journal): this replay vouches only for the others`,
  badTarget: (command: string, target: string): string =>
    `${command}: expected ${command === 'lineup replay' ? 'a recording file or ' : ''}CLUSTER/NAMESPACE/NAME, got ${JSON.stringify(target)}`,
  unknownJobSet: (command: string, target: string, where: string): string => `${command}: no passes recorded for ${target} in ${where}`,
  nothingRecorded: (clusters: readonly string[], where: string, since?: string): string =>
    `lineup replay: no passes recorded for any JobSet of cluster ${clusters.join(' or ')} in ${where}${since === undefined ? '' : ` in the last ${since}`}`,
  sinceWithoutAll: (since: string): string => `lineup replay: --since ${since} without --all: expected --all with it`,
  badSince: (since: string, detail: string): string => `lineup replay: --since ${JSON.stringify(since)}: ${detail}`,
  noTarget: 'lineup replay: expected a recording file, CLUSTER/NAMESPACE/NAME or --all',
  noSuchFile: (target: string): string => `lineup replay: ${target} does not exist: expected a recording file (lineup export) or CLUSTER/NAMESPACE/NAME`,
  unreadable: (target: string, detail: string): string => `lineup replay: ${target}: cannot read the recording: ${detail}`,
  badInteger: (flag: string, min: number, got: string | undefined): string => `lineup replay: ${flag} expects an integer ≥ ${min}, got ${JSON.stringify(got ?? null)}`,
} as const;

/** parseJobSetKey: CLUSTER/NAMESPACE/NAME, or undefined when `target` is not one. */
export const parseJobSetKey = (target: string): JobSetKey | undefined => {
  const parts = target.split('/');
  const [cluster, namespace, name] = parts;
  return parts.length === 3 && cluster && namespace && name ? { cluster, namespace, name } : undefined;
};

const keyText = (key: JobSetKey): string => `${key.cluster}/${key.namespace}/${key.name}`;

/** The cluster id lineup run records under unless given --cluster. */
const DEFAULT_RUN_CLUSTER = 'local';

/** UnusableInput: the one line an exit 2 prints (a kind of UnusableJournalSource, so that reading a table passes it through as it is). */
class UnusableInput extends UnusableJournalSource {}

/** recordingFromSource: the JobSet's journal as a recording, or UnusableInput when it has none. */
const recordingFromSource = async (command: string, source: JournalSource, key: JobSetKey): Promise<Recording> =>
  source.read(async (store) => {
    const entries = await store.listJournal(key);
    if (entries.length === 0) throw new UnusableInput(ReplayMessage.unknownJobSet(command, keyText(key), source.where));
    return recordingOf(key, entries);
  });

/** ExportFlags: raw flags from commander. */
export type ExportFlags = JournalSourceFlags;

/** exportCommand: `lineup export CLUSTER/NS/NAME`. */
export const exportCommand = async (target: string, flags: ExportFlags, io: CliIo): Promise<number> => {
  const key = parseJobSetKey(target);
  if (key === undefined) {
    io.stderr(`${ReplayMessage.badTarget('lineup export', target)}\n`);
    return ExitCode.Usage;
  }
  try {
    const recording = await recordingFromSource('lineup export', journalSource('lineup export', flags), key);
    io.stdout(`${JSON.stringify(recording, null, 2)}\n`);
    return ExitCode.Ok;
  } catch (error) {
    if (!(error instanceof UnusableJournalSource)) throw error;
    io.stderr(`${error.message}\n`);
    return ExitCode.Usage;
  }
};

/** ReplayFlags: raw flags from commander; `planner` only from tests (a variant). */
export interface ReplayFlags extends JournalSourceFlags {
  readonly all?: boolean | undefined;
  /** --since D (with --all): only JobSets with a pass in the last D (e.g. 7d, 36h). */
  readonly since?: string | undefined;
  readonly cluster?: string | undefined;
  readonly output: string;
  readonly planner?: Planner | undefined;
  /** --perturb N: re-enact each recording N times (seeds 1..N) with the event stream perturbed. */
  readonly perturb?: string | undefined;
  /** --seed S: re-enact only seed S (the one a failing --perturb printed). */
  readonly seed?: string | undefined;
  /** Only from tests: the planner perturbed runs reconcile with (a fresh one per run). */
  readonly perturbPlanner?: PlannerFactory | undefined;
}

const time = (epochMs: number): string => new Date(epochMs).toISOString();

/** reportText: the first divergence, then the report pass by pass, each difference named by the action's kind and target. */
const reportText = (report: ReplayReport): string => {
  const lines = [`${keyText(report.jobSet)}: ${report.passes.length} passes recorded by ${report.recordedPlannerVersions.join(', ')}, replayed with ${report.plannerVersion}`];
  const first = report.firstDivergence;
  if (first !== undefined) {
    const after = first.triggers.length === 0 ? 'a pass of its own' : first.triggers.join('; ');
    lines.push(`  first divergence: pass ${first.pass} at ${time(first.at)}, after ${after}: ${differenceLines(first.difference, first.pass)[0] ?? ''}`);
  }
  for (const outcome of report.passes) {
    const head = `  pass ${outcome.pass}  ${time(outcome.at)}  ${outcome.result}`;
    if (outcome.result === 'same') lines.push(head);
    else if (outcome.result === 'unreplayable') lines.push(`${head}: ${outcome.why}`);
    else {
      lines.push(`${head}: ${outcome.recorded.length} actions recorded, ${outcome.replayed.length} replayed`);
      for (const difference of outcome.differences) lines.push(...differenceLines(difference, outcome.pass).map((line) => `    ${line}`));
    }
  }
  lines.push(`  ${report.same} same, ${report.different} different, ${report.unreplayable} unreplayable`);
  if (report.unreplayable > 0) lines.push(`  ${ReplayMessage.unreplayable(report.unreplayable)}`);
  return `${lines.join('\n')}\n`;
};

/** The days term --since accepts beside parseDuration's units (which stop at hours). */
const DAY_MS = 86_400_000;

/** sinceMs: milliseconds of a --since duration: `7d`, `1d12h`, or anything parseDuration reads; finite and positive. */
export const sinceMs = (text: string): number => {
  const days = /^\s*(\d+)d(.*)$/.exec(text);
  let ms: number;
  try {
    ms = days === null ? parseDuration(text) : Number(days[1]) * DAY_MS + (days[2]!.trim() === '' ? 0 : parseDuration(days[2]!));
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new UnusableInput(ReplayMessage.badSince(text, `${error.message}; or days, e.g. 7d`));
  }
  if (!Number.isFinite(ms) || ms <= 0) throw new UnusableInput(ReplayMessage.badSince(text, 'expected a positive duration, e.g. 7d, 36h'));
  return ms;
};

/** recordingsOf: the recordings a replay target names; `now` is when --since counts back from. */
const recordingsOf = async (target: string | undefined, flags: ReplayFlags, io: CliIo, now: number): Promise<Recording[]> => {
  if (flags.since !== undefined && !flags.all) throw new UnusableInput(ReplayMessage.sinceWithoutAll(flags.since));
  if (flags.all) {
    const since = flags.since === undefined ? undefined : now - sinceMs(flags.since);
    const source = journalSource('lineup replay', flags);
    return source.read(async (store) => {
      // lineup run records under its --cluster (local by default) without registering it; the demo registers its own.
      const clusters = flags.cluster !== undefined ? [flags.cluster] : [...new Set([DEFAULT_RUN_CLUSTER, ...(await store.listClusters()).map((record) => record.id)])];
      const recordings: Recording[] = [];
      for (const cluster of clusters) {
        for (const state of await store.listJobSets(cluster)) {
          const entries = await store.listJournal(state.key);
          // --since keeps a JobSet with any pass in the window, and all its passes: a replay needs the story whole.
          if (entries.length > 0 && (since === undefined || entries.some((entry) => entry.at >= since))) recordings.push(recordingOf(state.key, entries));
        }
      }
      if (recordings.length === 0) throw new UnusableInput(ReplayMessage.nothingRecorded(clusters, source.where, flags.since));
      return recordings;
    });
  }
  if (target === undefined) throw new UnusableInput(ReplayMessage.noTarget);
  const text = recordingText(target, io);
  if (text !== undefined) return [parseRecording(text, target)];
  const key = parseJobSetKey(target);
  // An empty or slash-only target names neither a file nor a JobSet.
  if (target.replaceAll('/', '') === '') throw new UnusableInput(ReplayMessage.badTarget('lineup replay', target));
  if (key === undefined || !KEY_NAMESPACE.test(key.namespace) || RECORDING_FILE.test(target)) throw new UnusableInput(ReplayMessage.noSuchFile(target));
  return [await recordingFromSource('lineup replay', journalSource('lineup replay', flags), key)];
};

/** A namespace as Kubernetes allows it (a DNS label): CLUSTER/NAMESPACE/NAME has one in the middle, a path need not. */
const KEY_NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** What a recording is saved as (lineup export > x.json); no JobSet name ends so. */
const RECORDING_FILE = /\.json$/i;

/**
 * recordingText: the text of the recording file `target`, or undefined when there is no such
 * file (then the target may be CLUSTER/NAMESPACE/NAME); UnusableInput when it exists but
 * cannot be read. Read through `io`, so tests choose where files come from.
 */
const recordingText = (target: string, io: CliIo): string | undefined => {
  try {
    return io.readFile(target);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new UnusableInput(ReplayMessage.unreadable(target, readErrorDetail(error)));
  }
};

/** seedsOf: the seeds `--perturb N [--seed S]` asks for, or UnusableInput naming the bad flag. */
const seedsOf = (flags: ReplayFlags): number[] => {
  const integer = (text: string | undefined, flag: string, min: number): number => {
    const value = Number(text);
    if (text === undefined || !/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
      throw new UnusableInput(ReplayMessage.badInteger(flag, min, text));
    }
    return value;
  };
  if (flags.seed !== undefined) return [integer(flags.seed, '--seed', 0)];
  const runs = integer(flags.perturb, '--perturb', 1);
  return Array.from({ length: runs }, (_, index) => index + 1);
};

/** perturbText: a passing report in one line; a failing one with its seed, its problem, the event order and how to re-run it. */
const perturbText = (key: JobSetKey, report: PerturbReport, rerun: string): string => {
  const final = `${report.final.terminalState ?? 'not finished'} with ${report.final.restarts} restarts${report.final.suspended ? ', suspended' : ''}`;
  const first = report.seeds[0];
  const seeds = report.seeds.length === 1 ? `seed ${first}` : `seeds ${first}–${report.seeds.at(-1)}`;
  if (report.failure === undefined) {
    const outside = report.outside.length === 0 ? '' : `; each re-enacted, as recorded: ${report.outside.map((action) => `${outsideText(action).replace(/^from outside, as recorded: /, '')} at ${formatVirtualTime(action.at).trim()}`).join(', ')}`;
    return `${keyText(key)}: ${report.passed} perturbed runs (${seeds}) kept the startup order and ended ${final}, as recorded${outside}\n`;
  }
  const { seed, problem } = report.failure;
  return [
    `${keyText(key)}: seed ${seed} failed after ${report.passed} passing runs: ${problem}`,
    `  events in the order the reconciler got them${report.failure.at === undefined ? '' : ', up to the failure'}:`,
    ...streamText(report.failure, report.outside).map((line) => `  ${line}`),
    `  re-run it: ${rerun} --seed ${seed}`,
    '',
  ].join('\n');
};

/** perturbCommand: the `--perturb`/`--seed` form of replay; exit 0 every run passed, 1 one failed. */
const perturbCommand = (target: string | undefined, recordings: readonly Recording[], seeds: readonly number[], flags: ReplayFlags, io: CliIo): number => {
  const reports = recordings.map((recording) => {
    const run = recordedRunOf(recording, target ?? keyText(recording.jobSet));
    return { key: recording.jobSet, report: perturb(run, seeds, flags.perturbPlanner ?? realPlanner) };
  });
  if (flags.output === 'json') io.stdout(`${JSON.stringify({ perturbed: reports }, null, 2)}\n`);
  else for (const { key, report } of reports) io.stdout(perturbText(key, report, `lineup replay ${target ?? keyText(key)}`));
  return reports.some(({ report }) => report.failure !== undefined) ? ExitCode.Invalid : ExitCode.Ok;
};

/** replayCommand: `lineup replay FILE|CLUSTER/NS/NAME` or `lineup replay --all`. */
export const replayCommand = async (target: string | undefined, flags: ReplayFlags, io: CliIo, now: number = Date.now()): Promise<number> => {
  let recordings: Recording[];
  try {
    // The flags first: a bad --perturb or --seed is refused before any file or journal is read.
    const seeds = flags.perturb !== undefined || flags.seed !== undefined ? seedsOf(flags) : undefined;
    if (seeds !== undefined && flags.output === 'html') throw new UnusableInput(ReplayMessage.perturbHtml);
    recordings = await recordingsOf(target, flags, io, now);
    // Checked before anything is replayed: a replay of an edited recording would blame the planner.
    for (const recording of recordings) {
      const fault = recordingFault(recording);
      if (fault !== undefined) throw new UnusableInput(ReplayMessage.unsound(target !== undefined && !flags.all ? target : keyText(recording.jobSet), fault.pass, fault.problem));
    }
    if (seeds !== undefined) return perturbCommand(target, recordings, seeds, flags, io);
  } catch (error) {
    if (!(error instanceof UnusableJournalSource) && !(error instanceof InvalidInputError)) throw error;
    io.stderr(`lineup replay: ${(error as Error).message.replace(/^lineup replay: /, '')}\n`);
    return ExitCode.Usage;
  }
  const replays = recordings.map((recording) => ({ recording, report: replayRecording(recording, { planner: flags.planner }) }));
  const reports = replays.map(({ report }) => report);
  if (flags.output === 'html') {
    // --all draws every JobSet one below the other.
    io.stdout(renderTimelineHtml(replays.map(({ recording, report }) => replayDrawing(recording, report)), 'lineup replay'));
  } else if (flags.output === 'json') {
    const summary = {
      jobSets: reports.length,
      passes: reports.reduce((sum, report) => sum + report.passes.length, 0),
      same: reports.reduce((sum, report) => sum + report.same, 0),
      different: reports.reduce((sum, report) => sum + report.different, 0),
      unreplayable: reports.reduce((sum, report) => sum + report.unreplayable, 0),
    };
    io.stdout(`${JSON.stringify({ summary, reports }, null, 2)}\n`);
  } else {
    for (const report of reports) io.stdout(reportText(report));
  }
  return reports.some((report) => report.different > 0 || report.unreplayable > 0) ? ExitCode.Invalid : ExitCode.Ok;
};
