/**
 * The forwarder's heartbeat loop: one at once, then one per interval until stopped, each a valid
 * `Heartbeat` event of its cluster stamped with the clock; a put that fails or throws is logged
 * and counted and the next interval's beat goes out anyway.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CounterName, Counters } from '../../lib/counters.ts';
import { HEARTBEAT_DETAIL_TYPE, HeartbeatDetailSchema } from '../../lib/events/heartbeat.ts';
import { ForwarderLog } from '../../lib/forwarder/forwarderLog.ts';
import { runHeartbeats } from '../../lib/forwarder/heartbeat.ts';
import type { EventSink } from '../../lib/forwarder/types.ts';
import type { Log } from '../../lib/log.ts';
import { RecordingSink } from './helpers.ts';

/** collecting: a Log keeping its lines. */
const collecting = (): { log: Log; lines: { level: string; message: string; fields?: Record<string, unknown> | undefined }[] } => {
  const lines: { level: string; message: string; fields?: Record<string, unknown> | undefined }[] = [];
  return { log: (level, message, fields) => lines.push({ level, message, fields }), lines };
};

describe('forwarder/heartbeat', () => {
  it('beats at once and then once per interval, until its signal aborts', async () => {
    // Prepare: a clock the fake sleep advances, stopping after the third wait.
    const sink = new RecordingSink();
    const counters = new Counters();
    let clock = 1_000;
    const waits: number[] = [];
    const abort = new AbortController();
    const sleep = async (ms: number): Promise<void> => {
      waits.push(ms);
      clock += ms;
      if (waits.length === 3) abort.abort();
    };
    // Act
    await runHeartbeats({ cluster: 'eu-1', sink, now: () => clock, counters, log: collecting().log, intervalMs: 30_000, eventBusName: 'bus', sleep }, abort.signal);
    // Assess
    assert.deepEqual(waits, [30_000, 30_000, 30_000]);
    assert.deepEqual(
      sink.entries.map((entry) => ({ source: entry.Source, type: entry.DetailType, bus: entry.EventBusName, detail: HeartbeatDetailSchema.parse(JSON.parse(entry.Detail)) })),
      [1_000, 31_000, 61_000].map((sentAt) => ({ source: 'lineup.eu-1', type: HEARTBEAT_DETAIL_TYPE, bus: 'bus', detail: { cluster: 'eu-1', sentAt, intervalMs: 30_000 } })),
    );
    assert.equal(counters.get(CounterName.HeartbeatsPut), 3);
  });

  it('logs and counts a refused or failed put, and beats again after the interval', async () => {
    // Prepare: the first put is refused entry by entry, the second throws, the third goes through.
    const answers: (() => Promise<{ failed: { index: number; code: string; message: string }[] }>)[] = [
      async () => ({ failed: [{ index: 0, code: 'ThrottlingException', message: 'slow down' }] }),
      async () => {
        throw new Error('connect ECONNREFUSED');
      },
      async () => ({ failed: [] }),
    ];
    const sink: EventSink = { put: () => (answers.shift() ?? (async () => ({ failed: [] })))() };
    const counters = new Counters();
    const { log, lines } = collecting();
    const abort = new AbortController();
    let waits = 0;
    // Act
    await runHeartbeats(
      { cluster: 'eu-1', sink, now: () => 0, counters, log, sleep: async () => void (++waits === 3 && abort.abort()) },
      abort.signal,
    );
    // Assess
    assert.equal(counters.get(CounterName.HeartbeatsFailed), 2);
    assert.equal(counters.get(CounterName.HeartbeatsPut), 1);
    const warned = lines.filter((line) => line.level === 'warn' && line.message === ForwarderLog.heartbeatFailed);
    assert.deepEqual(warned.map((line) => line.fields?.['code'] ?? line.fields?.['error']), ['ThrottlingException', 'connect ECONNREFUSED']);
  });
});
