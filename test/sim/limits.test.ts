import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../lib/errors.ts';
import { SIMULATOR_MAX_JOBS } from '../../lib/sim/constants.ts';
import { checkSimulatorSize, simulatorSizeProblem } from '../../lib/sim/limits.ts';
import { makeJobSet } from '../builders.ts';

describe('sim/limits', () => {
  describe('simulatorSizeProblem', () => {
    it('takes a JobSet of exactly the limit', () => {
      const jobSet = makeJobSet('edge').replicatedJob('a', 6).replicatedJob('b', 4).obj();
      assert.equal(simulatorSizeProblem(jobSet, 10), undefined);
    });

    it('refuses one Job more, naming the JobSet, its Jobs and Pods, the limit and why', () => {
      const jobSet = makeJobSet('over').replicatedJob('a', 6).replicatedJob('b', 5, { parallelism: 3 }).obj();
      assert.equal(
        simulatorSizeProblem(jobSet, 10),
        'JobSet over makes 11 Jobs and 21 Pods, more than the 10 Jobs the simulator runs: it holds every Job in memory (lower replicas to simulate it)',
      );
    });

    it('bounds Jobs only: many pods in few Jobs cost the simulator nothing (a Job keeps its pods as counts)', () => {
      const jobSet = makeJobSet('wide').replicatedJob('a', 1, { parallelism: 100_000_000 }).obj();
      assert.equal(simulatorSizeProblem(jobSet), undefined);
    });

    it(`uses SIMULATOR_MAX_JOBS (${SIMULATOR_MAX_JOBS}) by default`, () => {
      assert.equal(simulatorSizeProblem(makeJobSet('at').replicatedJob('a', SIMULATOR_MAX_JOBS).obj()), undefined);
      assert.match(simulatorSizeProblem(makeJobSet('past').replicatedJob('a', SIMULATOR_MAX_JOBS + 1).obj()) ?? '', /^JobSet past makes 10001 Jobs and 10001 Pods, more than the 10000 Jobs/);
    });

    it('names a generateName JobSet by its prefix', () => {
      const jobSet = makeJobSet('').replicatedJob('a', 11).obj();
      jobSet.metadata.generateName = 'run-';
      assert.match(simulatorSizeProblem(jobSet, 10) ?? '', /^JobSet run-… makes 11 Jobs/);
    });
  });

  describe('checkSimulatorSize', () => {
    it('throws invalid input prefixed with the file for a JobSet over the limit', () => {
      const jobSet = makeJobSet('huge').replicatedJob('a', 1_000_000).obj();
      assert.throws(
        () => checkSimulatorSize(jobSet, 'huge.yaml'),
        (error: unknown) => error instanceof Error && 'code' in error && error.code === ErrorCode.INVALID_INPUT && /^huge\.yaml: JobSet huge makes 1000000 Jobs and 1000000 Pods, more than the 10000 Jobs/.test(error.message),
      );
    });

    it('returns quietly for a JobSet within it', () => {
      assert.doesNotThrow(() => checkSimulatorSize(makeJobSet('small').replicatedJob('a', 3).obj(), 'small.yaml'));
    });
  });
});
