/**
 * The ordered-rules form of the startup policy (the StartupPolicy KEP's first draft), carried
 * in the `lineup.dev/startup-rules` annotation because the upstream CRD prunes unknown spec
 * fields. The value is YAML or JSON (JSON is YAML): a list of
 * `{targetReplicatedJobs: [names], status: Ready|Succeeded|Complete}` or the shorthand
 * `{name, status}`. `Succeeded` and `Complete` mean the same (succeeded == replicas).
 * See examples/seed-draft-rules.yaml.
 *
 * Parsing checks the shape only; whether the names exist in the JobSet is validation's job
 * (validation.ts), since that needs the whole JobSet.
 */
import { parse } from 'yaml';
import * as z from 'zod';
import { LineupKey } from './api.ts';
import { LoadMessage } from './load.ts';
import type { FieldError } from '../errors.ts';
import type { AwaitedStatus, StartupRule } from '../policy/types.ts';
import { describeValue, errorDetail, formatFieldPath } from './issues.ts';
import { MAX_YAML_NESTING, tooDeeplyNested } from './nesting.ts';
import type { JobSet } from './schema.ts';

/** The statuses a startup rule may wait for, as written in the annotation (Complete = Succeeded). */
export const STARTUP_RULE_STATUSES = ['Ready', 'Succeeded', 'Complete'] as const;

/** StartupRulesMessage: problems with the `lineup.dev/startup-rules` annotation. */
export const StartupRulesMessage = {
  notYaml: (detail: string): string => `not valid YAML or JSON: ${detail}`,
  notAList: (seen: string): string =>
    `expected a list of rules ({targetReplicatedJobs: [names], status} or {name, status}), got ${seen}`,
  emptyList: 'expected at least one rule, got an empty list',
  notARule: (seen: string): string => `expected a rule ({targetReplicatedJobs: [names], status} or {name, status}), got ${seen}`,
  unknownKeys: (keys: readonly string[]): string =>
    `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => JSON.stringify(k)).join(', ')} in a rule, expected targetReplicatedJobs or name, and status`,
  neitherForm: 'a rule names no replicatedJob: expected targetReplicatedJobs (a list of names) or name (one name), got neither',
  bothForms: 'a rule has both targetReplicatedJobs and name, expected only one of them',
  targetsNotAList: (seen: string): string => `targetReplicatedJobs must be a list of replicatedJob names, got ${seen}`,
  emptyTargets: 'targetReplicatedJobs must name at least one replicatedJob, got an empty list',
  badName: (seen: string): string => `expected a replicatedJob name (a non-empty string), got ${seen}`,
  badStatus: (seen: string): string => `status is ${seen}, expected one of: ${STARTUP_RULE_STATUSES.join(', ')}`,
  unknownTarget: (name: string, known: readonly string[]): string =>
    `replicatedJob ${JSON.stringify(name)} is not in spec.replicatedJobs, expected one of: ${known.length > 0 ? known.join(', ') : '(none)'}`,
  namedTwice: (name: string, firstPath: string): string =>
    `replicatedJob ${JSON.stringify(name)} is already named at ${firstPath}, expected each replicatedJob in at most one rule, once`,
  twoForms: (other: string): string =>
    `two startup forms at once: the ${LineupKey.StartupRulesAnnotation} annotation and ${other}, expected only one`,
} as const;

/** STARTUP_RULES_PATH: the field path of the annotation, the prefix of every error path here. */
export const STARTUP_RULES_PATH = formatFieldPath(['metadata', 'annotations', LineupKey.StartupRulesAnnotation]);

/** The result of parsing the annotation: the rules, or every shape error found. */
export type StartupRulesParse =
  | {
      readonly ok: true;
      readonly rules: StartupRule[];
      /** targetPaths[i][j]: the field path where rules[i].targetReplicatedJobs[j] was written (for validation errors). */
      readonly targetPaths: string[][];
    }
  | { readonly ok: false; readonly errors: FieldError[] };

// How the annotation spells a status → what the gate waits for.
const AWAITED: Readonly<Record<(typeof STARTUP_RULE_STATUSES)[number], AwaitedStatus>> = {
  Ready: 'Ready',
  Succeeded: 'Complete',
  Complete: 'Complete',
};

