/**
 * The reconciler Lambda entry point with its Powertools output read back, as CloudWatch would:
 * a poison record leaves one error log line naming its messageId and the reason and one
 * `ReconcilerPoisonRecords` metric, and is not returned for a retry; an invocation that is not an
 * SQS batch fails with one line saying what came; a batch with a record whose pass fails on its
 * cluster (an API server that refuses every request) returns that record for a retry and still
 * publishes the batch's metrics. (Its own file: Powertools reads its metrics
 * switch once, when the module builds its Metrics, and test/functions/reconciler.test.ts turns it off.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Context } from 'aws-lambda';
import type { EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { emfOf, lambdaContext, outputOf, startFunctionEnvironment } from './lambdaFixtures.ts';
import { detailFor, eventBridgeEvent, sqsEvent } from '../reconcile/fixtures.ts';

const context = lambdaContext;

/** REFUSING_CLUSTER: a static cluster whose API server answers every request 403, so a pass on it fails. */
const REFUSING_CLUSTER = 'refusing';

let dynamo: EmbeddedDynamo | undefined;
let refusing: Server | undefined;

describe('functions/reconciler poison records', () => {
  before(async () => {
    dynamo = await startFunctionEnvironment({ metricsDisabled: false, logLevel: 'WARN' });
    const server = createServer((_request, response) => {
      response.writeHead(403, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'forbidden' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    refusing = server;
    const { port } = server.address() as AddressInfo;
    process.env['LINEUP_STATIC_CLUSTERS'] = JSON.stringify([{ id: REFUSING_CLUSTER, endpoint: `http://127.0.0.1:${port}`, auth: { type: 'token', token: 'test' } }]);
  });
  after(async () => {
    await dynamo?.stop();
    await new Promise<void>((resolve, reject) => (refusing ? refusing.close((error) => (error ? reject(error) : resolve())) : resolve()));
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

  it("returns a record whose pass failed for a retry, and the middleware still publishes the batch's metrics", async () => {
    const { handler } = await import('../../functions/reconciler.ts');
    const failing = JSON.stringify(eventBridgeEvent(detailFor('js', { cluster: REFUSING_CLUSTER })));
    const { result, lines } = await outputOf(() => handler(sqsEvent(['not json', failing]), context));
    assert.deepEqual(result.batchItemFailures, [{ itemIdentifier: 'm1' }]);
    const emf = emfOf(lines);
    assert.equal(emf.length, 1, JSON.stringify(lines));
    // The poison record and the failed pass both counted: one dropped, one invocation that read the cluster.
    assert.deepEqual([emf[0]?.['ReconcilerPoisonRecords'], emf[0]?.['ReconcilerInvocations'], emf[0]?.['K8sGet']], [1, 1, 1], JSON.stringify(emf));
    assert.equal(lines.filter((line) => line['message'] === 'reconcile failed; the event will be retried' && line['messageId'] === 'm1').length, 1, JSON.stringify(lines));
  });
});
