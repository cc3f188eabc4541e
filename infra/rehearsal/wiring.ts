/**
 * The rehearsal's reading of a synthesized stack: from a CloudFormation template alone, the
 * wiring the rehearsal builds on the test servers — each Lambda function (its asset, handler,
 * runtime, memory, timeout, environment), the queues (visibility timeout, redrive policy), the
 * bus and the rules that target a queue (pattern), the event source mappings (batch size,
 * batching window, maximum concurrency, partial batch responses), the tables (keys, indexes, TTL
 * attribute) and the Scheduler schedules (target, input, rate). Read generically, by resource
 * type: nothing here knows which functions, alarms, metrics or event kinds the stack holds
 * today. Every other property of the template, and every resource type the rehearsal cannot
 * run, is listed as not honoured, with the reason (`notHonoured`).
 *
 * Pure: a template in, a description out; the rehearsal (infra/rehearsal/rehearse.ts) acts on it.
 */
import { isObject } from '../../lib/json.ts';

/** TemplateResource: one resource of a CloudFormation template, as read here. */
export interface TemplateResource {
  readonly Type?: string;
  readonly Properties?: Record<string, unknown>;
}

/** Template: the part of a synthesized template read here. */
export interface Template {
  readonly Resources?: Readonly<Record<string, TemplateResource>>;
}

/** TemplateValue: a property value — a literal, or a reference to another resource (Ref, Fn::GetAtt) resolved when the resources exist. */
export type TemplateValue = { readonly literal: string } | { readonly ref: string } | { readonly getAtt: readonly [string, string] };

/** LambdaFunctionWiring: an AWS::Lambda::Function as the rehearsal starts it. */
export interface LambdaFunctionWiring {
  readonly logicalId: string;
  /** The asset directory name in cdk.out (`asset.<hash>`), from Code.S3Key. */
  readonly assetDir: string;
  /** `module.export`, e.g. `index.handler`. */
  readonly handler: string;
  readonly runtime: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  /** Every variable of Environment.Variables, in the template's order. */
  readonly environment: Readonly<Record<string, TemplateValue>>;
}

/** QueueWiring: an AWS::SQS::Queue. */
export interface QueueWiring {
  readonly logicalId: string;
  readonly visibilityTimeoutSeconds: number;
  /** The dead-letter queue's logical id and the receive count that moves a message there. */
  readonly redrive: { readonly deadLetterQueue: string; readonly maxReceiveCount: number } | undefined;
}

/** BusWiring: an AWS::Events::EventBus. */
export interface BusWiring {
  readonly logicalId: string;
  readonly name: string;
}

/** RuleWiring: an AWS::Events::Rule whose targets are queues of the stack. */
export interface RuleWiring {
  readonly logicalId: string;
  /** The bus's logical id. */
  readonly bus: string;
  readonly pattern: Readonly<Record<string, unknown>>;
  /** Logical ids of the queues it targets. */
  readonly queues: readonly string[];
}

/** EventSourceMappingWiring: an AWS::Lambda::EventSourceMapping from a queue of the stack. */
export interface EventSourceMappingWiring {
  readonly logicalId: string;
  readonly queue: string;
  readonly function: string;
  /** BatchSize; SQS's default 10 when the template sets none. */
  readonly batchSize: number;
  readonly batchingWindowSeconds: number;
  /** ScalingConfig.MaximumConcurrency, or undefined: as many as Lambda likes. */
  readonly maxConcurrency: number | undefined;
  /** FunctionResponseTypes holds ReportBatchItemFailures. */
  readonly reportBatchItemFailures: boolean;
}

/** TableWiring: an AWS::DynamoDB::Table. */
export interface TableWiring {
  readonly logicalId: string;
  readonly attributes: readonly { readonly AttributeName: string; readonly AttributeType: string }[];
  readonly keySchema: readonly { readonly AttributeName: string; readonly KeyType: string }[];
  readonly globalSecondaryIndexes: readonly {
    readonly IndexName: string;
    readonly KeySchema: readonly { readonly AttributeName: string; readonly KeyType: string }[];
    readonly Projection: { readonly ProjectionType?: string; readonly NonKeyAttributes?: readonly string[] };
  }[];
  readonly ttlAttribute: string | undefined;
}

