/**
 * `lineup demo [FILE…]`: the example JobSets (or the given files) through the whole pipeline
 * against the simulated cluster, in accelerated time, with a live timeline and a summary.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_CONTROLLER_NAME } from '../constants.ts';
import { CounterName } from '../counters.ts';
import { loadedJobSets, readJobSetFile, worstOutcome } from '../jobset/load.ts';
import type { JobSet } from '../jobset/schema.ts';
import type { Log } from '../log.ts';
import { runDemo, type DemoSummary } from '../hosts/demo.ts';
import { EMPTY_BEHAVIOUR, loadBehaviour, type Behaviour } from '../sim/behaviour.ts';
import { formatDuration, parseDuration } from '../sim/duration.ts';
import type { TimelineEntry } from '../sim/timeline.ts';
import { ExitCode, type CliIo } from './io.ts';
import { INSTALL_ROOT } from '../installRoot.ts';

/** The examples shipped with Lineup, run when no file is given. */
export const EXAMPLES_DIR = join(INSTALL_ROOT, 'examples');

/** DemoFlags: raw flag strings from commander. */
export interface DemoFlags {
  readonly speed?: string | undefined;
  readonly until?: string | undefined;
  readonly behaviour?: string | undefined;
  readonly verbose?: boolean | undefined;
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

/** summaryLines: the closing table and the pipeline's counters. */
export const summaryLines = (summary: DemoSummary): string[] => {
  const c = (name: string): number => summary.counters[name] ?? 0;
  const kubeReads = c(`${CounterName.KubePrefix}get`) + c(`${CounterName.KubePrefix}list`);
  const dynamo = Object.entries(summary.counters)
    .filter(([name]) => name.startsWith(CounterName.DynamoPrefix))
    .reduce((sum, [, count]) => sum + count, 0);
  const width = Math.max(...summary.jobSets.map((js) => js.name.length), 7);
  return [
    '',
    `Result after ${formatDuration(summary.endedAt)} of virtual time:`,
    ...summary.jobSets.map((js) => `  ${js.name.padEnd(width)}  ${js.terminalState ?? 'still running'}${js.restarts > 0 ? `, ${js.restarts} restarts` : ''}`),
    '',
    'Pipeline:',
    `  watch events        ${c(CounterName.WatchEvents)} raw, ${c(CounterName.EventsDropped)} dropped, ${c(CounterName.EventsPut)} forwarded in ${c(CounterName.PutEventsCalls)} PutEvents calls`,
    `  reconciler          ${c(CounterName.Invocations)} events handled, ${c(CounterName.Passes)} passes, ${c(CounterName.Deferred)} deferred to the lease holder`,
    `  Kubernetes          ${summary.kubeWrites} writes, ${kubeReads} reads`,
    `  DynamoDB            ${dynamo} requests (${Object.entries(summary.counters).filter(([n]) => n.startsWith(CounterName.DynamoPrefix)).map(([n, v]) => `${n.slice(CounterName.DynamoPrefix.length)} ${v}`).join(', ')})`,
    ...(summary.deadLetters > 0 ? [`  dead letters        ${summary.deadLetters}`] : []),
  ];
};

/** runDemoCommand: `lineup demo`; resolves to the exit code. */
export const runDemoCommand = async (files: readonly string[], flags: DemoFlags, io: CliIo): Promise<number> => {
  let realMsPerVirtualSecond: number;
  let until: number;
  let behaviour: Behaviour = EMPTY_BEHAVIOUR;
  try {
    realMsPerVirtualSecond = flags.speed === undefined ? 40 : parseDuration(flags.speed);
    until = parseDuration(flags.until ?? '1h');
    if (flags.behaviour !== undefined) behaviour = loadBehaviour(io.readFile(flags.behaviour), flags.behaviour);
  } catch (error) {
    io.stderr(`lineup demo: ${(error as Error).message}\n`);
    return ExitCode.Usage;
  }
  const paths = files.length > 0 ? files : readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.yaml')).sort().map((name) => join(EXAMPLES_DIR, name));
  const jobSets: JobSet[] = [];
  for (const path of paths) {
    const result = readJobSetFile(path, io.readFile);
    if (worstOutcome(result) !== 'loaded') {
      for (const doc of result.documents) if (doc.outcome !== 'loaded') io.stderr(`${path}: ${doc.outcome === 'unusable' ? doc.message : doc.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}\n`);
      return ExitCode.Usage;
    }
    jobSets.push(...loadedJobSets(result));
  }
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
  });
  io.stdout(`${summaryLines(summary).join('\n')}\n`);
  return ExitCode.Ok;
};
