/**
 * Every AWS SDK call of Lineup's pipeline, counted and timed by a middleware on each client's own
 * middleware stack (the SDK's extension point: no prototype is touched). DynamoDB requests ask
 * for ReturnConsumedCapacity TOTAL, which dynalite answers as DynamoDB does (item size in KB,
 * rounded up, per write), so write units are counted, not estimated.
 */
import { isObject } from '../../lib/json.ts';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { dynamoItemBytes } from '../../lib/store/itemSize.ts';

/** ServerCall: one AWS SDK call the pipeline made to moto or dynalite. */
export interface ServerCall {
  /** Epoch ms when it returned. */
  readonly at: number;
  /** The SDK client's name: 'EventBridgeClient', 'SQSClient', 'DynamoDBClient'. */
  readonly client: string;
  /** 'PutEvents', 'ReceiveMessage', 'DeleteMessageBatch', 'UpdateItem', … */
  readonly operation: string;
  readonly ms: number;
  /** The call failed (a conditional write whose condition did not hold, a refused request). */
  readonly failed: boolean;
  /** A ReceiveMessage that returned no message (a long poll that waited). */
  readonly empty: boolean;
  /** DynamoDB: the capacity units the server reported; a failed conditional write: 1 (DynamoDB still bills it). */
  readonly capacityUnits: number;
  /** DynamoDB: bytes of the item put (its JSON), 0 otherwise. */
  readonly itemBytes: number;
}

/** DYNAMO_WRITE_OPERATIONS: the DynamoDB operations that consume write units. */
export const DYNAMO_WRITE_OPERATIONS: ReadonlySet<string> = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
/** CAPACITY_OPERATIONS: the DynamoDB operations that take ReturnConsumedCapacity. */
const CAPACITY_OPERATIONS: ReadonlySet<string> = new Set([...DYNAMO_WRITE_OPERATIONS, 'GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
/** MIDDLEWARE: where the counting middleware sits — initialize, so a command is counted once however often the SDK retries it. */
const MIDDLEWARE = { step: 'initialize', name: 'lineupBenchCallCounter' } as const;

/** capacityOf: the units of a ConsumedCapacity (one object, or a list for batch operations). */
const capacityOf = (consumed: unknown): number =>
  (Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed]).reduce<number>(
    (sum, unit) => sum + (isObject(unit) && typeof unit.CapacityUnits === 'number' ? unit.CapacityUnits : 0),
    0,
  );

/** CallCounter: attach it to the pipeline's clients; `calls` grows as they send. */
export class CallCounter {
  readonly calls: ServerCall[] = [];

  /** attach: count every call of these clients from now on. */
  attach(clients: { readonly events: EventBridgeClient; readonly sqs: SQSClient; readonly dynamo: DynamoDBClient }): void {
    clients.events.middlewareStack.add((next, context) => (args) => this.around(context.clientName, context.commandName, args.input, () => next(args)), MIDDLEWARE);
    clients.sqs.middlewareStack.add((next, context) => (args) => this.around(context.clientName, context.commandName, args.input, () => next(args)), MIDDLEWARE);
    // The document client shares its DynamoDBClient's stack and sends the low-level commands (PutItem, UpdateItem, …).
    clients.dynamo.middlewareStack.add((next, context) => (args) => this.around(context.clientName, context.commandName, args.input, () => next(args)), MIDDLEWARE);
  }

  private async around<T extends { output: object }>(client: string | undefined, commandName: string | undefined, input: object, send: () => Promise<T>): Promise<T> {
    const operation = (commandName ?? 'unknown').replace(/Command$/, '');
    const fields = input as Record<string, unknown>;
    const dynamo = client === 'DynamoDBClient';
    if (dynamo && CAPACITY_OPERATIONS.has(operation)) fields['ReturnConsumedCapacity'] = 'TOTAL';
    const started = Date.now();
    const record = (output: object | undefined): void => {
      const result = (output ?? {}) as { ConsumedCapacity?: unknown; Messages?: unknown };
      const failed = output === undefined;
      this.calls.push({
        at: Date.now(),
        client: client ?? 'unknown',
        operation,
        ms: Date.now() - started,
        failed,
        empty: operation === 'ReceiveMessage' && !(Array.isArray(result.Messages) && result.Messages.length > 0),
        capacityUnits: dynamo ? (failed ? (DYNAMO_WRITE_OPERATIONS.has(operation) ? 1 : 0) : capacityOf(result.ConsumedCapacity)) : 0,
        itemBytes: dynamo && !failed && fields['Item'] !== undefined ? dynamoItemBytes(fields['Item'] as Record<string, unknown>) : 0,
      });
    };
    try {
      const response = await send();
      record(response.output);
      return response;
    } catch (error) {
      record(undefined);
      throw error;
    }
  }
}
