import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StartupPolicySpec } from '../../lib/policy/types.ts';
import { firstOrderViolation } from '../../lib/replay/startupOrder.ts';
import type { TimelineEntry } from '../../lib/sim/timeline.ts';

const inOrder: StartupPolicySpec = { form: 'InOrder', replicatedJobs: [{ name: 'driver', replicas: 2 }, { name: 'worker', replicas: 1 }] };

const created = (at: number, job: string, replicatedJob: string, suspended: boolean): TimelineEntry => ({ at, type: 'JobCreated', job, replicatedJob, suspended });
const event = (at: number, type: TimelineEntry['type'], job: string, replicatedJob: string): TimelineEntry => ({ at, type, job, replicatedJob });

describe('replay/startupOrder: did a Job start before its gate held?', () => {
  const drivers = [created(0, 'd-0', 'driver', false), created(0, 'd-1', 'driver', false), created(0, 'w-0', 'worker', true)];

  it('InOrder: a worker resumed once both drivers are ready keeps the order', () => {
    const timeline = [...drivers, event(1000, 'JobReady', 'd-0', 'driver'), event(3000, 'JobSucceeded', 'd-1', 'driver'), event(3000, 'JobResumed', 'w-0', 'worker')];
    assert.equal(firstOrderViolation(inOrder, timeline), undefined);
  });

  it('InOrder: a worker resumed while one driver is ready is the violation, with what the gate needed', () => {
    const timeline = [...drivers, event(1000, 'JobReady', 'd-0', 'driver'), event(2000, 'JobResumed', 'w-0', 'worker'), event(3000, 'JobReady', 'd-1', 'driver')];
    assert.deepEqual(firstOrderViolation(inOrder, timeline), { at: 2000, job: 'w-0', replicatedJob: 'worker', unmet: 'InOrder needs driver Ready 2/2, had 1/2' });
  });

  it('a worker created unsuspended counts as started; a deleted (restarted) driver no longer counts', () => {
    const early = [created(0, 'd-0', 'driver', false), created(0, 'w-0', 'worker', false)];
    assert.equal(firstOrderViolation(inOrder, early)?.job, 'w-0');
    const restarted = [...drivers, event(1000, 'JobReady', 'd-0', 'driver'), event(1000, 'JobReady', 'd-1', 'driver'), event(2000, 'JobDeleted', 'd-1', 'driver'), event(2000, 'JobResumed', 'w-0', 'worker')];
    assert.equal(firstOrderViolation(inOrder, restarted)?.unmet, 'InOrder needs driver Ready 2/2, had 1/2');
  });

  it('a finished driver deleted by its own ttlSecondsAfterFinished still counts (Lineup records it); one deleted otherwise does not', () => {
    const ttl = (at: number, job: string): TimelineEntry => ({ ...event(at, 'JobDeleted', job, 'driver'), message: 'ttlSecondsAfterFinished expired' });
    const finished = [...drivers, event(1000, 'JobSucceeded', 'd-0', 'driver'), event(1000, 'JobReady', 'd-1', 'driver')];
    assert.equal(firstOrderViolation(inOrder, [...finished, ttl(1000, 'd-0'), event(2000, 'JobResumed', 'w-0', 'worker')]), undefined);
    // A running Job has no TTL to expire; a finished one deleted by someone else (or a restart) is gone.
    assert.equal(firstOrderViolation(inOrder, [...drivers, event(1000, 'JobReady', 'd-0', 'driver'), event(1000, 'JobReady', 'd-1', 'driver'), ttl(1500, 'd-0'), event(2000, 'JobResumed', 'w-0', 'worker')])?.unmet, 'InOrder needs driver Ready 2/2, had 1/2');
    assert.equal(firstOrderViolation(inOrder, [...finished, event(1500, 'JobDeleted', 'd-0', 'driver'), event(2000, 'JobResumed', 'w-0', 'worker')])?.unmet, 'InOrder needs driver Ready 2/2, had 1/2');
  });

  it('dependsOn Complete needs every replica succeeded; ordered rules gate on every earlier rule; AnyOrder never fails', () => {
    const dependsOn: StartupPolicySpec = { form: 'DependsOn', replicatedJobs: [{ name: 'init', replicas: 1 }, { name: 'main', replicas: 1, dependsOn: [{ name: 'init', status: 'Complete' }] }] };
    const readyOnly = [created(0, 'i-0', 'init', false), created(0, 'm-0', 'main', true), event(1000, 'JobReady', 'i-0', 'init'), event(1000, 'JobResumed', 'm-0', 'main')];
    assert.equal(firstOrderViolation(dependsOn, readyOnly)?.unmet, 'dependsOn needs init Complete 1/1, had 0/1');
    const rules: StartupPolicySpec = {
      form: 'Rules',
      replicatedJobs: [{ name: 'a', replicas: 1 }, { name: 'b', replicas: 1 }, { name: 'c', replicas: 1 }],
      rules: [{ targetReplicatedJobs: ['a'], status: 'Ready' }, { targetReplicatedJobs: ['b'], status: 'Ready' }],
    };
    // c is named by no rule: it waits for every rule, b among them.
    const cEarly = [created(0, 'a-0', 'a', false), created(0, 'b-0', 'b', true), created(0, 'c-0', 'c', true), event(1000, 'JobReady', 'a-0', 'a'), event(1000, 'JobResumed', 'b-0', 'b'), event(1000, 'JobResumed', 'c-0', 'c')];
    assert.deepEqual(firstOrderViolation(rules, cEarly), { at: 1000, job: 'c-0', replicatedJob: 'c', unmet: 'startup rules needs b Ready 1/1, had 0/1' });
    assert.equal(firstOrderViolation({ form: 'AnyOrder', replicatedJobs: inOrder.replicatedJobs }, [created(0, 'w-0', 'worker', false)]), undefined);
  });
});
