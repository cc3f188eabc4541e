/**
 * Where the end-to-end tier's reconciler rule comes from: the synthesized CDK template, and
 * nothing else. A template without the rule (or without the queue's redrive count) is an error
 * that fails the tier, not a reason to deploy the library's own pattern instead.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reconcilerRuleOf, synthesizedRule } from './pipeline.ts';

/** SYNTH_TIMEOUT_MS: an in-process synthesis with cdk-nag takes seconds, more on a busy machine. */
const SYNTH_TIMEOUT_MS = 120_000;

const queue = { Type: 'AWS::SQS::Queue', Properties: { RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': ['Dlq', 'Arn'] }, maxReceiveCount: 7 } } };
const pattern = { source: [{ prefix: 'team.' }], 'detail-type': ['Thing Changed'] };
const ruleTo = (target: string, eventPattern: unknown = pattern) => ({
  Type: 'AWS::Events::Rule',
  Properties: { EventPattern: eventPattern, Targets: [{ Id: 'Target0', Arn: { 'Fn::GetAtt': [target, 'Arn'] } }] },
});

describe('e2e/pipeline: the reconciler rule', () => {
  it('is read from the synthesized stack: the rule targeting the reconcile queue, and its redrive count', { timeout: SYNTH_TIMEOUT_MS }, async () => {
    // Act
    const rule = await synthesizedRule();
    // Assess: what infra/constructs deploy (lineupBus.ts, reconcileQueue.ts), written out here.
    assert.match(rule.from, /^template \(rule BusReconcilerRule[0-9A-F]{8} → queue Queue[0-9A-F]{8}\)$/);
    assert.deepEqual(rule.pattern, { source: [{ prefix: 'lineup.' }], 'detail-type': ['JobSet Changed', 'Job Changed', 'JobSet Sync'] });
    assert.equal(rule.maxReceiveCount, 5);
  });

  it('is the pattern and redrive count of the rule whose target is a queue, whatever else the template holds', () => {
    const rule = reconcilerRuleOf({
      Bus: { Type: 'AWS::Events::EventBus' },
      ToLambda: ruleTo('Fn', { source: ['elsewhere'] }),
      Fn: { Type: 'AWS::Lambda::Function' },
      ToQueue: ruleTo('Queue'),
      Queue: queue,
    });
    assert.deepEqual(rule, { pattern, maxReceiveCount: 7, from: 'template (rule ToQueue → queue Queue)' });
  });

  const broken: { name: string; resources: Parameters<typeof reconcilerRuleOf>[0]; error: RegExp }[] = [
    {
      name: 'no rule at all',
      resources: { Queue: queue },
      error: /^synthesized template: no AWS::Events::Rule targets an SQS queue of the stack \(rules: none\)$/,
    },
    {
      name: 'a rule whose only target is not a queue',
      resources: { ToLambda: ruleTo('Fn'), Fn: { Type: 'AWS::Lambda::Function' } },
      error: /^synthesized template: no AWS::Events::Rule targets an SQS queue of the stack \(rules: ToLambda\)$/,
    },
    {
      name: 'a rule targeting a queue with no EventPattern',
      resources: { ToQueue: { Type: 'AWS::Events::Rule', Properties: { Targets: [{ Arn: { 'Fn::GetAtt': ['Queue', 'Arn'] } }] } }, Queue: queue },
      error: /^synthesized template: rule ToQueue targets queue Queue but has EventPattern undefined, expected an object$/,
    },
    {
      name: 'a reconcile queue without a redrive policy',
      resources: { ToQueue: ruleTo('Queue'), Queue: { Type: 'AWS::SQS::Queue', Properties: {} } },
      error: /^synthesized template: queue Queue has RedrivePolicy undefined, expected a numeric maxReceiveCount$/,
    },
  ];
  for (const tc of broken) {
    it(`fails, and says why, for a template with ${tc.name}`, () => {
      assert.throws(() => reconcilerRuleOf(tc.resources), { message: tc.error });
    });
  }
});
