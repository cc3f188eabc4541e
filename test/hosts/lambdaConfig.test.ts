import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EnvVar, readLambdaConfig } from '../../lib/hosts/lambdaConfig.ts';

describe('hosts/lambdaConfig', () => {
  describe('the JobSet size bounds (LINEUP_MAX_JOBS_PER_JOBSET, LINEUP_MAX_PODS_PER_JOBSET)', () => {
    it('default to 10,000 Jobs and 100,000 Pods', () => {
      assert.deepEqual(readLambdaConfig({ [EnvVar.TableName]: 't' }).jobSetLimits, { maxJobs: 10_000, maxPods: 100_000 });
    });

    it('are read from the environment under the names the rejection message gives', () => {
      assert.equal(EnvVar.MaxJobsPerJobSet, 'LINEUP_MAX_JOBS_PER_JOBSET');
      assert.equal(EnvVar.MaxPodsPerJobSet, 'LINEUP_MAX_PODS_PER_JOBSET');
      const config = readLambdaConfig({ [EnvVar.TableName]: 't', LINEUP_MAX_JOBS_PER_JOBSET: '20000', LINEUP_MAX_PODS_PER_JOBSET: '250000' });
      assert.deepEqual(config.jobSetLimits, { maxJobs: 20_000, maxPods: 250_000 });
    });

    for (const value of ['0', '-1', '1.5', 'many']) {
      it(`refuses ${JSON.stringify(value)}, naming the variable`, () => {
        assert.throws(() => readLambdaConfig({ [EnvVar.TableName]: 't', LINEUP_MAX_JOBS_PER_JOBSET: value }), /LINEUP_MAX_JOBS_PER_JOBSET/);
        assert.throws(() => readLambdaConfig({ [EnvVar.TableName]: 't', LINEUP_MAX_PODS_PER_JOBSET: value }), /LINEUP_MAX_PODS_PER_JOBSET/);
      });
    }
  });

  describe('the fair share (LINEUP_SLOTS_PER_CLUSTER with LINEUP_RECONCILER_QUEUE_URL)', () => {
    const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/lineup-reconciler';
    it('is off without them, and read with both', () => {
      assert.equal(readLambdaConfig({ [EnvVar.TableName]: 't' }).fairShare, undefined);
      assert.deepEqual(readLambdaConfig({ [EnvVar.TableName]: 't', [EnvVar.SlotsPerCluster]: '5', [EnvVar.ReconcilerQueueUrl]: queueUrl }).fairShare, { slotsPerCluster: 5, queueUrl });
    });

    it('refuses one without the other, and a share that is not a whole number above 0, naming the variables', () => {
      assert.throws(() => readLambdaConfig({ [EnvVar.TableName]: 't', [EnvVar.SlotsPerCluster]: '5' }), /LINEUP_SLOTS_PER_CLUSTER and LINEUP_RECONCILER_QUEUE_URL come together/);
      assert.throws(() => readLambdaConfig({ [EnvVar.TableName]: 't', [EnvVar.ReconcilerQueueUrl]: queueUrl }), /come together/);
      assert.throws(() => readLambdaConfig({ [EnvVar.TableName]: 't', [EnvVar.SlotsPerCluster]: '0', [EnvVar.ReconcilerQueueUrl]: queueUrl }), /LINEUP_SLOTS_PER_CLUSTER/);
    });
  });
});
