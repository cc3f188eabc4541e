/**
 * The reconciler Lambda entry point with its Powertools output read back, as CloudWatch would:
 * a poison record leaves one error log line naming its messageId and the reason and one
 * `ReconcilerPoisonRecords` metric, and is not returned for a retry; an invocation that is not an
 * SQS batch fails with one line saying what came. (Its own file: Powertools reads its metrics
 * switch once, when the module builds its Metrics, and test/functions/reconciler.test.ts turns it off.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Context } from 'aws-lambda';
import type { EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { lambdaContext, startFunctionEnvironment } from './lambdaFixtures.ts';
import { sqsEvent } from '../reconcile/fixtures.ts';

const context = lambdaContext;

/** outputOf: what `act` writes to stdout and stderr (Powertools' Metrics and Logger write there: errors to stderr), as JSON lines (a line that is not JSON as `{ text }`). */
const outputOf = async <T>(act: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> => {
  const written: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write.bind(stream));
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof stream.write;
  }
  try {
    const result = await act();
    return { result, lines: written.join('').split('\n').filter((line) => line.trim() !== '').map((line): Record<string, unknown> => (line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : { text: line })) };
  } finally {
    streams.forEach((stream, index) => {
      stream.write = writes[index] as typeof stream.write;
    });
  }
};

let dynamo: EmbeddedDynamo | undefined;

describe('functions/reconciler poison records', () => {
  before(async () => {
    dynamo = await startFunctionEnvironment({ metricsDisabled: false, logLevel: 'WARN' });
  });
  after(async () => {
    await dynamo?.stop();
  });

  it('drops a poison record with one error line (messageId, reason) and a ReconcilerPoisonRecords metric', async () => {
    const { handler } = await import('../../functions/reconciler.ts');
    const { result, lines } = await outputOf(() => handler(sqsEvent(['{"detail-type": "Job Changed"']), context));
    assert.deepEqual(result.batchItemFailures, []);
    const logged = lines.filter((line) => line['message'] === 'poison record dropped, not retried: it can never be handled');
    assert.equal(logged.length, 1, JSON.stringify(lines));
    assert.equal(logged[0]?.['level'], 'ERROR');
    assert.equal(logged[0]?.['messageId'], 'm0');
    assert.match(String(logged[0]?.['reason']), /^message m0: body is not JSON: /);
    const emf = lines.find((line) => line['_aws'] !== undefined);
    assert.equal(emf?.['ReconcilerPoisonRecords'], 1, JSON.stringify(lines));
  });

  it('fails an invocation that is not an SQS batch with one line saying what came', async () => {
    const { handler } = await import('../../functions/reconciler.ts');
    const invoke = handler as unknown as (event: unknown, context: Context) => Promise<unknown>;
    for (const [event, got] of [[null, 'null'], [{}, '{}'], [{ Records: null }, 'Records of type object']] as const) {
      const { result } = await outputOf(() => invoke(event, context).then(() => undefined, (error: unknown) => error));
      assert.ok(result instanceof Error, `rejected for ${JSON.stringify(event)}`);
      assert.equal(result.message, `reconciler: expected an SQS event with a Records list, got ${got}`);
      assert.equal(result.name, 'NotAnSqsEventError');
    }
  });
});
