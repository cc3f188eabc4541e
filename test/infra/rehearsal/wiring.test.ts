/**
 * The rehearsal's reading of a template (infra/rehearsal/wiring.ts): the stack's own template
 * (synthesized without bundling) read into functions, queues, rules, mappings, tables and
 * schedules that agree with the template's resources, and a hand-made template for each way a
 * resource the rehearsal must run can be unreadable.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WiringError, rateMs, readWiring, templateValue, type Template } from '../../../infra/rehearsal/wiring.ts';
import { synthStack } from '../helpers.ts';

const stackTemplate = (): Template => synthStack().template.toJSON() as Template;

describe('readWiring on the synthesized stack', () => {
  const template = stackTemplate();
  const wiring = readWiring(template);
  const count = (type: string): number => Object.values(template.Resources ?? {}).filter((resource) => resource.Type === type).length;

  it('reads every function, queue, table and mapping the template holds', () => {
    assert.equal(wiring.functions.length, count('AWS::Lambda::Function'));
    assert.equal(wiring.queues.length, count('AWS::SQS::Queue'));
    assert.equal(wiring.tables.length, count('AWS::DynamoDB::Table'));
    assert.equal(wiring.eventSourceMappings.length, count('AWS::Lambda::EventSourceMapping'));
    assert.ok(wiring.eventSourceMappings.length > 0 && wiring.schedules.length > 0 && wiring.rules.length > 0);
  });

  it('follows each reference: a mapping polls a queue the rule feeds, a schedule and a mapping invoke functions of the stack', () => {
    const functionIds = new Set(wiring.functions.map((fn) => fn.logicalId));
    const fedQueues = new Set(wiring.rules.flatMap((rule) => rule.queues));
    for (const mapping of wiring.eventSourceMappings) {
      assert.ok(functionIds.has(mapping.function), mapping.logicalId);
      assert.ok(fedQueues.has(mapping.queue), `${mapping.logicalId} polls ${mapping.queue}, which a rule feeds`);
    }
    for (const schedule of wiring.schedules) assert.ok(functionIds.has(schedule.function), schedule.logicalId);
    for (const queue of wiring.queues) if (queue.redrive) assert.ok(wiring.queues.some((other) => other.logicalId === queue.redrive?.deadLetterQueue));
  });

  it('reads the properties as the template states them', () => {
    const resources = template.Resources ?? {};
    for (const mapping of wiring.eventSourceMappings) {
      const properties = resources[mapping.logicalId]?.Properties ?? {};
      assert.equal(mapping.batchSize, properties['BatchSize']);
      assert.equal(mapping.reportBatchItemFailures, (properties['FunctionResponseTypes'] as string[] | undefined)?.includes('ReportBatchItemFailures') === true);
    }
    for (const fn of wiring.functions) {
      const properties = resources[fn.logicalId]?.Properties ?? {};
      assert.equal(fn.handler, properties['Handler']);
      assert.equal(fn.memoryMb, properties['MemorySize']);
      const variables = (properties['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      assert.deepEqual(Object.keys(fn.environment), Object.keys(variables));
    }
  });

  it('lists what it cannot run with a reason, and what it honours', () => {
    const notHonoured = new Map(wiring.notHonoured.map((entry) => [entry.what, entry]));
    assert.match(notHonoured.get('AWS::IAM::Role')?.reason ?? '', /IAM is not evaluated/);
    assert.ok(notHonoured.get('AWS::Lambda::Function.ReservedConcurrentExecutions'), 'reserved concurrency is listed');
    for (const entry of wiring.notHonoured) assert.ok(entry.reason.length > 0 && entry.resources.length > 0, entry.what);
    assert.ok(wiring.honoured.some((entry) => entry.what === 'AWS::Lambda::EventSourceMapping.FunctionResponseTypes'));
    assert.ok(wiring.honoured.some((entry) => entry.what === 'AWS::Lambda::Function.Environment'));
  });
});

/** minimal: a function fed by a queue, with `change` applied to its resources. */
const minimal = (change: (resources: Record<string, { Type: string; Properties: Record<string, unknown> }>) => void): Template => {
  const resources: Record<string, { Type: string; Properties: Record<string, unknown> }> = {
    Fn: { Type: 'AWS::Lambda::Function', Properties: { Code: { S3Key: 'abc.zip' }, Handler: 'index.handler', Runtime: 'nodejs24.x', Environment: { Variables: { A: 'x', T: { Ref: 'Table' } } } } },
    Q: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: 360 } },
    Bus: { Type: 'AWS::Events::EventBus', Properties: { Name: 'bus' } },
    Rule: { Type: 'AWS::Events::Rule', Properties: { EventBusName: { Ref: 'Bus' }, EventPattern: { source: ['x'] }, State: 'ENABLED', Targets: [{ Arn: { 'Fn::GetAtt': ['Q', 'Arn'] }, Id: 't' }] } },
    Map: { Type: 'AWS::Lambda::EventSourceMapping', Properties: { EventSourceArn: { 'Fn::GetAtt': ['Q', 'Arn'] }, FunctionName: { Ref: 'Fn' } } },
    Every: { Type: 'AWS::Scheduler::Schedule', Properties: { ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED', Target: { Arn: { 'Fn::GetAtt': ['Fn', 'Arn'] }, Input: '{"full":false}' } } },
  };
  change(resources);
  return { Resources: resources };
};