/** ScheduleWiring: an AWS::Scheduler::Schedule whose target is a function of the stack. */
export interface ScheduleWiring {
  readonly logicalId: string;
  readonly function: string;
  /** The target's Input, parsed (undefined: none). */
  readonly input: unknown;
  /** The rate in milliseconds, from `rate(N unit)`. */
  readonly everyMs: number;
  readonly expression: string;
}

/** NotHonoured: a property or resource the rehearsal reads but cannot run, and why. */
export interface NotHonoured {
  /** `Type` or `Type.Property`. */
  readonly what: string;
  readonly resources: readonly string[];
  readonly reason: string;
}

/** Wiring: the whole stack as the rehearsal builds it. */
export interface Wiring {
  readonly functions: readonly LambdaFunctionWiring[];
  readonly queues: readonly QueueWiring[];
  readonly buses: readonly BusWiring[];
  readonly rules: readonly RuleWiring[];
  readonly eventSourceMappings: readonly EventSourceMappingWiring[];
  readonly tables: readonly TableWiring[];
  readonly schedules: readonly ScheduleWiring[];
  /** `Type.Property` of every property the rehearsal honours, with how. */
  readonly honoured: readonly { readonly what: string; readonly how: string }[];
  readonly notHonoured: readonly NotHonoured[];
}

/** WiringError: the template holds something the rehearsal must run but cannot read; the message names the resource. */
export class WiringError extends Error {
  override readonly name = 'WiringError';
}

/** HONOURED: per resource type, the properties the rehearsal runs and how. Anything else present is listed as not honoured. */
export const HONOURED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'AWS::Lambda::Function': {
    Code: 'the asset directory of cdk.out named by S3Key, files as zipped',
    Handler: 'module file and export looked up in the asset as the runtime does (_HANDLER, LAMBDA_TASK_ROOT)',
    Runtime: "checked against the Node that runs the emulator's runtime client (same major)",
    MemorySize: 'AWS_LAMBDA_FUNCTION_MEMORY_SIZE, and the heap limit derived from it (--max-old-space-size)',
    Timeout: "AWS_LAMBDA_FUNCTION_TIMEOUT: the emulator ends an invocation that outlives it",
    Environment: 'every variable, references resolved to the resources created on the test servers',
  },
  'AWS::SQS::Queue': {
    VisibilityTimeout: 'set on the moto queue, compressed by the time factor',
    RedrivePolicy: 'set on the moto queue: its dead-letter queue and maxReceiveCount',
  },
  'AWS::Events::EventBus': { Name: 'the moto bus of that name' },
  'AWS::Events::Rule': {
    EventBusName: 'the rule is put on that bus',
    EventPattern: "moto's pattern matcher evaluates it at PutEvents",
    Targets: 'each queue target put on the rule (Arn)',
    State: 'ENABLED required',
  },
  'AWS::Lambda::EventSourceMapping': {
    EventSourceArn: 'the queue polled',
    FunctionName: 'the function invoked, in the emulator',
    BatchSize: 'records per invocation',
    MaximumBatchingWindowInSeconds: 'a batch is gathered up to this long before the invocation',
    ScalingConfig: 'MaximumConcurrency: pollers at once, capped by the emulators this machine runs',
    FunctionResponseTypes: 'ReportBatchItemFailures: the failed records stay, the rest are deleted; without it the whole batch stays on an error',
  },
  'AWS::DynamoDB::Table': {
    AttributeDefinitions: 'CreateTable on dynalite',
    KeySchema: 'CreateTable on dynalite',
    GlobalSecondaryIndexes: 'CreateTable on dynalite',
    BillingMode: 'CreateTable on dynalite',
  },
  'AWS::Scheduler::Schedule': {
    ScheduleExpression: 'rate(...) compressed by the time factor',
    Target: 'the function invoked in the emulator with the target Input',
    State: 'ENABLED required',
  },
};

