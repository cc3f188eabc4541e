/**
 * What the JobSet CRD's OpenAPI schema (jobset.x-k8s.io_jobsets.yaml, status) makes a real API
 * server refuse on a write of the status subresource, beyond the types Lineup's zod schema
 * already checks: the metav1.Condition rules (every field but observedGeneration required,
 * reason and type patterns, lengths) and the list-map keys (one condition per type, one
 * replicatedJobsStatus entry per name). The simulated cluster refuses such a write with the
 * field causes a real server lists in its 422 answer.
 */
import type { FieldError } from '../errors.ts';
import { JobSetStatusSchema } from '../jobset/schema.ts';
import type { JobSetStatus } from '../jobset/schema.ts';

/** metav1.Condition's `reason` pattern (CRD), and its length limits. */
const REASON_PATTERN = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const REASON_MAX_LENGTH = 1024;
/** metav1.Condition's `type` pattern (CRD): CamelCase, optionally prefixed by a DNS subdomain and a slash. */
const TYPE_PATTERN = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
const TYPE_MAX_LENGTH = 316;
const MESSAGE_MAX_LENGTH = 32768;
/** RFC 3339 date-time, the CRD's `format: date-time`. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const required = (path: string): FieldError => ({ path, message: 'Required value' });
const invalid = (path: string, value: unknown, detail: string): FieldError => ({ path, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const tooLong = (path: string, max: number): FieldError => ({ path, message: `Too long: may not be more than ${max} bytes` });
const duplicate = (path: string, key: Record<string, string>): FieldError => ({ path, message: `Duplicate value: ${JSON.stringify(key)}` });

/** inBody: how the server names a field in a schema message, relative to the status (`conditions[0].reason`). */
const inBody = (path: string): string => path.replace(/^status\./, '');

/** conditionViolations: the metav1.Condition rules for conditions[index], in the server's order (by field name). */
const conditionViolations = (condition: Record<string, unknown>, path: string): FieldError[] => {
  const causes: FieldError[] = [];
  const { type, reason, message, lastTransitionTime } = condition;
  if (lastTransitionTime === undefined) causes.push(required(`${path}.lastTransitionTime`));
  else if (typeof lastTransitionTime === 'string' && !DATE_TIME.test(lastTransitionTime)) {
    causes.push(invalid(`${path}.lastTransitionTime`, lastTransitionTime, `${inBody(path)}.lastTransitionTime in body must be of type date-time`));
  }
  if (message === undefined) causes.push(required(`${path}.message`));
  else if (typeof message === 'string' && Buffer.byteLength(message, 'utf8') > MESSAGE_MAX_LENGTH) causes.push(tooLong(`${path}.message`, MESSAGE_MAX_LENGTH));
  if (reason === undefined) causes.push(required(`${path}.reason`));
  else if (typeof reason === 'string') {
    if (reason.length > REASON_MAX_LENGTH) causes.push(tooLong(`${path}.reason`, REASON_MAX_LENGTH));
    else if (!REASON_PATTERN.test(reason)) causes.push(invalid(`${path}.reason`, reason, `${inBody(path)}.reason in body should match '${REASON_PATTERN.source}'`));
  }
  if (typeof type === 'string') {
    if (type.length > TYPE_MAX_LENGTH) causes.push(tooLong(`${path}.type`, TYPE_MAX_LENGTH));
    else if (!TYPE_PATTERN.test(type)) causes.push(invalid(`${path}.type`, type, `${inBody(path)}.type in body should match '${TYPE_PATTERN.source}'`));
  }
  return causes;
};

/** duplicateKeys: a Duplicate cause for each list item whose key an earlier item already has (x-kubernetes-list-type: map). */
const duplicateKeys = (items: readonly Record<string, unknown>[], key: string, path: string): FieldError[] => {
  const seen = new Set<unknown>();
  const causes: FieldError[] = [];
  items.forEach((item, index) => {
    const value = item[key];
    if (seen.has(value)) causes.push(duplicate(`${path}[${index}]`, { [key]: String(value) }));
    seen.add(value);
  });
  return causes;
};

/** fieldPath: a path as the API server writes it (`status.conditions[0].reason`). */
const fieldPath = (segments: readonly PropertyKey[]): string =>
  segments.reduce<string>((path, segment) => (typeof segment === 'number' ? `${path}[${segment}]` : path === '' ? String(segment) : `${path}.${String(segment)}`), '');

/**
 * jobSetStatusViolations: the causes a real API server with the JobSet CRD lists when it refuses
 * `status` as a JobSet's status; empty when it accepts it. Types first (the zod schema, as the
 * server's structural schema would); the CRD's rules then on what parsed.
 */
export const jobSetStatusViolations = (status: JobSetStatus): FieldError[] => {
  const parsed = JobSetStatusSchema.safeParse(status);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => {
      const path = fieldPath(['status', ...issue.path]);
      // An enum (a condition's status) is refused as the server words it: the value and what it allows.
      if (issue.code === 'invalid_value') {
        const value = issue.path.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined), status);
        return { path, message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${issue.values.map((allowed) => JSON.stringify(allowed)).join(', ')}` };
      }
      return { path, message: `Invalid value: ${issue.message}` };
    });
  }
  const conditions = (parsed.data.conditions ?? []) as Record<string, unknown>[];
  const replicatedJobs = (parsed.data.replicatedJobsStatus ?? []) as Record<string, unknown>[];
  return [
    ...conditions.flatMap((condition, index) => conditionViolations(condition, `status.conditions[${index}]`)),
    ...duplicateKeys(conditions, 'type', 'status.conditions'),
    ...duplicateKeys(replicatedJobs, 'name', 'status.replicatedJobsStatus'),
  ];
};