const seen = (input: unknown): string => describeValue(input);

const ReplicatedJobNameSchema = z.string({ error: (issue) => StartupRulesMessage.badName(seen(issue.input)) }).min(1, {
  error: (issue) => StartupRulesMessage.badName(seen(issue.input)),
});

const RuleStatusSchema = z.enum(STARTUP_RULE_STATUSES, {
  error: (issue) => StartupRulesMessage.badStatus(issue.input === undefined ? 'missing' : JSON.stringify(issue.input)),
});

const RuleItemSchema = z
  .strictObject(
    {
      targetReplicatedJobs: z
        .array(ReplicatedJobNameSchema, { error: (issue) => StartupRulesMessage.targetsNotAList(seen(issue.input)) })
        .min(1, { error: StartupRulesMessage.emptyTargets })
        .optional(),
      name: ReplicatedJobNameSchema.optional(),
      status: RuleStatusSchema,
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? StartupRulesMessage.unknownKeys(issue.keys) : StartupRulesMessage.notARule(seen(issue.input)),
    },
  )
  .superRefine((item, ctx) => {
    const hasTargets = item.targetReplicatedJobs !== undefined;
    const hasName = item.name !== undefined;
    if (!hasTargets && !hasName) ctx.addIssue({ code: 'custom', message: StartupRulesMessage.neitherForm });
    if (hasTargets && hasName) ctx.addIssue({ code: 'custom', message: StartupRulesMessage.bothForms });
  });

/** StartupRulesSchema: the annotation's value once read as YAML. */
export const StartupRulesSchema = z
  .array(RuleItemSchema, { error: (issue) => StartupRulesMessage.notAList(seen(issue.input)) })
  .min(1, { error: StartupRulesMessage.emptyList });

/**
 * parseStartupRules: the rules written in the `lineup.dev/startup-rules` annotation value, or
 * every shape error, with paths like `metadata.annotations[lineup.dev/startup-rules][1].status`.
 * @example parseStartupRules('[{name: driver, status: Ready}]') // {ok: true, rules: [{targetReplicatedJobs: ['driver'], status: 'Ready'}], …}
 */
export const parseStartupRules = (text: string): StartupRulesParse => {
  // Measured first: composing YAML nested hundreds of levels deep overflows the call stack.
  const tooDeep = tooDeeplyNested(text);
  if (tooDeep !== undefined) return { ok: false, errors: [{ path: STARTUP_RULES_PATH, message: LoadMessage.tooDeep(MAX_YAML_NESTING, tooDeep.line, tooDeep.column) }] };
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    return { ok: false, errors: [{ path: STARTUP_RULES_PATH, message: StartupRulesMessage.notYaml(errorDetail(error)) }] };
  }
  const parsed = StartupRulesSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) {
    // Every schema here sets its own message, so zod's text is already the user's.
    return { ok: false, errors: parsed.error.issues.map((issue) => ({ path: formatFieldPath(issue.path, STARTUP_RULES_PATH), message: issue.message })) };
  }
  const rules = parsed.data.map((item): StartupRule => ({
    targetReplicatedJobs: item.targetReplicatedJobs ?? (item.name === undefined ? [] : [item.name]),
    status: AWAITED[item.status],
  }));
  const targetPaths = parsed.data.map((item, i) =>
    item.targetReplicatedJobs
      ? item.targetReplicatedJobs.map((_, j) => formatFieldPath([i, 'targetReplicatedJobs', j], STARTUP_RULES_PATH))
      : [formatFieldPath([i, 'name'], STARTUP_RULES_PATH)],
  );
  return { ok: true, rules, targetPaths };
};

/** startupRulesOf: undefined when the JobSet has no `lineup.dev/startup-rules` annotation, else the parse of its value. */
export const startupRulesOf = (jobSet: JobSet): StartupRulesParse | undefined => {
  const text = jobSet.metadata.annotations?.[LineupKey.StartupRulesAnnotation];
  return text === undefined ? undefined : parseStartupRules(text);
};