/** NOT_RUN: why each property or resource type the rehearsal reads is not run. Types not named here are listed as "no stand-in". */
export const NOT_RUN: Readonly<Record<string, string>> = {
  'AWS::IAM::Role': 'IAM is not evaluated by moto or dynalite: every call is allowed; the policies are checked by the template assertions (test/infra) and cdk-nag',
  'AWS::IAM::Policy': 'IAM is not evaluated by moto or dynalite: every call is allowed',
  'AWS::SQS::QueuePolicy': 'resource policies are not evaluated by moto',
  'AWS::Logs::LogGroup': "logs go to the emulator's output; CloudWatch Logs is not run",
  'AWS::CloudWatch::Alarm': 'CloudWatch is not run here: metrics go nowhere and no alarm is evaluated',
  'AWS::CloudWatch::Dashboard': 'CloudWatch is not run here',
  'AWS::Events::Archive': "moto's archive and replay are not used; replay is covered by the archive-replay test",
  'AWS::EC2::VPC': 'no VPC: every process runs on loopback',
  'AWS::EC2::VPCEndpoint': 'no VPC endpoints: the AWS endpoints are pointed at the test servers',
  'AWS::EC2::SecurityGroup': 'no VPC: every process runs on loopback',
  'AWS::Lambda::Function.ReservedConcurrentExecutions': "no account concurrency pool here: the emulators' count bounds concurrency",
  'AWS::Lambda::Function.Architectures': "the asset runs on this machine's architecture",
  'AWS::Lambda::Function.Role': 'IAM is not evaluated',
  'AWS::Lambda::Function.LoggingConfig': "logs go to the emulator's output",
  'AWS::Lambda::Function.VpcConfig': 'no VPC: every process runs on loopback',
  'AWS::Lambda::Function.Description': 'descriptive only',
  'AWS::SQS::Queue.SqsManagedSseEnabled': 'encryption at rest is not modelled by moto',
  'AWS::SQS::Queue.MessageRetentionPeriod': 'a rehearsal is shorter than any retention',
  'AWS::Events::EventBus.Description': 'descriptive only',
  'AWS::Events::Rule.Description': 'descriptive only',
  'AWS::Events::Rule.Targets.RetryPolicy': "moto delivers at once or not at all: EventBridge's delivery retries are not modelled",
  'AWS::Events::Rule.Targets.DeadLetterConfig': "moto does not dead-letter failed deliveries",
  'AWS::DynamoDB::Table.TimeToLiveSpecification': 'dynalite has no UpdateTimeToLive and expires nothing; the attribute is read and reported',
  'AWS::DynamoDB::Table.PointInTimeRecoverySpecification': 'backups are not modelled',
  'AWS::DynamoDB::Table.DeletionProtectionEnabled': 'the rehearsal deletes nothing',
  'AWS::Scheduler::Schedule.FlexibleTimeWindow': 'the rehearsal fires on the compressed rate exactly',
  'AWS::Scheduler::Schedule.ScheduleExpressionTimezone': 'rates do not depend on a timezone',
  'AWS::Scheduler::Schedule.Description': 'descriptive only',
  'AWS::Scheduler::Schedule.Target.RetryPolicy': 'a failed scheduled invocation is reported, not retried',
  'AWS::Scheduler::Schedule.Target.RoleArn': 'IAM is not evaluated',
  'AWS::Lambda::Permission': 'IAM is not evaluated',
  'AWS::SSM::Parameter::Value<String>': 'parameters are resolved by CloudFormation at deploy time; nothing reads them at run time',
  'Custom::AWS': 'custom resources run at deploy time, not in the rehearsal',
  'AWS::EKS::AccessEntry': 'cluster access is given to the test user by the shipped ClusterRoles instead',
  'AWS::EKS::PodIdentityAssociation': 'the forwarder runs with static test credentials',
};

/** templateValue: a literal, a Ref or a Fn::GetAtt; WiringError naming `where` for anything else (Fn::Join, Fn::Sub ...). */
export const templateValue = (value: unknown, where: string): TemplateValue => {
  if (typeof value === 'string') return { literal: value };
  if (typeof value === 'number' || typeof value === 'boolean') return { literal: String(value) };
  if (isObject(value) && typeof value['Ref'] === 'string') return { ref: value['Ref'] };
  const getAtt = isObject(value) ? value['Fn::GetAtt'] : undefined;
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string' && typeof getAtt[1] === 'string') return { getAtt: [getAtt[0], getAtt[1]] };
  throw new WiringError(`${where} is ${JSON.stringify(value)}, expected a string, a Ref or a Fn::GetAtt`);
};

