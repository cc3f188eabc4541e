/**
 * What the simulated cluster accepts: a JobSet it can hold in memory. `lineup simulate` and
 * `lineup demo` ask before any work, so a JobSet of a million replicas is refused in a line
 * instead of running for minutes toward gigabytes.
 */
import { InvalidInputError } from '../errors.ts';
import type { JobSet } from '../jobset/schema.ts';
import { jobSetSize, counted } from '../jobset/size.ts';
import { SIMULATOR_MAX_JOBS } from './constants.ts';

/** SimulatorMessage: why `lineup simulate` and `lineup demo` refuse a JobSet before running it (exit 2). */
export const SimulatorMessage = {
  tooBig: (jobSet: string, jobs: number, pods: number, maxJobs: number): string =>
    `JobSet ${jobSet} makes ${counted(jobs, 'Job')} and ${counted(pods, 'Pod')}, more than the ${maxJobs} Jobs the simulator runs: it holds every Job in memory (lower replicas to simulate it)`,
} as const;

/** nameOf: how a message names the JobSet (a generateName one has no name yet). */
const nameOf = (jobSet: JobSet): string => jobSet.metadata.name || (jobSet.metadata.generateName ? `${jobSet.metadata.generateName}…` : '(unnamed)');

/**
 * simulatorSizeProblem: why the simulator refuses `jobSet` (too many Jobs), or undefined when it
 * takes it. `maxJobs` is for tests; the commands use SIMULATOR_MAX_JOBS.
 */
export const simulatorSizeProblem = (jobSet: JobSet, maxJobs: number = SIMULATOR_MAX_JOBS): string | undefined => {
  const size = jobSetSize(jobSet);
  return size.jobs > maxJobs ? SimulatorMessage.tooBig(nameOf(jobSet), size.jobs, size.pods, maxJobs) : undefined;
};

/**
 * checkSimulatorSize: throws InvalidInputError (`FILE: JobSet NAME makes …`) when the simulator
 * refuses a JobSet read from `file`; the commands print it as their one line of exit 2.
 */
export const checkSimulatorSize = (jobSet: JobSet, file: string): void => {
  const problem = simulatorSizeProblem(jobSet);
  if (problem !== undefined) throw new InvalidInputError(`${file}: ${problem}`);
};
