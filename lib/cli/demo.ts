/**
 * `lineup demo [FILE…]`: the example JobSets (or the given files) through the whole pipeline
 * against the simulated cluster, in accelerated time, with a live timeline and a summary.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONTROLLER_NAME } from '../jobset/managedBy.ts';
import { UntilNeverText } from '../sim/constants.ts';
import { CounterName } from '../counters.ts';
import { InvalidInputError, StateDirError } from '../errors.ts';
import { loadedJobSets, readJobSetFile, skippedNotes, worstOutcome } from '../jobset/load.ts';
import type { JobSet } from '../jobset/schema.ts';
import type { Log } from '../log.ts';
import { openStateDirForWriting, type OpenStateDir } from '../hosts/stateDir.ts';
import { DEMO_CLUSTER, runDemo, type DemoJobSetResult, type DemoSummary } from '../hosts/demo.ts';
import { checkBehaviourNames, EMPTY_BEHAVIOUR, readBehaviourFile, type Behaviour } from '../sim/behaviour.ts';
import { checkSimulatorSize } from '../sim/limits.ts';
import { formatDuration, parseDurationFlag } from '../duration.ts';
import type { TimelineEntry } from '../sim/timeline.ts';
import { ExitCode, type CliIo } from './io.ts';
import { INSTALL_ROOT } from '../installRoot.ts';

/** DemoMessage: what `lineup demo --state-dir` says about the journal it kept. */
export const DemoMessage = {
  /** The demo's simulated cluster starts anew each run: an earlier run's bookmarks and journal would confuse it and its history. */
  stateDirInUse: (stateDir: string): string =>
    `${stateDir} already holds state: expected a new or empty --state-dir (each demo starts a new simulated cluster)`,
  journalKept: (stateDir: string, cluster: string, namespace: string, name: string): string =>
    `Journal kept in ${stateDir} under cluster ${cluster}: lineup history ${cluster}/${namespace}/${name} --state-dir ${stateDir}; lineup replay --all --state-dir ${stateDir}`,
} as const;

/** The examples shipped with Lineup, run when no file is given. */
export const EXAMPLES_DIR = join(INSTALL_ROOT, 'examples');