/** logicalIdOf: the resource a Ref or Fn::GetAtt names, or undefined. */
const logicalIdOf = (value: unknown): string | undefined => {
  if (!isObject(value)) return undefined;
  if (typeof value['Ref'] === 'string') return value['Ref'];
  const getAtt = value['Fn::GetAtt'];
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
};

const number = (value: unknown, where: string, fallback?: number): number => {
  if (value === undefined && fallback !== undefined) return fallback;
  const parsed = typeof value === 'string' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed)) throw new WiringError(`${where} is ${JSON.stringify(value)}, expected a number`);
  return parsed;
};

/** RATE_UNITS_MS: Scheduler's rate units. */
const RATE_UNITS_MS: Readonly<Record<string, number>> = { minute: 60_000, minutes: 60_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 };

/** rateMs: `rate(5 minutes)` in milliseconds; WiringError for cron() and at() (the rehearsal runs rates only). */
export const rateMs = (expression: string, where: string): number => {
  const match = /^rate\((\d+) (minutes?|hours?|days?)\)$/.exec(expression.trim());
  const unit = match?.[2] === undefined ? undefined : RATE_UNITS_MS[match[2]];
  if (match?.[1] === undefined || unit === undefined) throw new WiringError(`${where} is ${JSON.stringify(expression)}, expected rate(N minutes|hours|days)`);
  return Number(match[1]) * unit;
};

/** propertyPaths: the `Type.Property` (and `Type.Targets.Property` for rule and schedule targets) paths a resource sets. */
const propertyPaths = (type: string, properties: Record<string, unknown>): string[] => {
  const paths = Object.keys(properties).map((key) => `${type}.${key}`);
  const targets = properties['Targets'] ?? properties['Target'];
  const targetKey = properties['Targets'] !== undefined ? 'Targets' : 'Target';
  for (const target of Array.isArray(targets) ? targets : targets === undefined ? [] : [targets]) {
    if (isObject(target)) for (const key of Object.keys(target)) paths.push(`${type}.${targetKey}.${key}`);
  }
  return paths;
};

/** TARGET_HONOURED: the target properties read to wire a rule or schedule. */
const TARGET_HONOURED = new Set(['Arn', 'Id', 'Input']);

/**
 * readWiring: the stack's wiring, from its template. Throws WiringError naming the resource and
 * property when something the rehearsal must run is unreadable (a function without an asset, a
 * schedule that is not a rate, a rule that is not enabled).
 */
