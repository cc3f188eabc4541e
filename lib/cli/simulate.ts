/**
 * `lineup simulate FILE [--behaviour B] [--until 24h|never] [--latency 0ms] [--output text|json|html]`
 * (the README's Commands section): the real reconcile code against the simulated cluster, in virtual time. `html`
 * writes one self-contained page drawing the timeline (lib/render).
 */
import { ConditionType, Reason } from '../jobset/api.ts';
import { DEFAULT_CONTROLLER_NAME } from '../jobset/managedBy.ts';
import { InvalidInputError, LineupError } from '../errors.ts';
import type { FieldError } from '../errors.ts';
import { readJobSetFile, skippedNotes } from '../jobset/load.ts';
import type { PlanOptions } from '../plan/types.ts';
import { checkBehaviourNames, EMPTY_BEHAVIOUR, readBehaviourFile } from '../sim/behaviour.ts';
import { checkSimulatorSize } from '../sim/limits.ts';
import { DEFAULT_NAMESPACE, SIMULATE_OUTPUTS, SimulateDefaults, UntilNeverText } from '../sim/constants.ts';
import { formatDuration, parseDurationFlag } from '../duration.ts';
import { formatSimulationText } from '../sim/format.ts';
import { simulate, simulationReport } from '../sim/simulate.ts';
import type { SimulationReport } from '../sim/simulate.ts';
import { TimelineType } from '../sim/timeline.ts';
import { simulationDrawing } from '../render/simulationDrawing.ts';
import { renderTimelineHtml } from '../render/timelineHtml.ts';
import { ExitCode } from './io.ts';
import type { CliIo } from './io.ts';

/** SimulateFlags: the raw flag strings as commander hands them over. */
export interface SimulateFlags {
  readonly behaviour?: string | undefined;
  /** @default SimulateDefaults.until */
  readonly until?: string | undefined;
  /** @default SimulateDefaults.latency */
  readonly latency?: string | undefined;
  /** @default SimulateDefaults.output */
  readonly output?: string | undefined;
}

type Output = (typeof SIMULATE_OUTPUTS)[number];

// The simulated cluster has no upstream JobSet controller, so Lineup takes JobSets that name no manager.
const PLAN_OPTIONS: PlanOptions = { controllerName: DEFAULT_CONTROLLER_NAME, claimUnmanaged: true };

/** durationFlag: a duration flag in milliseconds; `never` (Infinity) only where `allowNever` says so. */
const durationFlag = (flag: string, value: string, allowNever: boolean): number => {
  const ms = parseDurationFlag(`--${flag}`, value);
  if (!allowNever && !Number.isFinite(ms)) throw new InvalidInputError(`--${flag}: ${value} is not allowed: expected a finite duration such as 100ms`);
  return ms;
};

const outputFlag = (value: string): Output => {
  const output = SIMULATE_OUTPUTS.find((candidate) => candidate === value);
  if (!output) throw new InvalidInputError(`--output: ${JSON.stringify(value)} is not an output format: expected one of ${SIMULATE_OUTPUTS.join(', ')}`);
  return output;
};

/**
 * rejectedReport: the report of a JobSet that does not even fit the schema; what the planner
 * reports for a JobSet that breaks a validation rule (a Rejected condition, nothing started).
 */
const rejectedReport = (jobSet: string, errors: readonly FieldError[]): SimulationReport => {
  const message = errors.map((error) => `${error.path}: ${error.message}`).join('; ');
  const condition = { type: ConditionType.Rejected, status: 'True' as const, reason: Reason.InvalidJobSet, message };
  return {
    jobSet,
    timeline: [
      { at: 0, type: TimelineType.ConditionChanged, condition },
      { at: 0, type: TimelineType.Rejected, message },
    ],
    final: { conditions: [condition], replicatedJobsStatus: [], restarts: 0, terminalState: null },
  };
};

const wasRejected = (report: SimulationReport): boolean => report.timeline.some((entry) => entry.type === TimelineType.Rejected);

/**
 * runSimulate: `lineup simulate FILE`. Prints the timeline (text, or JSON as lib/sim's
 * SimulationReport holds it) and returns the exit code: 0 when the run finished or reached --until, 1 when the
 * JobSet was rejected (the report is still printed), 2 on unusable input (unparseable, not a
 * JobSet, more than one JobSet, bad flags, a bad behaviour file) or a simulation that did not
 * settle, with the reason on stderr.
 *
 * @example runSimulate('story2.yaml', { output: 'json' }, io) // 0
 */
