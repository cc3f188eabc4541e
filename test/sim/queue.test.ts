import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventQueue, Phase } from '../../lib/sim/queue.ts';

describe('sim/queue', () => {
  it('runs events by time, then cluster work before reconcile passes, then in scheduling order', () => {
    const queue = new EventQueue();
    const ran: string[] = [];
    queue.schedule(5, Phase.Reconcile, () => ran.push('pass@5'));
    queue.schedule(5, Phase.Cluster, () => ran.push('cluster@5 first'));
    queue.schedule(1, Phase.Reconcile, () => ran.push('pass@1'));
    queue.schedule(5, Phase.Cluster, () => ran.push('cluster@5 second'));
    queue.runUntil(10);
    assert.deepEqual(ran, ['pass@1', 'cluster@5 first', 'cluster@5 second', 'pass@5']);
    assert.equal(queue.now(), 10);
  });

  it('never runs a cancelled event and does not count it', () => {
    const queue = new EventQueue();
    const ran: number[] = [];
    const handle = queue.schedule(1, Phase.Cluster, () => ran.push(1));
    queue.schedule(2, Phase.Cluster, () => ran.push(2));
    queue.cancel(handle);
    assert.equal(queue.size(), 1);
    assert.equal(queue.peekTime(), 2);
    queue.runUntil(Infinity);
    assert.deepEqual(ran, [2]);
    assert.equal(queue.size(), 0);
  });

  it('runs an event scheduled in the past at the current time, and events scheduled while running', () => {
    const queue = new EventQueue();
    const ran: string[] = [];
    queue.schedule(3, Phase.Cluster, (at) => {
      ran.push(`a@${at}`);
      queue.schedule(0, Phase.Cluster, (later) => ran.push(`b@${later}`));
    });
    queue.runUntil(3);
    assert.deepEqual(ran, ['a@3', 'b@3']);
  });

  it('stops at until and leaves later events queued', () => {
    const queue = new EventQueue();
    queue.schedule(10, Phase.Cluster, () => undefined);
    queue.runUntil(5);
    assert.equal(queue.size(), 1);
    assert.equal(queue.now(), 5);
  });
});
