/**
 * `lineup plan FILE`: the startup order of a JobSet as stages, and why each stage waits.
 * Exit codes as `lineup validate`: 0 planned, 1 invalid JobSet, 2 unusable input.
 */
import { applyDefaults } from '../jobset/defaults.ts';
import { loadedJobSets, readJobSetFile, skippedNotes, worstOutcome } from '../jobset/load.ts';
import { validateJobSet } from '../jobset/validation.ts';
import { startupPolicySpecOf } from '../plan/startupSpec.ts';
import { startupStages, type Stage, type StageCondition } from '../policy/stages.ts';
import type { StartupForm } from '../policy/types.ts';
import { ExitCode, type CliIo } from './io.ts';

/** Output formats of `lineup plan`. */
export const PLAN_OUTPUTS = ['text', 'json'] as const;
export type PlanOutput = (typeof PLAN_OUTPUTS)[number];

const formName: Record<StartupForm, string> = {
  AnyOrder: 'AnyOrder (no ordering)',
  InOrder: 'InOrder (startupPolicy)',
  DependsOn: 'dependsOn',
  Rules: 'ordered rules (lineup.dev/startup-rules)',
};

/** describeAfter: "after a is Ready and b is Complete", or "at once". */
const describeAfter = (after: readonly StageCondition[]): string =>
  after.length === 0 ? 'starts at once' : `after ${after.map((c) => `${c.replicatedJob} is ${c.status}`).join(' and ')}`;

/** renderStages: the text form, columns aligned. */
export const renderStages = (name: string, form: StartupForm, stages: readonly Stage[]): string => {
  const rows = stages.flatMap((stage, index) =>
    stage.replicatedJobs.map((rjob, position) => ({
      stage: position === 0 ? `stage ${index + 1}` : '',
      what: `${rjob.name} (${rjob.replicas} ${rjob.replicas === 1 ? 'job' : 'jobs'})`,
      why: describeAfter(rjob.after),
    })),
  );
  const stageWidth = Math.max(0, ...rows.map((row) => row.stage.length));
  const whatWidth = Math.max(0, ...rows.map((row) => row.what.length));
  const lines = rows.map((row) => `  ${row.stage.padEnd(stageWidth)}  ${row.what.padEnd(whatWidth)}  ${row.why}`);
  return [`${name}: ${formName[form]}, ${stages.length} ${stages.length === 1 ? 'stage' : 'stages'}`, ...lines].join('\n') + '\n';
};

/** runPlan: print the stages of the one JobSet in `file`; returns the exit code. */
export const runPlan = (file: string, options: { output?: string | undefined }, io: CliIo): number => {
  const output = options.output ?? 'text';
  if (!(PLAN_OUTPUTS as readonly string[]).includes(output)) {
    io.stderr(`lineup plan: --output must be one of ${PLAN_OUTPUTS.join(', ')}, got ${output}\n`);
    return ExitCode.Usage;
  }
  const result = readJobSetFile(file, io.readFile);
  const worst = worstOutcome(result);
  for (const note of skippedNotes(result)) io.stderr(`lineup plan: ${note}\n`);
  for (const doc of result.documents) {
    if (doc.outcome === 'unusable') io.stderr(`${file}: ${doc.message}\n`);
    if (doc.outcome === 'invalid') for (const error of doc.errors) io.stdout(`${file}: ${error.path}: ${error.message}\n`);
  }
  if (worst === 'unusable') return ExitCode.Usage;
  if (worst === 'invalid') return ExitCode.Invalid;
  const jobSets = loadedJobSets(result);
  const [raw] = jobSets;
  if (!raw || jobSets.length !== 1) {
    io.stderr(`${file}: expected exactly one JobSet, found ${jobSets.length}\n`);
    return ExitCode.Usage;
  }
  const jobSet = applyDefaults(raw);
  const errors = validateJobSet(jobSet);
  if (errors.length > 0) {
    for (const error of errors) io.stdout(`${file}: ${error.path}: ${error.message}\n`);
    return ExitCode.Invalid;
  }
  const policy = startupPolicySpecOf(jobSet);
  const stages = startupStages(policy);
  const name = jobSet.metadata.name ?? file;
  io.stdout(output === 'json' ? `${JSON.stringify({ jobSet: name, form: policy.form, stages }, null, 2)}\n` : renderStages(name, policy.form, stages));
  return ExitCode.Ok;
};