/** DemoFlags: raw flag strings from commander. */
export interface DemoFlags {
  readonly speed?: string | undefined;
  readonly until?: string | undefined;
  readonly behaviour?: string | undefined;
  readonly verbose?: boolean | undefined;
  /** Keep the journal here (as lineup run does) for lineup history, export and replay. */
  readonly stateDir?: string | undefined;
  /** Keep containers' environment values in the journal (default: redacted). */
  readonly journalKeepEnv?: boolean | undefined;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`.padStart(7);

/** describeEntry: one timeline entry in a few words; a Job is named without its JobSet's prefix, printed beside it. */
const describeEntry = (jobSet: string, entry: TimelineEntry): string => {
  if (entry.condition) return `${entry.condition.type}=${entry.condition.status}${entry.condition.message ? `  ${entry.condition.message}` : ''}`;
  const job = entry.job?.startsWith(`${jobSet}-`) ? entry.job.slice(jobSet.length + 1) : entry.job;
  const what = job ?? entry.replicatedJob ?? '';
  const extra = entry.suspended === undefined ? '' : entry.suspended ? ' (suspended)' : ' (running)';
  return `${what}${extra}${entry.message && !entry.job ? `  ${entry.message}` : ''}`;
};

/** outcomeOf: one JobSet's line in the summary, and the word it is counted under. */
const outcomeOf = (js: DemoJobSetResult): { readonly counted: string; readonly shown: string } => {
  if (js.rejected !== undefined) return { counted: 'Rejected', shown: `Rejected: ${js.rejected}` };
  const state = js.terminalState ?? 'still running';
  return { counted: state, shown: `${state}${js.restarts > 0 ? `, ${js.restarts} restarts` : ''}` };
};

// The order outcomes are counted in: finished first, then what never ran, then what still runs.
const OUTCOME_ORDER = ['Completed', 'Failed', 'Rejected', 'still running'];

/** stopNote: why the demo stopped, as the Result line says it after the virtual time. */
const stopNote = (summary: DemoSummary): string => {
  switch (summary.stoppedBy) {
    case 'finished':
      return '';
    case 'quiescent':
      return ' (nothing left to happen)';
    case 'until':
      return ' (--until reached)';
    case 'limit':
      return ` (${UntilNeverText.stoppedAtLimit(formatDuration(summary.endedAt))})`;
  }
};

/** summaryLines: the closing table, with how many JobSets ended how, and the pipeline's counters. */
export const summaryLines = (summary: DemoSummary): string[] => {
  const c = (name: string): number => summary.counters[name] ?? 0;
  const kubeReads = c(`${CounterName.KubePrefix}get`) + c(`${CounterName.KubePrefix}list`);
  const dynamo = Object.entries(summary.counters)
    .filter(([name]) => name.startsWith(CounterName.DynamoPrefix))
    .reduce((sum, [, count]) => sum + count, 0);
  const width = Math.max(...summary.jobSets.map((js) => js.name.length), 7);
  const outcomes = summary.jobSets.map(outcomeOf);
  const counts = OUTCOME_ORDER.map((word) => [word, outcomes.filter((outcome) => outcome.counted === word).length] as const)
    .filter(([, count]) => count > 0)
    .map(([word, count]) => `${count} ${word}`);
  return [
    '',
    `Result after ${formatDuration(summary.endedAt)} of virtual time${stopNote(summary)}: ${counts.join(', ')}`,
    ...summary.jobSets.map((js, index) => `  ${js.name.padEnd(width)}  ${outcomes[index]?.shown ?? ''}`),
    '',
    'Pipeline:',
    `  watch events        ${c(CounterName.WatchEvents)} raw, ${c(CounterName.EventsDropped)} dropped, ${c(CounterName.EventsPut)} forwarded in ${c(CounterName.PutEventsCalls)} PutEvents calls`,
    `  reconciler          ${c(CounterName.Invocations)} events handled, ${c(CounterName.Passes)} passes, ${c(CounterName.Deferred)} deferred to the lease holder`,
    `  Kubernetes          ${summary.kubeWrites} writes, ${kubeReads} reads`,
    `  DynamoDB            ${dynamo} requests (${Object.entries(summary.counters).filter(([n]) => n.startsWith(CounterName.DynamoPrefix)).map(([n, v]) => `${n.slice(CounterName.DynamoPrefix.length)} ${v}`).join(', ')})`,
    ...(summary.deadLetters > 0 ? [`  dead letters        ${summary.deadLetters}`] : []),
  ];
};

/** finiteSpeed: --speed in real milliseconds per virtual second; `never` would stop the clock, so it is refused. */
const finiteSpeed = (value: string): number => {
  const ms = parseDurationFlag('--speed', value);
  if (!Number.isFinite(ms)) throw new InvalidInputError(`--speed: ${value} is not allowed: expected a finite duration such as 40ms, or 0 for as fast as possible`);
  return ms;
};

/**
 * runDemoCommand: `lineup demo`; resolves to the exit code: 0 when it ran, 1 when the controller
 * rejected a JobSet (the others still ran), 2 on unusable input (flags, files, a behaviour file
 * naming what no JobSet has). The virtual clock starts at `now()` as the run begins (whole
 * seconds), so a kept journal and heartbeat read as the day it ran; tests pass a fixed clock.
 */
export const runDemoCommand = async (files: readonly string[], flags: DemoFlags, io: CliIo, now: () => number = Date.now): Promise<number> => {
  let realMsPerVirtualSecond: number;
  let until: number;
  let behaviour: Behaviour = EMPTY_BEHAVIOUR;
  const jobSets: JobSet[] = [];
  try {
    realMsPerVirtualSecond = flags.speed === undefined ? 40 : finiteSpeed(flags.speed);
    until = parseDurationFlag('--until', flags.until ?? '1h');
    if (flags.behaviour !== undefined) behaviour = readBehaviourFile(flags.behaviour, io.readFile);
    const paths = files.length > 0 ? files : readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.yaml')).sort().map((name) => join(EXAMPLES_DIR, name));
    for (const path of paths) {
      const result = readJobSetFile(path, io.readFile);
      if (worstOutcome(result) !== 'loaded') {
        for (const doc of result.documents) {
          if (doc.outcome === 'unusable' || doc.outcome === 'invalid') io.stderr(`lineup demo: ${path}: ${doc.outcome === 'unusable' ? doc.message : doc.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}\n`);
        }
        return ExitCode.Usage;
      }
      for (const note of skippedNotes(result)) io.stderr(`lineup demo: ${note}\n`);
      for (const jobSet of loadedJobSets(result)) checkSimulatorSize(jobSet, path);
      jobSets.push(...loadedJobSets(result));
    }
    if (flags.behaviour !== undefined) checkBehaviourNames(behaviour, jobSets, flags.behaviour);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    io.stderr(`lineup demo: ${error.message}\n`);
    return ExitCode.Usage;
  }
  // Taken last, once the input is known good, so a refused demo leaves no directory behind.
  let state: OpenStateDir | undefined;
  try {
    if (flags.stateDir !== undefined) {
      state = openStateDirForWriting(flags.stateDir, { command: DEMO_COMMAND, requireNew: (stateDir) => `${DEMO_COMMAND}: ${DemoMessage.stateDirInUse(stateDir)}` });
    }
  } catch (error) {
    if (!(error instanceof StateDirError)) throw error;
    io.stderr(`${error.message}\n`);
    return ExitCode.Usage;
  }
  try {
    return await demoRun({ jobSets, behaviour, realMsPerVirtualSecond, until, state, startedAt: now() }, flags, io);
  } finally {
    state?.close();
  }
};

/** The command a running demo names in its state directory's lock. */
const DEMO_COMMAND = 'lineup demo';

/** What a demo runs, once its flags and files were read. */
interface DemoInput {
  readonly jobSets: readonly JobSet[];
  readonly behaviour: Behaviour;
  readonly realMsPerVirtualSecond: number;
  readonly until: number;
  /** The state directory it keeps its state in (--state-dir), taken for writing. */
  readonly state: OpenStateDir | undefined;
  /** Wall-clock time (epoch ms) of virtual t=0. */
  readonly startedAt: number;
}

/** demoRun: run the loaded JobSets and print the timeline and the summary. */
const demoRun = async ({ jobSets, behaviour, realMsPerVirtualSecond, until, state, startedAt }: DemoInput, flags: DemoFlags, io: CliIo): Promise<number> => {
  const log: Log = (level, message, fields) => {
    if (flags.verbose || level === 'error' || level === 'warn') io.stderr(`${level}: ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);
  };
  const width = Math.max(...jobSets.map((js) => (js.metadata.name ?? '').length));
  io.stdout(`lineup demo: ${jobSets.length} ${jobSets.length === 1 ? 'JobSet' : 'JobSets'} through forwarder → bus → reconciler (DynamoDB leases) against a simulated cluster\n\n`);
  const summary = await runDemo({
    jobSets,
    behaviour,
    // The upstream examples name no manager; the demo cluster has no upstream controller, so Lineup claims them.
    planOptions: { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true },
    realMsPerVirtualSecond,
    until,
    onEntry: (name, entry) => io.stdout(`${seconds(entry.at)}  ${name.padEnd(width)}  ${entry.type.padEnd(16)}  ${describeEntry(name, entry)}\n`),
    log,
    keptState: state?.database,
    journalKeepEnv: flags.journalKeepEnv === true,
    startedAt,
  });
  io.stdout(`${summaryLines(summary).join('\n')}\n`);
  if (flags.stateDir !== undefined) io.stdout(`${DemoMessage.journalKept(flags.stateDir, DEMO_CLUSTER, jobSets[0]?.metadata.namespace ?? 'default', jobSets[0]?.metadata.name ?? '')}\n`);
  return summary.jobSets.some((js) => js.rejected !== undefined) ? ExitCode.Invalid : ExitCode.Ok;
};