describe('readWiring on hand-made templates', () => {
  it('takes SQS and Lambda defaults where the template sets none, and the asset directory from S3Key', () => {
    const wiring = readWiring(minimal(() => undefined));
    assert.deepEqual(wiring.eventSourceMappings[0], { logicalId: 'Map', queue: 'Q', function: 'Fn', batchSize: 10, batchingWindowSeconds: 0, maxConcurrency: undefined, reportBatchItemFailures: false });
    assert.equal(wiring.functions[0]?.assetDir, 'asset.abc');
    assert.equal(wiring.functions[0]?.timeoutSeconds, 3);
    assert.deepEqual(wiring.functions[0]?.environment, { A: { literal: 'x' }, T: { ref: 'Table' } });
    assert.deepEqual(wiring.schedules[0], { logicalId: 'Every', function: 'Fn', input: { full: false }, everyMs: 300_000, expression: 'rate(5 minutes)' });
  });

  it('refuses, naming the resource, what it cannot run', () => {
    const refused: [string, Template, RegExp][] = [
      ['inline code', minimal((r) => void (r['Fn']!.Properties['Code'] = { ZipFile: 'x' })), /function Fn: Code\.S3Key/],
      ['a cron schedule', minimal((r) => void (r['Every']!.Properties['ScheduleExpression'] = 'cron(0 * * * ? *)')), /schedule Every: ScheduleExpression .*cron/],
      ['a disabled rule', minimal((r) => void (r['Rule']!.Properties['State'] = 'DISABLED')), /rule Rule: State is "DISABLED"/],
      ['a computed variable', minimal((r) => void (r['Fn']!.Properties['Environment'] = { Variables: { B: { 'Fn::Join': ['', ['a']] } } })), /function Fn: Environment variable B/],
      ['a mapping from elsewhere', minimal((r) => void (r['Map']!.Properties['EventSourceArn'] = 'arn:aws:sqs:x')), /event source mapping Map: EventSourceArn/],
    ];
    for (const [what, template, message] of refused) assert.throws(() => readWiring(template), (error: unknown) => error instanceof WiringError && message.test(error.message), what);
  });

  it('lists a resource type it has no stand-in for, and an unknown property of a known one', () => {
    const wiring = readWiring(minimal((r) => {
      r['Topic'] = { Type: 'AWS::SNS::Topic', Properties: {} };
      r['Q']!.Properties['FifoQueue'] = true;
    }));
    assert.deepEqual(wiring.notHonoured.find((entry) => entry.what === 'AWS::SNS::Topic'), { what: 'AWS::SNS::Topic', resources: ['Topic'], reason: 'no stand-in for this resource type here' });
    assert.ok(wiring.notHonoured.some((entry) => entry.what === 'AWS::SQS::Queue.FifoQueue'));
  });

  it('reads rates and template values', () => {
    assert.equal(rateMs('rate(1 minute)', 'x'), 60_000);
    assert.equal(rateMs('rate(1 day)', 'x'), 86_400_000);
    assert.throws(() => rateMs('rate(10 seconds)', 'schedule S'), /schedule S/);
    assert.deepEqual(templateValue({ 'Fn::GetAtt': ['Q', 'Arn'] }, 'x'), { getAtt: ['Q', 'Arn'] });
    assert.deepEqual(templateValue(5, 'x'), { literal: '5' });
  });
});
