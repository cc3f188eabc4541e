/**
 * The deployed rule's pattern is reconcilerRulePattern() (lib/events/pattern.ts), and it
 * selects exactly Lineup's events: sample events built with lib/events match it for every
 * detail-type and several cluster ids; other sources and detail-types do not.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as events from 'aws-cdk-lib/aws-events';
import { toRuleEventPattern } from '../../infra/eventPattern.ts';
import { matchesPattern, reconcilerRulePattern } from '../../lib/events/pattern.ts';
import type { EventPattern } from '../../lib/events/pattern.ts';
import { CLUSTER_ID_PATTERN, DETAIL_TYPES, DetailType, LineupEventDetailSchema, eventSource } from '../../lib/events/schema.ts';
import { onlyResource, synthStack } from './helpers.ts';

const { template } = synthStack({});
const deployed = onlyResource(template, 'AWS::Events::Rule', 'BusReconcilerRule').Properties['EventPattern'] as EventPattern;

/** sampleEvent: an EventBridge event as the bus delivers it, its detail validated by the shared schema. */
const sampleEvent = (source: string, detailType: string, cluster: string): Record<string, unknown> => ({
  version: '0',
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  'detail-type': detailType,
  source,
  account: '123456789012',
  time: '2025-06-01T12:00:00Z',
  region: 'us-east-1',
  resources: [],
  detail: LineupEventDetailSchema.parse({
    cluster,
    namespace: 'default',
    jobSet: 'training',
    kind: detailType === DetailType.JobChanged ? 'Job' : 'JobSet',
    name: detailType === DetailType.JobChanged ? 'training-workers-0' : 'training',
    uid: 'c0ffee',
    resourceVersion: '42',
    watchType: detailType === DetailType.JobSetSync ? 'SYNC' : 'MODIFIED',
  }),
});

/** renderPattern: what the CDK writes for a pattern, via a throwaway rule. */
const renderPattern = (pattern: EventPattern): unknown => {
  const stack = new Stack(new App(), 'PatternProbe');
  new events.Rule(stack, 'Rule', { eventPattern: toRuleEventPattern(pattern) });
  return Object.values(Template.fromStack(stack).findResources('AWS::Events::Rule'))[0]?.['Properties']['EventPattern'];
};

const CLUSTER_IDS = ['prod', 'a', 'eu-west-1-gpu', `c${'x'.repeat(61)}9`];

describe('reconciler rule pattern', () => {
  it('is deployed exactly as reconcilerRulePattern() returns it', () => {
    assert.deepEqual(deployed, reconcilerRulePattern());
  });

  it('renders exact values, prefixes and nested fields back unchanged', () => {
    const pattern: EventPattern = { source: [{ prefix: 'lineup.' }, 'other'], 'detail-type': ['A', 'B'], detail: { cluster: [{ prefix: 'prod-' }], kind: ['Job'] } };
    assert.deepEqual(renderPattern(pattern), pattern);
  });

  it('refuses a field EventBridge events do not have', () => {
    assert.throws(() => toRuleEventPattern({ sauce: ['x'] }), /event pattern field "sauce" is not an EventBridge event field/);
  });

  it('the cluster ids of the samples are valid', () => {
    for (const id of CLUSTER_IDS) assert.match(id, CLUSTER_ID_PATTERN);
  });

  for (const detailType of DETAIL_TYPES) {
    for (const cluster of CLUSTER_IDS) {
      it(`matches ${detailType} from cluster ${cluster.length > 20 ? `${cluster.slice(0, 8)}… (63 characters)` : cluster}`, () => {
        assert.equal(matchesPattern(deployed, sampleEvent(eventSource(cluster), detailType, cluster)), true);
      });
    }
  }

  const misses: { name: string; source: string; detailType: string }[] = [
    { name: 'a source without the lineup. prefix', source: 'lineupx.prod', detailType: DetailType.JobSetChanged },
    { name: 'an AWS service source', source: 'aws.ec2', detailType: DetailType.JobChanged },
    { name: 'a source in other case', source: 'Lineup.prod', detailType: DetailType.JobSetChanged },
    { name: 'the bare prefix without a dot', source: 'lineup', detailType: DetailType.JobSetSync },
    { name: 'another detail-type', source: eventSource('prod'), detailType: 'JobSet Deleted' },
    { name: 'a detail-type in other case', source: eventSource('prod'), detailType: DetailType.JobChanged.toLowerCase() },
  ];
  for (const tc of misses) {
    it(`does not match ${tc.name}`, () => {
      assert.equal(matchesPattern(deployed, sampleEvent(tc.source, tc.detailType, 'prod')), false);
    });
  }

  it('does not match an event without detail-type', () => {
    const { 'detail-type': _dropped, ...event } = sampleEvent(eventSource('prod'), DetailType.JobSetChanged, 'prod');
    assert.equal(matchesPattern(deployed, event), false);
  });
});