export const runSimulate = (file: string, options: SimulateFlags, io: CliIo): number => {
  try {
    return simulateFile(file, options, io);
  } catch (error) {
    if (error instanceof InvalidInputError) {
      io.stderr(`lineup simulate: ${error.message}\n`);
      return ExitCode.Usage;
    }
    if (error instanceof LineupError) {
      io.stderr(`lineup simulate: ${file}: simulation failed: ${error.message}\n`);
      return ExitCode.Usage;
    }
    throw error;
  }
};

const simulateFile = (file: string, options: SimulateFlags, io: CliIo): number => {
  const until = durationFlag('until', options.until ?? SimulateDefaults.until, true);
  const latency = durationFlag('latency', options.latency ?? SimulateDefaults.latency, false);
  const output = outputFlag(options.output ?? SimulateDefaults.output);
  const behaviour = options.behaviour === undefined ? EMPTY_BEHAVIOUR : readBehaviourFile(options.behaviour, io.readFile);

  const loaded = readJobSetFile(file, io.readFile);
  const unusable = loaded.documents.filter((doc) => doc.outcome === 'unusable');
  if (unusable.length > 0) {
    throw new InvalidInputError(
      unusable.map((doc) => `${file}: ${doc.document === undefined ? '' : `document ${doc.document} (line ${doc.line ?? '?'}): `}${doc.message}`).join('\n'),
    );
  }
  for (const note of skippedNotes(loaded)) io.stderr(`lineup simulate: ${note}\n`);
  // Other kinds beside the JobSet are skipped (and said so); the JobSets must be one.
  const documents = loaded.documents.filter((doc) => doc.outcome !== 'skipped');
  if (documents.length !== 1) throw new InvalidInputError(`${file}: holds ${documents.length} JobSets: simulate runs one JobSet at a time`);
  const doc = documents[0]!;

  if (doc.outcome === 'invalid') {
    const report = rejectedReport(`${DEFAULT_NAMESPACE}/${doc.name ?? ''}`, doc.errors);
    if (output === 'json') io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else if (output === 'html') {
      const detail = doc.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
      io.stdout(
        renderTimelineHtml({
          title: `lineup simulate ${report.jobSet}`,
          subtitle: `rejected: ${detail}`,
          endAt: 1,
          lanes: [],
          markers: [{ at: 0, kind: 'rejected', label: 'Rejected', detail: `rejected: ${detail}` }],
          ticks: [],
        }),
      );
    } else io.stdout(`JobSet ${report.jobSet} rejected:\n${doc.errors.map((e) => `  ${e.path}: ${e.message}\n`).join('')}`);
    return ExitCode.Invalid;
  }
  if (doc.outcome !== 'loaded') throw new InvalidInputError(`${file}: not a JobSet`);
  // Before any work on the JobSet, which the simulator holds whole in memory.
  checkSimulatorSize(doc.jobSet, file);

  if (options.behaviour !== undefined) checkBehaviourNames(behaviour, [doc.jobSet], options.behaviour);
  const jobSet = { ...doc.jobSet, metadata: { ...doc.jobSet.metadata, namespace: doc.jobSet.metadata.namespace ?? DEFAULT_NAMESPACE } };
  const managedBy = jobSet.spec.managedBy;
  if (managedBy !== undefined && managedBy !== PLAN_OPTIONS.controllerName) {
    io.stderr(`lineup simulate: ${file}: spec.managedBy is ${managedBy}, not ${PLAN_OPTIONS.controllerName}: Lineup leaves this JobSet alone\n`);
  }
  const result = simulate(jobSet, behaviour, { until, latency, planOptions: PLAN_OPTIONS });
  if (output === 'json') {
    io.stdout(`${JSON.stringify(simulationReport(result), null, 2)}\n`);
    // The JSON has no place for why the run stopped; a run cut off by the limit of never must still say so.
    if (result.stoppedBy === 'limit') io.stderr(`lineup simulate: ${UntilNeverText.stoppedAtLimit(formatDuration(result.endedAt))}\n`);
  } else if (output === 'html') io.stdout(renderTimelineHtml(simulationDrawing(result)));
  else io.stdout(formatSimulationText(result, { jobSet, until, latency, behaviourFile: options.behaviour }));
  return wasRejected(result) ? ExitCode.Invalid : ExitCode.Ok;
};
