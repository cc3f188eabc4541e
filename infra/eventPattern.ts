/**
 * toRuleEventPattern: lib/events/pattern.ts's EventPattern (EventBridge's JSON keys, leaves of
 * exact strings or `{prefix}`) as the CDK's events.EventPattern, so the deployed rule and archive
 * use the very pattern the local bus and the forwarder use. test/infra/pattern.test.ts checks
 * that the synthesized rule renders back to reconcilerRulePattern().
 */
import * as events from 'aws-cdk-lib/aws-events';
import type { EventPattern, PatternValue } from '../lib/events/pattern.ts';

/** TOP_LEVEL_FIELDS: EventBridge's top-level event fields → the CDK EventPattern property naming them. */
const TOP_LEVEL_FIELDS = {
  version: 'version',
  id: 'id',
  'detail-type': 'detailType',
  source: 'source',
  account: 'account',
  time: 'time',
  region: 'region',
  resources: 'resources',
  detail: 'detail',
} as const satisfies Record<string, keyof events.EventPattern>;

type TopLevelField = keyof typeof TOP_LEVEL_FIELDS;

const isTopLevelField = (field: string): field is TopLevelField => Object.hasOwn(TOP_LEVEL_FIELDS, field);

/** toLeaf: a list of exact values and prefixes as the CDK renders them. */
const toLeaf = (values: readonly PatternValue[]): string[] =>
  values.every((value): value is string => typeof value === 'string')
    ? [...values]
    : events.Match.anyOf(...values.map((value) => (typeof value === 'string' ? value : events.Match.prefix(value.prefix))));

/** toNested: a nested pattern object (inside `detail`), keys kept as they are. */
const toNested = (pattern: EventPattern): Record<string, unknown> =>
  Object.fromEntries(Object.entries(pattern).map(([field, value]) => [field, Array.isArray(value) ? toLeaf(value as readonly PatternValue[]) : toNested(value as EventPattern)]));

/** toRuleEventPattern: the CDK form of `pattern`; a top-level field EventBridge does not have is an error. */
export const toRuleEventPattern = (pattern: EventPattern): events.EventPattern => {
  const result: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(pattern)) {
    if (!isTopLevelField(field)) throw new Error(`event pattern field ${JSON.stringify(field)} is not an EventBridge event field, expected one of: ${Object.keys(TOP_LEVEL_FIELDS).join(', ')}`);
    result[TOP_LEVEL_FIELDS[field]] = Array.isArray(value) ? toLeaf(value as readonly PatternValue[]) : toNested(value as EventPattern);
  }
  return result as events.EventPattern;
};
