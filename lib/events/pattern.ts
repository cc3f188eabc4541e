/**
 * The EventBridge rule pattern that routes Lineup events to the reconciler's queue — one
 * source for the CDK rule, the in-process bus of the local hosts, and the tests — and a
 * matcher for the subset of the pattern language it uses (exact values and prefix).
 */
import { DETAIL_TYPES, EVENT_SOURCE_PREFIX } from './schema.ts';

/** A pattern leaf: a list of exact values or `{prefix}` matchers (EventBridge semantics: any may match). */
export type PatternValue = string | { readonly prefix: string };
/** EventPattern: nested objects whose leaves are lists of PatternValue. */
export interface EventPattern {
  readonly [field: string]: readonly PatternValue[] | EventPattern;
}

/**
 * reconcilerRulePattern: every Lineup event of every cluster, of the three detail-types. A
 * forwarder's heartbeat is its checkpoint write (lib/forwarder/heartbeat.ts), so none crosses the
 * bus; a `Heartbeat` event an older forwarder still puts matches no rule and costs only its put.
 */
export const reconcilerRulePattern = (): EventPattern => ({
  source: [{ prefix: EVENT_SOURCE_PREFIX }],
  'detail-type': [...DETAIL_TYPES],
});

const leafMatches = (value: unknown, matchers: readonly PatternValue[]): boolean =>
  matchers.some((matcher) => {
    if (typeof matcher === 'string') return Array.isArray(value) ? value.includes(matcher) : value === matcher;
    return typeof value === 'string' && value.startsWith(matcher.prefix);
  });

/**
 * matchesPattern: EventBridge matching for exact-value and prefix leaves: every field named by
 * the pattern must be present and match one of its values; nested objects recurse.
 */
export const matchesPattern = (pattern: EventPattern, event: Readonly<Record<string, unknown>>): boolean =>
  Object.entries(pattern).every(([field, expected]) => {
    const value = event[field];
    if (Array.isArray(expected)) return leafMatches(value, expected as readonly PatternValue[]);
    if (value === null || typeof value !== 'object') return false;
    return matchesPattern(expected as EventPattern, value as Record<string, unknown>);
  });