export const readWiring = (template: Template): Wiring => {
  const resources = template.Resources ?? {};
  const entries = Object.entries(resources);
  const ofType = (type: string) => entries.filter(([, resource]) => resource.Type === type).map(([id, resource]) => [id, resource.Properties ?? {}] as const);

  const functions = ofType('AWS::Lambda::Function').map(([logicalId, p]): LambdaFunctionWiring => {
    const code = isObject(p['Code']) ? p['Code'] : {};
    const key = typeof code['S3Key'] === 'string' ? code['S3Key'] : undefined;
    if (key === undefined) throw new WiringError(`function ${logicalId}: Code.S3Key is ${JSON.stringify(code['S3Key'])}, expected the asset's zip name (inline code cannot be rehearsed)`);
    const variables = isObject(p['Environment']) && isObject(p['Environment']['Variables']) ? p['Environment']['Variables'] : {};
    if (typeof p['Handler'] !== 'string') throw new WiringError(`function ${logicalId}: Handler is ${JSON.stringify(p['Handler'])}, expected module.export`);
    if (typeof p['Runtime'] !== 'string') throw new WiringError(`function ${logicalId}: Runtime is ${JSON.stringify(p['Runtime'])}, expected e.g. nodejs24.x`);
    return {
      logicalId,
      assetDir: `asset.${key.replace(/\.zip$/, '')}`,
      handler: p['Handler'],
      runtime: p['Runtime'],
      memoryMb: number(p['MemorySize'], `function ${logicalId}: MemorySize`, 128),
      timeoutSeconds: number(p['Timeout'], `function ${logicalId}: Timeout`, 3),
      environment: Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, templateValue(value, `function ${logicalId}: Environment variable ${name}`)])),
    };
  });

  const queues = ofType('AWS::SQS::Queue').map(([logicalId, p]): QueueWiring => {
    const redrive = isObject(p['RedrivePolicy']) ? p['RedrivePolicy'] : undefined;
    const deadLetterQueue = redrive === undefined ? undefined : logicalIdOf(redrive['deadLetterTargetArn']);
    if (redrive !== undefined && deadLetterQueue === undefined) throw new WiringError(`queue ${logicalId}: RedrivePolicy.deadLetterTargetArn is ${JSON.stringify(redrive['deadLetterTargetArn'])}, expected a queue of the stack`);
    return {
      logicalId,
      visibilityTimeoutSeconds: number(p['VisibilityTimeout'], `queue ${logicalId}: VisibilityTimeout`, 30),
      redrive: redrive === undefined || deadLetterQueue === undefined ? undefined : { deadLetterQueue, maxReceiveCount: number(redrive['maxReceiveCount'], `queue ${logicalId}: RedrivePolicy.maxReceiveCount`) },
    };
  });
  const queueIds = new Set(queues.map((queue) => queue.logicalId));

  const buses = ofType('AWS::Events::EventBus').map(([logicalId, p]): BusWiring => ({ logicalId, name: typeof p['Name'] === 'string' ? p['Name'] : logicalId }));

  const rules = ofType('AWS::Events::Rule').flatMap(([logicalId, p]): RuleWiring[] => {
    const targets = Array.isArray(p['Targets']) ? p['Targets'].filter(isObject) : [];
    const targetQueues = targets.map((target) => logicalIdOf(target['Arn'])).filter((id): id is string => id !== undefined && queueIds.has(id));
    if (targetQueues.length === 0) return [];
    if (p['State'] !== undefined && p['State'] !== 'ENABLED') throw new WiringError(`rule ${logicalId}: State is ${JSON.stringify(p['State'])}, expected ENABLED (it feeds queue ${targetQueues.join(', ')})`);
    const bus = logicalIdOf(p['EventBusName']);
    if (bus === undefined) throw new WiringError(`rule ${logicalId}: EventBusName is ${JSON.stringify(p['EventBusName'])}, expected a bus of the stack`);
    if (!isObject(p['EventPattern'])) throw new WiringError(`rule ${logicalId}: EventPattern is ${JSON.stringify(p['EventPattern'])}, expected an object`);
    return [{ logicalId, bus, pattern: p['EventPattern'], queues: targetQueues }];
  });

  const functionIds = new Set(functions.map((fn) => fn.logicalId));
  const eventSourceMappings = ofType('AWS::Lambda::EventSourceMapping').map(([logicalId, p]): EventSourceMappingWiring => {
    const queue = logicalIdOf(p['EventSourceArn']);
    const fn = logicalIdOf(p['FunctionName']);
    if (queue === undefined || !queueIds.has(queue)) throw new WiringError(`event source mapping ${logicalId}: EventSourceArn is ${JSON.stringify(p['EventSourceArn'])}, expected a queue of the stack`);
    if (fn === undefined || !functionIds.has(fn)) throw new WiringError(`event source mapping ${logicalId}: FunctionName is ${JSON.stringify(p['FunctionName'])}, expected a function of the stack`);
    const scaling = isObject(p['ScalingConfig']) ? p['ScalingConfig'] : {};
    const types = Array.isArray(p['FunctionResponseTypes']) ? p['FunctionResponseTypes'] : [];
    return {
      logicalId,
      queue,
      function: fn,
      batchSize: number(p['BatchSize'], `event source mapping ${logicalId}: BatchSize`, 10),
      batchingWindowSeconds: number(p['MaximumBatchingWindowInSeconds'], `event source mapping ${logicalId}: MaximumBatchingWindowInSeconds`, 0),
      maxConcurrency: scaling['MaximumConcurrency'] === undefined ? undefined : number(scaling['MaximumConcurrency'], `event source mapping ${logicalId}: ScalingConfig.MaximumConcurrency`),
      reportBatchItemFailures: types.includes('ReportBatchItemFailures'),
    };
  });

  const tables = ofType('AWS::DynamoDB::Table').map(([logicalId, p]): TableWiring => {
    const ttl = isObject(p['TimeToLiveSpecification']) && p['TimeToLiveSpecification']['Enabled'] === true ? p['TimeToLiveSpecification']['AttributeName'] : undefined;
    return {
      logicalId,
      attributes: (Array.isArray(p['AttributeDefinitions']) ? p['AttributeDefinitions'] : []) as TableWiring['attributes'],
      keySchema: (Array.isArray(p['KeySchema']) ? p['KeySchema'] : []) as TableWiring['keySchema'],
      globalSecondaryIndexes: (Array.isArray(p['GlobalSecondaryIndexes']) ? p['GlobalSecondaryIndexes'] : []) as TableWiring['globalSecondaryIndexes'],
      ttlAttribute: typeof ttl === 'string' ? ttl : undefined,
    };
  });

  const schedules = ofType('AWS::Scheduler::Schedule').flatMap(([logicalId, p]): ScheduleWiring[] => {
    const target = isObject(p['Target']) ? p['Target'] : {};
    const fn = logicalIdOf(target['Arn']);
    if (fn === undefined || !functionIds.has(fn)) return [];
    if (p['State'] !== undefined && p['State'] !== 'ENABLED') throw new WiringError(`schedule ${logicalId}: State is ${JSON.stringify(p['State'])}, expected ENABLED`);
    const expression = typeof p['ScheduleExpression'] === 'string' ? p['ScheduleExpression'] : '';
    let input: unknown;
    if (typeof target['Input'] === 'string') {
      try {
        input = JSON.parse(target['Input']) as unknown;
      } catch (error) {
        throw new WiringError(`schedule ${logicalId}: Target.Input is not JSON (${(error as Error).message}): ${target['Input']}`);
      }
    }
    return [{ logicalId, function: fn, input, everyMs: rateMs(expression, `schedule ${logicalId}: ScheduleExpression`), expression }];
  });

  // What is honoured and what is not: every property path the template sets, by resource type.
  const honoured = new Map<string, string>();
  const notHonoured = new Map<string, { resources: Set<string>; reason: string }>();
  const miss = (what: string, id: string, reason: string): void => {
    const seen = notHonoured.get(what) ?? { resources: new Set<string>(), reason };
    seen.resources.add(id);
    notHonoured.set(what, seen);
  };
  const wired = new Set([...rules.map((rule) => rule.logicalId), ...schedules.map((schedule) => schedule.logicalId)]);
  for (const [id, resource] of entries) {
    const type = resource.Type ?? '?';
    const known = HONOURED[type];
    if (known === undefined || ((type === 'AWS::Events::Rule' || type === 'AWS::Scheduler::Schedule') && !wired.has(id))) {
      miss(type, id, NOT_RUN[type] ?? (known === undefined ? 'no stand-in for this resource type here' : 'its target is not a queue or function of the stack'));
      continue;
    }
    for (const path of propertyPaths(type, resource.Properties ?? {})) {
      const property = path.slice(type.length + 1);
      const how = known[property] ?? (property.includes('.') && TARGET_HONOURED.has(property.split('.')[1] ?? '') ? known[property.split('.')[0] ?? ''] : undefined);
      if (how !== undefined) honoured.set(path, how);
      else miss(path, id, NOT_RUN[path] ?? 'not modelled by the rehearsal');
    }
  }
  return {
    functions,
    queues,
    buses,
    rules,
    eventSourceMappings,
    tables,
    schedules,
    honoured: [...honoured].map(([what, how]) => ({ what, how })).sort((a, b) => a.what.localeCompare(b.what)),
    notHonoured: [...notHonoured].map(([what, { resources, reason }]) => ({ what, resources: [...resources].sort(), reason })).sort((a, b) => a.what.localeCompare(b.what)),
  };
};
