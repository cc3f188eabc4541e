/**
 * The forwarder Lambda entry point as Lambda would call it, its Powertools output read back as
 * CloudWatch would, against a real DynamoDB-API server (dynalite): a watch session that fails
 * (its cluster in neither the configuration nor the registry) fails the invocation with its error,
 * and the middleware still publishes its counters with one ForwarderSessionErrors, each time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UnknownClusterError } from '../../lib/errors.ts';
import { FleetMetric } from '../../lib/fleet/metrics.ts';
import type { EmbeddedDynamo } from '../../lib/store/embedded.ts';
import { emfOf, lambdaContext, outputOf, settled, startFunctionEnvironment } from './lambdaFixtures.ts';

let dynamo: EmbeddedDynamo | undefined;

describe('functions/forwarder', () => {
  before(async () => {
    dynamo = await startFunctionEnvironment({ metricsDisabled: false, logLevel: 'WARN' });
    process.env['LINEUP_FORWARDER_CLUSTER'] = 'unregistered';
  });
  after(async () => {
    await dynamo?.stop();
  });

  it('fails a session whose cluster is not registered, publishing ForwarderSessionErrors 1 and the registry read, on every invocation', async () => {
    const { handler } = await import('../../functions/forwarder.ts');
    for (const attempt of [1, 2]) {
      const { result, lines } = await outputOf(() => settled(handler({}, lambdaContext)));
      assert.ok('error' in result, `invocation ${attempt} failed`);
      assert.ok(result.error instanceof UnknownClusterError, String(result.error));
      assert.match(result.error.message, /cluster unregistered is not registered/);
      const emf = emfOf(lines);
      assert.equal(emf.length, 1, JSON.stringify(lines));
      assert.equal(emf[0]?.[FleetMetric.ForwarderSessionErrors.name], 1, `invocation ${attempt}: ${JSON.stringify(emf)}`);
      assert.equal(emf[0]?.['service'], FleetMetric.ForwarderSessionErrors.service);
      // The registry lookup that found nothing, counted in the same record (the next invocation looks again).
      assert.equal(emf[0]?.['DynamodbGetItem'], 1, JSON.stringify(emf));
    }
  });
});
