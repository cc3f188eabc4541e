/**
 * Turning parse findings into FieldErrors: the dotted/bracketed path a user can follow into
 * the YAML, and lower-case messages that say what was seen and what was expected.
 */
import type * as z from 'zod';
import type { FieldError } from '../errors.ts';

/** A zod issue as zod 4 reports it. */
export type ZodIssue = z.core.$ZodIssue;

// A key that can be written after a dot; anything else (annotation keys with '/' or '.') goes in brackets.
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * formatFieldPath: `['spec', 'replicatedJobs', 1, 'name']` → `spec.replicatedJobs[1].name`.
 * Keys that are not plain identifiers are bracketed unquoted, as kubectl prints them:
 * `metadata.annotations[lineup.dev/startup-rules]`.
 * @example formatFieldPath(['metadata', 'annotations', 'a.b/c']) // 'metadata.annotations[a.b/c]'
 */
export const formatFieldPath = (segments: readonly PropertyKey[], base = ''): string =>
  segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number') return `${path}[${segment}]`;
    const key = String(segment);
    if (!PLAIN_KEY.test(key)) return `${path}[${key}]`;
    return path === '' ? key : `${path}.${key}`;
  }, base);

const MAX_SHOWN_STRING = 60;

/**
 * describeValue: a short phrase for a value seen in input, for "got …" in messages.
 * @example describeValue('Failed') // 'the string "Failed"'
 */
export const describeValue = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > MAX_SHOWN_STRING ? `${value.slice(0, MAX_SHOWN_STRING)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
};

// zod's names for what it expected, in the words a YAML author uses.
const EXPECTED_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean (true or false)',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

const quoteAll = (values: readonly unknown[]): string => values.map((v) => JSON.stringify(v)).join(', ');

/** zodIssueMessage: a lower-case message for one zod issue (parse with `reportInput: true` to name the value seen). */
export const zodIssueMessage = (issue: ZodIssue): string => {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED_WORDS[issue.expected] ?? issue.expected;
      return issue.input === undefined ? `required field is missing, expected ${expected}` : `expected ${expected}, got ${describeValue(issue.input)}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `unsupported value ${JSON.stringify(issue.input)}, expected ${quoteAll(issue.values)}`
        : `unsupported value ${JSON.stringify(issue.input)}, expected one of: ${quoteAll(issue.values)}`;
    case 'too_small':
      return `must be at least ${String(issue.minimum)}${issue.origin === 'array' ? ' items' : ''}, got ${describeValue(issue.input)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}${issue.origin === 'array' ? ' items' : ''}, got ${describeValue(issue.input)}`;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${quoteAll(issue.keys)}`;
    default:
      // Custom checks carry their own message; the rest keep zod's text, in lower case.
      return issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  }
};

/** zodIssuesToFieldErrors: one FieldError per zod issue, paths under `base` (e.g. an annotation's path). */
export const zodIssuesToFieldErrors = (issues: readonly ZodIssue[], base = ''): FieldError[] =>
  issues.map((issue) => ({ path: formatFieldPath(issue.path, base) || '(root)', message: zodIssueMessage(issue) }));

/**
 * errorDetail: the first line of an error's message. YAML errors put a code frame after it;
 * the first line already names the problem and its line and column.
 */
export const errorDetail = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n', 1)[0] ?? message).replace(/:$/, '');
};
